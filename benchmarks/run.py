"""The head of RESULTS.md: label efficiency, scalar metrics and threshold choice against the
peers, speed and memory, MAP time, importance sampling vs emcee.

    pip install -e ".[bench]"
    python -m benchmarks.run --quick              # < 1 minute, prints the tables
    python -m benchmarks.run                      # every part; rewrites the head of RESULTS.md
    python -m benchmarks.run --only thresholds    # one part; the others from results/run/*.json
    python -m benchmarks.run --report             # the head again from results/run/*.json

The sections after the head (between markers) are written by their own scripts and kept
as they are: benchmarks/README.md lists the command of each.

Every comparison is measured side by side in the same process (or, for memory, in
fresh subprocesses launched back to back), so ratios hold on a noisy machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import spe
from spe.metrics import DEFAULT_RECALL_GRID
from spe.metrics import exact_precision_at_recall, labeled_sweep, sample_average_precision
from spe.mixture import get_component
from spe.mixture import fit_map
from spe.mixture import MixtureModel
from spe.mixture._posterior import importance_sample, run_emcee
from spe.scores import prepare

from benchmarks.harness.report import git_commit
from benchmarks.thresholds_peers import score_classifier

HERE = Path(__file__).resolve().parent
GRID = DEFAULT_RECALL_GRID
LEVEL = 0.9


# ---- data ------------------------------------------------------------------------------
def model_data(n, seed, theta=(0.3, 2.0, 0.1, 0.7, 0.12), pair=("gamma", "truncnorm")):
    model = MixtureModel(get_component(pair[0]), get_component(pair[1]))
    return model.simulate(np.asarray(theta), n, np.random.default_rng(seed))


def datasets(quick):
    from spe.datasets import digits_scores, digits_top1

    out = {"model gamma/truncnorm": model_data(2000, 0)}
    setups = [("svm", 3), ("logres", 8)] if quick else [("svm", 3), ("logres", 8), ("svm", 8)]
    for clf, digit in setups:
        out[f"digits {clf}{digit}"] = digits_scores(clf, digit)
    if not quick:
        out["digits logres top-1 correct"] = digits_top1()
    return out


def draw_labels(y, n, rng):
    idx = rng.choice(y.size, n, replace=False)
    labels = np.full(y.size, np.nan)
    labels[idx] = y[idx]
    return labels, idx


def area(a, b):
    return float(np.trapezoid(np.abs(np.asarray(a) - np.asarray(b)), GRID))


# ---- label efficiency and honesty ------------------------------------------------------
def bootstrap_band(s, y, rng, n_boot=200):
    curves = []
    for _ in range(n_boot):
        i = rng.integers(0, s.size, s.size)
        curves.append(exact_precision_at_recall(s[i], y[i], GRID))
    return np.quantile(curves, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], axis=0)


def ap_exact(s, y):
    return float(sample_average_precision(labeled_sweep(s, y))[0])


def ppi_precision(s, y_lab, idx, threshold, yhat):
    """PPI interval for precision at a fixed threshold (mean of y among s >= threshold)."""
    from ppi_py import ppi_mean_ci

    above = s >= threshold
    lab = np.zeros(s.size, bool)
    lab[idx] = True
    sel_lab = lab & above
    if sel_lab.sum() < 2:
        return None
    lo, hi = ppi_mean_ci(y_lab[sel_lab], yhat[sel_lab], yhat[~lab & above], alpha=1 - LEVEL)
    return float(np.clip(lo, 0, 1)[0] if np.ndim(lo) else lo), float(np.clip(hi, 0, 1)[0] if np.ndim(hi) else hi)


def ssme_ap(s, labels, seed):
    """ssme-lite's AUPRC estimate and interval (needs both classes among the labels)."""
    from ssme_lite import SSMEEstimator

    known = ~np.isnan(labels)
    if len(np.unique(labels[known])) < 2:
        return None
    prob = 1 / (1 + np.exp(-(s - np.median(s)) / (np.std(s) + 1e-12)))
    y = np.where(known, labels, -1).astype(int)
    est = SSMEEstimator(random_state=seed, early_stopping=True).fit(prob[:, None], y)
    rep = est.evaluate(metrics=("auprc",), n_draws=200, confidence=LEVEL, random_state=seed)
    return _ssme_row(rep)


