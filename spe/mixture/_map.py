"""MAP fit of the score mixture by multistart L-BFGS-B (docs/method.md, section 2a).

The optimiser works on the unconstrained log posterior density. Its gradient is a
central finite difference computed in *one* batched call of the model (2d + 1 rows),
which is far cheaper than d separate calls.

The orientation constraint is left out of the optimiser's objective (it is a step
function) and checked on each converged start instead: a start that ends with the
positive component below the negative one is recorded as "swapped" and not used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ..exceptions import FitError
from ..scores import ScoreData
from ._model import MixtureModel

_FD_STEP = 1e-5
_PENALTY = 1e20
_PENALTY_WEIGHT = 1e4
_ORIENTATION_MARGIN = 1e-3
#: A start ending with swapped components is replaced by the best oriented fit when that
#: is at most this many log-posterior units worse; beyond it the fit fails (FitError).
SWAP_TOLERANCE = 5.0
#: Multistart screening: every start first runs this many iterations, then only the best
#: :data:`SCREEN_KEEP` continue to convergence. Most starts reach the same mode, and full
#: runs from all of them dominated a fit's time on real scores (benchmarks/speed.py).
SCREEN_ITERATIONS = 15
SCREEN_KEEP = 2


@dataclass
class StartResult:
    """One L-BFGS-B run: where it started (``u_start``) and ended (``u``), its log
    posterior there, whether the components ended oriented, and the optimiser's verdict.

    ``polished``: the run that finished the best start on the exact scores.
    ``screened_out``: stopped after the first :data:`SCREEN_ITERATIONS` iterations because
    other starts were ahead (see :func:`fit_map`).
    """

    label: str
    u_start: np.ndarray
    u: np.ndarray
    log_posterior: float
    oriented: bool
    converged: bool
    n_iter: int
    message: str
    polished: bool = False
    screened_out: bool = False


@dataclass
class MapFit:
    """The MAP of one mixture model, with every start kept for inspection.

    Made by :func:`fit_map`; ``theta`` holds the natural parameters (``params`` by name),
    ``u`` the unconstrained ones, ``starts`` every L-BFGS-B run.

    Examples
    --------
    See :func:`fit_map`.
    """

    model: MixtureModel
    u: np.ndarray
    theta: np.ndarray
    log_posterior: float
    log_likelihood: float
    starts: list[StartResult] = field(default_factory=list)

    @property
    def params(self) -> dict:
        return self.model.as_dict(self.theta)

    @property
    def start_spread(self) -> float:
        """Largest gap in log posterior between the best start and other usable starts.

        Measured among the starts run to the end (on pooled scores when the search was
        pooled); starts screened out after a few iterations are not counted.
        """
        vals = [s.log_posterior for s in self.starts
                if s.oriented and not s.polished and not s.screened_out and np.isfinite(s.log_posterior)]
        return float(max(vals) - min(vals)) if vals else float("nan")


def _orientation_penalty(model, u):
    """Smooth penalty, zero once the positive median clears the negative one by a margin."""
    gap = model.median_gap(model.to_natural(u))
    shortfall = np.clip(_ORIENTATION_MARGIN - np.nan_to_num(gap, nan=-1.0), 0.0, 1e6)
    return _PENALTY_WEIGHT * shortfall**2


def _objective(model, data, scale, penalise_orientation=False, central=True):
    """f(u) and its finite-difference gradient from one batched evaluation.

    ``central=False``: forward differences (d + 1 rows instead of 2d + 1), accurate
    enough to search for a mode that a central-difference polish then finishes.
    """
    d = model.n_params
    steps = [np.zeros(d), _FD_STEP * np.eye(d)] + ([-_FD_STEP * np.eye(d)] if central else [])
    offsets = np.vstack(steps)

    def f_and_grad(u):
        vals = model.log_density_unconstrained(u + offsets, data, oriented=False) / scale
        if penalise_orientation:
            vals = vals - _orientation_penalty(model, u + offsets)
        f0 = vals[0]
        if not np.isfinite(f0):
            return _PENALTY, np.zeros(d)
        if not central:
            grad = (vals[1:] - f0) / _FD_STEP
            return -f0, -np.where(np.isfinite(grad), grad, 0.0)
        up, down = vals[1 : d + 1], vals[d + 1 :]
        grad = (up - down) / (2 * _FD_STEP)
        one_sided_up = (up - f0) / _FD_STEP
        one_sided_down = (f0 - down) / _FD_STEP
        grad = np.where(np.isfinite(grad), grad, np.where(np.isfinite(one_sided_up), one_sided_up, one_sided_down))
        grad = np.where(np.isfinite(grad), grad, 0.0)
        return -f0, -grad

    return f_and_grad


def _split_start(model, data, prevalence):
    """Start from labelling the top `prevalence` of unlabeled mass positive."""
    total_unl = data.n_unlabeled.astype(float)
    # cumulative unlabeled mass from the top of the score range
    from_top = np.cumsum(total_unl[::-1])[::-1]
    n_unl = total_unl.sum()
    frac_pos = np.clip((prevalence * n_unl - (from_top - total_unl)) / np.maximum(total_unl, 1), 0, 1)
    w_pos = total_unl * frac_pos + data.n_pos
    w_neg = total_unl * (1 - frac_pos) + data.n_neg
    return _start_from_weights(model, data, w_neg, w_pos)


def _start_from_weights(model, data, w_neg, w_pos):
    if w_neg.sum() <= 0 or w_pos.sum() <= 0:
        return None
    pi = w_pos.sum() / (w_pos.sum() + w_neg.sum())
    phi0 = model.neg.initial(data.z[w_neg > 0], w_neg[w_neg > 0])
    phi1 = model.pos.initial(data.z[w_pos > 0], w_pos[w_pos > 0])
    theta = np.concatenate([[np.clip(pi, 0.02, 0.98)], phi0, phi1])
    u = model.to_unconstrained(theta)[0]
    lo, hi = np.array(model.bounds).T
    return np.clip(np.nan_to_num(u, nan=0.0), lo + 1e-6, hi - 1e-6)


def starting_points(model: MixtureModel, data: ScoreData) -> list[tuple[str, np.ndarray]]:
    """Data-driven starts: quantile splits at several prevalences, and labeled-class moments."""
    prevalences = [0.1, 0.3, 0.5]
    n_lab = data.n_pos.sum() + data.n_neg.sum()
    if n_lab > 0:
        prevalences.append(float(np.clip((data.n_pos.sum() + 1) / (n_lab + 2), 0.05, 0.95)))
    starts = []
    for q in prevalences:
        u = _split_start(model, data, q)
        if u is not None:
            starts.append((f"top-{q:.2f} split", u))
    if data.n_pos.sum() >= 3 and data.n_neg.sum() >= 3:
        # Labeled-class moments, with unlabeled items shared by the labeled prevalence.
        q = data.n_pos.sum() / n_lab
        w_neg = data.n_neg + 1e-3 * (1 - q) * data.n_unlabeled
        w_pos = data.n_pos + 1e-3 * q * data.n_unlabeled
        u = _start_from_weights(model, data, w_neg, w_pos)
        if u is not None:
            starts.append(("labeled-class moments", u))
    return starts


def _run_start(model, data, scale, label, u0, maxiter, penalise, central=True):
    res = optimize.minimize(
        _objective(model, data, scale, penalise, central), u0, jac=True, method="L-BFGS-B",
        bounds=model.bounds, options={"maxiter": maxiter},
    )
    u = np.asarray(res.x, dtype=float)
    return StartResult(
        label=label,
        u_start=u0,
        u=u,
        log_posterior=float(model.log_density_unconstrained(u, data, oriented=False)[0]),
        oriented=bool(model.oriented(model.to_natural(u))[0]),
        converged=bool(res.success),
        n_iter=int(res.nit),
        message=str(res.message),
    )


def _oriented_retry(model, data, scale, result: StartResult, u0, maxiter, central=True) -> StartResult:
    """A run that ended with swapped components: look for the best oriented fit from its start."""
    # If the data barely prefer the swapped ordering (say a unimodal score histogram), the
    # best oriented fit sits on the constraint: find it.
    retry = _run_start(model, data, scale, result.label + " (orientation-penalised)", u0,
                       min(maxiter, 200), penalise=True, central=central)
    if retry.oriented and retry.log_posterior >= result.log_posterior - SWAP_TOLERANCE:
        return retry
    result.message += (
        f"; the best oriented fit is {result.log_posterior - retry.log_posterior:.1f} log units "
        "worse: the data put the positive class below the negative one"
    )
    return result


def _oriented_runs(model, data, scale, runs, maxiter, central=True):
    """(label, start) pairs run to convergence; a run ending swapped gets an orientation-
    penalised retry, unless an oriented run already reaches its log posterior (the retry,
    held to the oriented side, could not beat that run, so it is skipped: it was a third
    of the MAP search on real scores)."""
    results = [_run_start(model, data, scale, label, u0, maxiter, penalise=False, central=central)
               for label, u0 in runs]
    oriented = [r.log_posterior for r in results if r.oriented and np.isfinite(r.log_posterior)]
    best_oriented = max(oriented, default=-np.inf)
    for k, ((_, u0), result) in enumerate(zip(runs, results)):
        if result.oriented:
            continue
        if best_oriented >= result.log_posterior:
            result.message += "; an oriented start fits at least as well"
            continue
        results[k] = _oriented_retry(model, data, scale, result, u0, maxiter, central)
    return results


def _polish(model, data, scale, searched: StartResult, maxiter) -> StartResult:
    """Finish a start found on pooled scores on the exact ones (a few iterations)."""
    polished = _run_start(model, data, scale, searched.label + ", polished on exact scores",
                          searched.u, maxiter, penalise=False)
    at_start = float(model.log_density_unconstrained(searched.u, data, oriented=False)[0])
    if polished.oriented and np.isfinite(polished.log_posterior) and polished.log_posterior >= at_start:
        polished.polished = True
        return polished
    return StartResult(searched.label + ", on exact scores", searched.u, searched.u, at_start,
                       searched.oriented, searched.converged, 0, "polishing did not improve", True)


def _screened_runs(model, data, scale, candidates, maxiter, central):
    """Every start for :data:`SCREEN_ITERATIONS` iterations, the best :data:`SCREEN_KEEP`
    (and the best oriented one) on to convergence; if none of those ends usable, the
    others are run to the end too. Returns every run, screened-out ones marked."""
    if len(candidates) <= SCREEN_KEEP:
        return _oriented_runs(model, data, scale, candidates, maxiter, central)
    screened = [_run_start(model, data, scale, label, u0, SCREEN_ITERATIONS, penalise=False, central=central)
                for label, u0 in candidates]

    def rank(i):
        value = screened[i].log_posterior
        return value if np.isfinite(value) else -np.inf

    order = sorted(range(len(screened)), key=rank, reverse=True)
    keep = order[:SCREEN_KEEP]
    oriented = [i for i in order if screened[i].oriented]
    if oriented and oriented[0] not in keep:
        keep.append(oriented[0])

    def finish(indices):
        runs = _oriented_runs(model, data, scale, [(candidates[i][0], screened[i].u) for i in indices],
                              maxiter, central)
        for i, run in zip(indices, runs):
            run.u_start = candidates[i][1]
            run.n_iter += screened[i].n_iter
        return runs

    results = finish(keep)
    if not any(r.oriented and np.isfinite(r.log_posterior) for r in results):
        return results + finish([i for i in order if i not in keep])
    for i in order:
        if i not in keep:
            screened[i].screened_out = True
            screened[i].message = f"screened out after {screened[i].n_iter} iterations"
            results.append(screened[i])
    return results


def fit_map(model: MixtureModel, data: ScoreData, *, maxiter: int = 500, starts=None,
            search_data: ScoreData | None = None) -> MapFit:
    """Multistart L-BFGS-B; the best start satisfying the orientation constraint wins.

    Every start runs :data:`SCREEN_ITERATIONS` iterations, then only the best
    :data:`SCREEN_KEEP` (and the best oriented one) run to convergence.

    ``starts``: (label, unconstrained vector) pairs; default :func:`starting_points`.
    ``search_data``: a pooled copy of ``data`` (:func:`spe.scores.pooled`) on which the
    starts run (with forward-difference gradients); the best is then polished on ``data``
    (central differences), so the MAP is that of ``data``.

    Returns
    -------
    MapFit

    Raises
    ------
    FitError
        If no start ends with the positive component above the negative one.

    See Also
    --------
    select_families : fits several family pairs and keeps the lowest BIC.
    sample_posterior : draws around the MAP.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import prepare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.uniform(size=400) < 0.3  # 30% positives, scores N(2, 1) vs N(0, 1), 20 labeled
    >>> scores = np.where(y, rng.normal(2, 1, 400), rng.normal(0, 1, 400))
    >>> data = prepare(scores, np.where(np.arange(400) < 20, y, np.nan))
    >>> from spe.mixture import MixtureModel, fit_map, get_component
    >>> model = MixtureModel(get_component("truncnorm"), get_component("truncnorm"), bounded=True)
    >>> mode = fit_map(model, data)
    >>> {name: round(value, 2) for name, value in mode.params.items()}  # on the unit frame
    {'pi': 0.29, 'neg.mu': 0.39, 'neg.sigma': 0.12, 'pos.mu': 0.66, 'pos.sigma': 0.16}
    """
    scale = float(data.n_items)
    search = data if search_data is None else search_data
    polishing = search is not data
    candidates = starting_points(model, search) if starts is None else list(starts)
    results = _screened_runs(model, search, scale, candidates, maxiter, central=not polishing)
    usable = [r for r in results if r.oriented and np.isfinite(r.log_posterior)]
    if not usable:
        tried = "; ".join(
            f"{r.label}: log post {r.log_posterior:.4g}, "
            f"{'oriented' if r.oriented else 'swapped'}, {r.message}"
            for r in results
        ) or "no valid starting point could be built"
        raise FitError(
            f"MAP fit of {model.spec} failed from every start (a usable start must end with "
            f"the positive component above the negative one). Tried: {tried}"
        )
    best = max(usable, key=lambda r: r.log_posterior)
    if polishing:
        best = _polish(model, data, scale, best, maxiter)
        results.append(best)
    theta = model.to_natural(best.u)[0]
    return MapFit(
        model=model,
        u=best.u,
        theta=theta,
        log_posterior=float(model.log_density_unconstrained(best.u, data)[0]),
        log_likelihood=float(model.log_likelihood(theta, data)[0]),
        starts=results,
    )


