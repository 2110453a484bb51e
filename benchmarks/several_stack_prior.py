"""What fit_many's stack trades when its prior over label models moves, measured side by side.

`spe.fit_many` stacks candidate label models (each model's own map, each probability
model's "calibrated" map, the log-linear pool, the Gaussian copula) with pseudo-BMA
weights: the labels' leave-one-out densities times a prior weight, equal for every
candidate today. Scaling the prior weight of one kind of candidate multiplies its
weights exactly as `spe.pooling.combine`'s `prior_weights` would, so each variant
below is the default fit re-weighted, not refitted: per fit, 300 labellings are drawn
from each candidate alone (the 20 labeled items fixed), every model's AUROC, AP and
accuracy are scored on them, and a variant's posterior for a model is the mixture of the
candidates' draws under its weights (median and 90% interval). `own scores only` keeps,
for each model, only the candidates that read its scores (its own maps, the pool, the
copula), the idea that labels drawn from another model's map understate a model
(attenuation); with `calibrated=False` also without the "calibrated" maps. `mean
log-odds map` adds one candidate the package does not have: a calibration map (the
corpus-learned margin prior) of the models' mean log-odds, each model's log-odds (margins
as they are) divided by their interquartile range over the items, so labels drawn from it
depend on every model alike (near-copies average out their own noise); the stack's
weights are recomputed with it (`spe.pooling.combine`), then its prior weight scaled, or it
alone.

Sets: the corpus' development groups (eight families on the same items, 20 random
labels, `benchmarks/several_corpus.py`'s first 40 tasks, trial 0; R packages a-l, where
choices are made), the three shared-error beds of `benchmarks/several_testbeds.py` (12
tasks x 3 trials each), and the several-model files of `benchmarks/ssme_shared.py`
(10 seeds each; they judge, nothing is chosen on them). Truth: the metric of the items
each fit describes (`kind="sample"`). `top bias`: the mean signed AP error (points) of the
model each variant ranks first by AP; the shared-error issue asks it within +-2.

    python -m benchmarks.several_stack_prior [--jobs 2] [--quick] [--no-write]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy import special

import spe
from benchmarks.corpus import CACHE, store
from benchmarks.corpus.evaluate import select_tasks
from benchmarks.harness.cases import DATA, FILES, ssme_split
from benchmarks.harness.metrics import ALPHA, exact_ap, exact_auc
from benchmarks.harness.report import run_stamp, table, write_section
from benchmarks.several_testbeds import BEDS, N_LABELS, bed_items, bed_tasks, label_model_kind
from benchmarks.ssme_shared import file_models
from spe.metrics import draws_sweep, sample_auroc, sample_average_precision
from spe.calibration import fit_calibration_map
from spe.pooling import combine, systematic_resample
from spe.scores import looks_like_probabilities

HERE = Path(__file__).resolve().parent
MARKERS = ("<!-- several-stack-prior:start -->", "<!-- several-stack-prior:end -->")
N_DRAWS = 300
METRICS = ("auc", "auprc", "accuracy")
SSME_FILES = ("bank", "compas", "digits", "simulated", "simulated, noisy top")
#: Variants: {kind of candidate: prior multiplier}; "own scores" keeps each model's own candidates and the joint ones.
VARIANTS = {"default stack": {},
            "calibrated maps x0.25": {"calibrated maps": 0.25}, "calibrated maps x0.5": {"calibrated maps": 0.5},
            "calibrated maps x2": {"calibrated maps": 2.0}, "calibrated maps x4": {"calibrated maps": 4.0},
            "pool x0.5": {"log-linear pool": 0.5}, "pool x2": {"log-linear pool": 2.0},
            "copula x0.5": {"Gaussian copula": 0.5}, "copula x2": {"Gaussian copula": 2.0},
            "own scores only": {"own scores": 1.0},
            "own scores only, calibrated=False": {"own scores": 1.0, "calibrated maps": 0.0},
            "with a mean log-odds map": {"mean log-odds map": 1.0},
            "with a mean log-odds map x7": {"mean log-odds map": 7.0},
            "mean log-odds map alone": {"mean log-odds map": 1.0, "alone": True}}
JOINT = ("log-linear pool", "Gaussian copula")
MEAN_MAP = "mean log-odds map"


class ItemMap:
    """A calibration map of one score per item, evaluated at item indices (as the stack's candidates are)."""

    def __init__(self, fit, scores):
        self.fit, self.scores = fit, scores
        self.weights, self.n_draws = fit.weights, fit.n_draws

    def prob_positive(self, items, draws=None):
        return self.fit.prob_positive(self.scores[np.asarray(items, dtype=np.intp)], draws)


def mean_log_odds(models: dict) -> np.ndarray:
    """Every model's log-odds (margins as they are) over its interquartile range, averaged per item."""
    scaled = []
    for s in models.values():
        g = special.logit(np.clip(s, 1e-6, 1 - 1e-6)) if looks_like_probabilities(s) else np.asarray(s, float)
        q25, q75 = np.percentile(g, [25, 75])
        scaled.append(g / max(q75 - q25, 1e-9))
    return np.mean(scaled, axis=0)


def with_mean_map(fits: dict, models: dict, labels, seed: int) -> tuple[dict, dict]:
    """(candidates with the mean log-odds map added, the stack's weights recomputed with it)."""
    rng = np.random.default_rng([seed, 48])
    score = mean_log_odds(models)
    fit = fit_calibration_map("spline", score, labels, probabilities=False, n_draws=1000, rng=rng,
                              prior=spe.learned.default_prior().map_prior("margin"))
    fits = fits | {MEAN_MAP: ItemMap(fit, score)}
    known = np.flatnonzero(~np.isnan(labels))
    return fits, combine(fits, known, labels[known], n_draws=1000, rng=rng).model_weights


def candidate_draws(fit, models: dict, thresholds: dict, y, labeled, rng) -> dict:
    """{model: (3, N_DRAWS) AUROC, AP, accuracy} on labellings drawn from one candidate alone."""
    rows = systematic_resample(fit.weights, N_DRAWS, rng)
    needed, where = np.unique(rows, return_inverse=True)
    drawn = rng.random((N_DRAWS, y.size)) < fit.prob_positive(np.arange(y.size), needed)[where]
    drawn[:, labeled] = y[labeled] == 1
    out = {}
    for m, s in models.items():
        sweep = draws_sweep(s, drawn)
        out[m] = np.stack([sample_auroc(sweep), sample_average_precision(sweep),
                           (drawn == (s >= thresholds[m])).mean(axis=1)])
    return out


def variant_weights(weights: dict, model: str, variant: dict) -> dict:
    """The candidates' weights for one model under a variant (normalised; zero-weight ones dropped)."""
    out = {}
    for name, w in weights.items():
        kind = MEAN_MAP if name == MEAN_MAP else label_model_kind(name)
        if variant.get("alone") and kind != MEAN_MAP:
            continue
        if "own scores" in variant and kind not in JOINT and name.removesuffix(" (calibrated)") != model:
            continue
        out[name] = w * variant.get(kind, 1.0)
    total = sum(out.values())
    return {k: v / total for k, v in out.items() if v > 0}


def mixture_summary(draws: dict, weights: dict) -> np.ndarray:
    """(3, 3) median, lower, upper of each metric over the candidates' draws mixed by ``weights``."""
    values = np.concatenate([draws[k] for k in weights], axis=1)
    mass = np.concatenate([np.full(draws[k].shape[1], w / draws[k].shape[1]) for k, w in weights.items()])
    out = np.empty((3, 3))
    for i, v in enumerate(values):
        order = np.argsort(v, kind="stable")
        cum = np.cumsum(mass[order]) / mass.sum()
        at = lambda q: v[order][min(np.searchsorted(cum, q), v.size - 1)]  # noqa: E731
        out[i] = at(0.5), at(ALPHA / 2), at(1 - ALPHA / 2)
    return out


def evaluate_fit(group: str, models: dict, y, labeled, thresholds: dict, seed: int) -> dict:
    """Every variant's (median, lower, upper) per model and metric, and the truth, for one fit."""
    labels = np.full(y.size, np.nan)
    labels[labeled] = y[labeled]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit_many(models, labels, seed=seed)
    rng = np.random.default_rng([seed, 47])
    fits, with_mean = with_mean_map(res.label_model.fits, models, labels, seed)
    per_candidate = {name: candidate_draws(fit, models, thresholds, y, labeled, rng) for name, fit in fits.items()}
    summaries = {}
    for v, opts in VARIANTS.items():
        weights = with_mean if MEAN_MAP in opts else res.label_model.model_weights
        summaries[v] = {m: mixture_summary({k: per_candidate[k][m] for k in weights},
                                           variant_weights(weights, m, opts)) for m in models}
    truth = {m: np.array([exact_auc(s, y), exact_ap(s, y), np.mean((s >= thresholds[m]) == (y == 1))])
             for m, s in models.items()}
    return {"group": group, "variants": summaries, "truth": truth}


def corpus_fit(task_id: str) -> dict:
    task = store.load_task(store.task_path(CACHE, task_id))
    y, scores, kinds = task["labels"].astype(float), task["scores"], task["kinds"]
    rng = np.random.default_rng([0, len(y), sum(map(ord, task_id))])  # several_corpus' trial 0 labels
    labeled = rng.choice(y.size, 20, replace=False)
    thresholds = {m: 0.5 if kinds[m] == "probability" else 0.0 for m in scores}
    return evaluate_fit("corpus dev", scores, y, labeled, thresholds, 0)


def bed_fit(row: dict, bed: str, trial: int) -> dict:
    scores, y = bed_items(row, bed, trial)
    models = {f"{bed} {j}": scores[:, j] for j in range(scores.shape[1])}
    return evaluate_fit(bed, models, y, np.arange(N_LABELS), dict.fromkeys(models, 0.5), trial)


def file_fit(short: str, seed: int) -> dict | None:
    scores, y, names = file_models(short)
    split = ssme_split(short, y, seed)
    if split is None:
        return None
    chosen = split[1]
    models = {n: scores[chosen, j] for j, n in enumerate(names)}
    return evaluate_fit(short, models, y[chosen], np.arange(20), dict.fromkeys(models, 0.5), seed)


def run_job(job):
    kind, args = job
    return {"corpus": corpus_fit, "bed": bed_fit, "file": file_fit}[kind](*args)


def jobs_of(n_tasks: int, n_bed_tasks: int, trials: int, seeds: int) -> list:
    index = store.index_or_exit(CACHE)
    jobs = [("corpus", (r["task_id"],)) for r in select_tasks(index, "dev", n_tasks)]
    jobs += [("bed", (r, b, t)) for r in bed_tasks(index, n_bed_tasks) for b in BEDS for t in range(trials)]
    files = [f for f in SSME_FILES if f not in FILES or (DATA / FILES[f]).exists()]  # ../shared/data: skip if absent
    return jobs + [("file", (f, s)) for f in files for s in range(seeds)]


def group_measures(results: list[dict], variant: str) -> dict:
    """{group: {measure: value}} for one variant: AP MAE and bias, AUROC MAE, coverage, top bias."""
    out = {}
    for group in dict.fromkeys(r["group"] for r in results):
        errors, covered, tops = [], [], []
        for r in (r for r in results if r["group"] == group):
            fit = r["variants"][variant]
            for m, s in fit.items():
                errors.append(s[:, 0] - r["truth"][m])
                covered.append((s[:, 1] <= r["truth"][m] + 1e-12) & (r["truth"][m] <= s[:, 2] + 1e-12))
            top = max(fit, key=lambda m: fit[m][1, 0])
            tops.append(fit[top][1, 0] - r["truth"][top][1])
        e, c = np.array(errors), np.array(covered)
        out[group] = {"auprc": 100 * np.abs(e[:, 1]).mean(), "auc": 100 * np.abs(e[:, 0]).mean(),
                      "bias": 100 * e[:, 1].mean(), "cover_auprc": c[:, 1].mean(), "cover_auc": c[:, 0].mean(),
                      "top": 100 * float(np.mean(tops)), "fits": len(tops)}
    return out


def measure_table(measures: dict, key: str, fmt: str) -> str:
    groups = list(next(iter(measures.values())))
    rows = [{"variant": v} | {g: fmt.format(m[g][key]) for g in groups} for v, m in measures.items()]
    return table(rows, ["variant", *groups], {})


def report(results: list[dict], head: str) -> str:
    measures = {v: group_measures(results, v) for v in VARIANTS}
    fits = {g: m["fits"] for g, m in measures["default stack"].items()}
    best = min(VARIANTS, key=lambda v: measures[v]["corpus dev"]["auprc"])
    return "\n".join([
        "## What the stack's prior over its label models trades (`benchmarks/several_stack_prior.py`)", "",
        head + " " + " ".join(__doc__.split("\n\n")[1].split()) + " " + " ".join(__doc__.split("\n\n")[2].split()),
        "", "Fits per set: " + ", ".join(f"{g} {n}" for g, n in fits.items()) + ". On the development groups the "
        f"lowest AP error is `{best}`'s.", "",
        "Top bias (points; the mean signed AP error of the model ranked first):", "",
        measure_table(measures, "top", "{:+.2f}"), "",
        "AP mean absolute error (points):", "", measure_table(measures, "auprc", "{:.2f}"), "",
        "AUROC mean absolute error (points):", "", measure_table(measures, "auc", "{:.2f}"), "",
        "Coverage of 90% AP intervals:", "", measure_table(measures, "cover_auprc", "{:.3f}"), ""])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="2 corpus tasks, 1 bed task x 1 trial, 1 seed per file")
    ap.add_argument("--no-write", action="store_true", help="print only (no RESULTS.md)")
    args = ap.parse_args(argv)
    sizes = (2, 1, 1, 1) if args.quick else (40, 12, 3, 10)
    jobs = jobs_of(*sizes)
    start = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = [r for r in pool.map(run_job, jobs) if r is not None]
    head = (run_stamp() + f"; {len(results)} fits, {(time.time() - start) / 60:.1f} min on {args.jobs} processes"
            + (" (`--quick`)" if args.quick else "") + ".")
    text = report(results, head)
    print(text)
    if not args.no_write and not args.quick:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
