"""Scores and labels in: validation, the score scale, compression into groups, counts of
data larger than memory (Parquet and Dask readers), the scores' direction, tables.

Everything downstream receives a :class:`ScoreData` and trusts it.
"""

from .counts import ScoreCounts, count_scores
from .data import DEFAULT_MAX_GROUPS, CountLayout, ScoreData, pooled, prepare, prepare_counts
from .frame import PROBABILITY_EPS, ScoreFrame, looks_like_probabilities
from .orientation import check_orientation
from .columns import eager_values, is_lazy, refuse_lazy
from .sources import count_dask, count_lazy, read_parquet
from .validation import MISSING_TOKENS, as_labels, as_score_array, as_scores, parse_label

__all__ = [
    "ScoreData", "CountLayout", "prepare", "prepare_counts", "pooled", "DEFAULT_MAX_GROUPS",
    "as_scores", "as_score_array", "as_labels", "parse_label", "MISSING_TOKENS",
    "ScoreFrame", "looks_like_probabilities", "PROBABILITY_EPS", "check_orientation",
    "ScoreCounts", "count_scores", "count_dask", "count_lazy", "read_parquet", "eager_values", "is_lazy",
    "refuse_lazy",
]
