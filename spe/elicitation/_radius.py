"""The offline radius procedure: a sphere around o that every query of Algorithm 2 can reach.

The paper's Algorithm 3 (its appendix D, not in the text we hold) computes a radius
lambda >= r / k, r the radius of the largest ball in C. The procedure here is our own,
from the geometry, and certifies every point it promises:

1. For each off-diagonal cell j, the longest step t_j from o along -e_j (fewer mistakes of
   that kind, every other mistake at its uniform-random rate) that stays in C:
   max t s.t. o - t e_j = sum_m alpha_m c_m, a convex combination of the confusions c_m of
   deterministic rules. It is a linear program over all K^N rules, solved exactly by column
   generation: the pricing problem "which rule maximises <y, c>" for the duals y is a Bayes
   rule (:meth:`~spe.elicitation.ConfusionSpace.bayes_rule`), so only the rules that
   matter are ever built. The optimum is a randomised classifier: reachable, not estimated.
2. lambda = min_j t_j / sqrt(q). The points o - t_j e_j and o span a region holding every
   x <= 0 with sum_j |x_j| / t_j <= 1, and a point of the sphere's lower part has
   sum_j |x_j| / t_j <= ||x||_1 / min t <= sqrt(q) lambda / min t = 1: all of the lower
   part (the queries of Algorithm 2) lies in C, by convexity.

Since a ball of radius r around o reaches t_j >= r along every axis, lambda >= r / sqrt(q),
r / sqrt(K (K - 1)) ~ r / K, the order of the paper's guarantee. ``signs=(-1, 1)`` also
steps along +e_j, for the upper part of the sphere (the worst points of a
linear-fractional metric).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from ._space import ConfusionSpace, offdiag, offdiag_matrix

MAX_COLUMNS = 60


def _vertex(space: ConfusionSpace, prices) -> np.ndarray:
    """Off-diagonal confusions of the rule maximising <prices, c> (a vertex of C)."""
    return offdiag(space.confusion(space.bayes_rule(offdiag_matrix(prices, space.n_classes))))


def longest_step(space: ConfusionSpace, direction, rel_tol: float = 1e-3) -> float:
    """max t such that o + t * direction is a reachable off-diagonal confusion (column generation).

    The program's t is always reachable (a certified lower bound); the best new column's
    reduced cost bounds what is left (t* <= t + gap), and the search stops once that is
    below ``rel_tol`` * t, when the pricing returns a rule already held, or after
    ``MAX_COLUMNS`` rules (t is then a little short of the optimum, and still reachable)."""
    o, u = space.center, np.asarray(direction, float)
    columns = [offdiag(c) for c in space.trivial]  # o is their mean: t = 0 is feasible
    t = 0.0
    for _ in range(MAX_COLUMNS):
        p = np.array(columns).T  # (q, M)
        a_eq = np.vstack([np.hstack([p, -u[:, None]]), np.hstack([np.ones(p.shape[1]), [0.0]])])
        b_eq = np.concatenate([o, [1.0]])
        cost = np.zeros(p.shape[1] + 1)
        cost[-1] = -1.0
        res = linprog(cost, A_eq=a_eq, b_eq=b_eq, bounds=[(0, None)] * (p.shape[1] + 1), method="highs")
        if res.status != 0:
            raise RuntimeError(f"the radius program failed: {res.message}")
        t = float(res.x[-1])
        duals = res.eqlin.marginals
        y, z = duals[:-1], duals[-1]
        new = _vertex(space, y)
        gap = new @ y + z
        if gap <= max(rel_tol * t, 1e-12) or any(np.array_equal(new, c) for c in columns):
            break
        columns.append(new)
    return t


def sphere_radius(space: ConfusionSpace, signs=(-1.0,)) -> tuple[float, np.ndarray]:
    """(lambda, steps): the certified radius and each (sign, cell) step t (array (len(signs), q))."""
    q = space.q
    steps = np.array([[longest_step(space, s * np.eye(q)[j]) for j in range(q)] for s in signs])
    return float(steps.min() / np.sqrt(q)), steps