def _ssme_row(report):
    """(estimate, lower, upper) for AUPRC from an ssme-lite EvaluationReport."""
    row = report.data["metrics"]["auprc"]["rows"][0]
    return float(row["estimate"]), float(row["interval_low"]), float(row["interval_high"])


SSME_BUDGETS = (10, 50)


def label_efficiency(quick, log, ssme_runs):
    budgets = [10, 50] if quick else [10, 20, 50, 100]
    repeats = 3 if quick else 20
    rows, scalar_rows = [], []
    for name, (s, y) in datasets(quick).items():
        y = np.asarray(y, float)
        truth = exact_precision_at_recall(s, y, GRID)
        true_ap = ap_exact(s, y)
        t0 = float(np.quantile(s, 1 - y.mean()))  # threshold predicting the true prevalence
        true_prec_t0 = float(y[s >= t0].mean())
        yhat = 1 / (1 + np.exp(-(s - t0) / (np.std(s) + 1e-12)))
        for n in budgets:
            acc = {k: [] for k in ("naive_undef", "spe", "naive", "spe_cov", "spe_w", "boot_cov", "boot_w", "spe_fail", "t")}
            sc = {k: [] for k in ("spe_ap_err", "spe_ap_cov", "naive_ap_err", "ssme_ap_err", "ssme_ap_cov",
                                  "ssme_na", "spe_p_cov", "spe_p_w", "ppi_p_cov", "ppi_p_w", "ppi_na")}
            for rep in range(repeats):
                rng = np.random.default_rng(1000 * n + rep)
                labels, idx = draw_labels(y, n, rng)
                naive = exact_precision_at_recall(s[idx], y[idx], GRID)
                acc["naive"].append(area(naive, truth))
                acc["naive_undef"].append(y[idx].sum() == 0)
                lo, hi = bootstrap_band(s[idx], y[idx], rng)
                acc["boot_cov"].append(np.mean((truth >= lo) & (truth <= hi)))
                acc["boot_w"].append(np.mean(hi - lo))
                sc["naive_ap_err"].append(abs(ap_exact(s[idx], y[idx]) - true_ap))
                t = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = spe.fit(s, labels, seed=rep)
                        c = res.pr_curve(GRID, level=LEVEL)
                except Exception as exc:  # a crash counts as a failure
                    acc["spe_fail"].append(1)
                    log(f"  spe failed on {name}, n={n}, rep={rep}: {exc}")
                    continue
                acc["t"].append(time.perf_counter() - t)
                acc["spe_fail"].append(0)
                acc["spe"].append(area(c.precision, truth))
                acc["spe_cov"].append(np.mean((truth >= c.lower) & (truth <= c.upper)))
                acc["spe_w"].append(np.mean(c.upper - c.lower))
                ap = res.average_precision(LEVEL)
                sc["spe_ap_err"].append(abs(ap.value - true_ap))
                sc["spe_ap_cov"].append(ap.lower <= true_ap <= ap.upper)
                p = res.metrics_at(t0, LEVEL)["precision"]
                sc["spe_p_cov"].append(p.lower <= true_prec_t0 <= p.upper)
                sc["spe_p_w"].append(p.upper - p.lower)
                pp = ppi_precision(s, y, idx, t0, yhat)
                sc["ppi_na"].append(pp is None)
                if pp is not None:
                    sc["ppi_p_cov"].append(pp[0] <= true_prec_t0 <= pp[1])
                    sc["ppi_p_w"].append(pp[1] - pp[0])
                if rep >= ssme_runs or n not in SSME_BUDGETS:
                    continue  # ssme-lite takes ~45 s per fit: run on a subset only
                try:
                    ss = ssme_ap(s, labels, rep)
                except Exception as exc:
                    log(f"  ssme-lite failed on {name}, n={n}: {exc}")
                    ss = None
                sc["ssme_na"].append(ss is None)
                if ss is not None:
                    sc["ssme_ap_err"].append(abs(ss[0] - true_ap))
                    sc["ssme_ap_cov"].append(ss[1] <= true_ap <= ss[2])
            med = lambda v: float(np.median(v)) if len(v) else float("nan")  # noqa: E731
            mean = lambda v: float(np.mean(v)) if len(v) else float("nan")  # noqa: E731
            rows.append({
                "data": name, "labels": n, "runs": repeats,
                "spe_area": med(acc["spe"]), "naive_area": med(acc["naive"]),
                "ratio": med(acc["spe"]) / max(med(acc["naive"]), 1e-12),
                "naive_undef": int(np.sum(acc["naive_undef"])),
                "spe_cov": mean(acc["spe_cov"]), "spe_width": mean(acc["spe_w"]),
                "boot_cov": mean(acc["boot_cov"]), "boot_width": mean(acc["boot_w"]),
                "spe_fail": int(np.sum(acc["spe_fail"])), "spe_s": med(acc["t"]),
            })
            scalar_rows.append({
                "data": name, "labels": n,
                "spe_ap_err": med(sc["spe_ap_err"]), "spe_ap_cov": mean(sc["spe_ap_cov"]),
                "naive_ap_err": med(sc["naive_ap_err"]),
                "ssme_ap_err": med(sc["ssme_ap_err"]), "ssme_ap_cov": mean(sc["ssme_ap_cov"]),
                "ssme_runs": len(sc["ssme_na"]), "ssme_na": int(np.sum(sc["ssme_na"])),
                "spe_p_cov": mean(sc["spe_p_cov"]), "spe_p_w": mean(sc["spe_p_w"]),
                "ppi_p_cov": mean(sc["ppi_p_cov"]), "ppi_p_w": mean(sc["ppi_p_w"]),
                "ppi_na": int(np.sum(sc["ppi_na"])),
            })
            log(f"  {name:28s} n={n:3d}: spe {rows[-1]['spe_area']:.3f} naive {rows[-1]['naive_area']:.3f} "
                f"cov {rows[-1]['spe_cov']:.2f}")
    return rows, scalar_rows


