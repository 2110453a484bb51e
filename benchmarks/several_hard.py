"""Hard predictions: `spe.fit_many` on models with fewer than 3 distinct scores.

When every model gives hard (0/1) predictions, `fit_many`'s label model is each model's
share of positives per value and, for two or more, a semi-supervised Dawid-Skene model,
stacked by the labels (docs/method.md 9). Three measurements, every one with 20 random
labels and the accuracy of each hard model as the target (the share of all the items it
gets right, what `kind="sample"` targets): the estimate is the median of the model's
accuracy draws, its 90% interval their 5% and 95% quantiles; the labeled items alone
estimate it by their own share right with a Jeffreys interval. `w_DS` is the mean weight
of the Dawid-Skene model in the stack (`res.model_weights`).

Simulated: four conditionally independent classifiers (sensitivity, specificity) (0.9,
0.8), (0.75, 0.85), (0.7, 0.7), (0.6, 0.9) on 1,000 items of prevalence 0.3, the first 20
labeled, one seed per set: the default stack, `label_model="joint"` (Dawid-Skene alone)
and the labeled items alone, and the 90% coverage of the prevalence.

Corpus, development half only (R packages a-l; the held-out half is never read): tasks of
300-5,000 items with 10-90% positives, the first `--tasks` in the corpus' CRC32 order;
every one of the eight families' scores cut at 0.5 (a margin at 0). Per task and trial 20
random labels: `fit_many`'s default stack, its per-value maps alone (`maps`), Dawid-Skene
alone (`joint`), Dawid-Skene and the log-linear pool (`("joint", "pool")`), `spe.fit(...,
model="cells")` one model at a time (its positive counts per value; where it refuses, one
value for every item or labels that say the model runs the wrong way, the fit is counted as
failed), and the labeled items alone.

Mixed, on the same tasks and labels: the first four families (logreg, forest, hgb, gnb)
keep their scores, the other four (knn, mlp, svc_rbf, linear_svc) are cut; the accuracy of
the cut ones from the default `fit_many`, which keeps them out of the label model (they
get the ranked models' label draws), against the same fit with them in it (their per-value
maps, their recalibrated scores in the pool and their Dawid-Skene model in the stack:
`split_models` patched to keep them), and in it without their per-value maps.

    python -m benchmarks.several_hard [--tasks 30] [--trials 3] [--sim-seeds 40] [--jobs 2] [--no-write] [--report]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import contextlib
import json
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy import stats

import spe
from benchmarks.corpus import CACHE, store
from benchmarks.corpus import discovery as D
from benchmarks.corpus.evaluate import select_tasks
from benchmarks.harness.metrics import ALPHA, covers
from benchmarks.harness.report import run_stamp, table, write_section
from benchmarks.several_corpus import labeled_items
from spe.several import _binary, _informants, _label_model

HERE = Path(__file__).resolve().parent
MARKERS = ("<!-- several-hard:start -->", "<!-- several-hard:end -->")
RAW = HERE / "results" / "several_hard.json"
N_LABELS = 20
#: The simulated classifiers' (sensitivity, specificity).
SIMULATED = {"a": (0.9, 0.8), "b": (0.75, 0.85), "c": (0.7, 0.7), "d": (0.6, 0.9)}
SIM_ITEMS, SIM_PREVALENCE = 1000, 0.3
SIM_METHODS = {"fit_many (stack)": {}, "fit_many, Dawid-Skene alone": {"label_model": "joint"}}
DEV_ITEMS, DEV_PREVALENCE = (300, 5000), (0.1, 0.9)
DEV_METHODS = {"fit_many (stack)": {}, "fit_many, maps only": {"label_model": "maps"},
               "fit_many, Dawid-Skene alone": {"label_model": "joint"},
               "fit_many, Dawid-Skene and pool": {"label_model": ("joint", "pool")}}
CELLS = "spe.fit(model=\"cells\"), one model at a time"
LABELED = "labeled items alone (Jeffreys)"
N_KEPT = 4
MIXED = ("cut ones excluded (default)", "cut ones in the label model", "in it, without their per-value maps")
DS = _label_model.DAWID_SKENE_NAME
COLS = ["method", "fits", "failed", "MAE", "bias", "coverage", "width", "w_DS"]
FORMATS = {"fits": "{}", "failed": "{}", "MAE": "{:.4f}", "bias": "{:+.4f}"}


def cut(scores: np.ndarray, kind: str) -> np.ndarray:
    """A family's scores made hard: 1 at or above its threshold (0.5, a margin's 0), else 0."""
    return (scores >= (0.5 if kind == "probability" else 0.0)).astype(float)


def estimate_row(method, model, truth, draws, weight=0.0) -> dict:
    """The median and the equal-tailed 90% interval of a model's accuracy draws."""
    lo, hi = np.quantile(draws, [ALPHA / 2, 1 - ALPHA / 2])
    return {"method": method, "model": model, "truth": float(truth), "est": float(np.median(draws)),
            "lo": float(lo), "hi": float(hi), "w_DS": float(weight)}


