"""Identification (the m least accurate, costliest or least calibrated groups) and pairwise
comparison with a region of practical equivalence (Ji et al.).

Identification ranks groups by posterior mean and summarises the posterior of the ranking
from Monte Carlo draws of the groups' metrics: each group's probability of being among
the m extreme ones and an interval of its rank. It is scored as Ji et al. do, by the mean
reciprocal rank (MRR) of the true top-m groups in the estimated order, the other true
top-m groups ignored, so MRR = 1 exactly when the estimated top m are the true top m.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

REGIONS = ("below", "equivalent", "above")


def _check_m(m, n_groups):
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or not 1 <= m <= n_groups:
        raise ValueError(f"m must be an integer in 1..{n_groups} (the number of groups), got {m!r}")
    return int(m)


def mrr(estimate, truth, m=1, *, lowest=True) -> float:
    """Mean reciprocal rank of the true top-m groups in the order of ``estimate`` (Ji et al.).

    ``rank_i`` is the estimated rank of the i-th true top-m group counting only groups
    outside the true top m ahead of it, so MRR = 1 exactly when the estimated top m are
    the true top m (in any order). Ties in ``estimate`` are broken by group index.

    Parameters
    ----------
    estimate, truth : (G,) arrays
        Estimated and true metric per group.
    m : int
        How many extreme groups.
    lowest : bool
        Top = lowest values (least accurate); ``False``: highest (costliest).

    Examples
    --------
    >>> mrr([0.9, 0.8, 0.7], [0.9, 0.8, 0.7])
    1.0
    >>> mrr([0.7, 0.8, 0.9], [0.9, 0.8, 0.7])      # the truly worst is estimated last
    0.3333333333333333
    >>> mrr([0.80, 0.70, 0.90, 0.95], [0.7, 0.8, 0.9, 0.95], m=2)
    1.0
    """
    est, tru = np.asarray(estimate, float), np.asarray(truth, float)
    if est.shape != tru.shape or est.ndim != 1:
        raise ValueError("estimate and truth need one value per group")
    m = _check_m(m, est.size)
    sign = 1.0 if lowest else -1.0
    top = np.argsort(sign * tru, kind="stable")[:m]
    position = np.empty(est.size, dtype=np.int64)
    position[np.argsort(sign * est, kind="stable")] = np.arange(est.size)
    outside = np.ones(est.size, dtype=bool)
    outside[top] = False
    ahead = np.array([np.sum(outside & (position < position[g])) for g in top])
    return float(np.mean(1.0 / (ahead + 1)))


@dataclass
class Identification:
    """The posterior of which groups are the ``m`` most extreme.

    ``order``: groups by posterior mean, most extreme first; ``top``: its first ``m``;
    ``prob_top``: P(group among the m most extreme); ``rank_mean``, ``rank_lower``,
    ``rank_upper``: each group's rank (0 = most extreme), posterior mean and ``level``
    interval; ``mean``: the metric's posterior mean per group.

    Examples
    --------
    >>> from spe.assessment import Assessor
    >>> a = Assessor([0, 0, 1, 1, 2, 2], None)
    >>> a.update(0, 0); a.update(2, 1); a.update(4, 1)
    >>> ident = a.least_accurate(m=1)
    >>> ident.top.tolist(), ident.mrr([0.2, 0.9, 0.8])
    ([0], 1.0)
    """

    mean: np.ndarray
    order: np.ndarray
    top: np.ndarray
    prob_top: np.ndarray
    rank_mean: np.ndarray
    rank_lower: np.ndarray
    rank_upper: np.ndarray
    m: int
    level: float
    lowest: bool

    @classmethod
    def from_draws(cls, draws, m=1, level=0.9, lowest=True) -> "Identification":
        """From (n, G) posterior draws of a metric per group.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> draws = rng.normal([0.9, 0.5, 0.8], 0.01, size=(1000, 3))
        >>> ident = Identification.from_draws(draws, m=1)
        >>> ident.top.tolist(), ident.prob_top.round(2).tolist()
        ([1], [0.0, 1.0, 0.0])
        """
        draws = np.asarray(draws, float)
        if draws.ndim != 2 or draws.shape[0] < 1:
            raise ValueError("draws must be an (n, groups) array")
        m = _check_m(m, draws.shape[1])
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level!r}")
        sign = 1.0 if lowest else -1.0
        ranks = np.argsort(np.argsort(sign * draws, axis=1, kind="stable"), axis=1, kind="stable")
        mean = draws.mean(axis=0)
        order = np.argsort(sign * mean, kind="stable")
        tail = (1 - level) / 2
        return cls(mean, order, order[:m], np.mean(ranks < m, axis=0), ranks.mean(axis=0),
                   np.quantile(ranks, tail, axis=0, method="lower"),
                   np.quantile(ranks, 1 - tail, axis=0, method="higher"), m, level, lowest)

    def mrr(self, truth) -> float:
        """This identification's MRR against the true metric per group (see :func:`mrr`)."""
        return mrr(self.mean, truth, self.m, lowest=self.lowest)