# ---- threshold choice against learn-then-test and CV tuning ------------------------------
def thresholds(quick, log):
    """Equal label budgets: precision >= 0.9 at confidence 0.9 (spe vs MAPIE LTT), and max F1
    (spe vs scikit-learn TunedThresholdClassifierCV), scored on the true labels."""
    from spe.datasets import digits_scores
    from mapie.risk_control import BinaryClassificationController
    from sklearn.frozen import FrozenEstimator
    from sklearn.model_selection import StratifiedKFold, TunedThresholdClassifierCV

    target, conf = 0.9, 0.9
    budgets = [20, 100] if quick else [10, 20, 50, 100]
    repeats = 3 if quick else 20
    setups = [("svm", 3)] if quick else [("svm", 3), ("logres", 8), ("svm", 8)]
    score_clf = score_classifier()
    rows = []
    for clf, digit in setups:
        s, y = digits_scores(clf, digit)
        y = y.astype(float)
        order = np.sort(s)

        def proba(X):
            p = np.searchsorted(order, np.asarray(X)[:, 0], side="right") / order.size
            return np.c_[1 - p, p]

        def truth_at(t):
            sel = s >= t
            prec = y[sel].mean() if sel.any() else 0.0
            rec = y[sel].sum() / y.sum()
            return prec, rec, (2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0)

        best_f1 = max(truth_at(t)[2] for t in np.unique(s))
        for n in budgets:
            acc = {k: [] for k in ("spe_ok", "spe_met", "spe_rec", "ltt_ok", "ltt_met", "ltt_rec", "spe_f1",
                                   "tuned_f1")}
            for rep in range(repeats):
                rng = np.random.default_rng(5000 + 100 * n + rep)
                labels, idx = draw_labels(y, n, rng)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = spe.fit(s, labels, seed=rep)
                    dec = res.choose_threshold(min_precision=target, confidence=conf)
                    acc["spe_f1"].append(truth_at(res.best_fbeta_threshold(1.0).threshold)[2])
                    ctl = BinaryClassificationController(proba, "precision", target, confidence_level=conf,
                                                         list_predict_params=np.linspace(0, 1, 201))
                    ctl.calibrate(s[idx, None], y[idx])
                    if len(np.unique(y[idx])) == 2 and min(np.bincount(y[idx].astype(int))) >= 2:
                        tuned = TunedThresholdClassifierCV(
                            FrozenEstimator(score_clf().fit(s[:, None], y)), scoring="f1",
                            cv=StratifiedKFold(2, shuffle=True, random_state=rep),
                        ).fit(s[idx, None], y[idx])
                        acc["tuned_f1"].append(truth_at(tuned.best_threshold_)[2])
                    else:  # CV tuning needs both classes in each fold
                        acc["tuned_f1"].append(0.0)
                for name, ok, t in (("spe", dec.feasible, dec.threshold),
                                    ("ltt", ctl.best_predict_param is not None, None)):
                    acc[f"{name}_ok"].append(ok)
                    if not ok:
                        acc[f"{name}_rec"].append(0.0)
                        continue
                    if name == "ltt":
                        t = order[min(int(np.ceil(float(ctl.best_predict_param) * order.size)), order.size - 1)]
                    prec, rec, _ = truth_at(t)
                    acc[f"{name}_met"].append(prec >= target)
                    acc[f"{name}_rec"].append(rec)
            mean = lambda v: float(np.mean(v)) if len(v) else float("nan")  # noqa: E731
            rows.append({"data": f"digits {clf}{digit}", "labels": n, "runs": repeats,
                         "spe_feasible": mean(acc["spe_ok"]), "spe_met": mean(acc["spe_met"]),
                         "spe_recall": mean(acc["spe_rec"]), "ltt_feasible": mean(acc["ltt_ok"]),
                         "ltt_met": mean(acc["ltt_met"]), "ltt_recall": mean(acc["ltt_rec"]),
                         "best_f1": best_f1, "spe_f1": mean(acc["spe_f1"]), "tuned_f1": mean(acc["tuned_f1"])})
            r = rows[-1]
            log(f"  thresholds {r['data']} n={n}: spe met {r['spe_met']:.2f} rec {r['spe_recall']:.2f} | "
                f"ltt feasible {r['ltt_feasible']:.2f} rec {r['ltt_recall']:.2f} | F1 {r['spe_f1']:.3f} vs {r['tuned_f1']:.3f}")
    return rows


