"""Recalibration: item probabilities and thresholds that meet constraints (docs/method.md, section 6).

Threshold choice, stated once here and in the README:

* ``condition_probability`` gives, per threshold t, the posterior probability that all
  constraints hold at t (predict positive when score >= t).
* ``choose_threshold`` keeps the thresholds where that probability is at least
  ``confidence`` and then picks:

  - with a precision or FPR constraint and no recall constraint: the one with the
    highest expected recall (the most permissive threshold that is still safe);
  - with only a recall constraint: the one with the highest expected precision;
  - with both kinds: the one with the highest probability, ties toward higher recall.

  When no threshold qualifies, the decision is marked infeasible and reports the best
  probability reached and where; it does not raise and never returns NaN.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MAX_DEFAULT_THRESHOLDS = 2000


@dataclass
class Rates:
    """Per-draw rates at a set of thresholds: arrays of shape (M, T)."""

    thresholds: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    fpr: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: np.ndarray


def sample_rates(sweep, group_thresholds, thresholds) -> Rates:
    """Rates at user thresholds from a :class:`~spe.metrics.Sweep` (either kind)."""
    desc = np.asarray(group_thresholds)[::-1]  # thresholds in sweep order (descending)
    # number of groups whose lowest score is >= t, i.e. selected at threshold t
    n_sel = np.searchsorted(-desc, -np.asarray(thresholds), side="right")
    k = np.clip(n_sel - 1, 0, None)
    tp = np.where(n_sel > 0, sweep.tp[:, k], 0)
    fp = np.where(n_sel > 0, sweep.fp[:, k], 0)
    n_pos = sweep.n_pos[:, None]
    n_neg = sweep.n_neg[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        recall = np.where(n_pos > 0, tp / n_pos, 1.0)
        fpr = np.where(n_neg > 0, fp / n_neg, 0.0)
    return Rates(np.asarray(thresholds), precision, recall, fpr, tp, fp, np.broadcast_to(n_pos, tp.shape))


def rates_at(sweep, group_thresholds, threshold) -> dict:
    """Per-draw precision, recall, FPR, F1 and accuracy at one threshold."""
    rates = sample_rates(sweep, group_thresholds, np.atleast_1d(threshold))
    tn = sweep.n_neg - rates.fp[:, 0]
    return {"precision": rates.precision[:, 0], "recall": rates.recall[:, 0], "fpr": rates.fpr[:, 0],
            "f1": fbeta(rates, 1.0)[:, 0], "accuracy": (rates.tp[:, 0] + tn) / sweep.n_items}


def check_thresholds(thresholds) -> np.ndarray:
    """User thresholds (score units) as a non-empty 1-D float array."""
    try:
        t = np.atleast_1d(np.asarray(thresholds, dtype=float))
    except (TypeError, ValueError):
        raise TypeError("thresholds must be numbers (in score units)") from None
    if t.ndim != 1 or t.size == 0 or not np.all(np.isfinite(t)):
        raise ValueError("thresholds must be a non-empty 1-D array of finite numbers")
    return t


def thinned(group_thresholds) -> np.ndarray:
    """The distinct scores (lowest score of each group), thinned to at most 2000."""
    t = np.asarray(group_thresholds)
    if t.size > MAX_DEFAULT_THRESHOLDS:
        t = t[np.unique(np.linspace(0, t.size - 1, MAX_DEFAULT_THRESHOLDS).round().astype(int))]
    return t


def check_beta(beta):
    if not (isinstance(beta, (int, float)) and beta > 0):
        raise ValueError(f"beta must be a positive number, got {beta!r}")
    return beta


def check_costs(cost_fp, cost_fn):
    for name, c in (("cost_fp", cost_fp), ("cost_fn", cost_fn)):
        if not (isinstance(c, (int, float)) and c >= 0 and np.isfinite(c)):
            raise ValueError(f"{name} must be a non-negative number, got {c!r}")
    return cost_fp, cost_fn


def check_constraints(min_precision=None, min_recall=None, max_fpr=None) -> dict:
    given = {"min_precision": min_precision, "min_recall": min_recall, "max_fpr": max_fpr}
    out = {}
    for name, value in given.items():
        if value is None:
            continue
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a number in [0, 1], got {value!r}") from None
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
        out[name] = v
    if not out:
        raise ValueError("give at least one constraint: min_precision, min_recall or max_fpr")
    return out


def holds(rates: Rates, constraints: dict) -> np.ndarray:
    """(M, T) boolean: do all constraints hold under each draw at each threshold?"""
    ok = np.ones(rates.precision.shape, dtype=bool)
    if "min_precision" in constraints:
        ok &= rates.precision >= constraints["min_precision"]
    if "min_recall" in constraints:
        ok &= rates.recall >= constraints["min_recall"]
    if "max_fpr" in constraints:
        ok &= rates.fpr <= constraints["max_fpr"]
    return ok


@dataclass
class ThresholdDecision:
    """A chosen threshold and what the posterior says about it.

    ``probability``: the posterior probability that the constraints hold at ``threshold``
    (predict positive when score >= threshold); ``feasible``: whether it reached
    ``confidence``; ``expected_*``: posterior means at that threshold; ``rule``: how it was
    picked among the qualifying thresholds.

    See Also
    --------
    spe.SPEResult.choose_threshold, spe.SPEResult.best_fbeta_threshold, spe.SPEResult.min_cost_threshold

    Examples
    --------
    >>> from spe.metrics import ThresholdDecision
    >>> ThresholdDecision(threshold=0.34, probability=0.906, feasible=True, rule="highest expected recall",
    ...                   expected_precision=0.682, expected_recall=0.856, expected_fpr=0.529,
    ...                   confidence=0.9, constraints={"min_precision": 0.6})
    threshold 0.34: P(min_precision=0.6) = 0.91
      expected precision 0.68, recall 0.86, FPR 0.53 (sample; rule: highest expected recall)
    """

    threshold: float
    probability: float
    feasible: bool
    rule: str
    expected_precision: float
    expected_recall: float
    expected_fpr: float
    confidence: float | None = None
    constraints: dict = field(default_factory=dict)
    best_probability: float | None = None
    kind: str = "sample"

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def __str__(self):
        cons = ", ".join(f"{k}={v:g}" for k, v in self.constraints.items())
        head = f"threshold {self.threshold:.6g}"
        if self.constraints:
            head += f": P({cons}) = {self.probability:.2f}"
        if self.confidence is not None and not self.feasible:
            head = (
                f"INFEASIBLE: no threshold meets ({cons}) with probability >= "
                f"{self.confidence:g}; best is {self.best_probability:.2f} at threshold "
                f"{self.threshold:.6g}"
            )
        return (
            f"{head}\n  expected precision {self.expected_precision:.2f}, recall "
            f"{self.expected_recall:.2f}, FPR {self.expected_fpr:.2f} ({self.kind}; rule: {self.rule})"
        )

    __repr__ = __str__


def _expected(rates: Rates, weights, j):
    w = weights
    return (float(w @ rates.precision[:, j]), float(w @ rates.recall[:, j]), float(w @ rates.fpr[:, j]))


def choose(rates: Rates, weights, constraints, confidence, kind) -> ThresholdDecision:
    prob = weights @ holds(rates, constraints)
    exp_recall = weights @ rates.recall
    exp_precision = weights @ rates.precision
    feasible = prob >= confidence - 1e-12
    has_recall = "min_recall" in constraints
    has_other = bool({"min_precision", "max_fpr"} & constraints.keys())
    if feasible.any():
        cand = np.flatnonzero(feasible)
        if has_other and not has_recall:
            rule = "highest expected recall among thresholds meeting the confidence"
            j = cand[np.lexsort((prob[cand], exp_recall[cand]))[-1]]
        elif has_recall and not has_other:
            rule = "highest expected precision among thresholds meeting the confidence"
            j = cand[np.lexsort((prob[cand], exp_precision[cand]))[-1]]
        else:
            rule = "highest probability, ties toward higher recall"
            j = cand[np.lexsort((exp_recall[cand], prob[cand]))[-1]]
    else:
        rule = "infeasible: threshold with the highest probability"
        j = int(np.lexsort((exp_recall, prob))[-1])
    p, r, f = _expected(rates, weights, j)
    return ThresholdDecision(
        threshold=float(rates.thresholds[j]),
        probability=float(prob[j]),
        feasible=bool(feasible.any()),
        rule=rule,
        expected_precision=p,
        expected_recall=r,
        expected_fpr=f,
        confidence=confidence,
        constraints=dict(constraints),
        best_probability=float(prob.max()),
        kind=kind,
    )


def best_by_score(rates: Rates, weights, per_draw_value, rule, kind, maximise=True):
    """The threshold optimising the posterior expectation of a per-draw objective."""
    expected = weights @ per_draw_value
    j = int(np.argmax(expected) if maximise else np.argmin(expected))
    p, r, f = _expected(rates, weights, j)
    return ThresholdDecision(
        threshold=float(rates.thresholds[j]),
        probability=1.0,  # no constraints: trivially satisfied
        feasible=True,
        rule=f"{rule} (expected value {expected[j]:.4g})",
        expected_precision=p,
        expected_recall=r,
        expected_fpr=f,
        kind=kind,
    )


def fbeta(rates: Rates, beta):
    b2 = beta * beta
    p, r = rates.precision, rates.recall
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b2 * p + r > 0, (1 + b2) * p * r / (b2 * p + r), 0.0)
