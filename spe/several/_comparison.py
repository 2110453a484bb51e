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
from ..report import plot_comparison, records_frame, require_pandas


def equal_weight_estimate(name, draws, level) -> Estimate:
    """An estimate from the shared labellings, each of which counts once."""
    return Estimate.from_draws(name, draws, np.full(draws.size, 1.0 / draws.size), level)


class SharedDrawsComparison:
    """Metrics with intervals, P(beats), P(best), ranking, a table and a plot from shared draws.

    Also a read-only mapping of the models: ``res[name]`` is one model's full result (on the
    shared draws), ``len(res)`` the number of models, ``for name in res`` their names in the
    order given, ``name in res`` and ``res.items()``.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(300) < 0.3
    >>> scores = {"a": np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 300), 0, 1),
    ...           "b": np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 0, 1)}
    >>> labels = np.where(np.arange(300) < 30, y, np.nan)
    >>> res = spe.fit_many(scores, labels, n_draws=200, seed=0)
    >>> len(res), "a" in res, [name for name, _ in res.items()]
    (2, True, ['a', 'b'])
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
        """:meth:`to_frame`'s rows as a list of dicts (no pandas needed).

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> rng = np.random.default_rng(0)
        >>> y = rng.random(300) < 0.3
        >>> scores = {"a": np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 300), 0, 1),
        ...           "b": np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 0, 1)}
        >>> labels = np.where(np.arange(300) < 30, y, np.nan)
        >>> rows = spe.fit_many(scores, labels, n_draws=200, seed=0).to_records()
        >>> [(r["model"], r["metric"]) for r in rows[:2]]
        [('a', 'AUROC'), ('a', 'average precision')]
        """
        best = {metric: self.prob_best(metric, kind) for metric in self.METRICS}
        return [{"model": row["model"], "metric": metric, "kind": kind, "estimate": row[metric].value,
                 "lower": row[metric].lower, "upper": row[metric].upper, "level": row[metric].level,
                 "P(best)": float(best[metric][row["model"]]), "excluded": row["excluded"]}
                for row in self.metrics(level, kind) for metric in self.METRICS]

    def to_frame(self, level=0.9, kind="sample"):
        """Every model's metrics as a tidy pandas DataFrame, one row per model and metric.

        Parameters
        ----------
        level : float, default=0.9
            Level of the equal-tailed credible intervals.
        kind : {"sample", "population"}, default="sample"
            The metric of these items, or of the population they come from (binary scores only).

        Returns
        -------
        pandas.DataFrame
            Columns ``model``, ``metric``, ``kind``, ``estimate`` (posterior median),
            ``lower``, ``upper`` (interval ends), ``level``, ``P(best)`` (the share of
            shared draws in which the model is best by that metric, ties shared) and
            ``excluded`` (why the model is kept out of the label model, '' if it is not).

        Raises
        ------
        ImportError
            pandas is not installed (:meth:`to_records` gives the same rows as dicts).

        See Also
        --------
        prob_beats : paired comparisons of every two models.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> rng = np.random.default_rng(0)
        >>> y = rng.random(300) < 0.3
        >>> scores = {"a": np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 300), 0, 1),
        ...           "b": np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 0, 1)}
        >>> labels = np.where(np.arange(300) < 30, y, np.nan)
        >>> frame = spe.fit_many(scores, labels, n_draws=200, seed=0).to_frame()
        >>> frame.columns.tolist()
        ['model', 'metric', 'kind', 'estimate', 'lower', 'upper', 'level', 'P(best)', 'excluded']
        >>> frame.shape
        (8, 9)
        """
        return records_frame(self.to_records(level, kind))

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

    def prob_beats(self, metric=None, kind="sample", *, as_frame=None):
        """P(row model's metric > column model's) over the shared draws (ties count half).

        Parameters
        ----------
        metric : str, optional
            One of ``METRICS`` (default: the first).
        kind : {"sample", "population"}, default="sample"
        as_frame : bool or None, default=None
            True: a pandas DataFrame with the model names as index and columns; False: a
            (J, J) array in the order of ``names``. None: a DataFrame when the scores came
            as pandas objects, else the array.

        Returns
        -------
        pandas.DataFrame or numpy.ndarray of shape (J, J)

        Raises
        ------
        ValueError
            An unknown metric.
        ImportError
            ``as_frame=True`` without pandas.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> rng = np.random.default_rng(0)
        >>> y = rng.random(300) < 0.3
        >>> scores = {"a": np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 300), 0, 1),
        ...           "b": np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 0, 1)}
        >>> labels = np.where(np.arange(300) < 30, y, np.nan)
        >>> res = spe.fit_many(scores, labels, n_draws=200, seed=0)
        >>> res.prob_beats("AUROC").shape
        (2, 2)
        >>> beats = res.prob_beats("AUROC", as_frame=True)
        >>> beats.index.tolist(), bool(beats.loc["a", "b"] > 0.5)
        (['a', 'b'], True)
        """
        v = self._stacked(metric or self.METRICS[0], kind)
        p = np.mean((v[:, None, :] > v[None, :, :]) + 0.5 * (v[:, None, :] == v[None, :, :]), axis=2)
        index = getattr(self, "item_index", None)
        if as_frame or (as_frame is None and index is not None and index.is_pandas):
            return require_pandas("prob_beats(as_frame=True)").DataFrame(p, index=list(self.names),
                                                                          columns=list(self.names))
        return p

    def prob_best(self, metric=None, kind="sample", *, tolerance=0.0) -> dict:
        """P(each model has the highest metric), ties shared; with ``tolerance > 0``, P(its
        metric is within ``tolerance`` of the highest), which several models can share (the
        values then need not sum to 1).

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> rng = np.random.default_rng(0)
        >>> y = rng.random(300) < 0.3
        >>> scores = {"a": np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 300), 0, 1),
        ...           "b": np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 0, 1)}
        >>> res = spe.fit_many(scores, np.where(np.arange(300) < 30, y, np.nan), n_draws=200, seed=0)
        >>> best = res.prob_best("AUROC")
        >>> round(sum(best.values()), 6), best["a"] > 0.5
        (1.0, True)
        >>> near = res.prob_best("AUROC", tolerance=0.05)
        >>> bool(all(near[m] >= best[m] for m in best))
        True
        """
        v = self._stacked(metric or self.METRICS[0], kind)
        if tolerance < 0:
            raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
        if tolerance > 0:
            return dict(zip(self.names, (v >= v.max(axis=0) - tolerance).mean(axis=1)))
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
