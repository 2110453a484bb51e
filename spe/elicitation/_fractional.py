"""Linear-fractional metrics: two linear elicitations, one at the best and one at the worst.

The paper defers the details (its appendices E.1 and E.2); this is our design, from the
geometry it sketches (section 7 and Figure 2(c)).

**What comparisons can identify.** A linear-fractional metric psi(x) = N(x) / D(x) (x the
diagonal or off-diagonal confusions, N and D affine, D > 0 on every reachable matrix) has
hyperplanes as level sets: {psi = v} = {N - v D = 0}. They all contain A = {N = 0, D = 0}
and form the *pencil* spanned by N and D. Pairwise answers only reveal the order of
matrices, and (alpha psi + beta) / (gamma psi + delta) orders them the same way for every
increasing Moebius map: only the pencil (with its orientation) is identifiable, and it is
all that decisions need. We report one canonical member (below).

**The questions.** The level hyperplane through the metric's best point of a convex query
set touches the set there, so a linear elicitation of its slope gives one member of the
pencil; the one through the worst point gives another, and two members span the pencil:
twice the questions of the linear case.

* ``diagonal-fractional``: two level lines on each pair's face, the champion pairs of
  ``_diagonal``. On finite data a face's best and worst points are often
  its corners ("always r"), whose tangent slopes no comparison of boundary points can fix
  (``_chords``), so instead of tangents at the best and worst point we
  take the level lines through two interior points, found exactly by chord bisection:
  through the face's centre z1 (the rule "r or i, half each"), and through z2, 80% of the
  way from z1 to the boundary along that line's normal (a better level; far from z1, so the
  two lines' meeting point is well determined, not so close to the boundary that chords
  through z2 get short). Any two level lines span
  the face's pencil. In the face's plane they meet at the face's point of A (projectively:
  parallel lines, a linear metric, meet at infinity). With homogeneous coordinates P_e of
  that point, every form X = (x_1..x_K, x_0) of the pencil satisfies
  P_e[0] x_parent + P_e[1] x_child + P_e[2] x_0 = 0: K - 1 equations in K + 1 unknowns,
  whose 2-dimensional null space is the pencil. Each level line costs
  ceil(log2(1/eps)) questions: 2 (K - 1) ceil(log2(1/eps)) in all, half of Algorithm 1's
  count (the paper states twice the linear count).
* ``linear-fractional``: Algorithm 2's sphere search for the best point o + lambda w (the
  tangent hyperplane has normal w), then the same search on a second sphere, centred half
  way from o to the reachable matrix best for the linear metric w (radius lambda / 2: by
  convexity its lower part is reachable too); the two tangent hyperplanes span the pencil.
  Not the paper's best and worst point of one sphere: their level sets are
  nearly parallel (the normals differ by (psi_best - psi_worst) b, b the denominator's
  weights, and psi changes by only ~2 lambda |grad psi| over the sphere, lambda = 0.004 on
  the paper's classes), so the pencil's second direction was set by the angles' search
  tolerance, not by the metric: 70-78% of random metrics were within 2 eps, fewer than the
  linear approximation at o alone. The second sphere sits where psi is much larger, and
  the two normals differ by a share of psi's whole range.

**The canonical metric.** Of the forms in the pencil, two are >= 0 on every reachable
matrix and vanish at a boundary point: L_best (zero at the best matrix) and L_worst (zero
at the worst). We report psi(x) = l_w(x) / (l_w(x) + l_b(x)) with l = L / L(o), o the
uniformly random classifier: 0 at the worst reachable matrix, 1 at the best, 1/2 at o,
whatever metric of the pencil the user holds. Its best rule is the Bayes rule of the
linear metric -L_best (the level set touching at the optimum; Narasimhan et al. 2015), whose
weights (l1-normalised for the diagonal, l2 for off-diagonal) are the reported ``weights``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..exceptions import InconsistentAnswersWarning
from ._chords import level_search, polygon_of
from ._diagonal import weights_from_shares
from ._families import Fractional
from ._space import ConfusionSpace, offdiag, offdiag_matrix
from ._sphere import sphere_search, unit_vector

MAX_ITERATIONS = 100
#: Where the second level line of a face passes: this share of the way from the centre to the boundary.
SECOND_LEVEL = 0.8
#: linear-fractional: the second sphere's centre, this share of the way from o to the rule best
#: for the first sphere's tangent (its radius: the rest of the share times the first radius).
FAR = 0.5


@dataclass(frozen=True)
class Sphere:
    """The query sphere z + radius * a(theta) around ``centre`` z (its lower part, a <= 0)."""

    centre: np.ndarray
    radius: float

    def point(self, theta) -> np.ndarray:
        return self.centre + self.radius * unit_vector(theta)


def _utility(x, space: ConfusionSpace, diagonal: bool) -> np.ndarray:
    return np.diag(x) if diagonal else offdiag_matrix(x, space.n_classes)


def features(matrix, diagonal: bool) -> np.ndarray:
    m = np.asarray(matrix, float)
    return np.diagonal(m, axis1=-2, axis2=-1) if diagonal else offdiag(m)


def _line(share, point) -> np.ndarray:
    """Homogeneous line through ``point`` (2,) with normal (share, 1 - share)."""
    normal = np.array([share, 1.0 - share])
    return np.append(normal, -normal @ point)


@dataclass
class FaceLevels:
    """Two level lines on the face of (parent, child): through ``points[j]`` (in the
    (d_parent, d_child) plane) with normal (m, 1 - m), m from ``searches[j]``."""

    parent: int
    child: int
    points: tuple
    searches: tuple


def face_levels(space: ConfusionSpace, ask, tolerance: float) -> list[FaceLevels]:
    """Two level lines per face, pairs chosen with the running champion of Algorithm 1."""
    ref, out = 0, []
    for i in range(1, space.n_classes):
        boundary = space.pair(ref, i, True)
        polygon = polygon_of(boundary)
        z1 = polygon.centre
        first = level_search(boundary, ask, tolerance, z1, f"classes {ref} vs {i}: level through the centre")
        z2 = polygon.towards(z1, first.estimate, SECOND_LEVEL)
        second = level_search(boundary, ask, tolerance, z2, f"classes {ref} vs {i}: a better level")
        out.append(FaceLevels(ref, i, (z1, z2), (first, second)))
        if first.estimate < 0.5:
            ref = i
    return out


def face_pencil(space: ConfusionSpace, faces, shares) -> np.ndarray:
    """(2, K + 1) orthonormal basis of the pencil from each face's two level lines
    (``shares``: (len(faces), 2) normals m)."""
    k = space.n_classes
    rows = np.zeros((len(faces), k + 1))
    for e, p in enumerate(faces):
        lines = [_line(shares[e][j], p.points[j]) for j in range(2)]
        meet = np.cross(lines[0], lines[1])
        rows[e, [p.parent, p.child, k]] = meet / np.linalg.norm(meet)
    return np.linalg.svd(rows)[2][-2:]


def far_sphere(space: ConfusionSpace, first: Sphere, theta) -> Sphere:
    """The second sphere: centred :data:`FAR` of the way from the first one's centre to the
    reachable matrix that maximises the linear metric tangent at its best point ``theta``,
    radius (1 - FAR) times the first's. The map x -> (1 - FAR) x + FAR c takes the first
    sphere's lower part onto the second's, and keeps C in C: certified as the first."""
    rule = space.bayes_rule(offdiag_matrix(unit_vector(theta), space.n_classes))
    target = offdiag(space.confusion(rule))
    return Sphere(first.centre + FAR * (target - first.centre), (1 - FAR) * first.radius)


def sphere_pencil(spheres, thetas) -> np.ndarray:
    """(2, q + 1) orthonormal basis of the pencil from each sphere's best point ``thetas``:
    the level hyperplane through it has the sphere's normal there."""
    forms = []
    for sphere, theta in zip(spheres, thetas):
        w = unit_vector(theta)
        forms.append(np.append(w, -w @ sphere.point(theta)))
    return np.linalg.qr(np.array(forms).T)[0].T


