"""The confusion matrix (true x predicted) as a Dirichlet per column, its priors, and costs.

Column k holds the true classes of the items *predicted* k. Priors (Ji et al., section 6
of the paper, strength N0 = 1 per column): uninformative, alpha_jk = N0 / K; score-informed,
alpha_jk = N0 times the mean of p_M(y = j | x) over the items predicted k; SPE-informed,
a Dirichlet moment-matched per column to the confusion matrices of the coherent label
draws of :func:`spe.fit_multiclass`. Every parameter is floored at a tiny positive value
(probabilities of exactly 0 are common) so each column is a proper Dirichlet.
"""

from __future__ import annotations

import numpy as np

from ._groups import class_order
from ._metrics import DirichletColumns
from ._priors import typical

DEFAULT_CONFUSION_STRENGTH = 1.0
_FLOOR = 1e-6


def _check_strength(strength):
    if not (isinstance(strength, (int, float, np.floating, np.integer)) and np.isfinite(strength) and strength > 0):
        raise ValueError(f"strength must be a positive number, got {strength!r}")
    return float(strength)


def _columns(mean, strength) -> DirichletColumns:
    """Dirichlet columns with means ``mean`` (K x K) and total strengths ``strength`` (K,)."""
    mean = np.maximum(np.asarray(mean, float), _FLOOR)
    mean /= mean.sum(axis=0, keepdims=True)
    return DirichletColumns(mean * np.asarray(strength, float)[None, :])


