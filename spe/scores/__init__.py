"""Scores and labels in: validation, the score scale, compression into groups, counts of
data larger than memory (Parquet and Dask readers), the scores' direction, tables.

Everything downstream receives a :class:`ScoreData` and trusts it.
"""

from ._counts import ScoreCounts, count_scores
from ._data import DEFAULT_MAX_GROUPS, build_score_data, CountLayout, ScoreData, pooled, prepare, prepare_counts
from ._frame import PROBABILITY_EPS, ScoreFrame, looks_like_probabilities
from ._orientation import check_orientation
from ._columns import eager_values, is_lazy, refuse_lazy
from ._sources import count_dask, count_lazy, read_parquet
from ._validation import MISSING_TOKENS, as_labels, as_score_array, as_scores, parse_label

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._columns import frame_models
from ._frame import PROBABILITY_TOLERANCE
from ._index import ItemIndex, align_on_index
from ._orientation import ORIENTATION_PROBABILITY, reversed_probability
from ._tables import load_scores, parse_labels, parse_scores, read_table

__all__ = [
    "ScoreData", "CountLayout", "prepare", "prepare_counts", "pooled", "DEFAULT_MAX_GROUPS",
    "as_scores", "as_score_array", "as_labels", "parse_label", "MISSING_TOKENS",
    "ScoreFrame", "looks_like_probabilities", "PROBABILITY_EPS", "check_orientation",
    "ScoreCounts", "count_scores", "count_dask", "count_lazy", "read_parquet", "eager_values", "is_lazy",
    "refuse_lazy",
]
