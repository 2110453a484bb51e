"""A labeling session: which items to label next, what the answers say, every estimand of
Ji et al. on its posterior, and a state file that never loses an answer.

The class is assembled from one mixin per concept: persistence (``_state``), the class
index, confusion matrix and costs (``_confusion``), identification and comparison
(``_identify``); this module holds the loop, accuracy and calibration.
"""

from __future__ import annotations

import numpy as np

from ..report import require_pandas
from . import _strategies as strategies
from ._calibration import (DEFAULT_BINS, KINDS, CalibrationError, binned_accuracy, check_bins, check_confidence,
                           pooled_prior)
from ._confusion import ConfusionMixin
from ._groups import class_order
from ._identify import IdentifyMixin
from ._metrics import BetaGroups, DirichletColumns
from ._priors import uninformative_prior
from ._state import STATE_VERSION, StateMixin, items_checksum, read_state  # noqa: F401 (old import paths)


class Assessor(StateMixin, ConfusionMixin, IdentifyMixin):
    """Active Bayesian assessment (Ji et al.): every estimand on the answers so far.

    Estimands, each a posterior with intervals: :meth:`accuracy` per group,
    :meth:`confusion` and :meth:`expected_cost` per predicted class,
    :meth:`calibration_error` (overall and per group, :meth:`plot_reliability`),
    :meth:`least_accurate` / :meth:`costliest` / :meth:`least_calibrated` (which m groups
    are the extreme ones, scored by :func:`mrr`) and :meth:`compare` (two groups, with a
    region of practical equivalence); :meth:`to_frame` tabulates the accuracies.

    Parameters
    ----------
    groups : (N,) integer group code per item (see :func:`encode_groups`).
    predicted : (N,) the model's prediction per item; an answer counts as "correct" when it
        equals the prediction. ``None``: answers are already 1 = correct / 0 = wrong.
    prior : BetaGroups, optional; default uninformative Beta(1, 1) per group. A given prior also
        centres each group's calibration offset (:meth:`calibration_error`, ``ts-least-calibrated``).
    strategy : one of :data:`spe.assessment.STRATEGIES`.
    item_ids : optional ids (default 0..N-1), used in the state file's checksum.
    seed : int or None.
    prior_labels : items whose answers the priors already hold (an SPE-informed prior fitted
        on them): their answers are kept but not counted again.
    classes : optional, the classes in the order of the confusion and cost matrices' rows and
        columns (every prediction and answer must be one); default: every class predicted or
        answered so far, sorted (numerically when all are numbers). See :attr:`classes`.
    confusion_prior : DirichletColumns, optional
        Prior of the confusion matrix in :attr:`classes` order (:func:`score_confusion_prior`,
        :func:`multiclass_confusion_prior`); default Dirichlet(1/K, ..., 1/K) per column.
    strategy_options : passed to the strategy, e.g. ``compare=(g1, g2)`` for ``"ts-compare"``;
        ``cost`` (K x K, true x predicted, in :attr:`classes` order) for ``"ts-costliest"``
        (each group must hold one predicted class, answers class labels); ``confidence`` (per
        item) and ``n_bins`` (default 10) for ``"ts-least-calibrated"`` and :meth:`calibration_error`;
        ``epsilon`` for the epsilon-greedy strategies, ``rope`` for ``"ts-compare"``.

    Examples
    --------
    >>> a = Assessor([0, 0, 1, 1], predicted=["cat", "cat", "dog", "dog"], seed=0)
    >>> i = int(a.next_items(1)[0])
    >>> a.update(i, "cat")
    >>> len(a.labels), a.classes
    (1, ['cat', 'dog'])
    """

    def __init__(self, groups, predicted=None, prior=None, strategy="ts-estimate", item_ids=None,
                 seed=None, prior_labels=(), classes=None, confusion_prior=None, **strategy_options):
        self.groups = np.asarray(groups)
        if self.groups.ndim != 1 or self.groups.size == 0 or not np.issubdtype(self.groups.dtype, np.integer) \
                or self.groups.min() < 0:
            raise ValueError("groups must be a non-empty 1-D array of integer codes >= 0")
        n = self.groups.size
        self.n_groups = int(self.groups.max()) + 1
        self.predicted = None if predicted is None else np.asarray(predicted)
        if self.predicted is not None and self.predicted.shape != (n,):
            raise ValueError(f"predicted has shape {self.predicted.shape}, expected ({n},)")
        self.item_ids = np.arange(n) if item_ids is None else np.asarray(item_ids)
        if self.item_ids.shape != (n,):
            raise ValueError("item_ids must have one id per item")
        if classes is not None and self.predicted is None:
            raise ValueError("classes= needs predicted classes (answers are compared with the predictions)")
        self.declared_classes = None if classes is None else class_order(self.predicted.tolist(), classes)
        if confusion_prior is not None and not isinstance(confusion_prior, DirichletColumns):
            raise TypeError(f"confusion_prior must be a DirichletColumns, got {type(confusion_prior).__name__}")
        if confusion_prior is not None and self.predicted is None:
            raise ValueError("confusion_prior= needs predicted classes")
        self.confusion_prior = confusion_prior
        self.prior_is_default = prior is None
        self.prior = prior if prior is not None else uninformative_prior(self.n_groups)
        if self.prior.n_groups != self.n_groups:
            raise ValueError(f"prior has {self.prior.n_groups} groups, data has {self.n_groups}")
        if strategy not in strategies.STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose from {strategies.STRATEGIES}")
        unknown = sorted(set(strategy_options) - set(strategies.OPTIONS))
        if unknown:
            raise TypeError(f"unknown Assessor option(s) {unknown}; options are {strategies.OPTIONS}")
        self.strategy = strategy
        self.strategy_options = strategy_options
        self.rng = np.random.default_rng(seed)
        self.labels: dict[int, object] = {}
        self.prior_labels = frozenset(int(i) for i in prior_labels)
        self.sizes = np.bincount(self.groups, minlength=self.n_groups).astype(float)
        self._index_predictions()

    # ---- answers and accuracy ----------------------------------------------------------
    def is_correct(self, index, label) -> bool:
        if self.predicted is None:
            if label not in (0, 1, True, False, "0", "1"):
                raise ValueError(f"without predictions an answer must be 1 (correct) or 0 (wrong), got {label!r}")
            return int(label) == 1
        return str(label) == str(self.predicted[index])

    @property
    def posterior(self) -> BetaGroups:
        ok = np.zeros(self.n_groups)
        bad = np.zeros(self.n_groups)
        for i, label in self.labels.items():
            if i in self.prior_labels:
                continue  # the prior already holds this answer
            if self.is_correct(i, label):
                ok[self.groups[i]] += 1
            else:
                bad[self.groups[i]] += 1
        return self.prior.updated(ok, bad)

    def accuracy(self, level=0.9) -> dict:
        """Per-group accuracy (posterior mean, ``level`` interval) and the size-weighted overall value.

        Examples
        --------
        >>> a = Assessor([0, 0, 1, 1], None)
        >>> a.update(0, 1); a.update(2, 0)
        >>> a.accuracy()["mean"].round(3).tolist()
        [0.667, 0.333]
        """
        post = self.posterior
        lo, hi = post.interval(level)
        w = self.sizes / self.sizes.sum()
        return {"mean": post.mean(), "lower": lo, "upper": hi, "overall": float(w @ post.mean())}

    def n_labeled(self) -> np.ndarray:
        """Answers per group (all of them, also those a prior holds)."""
        return np.bincount(self.groups[list(self.labels)], minlength=self.n_groups) if self.labels \
            else np.zeros(self.n_groups, dtype=np.int64)

    def to_frame(self, level=0.9, names=None):
        """Tidy per-group accuracy: one row per group, columns ``group``, ``estimate``
        (posterior mean), ``lower``, ``upper`` (``level`` interval), ``n_labeled``, ``n_items``.

        ``names``: the group ids in code order (e.g. from :func:`encode_groups`). Needs pandas.

        Examples
        --------
        >>> a = Assessor([0, 0, 1, 1], None)
        >>> a.update(0, 1)
        >>> a.to_frame(names=["a", "b"])[["group", "n_labeled", "n_items"]].values.tolist()
        [['a', 1, 2], ['b', 0, 2]]
        """
        pd = require_pandas("to_frame()", "accuracy() gives the same numbers as arrays")
        if names is not None and len(names) != self.n_groups:
            raise ValueError(f"names needs one name per group ({self.n_groups}), got {len(names)}")
        acc = self.accuracy(level)
        return pd.DataFrame({"group": list(range(self.n_groups)) if names is None else list(names),
                             "estimand": "accuracy", "estimate": acc["mean"], "lower": acc["lower"],
                             "upper": acc["upper"], "n_labeled": self.n_labeled(),
                             "n_items": self.sizes.astype(np.int64)})

    # ---- the loop --------------------------------------------------------------------
    def unlabeled_mask(self) -> np.ndarray:
        mask = np.ones(self.groups.size, dtype=bool)
        mask[list(self.labels)] = False
        return mask

    def next_items(self, k=1) -> np.ndarray:
        """Indices of up to ``k`` items to label next (no item twice), by the assessor's strategy.

        Examples
        --------
        >>> a = Assessor([0, 0, 1, 1], None, strategy="ts-estimate", seed=0)
        >>> picked = a.next_items(2)                  # one item of each group
        >>> sorted([0, 0, 1, 1][i] for i in picked)
        [0, 1]
        """
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        free = self.unlabeled_mask()
        if not free.any():
            return np.array([], dtype=np.int64)
        remaining = np.bincount(self.groups[free], minlength=self.n_groups).astype(float)
        if self.strategy in strategies.RICH_STRATEGIES:
            groups = self._rich_choice(remaining > 0, k)
        else:
            options = {o: v for o, v in self.strategy_options.items() if o in strategies.CHOOSE_OPTIONS}
            groups = strategies.choose(self.strategy, self.posterior, remaining > 0,
                                       self._weights(remaining), self.rng, k, **options)
        picked = []
        for g in groups:
            cand = np.flatnonzero(free & (self.groups == g))
            if cand.size:
                i = int(self.rng.choice(cand))
                picked.append(i)
                free[i] = False
        return np.array(picked, dtype=np.int64)

    def _rich_choice(self, available, k):
        opts = self.strategy_options
        if self.strategy == "ts-costliest":
            if "cost" not in opts or self.predicted is None:
                raise ValueError("'ts-costliest' needs predicted classes and cost=(K x K matrix)")
            cost = np.asarray(opts["cost"], dtype=float)
            kk = len(self.classes)
            if cost.shape != (kk, kk) or not np.all(np.isfinite(cost)):
                raise ValueError(f"cost must be a finite {kk} x {kk} matrix (true x predicted) over the classes "
                                 f"{self.classes[:8]}{'...' if kk > 8 else ''}, got shape {cost.shape}; declare "
                                 "classes= to fix their number and order")
            return strategies.costliest(self.confusion_posterior(), cost, self.group_columns(), available,
                                        self.rng, k)
        if self.strategy == "ts-confusion":
            if self.predicted is None:
                raise ValueError("'ts-confusion' needs predicted classes (answers are class labels)")
            return strategies.confusion_choice(self.confusion_posterior(), self.group_columns(), available,
                                               self.sizes / self.sizes.sum(), self.rng, k)
        cells = self.calibration_cells()
        return strategies.least_calibrated(cells, available, self.rng, k)

    # ---- calibration -----------------------------------------------------------------------
    def calibration_cells(self, confidence=None, n_bins=None, pooled=False):
        """Accuracy per (group, confidence bin) cell, or per bin over all items (``pooled``);
        see :meth:`calibration_error`."""
        if confidence is None:
            if "confidence" not in self.strategy_options:
                raise ValueError("calibration needs confidence= (the model's probability that its prediction is "
                                 "correct, per item), here or as an Assessor option")
            confidence = self.strategy_options["confidence"]
        conf = check_confidence(confidence, self.groups.size)
        n_bins = check_bins(self.strategy_options.get("n_bins", DEFAULT_BINS) if n_bins is None else n_bins)
        outcomes = {i: self.is_correct(i, label) for i, label in self.labels.items()}
        prior = None if self.prior_is_default else self.prior
        groups = self.groups
        if pooled:
            groups = np.zeros_like(self.groups)
            prior = None if prior is None else pooled_prior(prior, self.sizes)
        return binned_accuracy(conf, groups, outcomes, n_bins, prior, self.prior_labels)

    def calibration_error(self, confidence=None, *, n_bins=None, level=0.9, kind="sample", n=10_000,
                          seed=0) -> CalibrationError:
        """Posterior of the expected calibration error, over all items and per group (Ji et al.).

        Parameters
        ----------
        confidence : array_like, optional
            The model's probability that its prediction is correct, per item (the top-1
            probability); default: the ``confidence`` option the assessor was made with.
        n_bins : int, optional
            Equal-width confidence bins (default: the ``n_bins`` option, else 10 as in Ji et al.).
        level : float
            Credible level of the intervals.
        kind : {"sample", "population"}
            The ECE of these items (unlabeled items' correctness drawn) or of the population
            they come from (each bin's accuracy parameter).
        n : int
            Monte Carlo draws.
        seed : int, numpy Generator or None
            Randomness of the draws (the session's own random state is not touched).

        Returns
        -------
        CalibrationError
            ``.overall`` and ``.per_group`` (mean, median, lower, upper), the draws, and
            ``.plot()``, the Bayesian reliability diagram (a Beta per bin).

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> conf = rng.uniform(0.5, 1.0, 500)
        >>> a = Assessor(np.zeros(500, dtype=int), None, confidence=conf, seed=0)
        >>> for i in range(100):
        ...     a.update(i, int(rng.random() < conf[i] - 0.2))   # overconfident by 0.2
        >>> ece = a.calibration_error()
        >>> 0.1 < ece.overall["median"] < 0.3
        True
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level!r}")
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        cells = self.calibration_cells(confidence, n_bins)
        rng = np.random.default_rng(seed)
        bins = self.calibration_cells(confidence, n_bins, pooled=True)
        overall = bins.ece_draws(rng, n, kind)[:, 0]
        return CalibrationError(overall, cells.ece_draws(rng, n, kind, self.n_groups), bins, level, kind)

    def plot_reliability(self, confidence=None, ax=None, *, n_bins=None, level=0.9, kind="sample",
                         true_correct=None, seed=0):
        """The Bayesian reliability diagram: a Beta posterior of accuracy per confidence bin.

        ``true_correct`` (0/1 per item), when known, adds the true accuracy per bin. Returns
        the matplotlib ``ax``.

        Examples
        --------
        >>> import numpy as np
        >>> conf = np.linspace(0.5, 1.0, 200)
        >>> a = Assessor(np.zeros(200, dtype=int), None, confidence=conf)
        >>> a.update(0, 1)
        >>> ax = a.plot_reliability()  # doctest: +SKIP
        """
        ece = self.calibration_error(confidence, n_bins=n_bins, level=level, kind=kind, seed=seed)
        conf = self.strategy_options.get("confidence") if confidence is None else confidence
        return ece.plot(ax, true_correct=true_correct, confidence=conf, seed=seed)

    def _weights(self, remaining):
        if self.strategy == "random":
            return remaining
        return self.sizes / self.sizes.sum()

    def set_prior(self, prior, included=()):
        """Start from a new prior that already holds the answers of items ``included``."""
        if prior.n_groups != self.n_groups:
            raise ValueError(f"prior has {prior.n_groups} groups, data has {self.n_groups}")
        unknown = set(int(i) for i in included) - set(self.labels)
        if unknown:
            raise ValueError(f"the prior cannot hold answers that were never given (items {sorted(unknown)[:5]})")
        self.prior = prior
        self.prior_is_default = False
        self.prior_labels = frozenset(int(i) for i in included)

    def update(self, index, label):
        """Record the true label of item ``index`` (overwrites an earlier answer).

        Examples
        --------
        >>> a = Assessor([0, 1], predicted=["cat", "dog"])
        >>> a.update(0, "dog")
        >>> a.posterior.mean().round(2).tolist()
        [0.33, 0.5]
        """
        index = int(index)
        if not 0 <= index < self.groups.size:
            raise IndexError(f"item index {index} out of range 0..{self.groups.size - 1}")
        self.is_correct(index, label)  # validates the answer
        if self.declared_classes is not None and str(label) not in {str(c) for c in self.declared_classes}:
            raise ValueError(f"answer {label!r} is not one of the declared classes {self.declared_classes!r}")
        if index in self.prior_labels and str(self.labels.get(index, label)) != str(label):
            raise ValueError(f"item {index}'s answer is part of the prior; refit the prior to change it")
        self.labels[index] = label
