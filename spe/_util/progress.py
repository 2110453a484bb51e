"""A progress bar for fits that take a while (tqdm, shown only after a delay).

``show=None`` (the default of :func:`spe.fit`) shows the bar only when standard error is
a terminal, ``True`` always, ``False`` never. Either way it appears only once a fit has
run for :data:`DELAY_SECONDS`, so quick fits print nothing.
"""

from __future__ import annotations

from tqdm import tqdm

DELAY_SECONDS = 2.0


def check_show(show):
    if show is not None and not isinstance(show, (bool,)):
        raise TypeError(f"progress must be True, False or None (at a terminal), got {show!r}")
    return show


def stage_bar(total: int, desc: str, show=None) -> tqdm:
    """A bar over ``total`` fitting stages; ``bar.set_postfix_str`` names the current one."""
    return tqdm(total=total, desc=desc, unit="stage", delay=DELAY_SECONDS, leave=False,
                disable=None if show is None else not show)


class _NoBar:
    """Stands in for a bar when a fitting step is called on its own."""

    def update(self, n=1):
        pass

    def set_postfix_str(self, text):
        pass


NO_BAR = _NoBar()
