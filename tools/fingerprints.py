"""Fingerprints of spe's outputs: SHA-256 of summaries and posterior draws for fixed seeds.

    python -m tools.fingerprints                    # print the table
    python -m tools.fingerprints --save F.json      # ... and store it
    python -m tools.fingerprints --compare F.json   # exit 1 if any hash differs

A refactoring that must not change a single number (moving modules, splitting functions)
is checked by running this before and after: every hash must agree. Cases: the bundled
demo (``spe.fit``, 10 labels), and three real files from ``../shared/data`` (or
``$SPE_SHARED_DATA``) when present: IMDB (``spe.fit`` on P(positive), 20 labels), bank
(``spe.fit_many`` over its ten models, 20 labels) and 20 Newsgroups (``spe.fit_multiclass``,
40 labels, a 2,000-item subset).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

import spe
from benchmarks.harness.cases import DATA


def digest(*parts) -> str:
    """SHA-256 (first 16 hex digits) of strings and arrays, in order."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, str):
            h.update(part.encode())
        else:
            a = np.ascontiguousarray(np.asarray(part))
            h.update(str((a.dtype, a.shape)).encode())
            h.update(a.tobytes())
    return h.hexdigest()[:16]


def hide_labels(labels, n_labeled, seed):
    rng = np.random.default_rng(seed)
    out = np.full(labels.shape[0], np.nan)
    keep = rng.choice(labels.shape[0], n_labeled, replace=False)
    out[keep] = labels[keep]
    return out


def binary_case(scores, labels):
    res = spe.fit(scores, labels, seed=1)
    pr = res.pr_curve(level=0.9)
    return {
        "summary": digest(str(res.summary())),
        "label draws": digest(res.weights, res.group_prob, res.positive_counts),
        "curves": digest(pr.precision, pr.lower, pr.upper, pr.draws, res.roc_curve().draws),
        "prob_positive": digest(res.prob_positive()),
        "threshold": digest(repr(res.choose_threshold(min_precision=0.8, confidence=0.9))),
    }


def demo_case():
    scores, labels = spe.datasets.load_demo()
    return binary_case(scores, hide_labels(labels, 10, 1))


def imdb_case():
    d = np.load(DATA / "imdb_labelerrors_cv.npz", allow_pickle=False)
    return binary_case(d["probs"][:, 1].astype(float), hide_labels(d["labels"].astype(float), 20, 2))


def bank_case():
    d = np.load(DATA / "bank_age_fairness.npz", allow_pickle=False)
    scores = {str(n): d["scores_all"][:, j].astype(float) for j, n in enumerate(d["model_names"])}
    res = spe.fit_many(scores, hide_labels(d["labels"].astype(float), 20, 3), seed=1)
    draws = res.metric_draws(res.names[0])
    return {
        "summary": digest(res.summary()),
        "label draws": digest(res.label_draws),
        "metric draws": digest(*(draws[k] for k in sorted(draws))),
    }


def news_case():
    d = np.load(DATA / "20news_labelerrors_cv.npz", allow_pickle=False)
    rows = np.random.default_rng(4).choice(d["labels"].shape[0], 2000, replace=False)
    labels = np.full(rows.size, -1)
    labels[:40] = d["labels"][rows[:40]]
    res = spe.fit_multiclass(d["probs"][rows].astype(float), labels, seed=1)
    return {
        "summary": digest(res.summary()),
        "class draws": digest(res.class_draws),
        "accuracy": digest(repr(res.accuracy())),
    }


CASES = {"demo": demo_case, "imdb": imdb_case, "bank (fit_many)": bank_case,
         "20news (fit_multiclass)": news_case}
NEEDS_DATA = {"imdb", "bank (fit_many)", "20news (fit_multiclass)"}


def fingerprints() -> dict:
    out = {}
    for name, case in CASES.items():
        if name in NEEDS_DATA and not DATA.is_dir():
            print(f"{name}: skipped ({DATA} not found)")
            continue
        out[name] = case()
        for what, h in out[name].items():
            print(f"{name:24s} {what:14s} {h}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path, help="write the fingerprints to this JSON file")
    parser.add_argument("--compare", type=Path, help="compare with fingerprints saved earlier")
    args = parser.parse_args(argv)
    now = fingerprints()
    if args.save:
        args.save.write_text(json.dumps(now, indent=1) + "\n")
    if args.compare:
        before = json.loads(args.compare.read_text())
        diffs = [(case, what) for case in before for what in before[case]
                 if now.get(case, {}).get(what) != before[case][what]]
        for case, what in diffs:
            print(f"DIFFERS: {case} / {what}")
        print("identical" if not diffs else f"{len(diffs)} fingerprint(s) differ")
        return 1 if diffs else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
