"""Real-score benchmark: is spe honest on real classifier outputs?

    pip install -e ".[bench]"
    python -m benchmarks.real --quick      # 3 cases, 5 trials, < 2 minutes: prints tables
    python -m benchmarks.real              # full run: writes its section of RESULTS.md,
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
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from spe.metrics import exact_precision_at_recall  # noqa: E402
from spe.report._summary import disagreement  # noqa: E402

from benchmarks.harness.cases import DATA, all_cases, default_threshold, ssme_models, ssme_split  # noqa: E402
from benchmarks.harness.fits import fit_options, has_ssme_lite, quiet_fit, ssme_lite_metrics  # noqa: E402
from benchmarks.harness.metrics import (ALPHA, GRID, INNER, LEVEL, accuracy_at, band_coverage, beta_interval,  # noqa: E402
                                        covers, exact_ap, exact_metrics, interval_score, pr_area)
from benchmarks.harness.report import RESULTS_MD, git_commit, versions, write_section  # noqa: E402
from benchmarks.real_report import (DOCS_PAGE, FIGURE, MARKERS, STORED, SUMMARY_MARKERS,  # noqa: E402
                                    aggregate, aggregate_ssme, figure, readme_summary, rebuild_report, report,
                                    summary_by_file)

BUDGETS = (0, 10, 20, 50, 100)
METHODS = ("spe", "spe+calibrated", "mixture", "platt", "beta", "spline", "naive")


# ---- one trial -------------------------------------------------------------------------
def spe_trial(method, s, y, labels, seed, t0, truth, truths):
    start = time.perf_counter()
    try:
        res = quiet_fit(s, labels, seed, **fit_options(method, s))
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
                est = ssme_metrics_from_result(quiet_fit(cs, labels, seed, **fit_options(method, cs)))
        except Exception:  # a failed fit is counted, not hidden
            out[method] = None
            continue
        est["s"] = time.perf_counter() - start
        out[method] = est
    errors = {m: None if e is None else {k: 100 * abs(e[k] - truth[k]) for k in truth} | {"s": e.get("s", 0.0)}
              for m, e in out.items()}
    return name, seed, errors


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
    lite = lite_seeds > 0 and has_ssme_lite()
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
        stored_path = STORED
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
        STORED.parent.mkdir(exist_ok=True)
        STORED.write_text(json.dumps(results, indent=1, default=float))
        write_section(text, RESULTS_MD, MARKERS)
        write_section(readme_summary(results), DOCS_PAGE, SUMMARY_MARKERS)
        figure(rows, methods, FIGURE)
        log(f"wrote {RESULTS_MD} (real-score section), the evidence page's block and figures/real_benchmark.png")


if __name__ == "__main__":
    main()
