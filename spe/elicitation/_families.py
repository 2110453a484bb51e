"""Metric families: what a metric of a confusion matrix looks like, and its best rule.

* :class:`DiagonalLinear` (DLPM, Definition 1): psi(C) = <a, diag C>, a >= 0, ||a||_1 = 1
  (weighted accuracy: a reward per correctly classified class).
* :class:`Linear` (LPM, Definition 2): phi(C) = <a, offdiag C>, a <= 0, ||a||_2 = 1 (a cost
  per kind of mistake; ``a`` is a utility, so costs are -a).
* :class:`Fractional`: (<n, x> + n_0) / (<b, x> + b_0) of the diagonal (``diagonal=True``;
  binary F-measures) or of the off-diagonal confusions x, e.g. F-beta or Jaccard.

Every family has ``features(C)`` (the confusions it reads), ``__call__`` (its value,
vectorised over matrices) and ``utility()``: the (K, K) reward matrix whose Bayes rule
(predict argmax_j sum_i eta_i U_ij) is optimal for the metric on the user's items. For a
linear-fractional metric that is the linear metric tangent at its optimum (the level set
through the best confusion matrix), which ``_fractional`` finds.
"""

from __future__ import annotations

import numpy as np

from ._space import offdiag, offdiag_matrix

METRIC_FAMILIES = ("diagonal", "linear", "diagonal-fractional", "linear-fractional")


def check_matrix(matrix, k: int, what: str = "confusion matrix") -> np.ndarray:
    """A (..., K, K) array of finite non-negative numbers summing to 1 per matrix."""
    try:
        c = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"a {what} must be a {k} x {k} array of numbers") from None
    if c.ndim < 2 or c.shape[-2:] != (k, k):
        raise ValueError(f"a {what} must be {k} x {k} (rows: true class, columns: predicted), got shape {c.shape}")
    if not np.all(np.isfinite(c)):
        raise ValueError(f"a {what} must hold finite numbers (got NaN or inf)")
    if np.any(c < -1e-9):
        raise ValueError(f"a {what} holds shares of items: entries must be >= 0 (got {c.min():.3g})")
    totals = c.sum(axis=(-2, -1))
    if not np.allclose(totals, 1.0, atol=1e-6):
        raise ValueError(f"a {what}'s entries are shares of items and must sum to 1 (got {np.ravel(totals)[0]:.6g}); "
                         "divide counts by the number of items")
    return c


class DiagonalLinear:
    """psi(C) = <a, diag C>: weighted accuracy, ``a`` >= 0 with ||a||_1 = 1.

    Examples
    --------
    >>> from spe.elicitation import DiagonalLinear
    >>> metric = DiagonalLinear([0.2, 0.8])
    >>> round(float(metric(np.array([[0.4, 0.1], [0.2, 0.3]]))), 2)  # 0.2 * 0.4 + 0.8 * 0.3
    0.32
    """

    family = "diagonal"

    def __init__(self, weights):
        self.weights = np.asarray(weights, float)
        self.n_classes = self.weights.size

    @staticmethod
    def features(matrix) -> np.ndarray:
        return np.diagonal(np.asarray(matrix, float), axis1=-2, axis2=-1)

    def __call__(self, matrix):
        return self.features(matrix) @ self.weights

    def utility(self) -> np.ndarray:
        return np.diag(self.weights)

    def describe(self) -> str:
        return "weighted accuracy: sum_i a_i C_ii"


