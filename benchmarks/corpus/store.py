"""The corpus cache on disk: one compressed npz per task, an index, and the corpus hash.

A task file ``tasks/<task_id>.npz`` holds ``labels`` (int8, the held-out rows),
``families`` and ``kinds`` (str arrays), one ``score__<family>`` array per family and
``meta`` (a JSON string: package, dataset, target, half, features, ...). Files are read
with ``allow_pickle=False``. ``index.json`` / ``index.csv`` list every task with its
per-family AUROC; ``corpus.json`` records the counts, the build time and the hash.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import numpy as np

#: Bump to retrain every task (a change of the families' settings or of the split).
CORPUS_VERSION = 1


def task_path(cache: Path, task_id: str) -> Path:
    """Where a task's npz lives in ``cache``."""
    return Path(cache) / "tasks" / f"{task_id}.npz"


def save_task(cache: Path, task_id: str, labels: np.ndarray, scores: dict, kinds: dict, meta: dict) -> Path:
    """Write one task file (atomically: a temporary name, then a rename).

    Parameters
    ----------
    cache : Path
    task_id : str
    labels : ndarray
        0/1 labels of the held-out rows.
    scores : dict
        family -> held-out scores.
    kinds : dict
        family -> 'probability' or 'margin'.
    meta : dict
        JSON-serialisable description of the task.

    Returns
    -------
    Path
    """
    path = task_path(cache, task_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    families = list(scores)
    arrays = {f"score__{f}": np.asarray(scores[f], float) for f in families}
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez_compressed(tmp, labels=np.asarray(labels, np.int8), families=np.array(families, dtype=str),
                        kinds=np.array([kinds[f] for f in families], dtype=str),
                        meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)
    tmp.replace(path)
    return path


def load_task(path: Path) -> dict:
    """One task file as ``{'labels', 'scores': {family: array}, 'kinds': {family: kind}, 'meta'}``."""
    with np.load(path, allow_pickle=False) as d:
        families = [str(f) for f in d["families"]]
        return {"labels": d["labels"].astype(float),
                "scores": {f: d[f"score__{f}"] for f in families},
                "kinds": dict(zip(families, (str(k) for k in d["kinds"]))),
                "meta": json.loads(str(d["meta"]))}


def cached_meta(cache: Path, task_id: str, key: str) -> dict | None:
    """The stored meta of a task whose ``task_key`` is ``key``, else None (absent or stale)."""
    path = task_path(cache, task_id)
    if not path.exists():
        return None
    try:
        meta = load_task(path)["meta"]
    except (OSError, ValueError, KeyError):
        return None
    return meta if meta.get("task_key") == key else None


def config_hash(config: dict) -> str:
    """A short hash of the build configuration (rules, families, version)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def corpus_hash(cache: Path, task_ids: list[str]) -> str:
    """SHA-256 over the sorted task ids, their labels and their scores rounded to 6 decimals.

    Rounding keeps the hash stable under last-bit differences of the linear algebra; a
    different scikit-learn version may still change it (recorded beside it).
    """
    h = hashlib.sha256()
    for task_id in sorted(task_ids):
        task = load_task(task_path(cache, task_id))
        h.update(task_id.encode())
        h.update(task["labels"].astype(np.int8).tobytes())
        for f in sorted(task["scores"]):
            h.update(f.encode())
            h.update(np.round(task["scores"][f], 6).tobytes())
    return h.hexdigest()[:16]


INDEX_FIELDS = ("task_id", "package", "dataset", "target", "positive", "half", "n", "prevalence",
                "n_features", "rows_complete")


def write_index(cache: Path, rows: list[dict]) -> None:
    """``index.json`` (every field) and ``index.csv`` (one AUROC column per family)."""
    cache = Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    rows = sorted(rows, key=lambda r: r["task_id"])
    (cache / "index.json").write_text(json.dumps(rows, indent=1, sort_keys=True))
    families = sorted({f for r in rows for f in r["auroc"]})
    with open(cache / "index.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([*INDEX_FIELDS, *(f"auroc_{f}" for f in families)])
        for r in rows:
            w.writerow([r.get(k, "") for k in INDEX_FIELDS] + [_fmt(r["auroc"].get(f)) for f in families])


def _fmt(value) -> str:
    return "" if value is None else f"{value:.4f}"


def read_index(cache: Path) -> list[dict]:
    """The rows of ``index.json`` (raises FileNotFoundError before a build)."""
    return json.loads((Path(cache) / "index.json").read_text())


def index_or_exit(cache: Path) -> list[dict]:
    """:func:`read_index` for a benchmark's command line: before a build, exit saying how to make one."""
    try:
        return read_index(cache)
    except FileNotFoundError:
        raise SystemExit("no corpus cache: python -m benchmarks.corpus.build first") from None
