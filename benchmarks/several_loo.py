"""How optimistic are fit_many's leave-one-out densities for the label models that use the labels twice?

`spe.fit_many` weighs its candidate label models by the labels' leave-one-out (LOO)
predictive densities, estimated by Pareto-smoothed importance sampling (PSIS) over each
candidate's posterior draws. For a model's own calibration map that is the LOO density
of a one-stage posterior. The log-linear pool and the Gaussian copula are two-stage: each
model is first recalibrated by Platt on all the labels, then pooled (or coupled) on
those recalibrated log-odds, and PSIS leaves an item out of the second stage only. Here,
on the corpus' development groups (the first `--tasks` tasks, 20 random labels as
`benchmarks/several_corpus.py`'s trial 0; R packages a-l), each labeled item is left out
of every stage in turn (exact LOO: the recalibration and the pool or copula refitted
without it) and its predictive density compared with PSIS's. A model's own map (the
task's first family, as `fit_many` fits it) is the control, where both should agree.
`exact - PSIS` is per fit, summed over its 20 labels (nats); `weight factor` is
exp(mean of it): by how much pseudo-BMA over-weights that candidate against a correctly
estimated one. `k > 0.7`: the mean share of a fit's labels whose PSIS Pareto k exceeds 0.7,
where PSIS is not to be trusted.

    python -m benchmarks.several_loo [--tasks 40] [--jobs 2] [--no-write]
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

import spe
from benchmarks.corpus import CACHE, store
from benchmarks.corpus.evaluate import select_tasks
from benchmarks.harness.report import run_stamp, table, write_section
from benchmarks.several_corpus import labeled_items
from spe.calibration import fit_calibration_map
from spe.learned import score_kind
from spe.pooling import import_arviz, pointwise_log_likelihood, systematic_resample
from spe.scores import looks_like_probabilities
from spe.several._joint import fit_gaussian_copula
from spe.several._label_model import MAP_DRAWS, MAP_FORM, ItemScoreModel
from spe.several._log_linear_pool import fit_log_linear_pool, platt_fits

HERE = Path(__file__).resolve().parent
MARKERS = ("<!-- several-loo:start -->", "<!-- several-loo:end -->")
N_LABELS = 20
LOO_DRAWS = 1000
KHAT_BAD = 0.7
CANDIDATES = ("own map (control)", "log-linear pool", "Gaussian copula")


def own_map(scores: dict, labels, rng):
    """The first model's own map at item indices, under the default prior of its score kind."""
    name, s = next(iter(scores.items()))
    prob = looks_like_probabilities(s)
    fit = fit_calibration_map(MAP_FORM, s, labels, probabilities=prob, n_draws=MAP_DRAWS, rng=rng,
                              prior=spe.learned.default_prior().map_prior(score_kind(s, prob)))
    return ItemScoreModel(fit, s)


def fit_candidate(kind: str, scores: dict, labels, seed: int):
    """One candidate label model fitted to ``labels`` (NaN = unlabeled), every stage included."""
    rng = np.random.default_rng(seed)
    probabilities = {m: looks_like_probabilities(s) for m, s in scores.items()}
    if kind == CANDIDATES[0]:
        return own_map(scores, labels, rng)
    platt = platt_fits(scores, labels, probabilities, rng)
    if kind == "log-linear pool":
        return fit_log_linear_pool(scores, labels, probabilities, MAP_DRAWS, rng, platt)
    return fit_gaussian_copula(scores, labels, platt, rng)


def psis_loo(fit, labeled, y) -> tuple[float, float]:
    """The labels' PSIS-LOO density under one fit's draws, as fit_many's stack estimates it,
    and the share of labels whose Pareto k exceeds 0.7 (where PSIS is unreliable)."""
    az = import_arviz()
    rows = systematic_resample(fit.weights, LOO_DRAWS, np.random.default_rng(0))
    loglik = pointwise_log_likelihood(fit.prob_positive(labeled)[rows], y)
    data = {"posterior": {"_": np.zeros((1, loglik.shape[0]))}, "log_likelihood": {"y": loglik[None]}}
    idata = az.from_dict(data) if int(az.__version__.split(".")[0]) >= 1 else az.from_dict(**data)
    loo = az.loo(idata, pointwise=True)
    return float(loo.elpd_loo), float(np.mean(np.asarray(loo.pareto_k) > KHAT_BAD))


def exact_elpd(kind: str, scores: dict, labels, labeled, seed: int) -> float:
    """The labels' exact LOO density: each labeled item left out of every stage of the fit."""
    total = 0.0
    for i in labeled:
        without = labels.copy()
        without[i] = np.nan
        fit = fit_candidate(kind, scores, without, seed)
        p = float(fit.weights @ fit.prob_positive(np.array([i]))[:, 0])
        total += np.log(p if labels[i] == 1 else 1 - p)
    return total


def one_task(task_id: str) -> dict | None:
    task = store.load_task(store.task_path(CACHE, task_id))
    y = task["labels"].astype(float)
    labeled = labeled_items(task_id, y.size, 0, N_LABELS)  # several_corpus' trial 0 labels
    if not 0 < y[labeled].sum() < N_LABELS:
        return None
    labels = np.full(y.size, np.nan)
    labels[labeled] = y[labeled]
    scores = {m: s for m, s in task["scores"].items() if np.unique(s).size > 2}  # ranked models, as the pool takes
    out = {"task": task_id}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind in CANDIDATES:
            fit = fit_candidate(kind, scores, labels, 1)
            out[kind] = (*psis_loo(fit, labeled, y[labeled]), exact_elpd(kind, scores, labels, labeled, 1))
    return out


def summary_rows(results: list[dict]) -> list[dict]:
    rows = []
    for kind in CANDIDATES:
        psis, bad, exact = np.array([r[kind] for r in results]).T
        gap = exact - psis
        rows.append({"label model": kind, "fits": len(results), "PSIS elpd": psis.mean(), "k > 0.7": bad.mean(),
                     "exact elpd": exact.mean(),
                     "exact - PSIS": gap.mean(), "se": gap.std(ddof=1) / np.sqrt(gap.size),
                     "weight factor": float(np.exp(gap.mean()))})
    return rows


def report(results: list[dict], head: str) -> str:
    cols = ["label model", "fits", "PSIS elpd", "k > 0.7", "exact elpd", "exact - PSIS", "se", "weight factor"]
    return "\n".join([
        "## How optimistic are the stack's leave-one-out densities? (`benchmarks/several_loo.py`)", "",
        head + " " + " ".join(__doc__.split("\n\n")[1].split()), "",
        "Mean per fit (nats, summed over its 20 labels):", "",
        table(summary_rows(results), cols, {"fits": "{}", "weight factor": "{:.3g}"}), ""])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="print only (no RESULTS.md)")
    args = ap.parse_args(argv)
    tasks = [r["task_id"] for r in select_tasks(store.index_or_exit(CACHE), "dev", args.tasks)]
    start = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = [r for r in pool.map(one_task, tasks) if r is not None]
    head = (run_stamp() + f"; `--tasks {args.tasks}`: {len(results)} fits with both classes among the labels, "
            f"{(time.time() - start) / 60:.1f} min on {args.jobs} processes.")
    text = report(results, head)
    print(text)
    if not args.no_write:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