class Linear:
    """phi(C) = <a, offdiag C>: ``a`` <= 0 (utilities of the mistakes), ||a||_2 = 1.

    Examples
    --------
    >>> from spe.elicitation import Linear
    >>> metric = Linear([-0.6, -0.8], 2)  # a missed class 1 costs more than a false alarm
    >>> round(float(metric(np.array([[0.4, 0.1], [0.2, 0.3]]))), 2)  # -0.6 * 0.1 - 0.8 * 0.2
    -0.22
    >>> metric.cost_matrix()[[0, 1], [1, 0]]  # predicting 1 for class 0, predicting 0 for class 1
    array([0.6, 0.8])
    """

    family = "linear"

    def __init__(self, weights, n_classes: int):
        self.weights = np.asarray(weights, float)
        self.n_classes = n_classes

    @staticmethod
    def features(matrix) -> np.ndarray:
        return offdiag(matrix)

    def __call__(self, matrix):
        return self.features(matrix) @ self.weights

    def utility(self) -> np.ndarray:
        return offdiag_matrix(self.weights, self.n_classes)

    def cost_matrix(self) -> np.ndarray:
        """(K, K) cost of each mistake (true row, predicted column), 0 on the diagonal."""
        return -self.utility()

    def describe(self) -> str:
        return "cost-sensitive: sum_{i != j} a_ij C_ij (a_ij = -cost of predicting j for class i)"


class Fractional:
    """(<n, x> + n_0) / (<b, x> + b_0) with x the diagonal (``diagonal``) or off-diagonal
    confusions; ``numerator`` = (n, n_0), ``denominator`` = (b, b_0). ``tangent``: the
    utility weights of the linear metric tangent at the optimum (its Bayes rule is the
    metric's); elicitation sets it.

    Examples
    --------
    >>> from spe.elicitation import Fractional
    >>> jaccard = Fractional([0.0, 1.0, 0.0], [-1.0, 0.0, 1.0], 2)  # TP / (1 - TN): C_11 / (1 - C_00)
    >>> round(float(jaccard(np.array([[0.5, 0.1], [0.1, 0.3]]))), 2)
    0.6
    """

    def __init__(self, numerator, denominator, n_classes: int, diagonal: bool = True, tangent=None):
        self.numerator = np.asarray(numerator, float)
        self.denominator = np.asarray(denominator, float)
        self.n_classes = n_classes
        self.diagonal = diagonal
        self.family = "diagonal-fractional" if diagonal else "linear-fractional"
        self.tangent = None if tangent is None else np.asarray(tangent, float)

    @property
    def weights(self) -> np.ndarray:
        """The tangent linear metric's weights (what :meth:`utility` and decisions use)."""
        return self.tangent

    def features(self, matrix) -> np.ndarray:
        return DiagonalLinear.features(matrix) if self.diagonal else offdiag(matrix)

    def __call__(self, matrix):
        x = self.features(matrix)
        den = x @ self.denominator[:-1] + self.denominator[-1]
        return (x @ self.numerator[:-1] + self.numerator[-1]) / den

    def utility(self) -> np.ndarray:
        if self.tangent is None:
            raise ValueError("this linear-fractional metric has no tangent weights yet (elicit it, or compute them "
                             "with spe.elicitation.fractional.tangent_weights)")
        return np.diag(self.tangent) if self.diagonal else offdiag_matrix(self.tangent, self.n_classes)

    def describe(self) -> str:
        x = "diag C" if self.diagonal else "offdiag C"
        return f"linear-fractional: (<n, {x}> + n0) / (<b, {x}> + b0)"


def metric_from_weights(family: str, weights, n_classes: int):
    """A linear family's metric object from its weights (for oracles made from known metrics)."""
    if family == "diagonal":
        return DiagonalLinear(weights)
    if family == "linear":
        return Linear(weights, n_classes)
    raise ValueError(f"metric_from_weights takes 'diagonal' or 'linear', got {family!r}")


def f_beta(beta: float = 1.0, prevalence: float = 0.5) -> Fractional:
    """Binary F-beta as a linear-fractional metric of the diagonal (TN = C_00, TP = C_11):
    (1 + b^2) TP / (TP - TN + b^2 pi + 1 - pi), pi = P(y = 1).

    Examples
    --------
    >>> from spe.elicitation import f_beta
    >>> f1 = f_beta(1.0, prevalence=0.3)
    >>> round(float(f1(np.array([[0.6, 0.1], [0.1, 0.2]]))), 4)  # 2 TP / (2 TP + FP + FN) = 0.4 / 0.6
    0.6667
    """
    b2 = beta**2
    return Fractional([0.0, 1.0 + b2, 0.0], [-1.0, 1.0, b2 * prevalence + 1.0 - prevalence], 2, diagonal=True)
