"""Does a threshold keep its promise? A reliability diagram of ``choose_threshold``.

    python benchmarks/thresholds.py --quick     # 3 cases, 3 seeds: a smoke run (~1 minute)
    python benchmarks/thresholds.py             # every case, 20 seeds (~15 minutes on 2 cores)
    python benchmarks/thresholds.py --report    # rebuild the RESULTS.md section from stored results

``res.choose_threshold(min_precision=p, confidence=c)`` promises a threshold whose
precision on these items is >= p with probability >= c. Over real score sets (the shared
files' top-1 and one-vs-rest views, the digits classifiers; N = 2,000 each) and generated
scores, with 10, 20 and 50 random labels, this counts how often the truth (all labels)
meets the constraint at the chosen threshold, for stated probabilities 0.5, 0.8, 0.9 and
0.95 and constraints on precision (target: the true precision at recall 0.5, minus 0.05),
recall (0.8) and both (that precision and recall 0.4). Beside it, at the same labels:
MAPIE's Learn-then-Test controller and scikit-learn's TunedThresholdClassifierCV (with a
scorer that is the recall when the precision target holds, else 0) on the labeled items;
and the recalibration error (ECE, 10 bins, unlabeled items) of ``prob_positive()`` against
the raw probabilities and Platt scaling fitted to the labels.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import spe  # noqa: E402
from spe.scores import looks_like_probabilities  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from real import all_cases, ece, run_stamp, table, write_section  # noqa: E402

LEVELS = (0.5, 0.8, 0.9, 0.95)
BUDGETS = (10, 20, 50)
KINDS = ("precision", "recall", "both")
RECALL_TARGET = 0.8
BOTH_RECALL = 0.4
PEER_LEVEL = 0.9
MARKERS = ("<!-- thresholds:start -->", "<!-- thresholds:end -->")
RESULTS = HERE / "results" / "thresholds.json"
QUICK_CASES = ("imdb ovr", "bank ovr", "generated gamma/truncnorm")


# ---- cases ---------------------------------------------------------------------------
def generated_cases(n=2000, seed=0) -> dict:
    """Scores with known label models: the mixture's own family pair, calibrated
    probabilities, and probabilities twice as confident as the truth."""
    from spe.mixture import MixtureModel, get_component

    model = MixtureModel(get_component("gamma"), get_component("truncnorm"))
    z, y = model.simulate(np.array([0.3, 2.0, 0.1, 0.7, 0.12]), n, np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    p = rng.beta(0.6, 1.4, n)
    calibrated = (rng.random(n) < p).astype(float)
    logit = np.log(p / (1 - p))
    over = (rng.random(n) < 1 / (1 + np.exp(-logit / 2))).astype(float)
    return {"generated gamma/truncnorm": (z, y.astype(float)), "generated calibrated": (p, calibrated),
            "generated over-confident": (p, over)}


def cases(quick=False) -> dict:
    out = {k: v for k, v in all_cases().items() if not k.endswith("full")}
    out |= generated_cases()
    return {k: out[k] for k in QUICK_CASES} if quick else out


# ---- truth ---------------------------------------------------------------------------
def true_rates(s, y, t):
    sel = s >= t
    tp = y[sel].sum()
    precision = tp / sel.sum() if sel.any() else 0.0
    return precision, tp / y.sum()


def targets(s, y) -> dict:
    """{kind: constraints} from the truth: precision at recall 0.5 minus 0.05, etc."""
    order = np.argsort(-s, kind="stable")
    tp = np.cumsum(y[order])
    k = int(np.searchsorted(tp, 0.5 * y.sum()))
    p_half = tp[k] / (k + 1)
    p_target = round(float(p_half) - 0.05, 4)
    return {"precision": {"min_precision": p_target}, "recall": {"min_recall": RECALL_TARGET},
            "both": {"min_precision": p_target, "min_recall": BOTH_RECALL}}


def meets(s, y, t, constraints) -> bool:
    p, r = true_rates(s, y, t)
    return bool(p >= constraints.get("min_precision", 0.0) and r >= constraints.get("min_recall", 0.0))


def oracle(s, y, constraints):
    """The best a threshold can do on the truth: max recall under a precision constraint,
    max precision under a recall-only constraint (None when infeasible)."""
    best = None
    for t in np.unique(s):
        if meets(s, y, t, constraints):
            p, r = true_rates(s, y, t)
            value = p if set(constraints) == {"min_recall"} else r
            best = value if best is None else max(best, value)
    return best


def kept(s, y, t, constraints):
    p, r = true_rates(s, y, t)
    return p if set(constraints) == {"min_recall"} else r


# ---- peers -----------------------------------------------------------------------------
def ltt_threshold(s, y, idx, constraints, level):
    """MAPIE Learn-then-Test on the labeled items (precision risk), or None."""
    from mapie.risk_control import BinaryClassificationController

    order = np.sort(s)

    def proba(X):
        p = np.searchsorted(order, np.asarray(X)[:, 0], side="right") / order.size
        return np.c_[1 - p, p]

    ctl = BinaryClassificationController(proba, "precision", constraints["min_precision"], confidence_level=level,
                                         list_predict_params=np.linspace(0, 1, 201))
    ctl.calibrate(s[idx, None], y[idx])
    if ctl.best_predict_param is None:
        return None
    return order[min(int(np.ceil(float(ctl.best_predict_param) * order.size)), order.size - 1)]


def tuned_threshold(s, y, idx, constraints, seed):
    """TunedThresholdClassifierCV on the labeled items, scoring the recall where the
    precision target holds (0 elsewhere), or None when a fold lacks a class."""
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.metrics import make_scorer, precision_score, recall_score
    from sklearn.model_selection import StratifiedKFold, TunedThresholdClassifierCV

    class Scores(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.array([0.0, 1.0])
            return self

        def decision_function(self, X):
            return np.asarray(X)[:, 0]

    p_min = constraints["min_precision"]

    def recall_if_precise(y_true, y_pred):
        ok = precision_score(y_true, y_pred, zero_division=0) >= p_min
        return recall_score(y_true, y_pred, zero_division=0) if ok else 0.0

    labels = y[idx]
    if len(np.unique(labels)) < 2 or np.bincount(labels.astype(int)).min() < 2:
        return None
    tuned = TunedThresholdClassifierCV(Scores(), scoring=make_scorer(recall_if_precise), response_method="decision_function",
                                       cv=StratifiedKFold(2, shuffle=True, random_state=seed)).fit(s[idx, None], labels)
    return float(tuned.best_threshold_)


def platt_on_labels(s, idx, y):
    from sklearn.linear_model import LogisticRegression

    x = np.log(np.clip(s, 1e-6, 1 - 1e-6) / np.clip(1 - s, 1e-6, 1))[:, None]
    if len(np.unique(y[idx])) < 2:
        return np.full(s.size, y[idx].mean())
    return LogisticRegression(C=1.0).fit(x[idx], y[idx]).predict_proba(x)[:, 1]


# ---- one trial -------------------------------------------------------------------------
def trial(job):
    name, s, y, budget, seed = job
    rng = np.random.default_rng([seed, budget, sum(map(ord, name))])
    idx = rng.choice(s.size, budget, replace=False)
    labels = np.full(s.size, np.nan)
    labels[idx] = y[idx]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit(s, labels, seed=seed, progress=False)
        rows = []
        for kind, constraints in targets(s, y).items():
            best = oracle(s, y, constraints)
            for level in LEVELS:
                d = res.choose_threshold(confidence=level, **constraints)
                rows.append({"case": name, "labels": budget, "seed": seed, "kind": kind, "level": level,
                             "method": "spe", "feasible_truth": best is not None, "feasible": d.feasible,
                             "met": meets(s, y, d.threshold, constraints) if d.feasible else None,
                             "kept": kept(s, y, d.threshold, constraints) / best if d.feasible and best else None,
                             "stated": d.probability})
            if kind == "precision":
                rows += peer_rows(name, s, y, idx, budget, seed, constraints, best)
            rows += fixed_rows(res, name, s, y, budget, seed, kind, constraints)
        unlabeled = np.isnan(labels)
        calib = {"case": name, "labels": budget, "seed": seed,
                 "ece_spe": ece(res.prob_positive()[unlabeled], y[unlabeled])}
        if looks_like_probabilities(s):
            calib["ece_raw"] = ece(s[unlabeled], y[unlabeled])
            calib["ece_platt"] = ece(platt_on_labels(s, idx, y)[unlabeled], y[unlabeled])
    return rows, calib


#: Thresholds fixed before any label is seen (the truth's recall there), where the posterior
#: probability of the constraints is compared with the truth without any choice made on it.
FIXED_RECALLS = (0.2, 0.35, 0.5, 0.65, 0.8)


def fixed_rows(res, name, s, y, budget, seed, kind, constraints):
    order = np.sort(s[y == 1])[::-1]
    fixed = np.array([order[min(int(r * order.size), order.size - 1)] for r in FIXED_RECALLS])
    _, prob = res.condition_probability(fixed, **constraints)
    return [{"case": name, "labels": budget, "seed": seed, "kind": kind, "level": None, "method": "fixed",
             "feasible_truth": True, "feasible": True, "met": meets(s, y, t, constraints), "kept": None,
             "stated": float(q)} for t, q in zip(fixed, prob)]


def peer_rows(name, s, y, idx, budget, seed, constraints, best):
    out = []
    for method, fn in (("ltt", lambda: ltt_threshold(s, y, idx, constraints, PEER_LEVEL)),
                       ("tuned", lambda: tuned_threshold(s, y, idx, constraints, seed))):
        t = fn()
        out.append({"case": name, "labels": budget, "seed": seed, "kind": "precision", "level": PEER_LEVEL,
                    "method": method, "feasible_truth": best is not None, "feasible": t is not None,
                    "met": meets(s, y, t, constraints) if t is not None else None,
                    "kept": kept(s, y, t, constraints) / best if t is not None and best else None, "stated": None})
    return out


# ---- aggregation -----------------------------------------------------------------------
def group_of(case: str) -> str:
    return "generated" if case.startswith("generated") else "real"


def _mean(values):
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else float("nan")


def reliability(rows) -> list[dict]:
    """Per group, kind, level and method: realized frequency among feasible choices, feasible
    share where the truth is feasible, recall (or precision) kept against the oracle."""
    keys = sorted({(group_of(r["case"]), r["kind"], r["level"], r["method"]) for r in rows if r["method"] != "fixed"})
    out = []
    for g, kind, level, method in keys:
        sel = [r for r in rows if group_of(r["case"]) == g and r["kind"] == kind and r["level"] == level
               and r["method"] == method and r["feasible_truth"]]
        chosen = [r for r in sel if r["feasible"]]
        out.append({"data": g, "kind": kind, "stated": level, "method": method, "trials": len(sel),
                    "feasible": _mean([r["feasible"] for r in sel]), "met": _mean([r["met"] for r in chosen]),
                    "shortfall": level - _mean([r["met"] for r in chosen]),
                    "kept": _mean([r["kept"] for r in chosen])})
    return out


def fixed_reliability(rows, edges=(0.0, 0.2, 0.5, 0.8, 0.9, 0.95, 1.0001)) -> list[dict]:
    """Posterior P(constraints hold) at thresholds fixed in advance, binned, against how
    often the truth meets them: the calibration of the probability itself, no choice made."""
    out = []
    fixed = [r for r in rows if r["method"] == "fixed"]
    for g in ("real", "generated"):
        for kind in KINDS:
            sel = [r for r in fixed if group_of(r["case"]) == g and r["kind"] == kind]
            for lo, hi in zip(edges[:-1], edges[1:]):
                b = [r for r in sel if lo <= r["stated"] < hi]
                if b:
                    out.append({"data": g, "kind": kind, "bin": f"[{lo:.2f}, {min(hi, 1):.2f})", "n": len(b),
                                "mean_stated": _mean([r["stated"] for r in b]), "met": _mean([r["met"] for r in b])})
    return out


def per_case(rows, level=0.9, kind="precision") -> list[dict]:
    out = []
    for case in sorted({r["case"] for r in rows}):
        row = {"case": case}
        for method in ("spe", "ltt", "tuned"):
            sel = [r for r in rows if r["case"] == case and r["kind"] == kind and r["level"] == level
                   and r["method"] == method and r["feasible_truth"]]
            chosen = [r for r in sel if r["feasible"]]
            row[f"{method}_feasible"] = _mean([r["feasible"] for r in sel])
            row[f"{method}_met"] = _mean([r["met"] for r in chosen])
            row[f"{method}_kept"] = _mean([r["kept"] for r in chosen])
        out.append(row)
    return out


def calibration(calibs) -> list[dict]:
    out = []
    for case in sorted({c["case"] for c in calibs if "ece_raw" in c}):
        sel = [c for c in calibs if c["case"] == case]
        out.append({"case": case, "ece_spe": _mean([c["ece_spe"] for c in sel]),
                    "ece_raw": _mean([c["ece_raw"] for c in sel]), "ece_platt": _mean([c["ece_platt"] for c in sel])})
    return out


def report(stored) -> str:
    rows, calibs = stored["rows"], stored["calibration"]
    rel = reliability(rows)
    cal = calibration(calibs)
    spe_real = [r for r in rel if r["method"] == "spe" and r["data"] == "real"]
    worst = max(spe_real, key=lambda r: r["shortfall"]) if spe_real else None
    lines = [
        f"{stored['stamp']}; {stored['seeds']} seeds per case and label budget ({', '.join(map(str, BUDGETS))} "
        f"labels), {len({r['case'] for r in rows})} cases. `met`: how often the truth meets the constraints at "
        "the chosen threshold, among trials where a threshold was declared feasible and the target is feasible in "
        "truth; `feasible`: share of those trials with a feasible choice; `kept`: the truth's recall at the "
        "chosen threshold over the best recall any threshold reaches at the target (precision over the best "
        "precision for the recall-only constraint).",
        "",
        table(rel, ["data", "kind", "stated", "method", "trials", "feasible", "met", "shortfall", "kept"]),
        "",
        "Calibration of the probability itself: at thresholds fixed before the labels (where the truth's "
        "recall is 0.2, 0.35, 0.5, 0.65, 0.8), the posterior probability that the constraints hold, binned, "
        "against how often the truth meets them:",
        "",
        table(fixed_reliability(rows), ["data", "kind", "bin", "n", "mean_stated", "met"]),
        "",
        "Per case, precision constraint stated at 0.9 (spe beside MAPIE LTT and TunedThresholdClassifierCV on the "
        "same labels):",
        "",
        table(per_case(rows), ["case", "spe_feasible", "spe_met", "spe_kept", "ltt_feasible", "ltt_met", "ltt_kept",
                               "tuned_feasible", "tuned_met", "tuned_kept"]),
        "",
        "Recalibration: ECE (10 bins, unlabeled items) of `prob_positive()`, of the raw probabilities and of "
        "Platt scaling fitted to the labels (logistic regression on the logit, C = 1), mean over budgets and seeds:",
        "",
        table(cal, ["case", "ece_spe", "ece_raw", "ece_platt"], "{:.4f}"),
    ]
    if worst is not None:
        lines += ["", f"Largest shortfall of spe on real scores: {worst['shortfall']:.3f} ({worst['kind']}, stated "
                      f"{worst['stated']})."]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 cases, 3 seeds, no RESULTS.md")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--report", action="store_true", help="rebuild the RESULTS.md section from stored results")
    args = ap.parse_args(argv)
    if args.report:
        write_section("## Thresholds that keep their promise (`benchmarks/thresholds.py`)\n\n"
                      + report(json.loads(RESULTS.read_text())), HERE / "RESULTS.md", MARKERS)
        return 0
    seeds = 3 if args.quick else args.seeds
    jobs = [(name, s, y, b, seed) for name, (s, y) in cases(args.quick).items() for b in BUDGETS
            for seed in range(seeds)]
    start = time.time()
    rows, calibs = [], []
    with ProcessPoolExecutor(args.workers) as pool:
        for i, (r, c) in enumerate(pool.map(trial, jobs, chunksize=2)):
            rows += r
            calibs.append(c)
            if (i + 1) % 20 == 0:
                print(f"  {i + 1}/{len(jobs)} trials, {time.time() - start:.0f} s", file=sys.stderr)
    stored = {"stamp": run_stamp(), "seeds": seeds, "rows": rows, "calibration": calibs}
    print(report(stored))
    if not args.quick:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(stored, default=float))
        write_section("## Thresholds that keep their promise (`benchmarks/thresholds.py`)\n\n" + report(stored),
                      HERE / "RESULTS.md", MARKERS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
