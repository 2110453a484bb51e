"""What the SPE priors of RESULTS.md's Tables 3-5 start from: their strength and where the
truth sits, with 0 labels (SPE-0) and 10 (SPE-10), against Ji et al.'s score prior.

    python -m benchmarks.assessment_tables_prior [--seeds 3]     # prints a table, writes nothing

Per file and prior: the median strength (pseudo-labels) of the accuracy prior per
predicted class (:func:`~spe.assessment.multiclass_informed_prior`; IPrior: 2) and per
confidence bin (Table 5's groups), and of the confusion prior's columns
(:func:`~spe.assessment.multiclass_confusion_prior`; IPrior: 1), also as the column's total
variance would set it (the rule before the diagonal match); and where the true accuracy
per class sits, z = (truth - prior mean) / prior sd, for the accuracy prior and for the
confusion prior's diagonal (mean z: the centre's bias, rms z above 1: a prior tighter
than its error). Share-weighted |truth - centre|: how far the centre is from the truth.
SPE-10 pools ``--seeds`` fits (each on its own 10 random labels).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from benchmarks.active_real import cases
from benchmarks.assessment_tables import SPE_DRAWS, setup
from spe import fit_multiclass
from spe.assessment import multiclass_confusion_prior, multiclass_informed_prior
from spe.assessment._confusion import draw_confusions


def fitted(probs, y, n_labels, seed):
    labels = np.full(y.size, -1)
    if n_labels:
        held = np.random.default_rng(10_000 + seed).choice(y.size, n_labels, replace=False)
        labels[held] = y[held]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_multiclass(probs, labels, n_draws=SPE_DRAWS, seed=seed)


def z_of(truth, mean, strength):
    return (truth - mean) / np.sqrt(mean * (1 - mean) / (strength + 1))


def total_variance_strength(res, centre):
    theta = draw_confusions(res.class_draws, np.asarray(res.predicted), res.n_classes)
    spread = np.mean(np.sum((theta - centre[None]) ** 2, axis=1), axis=0)
    return np.sum(centre * (1 - centre), axis=0) / spread - 1.0


def rows(name, probs, y, seeds):
    s = setup(probs, y)
    d = np.arange(s["k"])
    out = [(name, "IPrior", 2.0, 2.0, 1.0, float("nan"), s["share"] @ np.abs(s["acc"] - s["ip"].mean()),
            z_of(s["acc"], s["ip"].mean(), 2.0), z_of(np.diag(s["truth_conf"]), np.diag(s["sd"]) / s["sd"].sum(0), 1.0))]
    for n_labels, n_seeds in ((0, 1), (10, seeds)):
        st_a, st_b, st_c, st_t, err, z_a, z_c = [], [], [], [], [], [], []
        for seed in range(n_seeds):
            res = fitted(probs, y, n_labels, seed)
            acc, bins, conf = (multiclass_informed_prior(res, s["groups"]), multiclass_informed_prior(res, s["bins"]),
                               multiclass_confusion_prior(res))
            sc = conf.alpha.sum(0)
            st_a += list(acc.alpha + acc.beta)
            st_b += list(bins.alpha + bins.beta)
            st_c += list(sc)
            st_t += list(np.maximum(total_variance_strength(res, conf.mean()), 1.0))
            err.append(s["share"] @ np.abs(s["acc"] - acc.mean()))
            z_a += list(z_of(s["acc"], acc.mean(), acc.alpha + acc.beta))
            z_c += list(z_of(np.diag(s["truth_conf"]), conf.alpha[d, d] / sc, sc))
        out.append((name, f"SPE-{n_labels}", np.median(st_a), np.median(st_b), np.median(st_c), np.median(st_t),
                    float(np.mean(err)), np.array(z_a), np.array(z_c)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args(argv)
    lines = ["| file | prior | strength: classes | bins | confusion | confusion by total variance | "
             "abs(truth - centre) | z, accuracy: mean | rms | z, confusion diagonal: mean | rms |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, (probs, y) in cases().items():
        for file, prior, sa, sb, sc, st, err, za, zc in rows(name, probs, y, args.seeds):
            lines.append(f"| {file} | {prior} | {sa:.1f} | {sb:.1f} | {sc:.1f} | {st:.1f} | {err:.3f} | "
                         f"{za.mean():+.2f} | {np.sqrt(np.mean(za**2)):.2f} | {zc.mean():+.2f} | "
                         f"{np.sqrt(np.mean(zc**2)):.2f} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
