"""Known worlds to test elicitation on: the paper's synthetic classes and random metrics.

* :func:`paper_probabilities`: X ~ U[-1, 1] and eta_i(x) proportional to 1 / (1 + exp(p_i x))
  (Hiranandani et al., section 6.1; the paper's eta_i do not sum to 1, so they are
  normalised here), on an N-point midpoint grid of [-1, 1]: the population, to within 1/N.
* :func:`random_metric`: a metric drawn uniformly: DLPM weights from the simplex, LPM
  weights from the negative orthant of the unit sphere, and linear-fractional metrics
  (<a, x> + a_0) / (<b, x> + b_0) with a uniform on the simplex (or sphere), b a random
  share of an F-measure-like denominator (monotone, positive on every confusion matrix).
"""

from __future__ import annotations

import numpy as np

from ._families import DiagonalLinear, Fractional, Linear

PAPER_P = {3: (1.0, 3.0, 5.0), 4: (1.0, 3.0, 6.0, 10.0)}


def paper_probabilities(p=PAPER_P[3], n: int = 20_000) -> np.ndarray:
    """(n, K) class probabilities of the paper's synthetic distribution on a midpoint grid.

    Examples
    --------
    >>> from spe.elicitation import paper_probabilities
    >>> paper_probabilities((1, 3, 5), n=4).round(3)
    array([[0.265, 0.353, 0.382],
           [0.278, 0.336, 0.385],
           [0.446, 0.327, 0.227],
           [0.731, 0.217, 0.052]])
    """
    p = np.asarray(p, float)
    x = -1.0 + (np.arange(n) + 0.5) * (2.0 / n)
    eta = 1.0 / (1.0 + np.exp(np.outer(x, p)))
    return eta / eta.sum(axis=1, keepdims=True)


def random_metric(family: str, k: int, rng):
    """A metric of ``family`` drawn at random for K classes (see the module docstring).

    Examples
    --------
    >>> from spe.elicitation import random_metric
    >>> random_metric("diagonal", 3, 0).weights.round(3)
    array([0.395, 0.593, 0.012])
    >>> random_metric("linear-fractional", 3, 0).family
    'linear-fractional'
    """
    rng = np.random.default_rng(rng)
    if family == "diagonal":
        return DiagonalLinear(rng.dirichlet(np.ones(k)))
    q = k * (k - 1)
    if family == "linear":
        return Linear(-np.abs(_unit(rng, q)), k)
    if family in ("diagonal-fractional", "linear-fractional"):
        diagonal = family == "diagonal-fractional"
        dim = k if diagonal else q
        share = rng.uniform(0.2, 1.0)
        if diagonal:  # reward correct answers, denominator 1 - share <b, d> stays >= 1 - share > 0
            num = np.append(rng.dirichlet(np.ones(dim)), 0.0)
            den = np.append(-share * rng.dirichlet(np.ones(dim)), 1.0)
        else:  # mistakes cost: (1 - <c, a>) / (1 + share <b, c>), both positive on every matrix
            num = np.append(-np.abs(_unit(rng, dim)) / np.sqrt(dim), 1.0)
            den = np.append(share * rng.dirichlet(np.ones(dim)), 1.0)
        return Fractional(num, den, k, diagonal=diagonal)
    raise ValueError(f"unknown family {family!r}")


def _unit(rng, dim):
    v = rng.standard_normal(dim)
    return v / np.linalg.norm(v)
