"""Paired comparisons of several models from one set of shared label draws.

Every model's metric is computed on the same labellings, so P(model A beats model B) is
the share of draws in which it does, and P(best) the share in which a model is highest
(ties shared). A results class supplies ``names``, ``excluded``, ``n_labeled``,
``METRICS`` and ``metric_draws(name, kind) -> {metric: (draws,) values}`` (``kind``:
``"sample"``, these items, or ``"population"``, the population they come from:
``_population``); this base does the rest
(:class:`spe.several.ManyResult` for binary scores,
:class:`spe.several.ManyMulticlassResult` for class probabilities).
"""

from __future__ import annotations

import numpy as np

from ..metrics import Estimate
from ..report import plot_comparison


def equal_weight_estimate(name, draws, level) -> Estimate:
    """An estimate from the shared labellings, each of which counts once."""
    return Estimate.from_draws(name, draws, np.full(draws.size, 1.0 / draws.size), level)


class SharedDrawsComparison:
    """Metrics with intervals, P(beats), P(best), ranking, a table and a plot from shared draws.

    Also a read-only mapping of the models: ``res[name]`` is one model's full result (on the
    shared draws), ``len(res)`` the number of models, ``for name in res`` their names in the
    order given, ``name in res`` and ``res.items()``.
    """

    METRICS: tuple = ()

    # ---- one model's result -----------------------------------------------------------
    def _result(self, name):
        raise NotImplementedError

    def __getitem__(self, name):
        if name not in self.names:
            raise KeyError(f"no model {name!r}; models: {', '.join(map(repr, self.names))}")
        return self._result(name)

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self):
        return iter(self.names)

    def __contains__(self, name) -> bool:
        return name in self.names

    def items(self):
        """(name, that model's result) pairs, in the order the models were given."""
        return [(name, self[name]) for name in self.names]

    # ---- tables -------------------------------------------------------------------------
    def to_records(self, level=0.9, kind="sample") -> list[dict]:
        """One dict per model and metric: model, metric, median, lower, upper, level, kind,
        P(best) (ties shared) and why the model is excluded from the label model ('' if not)."""
        best = {metric: self.prob_best(metric, kind) for metric in self.METRICS}
        return [{"model": row["model"], "metric": metric, "median": row[metric].value,
                 "lower": row[metric].lower, "upper": row[metric].upper, "level": row[metric].level, "kind": kind,
                 "P(best)": float(best[metric][row["model"]]), "excluded": row["excluded"]}
                for row in self.metrics(level, kind) for metric in self.METRICS]

    def to_frame(self, level=0.9, kind="sample"):
        """:meth:`to_records` as a pandas DataFrame (pandas is optional: without it an
        ImportError says so; ``to_records()`` gives the same rows as dicts)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_frame() needs pandas (pip install pandas); res.to_records() gives the same rows "
                              "as a list of dicts") from None
        return pd.DataFrame.from_records(self.to_records(level, kind))

    def metrics(self, level=0.9, kind="sample") -> list[dict]:
        """One row per model: each metric's posterior median and interval, on these items
        (``kind="sample"``) or on the population they come from (``"population"``)."""
        rows = []
        for name in self.names:
            draws = self.metric_draws(name, kind)
            rows.append({"model": name, "excluded": self.excluded.get(name, "")} |
                        {k: equal_weight_estimate(k, v, level) for k, v in draws.items()})
        return rows

    def _check_metric(self, metric):
        if metric not in self.METRICS:
            raise ValueError(f"metric must be one of {self.METRICS}, got {metric!r}")

    def _stacked(self, metric, kind) -> np.ndarray:
        self._check_metric(metric)
        return np.stack([self.metric_draws(n, kind)[metric] for n in self.names])

    def prob_beats(self, metric=None, kind="sample") -> np.ndarray:
        """(J, J) P(row model's metric > column model's) over the shared draws (ties count half)."""
        v = self._stacked(metric or self.METRICS[0], kind)
        return np.mean((v[:, None, :] > v[None, :, :]) + 0.5 * (v[:, None, :] == v[None, :, :]), axis=2)

    def prob_best(self, metric=None, kind="sample") -> dict:
        """P(each model has the highest metric), ties shared."""
        v = self._stacked(metric or self.METRICS[0], kind)
        best = v == v.max(axis=0)
        return dict(zip(self.names, (best / best.sum(axis=0)).mean(axis=1)))

    def ranking(self, metric=None, level=0.9, kind="sample") -> list[dict]:
        """Models by posterior median of ``metric``, with P(best)."""
        metric = metric or self.METRICS[0]
        best = self.prob_best(metric, kind)
        rows = [{"model": r["model"], metric: r[metric], "P(best)": best[r["model"]], "excluded": r["excluded"]}
                for r in self.metrics(level, kind)]
        return sorted(rows, key=lambda r: -r[metric].value)

    def _ranking_lines(self, metric, level, column=None) -> list[str]:
        """The summary's ranking rows: model, median [interval], P(best), ``column(name)``
        when given (e.g. the weight in the label model), and why a model is excluded."""
        rows = self.ranking(metric, level)
        width = max(24, *(len(r["model"]) for r in rows))
        lines = []
        for r in rows:
            e = r[metric]
            extra = f"  {column(r['model'])}" if column else ""
            note = f"  excluded from the label model: {r['excluded']}" if r["excluded"] else ""
            lines.append(f"    {r['model']:{width}s} {e.value:.3f} [{e.lower:.3f}, {e.upper:.3f}]  "
                         f"{r['P(best)']:.2f}{extra}{note}")
        return lines

    def plot_comparison(self, ax=None, *, metric=None, level=0.9, truth=None):
        """Each model's metric with its interval and P(best); see :func:`spe.report.plot_comparison`."""
        metric = metric or self.METRICS[0]
        self._check_metric(metric)
        return plot_comparison(self, ax, metric=metric, level=level, truth=truth)
