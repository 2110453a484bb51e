"""Plateaus of a class pair's face: where Algorithm 1 cannot see, and how chords see.

The paper's Assumption 1 (every likelihood ratio eta_i / eta_j takes every value in
[0, inf)) makes each face D_{r,i} strictly convex, so each share m has its own boundary
point. It fails on every real data set and even on the paper's own synthetic classes: with
X in [-1, 1] and eta_i proportional to 1 / (1 + exp(p_i x)) the ratio eta_1 / eta_2 only
spans [0.77, 5.7], so every m above 0.57 gives the same rule, "always class 1". A metric
whose best share m* = a_r / (a_r + a_i) lies in such a plateau cannot be told apart from
the others there by comparing boundary points: they all compare the same matrices.

Comparing two *other* matrices can. If x - y points along u_m = (1 - m, -m) (in the
(d_r, d_i) plane: more of class r right, less of class i), the oracle prefers x exactly
when <a, u_m> > 0, that is when m < m*, whatever the metric's scale. So once the search
has found the best vertex and its plateau [lo, hi] (which holds m*), a plain bisection on
m settles m* to the tolerance, one question per halving. x and y are the ends of the chord
of the face through its centre (the random rule "r or i, half each") along u_m: two
randomised classifiers, each a mixture of two neighbouring vertices of the face's polygon,
as far apart as the face allows in that direction (the larger the difference, the less
noise matters). The difference is linear in m - m*, not quadratic as near a peak.

The searches that end on a plateau stop early, and the bisection needs one question per
halving, so a pair never asks more than the paper's 4 ceil(log2(1/eps)).
"""

from __future__ import annotations

import numpy as np

from ._search import Round, SearchResult, max_queries
from ._space import PairBoundary


class FacePolygon:
    """The face D_{r,i} as a convex polygon: its vertices in order around it (upper boundary
    from "always i" to "always r", then the lower boundary back), each with its (K, K) matrix."""

    def __init__(self, boundary: PairBoundary):
        b = boundary
        s = b.switch
        cuts = np.concatenate([[0], np.flatnonzero(np.diff(s) > 0) + 1, [s.size]])
        cum, total = b.cumulative[cuts], b.cumulative[-1]
        upper = np.stack([cum, total - cum], axis=1)  # (cuts, 2, K): columns r and i of each vertex
        lower = np.stack([total - cum, cum], axis=1)[1:-1]
        self.columns = np.concatenate([upper, lower])  # (V, 2, K), around the polygon
        self.points = np.stack([self.columns[:, 0, b.r], self.columns[:, 1, b.i]], axis=1)  # (d_r, d_i)
        self.r, self.i, self.k = b.r, b.i, b.space.n_classes
        self.centre = 0.5 * (self.points[0] + self.points[cuts.size - 1])
        self.edges = np.roll(self.points, -1, axis=0) - self.points

    def exit(self, z, u) -> tuple[float, int, float]:
        """Where the ray z + t u leaves the polygon: (t, edge index, fraction along the edge)."""
        p0, e = self.points, self.edges
        den = e[:, 0] * u[1] - e[:, 1] * u[0]
        w = p0 - z
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (e[:, 0] * w[:, 1] - e[:, 1] * w[:, 0]) / den
            f = (u[0] * w[:, 1] - u[1] * w[:, 0]) / den
        ok = np.isfinite(t) & (t >= 0) & (f >= -1e-12) & (f <= 1 + 1e-12)
        if not ok.any():
            return 0.0, 0, 0.0
        j = int(np.flatnonzero(ok)[np.argmax(t[ok])])
        return float(t[j]), j, float(np.clip(f[j], 0.0, 1.0))

    def matrix(self, edge: int, fraction: float) -> np.ndarray:
        """The (K, K) confusion matrix of the point ``fraction`` along ``edge``."""
        cols = (1 - fraction) * self.columns[edge] + fraction * self.columns[(edge + 1) % len(self.columns)]
        out = np.zeros((self.k, self.k))
        out[:, self.r], out[:, self.i] = cols[0], cols[1]
        return out

    def chord(self, m, through=None) -> tuple[np.ndarray, np.ndarray]:
        """(x, y): the ends of the chord through ``through`` (default: the centre) along
        (1 - m, -m), x the end towards +."""
        z = self.centre if through is None else np.asarray(through, float)
        u = np.array([1.0 - m, -m])
        u /= np.linalg.norm(u)
        _, e1, f1 = self.exit(z, u)
        _, e2, f2 = self.exit(z, -u)
        return self.matrix(e1, f1), self.matrix(e2, f2)

    def towards(self, z, m, share: float) -> np.ndarray:
        """The point ``share`` of the way from z to the boundary along the normal (m, 1 - m)."""
        u = np.array([m, 1.0 - m])
        u /= np.linalg.norm(u)
        return np.asarray(z, float) + share * self.exit(z, u)[0] * u


def polygon_of(boundary: PairBoundary) -> FacePolygon:
    """The face's polygon, built once per boundary."""
    if "polygon" not in boundary.derived:
        boundary.derived["polygon"] = FacePolygon(boundary)
    return boundary.derived["polygon"]


def bisect_chords(polygon: FacePolygon, result: SearchResult, ask, tolerance: float, through=None,
                  budget=None) -> SearchResult:
    """Bisect ``result.interval`` for the normal m of the level line through ``through`` (in
    place), while ``result`` has asked fewer than ``budget`` questions. Each question "is x
    better than y?" (x - y along (1 - m, -m)) is recorded as a round whose answer True means
    the level line's m is above m."""
    lo, hi = result.interval
    while hi - lo > tolerance and (budget is None or result.n_queries < budget):
        m = 0.5 * (lo + hi)
        x, y = polygon.chord(m, through)
        too_close = getattr(ask, "too_close", None)
        gap = float(np.max(np.abs(np.diagonal(x) - np.diagonal(y))))
        if gap <= 1e-15 or (too_close is not None and too_close(gap)):  # a degenerate face, or below resolution
            break
        above = bool(ask(x, y, result.name + " (chord)"))
        result.rounds.append(Round((m,), [], [above], kind="above"))
        lo, hi = (m, hi) if above else (lo, m)
    result.interval = (lo, hi)
    return result


def refine_on_plateau(boundary: PairBoundary, result: SearchResult, ask, tolerance: float) -> None:
    """Bisect a search's final plateau with chords through the face's centre (in place),
    within the paper's count for the whole search."""
    bisect_chords(polygon_of(boundary), result, ask, tolerance, budget=max_queries(1.0, tolerance))


def level_search(boundary: PairBoundary, ask, tolerance: float, through, name: str) -> SearchResult:
    """The normal m of the oracle's level line through the point ``through`` of the face
    (a linear-fractional metric's level sets are lines): chord bisection on [0, 1]."""
    return bisect_chords(polygon_of(boundary), SearchResult(name, 0.0, 1.0, (0.0, 1.0)), ask, tolerance, through)