@dataclass
class Comparison:
    """ROPE comparison of two groups' accuracies, d = theta_g1 - theta_g2 (Ji et al.).

    ``probabilities``: ``P(d < -eps)``, ``P(abs(d) <= eps)``, ``P(d > eps)`` (the regions ``below``,
    ``equivalent``, ``above``); ``region`` the most probable one (eta) and ``confidence``
    its probability (lambda); ``difference`` the posterior mean of d and ``lower``,
    ``upper`` its ``level`` interval.

    Examples
    --------
    >>> from spe.assessment import Assessor
    >>> a = Assessor([0, 0, 1, 1], None)
    >>> c = a.compare(0, 1)
    >>> c.region, round(c.confidence, 1)
    ('above', 0.5)
    """

    groups: tuple
    epsilon: float
    probabilities: np.ndarray
    difference: float
    lower: float
    upper: float
    level: float

    @property
    def region(self) -> str:
        return REGIONS[int(np.argmax(self.probabilities))]

    @property
    def confidence(self) -> float:
        return float(np.max(self.probabilities))

    def __str__(self):
        g1, g2 = self.groups
        return (f"accuracy of group {g1} minus group {g2}: {self.difference:+.3f} "
                f"[{100 * self.level:g}% {self.lower:+.3f}, {self.upper:+.3f}]; {self.region} "
                f"(ROPE +/-{self.epsilon:g}) with probability {self.confidence:.2f}")


def compare_draws(d, groups, epsilon, level) -> Comparison:
    """A :class:`Comparison` from draws ``d`` of the difference."""
    tail = (1 - level) / 2
    probs = np.array([np.mean(d < -epsilon), np.mean(np.abs(d) <= epsilon), np.mean(d > epsilon)])
    return Comparison(tuple(groups), float(epsilon), probs, float(d.mean()), float(np.quantile(d, tail)),
                      float(np.quantile(d, 1 - tail)), level)


