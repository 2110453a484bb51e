"""A posterior over the metric from every answer, so the elicited metric has an interval.

The paper returns a point. Here each answer is an observation: P(the oracle prefers the
first | its metric) under an :class:`AnswerModel`, and the prior is uniform on the simplex
(DLPM) or on the sphere's negative orthant (LPM).

* ``exact``: right, except for a ``lapse`` share of answers given at random (keeps one
  slip from excluding the truth);
* ``threshold`` (Definition 7): right when the two values differ by more than ``scale``
  (eps_Omega), a coin flip otherwise;
* ``bradley-terry``: P(first) = 1 / (1 + exp(-(m(C1) - m(C2)) / scale)).

Samplers:

* DLPM, importance sampling. Every question of Algorithm 1 compares two matrices of one
  pair's face, so for the exact model the likelihood factorises over the pairs' shares
  m_e = a_parent / (a_parent + a_child) and each share's posterior is computed on a grid.
  Draws of the shares give simplex weights through the champion chain
  (:func:`~spe.elicitation.weights_from_shares`), and importance weights correct
  for the Dirichlet prior (density prod_i a_i in log-ratio coordinates) and, for the noisy
  models, for each pair's scale a_parent + a_child, held at the point estimate's in the
  proposal: the target is the exact posterior of all answers.
* LPM, emcee (affine-invariant ensemble) on the q - 1 angles, prior density
  prod_j sin(theta_j)^(q - 1 - j) (the sphere's surface element), started around the point.
* Linear-fractional: each search's answers locate the point it searched for (the normal of a
  level line, or an angle); those one-dimensional posteriors are drawn independently and
  every draw is turned into a canonical metric (``_fractional``). The sphere searches'
  lapse is learned, each search's on its own (a uniform mixture over :data:`LAPSES`: four
  questions per halving, so contradictions show); the chord bisections of the diagonal
  family ask one question per halving, whose answers "every answer at random" explains as
  well as "every answer right", so they keep the typical lapse. This ignores what a noisy
  answer's size would say and is approximate.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

import numpy as np

from ..metrics import band
from ._diagonal import weights_from_shares
from ._fractional import canonical, face_pencil, orientation_points, sphere_pencil
from ._search import location_log_likelihood
from ._sphere import angle_bounds, unit_vector

NOISE_MODELS = ("exact", "threshold", "bradley-terry")
#: Metric differences below this are rounding: an exact oracle's answer about them is a coin flip.
TIE = 1e-12
#: Fewest cells of a DLPM pair's proposal grid; 40 per tolerance width otherwise (a search's answers jump
#: no closer than about tolerance / 8 apart, and importance weights correct what the grid leaves).
GRID_CELLS = 1024
#: The lapse (share of answers given at random) when it is learned from the answers: a uniform
#: prior on these values, 1.0 being "every answer at random" (the answers then say nothing).
LAPSES = (0.01, 0.03, 0.1, 0.3, 1.0)
#: "About the same" answers: the person calls two outcomes the same when their metric values
#: differ by at most tau (per item, weights on the family's scale); tau unknown, one per
#: person, log-uniform on this range (0.01 to 10 per 1,000 items).
TIE_RANGE = (1e-5, 1e-2)
#: Scales a_parent + a_child a DLPM pair's proposal spreads half its mass over (see diagonal_posterior).
SCALES = (0.03, 0.1, 0.2, 0.4, 0.7, 1.0)
#: The lapse a search's location likelihood uses when the lapse is learned.
TYPICAL_LAPSE = 0.01


@dataclass(frozen=True)
class AnswerModel:
    """How an oracle's answers relate to its metric (see the module docstring).

    ``lapse=None``: the share of random answers is learned from the answers (a uniform prior
    on :data:`LAPSES`). ``ties=True``: the oracle may answer "about the same"
    (:data:`~spe.elicitation.ABOUT_THE_SAME`) when the values differ by at most a width it
    does not state (a log-uniform prior on :data:`TIE_RANGE`); its other answers then say the
    values differ by more.

    Examples
    --------
    >>> from spe.elicitation import AnswerModel
    >>> model = AnswerModel("threshold", scale=0.01, lapse=0.02)
    >>> model.prob_first([0.05, 0.005, -0.05]).round(2)  # decided, a coin flip within the scale, decided
    array([0.99, 0.5 , 0.01])
    """

    kind: str = "exact"
    scale: float = 0.0
    lapse: float | None = None
    ties: bool = False

    @property
    def lapses(self) -> tuple:
        return LAPSES if self.lapse is None else (self.lapse,)

    @property
    def typical_lapse(self) -> float:
        return TYPICAL_LAPSE if self.lapse is None else self.lapse

    def with_ties(self) -> "AnswerModel":
        return replace(self, ties=True)

    def _sure_first(self, d) -> np.ndarray:
        """P(first preferred | diff) of a decided answer, before lapses and ties."""
        if self.kind == "exact":  # differences at rounding level say nothing (the oracle summed otherwise)
            return np.where(d > TIE, 1.0, np.where(d < -TIE, 0.0, 0.5))
        if self.kind == "threshold":
            return np.where(d > self.scale, 1.0, np.where(d < -self.scale, 0.0, 0.5))
        return 0.5 * (1.0 + np.tanh(0.5 * d / self.scale))

    def prob_first(self, diff) -> np.ndarray:
        """P(the first matrix is preferred) given metric(first) - metric(second), no ties,
        at the typical lapse."""
        lapse = self.typical_lapse
        return lapse / 2 + (1 - lapse) * self._sure_first(np.asarray(diff, float))

    def log_likelihood(self, diff, votes, repeats: int = 1, ties=None) -> np.ndarray:
        """Sum over the last axis of log P(answers | diff): ``votes`` of ``repeats`` for the
        first, ``ties`` (if any) "about the same", the rest for the second; a mixture over the
        unknown lapse (and tie width)."""
        d = np.asarray(diff, float)
        votes = np.asarray(votes, float)
        ties = np.zeros_like(votes) if ties is None else np.asarray(ties, float)
        second = repeats - votes - ties
        if not self.ties and np.any(ties > 0):
            raise ValueError("'about the same' answers need an answer model with ties=True")
        sure = self._sure_first(d)
        parts = []
        for lapse in self.lapses:
            if self.ties:
                parts.append(_tie_log_likelihood(d, sure, votes, ties, second, lapse))
            else:
                parts.append(np.sum(votes * np.log(lapse / 2 + (1 - lapse) * sure)
                                    + second * np.log(lapse / 2 + (1 - lapse) * (1 - sure)), axis=-1))
        return _log_mean_exp(np.stack(parts, axis=-1))

    def describe(self) -> str:
        lapse = f"lapse learned from the answers (prior on {LAPSES})" if self.lapse is None else f"lapse {self.lapse:g}"
        scale = f", scale {self.scale:g}" if self.kind != "exact" else ""
        return f"{self.kind}{scale}, {lapse}" + (", 'about the same' answers" if self.ties else "")


def _log_mean_exp(x) -> np.ndarray:
    top = np.max(x, axis=-1, keepdims=True)
    return top[..., 0] + np.log(np.mean(np.exp(x - top), axis=-1))


def _tie_log_likelihood(d, sure, votes, ties, second, lapse) -> np.ndarray:
    """log P(answers | diff, lapse) with "about the same" answers, the tie width tau shared by
    every answer and integrated out exactly under its log-uniform prior on :data:`TIE_RANGE`:
    each answer's probability steps once, at tau = |d| (below: decided, above: the same), so
    the likelihood is constant between the sorted |d| and the integral a sum over them."""
    rand = lapse / 3
    decided = (votes * np.log(rand + (1 - lapse) * sure) + second * np.log(rand + (1 - lapse) * (1 - sure))
               + ties * np.log(rand))
    same = (votes + second) * np.log(rand) + ties * np.log(rand + (1 - lapse))
    size = np.abs(d)
    order = np.argsort(size, axis=-1)
    step = np.take_along_axis(np.broadcast_to(same - decided, d.shape), order, axis=-1)
    start = np.sum(np.broadcast_to(decided, d.shape), axis=-1, keepdims=True)
    segments = np.concatenate([start, start + np.cumsum(step, axis=-1)], axis=-1)  # tau past the k smallest |d|
    lo, hi = np.log(TIE_RANGE[0]), np.log(TIE_RANGE[1])
    cuts = np.log(np.clip(np.take_along_axis(size, order, axis=-1), TIE_RANGE[0], TIE_RANGE[1]))
    edges = np.concatenate([np.full(start.shape, lo), cuts, np.full(start.shape, hi)], axis=-1)
    with np.errstate(divide="ignore"):
        log_mass = np.log(np.diff(edges, axis=-1) / (hi - lo))
    x = segments + log_mass
    top = np.max(x, axis=-1, keepdims=True)
    return top[..., 0] + np.log(np.sum(np.exp(x - top), axis=-1))


def answer_model(noise="exact", noise_scale=None, lapse=None) -> AnswerModel:
    """A validated :class:`AnswerModel` (``noise_scale`` defaults to 0.01 for the noisy ones;
    ``lapse=None``: learned from the answers)."""
    if noise not in NOISE_MODELS:
        raise ValueError(f"noise must be one of {NOISE_MODELS}, got {noise!r}")
    if lapse is not None and not (isinstance(lapse, numbers.Real) and 0 < lapse <= 1):
        raise ValueError(f"lapse (the share of answers given at random) must be None (learned) or in (0, 1], "
                         f"got {lapse!r}")
    scale = 0.01 if noise_scale is None and noise != "exact" else (noise_scale or 0.0)
    if not (isinstance(scale, numbers.Real) and scale >= 0) or (noise == "bradley-terry" and scale <= 0):
        raise ValueError(f"noise_scale must be a number >= 0 (> 0 for bradley-terry), got {noise_scale!r}")
    return AnswerModel(noise, float(scale), None if lapse is None else float(lapse))


@dataclass
class WeightPosterior:
    """Weighted draws of the metric's weights. ``fits=False``: no draw of the answers'
    posterior was a metric of the family (the point estimate stands in, and the elicited
    metric's rule falls back to top-1).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.elicitation import WeightPosterior
    >>> post = WeightPosterior(np.array([[0.2, 0.8], [0.4, 0.6]]), np.array([0.5, 0.5]), "example", 2.0)
    >>> post.mean()
    array([0.3, 0.7])
    """

    draws: np.ndarray
    weights: np.ndarray
    method: str
    ess: float
    fits: bool = True

    def interval(self, level=0.9) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed (lower, upper) interval of each weight."""
        _, lower, upper = band(self.draws, self.weights, level)
        return lower, upper

    def mean(self) -> np.ndarray:
        return self.weights @ self.draws


def _grid_proposal(loglik_of_shares, rng, n: int, cells: int):
    """n draws of m in [0, 1] from a piecewise-constant density on ``cells`` cells, each
    cell's mass prop. to the largest of exp(loglik) at its ends and middle (a likelihood
    that jumps inside a cell must not leave the proposal thinner than the target there),
    with the log density of each draw."""
    edges = np.linspace(0.0, 1.0, cells + 1)
    mids = 0.5 * (edges[1:] + edges[:-1])
    at_edges = loglik_of_shares(edges)
    logp = np.maximum(loglik_of_shares(mids), np.maximum(at_edges[:-1], at_edges[1:]))
    p = np.exp(logp - logp.max())
    p /= p.sum()
    cell = rng.choice(cells, size=n, p=p)
    m = edges[cell] + rng.random(n) / cells
    return m, np.log(p[cell] * cells)


def diagonal_posterior(pairs, diffs, votes, repeats, model: AnswerModel, point, n: int, rng, tolerance: float,
                       ties=None):
    """Importance-sampled DLPM posterior (see the module docstring). ``diffs``: (questions, K)
    diagonal of first minus second; ``votes``: of ``repeats`` for the first (``ties``: "about
    the same"); ``point``: the point estimate (for the proposal's scales)."""
    ties = np.zeros_like(votes) if ties is None else ties
    cells = max(GRID_CELLS, int(40 / tolerance))
    shares, log_q = np.empty((n, len(pairs))), np.zeros(n)
    for e, p in enumerate(pairs):
        d = diffs[p.answers][:, [p.parent, p.child]]
        scale = point[p.parent] + point[p.child]
        # the answers' likelihood depends on the pair's scale a_parent + a_child unless only signs
        # count: half the proposal at the point's scale, half spread over scales (a proposal too
        # narrow where the point's scale is wrong would leave the importance weights degenerate)
        scales = [scale] if model.kind == "exact" and not model.ties else [scale] * len(SCALES) + list(SCALES)

        def loglik(m, d=d, scales=scales, ans=votes[p.answers], same=ties[p.answers]):
            along = np.outer(m, d[:, 0]) + np.outer(1 - m, d[:, 1])
            each = np.stack([model.log_likelihood(c * along, ans, repeats, same) for c in scales])
            top = each.max(axis=0)
            return top + np.log(np.mean(np.exp(each - top), axis=0))

        shares[:, e], lq = _grid_proposal(loglik, rng, n, cells)
        log_q += lq + np.log(shares[:, e]) + np.log1p(-shares[:, e])
    draws = weights_from_shares(pairs, shares)
    log_w = np.sum(np.log(draws), axis=1) + model.log_likelihood(draws @ diffs.T, votes, repeats, ties) - log_q
    return _weighted(draws, log_w, "importance sampling (grid proposals per class pair)")


def _weighted(draws, log_w, method) -> WeightPosterior:
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    return WeightPosterior(draws, w, method, float(1.0 / np.sum(w**2)))


def linear_posterior(theta_hat, widths, diffs, votes, repeats, model: AnswerModel, n: int, rng,
                     steps: int = 1500, ties=None) -> WeightPosterior:
    """emcee draws of the LPM weights (``diffs``: (questions, q) off-diagonal first minus
    second; ``votes``: of ``repeats`` for the first)."""
    import emcee

    dim = theta_hat.size
    lo, hi = angle_bounds(dim + 1)
    powers = np.arange(dim - 1, -1, -1.0)  # sin(theta_j)^(q - 1 - j), j = 1..q - 1

    def log_prob(thetas):
        inside = np.all((thetas >= lo) & (thetas <= hi), axis=1)
        out = np.full(thetas.shape[0], -np.inf)
        th = thetas[inside]
        prior = np.sum(powers * np.log(np.clip(np.sin(th), 1e-300, None)), axis=1)
        out[inside] = prior + model.log_likelihood(unit_vector(th) @ diffs.T, votes, repeats, ties)
        return out

    walkers = max(32, 2 * dim + 2)
    spread = np.maximum(np.asarray(widths, float), 1e-6) / 4
    start = np.clip(theta_hat + rng.standard_normal((walkers, dim)) * spread, lo + 1e-9, hi - 1e-9)
    sampler = emcee.EnsembleSampler(walkers, dim, log_prob, vectorize=True)
    sampler.random_state = np.random.RandomState(int(rng.integers(2**31 - 1))).get_state()  # seeded, not global
    sampler.run_mcmc(start, steps, progress=False)
    chain = sampler.get_chain(discard=steps // 2, flat=True)
    keep = chain[np.linspace(0, chain.shape[0] - 1, min(n, chain.shape[0])).astype(int)]
    draws = unit_vector(keep)
    return WeightPosterior(draws, np.full(len(draws), 1.0 / len(draws)), f"emcee ({walkers} walkers, {steps} steps)",
                           float(len(draws)))


def location_draws(search, n: int, rng, lapses) -> np.ndarray:
    """n draws of the point a search looked for, from its answers' location likelihood, a
    uniform mixture over ``lapses`` (each search's own lapse: answers that contradict each
    other make the larger lapses likely and widen the draws)."""
    cells = 2048
    edges = np.linspace(search.lo, search.hi, cells + 1)
    mids = 0.5 * (edges[1:] + edges[:-1])
    parts = []
    for lapse in np.atleast_1d(lapses):
        logp = location_log_likelihood(search, mids, lapse)
        if search.on_plateau:  # the best vertex's plateau is known, not asked
            a, b = search.interval
            logp = logp + np.where((mids >= a) & (mids <= b), 0.0, np.log(lapse))
        parts.append(logp)
    logp = _log_mean_exp(np.stack(parts, axis=-1))
    p = np.exp(logp - logp.max())
    p /= p.sum()
    cell = rng.choice(cells, size=n, p=p)
    return edges[cell] + rng.random(n) * (edges[1] - edges[0])


def fractional_posterior(space, diagonal: bool, searches, n: int, rng, lapses, point_metric,
                         spheres=None) -> tuple:
    """Draws of a linear-fractional metric's tangent weights (and the canonical metrics):
    each search's located point drawn independently, every draw made canonical. ``searches``:
    the faces (diagonal) or each sphere's angle searches of the last cycle (``spheres``);
    ``point_metric``: the elicited metric, which stands in when no draw is valid."""
    if diagonal:
        shares = np.stack([np.stack([location_draws(s, n, rng, lapses) for s in f.searches], axis=-1)
                           for f in searches], axis=1)  # (n, faces, 2)
        better, worse = orientation_points(space, True, faces=searches)
    else:
        thetas = [np.stack([location_draws(s, n, rng, lapses) for s in group], axis=-1) for group in searches]
    metrics = []
    for d in range(n):
        try:
            if diagonal:
                basis = face_pencil(space, searches, shares[d])
            else:
                drawn = (thetas[0][d], thetas[1][d])
                basis = sphere_pencil(spheres, drawn)
                better, worse = orientation_points(space, False, spheres=spheres, thetas=drawn)
            metrics.append(canonical(space, basis, better, worse, diagonal))
        except ValueError:  # this draw's level sets cut through reachable matrices: no such metric
            continue
    if not metrics:  # the answers fit no metric of the family: the point stands in, and the rule falls back
        point = np.asarray(point_metric.tangent, float)[None]
        return WeightPosterior(point, np.ones(1), f"none of {n} draws is a linear-fractional metric: the answers fit "
                               "none (the point estimate stands in)", 1.0, fits=False), [point_metric]
    draws = np.array([m.tangent for m in metrics])
    method = f"independent draws per search ({n - len(metrics)} of {n} invalid, dropped)"
    post = WeightPosterior(draws, np.full(len(draws), 1.0 / len(draws)), method, float(len(draws)))
    return post, metrics
