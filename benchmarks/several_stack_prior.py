"""What fit_many's stack trades when its prior over label models moves, measured side by side.

`spe.fit_many` stacks candidate label models (each model's own map, each probability
model's "calibrated" map, the log-linear pool, the Gaussian copula) with pseudo-BMA
weights: the labels' leave-one-out densities times a prior weight, equal for every
candidate today. Scaling the prior weight of one kind of candidate multiplies its
weights exactly as `spe.pooling.combine`'s `prior_weights` would, so each variant
below is the default fit re-weighted, not refitted: per fit, 300 labellings are drawn
from each candidate alone (the 20 labeled items fixed), every model's AUROC and AP are
scored on them, and a variant's posterior for a model is the mixture of the candidates'
draws under its weights (median and 90% interval). `own scores only` keeps, for each
model, only the candidates that read its scores (its own maps and the joint models: pool,
copula, Dawid-Skene), the idea that labels drawn from another model's map understate a
model (attenuation); a model kept out of the label model keeps every candidate. `mean
log-odds map` adds one candidate the package does not have: a calibration map (the
corpus-learned margin prior) of the mean of the label model's models' log-odds (margins
as they are), each divided by its interquartile range over the items, so labels drawn
from it depend on every model alike (near-copies average out their own noise). Its weight
comes from the labels as the others' do (`spe.pooling.combine`), the other candidates
keep their relative weights, and then its prior weight is scaled, or it stands alone.

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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import special

import spe
from benchmarks.corpus import CACHE, store
from benchmarks.corpus.evaluate import select_tasks
from benchmarks.harness.cases import DATA, FILES, ssme_split
from benchmarks.harness.metrics import ALPHA, exact_ap, exact_auc
from benchmarks.harness.report import run_stamp, table, write_section
from benchmarks.several_components import candidate_labellings
from benchmarks.several_corpus import labeled_items
from benchmarks.several_testbeds import BEDS, N_LABELS, bed_items, bed_tasks, label_model_kind
from benchmarks.ssme_shared import file_models
from spe.calibration import fit_calibration_map
from spe.metrics import band, draws_sweep, sample_auroc, sample_average_precision
from spe.pooling import combine
from spe.scores import looks_like_probabilities
from spe.several._label_model import MAP_DRAWS, MAP_FORM, ItemScoreModel

HERE = Path(__file__).resolve().parent
MARKERS = ("<!-- several-stack-prior:start -->", "<!-- several-stack-prior:end -->")
N_DRAWS = 300
SSME_FILES = ("bank", "compas", "digits", "simulated", "simulated, noisy top")
JOINT = ("log-linear pool", "Gaussian copula", "Dawid-Skene")
MEAN_MAP = "mean log-odds map"
DEFAULT = "default stack"
DEV = "corpus dev"


@dataclass(frozen=True)
class Variant:
    """A re-weighting of the default stack: prior multipliers per kind of candidate
    (:func:`benchmarks.several_testbeds.label_model_kind`'s names, or MEAN_MAP), and whether
    each model reads only its own candidates, or the mean log-odds map stands alone."""

    multipliers: dict = field(default_factory=dict)
    own_scores: bool = False
    mean_map_alone: bool = False

    @property
    def with_mean_map(self) -> bool:
        return MEAN_MAP in self.multipliers or self.mean_map_alone


VARIANTS = {DEFAULT: Variant(),
            "calibrated maps x0": Variant({"calibrated maps": 0.0}),
            "calibrated maps x0.25": Variant({"calibrated maps": 0.25}),
            "calibrated maps x0.5": Variant({"calibrated maps": 0.5}),
            "calibrated maps x2": Variant({"calibrated maps": 2.0}),
            "calibrated maps x4": Variant({"calibrated maps": 4.0}),
            "pool x0.5": Variant({"log-linear pool": 0.5}), "pool x2": Variant({"log-linear pool": 2.0}),
            "copula x0.5": Variant({"Gaussian copula": 0.5}), "copula x2": Variant({"Gaussian copula": 2.0}),
            "own scores only": Variant(own_scores=True),
            "own scores only, calibrated=False": Variant({"calibrated maps": 0.0}, own_scores=True),
            "with a mean log-odds map": Variant({MEAN_MAP: 1.0}),
            "with a mean log-odds map x7": Variant({MEAN_MAP: 7.0}),
            "mean log-odds map alone": Variant(mean_map_alone=True)}


def candidate_draws(fit, models: dict, y, labeled, rng) -> dict:
    """{model: (2, N_DRAWS) AUROC and AP} on labellings drawn from one candidate alone."""
    _, drawn = candidate_labellings(fit, y, labeled, N_DRAWS, rng)
    out = {}
    for m, s in models.items():
        sweep = draws_sweep(s, drawn)
        out[m] = np.stack([sample_auroc(sweep), sample_average_precision(sweep)])
    return out


def kind_of(name: str) -> str:
    """A candidate's kind: the joint models and the mean map by name, the rest as the test beds name them."""
    return name if name in (*JOINT, MEAN_MAP) else label_model_kind(name)


def variant_weights(weights: dict, model: str, variant: Variant, excluded=()) -> dict:
    """The candidates' weights for one model under a variant (normalised; zero-weight ones dropped)."""
    if variant.mean_map_alone:
        return {MEAN_MAP: 1.0}
    out = {}
    for name, w in weights.items():
        kind = kind_of(name)
        reads_model = kind in (*JOINT, MEAN_MAP) or name.removesuffix(" (calibrated)") == model
        if variant.own_scores and model not in excluded and not reads_model:
            continue
        out[name] = w * variant.multipliers.get(kind, 1.0)
    total = sum(out.values())
    if total <= 0:
        raise ValueError(f"variant {variant} leaves model {model!r} no candidate")
    return {k: v / total for k, v in out.items() if v > 0}


def mixture_summary(draws: dict, weights: dict) -> np.ndarray:
    """(2, 3) median, lower, upper of AUROC and AP over the candidates' draws mixed by ``weights``."""
    values = np.concatenate([draws[k] for k in weights], axis=1)
    mass = np.concatenate([np.full(draws[k].shape[1], w / draws[k].shape[1]) for k, w in weights.items()])
    return np.column_stack(band(values.T, mass, 1 - ALPHA))


def mean_log_odds(models: dict) -> np.ndarray:
    """Every model's log-odds (margins as they are) over its interquartile range, averaged
    per item; a model whose range is 0 (mostly ties) is left out."""
    scaled = []
    for s in models.values():
        g = special.logit(np.clip(s, 1e-6, 1 - 1e-6)) if looks_like_probabilities(s) else np.asarray(s, float)
        q25, q75 = np.percentile(g, [25, 75])
        if q75 > q25:
            scaled.append(g / (q75 - q25))
    return np.mean(scaled, axis=0)


def with_mean_map(res, labels, seed: int) -> tuple[dict, dict]:
    """(the stack's candidates with the mean log-odds map of its models, their weights): the
    map's weight from the labels (``combine``), every other candidate keeping its share of the rest."""
    rng = np.random.default_rng([seed, 48])
    informing = {m: s for m, s in res.scores.items() if m not in res.excluded}
    score = mean_log_odds(informing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_calibration_map(MAP_FORM, score, labels, probabilities=False, n_draws=MAP_DRAWS, rng=rng,
                                  prior=spe.learned.default_prior().map_prior("margin"))
    fits = res.label_model.fits | {MEAN_MAP: ItemScoreModel(fit, score)}
    known = np.flatnonzero(~np.isnan(labels))
    share = combine(fits, known, labels[known], n_draws=MAP_DRAWS, rng=rng).model_weights[MEAN_MAP]
    weights = {k: (1 - share) * w for k, w in res.label_model.model_weights.items()}
    return fits, weights | {MEAN_MAP: share}


def evaluate_fit(group: str, models: dict, y, labeled, seed: int) -> dict:
    """Every variant's (median, lower, upper) AUROC and AP per model, and the truth, for one fit."""
    labels = np.full(y.size, np.nan)
    labels[labeled] = y[labeled]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit_many(models, labels, seed=seed)
    fits, mean_weights = with_mean_map(res, labels, seed)
    rng = np.random.default_rng([seed, 47])
    per_candidate = {name: candidate_draws(fit, models, y, labeled, rng) for name, fit in fits.items()}
    summaries = {}
    for name, variant in VARIANTS.items():
        weights = mean_weights if variant.with_mean_map else res.label_model.model_weights
        summaries[name] = {m: mixture_summary({k: per_candidate[k][m] for k in weights},
                                              variant_weights(weights, m, variant, res.excluded)) for m in models}
    truth = {m: np.array([exact_auc(s, y), exact_ap(s, y)]) for m, s in models.items()}
    return {"group": group, "variants": summaries, "truth": truth}


def corpus_fit(task_id: str) -> dict:
    task = store.load_task(store.task_path(CACHE, task_id))
    y = task["labels"].astype(float)
    return evaluate_fit(DEV, task["scores"], y, labeled_items(task_id, y.size, 0, N_LABELS), 0)  # several_corpus' trial 0


def bed_fit(row: dict, bed: str, trial: int) -> dict:
    scores, y = bed_items(row, bed, trial)
    return evaluate_fit(bed, {f"{bed} {j}": scores[:, j] for j in range(scores.shape[1])}, y, np.arange(N_LABELS),
                        trial)


def file_fit(short: str, seed: int) -> dict | None:
    scores, y, names = file_models(short)
    split = ssme_split(short, y, seed)
    if split is None:
        return None
    chosen = split[1]
    return evaluate_fit(short, {n: scores[chosen, j] for j, n in enumerate(names)}, y[chosen], np.arange(20), seed)


def run_job(job):
    kind, args = job
    return {"corpus": corpus_fit, "bed": bed_fit, "file": file_fit}[kind](*args)


def jobs_of(n_tasks: int, n_bed_tasks: int, trials: int, seeds: int) -> list:
    index = store.index_or_exit(CACHE)
    jobs = [("corpus", (r["task_id"],)) for r in select_tasks(index, "dev", n_tasks)]
    jobs += [("bed", (r, b, t)) for r in bed_tasks(index, n_bed_tasks) for b in BEDS for t in range(trials)]
    files = [f for f in SSME_FILES if f not in FILES or (DATA / FILES[f]).exists()]  # ../shared/data: skip if absent
    return jobs + [("file", (f, s)) for f in files for s in range(seeds)]


def fit_measures(fit: dict, truth: dict) -> dict:
    """One fit's mean absolute AUROC and AP errors, AP coverage and the top pick's signed AP error."""
    errors = np.array([s[:, 0] - truth[m] for m, s in fit.items()])
    covered = [s[1, 1] <= truth[m][1] + 1e-12 and truth[m][1] <= s[1, 2] + 1e-12 for m, s in fit.items()]
    top = max(fit, key=lambda m: fit[m][1, 0])
    return {"auc": np.abs(errors[:, 0]).mean(), "auprc": np.abs(errors[:, 1]).mean(), "cover_auprc": np.mean(covered),
            "top": fit[top][1, 0] - truth[top][1]}


def group_measures(results: list[dict], variant: str) -> dict:
    """{group: {measure: value}} for one variant: AUROC and AP MAE, AP coverage (per model and
    fit), top bias, and the AP MAE's paired difference from the default with its standard error."""
    out = {}
    for group in dict.fromkeys(r["group"] for r in results):
        done = [r for r in results if r["group"] == group]
        fits = [fit_measures(r["variants"][variant], r["truth"]) for r in done]
        gain = [f["auprc"] - fit_measures(r["variants"][DEFAULT], r["truth"])["auprc"] for f, r in zip(fits, done)]
        out[group] = {k: float(np.mean([f[k] for f in fits])) * (1 if k == "cover_auprc" else 100)
                      for k in ("auc", "auprc", "cover_auprc", "top")}
        out[group] |= {"fits": len(done), "vs_default": 100 * float(np.mean(gain)),
                       "vs_default_se": 100 * float(np.std(gain, ddof=1) / np.sqrt(len(gain))) if len(gain) > 1 else 0.0}
    return out


def measure_table(measures: dict, cell) -> str:
    groups = list(next(iter(measures.values())))
    return table([{"variant": v} | {g: cell(m[g]) for g in groups} for v, m in measures.items()], ["variant", *groups],
                 {})


def report(results: list[dict], head: str) -> str:
    measures = {v: group_measures(results, v) for v in VARIANTS}
    fits = {g: m["fits"] for g, m in measures[DEFAULT].items()}
    intro = " ".join(" ".join(p.split()) for p in __doc__.split("\n\n")[1:3])
    best = (f" On the development groups the lowest AP error is `{min(VARIANTS, key=lambda v: measures[v][DEV]['auprc'])}`'s."
            if DEV in fits else "")
    return "\n".join([
        "## What the stack's prior over its label models trades (`benchmarks/several_stack_prior.py`)", "",
        f"{head} {intro}", "", "Fits per set: " + ", ".join(f"{g} {n}" for g, n in fits.items()) + "." + best, "",
        "Top bias (points; the mean signed AP error of the model ranked first):", "",
        measure_table(measures, lambda m: f"{m['top']:+.2f}"), "",
        "AP mean absolute error (points):", "", measure_table(measures, lambda m: f"{m['auprc']:.2f}"), "",
        "AP mean absolute error minus the default stack's on the same fits (points; +- standard error over fits):", "",
        measure_table(measures, lambda m: f"{m['vs_default']:+.2f} +- {m['vs_default_se']:.2f}"), "",
        "AUROC mean absolute error (points):", "", measure_table(measures, lambda m: f"{m['auc']:.2f}"), "",
        "Coverage of 90% AP intervals:", "", measure_table(measures, lambda m: f"{m['cover_auprc']:.3f}"), ""])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="2 corpus tasks, 1 bed task x 1 trial, 1 seed per file")
    ap.add_argument("--no-write", action="store_true", help="print only (no RESULTS.md)")
    args = ap.parse_args(argv)
    jobs = jobs_of(*((2, 1, 1, 1) if args.quick else (40, 12, 3, 10)))
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
