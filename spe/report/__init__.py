"""What a fit shows: the result object of :func:`spe.fit` (:class:`SPEResult`), its text
summary, figures, the one-file HTML report and the ArviZ export."""

from .export import export_draws
from .html import save_figure, write_outputs
from .results import SPEResult
from .summary import Summary

__all__ = ["SPEResult", "Summary", "write_outputs", "save_figure", "export_draws"]
