"""Results as tidy tables: one row per metric (or per metric and class).

pandas is optional: the rows are built as dicts (``to_records``) and only
:func:`records_frame` imports pandas, with a clear message when it is absent.
"""

from __future__ import annotations

#: Columns of every result's ``to_frame()``, in order (a result may add ``class`` or
#: ``kind`` between ``metric`` and ``estimate``).
FRAME_COLUMNS = ("metric", "estimate", "lower", "upper", "level")


def estimate_record(estimate, level=None, **lead) -> dict:
    """One tidy row: the ``lead`` columns (metric, class, ...), then estimate, lower, upper
    and level of an :class:`~spe.metrics.Estimate` (None: a metric with no draws, NaN).

    Examples
    --------
    >>> from spe.metrics import Estimate
    >>> from spe.report._frames import estimate_record
    >>> est = Estimate.from_draws("AP", [0.5, 0.6, 0.7], [1/3, 1/3, 1/3], 0.9)
    >>> estimate_record(est, metric="average precision")["estimate"]
    0.6
    """
    if estimate is None:
        nan = float("nan")
        return lead | {"estimate": nan, "lower": nan, "upper": nan, "level": level}
    return lead | {"estimate": estimate.value, "lower": estimate.lower, "upper": estimate.upper,
                   "level": estimate.level}


def require_pandas(what: str = "to_frame()", instead: str = "to_records() gives the same rows as a list of dicts"):
    """The pandas module, or an ImportError naming the pandas-free alternative ``instead``."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(f"{what} needs pandas (pip install pandas); {instead}") from None
    return pd


def records_frame(records: list, what: str = "to_frame()"):
    """A pandas DataFrame of ``records`` (a list of dicts), columns in their order."""
    return require_pandas(what).DataFrame.from_records(records)
