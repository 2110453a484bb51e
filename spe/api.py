"""``spe.fit``: the one entry point. Scores in, :class:`~spe.results.SPEResult` out."""

from __future__ import annotations

import numbers

import numpy as np

from .fitting import candidate_pairs, select_families
from .posterior import DEFAULT_PROPOSAL, PROPOSALS, sample_posterior
from .results import SPEResult
from .scores import DEFAULT_MAX_GROUPS, prepare


def _child_seeds(seed, n):
    if isinstance(seed, np.random.Generator):
        return [int(s) for s in seed.integers(0, 2**63 - 1, size=n)]
    if seed is not None and not isinstance(seed, (numbers.Integral, np.random.SeedSequence)):
        raise TypeError(f"seed must be an int, a numpy Generator, a SeedSequence or None, got {seed!r}")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [int(c.generate_state(1, np.uint64)[0]) for c in ss.spawn(n)]


def fit(scores, labels=None, *, families="auto", prior=None, score_range=None, n_draws=1000,
        inference="auto", proposal=DEFAULT_PROPOSAL, seed=None, max_groups=DEFAULT_MAX_GROUPS,
        progress=False) -> SPEResult:
    """Fit the SPE score mixture and draw its posterior.

    Parameters
    ----------
    scores : array-like of shape (N,)
        Classifier scores for every item; higher means "more positive". Any real scale.
    labels : array-like of shape (N,), optional
        1 (positive), 0 (negative) or NaN/None (unlabeled). ``None``: no labels at all.
    families : "auto", "all", (neg, pos) pair, or list of names
        ``"auto"`` fits truncated Normal and Gamma for each class (Gamma reflected for
        positives) and keeps the pair with the lowest BIC; ``"all"`` tries every family;
        a pair such as ``("gamma", "truncnorm")`` fixes them. Append ``"-reflected"`` to a
        name to apply it to the reflected score.
    prior : dict, optional
        Prior overrides keyed by parameter name, e.g. ``{"pi": spe.priors.Beta(2, 8)}``.
    score_range : (lower, upper), optional
        The range scores can take (e.g. (0, 1) for probabilities). Default: the observed
        range padded by 1% each side.
    n_draws : int
        Number of posterior draws (importance samples or MCMC draws).
    inference : "auto", "is" or "emcee"
        ``"auto"`` uses importance sampling and falls back to emcee when the Pareto
        k-hat exceeds 0.7.
    proposal : "student_t", "laplace" or "diagonal"
        Importance-sampling proposal around the MAP.
    seed : int, numpy.random.Generator or None
        Seeds the posterior draws and label draws; the same seed gives identical results.
    max_groups : int
        Above this many distinct scores, scores are pooled into fine bins.
    progress : bool
        Show emcee's progress bar when MCMC runs.

    Returns
    -------
    SPEResult
    """
    if not isinstance(n_draws, numbers.Integral) or isinstance(n_draws, bool) or n_draws < 10:
        raise ValueError(f"n_draws must be an integer >= 10, got {n_draws!r}")
    if proposal not in PROPOSALS:
        raise ValueError(f"proposal must be one of {PROPOSALS}, got {proposal!r}")
    if inference not in ("auto", "is", "emcee"):
        raise ValueError(f"inference must be 'auto', 'is' or 'emcee', got {inference!r}")
    pairs = candidate_pairs(families)
    data = prepare(scores, labels, score_range=score_range, max_groups=max_groups)
    post_seed, label_seed = _child_seeds(seed, 2)
    best, rows = select_families(data, pairs, prior=prior)
    posterior = sample_posterior(
        best, data, n_draws=int(n_draws), rng=np.random.default_rng(post_seed),
        inference=inference, proposal=proposal, progress=progress,
    )
    return SPEResult(data, best, rows, posterior, label_seed)