def _argmax_image(space, basis, normal, diagonal) -> np.ndarray:
    """Features of the reachable matrix maximising <normal, (F1(x), F2(x))> (a Bayes rule)."""
    form = normal[0] * basis[0] + normal[1] * basis[1]
    rule = space.bayes_rule(_utility(form[:-1], space, diagonal))
    return features(space.confusion(rule), diagonal)


def _extreme_angle(space, basis, diagonal, start: float, side: float) -> float:
    """The largest (``side=1``) or smallest (``side=-1``) angle of (F1(x), F2(x)) over
    reachable x, from a reachable point's angle ``start``: Dinkelbach's iteration (the
    rule that most beats the current ray becomes the next ray; a few Bayes rules)."""
    phi = start
    for _ in range(MAX_ITERATIONS):
        normal = side * np.array([-np.sin(phi), np.cos(phi)])  # points to the side of larger |angle - start|
        x = _argmax_image(space, basis, normal, diagonal)
        image = basis @ np.append(x, 1.0)
        if normal @ image <= 1e-12 * np.linalg.norm(image):
            return phi
        c, s = np.cos(phi), np.sin(phi)
        step = np.arctan2(c * image[1] - s * image[0], c * image[0] + s * image[1])
        phi += step
        if abs(phi - start) >= np.pi:
            break
    raise ValueError("no linear-fractional metric with a positive denominator fits these answers: the level sets "
                     "they define meet inside the reachable confusion matrices")


