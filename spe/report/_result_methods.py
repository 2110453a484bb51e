"""Builders for :class:`~spe.report.SPEResult`'s families of near-identical accessors.

The result exposes many accessors that differ only in a name and a function: the fitted
mixture's attributes, the scalar metrics, the plots. Each family is built here once.
"""

from __future__ import annotations

from . import _plot as plot


def mixture_attribute(path, doc):
    """A read-only attribute of the fitted mixture (AttributeError when none was fitted)."""

    def get(self):
        obj = self.mixture
        if obj is None:
            raise AttributeError("no score mixture was fitted (model='platt'?)")
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    return property(get, doc=doc)


def plot_method(name, doc):
    """A plotting method that hands the result to ``_plot``.

    ``_plot`` never imports the results module (it reads a result through its public
    accessors, and imports matplotlib only when it draws), so this is no cycle.
    """

    def method(self, ax=None, **kwargs):
        return getattr(plot, name)(self, ax, **kwargs)

    method.__name__ = name
    method.__doc__ = f"{doc} See :func:`spe.plot.{name}`."
    return method


def metric_method(name, per_sweep, doc):
    """A scalar metric method: weighted median and equal-tailed interval over the draws."""

    def method(self, level=0.9, kind="sample") :
        return self._estimate(name, per_sweep, level, kind)

    method.__doc__ = doc + " ``kind``: 'sample' (these items) or 'population'."
    return method
