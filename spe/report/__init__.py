"""What a fit shows: the result object of :func:`spe.fit` (:class:`SPEResult`), its text
summary, figures, the one-file HTML report and the ArviZ export."""

from ._export import export_draws
from ._html import save_figure, write_outputs
from ._results import SPEResult
from ._summary import Summary

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._plot import plot_comparison, plot_per_class

__all__ = ["SPEResult", "Summary", "write_outputs", "save_figure", "export_draws"]
