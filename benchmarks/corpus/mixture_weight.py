"""How much prior weight the score mixture deserves, per score kind, on the development half.

    python -m benchmarks.corpus.mixture_weight --folds DIR --max-tasks 60 --trials 2 [--part 0 --parts 2]
    python -m benchmarks.corpus.mixture_weight --choose      # pick the weights from the rows

For every development task x family x budget (10, 30) x trial, ``spe.fit``'s default pool
(with the fold's prior: learned without the task's R packages) gives the labels' weight of
the mixture w and each member's P(y = 1) on the unlabeled items. For a grid of prior weights
pi, the pool's P(y = 1) (mixture weight pi w / (pi w + (1 - pi)(1 - w))) is scored against
the true labels with the log score (a proper scoring rule) and ECE. ``--choose`` picks, per
score kind, the pi with the best mean log score over both budgets and writes
``cache/mixture_weight.json``, which ``learn_prior`` puts into the shipped prior. A kind with
fewer than MIN_ROWS rows takes the probability kind's weight. It also prints the log scores by
what the mixture's misfit check found (zeta = 1 or below), the evidence on whether a mixture
that fits the scores deserves more weight. The held-out half is never read.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

import spe

from . import CACHE
from . import measures as M
from .evaluate import fold_priors, select_tasks
from .store import load_task, read_index, task_path

GRID = (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.0)
BUDGETS = (10, 30)
MIN_ROWS = 30
ROWS = "mixture_weight_{part}.jsonl"
CHOSEN = "mixture_weight.json"


def _member_probability(fit, scores):
    return fit.weights @ fit.prob_positive(scores)


def pool_scores(res, scores, truth, unlabeled) -> dict:
    """Log score and ECE of the pool's P(y = 1) on the unlabeled items for every pi of GRID
    (the weak ranker, when pooled, keeps its fitted weight; pi splits the rest)."""
    weak = res.model_weights.get("weak", 0.0)
    w = res.model_weights["mixture"] / (1.0 - weak)
    pm = _member_probability(res.fits["mixture"], scores[unlabeled])
    ps = _member_probability(res.fits["spline"], scores[unlabeled])
    pw = _member_probability(res.fits["weak"], scores[unlabeled]) if weak else 0.0
    y = truth[unlabeled]
    row = {"w_mix": w}
    for pi in GRID:
        a = pi * w / (pi * w + (1 - pi) * (1 - w)) if 0 < w < 1 else float(w > 0 and pi > 0)
        p = np.clip(weak * pw + (1 - weak) * (a * pm + (1 - a) * ps), 1e-9, 1 - 1e-9)
        row[f"ls_{pi}"] = float(np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)))
        row[f"ece_{pi}"] = float(M.ece(p, y))
    return row


def collect(cache: Path, folds: Path, max_tasks: int, trials: int, part: int, parts: int) -> Path:
    """Fit and score; one row per fit whose pool holds the mixture and the spline."""
    prior_of = fold_priors(folds)
    out = cache / ROWS.format(part=part)
    with open(out, "w") as fh:
        for entry in select_tasks(read_index(cache), "dev", max_tasks)[part::parts]:
            task = load_task(task_path(cache, entry["task_id"]))
            y = task["labels"]
            for family, scores in task["scores"].items():
                for budget in BUDGETS:
                    for trial in range(trials):
                        observed = M.hide_all_but(y, M.draw_labels(scores.size, budget, entry["task_id"],
                                                                   family, trial))
                        try:
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                res = spe.fit(scores, observed, seed=trial, progress=False,
                                              prior=prior_of(entry["package"]))
                        except ValueError:
                            continue  # refused inputs are counted by evaluate, not here
                        if not {"mixture", "spline"} <= set(res.fits):
                            continue
                        probabilities = bool(scores.min() >= 0 and scores.max() <= 1)
                        row = {"task_id": entry["task_id"], "family": family, "budget": budget, "trial": trial,
                               "kind": spe.learned.score_kind(scores, probabilities),
                               "zeta": float(res.fits["mixture"].misfit.zeta)}
                        fh.write(json.dumps(row | pool_scores(res, scores, y, np.isnan(observed))) + "\n")
                        fh.flush()
    return out


def mean_log_scores(rows: list[dict]) -> dict:
    """{pi: the rows' mean log score} for every pi of GRID."""
    return {pi: float(np.mean([r[f"ls_{pi}"] for r in rows])) for pi in GRID}


def choose(cache: Path) -> dict:
    """pi per kind with the best mean log score over both budgets; prints the table."""
    rows = [json.loads(line) for f in sorted(cache.glob(ROWS.format(part="*"))) for line in open(f)]
    by_kind = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    chosen, table = {}, {}
    for kind, rr in sorted(by_kind.items()):
        scores = mean_log_scores(rr)
        table[kind] = (len(rr), scores, {pi: np.mean([r[f"ece_{pi}"] for r in rr]) for pi in GRID})
        if len(rr) >= MIN_ROWS:
            chosen[kind] = max(GRID, key=lambda pi: scores[pi])
    for kind in spe.learned.KINDS:
        chosen.setdefault(kind, chosen.get("probability", 0.5))
    print("kind          rows  " + "  ".join(f"pi={pi:<5g}" for pi in GRID))
    for kind, (n, ls, ece) in table.items():
        print(f"{kind:12s} {n:5d}  " + "  ".join(f"{ls[pi]:8.4f}" for pi in GRID) + "   (mean log score)")
        print(f"{'':12s} {'':5s}  " + "  ".join(f"{ece[pi]:8.4f}" for pi in GRID) + "   (ECE)")
    print("chosen:", chosen)
    by_misfit(rows)
    (cache / CHOSEN).write_text(json.dumps({"mixture_weight": chosen, "rows": len(rows),
                                            "rule": "best mean log score over budgets 10 and 30, dev half, "
                                                    "fold priors"}, indent=1) + "\n")
    return chosen


def by_misfit(rows: list[dict]) -> None:
    """Mean log score per pi, per kind and per what the mixture's misfit check found (zeta = 1:
    the mixture fits the scores within sampling noise): whether a fitting mixture deserves more
    prior weight than one that misses (rows collected before zeta was recorded are left out)."""
    by_group = defaultdict(list)
    for r in rows:
        if "zeta" in r:
            by_group[(r["kind"], "fits" if r["zeta"] >= 0.999 else "misses")].append(r)
    if not by_group:
        return
    print("\nby the misfit check (mean log score; best pi last):")
    for (kind, fit), rr in sorted(by_group.items()):
        scores = mean_log_scores(rr)
        print(f"{kind:12s} {fit:7s} {len(rr):5d}  " + "  ".join(f"{scores[pi]:8.4f}" for pi in GRID)
              + f"   best pi={max(GRID, key=lambda pi: scores[pi]):g}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--folds", type=Path, default=CACHE / "folds")
    ap.add_argument("--max-tasks", type=int, default=60)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--part", type=int, default=0)
    ap.add_argument("--parts", type=int, default=1)
    ap.add_argument("--choose", action="store_true", help="pick the weights from the rows collected")
    args = ap.parse_args(argv)
    if args.choose:
        choose(args.cache)
    else:
        print(f"wrote {collect(args.cache, args.folds, args.max_tasks, args.trials, args.part, args.parts)}")


if __name__ == "__main__":
    main()