# ---- speed and scale -------------------------------------------------------------------
_SPEED_CHILD = """
import json, resource, sys, time, numpy as np, spe
from benchmarks.run import model_data
n = {n}
z, y = model_data(n, 0)
labels = np.full(n, np.nan); labels[:10] = y[:10]
spe.fit(z[:500], labels[:500], seed=0, n_draws=50).pr_curve()    # warm imports
t = time.perf_counter()
res = spe.fit(z, labels, seed=0, families={families!r})
res.pr_curve()
wall = time.perf_counter() - t
print(json.dumps({{"n": n, "s": wall, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                   "groups": res.data.n_groups, "method": res.posterior.method}}))
"""


def speed(quick, log):
    sizes = [2_000, 20_000] if quick else [2_000, 20_000, 200_000, 1_000_000]
    rows = []
    for families in ("auto", ("gamma", "truncnorm")):
        for n in sizes:
            code = _SPEED_CHILD.format(n=n, families=families)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                 cwd=HERE.parent)  # the repository root: benchmarks is importable
            r = json.loads(out.stdout.strip().splitlines()[-1])
            r["families"] = families if isinstance(families, str) else "/".join(families)
            rows.append(r)
            log(f"  speed {r['families']:16s} N={n:>9,d}: {r['s']:.2f} s, peak {r['peak_mib']:.0f} MiB")
    return rows