def uniform_confusion_prior(n_classes, strength=DEFAULT_CONFUSION_STRENGTH) -> DirichletColumns:
    """Ji et al.'s uninformative confusion prior: alpha_jk = N0 / K for every entry.

    Examples
    --------
    >>> uniform_confusion_prior(4).alpha[0].tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    if not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}")
    k = int(n_classes)
    return DirichletColumns(np.full((k, k), _check_strength(strength) / k))


def _check_probs(probs) -> np.ndarray:
    p = np.asarray(probs, dtype=float)
    if p.ndim != 2 or p.shape[1] < 2 or p.shape[0] == 0 or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("probs must be an (N, K) array of class probabilities (K >= 2, finite, >= 0)")
    return p / p.sum(axis=1, keepdims=True)


def _column_sizes(predicted, k):
    pred = np.asarray(predicted)
    if not np.issubdtype(pred.dtype, np.integer) or pred.min() < 0 or pred.max() >= k:
        raise ValueError(f"predicted must be class indices 0..{k - 1}")
    return pred, np.bincount(pred, minlength=k).astype(float)


def score_confusion_prior(probs, predicted=None, strength=DEFAULT_CONFUSION_STRENGTH) -> DirichletColumns:
    """Ji et al.'s score-informed confusion prior: alpha_jk = N0 mean_{x predicted k} p_M(y = j | x).

    Parameters
    ----------
    probs : (N, K) array
        The classifier's class probabilities on the unlabeled items.
    predicted : (N,) class indices, optional
        Default: ``probs.argmax(1)``.
    strength : float
        N0, the pseudo-count of each column (Ji et al.: 1).

    Returns
    -------
    DirichletColumns
        Rows and columns are classes 0..K-1 (declare ``classes=range(K)`` on the
        :class:`Assessor`); a class never predicted gets the uniform column N0 / K.

    Examples
    --------
    >>> prior = score_confusion_prior([[0.8, 0.2], [0.6, 0.4], [0.3, 0.7]])
    >>> prior.mean().round(2).tolist()
    [[0.7, 0.3], [0.3, 0.7]]
    """
    p = _check_probs(probs)
    k = p.shape[1]
    pred, size = _column_sizes(p.argmax(1) if predicted is None else predicted, k)
    if pred.shape != (p.shape[0],):
        raise ValueError("predicted needs one class per row of probs")
    sums = np.zeros((k, k))
    np.add.at(sums.T, pred, p)  # sums[:, k] = sum of the probability rows predicted k
    mean = np.where(size > 0, sums / np.maximum(size, 1), 1.0 / k)
    return _columns(mean, np.full(k, _check_strength(strength)))


def draw_confusions(class_draws, predicted, k) -> np.ndarray:
    """(draws, K, K) confusion matrices (columns sum to 1; 0 for a class never predicted)."""
    d = np.asarray(class_draws)
    flat = predicted[None, :] + k * d  # index j * K + k
    counts = np.stack([np.bincount(row, minlength=k * k) for row in flat]).reshape(-1, k, k)
    return counts / np.maximum(np.bincount(predicted, minlength=k), 1)[None, None, :]


def diagonal_strength(theta, centre) -> np.ndarray:
    """Per column k, the Dirichlet strength s whose diagonal marginal has the draws' spread
    around the centre, m_kk (1 - m_kk) / (s + 1) = E(theta_kk - m_kk)^2 (inf with no spread)."""
    k = centre.shape[0]
    diag = np.arange(k)
    m = np.clip(centre[diag, diag], 1e-3, 1 - 1e-3)
    spread = np.mean((theta[:, diag, diag] - centre[diag, diag][None]) ** 2, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return m * (1 - m) / spread - 1.0


def multiclass_confusion_prior(result, *, min_strength=DEFAULT_CONFUSION_STRENGTH) -> DirichletColumns:
    """SPE-informed confusion prior: a Dirichlet per column moment-matched to the coherent
    label draws of a :class:`~spe.multiclass.MulticlassResult`.

    Each draw gives every item a class, so each draw has a confusion matrix. Column k's
    mean m is the draws' interquartile mean per entry, rescaled to sum to 1 (with no labels:
    the classifier's own probabilities), as :func:`multiclass_informed_prior` centres
    accuracy and for its reasons (the draws are skewed). Its strength s is the one that
    gives the diagonal, P(correct | predicted k), the draws' spread around it:
    m_kk (1 - m_kk) / (s + 1) = E(theta_kk - m_kk)^2, as :func:`multiclass_informed_prior`
    earns the strength of class k's accuracy, so the two priors agree on it (up to their
    floors); at least ``min_strength`` and at most the number of items predicted k.

    A Dirichlet has one strength per column, so it cannot match every entry's spread. The
    draws move mass between the diagonal and the rest of the column together (a
    temperature that flattens the probabilities lowers the diagonal and raises every
    off-diagonal entry), and matching the column's total variance,
    sum_j m_j (1 - m_j) / (s + 1) = sum_j E(theta_jk - m_j)^2, makes the diagonal tighter
    than the draws are: with no labels, 2-3 times the strength the diagonal's spread
    supports, on files where the classifier's own probabilities are far from the truth
    (``python -m benchmarks.assessment_tables_prior`` measures it).

    Examples
    --------
    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 150)
    >>> probs = np.full((150, 3), 0.1); probs[np.arange(150), y] = 0.8
    >>> res = spe.fit_multiclass(probs, np.where(np.arange(150) < 20, y, -1), model="temperature",
    ...                          n_draws=100, seed=0)
    >>> prior = multiclass_confusion_prior(res)
    >>> bool(np.all(np.diag(prior.mean()) > 0.7))
    True
    """
    if not min_strength > 0:
        raise ValueError("min_strength must be positive")
    k = result.n_classes
    pred = np.asarray(result.predicted)
    size = np.bincount(pred, minlength=k).astype(float)
    theta = draw_confusions(result.class_draws, pred, k)
    if result.n_labeled == 0:  # the classifier's own probabilities are the centre
        centre = score_confusion_prior(np.exp(result.log_probs), pred).mean()
    else:
        centre = typical(theta)
        centre /= np.maximum(centre.sum(axis=0, keepdims=True), _FLOOR)
    strength = diagonal_strength(theta, centre)
    strength = np.clip(np.nan_to_num(strength, nan=min_strength, posinf=np.inf), min_strength,
                       np.maximum(size, min_strength))
    empty = size == 0
    centre[:, empty] = 1.0 / k
    strength[empty] = min_strength
    return _columns(centre, strength)


def confusion_rmse(estimate, truth, share) -> float:
    """Ji et al.'s confusion RMSE: sqrt(sum_k p_k sum_j (theta_hat_jk - theta_jk)^2)."""
    return float(np.sqrt(np.asarray(share) @ np.sum((np.asarray(estimate) - np.asarray(truth)) ** 2, axis=0)))


