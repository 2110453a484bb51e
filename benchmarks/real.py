"""Real-score benchmark: is spe honest on real classifier outputs?

    pip install -e ".[bench]"
    python benchmarks/real.py --quick      # 3 cases, 5 trials, < 2 minutes: prints tables
    python benchmarks/real.py              # full run: writes its section of RESULTS.md,
                                           # results/real.json and figures/real_benchmark.png

Cases: every prediction set in ../shared/data (top-1 correctness and one class vs the
rest), the digits cases, and one case at full size. Per (case, label budget) and seeded
trial, the labeled items are drawn at random and every method sees the same ones:

* ``spe``      the package default (score mixture + Bayesian piecewise Platt, pooled);
* ``mixture``  the plain SPE mixture of spe 0.1 (raw score, observed frame, no coarsening);
* ``platt``    the two-parameter Bayesian Platt model alone (the bar to beat);
* ``beta``     Bayesian beta calibration alone (three parameters);
* ``spline``   Bayesian piecewise Platt alone (a slope per quartile segment: five parameters);
* ``naive``    the labeled items alone, with a bootstrap band (Beta intervals for rates).

Metrics (truth = the sample curve of all N items with their true labels): area between
estimated and true PR curve (recall grid 0..1 by 0.01), the 90% band's coverage of the
true curve on recall 0.05..0.95, its mean width and interval score (Gneiting & Raftery
2007: width + 2/0.1 x miss, averaged over recall points), 90% interval coverage and
absolute error of prevalence, average precision and accuracy at the default threshold
(0.5 for probabilities, 0 for margins), fit time, MCMC share, k-hat > 0.7 share.

A second section follows SSME's published protocol (Shanmugam et al., NeurIPS 2025): per
seed a random half of the items is the held-out truth; from the other half 20 labeled and
1,000 unlabeled items; seeds whose labels hold one class are skipped; mean absolute
error in points of accuracy at 0.5, AUC, AUPRC and ECE (10 equal-width bins).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one BLAS thread per worker process

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

import spe  # noqa: E402
from spe.metrics.curves import DEFAULT_RECALL_GRID  # noqa: E402
from spe.metrics.sweeps import exact_precision_at_recall, labeled_sweep, sample_auroc, sample_average_precision  # noqa: E402
from spe.calibration.cells import MAX_CELLS  # noqa: E402
from spe.scores.frame import looks_like_probabilities  # noqa: E402
from spe.report.summary import disagreement  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = Path(os.environ.get("SPE_SHARED_DATA", ROOT.parent / "shared" / "data"))
GRID = DEFAULT_RECALL_GRID
LEVEL = 0.9
ALPHA = 1 - LEVEL
INNER = (GRID >= 0.05 - 1e-9) & (GRID <= 0.95 + 1e-9)
N_SUBSAMPLE = 2000
BUDGETS = (0, 10, 20, 50, 100)
METHODS = ("spe", "spe+calibrated", "mixture", "platt", "beta", "spline", "naive")
FIT_OPTIONS = {
    "spe": {},
    # spe 0.1's model: the plain mixture on the raw score, frame = observed range padded
    "mixture": {"model": "mixture", "coarsen": False, "mixture_scale": "identity", "probabilities": False},
    "platt": {"model": "platt"},
    "beta": {"model": "beta"},
    "spline": {"model": "spline"},
    # opt-in: the default pool plus "the probabilities are right" (probability scores only)
    "spe+calibrated": {"model": ["mixture", "spline", "calibrated"]},
}


def fit_options(method, scores) -> dict:
    """FIT_OPTIONS[method]; ``spe+calibrated`` is the default where the default pool is not
    the mixture and piecewise Platt (scores that are not probabilities, or take at most
    MAX_CELLS values), so that it differs from ``spe`` only by the 'calibrated' member."""
    if method != "spe+calibrated":
        return FIT_OPTIONS[method]
    if not looks_like_probabilities(scores) or np.unique(scores).size <= MAX_CELLS:
        return {}
    return FIT_OPTIONS[method]


FILES = {
    "mnist": "mnist_labelerrors_cv.npz",
    "20news": "20news_labelerrors_cv.npz",
    "imdb": "imdb_labelerrors_cv.npz",
    "bank": "bank_age_fairness.npz",
    "compas": "compas_violent_recidivism_race_fairness.npz",
}
QUICK_CASES = ("imdb ovr", "bank ovr", "20news top1")
MARKERS = ("<!-- real-benchmark:start -->", "<!-- real-benchmark:end -->")
SUMMARY_MARKERS = ("<!-- real-summary:start -->", "<!-- real-summary:end -->")
#: The user-guide page that quotes the summary block.
DOCS_PAGE = ROOT / "docs" / "user_guide" / "evidence.md"


# ---- metric functions (tested in tests/test_real_benchmark.py) ------------------------
def pr_area(estimate, truth) -> float:
    """Area between two precision curves on the recall grid."""
    return float(np.trapezoid(np.abs(np.asarray(estimate) - np.asarray(truth)), GRID))


def band_coverage(lower, upper, truth) -> float:
    """Share of recall points in [0.05, 0.95] where the truth lies inside the band."""
    t = np.asarray(truth)[INNER]
    return float(np.mean((t >= np.asarray(lower)[INNER] - 1e-12) & (t <= np.asarray(upper)[INNER] + 1e-12)))


def interval_score(lower, upper, truth, alpha=ALPHA) -> float:
    """Mean interval score over recall points in [0.05, 0.95] (lower is better)."""
    lo, hi, t = (np.asarray(a, float)[INNER] for a in (lower, upper, truth))
    return float(np.mean((hi - lo) + 2 / alpha * np.clip(lo - t, 0, None) + 2 / alpha * np.clip(t - hi, 0, None)))


def covers(lower, upper, value) -> bool:
    return bool(lower - 1e-12 <= value <= upper + 1e-12)


def exact_ap(scores, labels) -> float:
    return float(sample_average_precision(labeled_sweep(scores, labels))[0])


def exact_auc(scores, labels) -> float:
    return float(sample_auroc(labeled_sweep(scores, labels))[0])


def accuracy_at(scores, labels, threshold) -> float:
    return float(np.mean((np.asarray(scores) >= threshold) == (np.asarray(labels) == 1)))


def ece(scores, labels, n_bins=10) -> float:
    """Expected calibration error of probability scores, equal-width bins."""
    s, y = np.asarray(scores, float), np.asarray(labels, float)
    b = np.minimum((s * n_bins).astype(int), n_bins - 1)
    n = np.bincount(b, minlength=n_bins)
    gap = np.abs(np.bincount(b, weights=s, minlength=n_bins) - np.bincount(b, weights=y, minlength=n_bins))
    return float(gap.sum() / max(n.sum(), 1))


# ---- cases ---------------------------------------------------------------------------
def shared_cases():
    """{name: (scores, labels)} for every shared file: top-1 and one-vs-rest views."""
    out = {}
    for short, fname in FILES.items():
        path = DATA / fname
        if not path.exists():
            continue
        d = np.load(path, allow_pickle=False)
        p, y = d["probs"].astype(float), d["labels"]
        out[f"{short} top1"] = (p.max(axis=1), (p.argmax(axis=1) == y).astype(float))
        if p.shape[1] == 2:
            k = 1
        else:  # a mid-frequency class
            k = int(np.argsort(np.bincount(y, minlength=p.shape[1]))[p.shape[1] // 2])
        out[f"{short} ovr"] = (p[:, k], (y == k).astype(float))
    return out


def digits_cases():
    try:
        from spe.datasets import digits_scores, digits_top1
    except ImportError:
        return {}
    try:
        out = {f"digits {c}{d}": digits_scores(c, d) for c, d in (("svm", 3), ("logres", 8), ("svm", 8))}
        out["digits top1"] = digits_top1()
    except ImportError:  # scikit-learn is in the bench extra
        return {}
    return {k: (np.asarray(s, float), np.asarray(y, float)) for k, (s, y) in out.items()}


def all_cases(names=None, quick=False):
    cases = shared_cases()
    full = {}
    if "imdb ovr" in cases and not quick:
        full["imdb ovr full"] = cases["imdb ovr"]
    cases |= digits_cases()
    cases = {k: _subsample(k, *v) for k, v in cases.items()}
    cases |= full
    wanted = names or (QUICK_CASES if quick else list(cases))
    missing = [n for n in wanted if n not in cases]
    if missing:
        raise SystemExit(f"unknown or unavailable cases {missing}; available: {', '.join(cases)}")
    return {n: cases[n] for n in wanted}


def _subsample(name, s, y):
    if s.size <= N_SUBSAMPLE:
        return s, y
    rng = np.random.default_rng(sum(map(ord, name)))  # seeded by the case name
    idx = np.sort(rng.choice(s.size, N_SUBSAMPLE, replace=False))
    return s[idx], y[idx]


def default_threshold(scores) -> float:
    return 0.5 if looks_like_probabilities(scores) else 0.0


# ---- one trial -------------------------------------------------------------------------
def _quiet_fit(scores, labels, seed, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.fit(scores, labels, seed=seed, **options)


def spe_trial(method, s, y, labels, seed, t0, truth, truths):
    start = time.perf_counter()
    try:
        res = _quiet_fit(s, labels, seed, **fit_options(method, s))
        curve = res.pr_curve(GRID, level=LEVEL)
        est = {"prevalence": res.prevalence(LEVEL), "ap": res.average_precision(LEVEL),
               "accuracy": res.metrics_at(t0, LEVEL)["accuracy"]}
    except Exception as exc:  # a crash is a result too
        return {"failed": 1, "error": f"{type(exc).__name__}: {exc}"[:200]}
    row = {"failed": 0, "s": time.perf_counter() - start,
           "err": pr_area(curve.precision, truth), "cov": band_coverage(curve.lower, curve.upper, truth),
           # the same posterior's mean curve: what the point estimate was before the median
           "err_mean_estimate": pr_area(curve.weights @ curve.draws, truth),
           "width": float(np.mean((curve.upper - curve.lower)[INNER])),
           "iscore": interval_score(curve.lower, curve.upper, truth)}
    for key, e in est.items():
        row[f"{key}_err"] = abs(e.value - truths[key])
        row[f"{key}_err_mean_estimate"] = abs(e.mean - truths[key])
        row[f"{key}_cov"] = covers(e.lower, e.upper, truths[key])
    mixture = res.fits.get("mixture")
    row["mcmc"] = int(mixture is not None and mixture.posterior.method == "emcee")
    row["khat_bad"] = int(mixture is not None and mixture.posterior.importance_khat > 0.7)
    row["w_mixture"] = float(res.model_weights.get("mixture", 0.0))
    if len(res.fits) > 1:  # does summary() say the score models disagree?
        row["disagree"] = int(disagreement(res.model_estimates(LEVEL), res.model_weights) is not None)
    return row


def beta_interval(k, n):
    return stats.beta.ppf([ALPHA / 2, 1 - ALPHA / 2], k + 1, n - k + 1)


def naive_trial(s, y, idx, rng, t0, truth, truths, n_boot=200):
    if idx.size == 0:
        return {"failed": 0}
    ls, ly = s[idx], y[idx]
    curve = exact_precision_at_recall(ls, ly, GRID)
    boots = np.empty((n_boot, GRID.size))
    ap_boot = np.empty(n_boot)
    for b in range(n_boot):
        i = rng.integers(0, idx.size, idx.size)
        boots[b] = exact_precision_at_recall(ls[i], ly[i], GRID)
        ap_boot[b] = exact_ap(ls[i], ly[i]) if ly[i].any() else 0.0
    lo, hi = np.quantile(boots, [ALPHA / 2, 1 - ALPHA / 2], axis=0)
    ap = exact_ap(ls, ly) if ly.any() else 0.0
    correct = (ls >= t0) == (ly == 1)
    intervals = {"prevalence": (ly.mean(), beta_interval(ly.sum(), ly.size)),
                 "ap": (ap, np.quantile(ap_boot, [ALPHA / 2, 1 - ALPHA / 2])),
                 "accuracy": (correct.mean(), beta_interval(correct.sum(), correct.size))}
    row = {"failed": 0, "err": pr_area(curve, truth), "cov": band_coverage(lo, hi, truth),
           "width": float(np.mean((hi - lo)[INNER])), "iscore": interval_score(lo, hi, truth),
           "no_positive": int(ly.sum() == 0)}
    for key, (value, (a, b)) in intervals.items():
        row[f"{key}_err"] = abs(value - truths[key])
        row[f"{key}_cov"] = covers(a, b, truths[key])
    return row


def run_trial(job):
    """One (case, budget, trial): every method on the same labeled items."""
    name, s, y, budget, trial, methods = job
    rng = np.random.default_rng([budget, trial, sum(map(ord, name))])
    idx = rng.choice(s.size, budget, replace=False)
    labels = np.full(s.size, np.nan)
    labels[idx] = y[idx]
    t0 = default_threshold(s)
    truth = exact_precision_at_recall(s, y, GRID)
    truths = {"prevalence": y.mean(), "ap": exact_ap(s, y), "accuracy": accuracy_at(s, y, t0)}
    out = {}
    for method in methods:
        if method == "naive":
            out[method] = naive_trial(s, y, idx, rng, t0, truth, truths)
        else:
            out[method] = spe_trial(method, s, y, labels, trial, t0, truth, truths)
    return name, budget, trial, out


# ---- SSME's protocol -----------------------------------------------------------------------
def ssme_models(files=None):
    """{name: (scores, labels)} for the binary shared files, every model in scores_all."""
    out = {}
    for short in files or ("imdb", "bank", "compas"):
        path = DATA / FILES[short]
        if not path.exists():
            continue
        d = np.load(path, allow_pickle=False)
        y = d["labels"].astype(float)
        if "scores_all" in d.files:
            for j, m in enumerate(d["model_names"]):
                out[f"{short} {str(m).removeprefix('score_')}"] = (d["scores_all"][:, j].astype(float), y)
        else:
            out[f"{short} model"] = (d["probs"][:, 1].astype(float), y)
    return out


def ssme_metrics_from_result(res, threshold=0.5):
    """Posterior means of accuracy, AUC, AUPRC and ECE on the fitted items."""
    d = res.data
    counts = res.positive_counts  # (M, G)
    bins = np.minimum((np.clip(d.threshold, 0, 1) * 10).astype(int), 9)
    onehot = np.zeros((d.n_groups, 10))
    onehot[np.arange(d.n_groups), bins] = 1.0
    score_sum = (d.n_total * d.frame.from_unit(d.z)) @ onehot
    ece_draws = np.abs(score_sum[None, :] - counts @ onehot).sum(axis=1) / d.n_items
    return {"accuracy": res.metrics_at(threshold)["accuracy"].value, "auc": res.auroc().value,
            "auprc": res.average_precision().value, "ece": float(res.weights @ ece_draws)}


def exact_metrics(s, y, threshold=0.5):
    return {"accuracy": accuracy_at(s, y, threshold), "auc": exact_auc(s, y), "auprc": exact_ap(s, y),
            "ece": ece(s, y)}


def ssme_lite_metrics(s, labels, seed):
    from ssme_lite import SSMEEstimator

    known = ~np.isnan(labels)
    y = np.where(known, labels, -1).astype(int)
    p = np.clip(s, 1e-6, 1 - 1e-6)
    # (n, models) of P(y = 1): one column is one model (an (n, 2) array would be two models)
    est = SSMEEstimator(random_state=seed, early_stopping=True).fit(p[:, None], y)
    rep = est.evaluate(metrics=("accuracy", "auc", "auprc", "ece"), n_draws=100, random_state=seed)
    return {k: float(rep.data["metrics"][k]["rows"][0]["estimate"]) for k in ("accuracy", "auc", "auprc", "ece")}


def ssme_split(name, y, seed):
    """SSME's split, seeded by ``name`` and ``seed``: (held, chosen) item indices, a random
    half held out as the truth and 20 labeled + 1,000 unlabeled (a smaller file's whole
    other half) from the rest, the labeled first; None when the 20 hold one class."""
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    perm = rng.permutation(y.size)
    held, chosen = perm[: y.size // 2], perm[y.size // 2:][:1020]
    return None if np.unique(y[chosen[:20]]).size < 2 else (held, chosen)


def run_ssme_seed(job):
    name, s, y, seed, methods = job
    split = ssme_split(name, y, seed)
    if split is None:
        return name, seed, None
    held, chosen = split
    truth = exact_metrics(s[held], y[held])
    cs, cy = s[chosen], y[chosen]
    labels = np.full(cs.size, np.nan)
    labels[:20] = cy[:20]
    out = {"labeled only": exact_metrics(cs[:20], cy[:20]), "floor (all fitted items labeled)": exact_metrics(cs, cy)}
    for method in methods:
        start = time.perf_counter()
        try:
            if method == "ssme-lite":
                est = ssme_lite_metrics(cs, labels, seed)
            else:
                est = ssme_metrics_from_result(_quiet_fit(cs, labels, seed, **fit_options(method, cs)))
        except Exception:  # a failed fit is counted, not hidden
            out[method] = None
            continue
        est["s"] = time.perf_counter() - start
        out[method] = est
    errors = {m: None if e is None else {k: 100 * abs(e[k] - truth[k]) for k in truth} | {"s": e.get("s", 0.0)}
              for m, e in out.items()}
    return name, seed, errors


# ---- aggregation and report ------------------------------------------------------------
def _mean(values):
    vals = [v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))]
    return float(np.mean(vals)) if vals else float("nan")


def aggregate(trials, methods):
    """Rows per (case, budget) from the per-trial results."""
    rows = []
    keys = sorted({(n, b) for n, b, _, _ in trials}, key=lambda k: (list(dict.fromkeys(t[0] for t in trials)).index(k[0]), k[1]))
    for name, budget in keys:
        group = [out for n, b, _, out in trials if n == name and b == budget]
        row = {"case": name, "labels": budget, "trials": len(group)}
        for m in methods:
            ok = [g[m] for g in group if m in g and not g[m].get("failed") and "err" in g[m]]
            row[f"{m}_failed"] = sum(int(g[m].get("failed", 0)) for g in group if m in g)
            for key in ("err", "cov", "width", "iscore", "prevalence_cov", "ap_cov", "accuracy_cov",
                        "prevalence_err", "ap_err", "accuracy_err", "s", "mcmc", "khat_bad", "w_mixture",
                        "err_mean_estimate", "prevalence_err_mean_estimate", "ap_err_mean_estimate",
                        "accuracy_err_mean_estimate"):
                row[f"{m}_{key}"] = _mean([o.get(key) for o in ok])
            if m != "naive" and ok:
                row[f"{m}_s"] = float(np.median([o["s"] for o in ok]))
            flagged = [o for o in ok if o.get("disagree") == 1]
            unflagged = [o for o in ok if o.get("disagree") == 0]
            row[f"{m}_n_disagree"], row[f"{m}_n_agree"] = len(flagged), len(unflagged)
            for key in ("err", "prevalence_err", "prevalence_cov", "ap_cov"):
                row[f"{m}_{key}_disagree"] = _mean([o[key] for o in flagged])
                row[f"{m}_{key}_agree"] = _mean([o[key] for o in unflagged])
        if "naive" in methods:
            naive = [g["naive"] for g in group if "err" in g.get("naive", {})]
            for m in methods:
                if m == "naive":
                    continue
                pairs = [(g[m]["err"], g["naive"]["err"]) for g in group
                         if "err" in g.get(m, {}) and "err" in g.get("naive", {})]
                row[f"{m}_ratio"] = (float(np.mean([a for a, _ in pairs]) / np.mean([b for _, b in pairs]))
                                     if pairs and np.mean([b for _, b in pairs]) > 0 else float("nan"))
                row[f"{m}_win"] = _mean([float(a <= b + 0.01) for a, b in pairs]) if pairs else float("nan")
            row["naive_no_positive"] = sum(g.get("no_positive", 0) for g in naive)
        rows.append(row)
    return rows


def aggregate_ssme(results, methods):
    rows = []
    names = list(dict.fromkeys(n for n, _, _ in results))
    for name in names:
        done = [e for n, _, e in results if n == name and e is not None]
        for m in ["labeled only", *methods, "floor (all fitted items labeled)"]:
            ok = [e[m] for e in done if e.get(m) is not None]
            if not ok:
                continue
            rows.append({"model": name, "method": m, "seeds": len(ok),
                         **{k: _mean([o[k] for o in ok]) for k in ("accuracy", "auc", "auprc", "ece")},
                         "s": float(np.median([o["s"] for o in ok])) if m in methods else float("nan")})
    return rows


def summary_by_file(rows):
    """Mean over the models of each file, per method, and the ratio to labeled-only.

    Each method's ratio uses the labeled-only error on the models that method ran on
    (spe refuses scores with fewer than 3 distinct values, e.g. a 2-leaf decision tree).
    """
    keys = ("accuracy", "auc", "auprc", "ece")
    out = []
    for f in dict.fromkeys(r["model"].split()[0] for r in rows):
        sub = [r for r in rows if r["model"].split()[0] == f]
        base = {r["model"]: r for r in sub if r["method"] == "labeled only"}
        for m in dict.fromkeys(r["method"] for r in sub):
            mine = [r for r in sub if r["method"] == m]
            vals = {k: _mean([r[k] for r in mine]) for k in keys}
            ref = {k: _mean([base[r["model"]][k] for r in mine if r["model"] in base]) for k in keys}
            out.append({"file": f, "method": m, "models": len(mine), **vals,
                        **{f"{k}_ratio": vals[k] / ref[k] if ref[k] else float("nan") for k in keys}})
    return out


def _fmt(v, spec):
    if isinstance(v, str):
        return v
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "-"
    return spec.format(v)


def table(rows, cols, spec="{:.3f}"):
    specs = {c: (spec if not isinstance(spec, dict) else spec.get(c, "{:.3f}")) for c in cols}
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c), "{}" if c in ("case", "labels", "trials", "model", "method", "file", "seeds", "models") else specs[c]) for c in cols) + " |")
    return "\n".join(lines)


def headline(rows, methods):
    """Targets of the honesty issue, over cases, at 10, 20 and 50 labels."""
    out = []
    for m in [x for x in methods if x != "naive"]:
        sel = [r for r in rows if r["labels"] in (10, 20, 50)]
        if not sel:
            continue
        low = [r for r in rows if r["labels"] in (10, 20)]
        cases = list(dict.fromkeys(r["case"] for r in rows))
        falls = [c for c in cases
                 if any(r["case"] == c and r["labels"] == 10 for r in rows)
                 and any(r["case"] == c and r["labels"] == 100 for r in rows)]
        fall_ok = sum(next(r[f"{m}_err"] for r in rows if r["case"] == c and r["labels"] == 100)
                      < next(r[f"{m}_err"] for r in rows if r["case"] == c and r["labels"] == 10) for c in falls)
        at100 = [r[f"{m}_ratio"] for r in rows if r["labels"] == 100]
        out.append({
            "method": m,
            "band_cov_mean": _mean([r[f"{m}_cov"] for r in sel]),
            "band_cov_min_case": min(_mean([r[f"{m}_cov"] for r in sel if r["case"] == c]) for c in cases),
            "iscore_vs_boot": _mean([r[f"{m}_iscore"] for r in low]) / _mean([r["naive_iscore"] for r in low]),
            "iscore_vs_platt": (_mean([r[f"{m}_iscore"] for r in low]) / _mean([r["platt_iscore"] for r in low])
                                if "platt_iscore" in low[0] else float("nan")),
            "prev_cov": _mean([r[f"{m}_prevalence_cov"] for r in sel]),
            "ap_cov": _mean([r[f"{m}_ap_cov"] for r in sel]),
            "acc_cov": _mean([r[f"{m}_accuracy_cov"] for r in sel]),
            "win_rate": _mean([r[f"{m}_win"] for r in low]),
            # ratios of means over case x budget rows, as the targets are stated
            "err_ratio": _mean([r[f"{m}_err"] for r in low]) / _mean([r["naive_err"] for r in low]),
            "median_case_ratio": float(np.median([r[f"{m}_ratio"] for r in low])),
            "max_ratio_100": max(at100) if at100 else float("nan"),
            "falls_10_to_100": f"{fall_ok}/{len(falls)}",
            "mean_err": _mean([r[f"{m}_err"] for r in low]),
        })
    return out


def versions():
    import importlib.metadata as md

    out = {}
    for p in ("numpy", "scipy", "emcee", "arviz", "scikit-learn", "ssme-lite"):
        try:
            out[p] = md.version(p)
        except md.PackageNotFoundError:
            pass
    return out


def run_stamp() -> str:
    """"Run DATE, commit C; package versions" for the head of a RESULTS.md section."""
    import datetime

    return (f"Run {datetime.date.today().isoformat()}, commit {git_commit()}; "
            + ", ".join(f"{k} {v}" for k, v in versions().items()))


def git_commit():
    """The commit the code came from; "+uncommitted" when the package or a benchmark script
    differs from it (a stamp must name the code that made the numbers)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--", "spe", "benchmarks/*.py")
    except Exception:
        return "unknown"
    return commit + ("+uncommitted" if changed else "")


def point_estimates(rows, methods):
    """Mean error of the posterior median (reported) and mean (not) over cases, per budget band."""
    out = []
    for m in [x for x in methods if x != "naive"]:
        for label, budgets in (("10-20", (10, 20)), ("50-100", (50, 100))):
            sel = [r for r in rows if r["labels"] in budgets]
            if not sel or f"{m}_err_mean_estimate" not in sel[0]:
                continue
            row = {"method": m, "labels": label,
                   "pr_median": _mean([r[f"{m}_err"] for r in sel]),
                   "pr_mean": _mean([r[f"{m}_err_mean_estimate"] for r in sel])}
            for key in ("prevalence", "ap", "accuracy"):
                row[f"{key}_median"] = _mean([r[f"{m}_{key}_err"] for r in sel])
                row[f"{key}_mean"] = _mean([r[f"{m}_{key}_err_mean_estimate"] for r in sel])
            out.append(row)
    return out


def disagreement_rows(rows, m="spe"):
    """Per budget over cases: share of trials flagged, and errors/coverage flagged vs not
    (means weighted by each case's trial counts)."""
    out = []
    for budget in sorted({r["labels"] for r in rows if f"{m}_n_disagree" in r}):
        sel = [r for r in rows if r["labels"] == budget and f"{m}_n_disagree" in r]
        n_dis = sum(r[f"{m}_n_disagree"] for r in sel)
        n_agr = sum(r[f"{m}_n_agree"] for r in sel)

        def pooled(key, side, count):
            total = sum(r[count] for r in sel if r[count])
            return (sum(r[f"{m}_{key}_{side}"] * r[count] for r in sel if r[count]) / total
                    if total else float("nan"))

        out.append({"labels": budget, "trials": n_dis + n_agr,
                    "share_disagree": n_dis / max(n_dis + n_agr, 1),
                    "err_disagree": pooled("err", "disagree", f"{m}_n_disagree"),
                    "err_agree": pooled("err", "agree", f"{m}_n_agree"),
                    "prev_err_disagree": pooled("prevalence_err", "disagree", f"{m}_n_disagree"),
                    "prev_err_agree": pooled("prevalence_err", "agree", f"{m}_n_agree"),
                    "prev_cov_disagree": pooled("prevalence_cov", "disagree", f"{m}_n_disagree"),
                    "prev_cov_agree": pooled("prevalence_cov", "agree", f"{m}_n_agree")})
    return out


def report(results, args_text):
    rows, methods = results["rows"], results["methods"]
    hl = headline(rows, methods)
    lines = [
        "## Real classifier outputs (`benchmarks/real.py`)",
        "",
        f"Run {results['date']} on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; " + ", ".join(f"{k} {v}" for k, v in results["versions"].items())
        + f"; commit {results['commit']}. Command: `python benchmarks/real.py{args_text}` "
        f"({results['seconds'] / 60:.1f} min, {results['jobs']} processes).",
        "",
        "Methods: `spe` = package default (score mixture + Bayesian piecewise Platt, weighted by their "
        "LOO predictive densities on the labels); `spe+calibrated` = the same plus, for probability scores, "
        "the opt-in `calibrated` member (Platt with a tight prior at \"the probabilities are right\"); "
        "`mixture` = the plain SPE mixture of spe 0.1; `platt` = "
        "Bayesian Platt alone (the baseline to beat); `beta` = Bayesian beta calibration alone; `spline` = "
        "Bayesian piecewise Platt alone (a slope per quartile segment of the logit); `naive` = labeled "
        "items alone with a bootstrap band. Cases of N = 2,000 (subsampled, seeded) unless `full`.",
        "",
        "### Targets over cases at 10/20/50 labels",
        "",
        "`band_cov_*` = 90% PR band coverage (mean; worst case); `iscore_vs_boot` / `iscore_vs_platt` = mean "
        "interval score / that of the bootstrap band (target <= 0.7) / of the Platt band (target < 1), 10-20 "
        "labels; `*_cov` = 90% interval coverage of prevalence, AP, accuracy (target >= 0.8); `win_rate` = "
        "share of trials with error <= naive + 0.01 (10-20 labels, target >= 0.75); `err_ratio` = mean error "
        "/ naive mean error over cases (10-20 labels, target <= 0.6), `median_case_ratio` the median of the "
        "per-case ratios (robust to cases where the labels alone are nearly exact); `max_ratio_100` = worst "
        "case at 100 labels (target <= 1.1); `falls_10_to_100` = cases whose error at 100 labels is below "
        "that at 10.",
        "",
        table(hl, ["method", "band_cov_mean", "band_cov_min_case", "iscore_vs_boot", "iscore_vs_platt", "prev_cov",
                   "ap_cov", "acc_cov", "win_rate", "err_ratio", "median_case_ratio", "max_ratio_100",
                   "falls_10_to_100", "mean_err"]),
        "",
        "### Point estimate: posterior median or mean",
        "",
        "The package reports the weighted posterior median (pointwise for curves); the same fits' "
        "posterior mean gave these errors (mean over cases; 10-20 and 50-100 labels).",
        "",
        table(point_estimates(rows, methods), ["method", "labels", "pr_median", "pr_mean", "prevalence_median",
                                               "prevalence_mean", "ap_median", "ap_mean", "accuracy_median",
                                               "accuracy_mean"]),
        "",
        "### PR curve: error, band coverage, interval score per case and budget",
        "",
        table(rows, ["case", "labels", "trials"] + [f"{m}_err" for m in methods]
              + [f"{m}_cov" for m in methods] + [f"{m}_iscore" for m in methods]
              + [f"{m}_ratio" for m in methods if m != "naive"] + [f"{m}_win" for m in methods if m != "naive"]),
        "",
        "### Scalar intervals (90%): coverage and absolute error",
        "",
        table(rows, ["case", "labels"] + [f"{m}_{k}_{q}" for k in ("prevalence", "ap", "accuracy")
                                          for q in ("cov", "err") for m in methods]),
        "",
        "### Stated disagreement between score models (`spe`)",
        "",
        "`summary()` says the score models disagree when two that carry weight >= 0.05 have 90% intervals "
        "of prevalence or AP more than 0.01 apart. Per label budget, over all cases: how often it said so, "
        "and the PR-area error, prevalence error and coverage of the trials where it did and did not.",
        "",
        table(disagreement_rows(rows), ["labels", "trials", "share_disagree", "err_disagree", "err_agree",
                                        "prev_err_disagree", "prev_err_agree", "prev_cov_disagree",
                                        "prev_cov_agree"]),
        "",
        "### Fits: median time (s), MCMC share, k-hat > 0.7 share, stacking weight of the mixture, failures",
        "",
        table(rows, ["case", "labels"] + [f"{m}_{k}" for m in methods if m != "naive"
                                          for k in ("s", "mcmc", "khat_bad", "w_mixture", "failed")]),
        "",
    ]
    if results.get("ssme"):
        lines += [
            "### SSME's protocol (20 labeled + 1,000 unlabeled, truth on a held-out half)",
            "",
            f"Mean absolute error in points over seeds ({results['ssme_seeds']} seeds, seeds with one class "
            "among the labels skipped), mean over the models of each binary file (10 models for the fairness "
            "files' `scores_all`, 1 for imdb). `*_ratio` = error / labeled-only error. ssme-lite runs on "
            f"the first {results['ssme_lite_seeds']} seeds of the first model of each file only (it takes "
            "tens of seconds per fit). Its published numbers on its own CivilComments data (7 models): "
            "accuracy 2.27, ECE 2.12, AUC 3.28, AUPRC 9.41; labeled-only 5.54, 5.05, 6.98, 22.4 (reference, "
            "not the same data)." + (f" {results['ssme_note']}." if results.get("ssme_note") else ""),
            "",
            table(results["ssme_summary"], ["file", "method", "models", "accuracy", "auc", "auprc", "ece",
                                            "accuracy_ratio", "auc_ratio", "auprc_ratio"]),
            "",
            "<details><summary>Per model</summary>",
            "",
            table(results["ssme"], ["model", "method", "seeds", "accuracy", "auc", "auprc", "ece", "s"]),
            "",
            "</details>",
            "",
        ]
    return "\n".join(lines)


def with_block(old: str, text: str, markers) -> str:
    """``old`` with the text between ``markers`` replaced by ``text`` (the block appended if absent)."""
    block = f"{markers[0]}\n{text}\n{markers[1]}"
    if markers[0] in old:
        head, rest = old.split(markers[0], 1)
        return head + block + rest.split(markers[1], 1)[1]
    return old.rstrip() + "\n\n" + block + "\n"


def write_section(text, path=HERE / "RESULTS.md", markers=MARKERS):
    """Replace the text between ``markers`` in ``path`` (append the block if absent)."""
    old = path.read_text() if path.exists() else "# spe benchmark results\n"
    path.write_text(with_block(old, text, markers))


def readme_summary(results) -> str:
    """The evidence page's block: targets over cases and the SSME protocol, from stored results."""
    rows, methods = results["rows"], results["methods"]
    lines = [
        f"From `python benchmarks/real.py` (run {results['date']}, commit {results['commit']}; "
        f"{len({r['case'] for r in rows})} cases, {max(r['trials'] for r in rows)} trials per label "
        "budget; full tables in `benchmarks/RESULTS.md`). Targets of the honesty issue over cases at "
        "10/20/50 labels (band coverage >= 0.85 mean and >= 0.6 per case; interval score <= 0.7x the "
        "bootstrap band's; scalar coverage >= 0.8; win rate >= 0.75; error <= 0.6x the labels alone):",
        "",
        table(headline(rows, methods), ["method", "band_cov_mean", "band_cov_min_case", "iscore_vs_boot",
                                        "iscore_vs_platt", "prev_cov", "ap_cov", "acc_cov", "win_rate",
                                        "err_ratio", "median_case_ratio", "max_ratio_100", "falls_10_to_100"]),
        "",
    ]
    flagged = disagreement_rows(rows)
    if flagged:
        lines += [
            "How often `summary()` said the score models disagree, and the PR-area error and prevalence "
            "coverage of `spe` in the trials where it did and did not:",
            "",
            table(flagged, ["labels", "trials", "share_disagree", "err_disagree", "err_agree",
                            "prev_cov_disagree", "prev_cov_agree"]),
            "",
        ]
    if results.get("ssme_summary"):
        lines += [
            f"SSME's protocol (20 labels + 1,000 unlabeled, truth on a held-out half, {results['ssme_seeds']} "
            "seeds; mean absolute error in points, mean over each file's models):",
            "",
            table(results["ssme_summary"], ["file", "method", "models", "accuracy", "auc", "auprc", "ece",
                                            "accuracy_ratio", "auc_ratio", "auprc_ratio"]),
            "",
        ]
    return "\n".join(lines)


def rebuild_report(path=HERE / "results" / "real.json"):
    """Regenerate the RESULTS.md section, the figure and the evidence page's block from stored results."""
    results = json.loads(path.read_text())
    if results.get("ssme"):  # derived tables are recomputed from the stored rows
        results["ssme_summary"] = summary_by_file(results["ssme"])
    text = report(results, results.get("args", ""))
    write_section(text)
    write_section(readme_summary(results), DOCS_PAGE, SUMMARY_MARKERS)
    figure(results["rows"], results["methods"], ROOT / "figures" / "real_benchmark.png")
    print(text)


def figure(rows, methods, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(r["case"] for r in rows))
    shown = [m for m in methods if m != "naive"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.32 * len(cases) + 1.8), sharey=True)
    y = np.arange(len(cases))
    colors = {"spe": "tab:red", "spe+calibrated": "tab:orange", "mixture": "tab:gray", "platt": "tab:blue",
              "beta": "tab:green", "spline": "tab:purple"}
    height = 0.8 / len(shown)
    for i, m in enumerate(shown):
        off = (i - (len(shown) - 1) / 2) * height
        ratio = [_mean([r[f"{m}_ratio"] for r in rows if r["case"] == c and r["labels"] in (10, 20, 50)]) for c in cases]
        cov = [_mean([r[f"{m}_cov"] for r in rows if r["case"] == c and r["labels"] in (10, 20, 50)]) for c in cases]
        axes[0].barh(y + off, ratio, height=height, color=colors.get(m, "k"), label=m)
        axes[1].barh(y + off, cov, height=height, color=colors.get(m, "k"), label=m)
    if "naive" in methods:
        cov = [_mean([r["naive_cov"] for r in rows if r["case"] == c and r["labels"] in (10, 20, 50)]) for c in cases]
        axes[1].plot(cov, y, "k|", ms=10, mew=2, label="naive bootstrap")
    axes[0].axvline(1.0, color="k", lw=1, ls="--")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("PR-area error / labeled-only error (10-50 labels; < 1 is better)")
    axes[1].axvline(0.9, color="k", lw=1, ls="--")
    axes[1].set_xlim(0, 1.02)
    axes[1].set_xlabel("90% PR band coverage of the true curve (10-50 labels)")
    axes[0].set_yticks(y, cases)
    axes[0].invert_yaxis()
    axes[1].legend(fontsize=8, loc="lower left")
    fig.suptitle("spe on real classifier outputs")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_trials(pool, cases, budgets, trials, methods, ref_trials, log, start):
    def methods_for(t):
        return tuple(m for m in methods if m != "mixture" or t < ref_trials)

    jobs = [(n, s, y, b, t, methods_for(t)) for n, (s, y) in cases.items() for b in budgets
            for t in range(5 if n.endswith("full") else trials)]
    log(f"{len(jobs)} trials over {len(cases)} cases, methods {methods}")
    out = []
    for i, result in enumerate(pool.map(run_trial, jobs, chunksize=1), 1):
        out.append(result)
        if i % 50 == 0 or i == len(jobs):
            log(f"  {i}/{len(jobs)} trials, {(time.time() - start) / 60:.1f} min")
    return out


def run_ssme(pool, seeds, methods, lite_seeds, files, log):
    """SSME's protocol over the binary files' models; ssme-lite on the first model of each file."""
    methods = [m for m in methods if m != "naive"]
    lite = lite_seeds > 0 and _has_ssme_lite()
    jobs = []
    for name, (s, y) in ssme_models(files).items():
        first = name.split()[0] not in {j[0].split()[0] for j in jobs}
        for seed in range(seeds):
            extra = ["ssme-lite"] if lite and first and seed < lite_seeds else []
            jobs.append((name, s, y, seed, methods + extra))
    log(f"SSME protocol: {len(jobs)} seeds")
    results = list(pool.map(run_ssme_seed, jobs, chunksize=1))
    return results, methods + (["ssme-lite"] if lite else [])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 cases, 5 trials, budgets 10 and 50 (< 2 min)")
    ap.add_argument("--cases", nargs="+", default=None, help="case names (default: all)")
    ap.add_argument("--budgets", nargs="+", type=int, default=None, help=f"label budgets (default {BUDGETS})")
    ap.add_argument("--trials", type=int, default=None, help="trials per budget (default 20; 5 with --quick)")
    ap.add_argument("--methods", nargs="+", default=None, choices=METHODS)
    ap.add_argument("--ssme-seeds", type=int, default=None, help="seeds of SSME's protocol (default 50; 0 with --quick)")
    ap.add_argument("--ssme-lite-seeds", type=int, default=3, help="seeds on which to run ssme-lite (0: skip)")
    ap.add_argument("--ssme-only", action="store_true",
                    help="run only SSME's protocol and merge it into benchmarks/results/real.json")
    ap.add_argument("--ssme-files", nargs="+", default=None, choices=("imdb", "bank", "compas"),
                    help="with --ssme-only: these files only (their rows replace the stored ones)")
    ap.add_argument("--reference-trials", type=int, default=None,
                    help="trials per budget for the spe 0.1 `mixture` reference (default: --trials)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--json", default=None, help="also write the raw results to this JSON file")
    ap.add_argument("--report", action="store_true",
                    help="run nothing: rebuild the RESULTS.md section, the evidence page's block and figure from "
                         "benchmarks/results/real.json")
    args = ap.parse_args(argv)
    if args.report:
        rebuild_report()
        return
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    quick = args.quick
    methods = tuple(args.methods or (("spe", "platt", "naive") if quick else METHODS))
    if "naive" not in methods:  # every ratio and interval-score target is against it (and it is cheap)
        methods += ("naive",)
    ssme_seeds = args.ssme_seeds if args.ssme_seeds is not None else (0 if quick else 50)
    start = time.time()
    commit = git_commit()  # the code that runs (the workers fork from this process)
    if args.ssme_only:
        stored_path = HERE / "results" / "real.json"
        stored = json.loads(stored_path.read_text())
        wanted = list(args.methods) if args.methods else stored["methods"]
        with ProcessPoolExecutor(args.jobs) as pool:
            ssme, ssme_methods = run_ssme(pool, ssme_seeds, wanted, args.ssme_lite_seeds, args.ssme_files, log)
        rows = aggregate_ssme(ssme, ssme_methods)
        if args.methods:  # add these methods' rows only; the stored baselines stay
            rows = [r for r in rows if r["method"] in ssme_methods]
        new = {(r["model"], r["method"]) for r in rows}
        stored["ssme"] = [r for r in stored.get("ssme", []) if (r["model"], r["method"]) not in new] + rows
        files = {r["model"].split()[0] for r in rows}
        stored["ssme_summary"] = summary_by_file(stored["ssme"])
        note = (f"Rows for {', '.join(sorted(files))} ({', '.join(sorted({m for _, m in new}))}) from commit "
                f"{commit}, {datetime.date.today().isoformat()}, {ssme_seeds} seeds")
        stored["ssme_note"] = "; ".join(filter(None, [stored.get("ssme_note"), note]))
        stored_path.write_text(json.dumps(stored, indent=1, default=float))
        rebuild_report(stored_path)
        return
    budgets = tuple(args.budgets or ((10, 50) if quick else BUDGETS))
    trials = args.trials or (5 if quick else 20)
    cases = all_cases(args.cases, quick)
    if not cases:
        raise SystemExit(f"no cases: put the shared data in {DATA} (or set SPE_SHARED_DATA)")
    ref_trials = args.reference_trials if args.reference_trials is not None else trials
    with ProcessPoolExecutor(args.jobs) as pool:
        trial_results = run_trials(pool, cases, budgets, trials, methods, ref_trials, log, start)
        ssme, ssme_methods = (run_ssme(pool, ssme_seeds, methods, args.ssme_lite_seeds, None, log)
                              if ssme_seeds else ([], []))
    rows = aggregate(trial_results, methods)
    results = {"date": datetime.date.today().isoformat(), "versions": versions(), "commit": commit,
               "seconds": time.time() - start, "jobs": args.jobs, "methods": list(methods), "rows": rows,
               "ssme_seeds": ssme_seeds, "ssme_lite_seeds": args.ssme_lite_seeds if ssme_methods else 0}
    if ssme:
        results["ssme"] = aggregate_ssme(ssme, ssme_methods)
        results["ssme_summary"] = summary_by_file(results["ssme"])
    args_text = "" if not argv and len(sys.argv) == 1 else " " + " ".join(argv or sys.argv[1:])
    results["args"] = args_text
    text = report(results, args_text)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=float))
    if not quick and args.cases is None:
        (HERE / "results").mkdir(exist_ok=True)
        (HERE / "results" / "real.json").write_text(json.dumps(results, indent=1, default=float))
        write_section(text)
        write_section(readme_summary(results), DOCS_PAGE, SUMMARY_MARKERS)
        figure(rows, methods, ROOT / "figures" / "real_benchmark.png")
        log(f"wrote {HERE / 'RESULTS.md'} (real-score section), the evidence page's block and figures/real_benchmark.png")


def _has_ssme_lite():
    try:
        import ssme_lite  # noqa: F401
    except ImportError:
        print("ssme-lite is not installed (pip install -e '.[bench]'): skipping it", file=sys.stderr)
        return False
    return True


if __name__ == "__main__":
    main()
