"""``SPEResult.summary()``: the fit in plain language, and the same as a dict.

It reads only a result's public accessors (``data``, ``fits``, ``model_weights``,
``label_posterior.weighting``, ``errors``, the metric methods).
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass

from .._util.digits import format_interval
from ..metrics import check_level


@dataclass
class Summary:
    """What ``SPEResult.summary()`` returns: prints as text, exports as a dict.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> summ = res.summary()
    >>> print(summ)  # doctest: +ELLIPSIS
    SPE: semisupervised performance evaluation
      items: 1797 (30 labeled: ...
    >>> sorted(summ.to_dict()["metrics"])
    ['AUROC', 'average precision', 'max F1', 'prevalence']
    """

    text: str
    data: dict

    def __str__(self):
        return self.text

    __repr__ = __str__

    def to_dict(self):
        return self.data

    def to_json(self, **kwargs):
        return json.dumps(self.data, **kwargs)


def summarize(res, level=0.9) -> Summary:
    """Data, score models and their weights, diagnostics, metrics with intervals."""
    level = check_level(level)
    d = res.data
    metrics = [res.prevalence(level), res.average_precision(level), res.auroc(level), res.max_f1(level)]
    checks = res.label_checks
    models = {k: f.describe() | ({"label_check": checks[k].as_dict()} if k in checks else {})
              for k, f in res.fits.items()}
    mixture = res.mixture
    n_pairs = len(mixture.selection) if mixture is not None else 0
    lines = [
        "SPE: semisupervised performance evaluation",
        f"  items: {d.n_items} ({d.n_labeled} labeled: {int(d.n_pos.sum())} positive, "
        f"{int(d.n_neg.sum())} negative)",
        # the frame is the mixture's scale; without a mixture it says nothing about the fit
        (f"  score frame: [{d.frame.lower:.6g}, {d.frame.upper:.6g}] ({d.frame.source}); "
         if mixture is not None else "  scores: ")
        + (f"exact compression ({d.n_groups} distinct values)" if d.exact
           else f"scores pooled into {d.n_groups} fine bins"),
        "  score models (weight; " + res.label_posterior.weighting + "):",
    ]
    width = max(8, *map(len, models), *map(len, res.errors))
    indent = " " * (5 + width)
    for name, info in models.items():
        lines.append(f"    {name:{width}s} {res.model_weights[name]:.3f}  {info['model']}")
        lines += [indent + line for line in describe_lines(name, info, n_pairs)]
        if name in checks:
            lines.append(indent + checks[name].describe())
    lines += [f"    {name:{width}s} not fitted: {why}" for name, why in res.errors.items()]
    few = min(int(d.n_pos.sum()), int(d.n_neg.sum()))
    if mixture is not None and res.model_weights.get("mixture", 0.0) >= MIN_WEIGHT and few < 3:
        lines += textwrap.wrap(
            f"the mixture's split of the scores into classes rests on {few} labeled item(s) of the rarer "
            "class: which component is positive, and where they cross, is its assumption, not something "
            "the labels have checked", width=100, initial_indent="  ", subsequent_indent="    ")
    if res.prior_note:
        lines += textwrap.wrap(f"prior of the calibration map: {res.prior_note}", width=100,
                               initial_indent="  ", subsequent_indent="    ")
    own, verdict = {}, None
    if len(res.fits) > 1:
        own = res.model_estimates(level)
        lines.append(f"  each score model alone (median [{100 * level:g}% interval]):")
        lines += [f"    {name:{width}s} " + ", ".join(f"{e.name} {_interval(e)}" for e in est.values())
                  for name, est in own.items()]
        verdict = disagreement(own, res.model_weights)
        if verdict:
            lines += textwrap.wrap(verdict, width=100, initial_indent="  ", subsequent_indent="    ")
    lines.append(f"  metrics on these items (median [{100 * level:g}% interval]), {res.n_draws} draws:")
    lines += [f"    {m.name:18s} {_interval(m)}" for m in metrics]
    data = {
        "n_items": d.n_items,
        "n_labeled": d.n_labeled,
        "n_labeled_positive": int(d.n_pos.sum()),
        "score_frame": {"lower": d.frame.lower, "upper": d.frame.upper, "source": d.frame.source},
        "exact_compression": d.exact,
        "model_weights": dict(res.model_weights),
        "weighting": res.label_posterior.weighting,
        "score_models": models,
        "not_fitted": dict(res.errors),
        "prior": res.prior_note,
        "metrics": {m.name: m.as_dict() for m in metrics},
        "model_estimates": {name: {k: e.as_dict() for k, e in est.items()} for name, est in own.items()},
        "model_disagreement": verdict,
    }
    if mixture is not None:
        data["families"] = models["mixture"]["families"]
        data["family_selection"] = [r.__dict__.copy() for r in res.fits["mixture"].selection]
    return Summary("\n".join(lines), data)


def _interval(estimate) -> str:
    """``value [lower, upper]`` to the digits the interval supports."""
    return format_interval(estimate.value, estimate.lower, estimate.upper)


#: Score models with less pooled weight than this are left out of the disagreement check.
MIN_WEIGHT = 0.05
#: Two intervals count as disjoint only if this much (on the metric's 0-1 scale) separates them.
MIN_GAP = 0.01


def disagreement(estimates: dict, weights: dict) -> str | None:
    """A plain-language warning when score models that carry weight have intervals for the
    same metric more than :data:`MIN_GAP` apart (None otherwise): the pooled interval then
    spans assumptions the labels have not decided between."""
    names = [n for n in estimates if weights.get(n, 0.0) >= MIN_WEIGHT]
    for metric in ("prevalence", "average precision"):
        ests = {n: estimates[n][metric] for n in names}
        for a in ests:
            for b in ests:
                if ests[b].lower - ests[a].upper > MIN_GAP:
                    return (f"the score models disagree: {a} puts the {metric} at {_interval(ests[a])}, "
                            f"{b} at {_interval(ests[b])}; the pooled interval spans both "
                            "and its median may sit where neither model is. Only labels can tell which "
                            "assumption holds: label the items suggest_labels() picks and refit")
    return None


#: How the summary names a calibration map's prior components.
COMPONENT_NAMES = {"learned": "learned", "wide": "wide (classifiers unlike the corpus')",
                   "calibrated": "calibrated (the probabilities are right)"}


def describe_lines(name, info, n_pairs=0):
    """Plain-language lines for one score model's ``describe()`` dict."""
    khat = info.get("pareto_khat")
    khat = "n/a" if khat is None else f"{khat:.2f}"
    if "families" not in info:  # a calibration map or a label model, not the mixture
        mean = ", ".join(f"{k} {v:.3g}" for k, v in info["posterior_mean"].items())
        lines = [f"on the {info['feature']}; posterior mean {mean}"]
        if info.get("prior_components"):
            shares = ", ".join(f"{COMPONENT_NAMES.get(name, name)} {v['prior']:.0%} -> {v['posterior']:.0%}"
                               for name, v in info["prior_components"].items())
            lines.append(f"prior components (before -> after labeling): {shares}")
        return lines + [f"inference: {info['inference']}, ESS {info['ess']:.0f}, Pareto k-hat {khat}"]
    fam = info["families"]
    mis = info["misfit"]
    chosen = f" (chosen by BIC from {n_pairs} pairs)" if n_pairs > 1 else ""
    adapted = info.get("adaptations", 0)
    proposal = info["proposal"] + (f", adapted {adapted}x" if adapted else "")
    # for emcee the proposal field says where the chain ran
    how = info["proposal"] if info["inference"] == "emcee" else f"{proposal} proposal"
    inference = info["inference"] + (f" ({how})" if info["proposal"] else "")
    if info["inference"] == "emcee" and info["importance_khat"] is not None:
        inference += f" after importance k-hat {info['importance_khat']:.2f}"
    return [
        f"families: negative {fam['negative']}, positive {fam['positive']}{chosen}",
        f"fit to the score distribution: {mis['verdict']} (KL {mis['kl']:.4f}, noise level "
        f"{mis['null_kl']:.4f}, zeta {mis['zeta']:.3g})",
        f"inference: {inference}, ESS {info['ess']:.0f}, Pareto k-hat {khat}, "
        f"MAP start spread {info['map_start_spread']:.3g}",
    ]
