"""How the benchmarks fit: the methods' options, a quiet ``spe.fit`` and ssme-lite's estimates."""

from __future__ import annotations

import sys
import warnings

import numpy as np

import spe
from spe.calibration import MAX_CELLS
from spe.scores import looks_like_probabilities

FIT_OPTIONS = {
    "spe": {},
    # spe 0.1's model: the plain mixture on the raw score, frame = observed range padded
    "mixture": {"model": "mixture", "coarsen": False, "mixture_scale": "identity", "probabilities": False},
    "platt": {"model": "platt"},
    "beta": {"model": "beta"},
    "spline": {"model": "spline"},
    # opt-in: the default pool plus "the probabilities are right" (probability scores only)
    "spe+calibrated": {"model": ["mixture", "spline", "calibrated"]},
}


def fit_options(method, scores) -> dict:
    """FIT_OPTIONS[method]; ``spe+calibrated`` is the default where the default pool is not
    the mixture and piecewise Platt (scores that are not probabilities, or take at most
    MAX_CELLS values), so that it differs from ``spe`` only by the 'calibrated' member."""
    if method != "spe+calibrated":
        return FIT_OPTIONS[method]
    if not looks_like_probabilities(scores) or np.unique(scores).size <= MAX_CELLS:
        return {}
    return FIT_OPTIONS[method]


def quiet_fit(scores, labels, seed, **options):
    """``spe.fit`` with its warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.fit(scores, labels, seed=seed, **options)


def ssme_lite_metrics(s, labels, seed):
    """ssme-lite's estimates of accuracy, AUC, AUPRC and ECE for one model's probabilities."""
    from ssme_lite import SSMEEstimator

    known = ~np.isnan(labels)
    y = np.where(known, labels, -1).astype(int)
    p = np.clip(s, 1e-6, 1 - 1e-6)
    # (n, models) of P(y = 1): one column is one model (an (n, 2) array would be two models)
    est = SSMEEstimator(random_state=seed, early_stopping=True).fit(p[:, None], y)
    rep = est.evaluate(metrics=("accuracy", "auc", "auprc", "ece"), n_draws=100, random_state=seed)
    return {k: float(rep.data["metrics"][k]["rows"][0]["estimate"]) for k in ("accuracy", "auc", "auprc", "ece")}


def has_ssme_lite():
    """Whether ssme-lite is installed (it is in the bench extra); says so when not."""
    try:
        import ssme_lite  # noqa: F401
    except ImportError:
        print("ssme-lite is not installed (pip install -e '.[bench]'): skipping it", file=sys.stderr)
        return False
    return True
