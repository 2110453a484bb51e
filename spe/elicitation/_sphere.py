"""Algorithm 2 (LPM elicitation): coordinate-wise search on a sphere inside the confusions.

The off-diagonal confusions C are convex but not strictly so (flat pieces), so the
boundary search of the diagonal case does not apply. Instead the queries live on a sphere
S of radius lambda centred at o, the uniformly random classifier, that fits inside C
(``_radius``); a linear metric with unit weights a peaks on it at
o + lambda a (Lemma 1). Points of its lower part (a <= 0) are written with q - 1 angles,
theta_j in [pi/2, pi] and the primary angle in [pi, 3 pi / 2]:

    a_i = sin(theta_1) ... sin(theta_{i-1}) cos(theta_i),    a_q = sin(theta_1) ... sin(theta_{q-1})

and each angle in turn is found by the binary search of ``_search``,
the others held fixed (T = 2 (q - 1) searches, the paper's two cycles).

**Order and start (choices made here).** The angles are searched from the last to the
first. For a linear metric the best last angle does not depend on the others (they only
scale the (a_{q-1}, a_q) part), the best second-to-last depends only on the last, and so on:
in this order one cycle is exact up to the search tolerance, and the second refines what
noise disturbed. The start is the sphere point of equal costs a = -(1, ..., 1) / sqrt(q),
not an arbitrary corner: the first searches then compare points that differ by as much as
the metric allows (with the paper's angles started mid-quadrant, sin(3 pi / 4)^10 = 0.03
shrinks the differences of a 12-cell search thirtyfold, under any noise).
"""

from __future__ import annotations

import numpy as np

from ._search import search_best
from ._space import ConfusionSpace


def angle_bounds(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the q - 1 angles of the lower part of the sphere."""
    lo = np.full(q - 1, np.pi / 2)
    hi = np.full(q - 1, np.pi)
    lo[-1], hi[-1] = np.pi, 1.5 * np.pi
    return lo, hi


def unit_vector(theta) -> np.ndarray:
    """Hyperspherical coordinates (..., q - 1) -> unit vectors (..., q)."""
    th = np.asarray(theta, float)
    sines = np.sin(th)
    prefix = np.cumprod(np.concatenate([np.ones(th.shape[:-1] + (1,)), sines], axis=-1), axis=-1)
    out = prefix.copy()
    out[..., :-1] *= np.cos(th)
    return out


def angles_of(a) -> np.ndarray:
    """The angles of a unit vector with every entry <= 0 (the inverse of :func:`unit_vector`)."""
    a = np.asarray(a, float)
    q = a.size
    tail = np.sqrt(np.cumsum(a[::-1] ** 2)[::-1])  # ||a_{i:}||
    theta = np.empty(q - 1)
    for i in range(q - 2):
        theta[i] = np.arccos(np.clip(a[i] / tail[i], -1, 1)) if tail[i] > 0 else 0.75 * np.pi
    last = np.arctan2(a[-1], a[-2])
    theta[-1] = last + 2 * np.pi if last < 0 else last
    lo, hi = angle_bounds(q)
    return np.clip(theta, lo, hi)


def start_angles(q: int) -> np.ndarray:
    """The angles of equal costs, a = -(1, ..., 1) / sqrt(q)."""
    return angles_of(-np.ones(q) / np.sqrt(q))


class AnglePath:
    """The sphere points z + sign * radius * a(theta) as one angle varies, the others fixed
    (z: ``centre``, default o)."""

    def __init__(self, space: ConfusionSpace, radius: float, theta, j: int, sign: float = 1.0, centre=None):
        self.space, self.radius, self.theta, self.j, self.sign = space, radius, np.array(theta, float), j, sign
        self.centre = space.center if centre is None else np.asarray(centre, float)
        lo, hi = angle_bounds(space.q)
        self.lo, self.hi = float(lo[j]), float(hi[j])

    def point(self, t) -> np.ndarray:
        th = self.theta.copy()
        th[self.j] = t
        return self.centre + self.sign * self.radius * unit_vector(th)

    def confusion(self, t) -> np.ndarray:
        return self.space.full_matrix(self.point(t))

    def key(self, t) -> float:
        return float(t)

    def plateau(self, t) -> tuple[float, float]:
        return float(t), float(t)


def sphere_search(space: ConfusionSpace, radius: float, ask, tolerance: float, cycles: int = 2,
                  worst: bool = False, label: str = "best", centre=None):
    """Coordinate-wise search of the angles (last to first, ``cycles`` times) on the sphere
    of ``radius`` around ``centre`` (default o).

    ``worst``: search the worst point of the opposite part of the sphere (z - radius a(theta),
    the rules' costs reversed). Returns (angles, searches).
    """
    theta = start_angles(space.q)
    searches = []
    sign = -1.0 if worst else 1.0
    for cycle in range(cycles):
        for j in reversed(range(space.q - 1)):
            path = AnglePath(space, radius, theta, j, sign, centre)
            res = search_best(path, ask, tolerance, name=f"{label}: angle {j + 1}, cycle {cycle + 1}", worst=worst)
            res.angle = j
            theta[j] = res.estimate
            searches.append(res)
    return theta, searches


def elicit_linear(space: ConfusionSpace, radius: float, ask, tolerance: float, cycles: int = 2):
    """Algorithm 2: (unit weights a <= 0 of the off-diagonal confusions, angles, searches)."""
    theta, searches = sphere_search(space, radius, ask, tolerance, cycles)
    return unit_vector(theta), theta, searches