class ConfusionMixin:
    """The :class:`~spe.assessment.Assessor`'s class index, confusion matrix and costs."""

    def _index_predictions(self):
        """Once per session: the distinct predictions, and the (group, prediction) pairs."""
        self._predicted_seen, self._group_predictions = {}, {}
        if self.predicted is None:
            return
        for g, p in zip(self.groups.tolist(), self.predicted.tolist()):
            self._predicted_seen.setdefault(str(p), p)
            self._group_predictions.setdefault((g, str(p)), None)

    @property
    def classes(self) -> list:
        """The confusion matrix's rows and columns: the declared classes, else every class
        predicted or answered so far, sorted (numerically when all are numbers)."""
        if self.predicted is None:
            raise ValueError("classes need predicted classes (Assessor(groups, predicted, ...))")
        return class_order([*self._predicted_seen.values(), *self.labels.values()], self.declared_classes)

    def group_columns(self) -> np.ndarray:
        """The predicted class (index in :attr:`classes`) of each group; -1 for a group with no items."""
        index = {str(c): k for k, c in enumerate(self.classes)}
        col = np.full(self.n_groups, -1)
        for g, p in self._group_predictions:
            if col[g] not in (-1, index[p]):
                raise ValueError(f"group {g} holds several predicted classes; cost-driven assessment needs "
                                 "groups that each hold one predicted class (class_groups)")
            col[g] = index[p]
        return col

    def confusion_posterior(self, pseudo_count=None) -> DirichletColumns:
        """Dirichlet posterior of the confusion matrix's columns, rows and columns in :attr:`classes` order.

        Column k holds the true classes of the items *predicted* k (whatever their groups);
        every answer counts, also one naming a class no item is predicted as. Prior: the
        assessor's ``confusion_prior`` (answers it holds, ``prior_labels``, are not
        counted again), else ``pseudo_count`` (default 1, Ji et al.'s N0) spread evenly
        over each column.

        Examples
        --------
        >>> import numpy as np
        >>> from spe.assessment import Assessor
        >>> a = Assessor([0, 0, 1], predicted=["a", "a", "b"])
        >>> a.update(0, "b")
        >>> a.confusion_posterior().mean().round(2).tolist()
        [[0.25, 0.5], [0.75, 0.5]]
        """
        index = {str(c): k for k, c in enumerate(self.classes)}
        kk = len(index)
        prior = self.confusion_prior
        if prior is not None and pseudo_count is None:
            if prior.alpha.shape != (kk, kk):
                raise ValueError(f"confusion_prior is {prior.alpha.shape[0]} x {prior.alpha.shape[1]} but there are "
                                 f"{kk} classes; declare classes= (e.g. range(K)) in the prior's order")
            alpha = prior.alpha.copy()
            skip = self.prior_labels
        else:
            alpha = np.full((kk, kk), (1.0 if pseudo_count is None else float(pseudo_count)) / kk)
            skip = frozenset()
        for i, label in self.labels.items():
            if i not in skip:
                alpha[index[str(label)], index[str(self.predicted[i])]] += 1.0
        return DirichletColumns(alpha)

    def confusion(self, level=0.9) -> dict:
        """The confusion matrix (true x predicted, :attr:`classes` order): posterior mean and
        each entry's marginal ``level`` interval.

        Examples
        --------
        >>> import numpy as np
        >>> from spe.assessment import Assessor
        >>> a = Assessor([0, 0, 1, 1], predicted=[0, 0, 1, 1])
        >>> a.update(0, 0); a.update(2, 0)
        >>> c = a.confusion()
        >>> c["mean"].round(2).tolist(), c["classes"]
        ([[0.75, 0.75], [0.25, 0.25]], [0, 1])
        """
        post = self.confusion_posterior()
        lo, hi = post.interval(level)
        return {"mean": post.mean(), "lower": lo, "upper": hi, "classes": self.classes}

    def expected_cost(self, cost, level=0.9, *, n=10_000, seed=0) -> dict:
        """Posterior of the expected cost per predicted class, sum_j c_jk theta_jk (Ji et al.).

        Parameters
        ----------
        cost : (K, K) array
            ``cost[j, k]``: the cost of predicting class k when the truth is j, rows and
            columns in :attr:`classes` order.
        level : float
            Credible level of the intervals.
        n : int
            Monte Carlo draws of the confusion matrix.
        seed : int or None
            Randomness of the draws (the session's own random state is not touched).

        Returns
        -------
        dict
            ``mean``, ``lower``, ``upper`` per predicted class, ``draws`` (n, K), ``classes``.

        Examples
        --------
        >>> import numpy as np
        >>> from spe.assessment import Assessor
        >>> a = Assessor([0, 0, 1, 1], predicted=[0, 0, 1, 1])
        >>> for i, y in [(0, 0), (1, 1), (2, 1), (3, 1)]:
        ...     a.update(i, y)
        >>> c = a.expected_cost([[0, 1], [10, 0]])
        >>> c["mean"].round(1).tolist()
        [5.0, 0.2]
        """
        cost = np.asarray(cost, dtype=float)
        kk = len(self.classes)
        if cost.shape != (kk, kk) or not np.all(np.isfinite(cost)):
            raise ValueError(f"cost must be a finite {kk} x {kk} matrix (true x predicted) over the classes "
                             f"{self.classes[:8]}{'...' if kk > 8 else ''}, got shape {cost.shape}; declare "
                             "classes= to fix their number and order")
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level!r}")
        draws = self.confusion_posterior().expected_cost(cost, np.random.default_rng(seed), n)
        tail = (1 - level) / 2
        return {"mean": draws.mean(axis=0), "lower": np.quantile(draws, tail, axis=0),
                "upper": np.quantile(draws, 1 - tail, axis=0), "draws": draws, "classes": self.classes}
