"""Where ``choose_threshold``'s promise breaks: the diagnostic rules and checks of
``benchmarks/thresholds.py``.

* ``monotone_choice`` / ``least_model_choice``: the choice made on an event monotone in the
  threshold, and on the least probability any score model with weight >= 0.1 gives;
* ``exact_posterior_rows``: the package's choice rule fed label draws from the *true*
  P(y = 1 | score) (calibrated generated scores), so the label model cannot be wrong: what is
  left of any shortfall is the rule itself (selection over thresholds, Monte Carlo noise).
"""

from __future__ import annotations

import numpy as np

from spe.metrics import _thresholds as R

#: Label draws per exact-posterior trial, as many as ``spe.fit`` makes by default.
EXACT_DRAWS = 1000
#: Exact-posterior trials per benchmark job (cheap: no fit).
EXACT_REPEATS = 5
#: Fresh exact draws that measure P(constraints hold) at the chosen threshold: the promise in
#: expectation, without the noise of the one truth a trial is judged against.
FRESH_DRAWS = 2000


def objective(constraints) -> str:
    """What the choice maximises: precision under a recall-only constraint, else recall."""
    return "precision" if set(constraints) == {"min_recall"} else "recall"


def monotone_choice(rates, weights, constraints, level):
    """The choice on the event "the constraints hold at every threshold from the most
    probable one to t", which is monotone in t: no probability that rises again below a dip
    can be selected. Returns the threshold or None."""
    held = R.holds(rates, constraints)
    top = int(np.argmax(weights @ held))
    path = np.zeros_like(held)
    path[:, : top + 1] = np.logical_and.accumulate(held[:, top::-1], axis=1)[:, ::-1]
    path[:, top:] = np.logical_and.accumulate(held[:, top:], axis=1)
    prob = weights @ path
    ok = np.flatnonzero(prob >= level - 1e-12)
    if not ok.size:
        return None
    value = weights @ (rates.precision if objective(constraints) == "precision" else rates.recall)
    return float(rates.thresholds[ok[np.argmax(value[ok])]])


def least_model_choice(res, rates, constraints, level):
    """The choice on the least probability any score model with weight >= 0.1 gives."""
    held = R.holds(rates, constraints)
    source, w = res.label_posterior.source, res.weights
    probs = [w[source == k] @ held[source == k] / w[source == k].sum() for k in range(len(res.fits))
             if w[source == k].sum() >= 0.1]
    prob = np.min(probs, axis=0)
    ok = np.flatnonzero(prob >= level - 1e-12)
    if not ok.size:
        return None
    value = w @ (rates.precision if objective(constraints) == "precision" else rates.recall)
    return float(rates.thresholds[ok[np.argmax(value[ok])]])


def rates_from_draws(scores, draws) -> R.Rates:
    """Sample rates at every score (ascending) from label draws (M, N): predict positive at
    score >= t. Scores are continuous here (no ties)."""
    order = np.argsort(-scores, kind="stable")
    tp = np.cumsum(draws[:, order], axis=1)[:, ::-1]
    n_sel = np.arange(scores.size, 0, -1)
    n_pos = draws.sum(1, keepdims=True)
    n_neg = scores.size - n_pos
    fp = n_sel - tp
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = np.where(n_pos > 0, tp / n_pos, 1.0)
        fpr = np.where(n_neg > 0, fp / n_neg, 0.0)
    return R.Rates(scores[order][::-1], tp / n_sel, recall, fpr, tp, fp, np.broadcast_to(n_pos, tp.shape))


def exact_posterior_trial(q, truth, idx, constraints, levels, rng, believed=None):
    """{level: (stated probability, threshold or None, P under fresh exact draws)} for the
    package's rule fed label draws: unlabeled items ~ Bernoulli(believed), labeled items
    their label; the scores are ``q``, and ``truth`` one draw from Bernoulli(q).
    ``believed=None``: q itself, an exact posterior; another P(y = 1 | score) is a label
    model that is wrong."""
    p = q if believed is None else believed
    draws = (rng.random((EXACT_DRAWS, q.size)) < p).astype(float)
    draws[:, idx] = truth[idx]
    rates = rates_from_draws(q, draws)
    w = np.full(EXACT_DRAWS, 1 / EXACT_DRAWS)
    fresh = (rng.random((FRESH_DRAWS, q.size)) < q).astype(float)
    fresh[:, idx] = truth[idx]
    fresh_prob = R.holds(rates_from_draws(q, fresh), constraints).mean(axis=0)
    out = {}
    for level in levels:
        d = R.choose(rates, w, constraints, level, "sample")
        j = int(np.searchsorted(rates.thresholds, d.threshold))
        out[level] = (d.probability, d.threshold, float(fresh_prob[j])) if d.feasible else (None, None, None)
    return out