def labeled_row(model, truth, right: int, n: int) -> dict:
    """The labeled items' own share right and its Jeffreys interval (``right`` of ``n``)."""
    lo, hi = stats.beta.ppf([ALPHA / 2, 1 - ALPHA / 2], right + 0.5, n - right + 0.5)
    return {"method": LABELED, "model": model, "truth": float(truth), "est": right / n, "lo": float(lo),
            "hi": float(hi), "w_DS": 0.0}


def fit_rows(method, hard: dict, y, labels, seed, keys=None, **options) -> list[dict]:
    """Every model's accuracy row from one fit_many (``keys``: the models to report); one
    ``failed`` row when it raises (a failure is a result: counted, never dropped)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = spe.fit_many(hard, labels, seed=seed, **options)
    except Exception as exc:
        return [{"method": method, "failed": f"{type(exc).__name__}: {exc}"[:200]}]
    w = res.model_weights.get(DS, 0.0)
    return [estimate_row(method, m, np.mean((hard[m] >= 0.5) == (y == 1)), res.metric_draws(m)["accuracy"], w)
            for m in (keys or hard)]


def cells_row(model, s, y, labels, seed) -> dict:
    """``spe.fit(model="cells")`` on one hard model: accuracy draws from its positives per
    value (a ``failed`` row when spe.fit refuses, e.g. one value for every item, or the
    labels say the model runs the wrong way)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one = spe.fit(s, labels, model="cells", seed=seed, progress=False)
    except Exception as exc:
        return {"method": CELLS, "model": model, "failed": f"{type(exc).__name__}: {exc}"[:200]}
    pc = one.positive_counts  # (draws, 2): positives among the items predicted 0, then 1
    accuracy = (pc[:, 1] + (np.sum(s == 0) - pc[:, 0])) / s.size
    return estimate_row(CELLS, model, np.mean((s == 1) == (y == 1)), accuracy)


