"""Numbers printed to the digits their intervals support.

A posterior median printed to four significant figures claims more than the posterior
(and its Monte Carlo noise) knows: the interval's width says how many digits mean
something. Two significant digits of the width are kept; the value and both ends are
rounded alike.
"""

from __future__ import annotations

import math

#: Significant digits of the interval's width that printed numbers keep.
INTERVAL_DIGITS = 2

#: Decimals printed when an interval has zero width (every draw agrees).
MAX_DECIMALS = 6


def interval_decimals(lower: float, upper: float, digits: int = INTERVAL_DIGITS) -> int:
    """Decimals that show ``digits`` significant digits of the interval's width.

    More digits than that are Monte Carlo noise and the posterior's spread, not
    information. A zero-width (or non-finite) interval gets :data:`MAX_DECIMALS`.

    Parameters
    ----------
    lower, upper : float
        The interval's ends.
    digits : int, default=2
        Significant digits of the width to keep.

    Returns
    -------
    int
        Decimals, at least 0.

    Examples
    --------
    >>> from spe.report import interval_decimals
    >>> interval_decimals(0.81, 0.93)
    2
    >>> interval_decimals(0.9312, 0.9368)
    4
    >>> interval_decimals(120.0, 480.0)
    0
    """
    width = float(f"{abs(float(upper) - float(lower)):.12g}")  # 0.9302 - 0.9301 is 1e-4, not 9.99e-5
    if not math.isfinite(width) or width == 0:
        return MAX_DECIMALS
    return max(0, min(MAX_DECIMALS, digits - 1 - math.floor(math.log10(width))))


def format_interval(value: float, lower: float, upper: float, digits: int = INTERVAL_DIGITS) -> str:
    """``"value [lower, upper]"`` rounded to the digits the interval supports.

    Parameters
    ----------
    value, lower, upper : float
        The estimate and its interval.
    digits : int, default=2
        Significant digits of the interval's width to keep (see :func:`interval_decimals`).

    Returns
    -------
    str

    Examples
    --------
    >>> from spe.report import format_interval
    >>> format_interval(0.87345, 0.8123, 0.9311)
    '0.87 [0.81, 0.93]'
    """
    decimals = interval_decimals(lower, upper, digits)
    return f"{value:.{decimals}f} [{lower:.{decimals}f}, {upper:.{decimals}f}]"
