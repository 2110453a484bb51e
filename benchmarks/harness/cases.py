"""The real score sets the benchmarks run on: the shared files and the digits cases.

The shared files live in ``../shared/data`` beside the repository (or ``$SPE_SHARED_DATA``);
a missing file is skipped. Cases larger than ``N_SUBSAMPLE`` items are subsampled, seeded
by the case name, so every benchmark sees the same items.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from spe.scores import looks_like_probabilities

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("SPE_SHARED_DATA", ROOT.parent / "shared" / "data"))
N_SUBSAMPLE = 2000
FILES = {
    "mnist": "mnist_labelerrors_cv.npz",
    "20news": "20news_labelerrors_cv.npz",
    "imdb": "imdb_labelerrors_cv.npz",
    "bank": "bank_age_fairness.npz",
    "compas": "compas_violent_recidivism_race_fairness.npz",
}
#: The cases of ``--quick`` runs.
QUICK_CASES = ("imdb ovr", "bank ovr", "20news top1")


def shared_cases():
    """{name: (scores, labels)} for every shared file: top-1 and one-vs-rest views."""
    out = {}
    for short, fname in FILES.items():
        path = DATA / fname
        if not path.exists():
            continue
        d = np.load(path, allow_pickle=False)
        p, y = d["probs"].astype(float), d["labels"]
        out[f"{short} top1"] = (p.max(axis=1), (p.argmax(axis=1) == y).astype(float))
        if p.shape[1] == 2:
            k = 1
        else:  # a mid-frequency class
            k = int(np.argsort(np.bincount(y, minlength=p.shape[1]))[p.shape[1] // 2])
        out[f"{short} ovr"] = (p[:, k], (y == k).astype(float))
    return out


def digits_cases():
    try:
        from spe.datasets import digits_scores, digits_top1
    except ImportError:
        return {}
    try:
        out = {f"digits {c}{d}": digits_scores(c, d) for c, d in (("svm", 3), ("logres", 8), ("svm", 8))}
        out["digits top1"] = digits_top1()
    except ImportError:  # scikit-learn is in the bench extra
        return {}
    return {k: (np.asarray(s, float), np.asarray(y, float)) for k, (s, y) in out.items()}


def all_cases(names=None, quick=False):
    """{name: (scores, labels)}: ``names``, or every case (``QUICK_CASES`` when ``quick``)."""
    cases = shared_cases()
    full = {}
    if "imdb ovr" in cases and not quick:
        full["imdb ovr full"] = cases["imdb ovr"]
    cases |= digits_cases()
    cases = {k: _subsample(k, *v) for k, v in cases.items()}
    cases |= full
    wanted = names or (QUICK_CASES if quick else list(cases))
    missing = [n for n in wanted if n not in cases]
    if missing:
        raise SystemExit(f"unknown or unavailable cases {missing}; available: {', '.join(cases)}")
    return {n: cases[n] for n in wanted}


def _subsample(name, s, y):
    if s.size <= N_SUBSAMPLE:
        return s, y
    rng = np.random.default_rng(sum(map(ord, name)))  # seeded by the case name
    idx = np.sort(rng.choice(s.size, N_SUBSAMPLE, replace=False))
    return s[idx], y[idx]


def default_threshold(scores) -> float:
    return 0.5 if looks_like_probabilities(scores) else 0.0


# ---- SSME's protocol -----------------------------------------------------------------------
def ssme_models(files=None):
    """{name: (scores, labels)} for the binary shared files, every model in scores_all."""
    out = {}
    for short in files or ("imdb", "bank", "compas"):
        path = DATA / FILES[short]
        if not path.exists():
            continue
        d = np.load(path, allow_pickle=False)
        y = d["labels"].astype(float)
        if "scores_all" in d.files:
            for j, m in enumerate(d["model_names"]):
                out[f"{short} {str(m).removeprefix('score_')}"] = (d["scores_all"][:, j].astype(float), y)
        else:
            out[f"{short} model"] = (d["probs"][:, 1].astype(float), y)
    return out


def ssme_split(name, y, seed):
    """SSME's split, seeded by ``name`` and ``seed``: (held, chosen) item indices, a random
    half held out as the truth and 20 labeled + 1,000 unlabeled (a smaller file's whole
    other half) from the rest, the labeled first; None when the 20 hold one class."""
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    perm = rng.permutation(y.size)
    held, chosen = perm[: y.size // 2], perm[y.size // 2:][:1020]
    return None if np.unique(y[chosen[:20]]).size < 2 else (held, chosen)
