"""Measure ``spe`` on one half of the corpus: ``python -m benchmarks.corpus.evaluate --half dev``.

For every task x family of the half, ``--trials`` draws of ``budget`` random labels per
budget (seeded by task, family, budget and trial), ``spe.fit(scores, labels, seed=trial)``
and, against the truth of all the task's held-out items (:mod:`benchmarks.corpus.measures`):
coverage and error of the 90% intervals of AP, AUROC and prevalence; the labeled items'
own AP error (the baseline); ``choose_threshold(min_precision=0.9, confidence=c)`` for c in
0.8, 0.9, 0.95 (feasible, truth met, true recall); ECE of ``prob_positive()``, of the raw
probabilities and of Platt scaling on the labels. Fit failures are rows too, counted in
the table. Rows go to ``cache/eval_<half>.jsonl`` (resumed unless ``--fresh``).

Halves: 'dev' (R packages a-l) is where priors are learned and tuned; 'heldout' (m-z) is
reported once, never tuned on; 'shared' holds the shared prediction files.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
import zlib  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import spe  # noqa: E402

from . import CACHE  # noqa: E402
from . import measures as M  # noqa: E402
from . import store  # noqa: E402
from .tables import print_tables  # noqa: E402

HALVES = ("dev", "heldout", "shared")


def select_tasks(index: list[dict], half: str, max_tasks: int | None) -> list[dict]:
    """The half's index rows; with ``max_tasks``, the first in CRC32(task id) order (a
    fixed pseudo-random sample that does not favour early package names)."""
    rows = [r for r in index if r["half"] == half]
    rows.sort(key=lambda r: (zlib.crc32(r["task_id"].encode()), r["task_id"]))
    return rows if max_tasks is None else rows[:max_tasks]


def fit_row(task_id: str, family: str, scores: np.ndarray, labels: np.ndarray, kind: str, budget: int,
            trial: int, truth: dict, prior=None) -> dict:
    """One fit and every measure of it (``failed=True`` with the error when ``spe.fit`` raises).

    Parameters
    ----------
    task_id, family : str
    scores, labels : ndarray
        All held-out items of the task and their true 0/1 labels.
    kind : str
        'probability' or 'margin'.
    budget, trial : int
    truth : dict
        :func:`measures.truths` of the task's items.
    prior : optional
        ``spe.fit``'s ``prior`` (None: the shipped default).

    Returns
    -------
    dict
    """
    idx = M.draw_labels(scores.size, budget, task_id, family, trial)
    row = {"task_id": task_id, "family": family, "kind": kind, "budget": budget, "trial": trial,
           "n": int(scores.size), "n_pos_labeled": int(labels[idx].sum()), "ap_labels_err":
           abs(M.exact_ap(scores[idx], labels[idx]) - truth["ap"]), **{f"true_{k}": v for k, v in truth.items()}}
    observed = M.hide_all_but(labels, idx)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = spe.fit(scores, observed, seed=trial, progress=False, prior=prior)
            row["fit_s"] = time.perf_counter() - start
            row |= measure_fit(res, scores, labels, idx, kind, truth)
    except Exception as exc:  # a failure is a result: counted and shown, never dropped
        return row | {"failed": True, "error": f"{type(exc).__name__}: {exc}"[:200]}
    return row | {"failed": False, "seconds": time.perf_counter() - start}


def measure_fit(res, scores, labels, idx, kind, truth) -> dict:
    """Intervals, thresholds and calibration of one fitted result."""
    estimates = {"ap": res.average_precision(M.LEVEL), "auroc": res.auroc(M.LEVEL),
                 "prevalence": res.prevalence(M.LEVEL)}
    out = M.interval_measures(estimates, truth)
    decisions = {}
    for c in M.CONFIDENCES:
        d = res.choose_threshold(min_precision=M.MIN_PRECISION, confidence=c)
        decisions[c] = float(d.threshold) if d.feasible else None
    out |= M.threshold_measures(decisions, scores, labels)
    out["feasible_truth"] = M.feasible_truth(scores, labels)
    out |= M.calibration_measures(np.asarray(res.prob_positive(), float), scores, labels, idx, kind)
    return out


def task_rows(entry: dict, cache: Path, budgets, trials: int, families, done: set, sink, prior=None) -> int:
    """Every (family, budget, trial) fit of one task not already in ``done``; returns the count.
    ``prior``: ``spe.fit``'s prior, or a function of the task's R package and the family giving it."""
    task = store.load_task(store.task_path(cache, entry["task_id"]))
    y = task["labels"]
    count = 0
    for family, scores in task["scores"].items():
        if families and family not in families:
            continue
        truth = M.truths(scores, y)
        for budget in budgets:
            for trial in range(trials):
                if (entry["task_id"], family, budget, trial) in done:
                    continue
                sink(fit_row(entry["task_id"], family, scores, y, task["kinds"][family], budget, trial, truth,
                             prior(entry["package"], family) if callable(prior) else prior))
                count += 1
    return count


def read_rows(path: Path) -> list[dict]:
    """The rows of a JSON-lines file ([] when absent)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def fold_priors(folder: Path):
    """(R package, family) -> the prior learned without the package's fold (``learn_prior
    --folds``; the same for every family)."""
    by_package = {}
    for packages in sorted(Path(folder).glob("fold*.packages.json")):
        prior = spe.learned.ClassifierPrior.load(str(packages).replace(".packages.json", ".json"))
        by_package |= {name: prior for name in json.loads(packages.read_text())}
    if not by_package:
        raise FileNotFoundError(f"no fold priors in {folder}: run python -m benchmarks.corpus.learn_prior --folds 5")

    def prior_of(package, family=None):
        if package not in by_package:
            raise ValueError(f"R package {package!r} is in no fold of {folder}")
        return by_package[package]
    return prior_of