def canonical(space: ConfusionSpace, basis, better, worse, diagonal: bool) -> Fractional:
    """The canonical metric of the pencil ``basis`` oriented so that ``better`` (features of a
    matrix the oracle prefers) beats ``worse`` (see the module docstring)."""
    image = basis @ np.append(better, 1.0)
    start = float(np.arctan2(image[1], image[0]))
    hi = _extreme_angle(space, basis, diagonal, start, 1.0)
    lo = _extreme_angle(space, basis, diagonal, start, -1.0)
    forms = [np.sin(hi) * basis[0] - np.cos(hi) * basis[1], np.cos(lo) * basis[1] - np.sin(lo) * basis[0]]
    centre = np.append(np.diagonal(space.trivial.mean(axis=0)) if diagonal else space.center, 1.0)
    best, worst = [f / (f @ centre) for f in forms]  # zero on the largest angle's ray, then the smallest's
    if _value(worst, best, better) < _value(worst, best, worse):
        best, worst = worst, best
    tangent = -best[:-1]
    tangent = tangent / (np.abs(tangent).sum() if diagonal else np.linalg.norm(tangent))
    return Fractional(worst / 2, (worst + best) / 2, space.n_classes, diagonal=diagonal, tangent=tangent)


def _value(worst, best, x) -> float:
    xt = np.append(x, 1.0)
    return float((worst @ xt) / ((worst + best) @ xt))


def canonical_of(metric: Fractional, space: ConfusionSpace) -> Fractional:
    """The canonical form (and tangent weights) of a known linear-fractional metric."""
    basis = np.linalg.qr(np.array([metric.numerator, metric.denominator]).T)[0].T
    top = space.confusion(np.argmax(space.eta, axis=1))
    candidates = np.concatenate([space.trivial, space.trivial.mean(axis=0)[None], top[None]])
    values = metric(candidates)
    better = features(candidates[int(np.argmax(values))], metric.diagonal)
    worse = features(candidates[int(np.argmin(values))], metric.diagonal)
    return canonical(space, basis, better, worse, metric.diagonal)


def orientation_points(space: ConfusionSpace, diagonal: bool, faces=None, spheres=None, thetas=None):
    """Features of a matrix the oracle prefers and of one it does not (on the first face:
    z2 lies on the better side of z1's level line; on the first sphere: its best point
    and its centre, on the worse side of the level hyperplane touching the sphere there)."""
    if diagonal:
        f = faces[0]
        better, worse = np.zeros(space.n_classes), np.zeros(space.n_classes)
        better[[f.parent, f.child]], worse[[f.parent, f.child]] = f.points[1], f.points[0]
        return better, worse
    return spheres[0].point(thetas[0]), spheres[0].centre


def linear_fallback(space: ConfusionSpace, weights, diagonal: bool) -> Fractional:
    """A linear metric written as a (degenerate) linear-fractional one: numerator <w, x>,
    denominator 1, tangent w."""
    dim = space.n_classes if diagonal else space.q
    return Fractional(np.append(weights, 0.0), np.eye(dim + 1)[-1], space.n_classes, diagonal=diagonal,
                      tangent=weights)


def _canonical_or_linear(space, basis, better, worse, diagonal, weights) -> Fractional:
    try:
        return canonical(space, basis, better, worse, diagonal)
    except ValueError as exc:
        warnings.warn(f"{exc}. Returned instead: the linear metric of the first level sets found (the "
                      "answers are noisy, or the metric is not linear-fractional).", InconsistentAnswersWarning,
                      stacklevel=4)
        return linear_fallback(space, weights, diagonal)


def elicit_fractional(space: ConfusionSpace, ask, tolerance: float, diagonal: bool, radius=None, cycles: int = 2):
    """(canonical metric, searches): faces (diagonal) or (spheres, best angles, searches).

    When no valid linear-fractional metric fits the answers (noise: the level sets they
    give meet inside the reachable matrices), the linear metric of the level lines through
    the faces' centres (diagonal; a DLPM through the champion chain) or of the first
    sphere's best point is returned, with an :class:`InconsistentAnswersWarning`.
    """
    if diagonal:
        faces = face_levels(space, ask, tolerance)
        basis = face_pencil(space, faces, [[s.estimate for s in f.searches] for f in faces])
        better, worse = orientation_points(space, True, faces=faces)
        linear = weights_from_shares(faces, [f.searches[0].estimate for f in faces])
        return _canonical_or_linear(space, basis, better, worse, True, linear), faces
    first = Sphere(space.center, radius)
    theta_first, searches_first = sphere_search(space, radius, ask, tolerance, cycles, label="best near o")
    second = far_sphere(space, first, theta_first)
    theta_second, searches_second = sphere_search(space, second.radius, ask, tolerance, cycles,
                                                  label="best further on", centre=second.centre)
    spheres, thetas = (first, second), (theta_first, theta_second)
    basis = sphere_pencil(spheres, thetas)
    better, worse = orientation_points(space, False, spheres=spheres, thetas=thetas)
    metric = _canonical_or_linear(space, basis, better, worse, False, unit_vector(theta_first))
    return metric, (spheres, thetas, searches_first + searches_second)