def map_times(quick, log):
    pairs = [("truncnorm", "truncnorm"), ("gamma", "truncnorm"), ("truncnorm", "gamma-reflected"),
             ("gamma", "gamma-reflected")]
    if not quick:
        pairs += [("lognormal", "truncnorm"), ("skewnorm", "skewnorm"), ("trunct", "trunct"),
                  ("gumbel_r", "gumbel_l"), ("beta", "beta")]
    z, y = model_data(2000, 1)
    labels = np.full(z.size, np.nan)
    labels[:20] = y[:20]
    data = prepare(z, labels)
    rows = []
    for pair in pairs:
        model = MixtureModel(get_component(pair[0]), get_component(pair[1]))
        fit_map(model, data)
        t = time.perf_counter()
        reps = 3
        for _ in range(reps):
            fit_map(model, data)
        rows.append({"pair": "/".join(pair), "s": (time.perf_counter() - t) / reps})
    big = model_data(1_000_000, 2)
    labels = np.full(big[0].size, np.nan)
    labels[:20] = big[1][:20]
    t = time.perf_counter()
    data = prepare(big[0], labels)
    fit_map(MixtureModel(get_component("gamma"), get_component("truncnorm")), data)
    rows.append({"pair": "gamma/truncnorm, N = 10^6 (incl. compression)", "s": time.perf_counter() - t})
    for r in rows:
        log(f"  MAP {r['pair']:40s} {r['s']:.3f} s")
    return rows


def sampler_comparison(quick, log):
    rows = []
    for seed in range(1 if quick else 3):
        z, y = model_data(2000, 10 + seed)
        labels = np.full(z.size, np.nan)
        labels[:10] = y[:10]
        data = prepare(z, labels)
        fit = fit_map(MixtureModel(get_component("gamma"), get_component("truncnorm")), data)
        for kind in ("diagonal", "laplace", "student_t"):
            t = time.perf_counter()
            post = importance_sample(fit, data, 1000, np.random.default_rng(seed), kind)
            rows.append({"sampler": f"IS {kind}", "seed": seed, "khat": post.khat, "ess": post.ess,
                         "s": time.perf_counter() - t})
        t = time.perf_counter()
        post = run_emcee(fit, data, 1000, np.random.default_rng(seed))
        rows.append({"sampler": "emcee", "seed": seed, "khat": float("nan"), "ess": post.ess,
                     "s": time.perf_counter() - t})
    for r in rows:
        r["ms_per_ess"] = 1000 * r["s"] / max(r["ess"], 1e-9)
    return rows


# ---- report ----------------------------------------------------------------------------
def _table(rows, cols, fmt):
    head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    return head + "".join(
        "| " + " | ".join(fmt.get(c, "{}").format(r[c]) for c in cols) + " |\n" for r in rows
    )


