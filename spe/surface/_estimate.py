"""What every surface estimator returns: posterior draws of each arm's accuracy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Arms smaller than this are reported but not scored or targeted by default (the AAA
#: paper scores arms of at least five items: smaller ones are mostly their items' own luck).
MIN_ITEMS = 5


@dataclass(frozen=True)
class ArmEstimate:
    """Posterior of the accuracy of M arms.

    Attributes
    ----------
    mean : ndarray (M,)
        Posterior mean accuracy of each arm (the point estimate the AAA paper scores).
    draws : ndarray (S, M)
        Posterior draws of each arm's accuracy, for intervals, marginals over partial
        combinations and variance-based exploration.
    method : str
        Name of the estimator.
    items : ndarray (S, M), optional
        Each draw's number of items in each arm, where membership is itself uncertain
        (attributes given as probabilities); a draw of an empty arm is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.surface import ArmEstimate
    >>> draws = np.random.default_rng(0).beta([8, 2], [2, 8], size=(2000, 2))
    >>> est = ArmEstimate(draws.mean(axis=0), draws, "example")
    >>> est.mean.round(1).tolist()
    [0.8, 0.2]
    >>> lower, upper = est.interval(0.9)
    >>> bool(lower[0] < 0.8 < upper[0])
    True
    >>> round(float(est.pooled(np.array([True, True]), np.array([10, 30])).mean()), 2)  # items of both arms
    0.35
    """

    mean: np.ndarray
    draws: np.ndarray
    method: str = ""
    items: np.ndarray | None = None

    @property
    def variance(self) -> np.ndarray:
        return np.nanvar(self.draws, axis=0)

    def interval(self, level: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed posterior interval of each arm's accuracy."""
        if not 0 < level < 1:
            raise ValueError(f"level must lie in (0, 1), got {level!r}")
        tail = (1 - level) / 2
        lo, hi = np.nanquantile(self.draws, [tail, 1 - tail], axis=0)
        return lo, hi

    def pooled(self, mask: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """(S,) draws of the accuracy over the items of the arms in ``mask`` (arm sizes
        ``sizes``, or each draw's own where membership is uncertain)."""
        n = self.items[:, mask] if self.items is not None else np.broadcast_to(sizes[mask], (self.draws.shape[0], mask.sum()))
        right = np.nan_to_num(self.draws[:, mask]) * n
        return right.sum(axis=1) / np.maximum(n.sum(axis=1), 1e-12)
