"""Where thresholds break: a classifier's most confident items: ``python -m benchmarks.corpus.tops``.

Development half only (R packages a-l). Two questions behind the corpus' clearest threshold
miss (naive Bayes, ``choose_threshold(min_precision=0.9, confidence=0.9)``):

1. **Which thresholds miss.** For each set of ``--families`` (the first ``--tasks`` tasks in
   the corpus' CRC32 order, ``--trials`` label draws at 10 and 30 labels, each set's prior
   learned without its R package's fold: ``learn_prior --folds 5``), the threshold the
   rule returns, the share of items it selects and whether their true precision meets 0.9.
   Thresholds that select the top 1% or less rest on the map's reach into the extreme
   tail, where no label is.
2. **Is the top less precise than the next items?** Every set of every family, all labels
   known: the true precision of the top 1% of items by score against that of the top 10%,
   and how often the top 1% falls more than 0.1 below. The reference is that share when
   the top 1%'s labels are drawn at the top 10%'s precision (``NULL_DRAWS`` draws per set):
   what a flat top, no more precise than the next items, shows by binomial noise alone.
   Below the reference the tops are more precise than the items under them, as a calibration
   map that rises towards certainty assumes (spe's, 2b); above it they are less precise,
   which such a map cannot express.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import warnings  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import spe  # noqa: E402

from ..harness.report import RESULTS_MD, run_stamp, table, with_block  # noqa: E402
from . import CACHE, store  # noqa: E402
from . import measures as M  # noqa: E402
from .evaluate import fold_priors, select_tasks  # noqa: E402

MARKERS = ("<!-- corpus-tops:start -->", "<!-- corpus-tops:end -->")
BUDGETS = (10, 30)
#: Selected shares that split the thresholds: (upper bound, label).
SHARES = ((0.01, "<= 1%"), (0.05, "1-5%"), (1.01, "> 5%"))
TOP, NEXT, GAP = 0.01, 0.10, 0.10
NULL_DRAWS = 200


def top_precisions(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float, int]:
    """(precision of the top TOP share of items by score, of the top NEXT share, items in the top TOP)."""
    order = np.argsort(-np.asarray(scores, float), kind="stable")
    n_top, n_next = max(1, int(scores.size * TOP)), max(1, int(scores.size * NEXT))
    return float(labels[order[:n_top]].mean()), float(labels[order[:n_next]].mean()), n_top


def top_rows(cache: Path, seed: int = 0) -> list[dict]:
    """Per family: sets, mean top precisions and their difference, the share of sets whose top
    falls GAP below the next items, and that share for a flat top (binomial noise alone)."""
    rng = np.random.default_rng(seed)
    found: dict[str, list] = {}
    for entry in select_tasks(store.read_index(cache), "dev", None):
        task = store.load_task(store.task_path(cache, entry["task_id"]))
        for family, scores in task["scores"].items():
            p_top, p_next, n_top = top_precisions(scores, task["labels"])
            null = rng.binomial(n_top, p_next, NULL_DRAWS) / n_top < p_next - GAP
            found.setdefault(family, []).append((p_top, p_next, p_top < p_next - GAP, null.mean()))
    rows = []
    for family, sets in found.items():
        a = np.array(sets, float)
        rows.append({"family": family, "sets": str(len(a)), "top 1%": a[:, 0].mean(), "top 10%": a[:, 1].mean(),
                     "difference": (a[:, 0] - a[:, 1]).mean(), "top 1% lower by > 0.1": a[:, 2].mean(),
                     "a flat top, by noise alone": a[:, 3].mean()})
    return rows


def threshold_jobs(cache: Path, families, n_tasks: int, trials: int) -> list[tuple]:
    entries = select_tasks(store.read_index(cache), "dev", n_tasks)
    return [(entry["task_id"], entry["package"], family, budget, trial) for entry in entries for family in families
            for budget in BUDGETS for trial in range(trials)]


def one_threshold(job, cache: Path = CACHE, folds: Path = CACHE / "folds_score") -> dict | None:
    """The rule's threshold on one (task, family, budget, trial): selected share and truth met."""
    task_id, package, family, budget, trial = job
    task = store.load_task(store.task_path(cache, task_id))
    scores, y = task["scores"].get(family), task["labels"]
    if scores is None:
        return None
    idx = M.draw_labels(scores.size, budget, task_id, family, trial)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = spe.fit(scores, M.hide_all_but(y, idx), seed=trial, progress=False,
                          prior=_fold_priors(folds)(package))
            decision = res.choose_threshold(min_precision=M.MIN_PRECISION, confidence=0.9)
        except ValueError:  # a refused fit (the labels say the scores run the other way): no row
            return None
    t = float(decision.threshold) if decision.feasible else None
    row = {"family": family, "budget": budget, "feasible": t is not None}
    if t is not None:
        row |= {"share": float(np.mean(scores >= t)), "met": M.threshold_measures({0.9: t}, scores, y)["met_0.9"]}
    return row


@functools.lru_cache(maxsize=None)
def _fold_priors(folds: Path):
    """The fold priors, read once per process (every job of a worker needs them)."""
    return fold_priors(folds)


def threshold_rows(results: list[dict]) -> list[dict]:
    rows = []
    for family in sorted({r["family"] for r in results}):
        for budget in BUDGETS:
            done = [r for r in results if r["family"] == family and r["budget"] == budget]
            feasible = [r for r in done if r["feasible"]]
            row = {"family": family, "labels": str(budget), "fits": str(len(done)), "feasible": str(len(feasible)),
                   "met": np.mean([r["met"] for r in feasible]) if feasible else None}
            low = 0.0
            for high, label in SHARES:
                got = [r["met"] for r in feasible if low <= r["share"] < high]
                row[f"selects {label}: n"] = str(len(got))
                row[f"selects {label}: met"] = np.mean(got) if got else None
                low = high
            rows.append(row)
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", nargs="+", default=["gnb", "hgb"])
    ap.add_argument("--tasks", type=int, default=80)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    jobs = threshold_jobs(args.cache, args.families, args.tasks, args.trials)
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(one_threshold, jobs, chunksize=4))
    else:
        results = [one_threshold(job) for job in jobs]
    thresholds = threshold_rows([r for r in results if r is not None])
    tops = top_rows(args.cache)
    text = "\n".join([
        "## Where thresholds break: the most confident items (`benchmarks/corpus/tops.py`)", "",
        f"{run_stamp()}; `--families {' '.join(args.families)} --tasks {args.tasks} --trials {args.trials}`. "
        + " ".join(__doc__.split("\n\n", 1)[1].split()), "",
        "**Which thresholds miss** (`choose_threshold(min_precision=0.9, confidence=0.9)`, fold priors; met = "
        "the selected items' true precision >= 0.9, by the share of items the threshold selects):", "",
        table(thresholds, list(thresholds[0])), "",
        "**Is the top less precise than the next items?** (every development set, all labels known)", "",
        table(tops, list(tops[0])), ""])
    print(text)
    if not args.no_write:
        RESULTS_MD.write_text(with_block(RESULTS_MD.read_text(), text, MARKERS))


if __name__ == "__main__":
    main()