def report(results, quick, runs=None):
    import importlib.metadata as md

    versions = {p: md.version(p) for p in ("numpy", "scipy", "emcee", "arviz", "ssme-lite", "ppi-python",
                                           "scikit-learn") if _has(p)}
    lines = [
        f"# spe benchmark results{' (quick)' if quick else ''}",
        "",
        f"Run {datetime.date.today().isoformat()} on {platform.machine()} ({platform.processor() or 'cpu'}), "
        f"Python {platform.python_version()}; "
        + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".",
        "Command: `python -m benchmarks.run" + (" --quick" if quick else "") + "`."
        + ("" if not runs else " Sections (date, commit): "
           + "; ".join(f"{name} {date} {commit}" for name, (date, commit) in runs.items()) + "."),
        "",
        "## Label efficiency: area between estimated and true PR curve (median over runs)",
        "",
        "`ratio` = spe / naive (target <= 0.4 at 10 labels). Coverage = fraction of recall points in [0, 1] "
        "where the truth lies inside the 90% band, averaged over runs; width = mean band width. "
        "`boot` = bootstrap band on the labeled items alone (the usual practice). `naive_undef` = runs "
        "whose labeled items held no positive: the naive curve is then undefined and scored as precision 0 "
        "(its worst case), which is what a practitioner with such a sample faces.",
        "",
        _table(results["efficiency"], ["data", "labels", "runs", "spe_area", "naive_area", "ratio", "naive_undef", "spe_cov",
                                       "spe_width", "boot_cov", "boot_width", "spe_fail", "spe_s"],
               {k: "{:.3f}" for k in ("spe_area", "naive_area", "ratio", "spe_cov", "spe_width", "boot_cov",
                                      "boot_width")} | {"spe_s": "{:.2f}"}),
        "## Scalar metrics against the peers",
        "",
        "Average precision (AP): absolute error (median) and 90%-interval coverage for spe, the labeled "
        "items alone (naive) and ssme-lite (KDE + EM; it needs ~45 s per fit here, so it runs on the first "
        "`ssme_runs` label draws at 10 and 50 labels only; it needs both classes among the labels, `ssme_na` = "
        "runs where it could not run). Precision at the threshold that predicts the true prevalence: "
        "coverage and width of spe's interval and of prediction-powered inference (ppi-python, "
        "`ppi_na` = runs with < 2 labeled items above the threshold).",
        "",
        _table(results["scalars"], ["data", "labels", "spe_ap_err", "spe_ap_cov", "naive_ap_err", "ssme_ap_err",
                                    "ssme_ap_cov", "ssme_runs", "ssme_na", "spe_p_cov", "spe_p_w", "ppi_p_cov", "ppi_p_w",
                                    "ppi_na"],
               {k: "{:.3f}" for k in ("spe_ap_err", "spe_ap_cov", "naive_ap_err", "ssme_ap_err", "ssme_ap_cov",
                                      "spe_p_cov", "spe_p_w", "ppi_p_cov", "ppi_p_w")}),
        "## Threshold choice at equal label budgets (true labels decide)",
        "",
        "Task A: precision >= 0.9 with confidence 0.9, as much recall as possible: spe `choose_threshold` vs "
        "MAPIE `BinaryClassificationController` (Learn-then-Test, precision, 201-point threshold grid on the "
        "score ranks). `feasible` = fraction of runs returning a threshold; `met` = fraction of those whose true "
        "precision >= 0.9; `recall` = mean true recall (0 when infeasible). Task B: maximise F1: spe "
        "`best_fbeta_threshold` vs scikit-learn `TunedThresholdClassifierCV(scoring='f1')` on the frozen scores "
        "(2-fold CV on the labeled items; F1 0 when a fold lacks a class); `best_f1` = oracle.",
        "",
        _table(results["thresholds"], ["data", "labels", "runs", "spe_feasible", "spe_met", "spe_recall",
                                       "ltt_feasible", "ltt_met", "ltt_recall", "best_f1", "spe_f1", "tuned_f1"],
               {k: "{:.2f}" for k in ("spe_feasible", "spe_met", "spe_recall", "ltt_feasible", "ltt_met",
                                      "ltt_recall")} | {k: "{:.3f}" for k in ("best_f1", "spe_f1", "tuned_f1")}),
        "## Speed and memory: fit + 1000 draws + PR curve (fresh process per row, imports warmed)",
        "",
        "Targets: N = 2,000 <= 1 s; N = 10^6 <= 15 s and <= 2 GiB peak. Peak = process max RSS "
        "(includes the Python runtime and imported libraries, ~150-250 MiB).",
        "",
        _table(results["speed"], ["families", "n", "s", "peak_mib", "groups", "method"],
               {"s": "{:.2f}", "peak_mib": "{:.0f}", "n": "{:,}"}),
        "## MAP time per family pair (N = 2,000, 20 labels; all starting points)",
        "",
        _table(results["map"], ["pair", "s"], {"s": "{:.3f}"}),
        "## Importance sampling vs emcee on the same posterior (N = 2,000, 10 labels, 1000 draws)",
        "",
        "`ms_per_ess` = wall time per effective sample; the IS/emcee ratio at equal ESS is the ratio of "
        "these (target: IS >= 20x faster).",
        "",
        _table(results["samplers"], ["sampler", "seed", "khat", "ess", "s", "ms_per_ess"],
               {"khat": "{:.2f}", "ess": "{:.0f}", "s": "{:.3f}", "ms_per_ess": "{:.3f}"}),
    ]
    t_is = [r["ms_per_ess"] for r in results["samplers"] if r["sampler"] == "IS student_t"]
    t_mc = [r["ms_per_ess"] for r in results["samplers"] if r["sampler"] == "emcee"]
    if t_is and t_mc:
        lines += [f"Default proposal (student_t) vs emcee, time per effective sample: IS is "
                  f"{np.mean(t_mc) / np.mean(t_is):.0f}x faster.", ""]
    return "\n".join(lines)


