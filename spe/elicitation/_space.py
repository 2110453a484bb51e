"""The query space: confusion matrices a classifier can reach on the user's items.

With class probabilities eta (N, K) taken as P(y = i | x) of each item (the raw ones, or
SPE's recalibrated ones), a classifier h that predicts class j for item n with
probability H_nj has the confusion matrix C_ij = (1/N) sum_n eta_ni H_nj (rows: true
class, entries summing to 1). Its diagonal is the vector of *diagonal confusions* d and
its off-diagonal entries (row-major) the *off-diagonal confusions* c of the paper
(Hiranandani et al., sections 2-3). Every query shown to an oracle is such a matrix.

A :class:`PairBoundary` is the upper (or lower) boundary of the face D_{r,i} of classifiers
that predict only classes r and i: the restricted Bayes-optimal (or -pessimal) classifiers
of the weights (m, 1 - m), parametrised by m in [0, 1] (Proposition 2, section 3.1). On
finitely many items the boundary is a polygon: a range of m (a *plateau*) gives the same
vertex, and the plateaus are known exactly, without asking anybody.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np


def offdiag(matrix) -> np.ndarray:
    """The off-diagonal entries of a (..., K, K) array, row-major: (..., K(K - 1))."""
    m = np.asarray(matrix, float)
    k = m.shape[-1]
    return m[..., ~np.eye(k, dtype=bool)]


def offdiag_matrix(values, k: int) -> np.ndarray:
    """The (..., K, K) array with ``values`` (..., K(K - 1)) off the diagonal and 0 on it."""
    v = np.asarray(values, float)
    out = np.zeros(v.shape[:-1] + (k, k))
    out[..., ~np.eye(k, dtype=bool)] = v
    return out


class ConfusionSpace:
    """The confusion matrices reachable on N items with class probabilities ``eta``.

    Parameters
    ----------
    eta : (N, K) array
        Validated class probabilities (rows sum to 1).
    """

    def __init__(self, eta):
        self.eta = np.asarray(eta, float)
        self.n_items, self.n_classes = self.eta.shape
        self.prevalence = self.eta.mean(axis=0)  # zeta_i
        self._pairs = {}

    @property
    def q(self) -> int:
        """Number of off-diagonal cells, K(K - 1)."""
        return self.n_classes * (self.n_classes - 1)

    def confusion(self, predictions) -> np.ndarray:
        """The (K, K) confusion matrix of a deterministic rule's predicted classes (N,)."""
        onehot = np.zeros((self.n_items, self.n_classes))
        onehot[np.arange(self.n_items), np.asarray(predictions)] = 1.0
        return (self.eta.T @ onehot) / self.n_items  # column j sums eta of the items predicted j

    def bayes_rule(self, utility) -> np.ndarray:
        """Predicted class per item maximising expected utility; ``utility[i, j]`` is the
        reward of predicting j when the truth is i (ties: the lowest class)."""
        return np.argmax(self.eta @ np.asarray(utility, float), axis=1)

    def min_linear(self, utility, offset=0.0) -> float:
        """min over reachable C of sum_ij utility_ij C_ij + offset (the worst classifier)."""
        values = self.eta @ np.asarray(utility, float)
        low = values[:, 0].copy()
        for j in range(1, values.shape[1]):  # column by column: much faster than min over a short axis
            np.minimum(low, values[:, j], out=low)
        return float(offset + low.mean())

    def full_matrix(self, off) -> np.ndarray:
        """The confusion matrix with off-diagonal entries ``off`` and the diagonal that makes
        each row sum to its class's prevalence (equation 2 of the paper)."""
        c = offdiag_matrix(off, self.n_classes)
        c[np.diag_indices(self.n_classes)] = self.prevalence - c.sum(axis=1)
        return c

    @cached_property
    def trivial(self) -> np.ndarray:
        """(K, K, K): the confusion matrix of "always predict class j", for each j."""
        k = self.n_classes
        out = np.zeros((k, k, k))
        for j in range(k):
            out[j, :, j] = self.prevalence
        return out

    @cached_property
    def center(self) -> np.ndarray:
        """o: the off-diagonal confusions of predicting a uniformly random class."""
        return offdiag(self.trivial.mean(axis=0))

    def pair(self, r: int, i: int, upper: bool = True) -> "PairBoundary":
        """The boundary of the face of classes (r, i), built once."""
        key = (r, i, upper)
        if key not in self._pairs:
            self._pairs[key] = PairBoundary(self, r, i, upper)
        return self._pairs[key]


class PairBoundary:
    """nu(m; r, i): confusions of the rule "predict r iff m eta_r >= (1 - m) eta_i, else i"
    (``upper``; the lower boundary reverses the inequality), m in [0, 1].

    Items are sorted once by their switch point s = eta_i / (eta_r + eta_i) (the m at
    which they change sides), so a point costs a binary search and no pass over the items.
    """

    lo, hi = 0.0, 1.0

    def __init__(self, space: ConfusionSpace, r: int, i: int, upper: bool = True):
        self.space, self.r, self.i, self.upper = space, r, i, upper
        self.derived = {}  # what other modules build from this boundary once (its polygon)
        er, ei = space.eta[:, r], space.eta[:, i]
        total = er + ei
        switch = np.divide(ei, total, out=np.zeros_like(total), where=total > 0)
        order = np.argsort(switch, kind="stable")
        self.switch = switch[order]
        self.cumulative = np.vstack([np.zeros(space.n_classes), np.cumsum(space.eta[order], axis=0)]) / space.n_items
        # Vertices are told apart by the pair's diagonal (C_rr, C_ii), what the face is made of: items of other
        # classes with tiny eta_r, eta_i move only off-diagonal cells, or nothing at all in floating point.
        moved = np.any(np.diff(self.cumulative[:, [r, i]], axis=0) != 0, axis=1)
        self.vertex = np.concatenate([[0], np.cumsum(moved)])  # vertex of each count of items predicted r
        self._first = np.searchsorted(self.vertex, np.arange(self.vertex[-1] + 1), side="left")
        self._last = np.searchsorted(self.vertex, np.arange(self.vertex[-1] + 1), side="right") - 1

    @staticmethod
    def features(matrix) -> np.ndarray:
        """What metrics of the face read: the diagonal."""
        return np.diagonal(matrix)

    def _count(self, m) -> int:
        """Number of items (in switch order) whose switch point is <= m."""
        return int(np.searchsorted(self.switch, m, side="right"))

    def key(self, m) -> int:
        """Equal keys <=> the same point of the face (the same C_rr and C_ii)."""
        return int(self.vertex[self._count(m)])

    def plateau(self, m) -> tuple[float, float]:
        """The interval of m that gives the same point of the face as m (half-open: its
        upper end is the next point's first m)."""
        v = self.vertex[self._count(m)]
        first, last = self._first[v], self._last[v]
        lo = self.switch[first - 1] if first > 0 else self.lo
        hi = self.switch[last] if last < self.switch.size else self.hi
        return float(lo), float(hi)

    def confusion(self, m) -> np.ndarray:
        """The (K, K) confusion matrix at m: only columns r and i are non-zero."""
        below = self.cumulative[self._count(m)]  # items with switch <= m
        above = self.cumulative[-1] - below
        k = self.space.n_classes
        out = np.zeros((k, k))
        out[:, self.r], out[:, self.i] = (below, above) if self.upper else (above, below)
        return out
