"""Simulation-based calibration (Talts et al. 2018) of spe's posteriors: the thorough run.

    python -m benchmarks.sbc            # ~5 minutes; writes its section of RESULTS.md
    python -m benchmarks.sbc --reps 40  # a shorter run (prints only)

Parameters are drawn from the prior, data from the model, the model is fitted, and the
posterior CDF at the true value is recorded: for a correct posterior it is Uniform(0, 1).
Reported per parameter: the KS p-value, the share of 50% / 90% central intervals that
cover the truth, and a 10-bin rank histogram (counts). Two posteriors:

* the score mixture (truncated Normal pair, a prior tight enough that every simulated data
  set is a two-class mixture; N = 300, 10 labels; plain posterior, importance sampling with
  the emcee fallback);
* the Bayesian Platt map (its default prior for probability scores; 40 labeled items).

The fast versions of both checks are in tests/calibration/test_score_models.py.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import datetime  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import special, stats  # noqa: E402

import spe  # noqa: E402
from spe.calibration import CALIBRATED_PRIOR, fit_calibration_map  # noqa: E402
from spe.mixture import get_component  # noqa: E402
from spe.mixture import MixtureModel  # noqa: E402
from spe.mixture._priors import Beta, LogNormal, Normal  # noqa: E402

from benchmarks.harness.report import write_section  # noqa: E402

HERE = Path(__file__).resolve().parent
MARKERS = ("<!-- sbc:start -->", "<!-- sbc:end -->")
MIXTURE_PRIOR = {"pi": Beta(4, 6), "neg.mu": Normal(0.35, 0.05), "neg.sigma": LogNormal(np.log(0.1), 0.2),
                 "pos.mu": Normal(0.65, 0.05), "pos.sigma": LogNormal(np.log(0.1), 0.2)}


def cdf_at(draws, weights, value):
    return float(np.sum(weights * (draws < value)) + 0.5 * np.sum(weights * (draws == value)))


def mixture_rep(rep):
    rng = np.random.default_rng([rep, 1])
    theta = np.array([rng.beta(4, 6), rng.normal(0.35, 0.05), np.exp(rng.normal(np.log(0.1), 0.2)),
                      rng.normal(0.65, 0.05), np.exp(rng.normal(np.log(0.1), 0.2))])
    model = MixtureModel(get_component("truncnorm"), get_component("truncnorm"))
    z, y = model.simulate(theta, 300, rng)
    labels = np.where(np.arange(300) < 10, y, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit(z, labels, model="mixture", families=("truncnorm", "truncnorm"), prior=MIXTURE_PRIOR,
                      coarsen=False, score_range=(0, 1), probabilities=False, n_draws=1000, seed=rep)
    post = res.posterior
    names = ["pi", "neg.mu", "neg.sigma", "pos.mu", "pos.sigma"]
    return {n: cdf_at(post.theta[:, j], post.weights, theta[j]) for j, n in enumerate(names)}


def platt_rep(rep):
    rng = np.random.default_rng([rep, 2])
    c = rng.normal(CALIBRATED_PRIOR.c_mean, CALIBRATED_PRIOR.c_sd)
    b = np.exp(rng.normal(CALIBRATED_PRIOR.u_mean, CALIBRATED_PRIOR.u_sd))
    s = special.expit(rng.normal(0, 2, 40))
    y = (rng.random(40) < special.expit(c + b * special.logit(s))).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_calibration_map("platt", s, y, probabilities=True, n_draws=1000, rng=np.random.default_rng(rep))
    return {"c": cdf_at(fit.c, fit.weights, c), "b": cdf_at(fit.slopes[:, 0], fit.weights, b)}


def summarise(name, rows):
    out = []
    for param in rows[0]:
        u = np.array([r[param] for r in rows])
        hist = np.histogram(u, bins=10, range=(0, 1))[0]
        out.append({"posterior": name, "parameter": param, "reps": u.size,
                    "ks_p": stats.kstest(u, "uniform").pvalue,
                    "cover50": np.mean((u > 0.25) & (u < 0.75)), "cover90": np.mean((u > 0.05) & (u < 0.95)),
                    "ranks": " ".join(str(h) for h in hist)})
    return out


def table(rows):
    cols = ["posterior", "parameter", "reps", "ks_p", "cover50", "cover90", "ranks"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in cols) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200, help="replications per posterior (default 200)")
    args = ap.parse_args(argv)
    rows = summarise("mixture (truncnorm pair, N=300, 10 labels)", [mixture_rep(r) for r in range(args.reps)])
    rows += summarise("Platt map (40 labels)", [platt_rep(r) for r in range(args.reps)])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True).stdout.strip()
    text = "\n".join([
        "## Simulation-based calibration (`benchmarks/sbc.py`)",
        "",
        f"Run {datetime.date.today().isoformat()}, commit {commit}, {args.reps} replications per posterior. "
        "For a correct posterior the posterior CDF at the true value is uniform: KS p-value, coverage of "
        "central 50% and 90% intervals (targets 0.5 and 0.9), and the 10-bin rank histogram (flat).",
        "",
        table(rows),
        "",
    ])
    print(text)
    if args.reps >= 200:
        write_section(text, HERE / "RESULTS.md", MARKERS)
        print(f"wrote {HERE / 'RESULTS.md'} (SBC section)", file=sys.stderr)


if __name__ == "__main__":
    main()
