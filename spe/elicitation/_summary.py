"""Text and JSON views of an :class:`~spe.elicitation.ElicitedMetric`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..metrics import Estimate
from ..report import estimate_record

FAMILY_NAMES = {
    "diagonal": "weighted accuracy (DLPM): sum_i a_i C_ii",
    "linear": "cost-sensitive (LPM): sum_{i != j} a_ij C_ij, a_ij = -cost of predicting j for class i",
    "diagonal-fractional": "linear-fractional of the diagonal (F-measure-like), canonical form",
    "linear-fractional": "linear-fractional of the mistakes, canonical form",
}


def rule_text(m) -> str:
    """The decision rule in words (the top-1 fallback says why)."""
    if m.rule != "elicited" and not m.posterior.fits:
        return f"predict the classifier's top-1 class (fallback: the answers fit no {m.family} metric)"
    if m.rule != "elicited":
        v = m.rule_values
        return (f"predict the classifier's top-1 class (fallback: under the posterior the elicited rule's expected "
                f"metric is {v['elicited']:.4g} against the top-1 rule's {v['top-1']:.4g}, and it beats it with "
                f"probability {v['prob_beats']:.2f})")
    if m.n_classes == 2 and m.threshold is not None:
        return f"predict {m.classes[1]} when P({m.classes[1]}) >= {m.threshold:.4g}"
    if m.family.startswith("diagonal"):
        return "predict the class i with the largest a_i * P(i)"
    return "predict the class j with the smallest expected cost sum_i P(i) cost(i -> j)"


def summary_text(m, level=0.9) -> str:
    lower, upper = m.interval(level)
    post = m.posterior
    lines = [
        "Metric elicitation from pairwise comparisons of confusion matrices (Hiranandani et al.)",
        f"  family: {FAMILY_NAMES[m.family]}",
        f"  classes: {m.n_classes}, items: {m.probs.shape[0]} "
        f"({'SPE-recalibrated probabilities' if m.fit is not None else 'the classifier probabilities as given'})",
        f"  questions: {m.n_queries} (at most {m.max_queries} at tolerance {m.tolerance:g}"
        + (f", {m.asker.repeats} votes each" if m.asker.repeats > 1 else "") + ")"
        + (f"; {m.skipped} skipped (outcomes within the resolution {m.asker.resolution:g})" if m.skipped else "")
        + (f"; {m.asker.n_same} answered 'about the same'" if m.asker.n_same else ""),
        f"  answer model: {m.answer_model.describe()}",
    ]
    if m.radius is not None:
        lines.append(f"  query sphere radius: {m.radius:.4g}")
    if m.inconsistent_rounds or m.split_votes:
        lines.append(f"  inconsistent: {m.inconsistent_rounds} round(s) of answers no {m.family} metric gives, "
                     f"{m.split_votes} split vote(s)")
    lines.append(f"  weights ({m.estimate}; posterior {100 * level:g}% interval, {post.method}, ESS {post.ess:.0f}):")
    for name, w, lo, hi in zip(m.weight_names, m.weights, lower, upper):
        lines.append(f"    {name:>16s} {w:8.4f} [{lo:.4f}, {hi:.4f}]")
    lines.append(f"  rule: {rule_text(m)}")
    if m.fit is not None:
        ev = m.evaluate(level=level)
        lines.append(f"  on these items ({100 * level:g}% interval, spe label draws x weight draws):")
        for est in (ev.rule, ev.argmax):
            lines.append(f"    {est.name:28s} {est.value:.4f} [{est.lower:.4f}, {est.upper:.4f}]")
        lines.append(f"    P(elicited rule beats top-1) {ev.prob_beats_argmax:.3f}")
    return "\n".join(lines)


def _floats(x):
    return [float(v) for v in np.ravel(x)]


def as_dict(m, level=0.9, history: bool = True) -> dict:
    lower, upper = m.interval(level)
    out = {
        "family": m.family,
        "classes": list(m.classes),
        "weights": dict(zip(m.weight_names, _floats(m.weights))),
        "estimate": m.estimate,
        "interval": {"level": level, "lower": dict(zip(m.weight_names, _floats(lower))),
                     "upper": dict(zip(m.weight_names, _floats(upper)))},
        "posterior": {"method": m.posterior.method, "ess": float(m.posterior.ess)},
        "utility": [_floats(row) for row in m.utility()],
        "rule": rule_text(m),
        "rule_kind": m.rule,
        "rule_values": dict(m.rule_values),
        "threshold": m.threshold,
        "tolerance": m.tolerance,
        "n_queries": m.n_queries,
        "max_queries": m.max_queries,
        "inconsistent_rounds": m.inconsistent_rounds,
        "split_votes": m.split_votes,
        "skipped": m.skipped,
        "resolution": m.asker.resolution,
        "about_the_same": m.asker.n_same,
        "answer_model": {"kind": m.answer_model.kind, "scale": m.answer_model.scale, "lapse": m.answer_model.lapse,
                         "ties": m.asker.answers_ties},
        "recalibrated": m.fit is not None,
    }
    if m.family.endswith("fractional"):
        out["numerator"] = _floats(m.metric.numerator)
        out["denominator"] = _floats(m.metric.denominator)
    if m.radius is not None:
        out["radius"] = float(m.radius)
    if history:
        out["history"] = [q.as_dict() for q in m.history]
    return out


def rule_estimates(m, level=0.9, result=None) -> list:
    """Estimates of the metric for the rule :meth:`decide` uses, the top-1 rule and their
    difference: from an spe fit's label draws (``result``, or the fit made from ``labels``)
    x weight draws, else over the weight draws on these items' class probabilities."""
    if result is not None or m.fit is not None:
        ev = m.evaluate(result, level)
        pairs = (ev.rule, ev.argmax, ev.difference)
    else:
        post = m.posterior
        idx = np.arange(len(post.weights))
        values = [m._draw_values(m.space.confusion(rule)[None], idx) for rule in (m.decide(), m.raw_probs.argmax(1))]
        pairs = [Estimate.from_draws(n, v, post.weights, level)
                 for n, v in zip(("", "", ""), (values[0], values[1], values[0] - values[1]))]
    names = (f"rule used: {m.rule}", "top-1 rule", "rule used minus top-1")
    return [replace(est, name=name) for est, name in zip(pairs, names)]


def records(m, level=0.9, result=None) -> list[dict]:
    """:meth:`~spe.elicitation.ElicitedMetric.to_frame`'s rows."""
    lower, upper = m.interval(level)
    rows = [{"quantity": "weight", "name": n, "estimate": float(w), "lower": float(lo), "upper": float(hi),
             "level": level} for n, w, lo, hi in zip(m.weight_names, m.weights, lower, upper)]
    for est in rule_estimates(m, level, result):
        rows.append(estimate_record(est, level, quantity="metric", name=est.name))
    return rows