def family_fold_priors(folder: Path):
    """(R package, family) -> the family's prior learned without the package's fold
    (``learn_prior --folds K --by-family``: a folder of fold priors per family)."""
    per_family = {path.name: fold_priors(path) for path in sorted(Path(folder).iterdir()) if path.is_dir()}
    if not per_family:
        raise FileNotFoundError(f"no family folders in {folder}: run python -m benchmarks.corpus.learn_prior "
                                "--folds 5 --by-family")

    def prior_of(package, family):
        if family not in per_family:
            raise ValueError(f"no fold priors for family {family!r} in {folder}")
        return per_family[family](package)
    return prior_of


def run(half: str, budgets, trials: int, cache: Path = CACHE, max_tasks: int | None = None, families=None,
        fresh: bool = False, out: Path | None = None, log=print, prior=None) -> list[dict]:
    """Evaluate one half; append rows to ``out`` (default ``cache/eval_<half>.jsonl``).
    ``prior``: ``spe.fit``'s prior, or a function of a task's R package giving it.

    Returns
    -------
    list of dict
        Every row of the selected tasks, families, budgets and trials (old and new).
    """
    if half not in HALVES:
        raise ValueError(f"half must be one of {HALVES}")
    out = Path(out or Path(cache) / f"eval_{half}.jsonl")
    if fresh and out.exists():
        out.unlink()
    entries = select_tasks(store.read_index(cache), half, max_tasks)
    done = {(r["task_id"], r["family"], r["budget"], r["trial"]) for r in read_rows(out)}
    start = time.perf_counter()
    with open(out, "a") as fh:
        def sink(row):
            fh.write(json.dumps(row) + "\n")
            fh.flush()

        for k, entry in enumerate(entries):
            task_rows(entry, cache, budgets, trials, families, done, sink, prior)
            if log and (k + 1) % 10 == 0:
                log(f"  {k + 1}/{len(entries)} tasks, {time.perf_counter() - start:.0f} s")
    wanted = {e["task_id"] for e in entries}
    return [r for r in read_rows(out) if r["task_id"] in wanted and r["budget"] in budgets and r["trial"] < trials
            and (not families or r["family"] in families)]


def main(argv=None) -> None:
    """Command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=HALVES, required=True)
    ap.add_argument("--budgets", type=int, nargs="+", default=[10, 30])
    ap.add_argument("--trials", type=int, default=4)
    ap.add_argument("--max-tasks", type=int, default=None, help="first N tasks in CRC32(task id) order")
    ap.add_argument("--families", nargs="+", default=None)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--fresh", action="store_true", help="discard earlier rows of this half")
    ap.add_argument("--prior", default="default",
                    help="'default' (the shipped prior), 'wide' (spe 0.2's), 'family' (the shipped prior of "
                         "each classifier's own family, spe.learned.classifier_prior), or a folder of fold priors "
                         "(learn_prior --folds: each task judged by the prior learned without its packages; "
                         "a folder of such folders per family with --by-family)")
    ap.add_argument("--by-family", action="store_true", help="the --prior folder holds fold priors per family")
    ap.add_argument("--out", type=Path, default=None, help="rows file (default cache/eval_<half>_<prior>.jsonl)")
    args = ap.parse_args(argv)
    named = {"default": None, "wide": "wide", "family": lambda package, family: family}
    prior = named[args.prior] if args.prior in named else (
        family_fold_priors if args.by_family else fold_priors)(Path(args.prior))
    tag = args.prior if args.prior in named else "family_folds" if args.by_family else "folds"
    out = args.out or args.cache / f"eval_{args.half}_{tag}.jsonl"
    start = time.perf_counter()
    rows = run(args.half, args.budgets, args.trials, args.cache, args.max_tasks, args.families, args.fresh, out,
               prior=prior)
    print(f"\n{args.half}: {len({r['task_id'] for r in rows})} tasks, {len(rows)} fits, budgets {args.budgets}, "
          f"{args.trials} trials, {time.perf_counter() - start:.0f} s")
    print_tables(rows)


if __name__ == "__main__":
    main()
