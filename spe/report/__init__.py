"""What a fit shows: the result object of :func:`spe.fit` (:class:`SPEResult`), its text
summary, tidy tables, figures, the one-file HTML report and the ArviZ export."""

from .._util.digits import format_interval, interval_decimals
from ._export import export_draws
from ._frames import FRAME_COLUMNS
from ._html import save_figure, write_outputs
from ._results import SPEResult
from ._summary import Summary

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._frames import estimate_record, records_frame, require_pandas
from ._plot import plot_comparison, plot_per_class

__all__ = ["SPEResult", "Summary", "write_outputs", "save_figure", "export_draws", "FRAME_COLUMNS",
           "interval_decimals", "format_interval"]
