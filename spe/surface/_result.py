"""AccuracySurface: a classifier's accuracy on every attribute combination, with intervals."""

from __future__ import annotations

import numpy as np

from ..metrics import Estimate
from ..report import require_pandas
from ._estimate import MIN_ITEMS
from ._model import SurfaceFit
from ._realised import unlabeled_variance_parts
from ._suggest import choose_arms, items_for_arms


class AccuracySurface:
    """The posterior of a classifier's accuracy on each attribute combination (arm).

    Made by :func:`spe.accuracy_surface`. Each arm's accuracy is that of *its items*
    (labeled ones as labeled, the others drawn from the model), so with every item
    labeled the surface is exact.

    Attributes
    ----------
    fit : SurfaceFit
        The pooled model: members, their weights, draws.
    uncertain : dict name -> UncertainAttribute
        Attributes given as probabilities, with their fitted ``temperature``.
    names : tuple of str
        The attributes.
    n_arms : int

    See Also
    --------
    spe.accuracy_surface : makes one.

    Examples
    --------
    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(0)
    >>> sex, age = rng.choice(["F", "M"], 400), rng.choice(["<40", "40+"], 400)
    >>> correct = np.where(rng.random(400) < 0.4, (rng.random(400) < np.where(age == "40+", 0.6, 0.9)) * 1.0, np.nan)
    >>> surf = spe.accuracy_surface({"sex": sex, "age": age}, correct, seed=0)
    >>> surf
    AccuracySurface(4 arms over ['sex', 'age']; 400 items, ... labeled; members ...)
    >>> table = surf.table("sex", "age")
    >>> table["cols"].tolist(), table["mean"].shape
    (['40+', '<40'], (2, 2))
    """

    def __init__(self, fit: SurfaceFit, rows=None, labeled=None, uncertain=None, seed=None, items=None,
                 orders=None):
        self.fit = fit
        self._items = items  # the caller's item index (ItemIndex) or None
        self._orders = dict(orders or {})  # attributes whose levels have an order (ordered categories, bins)
        self.counts = fit.counts
        self.names = tuple(fit.counts.names)
        self._rows = rows  # (arm, item, share) of each item's share of an arm
        self._labeled = labeled
        self.uncertain = dict(uncertain or {})
        self._seed = seed

    # ---- accessors --------------------------------------------------------------------
    @property
    def n_arms(self) -> int:
        return self.counts.n_arms

    @property
    def draws(self) -> np.ndarray:
        """(S, M) posterior draws of each arm's accuracy."""
        return self.fit.accuracy.draws

    @property
    def weights(self) -> dict:
        """Posterior probability of each member model (see the user guide)."""
        return dict(self.fit.weights)

    def arm_values(self) -> dict:
        """Attribute values of every arm, ``name -> (M,) array``, in the order of :meth:`to_dict`."""
        return self.counts.values()

    def _select(self, values: dict) -> np.ndarray:
        mask = np.ones(self.n_arms, dtype=bool)
        arm_values = self.arm_values()
        for name, value in values.items():
            if name not in self.names:
                raise ValueError(f"unknown attribute {name!r}; the attributes are {list(self.names)}")
            wanted = np.atleast_1d(np.asarray(value, dtype=object)).tolist()
            present = set(arm_values[name].tolist())
            missing = [w for w in wanted if w not in present]
            if missing:
                raise ValueError(f"attribute {name!r} has no value {missing[0]!r} among the items; its values "
                                 f"are {sorted(present, key=str)}")
            mask &= np.isin(arm_values[name], np.asarray(wanted, dtype=arm_values[name].dtype))
        return mask

    def _levels(self, name: str) -> np.ndarray:
        """The attribute's levels present among the arms, in the attribute's order."""
        lv = self.counts.levels[self.names.index(name)]
        used = np.unique(self.counts.codes[:, self.names.index(name)])
        return lv[used]

    # ---- estimates --------------------------------------------------------------------
    def to_dict(self, level: float = 0.9, min_items: float = 1) -> dict:
        """One entry per arm with at least ``min_items`` items: the attribute values,
        ``n_items``, ``n_labeled``, ``n_correct`` (labeled and right), ``accuracy``
        (posterior mean), ``lower``/``upper`` (equal-tailed ``level`` interval) and ``sd``.

        Examples
        --------
        >>> import numpy as np, spe
        >>> rng = np.random.default_rng(0)
        >>> g = rng.choice(["a", "b"], 200)
        >>> surf = spe.accuracy_surface({"g": g}, np.where(rng.random(200) < 0.5, 1.0, np.nan), seed=0)
        >>> sorted(surf.to_dict())
        ['accuracy', 'g', 'lower', 'n_correct', 'n_items', 'n_labeled', 'sd', 'upper']
        """
        lower, upper = self.fit.accuracy.interval(level)
        keep = self.counts.arm_items >= min_items
        out = {name: v[keep] for name, v in self.arm_values().items()}
        out.update(n_items=self.counts.arm_items[keep], n_labeled=self.counts.arm_labeled[keep],
                   n_correct=self.counts.arm_correct[keep], accuracy=self.fit.accuracy.mean[keep],
                   lower=lower[keep], upper=upper[keep], sd=np.sqrt(self.fit.accuracy.variance[keep]))
        return out

    def to_frame(self, level: float = 0.9, min_items: float = 1):
        """One row per arm, tidy: the arm's attribute values, then its accuracy's estimate.

        Parameters
        ----------
        level : float
            Credible level of ``lower``/``upper``.
        min_items : float
            Leave out arms with fewer items.

        Returns
        -------
        pandas.DataFrame
            Columns: one per attribute (ordered attributes, such as an ordered Categorical
            or a binned continuous attribute, as an ordered Categorical, so sorting keeps
            their order), ``metric`` (``"accuracy"``), ``estimate`` (posterior mean),
            ``lower``, ``upper`` (equal-tailed ``level`` interval), ``level``, ``sd``,
            ``n_items``, ``n_labeled``, ``n_correct`` (labeled and right; a sum of scores
            for graded correctness).

        Raises
        ------
        ImportError
            Without pandas (:meth:`to_dict` gives the same numbers).

        Examples
        --------
        >>> import numpy as np, spe
        >>> rng = np.random.default_rng(0)
        >>> group = rng.choice(["a", "b"], 200)
        >>> correct = np.where(rng.random(200) < 0.5, (rng.random(200) < 0.8) * 1.0, np.nan)
        >>> frame = spe.accuracy_surface({"group": group}, correct, seed=0).to_frame()
        >>> list(frame.columns)
        ['group', 'metric', 'estimate', 'lower', 'upper', 'level', 'sd', 'n_items', 'n_labeled', 'n_correct']
        >>> frame["n_items"].tolist()
        [89.0, 111.0]
        """
        pd = require_pandas("to_frame", "to_dict gives the same numbers")
        d = self.to_dict(level, min_items)
        out = {}
        for j, name in enumerate(self.names):
            values = d[name]
            if name in self._orders:
                values = pd.Categorical(values, categories=self.counts.levels[j], ordered=True)
            out[name] = values
        out.update(metric="accuracy", estimate=d["accuracy"], lower=d["lower"], upper=d["upper"], level=level,
                   sd=d["sd"], n_items=d["n_items"], n_labeled=d["n_labeled"], n_correct=d["n_correct"])
        return pd.DataFrame(out)

    def marginal(self, where: dict | None = None, /, level: float = 0.9, **values) -> Estimate:
        """Accuracy over the items of a partial combination, e.g. ``marginal(sex="Female")``.

        A value may be a list (``race=["Asian", "Other"]``). The interval comes from the
        joint draws of the arms involved, so it is not a sum of per-arm intervals. An
        attribute whose name is not a Python keyword argument, or is ``level``, is given
        in a dict: ``marginal({"level": "high", "age group": "<25"})``.

        Examples
        --------
        >>> import numpy as np, spe
        >>> rng = np.random.default_rng(1)
        >>> g, h = rng.choice(["a", "b"], 300), rng.choice(["x", "y"], 300)
        >>> correct = np.where(rng.random(300) < 0.5, (rng.random(300) < np.where(g == "a", 0.9, 0.5)) * 1.0, np.nan)
        >>> surf = spe.accuracy_surface({"g": g, "h": h}, correct, seed=0)
        >>> est = surf.marginal(g="b")
        >>> bool(est.lower < 0.5 < est.upper)
        True
        """
        if where is not None and not isinstance(where, dict):
            raise TypeError(f"marginal's first argument is a dict of attribute -> value(s), got {type(where).__name__}")
        both = set(where or ()) & set(values)
        if both:
            raise ValueError(f"attribute(s) {sorted(both)} given twice, in the dict and as keywords")
        values = {**(where or {}), **values}
        draws = self.fit.accuracy.pooled(self._select(values), self.counts.arm_items)
        label = ", ".join(f"{k}={v}" for k, v in values.items()) or "all items"
        return Estimate.from_draws(f"accuracy ({label})", draws, np.full(draws.size, 1 / draws.size), level)

    def table(self, rows: str, cols: str | None = None, level: float = 0.9) -> dict:
        """Marginal accuracy over one or two attributes: ``{"rows", "cols", "mean", "lower",
        "upper", "n_items"}`` with (R, C) arrays (NaN where no item has the combination).

        Levels are sorted, or in their order for ordered attributes (an ordered pandas
        Categorical, a binned continuous attribute).

        Examples
        --------
        >>> import numpy as np, spe
        >>> rng = np.random.default_rng(0)
        >>> g = rng.choice(["a", "b", "c"], 300)
        >>> surf = spe.accuracy_surface({"g": g}, np.where(rng.random(300) < 0.5, 1.0, np.nan), seed=0)
        >>> t = surf.table("g")
        >>> t["rows"].tolist(), t["mean"].shape
        (['a', 'b', 'c'], (3, 1))
        """
        if not 0 < level < 1:
            raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
        values = self.arm_values()
        for name in (rows, cols):
            if name is not None and name not in self.names:
                raise ValueError(f"unknown attribute {name!r}; the attributes are {list(self.names)}")
        r_levels = self._levels(rows)
        c_levels = self._levels(cols) if cols else np.array(["all"])
        shape = (r_levels.size, c_levels.size)
        mean, lower, upper, n_items = (np.full(shape, np.nan) for _ in range(4))
        tail = (1 - level) / 2
        for i, r in enumerate(r_levels):
            for j, c in enumerate(c_levels):
                mask = (values[rows] == r) & ((values[cols] == c) if cols else True)
                if not mask.any():
                    continue
                d = self.fit.accuracy.pooled(mask, self.counts.arm_items)
                mean[i, j], n_items[i, j] = d.mean(), self.counts.arm_items[mask].sum()
                lower[i, j], upper[i, j] = np.quantile(d, [tail, 1 - tail])
        return {"rows": r_levels, "cols": c_levels, "mean": mean, "lower": lower, "upper": upper,
                "n_items": n_items, "row_name": rows, "col_name": cols}

    # ---- what next --------------------------------------------------------------------
    def suggest_labels(self, k: int = 10, min_items: float = MIN_ITEMS, seed=None) -> np.ndarray:
        """Indices of ``k`` unlabeled items whose labels shrink the surface's uncertainty most.

        Each pick goes to the arm (of at least ``min_items`` items) where one more label
        removes the most posterior variance of its accuracy;
        the item is drawn at random within the arm. Label them and refit.

        Returns
        -------
        numpy.ndarray of int, or list
            Item positions (0-based); the caller's index labels when the attributes came
            as a pandas DataFrame.

        Examples
        --------
        >>> import numpy as np, pandas as pd, spe
        >>> rng = np.random.default_rng(0)
        >>> frame = pd.DataFrame({"group": rng.choice(["a", "b"], 100)}, index=[f"item{i}" for i in range(100)])
        >>> correct = pd.Series(np.where(np.arange(100) < 30, 1.0, np.nan), index=frame.index)
        >>> picks = spe.accuracy_surface(frame, correct, seed=0).suggest_labels(2)
        >>> [p.startswith("item") for p in picks]
        [True, True]
        """
        if self._rows is None:
            raise ValueError("this surface was made from counts: it knows no items to suggest")
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        c = self.counts
        per_item, n_unlabeled = unlabeled_variance_parts(c, self.fit.arm_constant, self.fit.slope)
        item_var = per_item / np.maximum(n_unlabeled, 1e-12)
        jacobian = per_item / np.maximum(c.arm_items, 1e-12)
        latent_var = self.fit.arm_constant.var(axis=0)
        eligible = c.arm_items >= min_items
        picks = choose_arms(k, jacobian, latent_var, item_var, c.arm_items, n_unlabeled, eligible)
        rng = np.random.default_rng(self._seed if seed is None else seed)
        positions = items_for_arms(picks, *self._rows, ~self._labeled, rng)
        return positions if self._items is None else self._items.labels(positions)

    # ---- reports ----------------------------------------------------------------------
    def summary(self, level: float = 0.9, n_worst: int = 5) -> str:
        """What was fitted, how the members were weighed, and the least accurate arms.

        Examples
        --------
        >>> import numpy as np, spe
        >>> rng = np.random.default_rng(0)
        >>> g = rng.choice(["a", "b"], 200)
        >>> surf = spe.accuracy_surface({"g": g}, np.where(rng.random(200) < 0.5, 1.0, np.nan), seed=0)
        >>> print(surf.summary())  # doctest: +ELLIPSIS
        Accuracy surface...
        """
        from ._summary import surface_summary

        return surface_summary(self, level, n_worst)

    def plot(self, rows: str, cols: str | None = None, ax=None, level: float = 0.9, truth=None):
        """Heatmap of the accuracy over two attributes (the others pooled), each cell with
        its posterior mean and ``level`` interval; ``truth`` (a :meth:`table`-like dict of
        true means) adds the true value beside the estimate.

        Examples
        --------
        >>> import numpy as np, spe
        >>> rng = np.random.default_rng(0)
        >>> g, h = rng.choice(["a", "b"], 200), rng.choice(["x", "y"], 200)
        >>> surf = spe.accuracy_surface({"g": g, "h": h}, np.where(rng.random(200) < 0.5, 1.0, np.nan), seed=0)
        >>> ax = surf.plot("g", "h")
        """
        from ._summary import plot_surface

        return plot_surface(self, rows, cols, ax=ax, level=level, truth=truth)

    def __repr__(self) -> str:
        c = self.counts
        return (f"AccuracySurface({c.n_arms} arms over {list(self.names)}; {c.n_items.sum():.0f} items, "
                f"{c.n_labeled.sum():.0f} labeled; members {', '.join(f'{k} {v:.2f}' for k, v in self.weights.items())})")
