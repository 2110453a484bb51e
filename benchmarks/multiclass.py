"""Multiclass benchmark: spe.fit_multiclass on real class-probability matrices.

For each shared multiclass file (subsampled to N = 2,000, seeded) and label budget, random
items are labeled and the rest hidden; the truth is every item's real label. Reported per
case and budget (mean over trials): top-1 accuracy error and 90% interval coverage,
coverage of the per-predicted-class accuracy intervals (mean over classes), macro AP
error and coverage; the labeled items alone (Beta interval for accuracy) side by side.
Label models: the default stack, and each of its two members alone (temperature scaling,
top-label map).

    python -m benchmarks.multiclass [--trials 40] [--quick]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from benchmarks.harness.cases import DATA  # noqa: E402
from benchmarks.harness.report import run_stamp, table, write_section  # noqa: E402

from spe import fit_multiclass  # noqa: E402
from spe.metrics import labeled_sweep, sample_average_precision  # noqa: E402

HERE = Path(__file__).resolve().parent

FILES = {"mnist": "mnist_labelerrors_cv.npz", "20news": "20news_labelerrors_cv.npz", "imdb": "imdb_labelerrors_cv.npz"}
BUDGETS = (0, 10, 20, 50, 100)
MODELS = ("stack", "temperature", "top-label")
#: Issue targets: coverage of top-1 accuracy and macro AP at these budgets, accuracy error
#: ratio to the labeled items alone at the first.
TARGET_BUDGETS = (20, 50)
TARGET_COVERAGE, TARGET_RATIO = 0.8, 0.6
N_SUBSAMPLE = 2000
LEVEL = 0.9
MARKERS = ("<!-- multiclass-benchmark:start -->", "<!-- multiclass-benchmark:end -->")


def cases():
    out = {}
    for name, file in FILES.items():
        path = DATA / file
        if path.exists():
            d = np.load(path)
            rng = np.random.default_rng(sum(map(ord, name)))
            idx = rng.choice(d["labels"].size, min(N_SUBSAMPLE, d["labels"].size), replace=False)
            out[name] = (d["probs"][idx].astype(float), d["labels"][idx])
    return out


def exact_macro_ap(p, y):
    return float(np.mean([sample_average_precision(labeled_sweep(p[:, c], (y == c).astype(float)))[0]
                          for c in range(p.shape[1])]))


def trial(job):
    name, p, y, budget, t, model = job
    rng = np.random.default_rng([budget, t, sum(map(ord, name))])
    idx = rng.choice(y.size, budget, replace=False)
    labels = np.full(y.size, -1)
    labels[idx] = y[idx]
    pred = p.argmax(1)
    truth_acc = np.mean(pred == y)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fit_multiclass(p, labels, model=model, n_draws=500, seed=t)
    acc = res.accuracy(LEVEL)
    rows = res.per_class(LEVEL)
    prec_cov = []
    for c, row in enumerate(rows):
        chosen = pred == c
        if row["precision"] is not None and chosen.any():
            prec_cov.append(row["precision"].lower <= np.mean(y[chosen] == c) <= row["precision"].upper)
    ap = res.macro_average_precision(LEVEL)
    truth_ap = exact_macro_ap(p, y)
    out = {"s": time.perf_counter() - start, "acc_err": abs(acc.value - truth_acc),
           "acc_cov": float(acc.lower <= truth_acc <= acc.upper), "acc_width": acc.upper - acc.lower,
           "class_acc_cov": float(np.mean(prec_cov)), "macro_ap_err": abs(ap.value - truth_ap),
           "macro_ap_cov": float(ap.lower <= truth_ap <= ap.upper),
           "w_top_label": res.model_weights.get("top-label", 0.0)}
    if budget:
        k = int(np.sum(pred[idx] == y[idx]))
        lo, hi = stats.beta.ppf([(1 - LEVEL) / 2, (1 + LEVEL) / 2], k + 1, budget - k + 1)
        out |= {"naive_acc_err": abs(k / budget - truth_acc), "naive_acc_cov": float(lo <= truth_acc <= hi),
                "naive_acc_width": hi - lo}
    return name, budget, model, out


def target_rows(rows):
    """Per case and model: the issue's coverage and error-ratio targets, read off ``rows``."""
    out = []
    for case in dict.fromkeys(r["case"] for r in rows):
        for m in MODELS:
            got = {r["labels"]: r for r in rows if r["case"] == case and r["model"] == m}
            if not all(b in got for b in TARGET_BUDGETS):
                continue
            row = {"case": case, "model": m}
            for b in TARGET_BUDGETS:
                row |= {f"acc_cov_{b}": got[b]["acc_cov"], f"macro_ap_cov_{b}": got[b]["macro_ap_cov"]}
            first = got[TARGET_BUDGETS[0]]
            ratio = f"acc_err_ratio_{TARGET_BUDGETS[0]}"
            row[ratio] = first["acc_err"] / first["naive_acc_err"]
            row["ok"] = "yes" if (min(v for k, v in row.items() if "_cov_" in k) >= TARGET_COVERAGE
                                  and row[ratio] <= TARGET_RATIO) else "no"
            out.append(row)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--quick", action="store_true", help="5 trials, budgets 10 and 50, no RESULTS.md")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    trials = 5 if args.quick else args.trials
    budgets = (10, 50) if args.quick else BUDGETS
    data = cases()
    if not data:
        raise SystemExit(f"no shared data in {DATA} (set SPE_SHARED_DATA)")
    jobs = [(n, p, y, b, t, m) for n, (p, y) in data.items() for b in budgets for t in range(trials) for m in MODELS]
    start = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(trial, jobs, chunksize=4))
    rows = []
    for name, (p, y) in data.items():
        for b in budgets:
            for m in MODELS:
                got = [o for n, bb, mm, o in results if n == name and bb == b and mm == m]
                if not got:
                    continue
                row = {"case": f"{name} (K={p.shape[1]})", "labels": b, "model": m, "trials": len(got)}
                for key in got[0]:
                    row[key] = float(np.mean([g[key] for g in got]))
                rows.append(row)
    cols = ["case", "labels", "model", "trials", "acc_err", "naive_acc_err", "acc_cov", "naive_acc_cov", "acc_width",
            "naive_acc_width", "class_acc_cov", "macro_ap_err", "macro_ap_cov", "w_top_label", "s"]
    targets = target_rows(rows)
    text = "\n".join([
        "## Multiclass (`benchmarks/multiclass.py`)",
        "",
        run_stamp()
        + f"; {time.time() - start:.0f} s on {args.jobs} processes. Each shared multiclass file subsampled to "
        f"N = {N_SUBSAMPLE:,}; {trials} trials per budget; 500 draws. `acc_*`: top-1 accuracy (error, 90% "
        "interval coverage and width) of `fit_multiclass` and of the labeled items alone (`naive_*`, Beta "
        "interval); `class_acc_cov`: coverage of the per-predicted-class accuracy intervals, mean over classes; "
        "`macro_ap_*`: one-vs-rest macro average precision; `w_top_label`: the top-label model's weight in the "
        "stack (mean over trials); `s`: seconds per fit.",
        "",
        f"Targets (multiclass issue): 90% intervals of top-1 accuracy and macro AP cover in >= "
        f"{TARGET_COVERAGE:g} of trials at {' and '.join(map(str, TARGET_BUDGETS))} labels; accuracy error <= "
        f"{TARGET_RATIO:g}x the labeled items' at {TARGET_BUDGETS[0]} labels (`ok`: all of these met).",
        "",
        table(targets, list(targets[0])) if targets else "(no target budgets run)",
        "",
        table(rows, cols),
        "",
    ])
    print(text)
    if not args.quick:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
