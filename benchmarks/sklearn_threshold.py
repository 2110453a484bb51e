"""Does ``spe.sklearn.SemisupervisedThresholdClassifier`` keep its stated probability?

    python -m benchmarks.sklearn_threshold --quick   # 6 tasks: a smoke run, prints only
    python -m benchmarks.sklearn_threshold           # 12 development tasks x 8 families (~5 min of CPU)
    python -m benchmarks.sklearn_threshold --report  # rebuild the RESULTS.md section from the stored rows

On the task corpus (``benchmarks/corpus/``: real classifiers' scores of real R data sets,
with every label known; build it first with ``python -m benchmarks.corpus.build``), each
task's items are split at random into a *fit half* A and a *held-out half* B. The tuner
wraps the classifier (a prefit estimator whose score is the cached score), is fitted on A
with ``--budget`` random labels of A (NaN elsewhere) and chooses a threshold at confidence
0.9 under one constraint:

* precision: ``min_precision`` = the true precision at recall 0.5 of all the task's items,
  minus 0.05 (reachable by construction, as in ``benchmarks/thresholds.py``);
* recall: ``min_recall=0.8``.

Judged against the truth: the tuner's ``kind="population"`` claim (its default: the rows
the classifier will meet) on the held-out half B, and the ``kind="sample"`` claim (these
rows) on all of A, from the same fit. "met" counts decisions whose constraint holds in
the truth at the returned threshold, among the *feasible* ones (the tuner reached the
confidence); the stated probability is ``prob_constraint_met_``. Beside it
scikit-learn's ``TunedThresholdClassifierCV`` on the same labeled items (2-fold
stratified CV, scoring the recall where the precision target holds, else 0; or the
precision where the recall target holds), which states no probability; it needs at least
2 labeled items of each class.

Only the development half (R packages a-l) is used unless ``--half`` says otherwise.
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

import numpy as np

from .corpus import CACHE, store
from .corpus.evaluate import select_tasks
from .corpus.measures import draw_labels, hide_all_but, true_rates
from .harness.report import RESULTS_DIR, RESULTS_MD, run_stamp, table, write_section
from .thresholds_peers import score_classifier

CONFIDENCE = 0.9
MIN_RECALL = 0.8
MARKERS = ("<!-- sklearn-threshold:start -->", "<!-- sklearn-threshold:end -->")
STORE = RESULTS_DIR / "sklearn_threshold.jsonl"


def precision_target(scores, labels) -> float:
    """The true precision at recall 0.5 of all items, minus 0.05, to two decimals."""
    order = np.argsort(-scores, kind="stable")
    tp = np.cumsum(labels[order])
    k = int(np.searchsorted(tp, 0.5 * labels.sum()))
    return float(np.floor((tp[k] / (k + 1) - 0.05) * 100) / 100)


def split_halves(n: int, task_id: str):
    """(A, B): a random half of the items to fit on and the other half to judge on."""
    perm = np.random.default_rng(zlib.crc32(task_id.encode())).permutation(n)
    return np.sort(perm[: n // 2]), np.sort(perm[n // 2:])


def _met(constraint, target, precision, recall) -> bool:
    return bool(precision >= target - 1e-12) if constraint == "precision" else bool(recall >= target - 1e-12)


def spe_rows(tuner_cls, clf, s, y, A, B, observed, constraints, seed):
    """One tuner fit on A (under the precision constraint); the recall constraint and the
    sample kind choose again on its posterior (``result_.choose_threshold``, what the tuner
    calls) instead of refitting."""
    key, target = constraints["precision"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuner = tuner_cls(clf, **{key: target}, confidence=CONFIDENCE, random_state=seed).fit(s[A, None], observed)
    rows = []
    for name, (key, target) in constraints.items():
        for kind, judge in (("population", B), ("sample", A)):
            if (name, kind) == ("precision", "population"):
                t, feasible, stated = tuner.best_threshold_, tuner.feasible_, tuner.prob_constraint_met_
            else:
                d = tuner.result_.choose_threshold(**{key: target}, confidence=CONFIDENCE, kind=kind)
                t, feasible, stated = d.threshold, d.feasible, d.probability
            p, r = true_rates(s[judge], y[judge], t)
            rows.append({"constraint": name, "method": f"spe ({kind})", "target": target, "feasible": bool(feasible),
                         "stated": float(stated), "met": _met(name, target, p, r), "precision": p, "recall": r})
    return rows


def tuned_rows(s, y, A, B, idx, constraints, seed):
    """TunedThresholdClassifierCV on the labeled items of A, judged on B."""
    from sklearn.metrics import make_scorer, precision_score, recall_score
    from sklearn.model_selection import StratifiedKFold, TunedThresholdClassifierCV

    labels = y[A][idx]
    if len(np.unique(labels)) < 2 or np.bincount(labels.astype(int)).min() < 2:
        return [{"constraint": c, "method": "TunedThresholdClassifierCV", "failed": "a class has < 2 labels"}
                for c in constraints]
    rows = []
    for name, (key, target) in constraints.items():
        def score(y_true, y_pred, name=name, target=target):
            p = precision_score(y_true, y_pred, zero_division=0)
            r = recall_score(y_true, y_pred, zero_division=0)
            ok = _met(name, target, p, r)
            return (r if name == "precision" else p) if ok else 0.0

        tuned = TunedThresholdClassifierCV(score_classifier()(), scoring=make_scorer(score),
                                           response_method="decision_function",
                                           cv=StratifiedKFold(2, shuffle=True, random_state=seed))
        tuned.fit(s[A][idx, None], labels)
        p, r = true_rates(s[B], y[B], float(tuned.best_threshold_))
        rows.append({"constraint": name, "method": "TunedThresholdClassifierCV", "target": target,
                     "met": _met(name, target, p, r), "precision": p, "recall": r})
    return rows


def run_task(row, budget, trials):
    """Every family x trial of one corpus task."""
    from spe.sklearn import SemisupervisedThresholdClassifier

    task = store.load_task(store.task_path(CACHE, row["task_id"]))
    y = task["labels"]
    A, B = split_halves(y.size, row["task_id"])
    out = []
    for family, s in task["scores"].items():
        s = np.asarray(s, float)
        constraints = {"precision": ("min_precision", precision_target(s, y)), "recall": ("min_recall", MIN_RECALL)}
        clf = score_classifier()().fit(s[:2, None], [0, 1])
        for trial in range(trials):
            idx = draw_labels(A.size, budget, row["task_id"], family, trial)
            observed = hide_all_but(y[A], idx)
            start = time.perf_counter()
            try:
                rows = spe_rows(SemisupervisedThresholdClassifier, clf, s, y, A, B, observed, constraints, trial)
            except Exception as exc:  # noqa: BLE001 (a failed fit is a row, counted in the table)
                rows = [{"constraint": c, "method": "spe", "failed": f"{type(exc).__name__}: {exc}"}
                        for c in constraints]
            seconds = time.perf_counter() - start
            rows += tuned_rows(s, y, A, B, idx, constraints, trial)
            for r in rows:
                r.update(task_id=row["task_id"], family=family, kind=task["kinds"][family], trial=trial,
                         budget=budget, n_fit=int(A.size), n_judge=int(B.size), spe_seconds=seconds)
            out += rows
    return out


def summarize(rows) -> list[dict]:
    """One table row per constraint x score kind x method."""
    out = []
    keys = sorted({(r["constraint"], r["kind"], r["method"]) for r in rows})
    for constraint, kind, method in keys:
        mine = [r for r in rows if (r["constraint"], r["kind"], r["method"]) == (constraint, kind, method)]
        done = [r for r in mine if "failed" not in r]
        feasible = [r for r in done if r.get("feasible", True)]
        other = "recall" if constraint == "precision" else "precision"
        out.append({"constraint": constraint, "score kind": kind, "method": method, "runs": str(len(mine)),
                    "failed": str(len(mine) - len(done)),
                    "feasible": np.mean([r["feasible"] for r in done]) if done and "feasible" in done[0] else None,
                    "stated P": np.mean([r["stated"] for r in feasible]) if feasible and "stated" in feasible[0]
                    else None,
                    "met given feasible": np.mean([r["met"] for r in feasible]) if feasible else None,
                    f"true {other}": np.mean([r[other] for r in feasible]) if feasible else None})
    return out


COLUMNS = ("constraint", "score kind", "method", "runs", "failed", "feasible", "stated P", "met given feasible",
           "true recall", "true precision")


def report(rows, args, seconds=None) -> str:
    tasks = len({r["task_id"] for r in rows})
    fits = len({(r["task_id"], r["family"], r["trial"]) for r in rows})
    spe_time = {(r["task_id"], r["family"], r["trial"]): r["spe_seconds"] for r in rows}
    table_rows = summarize(rows)
    for r in table_rows:
        r["runs"] = r["runs"] + ("" if r["failed"] == "0" else f" ({r['failed']} failed)")
    cols = [c for c in COLUMNS if c != "failed"]
    return "\n".join([
        "## The scikit-learn threshold tuner's promise (`benchmarks/sklearn_threshold.py`)",
        "",
        (run_stamp() + f". Command: `python -m benchmarks.sklearn_threshold --half {args.half} --max-tasks "
         f"{args.max_tasks} --budget {args.budget} --trials {args.trials}`: {tasks} corpus tasks "
         f"({args.half} half), every classifier family, {fits} tuner fits "
         f"({np.mean(list(spe_time.values())):.2f} s each, wall clock"
         + ("" if seconds is None else f"; {seconds / 60:.1f} min in all") + ")."),
        "",
        (f"`SemisupervisedThresholdClassifier(..., confidence={CONFIDENCE})` fitted on a random half A of each "
         f"task's items with {args.budget} random labels there; precision target: the true precision at recall "
         f"0.5 minus 0.05; recall target: {MIN_RECALL}. *spe (population)*: the tuner's default claim, judged on "
         "the other half B; *spe (sample)*: the claim about A's own items, judged on all of A. *met given feasible*: "
         "the share of decisions that reached the confidence whose constraint holds in the truth (the promise is "
         f">= {CONFIDENCE}); *stated P*: their mean `prob_constraint_met_`. TunedThresholdClassifierCV: the same "
         "labels, judged on B, never infeasible and states no probability (its rows count every run where a "
         "class had >= 2 labels). B is finite (half of a task's 250-2,000 held-out items): a population claim "
         "judged on it also meets B's own sampling noise, as a user's next batch would."),
        "",
        table(table_rows, cols, spec={"feasible": "{:.3f}", "stated P": "{:.3f}", "met given feasible": "{:.3f}",
                                      "true recall": "{:.3f}", "true precision": "{:.3f}"}),
    ])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="6 tasks, 1 trial, nothing written")
    ap.add_argument("--half", default="dev", choices=("dev", "heldout", "shared"))
    ap.add_argument("--max-tasks", type=int, default=12)
    ap.add_argument("--budget", type=int, default=30)
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--report", action="store_true", help=f"rebuild the section from {STORE.name}, run nothing")
    args = ap.parse_args(argv)
    if args.report:
        rows = [json.loads(line) for line in STORE.read_text().splitlines()]
        write_section(report(rows, args), RESULTS_MD, MARKERS)
        return 0
    if args.quick:
        args.max_tasks, args.trials = 6, 1
    try:
        index = store.read_index(CACHE)
    except FileNotFoundError:
        print(f"no corpus cache in {CACHE}: run python -m benchmarks.corpus.build first; skipped")
        return 0
    start = time.perf_counter()
    rows = []
    for k, row in enumerate(select_tasks(index, args.half, args.max_tasks)):
        rows += run_task(row, args.budget, args.trials)
        print(f"[{k + 1}/{args.max_tasks}] {row['task_id']} ({time.perf_counter() - start:.0f} s)", flush=True)
    text = report(rows, args, time.perf_counter() - start)
    print(text)
    if not args.quick:
        STORE.parent.mkdir(parents=True, exist_ok=True)
        STORE.write_text("".join(json.dumps(r) + "\n" for r in rows))
        write_section(text, RESULTS_MD, MARKERS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
