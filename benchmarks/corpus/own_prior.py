"""A team's own history: does a prior learned from its past evaluations save labels?

    python -m benchmarks.corpus.own_prior [--tasks 30] [--families logreg svc_rbf] [--trials 2]

A "team" uses one classifier family across tasks. For each development task (R packages
a-l only; the held-out half is never read), the team's prior is ``spe.learn_prior`` on the
same family's scores and labels from the *other* folds of R packages (all their labels),
with the fold's corpus prior (``learn_prior --folds``, learned without the task's packages)
as its base; the comparison is that fold prior itself. Both fit the same label draws at
each budget; the table gives the mean absolute AP error, and "labels for the same error":
the budget at which the fold prior reaches the team prior's error at 10 labels
(interpolated on the budgets, '>' the largest when it never does).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import spe  # noqa: E402

from ..harness.report import RESULTS_MD, run_stamp, with_block  # noqa: E402
from . import CACHE  # noqa: E402
from . import measures as M  # noqa: E402
from .evaluate import fold_priors, select_tasks  # noqa: E402
from .store import load_task, read_index, task_path  # noqa: E402

BUDGETS = (5, 10, 20, 40)
MARKERS = ("<!-- own-prior:start -->", "<!-- own-prior:end -->")


def team_priors(cache: Path, family: str, folds: Path) -> dict:
    """R package -> the team prior for tasks of that package: learned from the family's sets
    of every dev task outside the package's fold, on that fold's corpus prior."""
    rows = [r for r in read_index(cache) if r["half"] == "dev"]
    base_of = fold_priors(folds)
    out, by_fold = {}, {}
    for packages in sorted(folds.glob("fold*.packages.json")):
        held = set(json.loads(packages.read_text()))
        base = base_of(next(iter(held)))
        sets = [(t["scores"][family], t["labels"]) for t in
                (load_task(task_path(cache, r["task_id"])) for r in rows if r["package"] not in held)
                if family in t["scores"]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prior = spe.learn_prior(sets, base=base, source=f"team ({family}, {len(sets)} past sets)")
        by_fold[packages.name] = prior
        out |= {p: prior for p in held}
    return out


def ap_errors(entry, family, prior, budgets, trials, cache) -> dict:
    task = load_task(task_path(cache, entry["task_id"]))
    scores, y = task["scores"][family], task["labels"]
    truth = M.truths(scores, y)["ap"]
    out = {}
    for budget in budgets:
        for trial in range(trials):
            observed = M.hide_all_but(y, M.draw_labels(scores.size, budget, entry["task_id"], family, trial))
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = spe.fit(scores, observed, seed=trial, progress=False, prior=prior)
                out[(budget, trial)] = abs(res.average_precision(M.LEVEL).value - truth)
            except ValueError:
                out[(budget, trial)] = None  # refused inputs (e.g. labels say the scores run backwards)
    return out


def labels_for(errors_by_budget: dict, target: float) -> str:
    """The budget at which these errors fall to ``target`` (linear between budgets)."""
    b = sorted(errors_by_budget)
    e = [errors_by_budget[k] for k in b]
    if e[0] <= target:
        return f"<= {b[0]}"
    for (b0, e0), (b1, e1) in zip(zip(b, e), zip(b[1:], e[1:])):
        if e1 <= target:
            return f"{b0 + (b1 - b0) * (e0 - target) / (e0 - e1):.0f}"
    return f"> {b[-1]}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=30)
    ap.add_argument("--families", nargs="+", default=["logreg", "svc_rbf"])
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--folds", type=Path, default=CACHE / "folds")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    entries = select_tasks(read_index(args.cache), "dev", args.tasks)
    base_of = fold_priors(args.folds)
    lines = ["| family | prior | " + " | ".join(f"AP error, {b} labels" for b in BUDGETS)
             + " | labels for the team prior's error at 10 |", "|---|---|" + "---|" * (len(BUDGETS) + 1)]
    for family in args.families:
        team_of = team_priors(args.cache, family, args.folds)
        errors = {"corpus (fold)": {}, "team's own": {}}
        for entry in entries:
            for name, prior in (("corpus (fold)", base_of(entry["package"])), ("team's own", team_of[entry["package"]])):
                errors[name] |= {(entry["task_id"], *k): v for k, v in
                                 ap_errors(entry, family, prior, BUDGETS, args.trials, args.cache).items()}
        paired = [k for k in errors["corpus (fold)"]
                  if errors["corpus (fold)"][k] is not None and errors["team's own"].get(k) is not None]
        mean = {name: {b: float(np.mean([errors[name][k] for k in paired if k[1] == b])) for b in BUDGETS}
                for name in errors}
        for name in errors:
            needed = labels_for(mean[name], mean["team's own"][10])
            lines.append(f"| {family} | {name} | " + " | ".join(f"{mean[name][b]:.3f}" for b in BUDGETS)
                         + f" | {needed} |")
        print("\n".join(lines[-2:]), flush=True)
    text = (f"## A team's own prior (`benchmarks/corpus/own_prior.py`)\n\n{run_stamp()}. Development half only, "
            f"first {len(entries)} tasks in CRC32 order, {args.trials} label draws per budget, paired fits. "
            "The team prior: `spe.learn_prior` on the family's sets from the other folds of R packages, "
            "based on the fold's corpus prior; the comparison is the fold prior. Command: "
            f"`python -m benchmarks.corpus.own_prior --tasks {args.tasks} --trials {args.trials}`.\n\n"
            + "\n".join(lines) + "\n")
    print(text)
    if not args.no_write:
        RESULTS_MD.write_text(with_block(RESULTS_MD.read_text(), text, MARKERS))


if __name__ == "__main__":
    main()
