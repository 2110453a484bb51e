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
  every draw is turned into a canonical metric (``_fractional``). This
  ignores what a noisy answer's size would say and is approximate.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..metrics import band
from ._diagonal import weights_from_shares
from ._fractional import canonical, face_pencil, orientation_points, sphere_pencil
from ._search import location_log_likelihood
from ._sphere import angle_bounds, unit_vector

NOISE_MODELS = ("exact", "threshold", "bradley-terry")
#: Metric differences below this are rounding: an exact oracle's answer about them is a coin flip.
TIE = 1e-12
GRID_CELLS = 4096


@dataclass(frozen=True)
class AnswerModel:
    """How an oracle's answers relate to its metric (see the module docstring)."""

    kind: str = "exact"
    scale: float = 0.0
    lapse: float = 0.01

    def prob_first(self, diff) -> np.ndarray:
        """P(the first matrix is preferred) given metric(first) - metric(second)."""
        d = np.asarray(diff, float)
        if self.kind == "exact":  # differences at rounding level say nothing (the oracle summed otherwise)
            p = np.where(d > TIE, 1.0, np.where(d < -TIE, 0.0, 0.5))
        elif self.kind == "threshold":
            p = np.where(d > self.scale, 1.0, np.where(d < -self.scale, 0.0, 0.5))
        else:
            p = 0.5 * (1.0 + np.tanh(0.5 * d / self.scale))
        return self.lapse / 2 + (1 - self.lapse) * p

    def log_likelihood(self, diff, votes, repeats: int = 1) -> np.ndarray:
        """Sum over the last axis of log P(answers | diff): ``votes`` of ``repeats`` for the first."""
        p = self.prob_first(diff)
        votes = np.asarray(votes, float)
        return np.sum(votes * np.log(p) + (repeats - votes) * np.log1p(-p), axis=-1)


def answer_model(noise="exact", noise_scale=None, lapse=0.01) -> AnswerModel:
    """A validated :class:`AnswerModel` (``noise_scale`` defaults to 0.01 for the noisy ones)."""
    if noise not in NOISE_MODELS:
        raise ValueError(f"noise must be one of {NOISE_MODELS}, got {noise!r}")
    if not (isinstance(lapse, numbers.Real) and 0 < lapse < 1):
        raise ValueError(f"lapse (the share of answers given at random) must be in (0, 1), got {lapse!r}")
    scale = 0.01 if noise_scale is None and noise != "exact" else (noise_scale or 0.0)
    if not (isinstance(scale, numbers.Real) and scale >= 0) or (noise == "bradley-terry" and scale <= 0):
        raise ValueError(f"noise_scale must be a number >= 0 (> 0 for bradley-terry), got {noise_scale!r}")
    return AnswerModel(noise, float(scale), float(lapse))


@dataclass
class WeightPosterior:
    """Weighted draws of the metric's weights."""

    draws: np.ndarray
    weights: np.ndarray
    method: str
    ess: float

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


def diagonal_posterior(pairs, diffs, votes, repeats, model: AnswerModel, point, n: int, rng, tolerance: float):
    """Importance-sampled DLPM posterior (see the module docstring). ``diffs``: (questions, K)
    diagonal of first minus second; ``votes``: of ``repeats`` for the first; ``point``: the
    point estimate (for the proposal's scales)."""
    cells = max(GRID_CELLS, int(40 / tolerance))
    shares, log_q = np.empty((n, len(pairs))), np.zeros(n)
    for e, p in enumerate(pairs):
        d = diffs[p.answers][:, [p.parent, p.child]]
        scale = point[p.parent] + point[p.child]

        def loglik(m, d=d, scale=scale, ans=votes[p.answers]):
            return model.log_likelihood(scale * (np.outer(m, d[:, 0]) + np.outer(1 - m, d[:, 1])), ans, repeats)

        shares[:, e], lq = _grid_proposal(loglik, rng, n, cells)
        log_q += lq + np.log(shares[:, e]) + np.log1p(-shares[:, e])
    draws = weights_from_shares(pairs, shares)
    log_w = np.sum(np.log(draws), axis=1) + model.log_likelihood(draws @ diffs.T, votes, repeats) - log_q
    return _weighted(draws, log_w, "importance sampling (grid proposals per class pair)")


def _weighted(draws, log_w, method) -> WeightPosterior:
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    return WeightPosterior(draws, w, method, float(1.0 / np.sum(w**2)))


def linear_posterior(theta_hat, widths, diffs, votes, repeats, model: AnswerModel, n: int, rng,
                     steps: int = 1500) -> WeightPosterior:
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
        out[inside] = prior + model.log_likelihood(unit_vector(th) @ diffs.T, votes, repeats)
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


def location_draws(search, n: int, rng, lapse: float) -> np.ndarray:
    """n draws of the point a search looked for, from its answers' location likelihood."""
    cells = 2048
    edges = np.linspace(search.lo, search.hi, cells + 1)
    mids = 0.5 * (edges[1:] + edges[:-1])
    logp = location_log_likelihood(search, mids, lapse)
    if search.on_plateau:  # the best vertex's plateau is known, not asked
        a, b = search.interval
        logp = logp + np.where((mids >= a) & (mids <= b), 0.0, np.log(lapse))
    p = np.exp(logp - logp.max())
    p /= p.sum()
    cell = rng.choice(cells, size=n, p=p)
    return edges[cell] + rng.random(n) * (edges[1] - edges[0])


def fractional_posterior(space, diagonal: bool, searches, n: int, rng, lapse: float, radius=None) -> tuple:
    """Draws of a linear-fractional metric's tangent weights (and the canonical metrics):
    each search's located point drawn independently, every draw made canonical. ``searches``:
    the faces (diagonal) or (best angle searches, worst angle searches) of the last cycle."""
    if diagonal:
        shares = np.stack([np.stack([location_draws(s, n, rng, lapse) for s in f.searches], axis=-1)
                           for f in searches], axis=1)  # (n, faces, 2)
        better, worse = orientation_points(space, True, faces=searches)
    else:
        best, worst = searches
        thetas = [np.stack([location_draws(s, n, rng, lapse) for s in group], axis=-1) for group in (best, worst)]
    metrics = []
    for d in range(n):
        try:
            if diagonal:
                basis = face_pencil(space, searches, shares[d])
            else:
                basis = sphere_pencil(space, radius, thetas[0][d], thetas[1][d])
                better, worse = orientation_points(space, False, radius=radius, thetas=(thetas[0][d], thetas[1][d]))
            metrics.append(canonical(space, basis, better, worse, diagonal))
        except ValueError:  # this draw's level sets cut through reachable matrices: no such metric
            continue
    if not metrics:
        raise ValueError("no draw of the answers' posterior is a valid linear-fractional metric")
    draws = np.array([m.tangent for m in metrics])
    method = f"independent draws per search ({n - len(metrics)} of {n} invalid, dropped)"
    post = WeightPosterior(draws, np.full(len(draws), 1.0 / len(draws)), method, float(len(draws)))
    return post, metrics