def _has(pkg):
    import importlib.metadata as md

    try:
        md.version(pkg)
        return True
    except md.PackageNotFoundError:
        return False


#: Each part's stored results (tracked, small): --only and --report fill the head from them.
RESULTS_DIR = HERE / "results" / "run"
SECTIONS = ("efficiency", "thresholds", "speed", "map", "samplers")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small version (under a minute)")
    ap.add_argument("--only", choices=SECTIONS, action="append", default=None,
                    help="run only these sections (repeatable); the report uses stored results for the rest")
    ap.add_argument("--report", action="store_true",
                    help="only rebuild RESULTS.md from the stored section results (runs nothing)")
    ap.add_argument("--ssme-runs", type=int, default=None,
                    help="label draws per setting on which to run ssme-lite (default 1; 0 with --quick)")
    args = ap.parse_args(argv)
    ssme_runs = args.ssme_runs if args.ssme_runs is not None else (0 if args.quick else 1)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    runners = {"efficiency": lambda: label_efficiency(args.quick, log, ssme_runs),
               "thresholds": lambda: thresholds(args.quick, log),
               "speed": lambda: speed(args.quick, log), "map": lambda: map_times(args.quick, log),
               "samplers": lambda: sampler_comparison(args.quick, log)}
    results = {}
    for name in [] if args.report else (args.only or SECTIONS):
        log(f"[{name}]")
        results[name] = runners[name]()
        if not args.quick:
            RESULTS_DIR.mkdir(parents=True, exist_ok=True)
            stamp = {"date": datetime.datetime.now().isoformat(timespec="minutes"), "commit": git_commit(),
                     "data": results[name]}
            (RESULTS_DIR / f"{name}.json").write_text(json.dumps(stamp, indent=1, default=float))
    today, commit = datetime.date.today().isoformat(), git_commit()
    runs = {name: (today, commit) for name in results}
    if not args.quick:  # fill the other sections from their stored results
        for name in SECTIONS:
            path = RESULTS_DIR / f"{name}.json"
            if name not in results and path.exists():
                stored = json.loads(path.read_text())
                results[name] = stored["data"]
                runs[name] = (stored["date"][:10], stored.get("commit", "unknown"))
    missing = [n for n in SECTIONS if n not in results]
    for name in missing:
        results[name] = ([], []) if name == "efficiency" else []
    results["efficiency"], results["scalars"] = results["efficiency"]
    text = report(results, args.quick, runs)
    print(text)
    if not args.quick:
        path = HERE / "RESULTS.md"
        old = path.read_text() if path.exists() else ""
        # Sections other scripts own (real.py, sbc.py) sit between markers: keep them.
        kept = re.findall(r"<!-- ([\w-]+):start -->.*?<!-- \1:end -->", old, flags=re.S)
        blocks = [re.search(rf"<!-- {k}:start -->.*?<!-- {k}:end -->", old, flags=re.S).group(0) for k in kept]
        path.write_text("\n\n".join([text.rstrip(), *blocks]) + "\n")
        log(f"wrote {HERE / 'RESULTS.md'}" + (f" (sections never run: {missing})" if missing else ""))


if __name__ == "__main__":
    main()
