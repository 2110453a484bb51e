"""Several models on the corpus' tasks: `spe.fit_many`'s errors, coverage and P(best) calibration.

Every task of the corpus (`benchmarks/corpus/`, built by `python -m benchmarks.corpus.build`)
has eight scikit-learn families trained on the same features and scoring the same held-out
items (253-2,000 per task), so every task is a group of models that share their errors.
Per task and trial: 20 random labels, every other item of the task unlabeled,
`spe.fit_many` on the eight families (the default stack, and its log-linear pool and its
Gaussian copula alone, `pool only`, `joint only`), against the truth of all the task's items (the metric of these items, what
`kind="sample"` targets): absolute error (points) of AUROC, AP and accuracy at the family's
threshold (0.5 for probabilities, 0 for margins), coverage of 90% intervals, and the error
of the 20 labeled items alone. P(best) by AUROC and by AP: each model's stated P(best)
against whether it is truly best (ties shared), and the stated P(within 0.005 of the
best) against whether it truly is: a calibration table by bins of the stated value, the
realised share among models stated >= 0.8, and the Brier score against a uniform guess
(1/J for every model); also `pool only` and the default fit's P(best) from its draws of
the pool and the copula alone. ssme-lite (if installed), on trial 0 of the first `--ssme-tasks` tasks, on the same
labels (margins through the logistic function), with its fit time beside fit_many's.
Choices are made on the development half (R packages a-l); `--half heldout` (m-z) only
reports, in a section of its own.

With `--labels N [N ...]` other than the default 20, the same fits at each label budget
(N random labels per task and trial, drawn as the 20 are) and a section of their own:
per budget, the errors, P(best)'s calibration table of the default fit, and per method the
Brier score against a uniform guess and the realised share among models stated >= 0.8 with
its 90% Clopper-Pearson interval (ssme-lite is not run there: it states no P(best)). At 20
labels no model of the default fit is stated >= 0.8, so the issue's claim needs more labels
to be checked at all.

    python -m benchmarks.several_corpus [--half dev] [--tasks 60] [--trials 2] [--ssme-tasks 8] [--jobs 2] [--no-write]
    python -m benchmarks.several_corpus --labels 60 150 --tasks 80 --trials 2 [--jobs 2] [--no-write]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import itertools
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy import special, stats

import spe
from benchmarks.corpus import CACHE, store
from benchmarks.corpus.evaluate import select_tasks
from benchmarks.harness.metrics import ALPHA, covers, exact_ap, exact_auc
from benchmarks.harness.report import run_stamp, table, write_section
from benchmarks.ssme_shared import has_ssme_lite

HERE = Path(__file__).resolve().parent
MARKERS = ("<!-- several-corpus:start -->", "<!-- several-corpus:end -->")
LABELS_MARKERS = ("<!-- several-corpus-labels:start -->", "<!-- several-corpus-labels:end -->")
N_LABELS = 20
TIE = 0.005
KEYS = {"auc": "AUROC", "auprc": "average precision", "accuracy": "accuracy"}
METHODS = {"fit_many": {}, "fit_many, pool only": {"label_model": "pool"},
           "fit_many, joint only": {"label_model": "joint"}}
BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0 + 1e-9)
COUNTS = {"fits": "{}", "failed": "{}", "stated >= 0.8": "{}"}
SYMMETRIC = ("log-linear pool", "Gaussian copula")
SYMMETRIC_DRAWS = "fit_many, pool and copula draws"
STATED = {"best": "P(best)", "near": f"P(within {TIE} of best)"}


def labeled_items(task_id: str, n_items: int, trial: int, n_labels: int) -> np.ndarray:
    """The items a (task, trial) labels: ``n_labels`` of ``n_items``, seeded by the task and trial
    (shared with the benchmarks that reuse these fits' labels)."""
    rng = np.random.default_rng([trial, n_items, sum(map(ord, task_id))])
    return rng.choice(n_items, n_labels, replace=False)


def truth_of(s, y, threshold) -> dict:
    return {"auc": exact_auc(s, y), "auprc": exact_ap(s, y), "accuracy": float(np.mean((s >= threshold) == (y == 1)))}


def ssme_lite_estimates(scores: dict, kinds: dict, labels, seed) -> dict:
    """ssme-lite on every model at once: {model: {key: estimate}}."""
    from ssme_lite import SSMEEstimator

    probs = np.column_stack([s if kinds[m] == "probability" else special.expit(s) for m, s in scores.items()])
    y = np.where(np.isnan(labels), -1, labels).astype(int)
    est = SSMEEstimator(random_state=seed, early_stopping=True).fit(np.clip(probs, 1e-6, 1 - 1e-6), y)
    rep = est.evaluate(metrics=tuple(KEYS), n_draws=100, random_state=seed)
    return {m: {k: float(rep.data["metrics"][k]["rows"][j]["estimate"]) for k in KEYS} for j, m in enumerate(scores)}


def symmetric_prob_best(res) -> dict:
    """P(best) and P(within 0.005) from the default stack's draws of the label models of
    all models (the pool, the copula) only: a model's own map draws labels from its own
    scores, under which it is the best by construction."""
    fits = list(res.label_model.fits)
    rows = np.isin(res.label_model.source, [fits.index(k) for k in SYMMETRIC if k in fits])
    if rows.sum() < 20:
        return {"failed": f"{int(rows.sum())} draws from the pool and the copula"}
    models = {m: {} for m in res.names}
    for k, name in KEYS.items():
        if k == "accuracy":
            continue
        v = np.array([res.metric_draws(m)[name][rows] for m in res.names])
        best = v == v.max(axis=0)
        for j, m in enumerate(res.names):
            models[m][f"best_{k}"] = float((best[j] / best.sum(axis=0)).mean())
            models[m][f"near_{k}"] = float((v[j] >= v.max(axis=0) - TIE).mean())
    return {"draws": int(rows.sum()), "models": models}


def own_map_first(res) -> list[float]:
    """For each model's own map (and its "calibrated" one) with draws in the default fit:
    the share of those draws in which that model has the highest AUROC."""
    auc = np.array([res.metric_draws(m)["AUROC"] for m in res.names])
    first = auc.argmax(axis=0)
    out = []
    for k, fit in enumerate(res.label_model.fits):
        rows = res.label_model.source == k
        own = fit.removesuffix(" (calibrated)")
        if own in res.names and rows.sum() >= 10:
            out.append(float(np.mean(first[rows] == res.names.index(own))))
    return out


def one_fit(job):
    """Every measure of one (task, trial): per method and model, errors, coverage, P(best)."""
    task_id, trial, with_ssme, *budget = job
    n_labels = budget[0] if budget else N_LABELS
    task = store.load_task(store.task_path(CACHE, task_id))
    y, scores, kinds = task["labels"], task["scores"], task["kinds"]
    if n_labels >= y.size:
        raise ValueError(f"{task_id}: {n_labels} labels of {y.size} items leave none unlabeled")
    labels = np.full(y.size, np.nan)
    chosen = labeled_items(task_id, y.size, trial, n_labels)
    labels[chosen] = y[chosen]
    thresholds = {m: 0.5 if kinds[m] == "probability" else 0.0 for m in scores}
    truth = {m: truth_of(s, y, thresholds[m]) for m, s in scores.items()}
    out = {"task": task_id, "trial": trial, "labels": n_labels, "truth": truth, "methods": {}, "labeled": {}}
    for m, s in scores.items():
        out["labeled"][m] = truth_of(s[chosen], y[chosen], thresholds[m]) if 0 < y[chosen].sum() < n_labels else None
    for method, options in METHODS.items():
        start = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res = spe.fit_many(scores, labels, seed=trial, **options)
            except Exception as exc:
                out["methods"][method] = {"failed": repr(exc)}
                continue
            rows = {r["model"]: r for r in res.metrics(level=1 - ALPHA)}
            best = {k: res.prob_best(name) for k, name in KEYS.items() if k != "accuracy"}
            near = {k: res.prob_best(name, tolerance=TIE) for k, name in KEYS.items() if k != "accuracy"}
        out["methods"][method] = {"s": time.process_time() - start, "models": {
            m: {k: (rows[m][name].value, covers(rows[m][name].lower, rows[m][name].upper, truth[m][k]))
                for k, name in KEYS.items()} | {f"best_{k}": float(b[m]) for k, b in best.items()}
               | {f"near_{k}": float(b[m]) for k, b in near.items()}
            for m in scores}}
        if method == "fit_many":
            out["methods"][SYMMETRIC_DRAWS] = symmetric_prob_best(res)
            out["own_first"] = own_map_first(res)
    if with_ssme:
        start = time.process_time()
        try:
            est = ssme_lite_estimates(scores, kinds, labels, trial)
            out["methods"]["ssme-lite"] = {"s": time.process_time() - start, "models": {
                m: {k: (v, None) for k, v in e.items()} for m, e in est.items()}}
        except Exception as exc:
            out["methods"]["ssme-lite"] = {"failed": repr(exc)}
    return out


def error_rows(results, methods, paired_only=False) -> list[dict]:
    rows = []
    for method in methods:
        fits = [r for r in results if "models" in r["methods"].get(method, {})]
        if paired_only:
            fits = [r for r in fits if "models" in r["methods"].get("ssme-lite", {})]
        if not fits:
            continue
        err = {k: [] for k in KEYS}
        bias, cover, base = [], {k: [] for k in KEYS}, {k: [] for k in KEYS}
        for r in fits:
            for m, v in r["methods"][method]["models"].items():
                for k in KEYS:
                    err[k].append(100 * abs(v[k][0] - r["truth"][m][k]))
                    if v[k][1] is not None:
                        cover[k].append(v[k][1])
                    if r["labeled"][m] is not None:
                        base[k].append(100 * abs(r["labeled"][m][k] - r["truth"][m][k]))
                bias.append(100 * (v["auprc"][0] - r["truth"][m]["auprc"]))
        row = {"method": method, "fits": len(fits), "auprc_bias": float(np.mean(bias)),
               "s": float(np.median([r["methods"][method]["s"] for r in fits])),
               "failed": sum("failed" in r["methods"].get(method, {}) for r in results)}
        for k in KEYS:
            row[k] = float(np.mean(err[k]))
            row[f"cover_{k}"] = float(np.mean(cover[k])) if cover[k] else None
        if not paired_only:
            row["labeled_only_" + "auprc"] = float(np.mean(base["auprc"])) if base["auprc"] else None
        rows.append(row)
    return rows


def realised_best(truth: dict, key: str, stat: str) -> dict:
    """Per model, what its stated value is scored against: for P(best), 1/k when it is one
    of the k models at the true best value (else 0), so the realised values sum to 1 as
    the stated ones do; for P(within 0.005 of the best), 1 when it is."""
    top = max(t[key] for t in truth.values())
    if stat == "near":
        return {m: float(t[key] >= top - TIE) for m, t in truth.items()}
    at_top = [m for m, t in truth.items() if t[key] == top]
    return {m: 1.0 / len(at_top) if m in at_top else 0.0 for m in truth}


def best_rows(results, method="fit_many") -> tuple[list[dict], list[dict]]:
    """The P(best) calibration table (by bin of stated P(best)) and the Brier scores, for
    P(best) (strictly best, ties shared) and P(within 0.005 of the best), each against
    its own event (:func:`realised_best`)."""
    table_rows, brier = [], []
    for key, stat in itertools.product(("auc", "auprc"), ("best", "near")):
        stated, realised, uniform = [], [], []
        for r in results:
            models = r["methods"].get(method, {}).get("models")
            if not models:
                continue
            truly = realised_best(r["truth"], key, stat)
            for m, v in models.items():
                stated.append(v[f"{stat}_{key}"])
                realised.append(truly[m])
                uniform.append(1.0 / len(models))
        stated, realised, uniform = map(np.asarray, (stated, realised, uniform))
        for lo, hi in itertools.pairwise(BINS):
            inside = (stated >= lo) & (stated < hi)
            if inside.any():
                table_rows.append({"method": method, "metric": KEYS[key], "stated": STATED[stat],
                                   "stated P(best)": f"[{lo:.1f}, {min(hi, 1):.1f}]",
                                   "models": int(inside.sum()), "mean stated": float(stated[inside].mean()),
                                   "realised": float(realised[inside].mean())})
        high = stated >= 0.8
        lo90, hi90 = share_interval(realised[high])
        brier.append({"method": method, "metric": KEYS[key], "stated": STATED[stat], "models": int(stated.size),
                      "brier": float(np.mean((stated - realised) ** 2)),
                      "brier_uniform": float(np.mean((uniform - realised) ** 2)),
                      "stated >= 0.8": int(high.sum()),
                      "realised if >= 0.8": float(realised[high].mean()) if high.any() else None,
                      "90% interval": f"[{lo90:.3f}, {hi90:.3f}]" if high.any() else None})
    return table_rows, brier


def share_interval(realised, level=1 - ALPHA) -> tuple[float, float]:
    """Clopper-Pearson interval (``level``, two-sided) of the realised share among ``realised``
    (0/1, or 1/k for a model tied at the best with k-1 others: its successes are the sum)."""
    n, k = len(realised), float(np.sum(realised))
    if n == 0:
        return float("nan"), float("nan")
    a = (1 - level) / 2
    lo = stats.beta.ppf(a, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - a, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)


def budget_text(results, budgets) -> str:
    """The label-budget section's tables: per budget, the errors of the three fits, the
    default fit's P(best) calibration table, and per method the Brier scores and the
    realised share among models stated >= 0.8 with its 90% interval."""
    parts = []
    for n in budgets:
        at = [r for r in results if r["labels"] == n]
        calibration, _ = best_rows(at, "fit_many")
        brier = [row for method in (*METHODS, SYMMETRIC_DRAWS) for row in best_rows(at, method)[1]]
        own_first = [v for r in at for v in r.get("own_first", [])] or [float("nan")]
        parts += [
            f"### {n} labels", "",
            f"Mean absolute error (points) over (task, trial, model), 90% coverage, median CPU seconds per fit "
            f"(labeled only: AP error of the {n} labeled items where both classes are among them):", "",
            table(error_rows(at, METHODS), ["method", "fits", "failed", "accuracy", "auc", "auprc", "auprc_bias",
                                            "cover_auc", "cover_auprc", "s", "labeled_only_auprc"], COUNTS), "",
            "The default fit's stated P(best) and P(within 0.005 of best) by bin, against the realised share:", "",
            table(calibration, ["metric", "stated", "stated P(best)", "models", "mean stated", "realised"], COUNTS),
            "",
            "Brier score against a uniform guess (1/J), and among models stated >= 0.8 the realised share with "
            "its 90% Clopper-Pearson interval (the issue asks >= 0.8); the default fit's own maps put their "
            f"model first by AUROC in {np.mean(own_first):.0%} of their draws (mean over {len(own_first)} maps):",
            "",
            table(brier, ["method", "metric", "stated", "models", "brier", "brier_uniform", "stated >= 0.8",
                          "realised if >= 0.8", "90% interval"], COUNTS), "",
        ]
    return "\n".join(parts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", default="dev", choices=("dev", "heldout"))
    ap.add_argument("--tasks", type=int, default=60)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--ssme-tasks", type=int, default=8, help="20 labels only")
    ap.add_argument("--labels", type=int, nargs="+", default=[N_LABELS],
                    help=f"label budgets; other than {N_LABELS} alone: the label-budget section (no ssme-lite)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="print the tables only (no RESULTS.md)")
    args = ap.parse_args(argv)
    index = store.index_or_exit(CACHE)
    tasks = [r["task_id"] for r in select_tasks(index, args.half, args.tasks)]
    if args.labels != [N_LABELS]:
        return budget_main(args, tasks)
    ssme = has_ssme_lite()
    jobs = [(t, trial, ssme and trial == 0 and i < args.ssme_tasks) for i, t in enumerate(tasks)
            for trial in range(args.trials)]
    start = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one_fit, jobs))
    cols = ["method", "fits", "failed", "accuracy", "auc", "auprc", "auprc_bias", "cover_accuracy", "cover_auc",
            "cover_auprc", "s"]
    own_first = [v for r in results for v in r.get("own_first", [])] or [float("nan")]
    calibration, brier = [], []
    for method in (*METHODS, SYMMETRIC_DRAWS):
        rows_, brier_ = best_rows(results, method)
        calibration += rows_
        brier += brier_
    text = "\n".join([
        f"## Several models on the corpus' tasks, {args.half} half (`benchmarks/several_corpus.py`)", "",
        run_stamp() + f"; `--half {args.half} --tasks {args.tasks} --trials {args.trials} --ssme-tasks "
        f"{args.ssme_tasks if ssme else 0}`: {len(tasks)} tasks x {args.trials} trials, "
        f"{(time.time() - start) / 60:.1f} min on {args.jobs} processes. " + " ".join(__doc__.split("\n\n")[1].split()),
        "",
        "Mean absolute error (points) over (task, trial, model), mean signed AP error, 90% coverage, median "
        "CPU seconds per fit of all eight models (labeled only: AP error of the 20 labeled items where both "
        "classes are among them):", "",
        table(error_rows(results, METHODS), cols + ["labeled_only_auprc"], COUNTS), "",
        "Paired with ssme-lite (the same tasks, trial 0, the same labels):", "",
        table(error_rows(results, [*METHODS, "ssme-lite"], paired_only=True), cols, COUNTS), "",
        "P(best) (`res.prob_best(metric)`, strictly best, ties shared) against the truly best (ties "
        "shared: 1/k for each of k models at the best value), and P(within 0.005 of the best) "
        "(`res.prob_best(metric, tolerance=0.005)`) against being within 0.005 of the best value, by bin of "
        "the stated probability; per method, and for the default fit's draws from the pool and the copula "
        f"alone (`{SYMMETRIC_DRAWS}`: a model's own map draws labels from its own scores, under which it is "
        "the best by construction):", "",
        table(calibration, ["method", "metric", "stated", "stated P(best)", "models", "mean stated", "realised"],
              COUNTS), "",
        "Brier score of P(best) against a uniform guess (1/J), and the realised share among models stated "
        ">= 0.8 (the issue asks >= 0.8). In the default fit's draws from one model's own map (or its "
        "\"calibrated\" one; maps with >= 10 draws), that model has the highest AUROC in "
        f"{np.mean(own_first):.0%} of the draws (mean over {len(own_first)} maps), its median over maps "
        f"{np.median(own_first):.0%}:", "",
        table(brier, ["method", "metric", "stated", "models", "brier", "brier_uniform", "stated >= 0.8",
                      "realised if >= 0.8"], COUNTS), "",
    ])
    print(text)
    if not args.no_write:  # each half its own section; the held-out one is reported, never tuned on
        write_section(text, HERE / "RESULTS.md", (MARKERS[0].replace("corpus", f"corpus-{args.half}"),
                                                  MARKERS[1].replace("corpus", f"corpus-{args.half}")))


def budget_main(args, tasks):
    """The label-budget run (``--labels`` other than 20 alone): its own section."""
    budgets = sorted(set(args.labels))
    jobs = [(t, trial, False, n) for n in budgets for t in tasks for trial in range(args.trials)]
    start = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one_fit, jobs))
    flags = f"--labels {' '.join(map(str, budgets))} --half {args.half} --tasks {args.tasks} --trials {args.trials}"
    text = "\n".join([
        f"## P(best) with more labels on the corpus' groups, {args.half} half "
        f"(`benchmarks/several_corpus.py --labels`)", "",
        run_stamp() + f"; `{flags}`: {len(tasks)} tasks x {args.trials} trials per budget, "
        f"{(time.time() - start) / 60:.1f} min on {args.jobs} processes. The fits of the section above "
        "(the eight families of each task, `spe.fit_many`'s default stack, `pool only`, `joint only`, and the "
        "default fit's draws from the pool and the copula alone) with more random labels per task and trial "
        f"({', '.join(map(str, budgets))}), every other item unlabeled, against the truth of all the task's "
        "items. At 20 labels no model of the default fit is stated P(best) >= 0.8, so the issue's claim (of the "
        "models stated >= 0.8, >= 0.8 truly best) cannot be checked there. P(best) "
        "(`res.prob_best(metric)`) is scored against the truly best (ties shared: 1/k for each of k models at the "
        "best value), P(within 0.005 of best) (`res.prob_best(metric, tolerance=0.005)`) against being within "
        "0.005 of the best value.", "",
        budget_text(results, budgets),
    ])
    print(text)
    if not args.no_write:  # each half its own section; the held-out one is reported, never tuned on
        write_section(text, HERE / "RESULTS.md", (LABELS_MARKERS[0].replace("labels", f"labels-{args.half}"),
                                                  LABELS_MARKERS[1].replace("labels", f"labels-{args.half}")))


if __name__ == "__main__":
    main()
