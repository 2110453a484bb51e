"""The prediction files of ``../shared/data`` as extra corpus tasks (half = 'shared').

These are other people's classifiers on other data: judged separately, never used to
learn or tune. A file with ``scores_all`` (several upstream models on the same items)
becomes one several-model task, its families the upstream ``model_names``; a file with only
``probs`` becomes one task (binary: ``probs[:, 1]``) or two (multiclass: top-1
correctness with ``probs.max(1)``, and one mid-frequency class against the rest, as in the
project's real-score benchmark). A file whose items and scores repeat an earlier file's
is skipped. At most ``MAX_ITEMS`` items per task, subsampled with a seed from the task id.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np

from .discovery import task_seed

#: The shared folder, beside the repository (absent: no shared tasks).
SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
#: The size of a corpus task's held-out half at most (MAX_ROWS / 2).
MAX_ITEMS = 2000


def _family_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", re.sub(r"^score_", "", name))


def _views(d) -> list[tuple[str, np.ndarray, dict]]:
    """(view name, labels, {family: scores}) of one loaded file."""
    y = np.asarray(d["labels"])
    if "scores_all" in d.files:
        names = [_family_name(str(m)) for m in d["model_names"]]
        return [("models", y.astype(int), {n: d["scores_all"][:, k].astype(float) for k, n in enumerate(names)})]
    p = np.asarray(d["probs"], float)
    if p.shape[1] == 2:
        return [("binary", y.astype(int), {"model": p[:, 1]})]
    k = int(np.argsort(np.bincount(y, minlength=p.shape[1]))[p.shape[1] // 2])
    return [("top1", (p.argmax(axis=1) == y).astype(int), {"model": p.max(axis=1)}),
            (f"ovr{k}", (y == k).astype(int), {"model": p[:, k]})]


def _subsample(task_id: str, y: np.ndarray, scores: dict) -> tuple[np.ndarray, dict]:
    if y.size <= MAX_ITEMS:
        return y, scores
    rng = np.random.default_rng(task_seed(task_id))
    idx = np.sort(rng.choice(y.size, MAX_ITEMS, replace=False))
    return y[idx], {f: s[idx] for f, s in scores.items()}


def _fingerprint(y: np.ndarray, scores: dict) -> str:
    h = hashlib.sha256(np.asarray(y, np.int8).tobytes())
    for f in sorted(scores):
        h.update(np.round(scores[f], 6).tobytes())
    return h.hexdigest()


def shared_tasks(folder: Path = SHARED_DATA) -> list[dict]:
    """Every task of the shared folder, or [] when it is absent.

    Parameters
    ----------
    folder : Path
        The folder of ``.npz`` prediction files.

    Returns
    -------
    list of dict
        ``{'task_id', 'dataset', 'target', 'labels', 'scores', 'kinds', 'n_source'}``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    out, seen = [], set()
    for path in sorted(folder.glob("*.npz")):
        with np.load(path, allow_pickle=False) as d:
            views = _views(d)
        for view, y, scores in views:
            key = _fingerprint(y, scores)
            if key in seen:
                continue
            seen.add(key)
            task_id = f"shared__{path.stem}__{view}"
            labels, sub = _subsample(task_id, y, scores)
            out.append({"task_id": task_id, "dataset": path.stem, "target": view, "labels": labels,
                        "scores": sub, "kinds": {f: "probability" for f in sub}, "n_source": int(y.size)})
    return out