class IdentifyMixin:
    """The :class:`~spe.assessment.Assessor`'s identification and comparison methods."""

    def least_accurate(self, m=1, level=0.9, *, n=10_000, seed=0) -> Identification:
        """The posterior of which ``m`` groups are the least accurate.

        Examples
        --------
        >>> import numpy as np
        >>> from spe.assessment import Assessor
        >>> a = Assessor([0] * 20 + [1] * 20 + [2] * 20, None, seed=0)
        >>> for i in range(0, 60, 2):
        ...     a.update(i, int(i < 20 or i >= 40))   # group 1 is always wrong
        >>> ident = a.least_accurate(m=1)
        >>> ident.top.tolist(), round(float(ident.prob_top[1]), 2)
        ([1], 1.0)
        """
        draws = self.posterior.sample(np.random.default_rng(seed), n)
        return Identification.from_draws(draws, m, level, lowest=True)

    def costliest(self, cost, m=1, level=0.9, *, n=10_000, seed=0) -> Identification:
        """The posterior of which ``m`` predicted classes have the highest expected cost
        (:meth:`expected_cost`); groups here are the :attr:`classes`. A class no item is
        predicted as incurs no cost: it is never among them (its ``mean`` is NaN).

        Examples
        --------
        >>> import numpy as np
        >>> from spe.assessment import Assessor
        >>> a = Assessor([0, 0, 1, 1], predicted=[0, 0, 1, 1])
        >>> for i, y in [(0, 1), (1, 1), (2, 1), (3, 1)]:
        ...     a.update(i, y)
        >>> a.costliest([[0, 1], [1, 0]]).top.tolist()
        [0]
        """
        draws = self.expected_cost(cost, level, n=n, seed=seed)["draws"]
        index = {str(c): k for k, c in enumerate(self.classes)}
        never = np.ones(draws.shape[1], dtype=bool)
        never[[index[p] for p in self._predicted_seen]] = False
        draws[:, never] = np.nan  # sorted last: never among the costliest
        return Identification.from_draws(draws, m, level, lowest=False)

    def least_calibrated(self, m=1, level=0.9, *, confidence=None, n_bins=None, n=4000,
                         seed=0) -> Identification:
        """The posterior of which ``m`` groups have the highest ECE (:meth:`calibration_error`).

        Examples
        --------
        >>> import numpy as np
        >>> from spe.assessment import Assessor
        >>> rng = np.random.default_rng(0)
        >>> conf = rng.uniform(0.5, 1.0, 400)
        >>> groups = np.repeat([0, 1], 200)
        >>> a = Assessor(groups, None, confidence=conf, seed=0)
        >>> for i in range(0, 400, 2):
        ...     a.update(i, int(rng.random() < conf[i] - 0.3 * (i >= 200)))
        >>> a.least_calibrated().top.tolist()
        [1]
        """
        draws = self.calibration_error(confidence, n_bins=n_bins, level=level, n=n, seed=seed).group_draws
        return Identification.from_draws(draws, m, level, lowest=False)

    def compare(self, g1, g2, epsilon=0.05, level=0.9, *, n=10_000, seed=0) -> Comparison:
        """ROPE comparison of the accuracies of groups ``g1`` and ``g2`` (Ji et al.).

        Parameters
        ----------
        g1, g2 : int
            Group codes.
        epsilon : float
            Half-width of the region of practical equivalence (Ji et al.: 0.05).
        level : float
            Credible level of the difference's interval.
        n : int
            Monte Carlo draws (Ji et al.: 10,000).
        seed : int or None
            Randomness of the draws.

        Returns
        -------
        Comparison

        Examples
        --------
        >>> import numpy as np
        >>> from spe.assessment import Assessor
        >>> a = Assessor([0] * 50 + [1] * 50, None)
        >>> for i in range(0, 100, 2):
        ...     a.update(i, int(i < 50 or i % 4 == 0))   # group 0 all right, group 1 half
        >>> c = a.compare(0, 1)
        >>> c.region, c.confidence > 0.99
        ('above', True)
        """
        g1, g2 = int(g1), int(g2)
        if not (0 <= g1 < self.n_groups and 0 <= g2 < self.n_groups) or g1 == g2:
            raise ValueError(f"g1 and g2 must be two different group codes in 0..{self.n_groups - 1}")
        if not (np.isfinite(epsilon) and epsilon >= 0) or not 0 < level < 1:
            raise ValueError("epsilon must be >= 0 and level in (0, 1)")
        draws = self.posterior.sample(np.random.default_rng(seed), n)
        return compare_draws(draws[:, g1] - draws[:, g2], (g1, g2), epsilon, level)