def simulated_trial(seed: int) -> list[dict]:
    """One simulated data set (SIMULATED classifiers, independent given the class)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(SIM_ITEMS) < SIM_PREVALENCE).astype(float)
    hard = {m: np.where(y == 1, rng.random(y.size) < se, rng.random(y.size) > sp).astype(float)
            for m, (se, sp) in SIMULATED.items()}
    labels = np.where(np.arange(y.size) < N_LABELS, y, np.nan)
    rows = []
    for method, options in SIM_METHODS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = spe.fit_many(hard, labels, seed=seed, **options)
        w = res.model_weights.get(DS, 0.0)
        p = res.prevalence(1 - ALPHA)
        for m, s in hard.items():
            rows.append(estimate_row(method, m, np.mean(s == y), res.metric_draws(m)["accuracy"], w)
                        | {"prevalence_covered": covers(p.lower, p.upper, y.mean())})
    for m, s in hard.items():
        rows.append(labeled_row(m, np.mean(s == y), int(np.sum(s[:N_LABELS] == y[:N_LABELS])), N_LABELS))
    return [r | {"task": "simulated", "trial": seed} for r in rows]


def dev_tasks(index: list[dict], n_tasks: int) -> list[str]:
    """The first ``n_tasks`` development tasks (CRC32 order) of DEV_ITEMS items and
    DEV_PREVALENCE positives; only R packages a-l (the development half)."""
    out = [r["task_id"] for r in select_tasks(index, "dev", None)
           if D.half_of(r["package"]) == "dev" and DEV_ITEMS[0] <= r["n"] <= DEV_ITEMS[1]
           and DEV_PREVALENCE[0] <= r["prevalence"] <= DEV_PREVALENCE[1]]
    return out[:n_tasks]


def _keep_hard(scores: dict, labels):
    """``split_models`` as if hard predictions always informed the labels (the mixed case's
    alternative): every model but the degenerate ones, and the hard ones among them."""
    excluded = {name: why for name, s in scores.items() if (why := _informants.exclusion(s, labels))}
    included = {name: s for name, s in scores.items() if name not in excluded}
    return included, excluded, {name for name, s in included.items() if _informants.has_few_values(s)}


@contextlib.contextmanager
def mixed_variant(variant: str):
    """fit_many as in MIXED[variant]: patched in this process for the duration only."""
    saved = _binary.split_models, _label_model._own_maps
    own_maps = _label_model._own_maps

    def own_maps_of_ranked(scores, labels, probabilities, rng, prior, few_values):
        ranked = {k: s for k, s in scores.items() if k not in few_values}
        return own_maps(ranked or scores, labels, probabilities, rng, prior, few_values)

    try:
        if variant != MIXED[0]:
            _binary.split_models = _keep_hard
        if variant == MIXED[2]:
            _label_model._own_maps = own_maps_of_ranked
        yield
    finally:
        _binary.split_models, _label_model._own_maps = saved


def dev_trial(job) -> list[dict]:
    """Every row of one (task, trial) of the development half: the hard fits and the mixed ones."""
    task_id, trial = job
    task = store.load_task(store.task_path(CACHE, task_id))
    y, scores, kinds = task["labels"], task["scores"], task["kinds"]
    hard = {f: cut(s, kinds[f]) for f, s in scores.items()}
    labels = np.full(y.size, np.nan)
    chosen = labeled_items(task_id, y.size, trial, N_LABELS)
    labels[chosen] = y[chosen]
    rows = []
    for method, options in DEV_METHODS.items():
        rows += fit_rows(method, hard, y, labels, trial, **options)
    rows += [cells_row(f, s, y, labels, trial) for f, s in hard.items()]
    rows += [labeled_row(f, np.mean(s == y), int(np.sum(s[chosen] == y[chosen])), N_LABELS) for f, s in hard.items()]
    names = list(hard)
    mixed = {f: scores[f] for f in names[:N_KEPT]} | {f: hard[f] for f in names[N_KEPT:]}
    for variant in MIXED:
        with mixed_variant(variant):
            rows += fit_rows(f"mixed: {variant}", mixed, y, labels, trial, keys=names[N_KEPT:])
    return [r | {"task": task_id, "trial": trial} for r in rows]


def summary_rows(rows: list[dict], methods) -> list[dict]:
    """Per method (in the order given): fits (model rows), failed (rows of fits that
    raised), MAE and mean signed error of the accuracy, coverage and mean width of the 90%
    interval, mean Dawid-Skene weight, and for rows that carry it the coverage of the
    prevalence."""
    out = []
    for method in methods:
        at = [r for r in rows if r["method"] == method and "failed" not in r]
        failed = sum(r["method"] == method and "failed" in r for r in rows)
        if not at:
            if failed:
                out.append({"method": method, "fits": 0, "failed": failed})
            continue
        err = np.array([r["est"] - r["truth"] for r in at])
        row = {"method": method, "fits": len(at), "failed": failed, "MAE": float(np.abs(err).mean()),
               "bias": float(err.mean()),
               "coverage": float(np.mean([covers(r["lo"], r["hi"], r["truth"]) for r in at])),
               "width": float(np.mean([r["hi"] - r["lo"] for r in at])),
               "w_DS": float(np.mean([r["w_DS"] for r in at]))}
        prevalence = [r["prevalence_covered"] for r in at if "prevalence_covered" in r]
        if prevalence:
            row["prevalence coverage"] = float(np.mean(prevalence))
        out.append(row)
    return out


def report(sim: list[dict], dev: list[dict], args, minutes: float, stamp: str) -> str:
    """The RESULTS.md section (``stamp``: :func:`run_stamp` at the run)."""
    n_tasks = len({r["task"] for r in dev})
    intro, simulated, corpus, mixed = (" ".join(p.split()) for p in __doc__.split("\n\n")[1:5])
    return "\n".join([
        "## Hard predictions in fit_many (`benchmarks/several_hard.py`)", "",
        stamp + f"; `--tasks {args.tasks} --trials {args.trials} --sim-seeds {args.sim_seeds}`: "
        f"{args.sim_seeds} simulated sets, {n_tasks} development tasks x {args.trials} trials, "
        f"{minutes:.1f} min on {args.jobs} processes. {intro} Columns: mean absolute and mean signed error "
        "of the accuracy estimate, coverage and mean width of the 90% interval, over (data set, model); "
        "`fits` counts (data set, model) rows, `failed` the fits that raised (fit_many: once per data set, "
        "e.g. when every family's cut gives one value for every item; spe.fit: once per model, e.g. one "
        "value, or labels that say it runs the wrong way), left out of the averages.", "",
        f"{simulated} {args.sim_seeds} seeds x 4 models:", "",
        table(summary_rows(sim, [*SIM_METHODS, LABELED]), COLS + ["prevalence coverage"], FORMATS), "",
        f"{corpus} {n_tasks} tasks x {args.trials} trials x 8 families:", "",
        table(summary_rows(dev, [*DEV_METHODS, CELLS, LABELED]), COLS, FORMATS), "",
        f"{mixed} {n_tasks} tasks x {args.trials} trials x 4 cut families:", "",
        table(summary_rows(dev, [f"mixed: {v}" for v in MIXED]), COLS, FORMATS), "",
    ])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=30, help="development tasks")
    ap.add_argument("--trials", type=int, default=3, help="draws of 20 labels per task")
    ap.add_argument("--sim-seeds", type=int, default=40, help="simulated data sets")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="print the tables only (no RESULTS.md)")
    ap.add_argument("--report", action="store_true", help=f"the tables of the last run ({RAW.name}), no fits")
    args = ap.parse_args(argv)
    if args.report:
        raw = json.loads(RAW.read_text())
        args = argparse.Namespace(**raw["args"] | {"no_write": args.no_write})
        return finish(report(raw["simulated"], raw["dev"], args, raw["minutes"], raw["stamp"]), args)
    index = store.index_or_exit(CACHE)
    tasks = dev_tasks(index, args.tasks)
    start = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        dev_jobs = pool.map(dev_trial, [(t, trial) for t in tasks for trial in range(args.trials)])
        sim = [r for rows in pool.map(simulated_trial, range(args.sim_seeds)) for r in rows]
        dev = [r for rows in dev_jobs for r in rows]
    minutes, stamp = (time.time() - start) / 60, run_stamp()
    RAW.parent.mkdir(parents=True, exist_ok=True)
    RAW.write_text(json.dumps({"simulated": sim, "dev": dev, "minutes": minutes, "stamp": stamp, "args": {
        k: getattr(args, k) for k in ("tasks", "trials", "sim_seeds", "jobs")}}))
    finish(report(sim, dev, args, minutes, stamp), args)


def finish(text: str, args):
    print(text)
    if not args.no_write:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
