"""Which of fit_many's label models over- or understates the top on the shared-error test beds?

The default stack (`spe.fit_many`) draws every labelling from one of its candidate label
models: each model's own map, each probability model's "calibrated" map, the log-linear
pool, the Gaussian copula. Per candidate, this draws 200 labellings from that candidate
alone (its posterior draws, the 20 labeled items fixed) and scores every model's AUPRC
on them against the truth of the 1,020 items (`kind="sample"`), on the beds of
`benchmarks/several_testbeds.py` (same tasks, splits and seeds). A model's own map (or its
"calibrated" map) scores that model ("self") and the six others ("cross"): labels drawn
from one model's scores are independent of the other models' given that model's, so the
cross error shows what that independence costs the others (attenuation), and self minus
cross how far a model's own candidates lift it above the rest in their share of the draws.
`top P(y=1)`: the candidate's mean P(y = 1) over the top 10% of a model's items by score
minus the true share of positives there (points; for a map, of its own model). `weight`:
the candidate kind's share of the default stack's draws; `stack`: the default fit's mean
signed AUPRC error.

    python -m benchmarks.several_components [--tasks 12] [--trials 2] [--no-write]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import spe
from benchmarks.corpus import CACHE, store
from benchmarks.harness.metrics import exact_ap
from benchmarks.harness.report import run_stamp, table, write_section
from benchmarks.several_testbeds import BEDS, N_LABELS, WEIGHT_KINDS, bed_items, bed_tasks, label_model_kind
from spe.metrics import draws_sweep, sample_average_precision
from spe.pooling import systematic_resample

HERE = Path(__file__).resolve().parent
MARKERS = ("<!-- several-components:start -->", "<!-- several-components:end -->")
N_DRAWS = 200
TOP = 0.1
KINDS = WEIGHT_KINDS


def candidate_labellings(fit, y, labeled, n_draws: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """((n_draws, N) P(y=1), (n_draws, N) labellings) from one candidate label model alone:
    its draws resampled by weight, the ``labeled`` items fixed at their labels ``y``."""
    rows = systematic_resample(fit.weights, n_draws, rng)
    needed, where = np.unique(rows, return_inverse=True)
    p = fit.prob_positive(np.arange(y.size), needed)[where]
    drawn = rng.random(p.shape) < p
    drawn[:, labeled] = y[labeled] == 1
    return p, drawn


def candidate_errors(fit, models: dict, y, n_labeled: int, rng) -> tuple[dict, dict]:
    """({model: mean AUPRC error}, {model: top-decile P(y=1) error}) under one candidate's draws."""
    p, drawn = candidate_labellings(fit, y, np.arange(n_labeled), N_DRAWS, rng)
    ap, top = {}, {}
    for m, s in models.items():
        ap[m] = float(np.mean(sample_average_precision(draws_sweep(s, drawn))) - exact_ap(s, y))
        high = np.argsort(-s, kind="stable")[:int(TOP * y.size)]
        top[m] = float(p[:, high].mean() - y[high].mean())
    return ap, top


def one_trial(job) -> dict:
    """Per candidate kind: self / cross AUPRC errors and the top's P(y=1) error, one (task, bed, trial)."""
    row, bed, trial = job
    scores, y = bed_items(row, bed, trial)  # the same items and labels as several_testbeds
    labels = np.full(y.size, np.nan)
    labels[:N_LABELS] = y[:N_LABELS]
    models = {f"{bed} {j}": scores[:, j] for j in range(scores.shape[1])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit_many(models, labels, seed=trial)
    stack = float(np.mean([r["average precision"].value - exact_ap(models[r["model"]], y) for r in res.metrics()]))
    out = {"task": row["task_id"], "bed": bed, "trial": trial, "stack": stack,
           "errors": {k: {"self": [], "cross": [], "top": []} for k in KINDS},
           "weights": dict.fromkeys(KINDS, 0.0)}
    draw_rng = np.random.default_rng([trial, 7])
    for name, fit in res.label_model.fits.items():
        kind = label_model_kind(name)
        out["weights"][kind] += res.label_model.model_weights[name]
        ap, top = candidate_errors(fit, models, y, N_LABELS, draw_rng)
        own = name.removesuffix(" (calibrated)")
        for m in models:
            if kind in ("own maps", "calibrated maps"):
                out["errors"][kind]["self" if m == own else "cross"].append(ap[m])
                if m == own:
                    out["errors"][kind]["top"].append(top[m])
            else:
                out["errors"][kind]["cross"].append(ap[m])
                out["errors"][kind]["top"].append(top[m])
    return out


def summary_rows(results: list[dict]) -> list[dict]:
    rows = []
    for bed in BEDS:
        done = [r for r in results if r["bed"] == bed]
        if not done:
            continue
        for kind in KINDS:
            got = [r["errors"][kind] for r in done]
            mean = lambda key: (100 * float(np.mean([v for g in got for v in g[key]]))  # noqa: E731
                                if any(g[key] for g in got) else None)
            rows.append({"bed": bed, "label model": kind, "fits": len(done),
                         "weight": float(np.mean([r["weights"][kind] for r in done])),
                         "self": mean("self"), "cross": mean("cross"), "top P(y=1)": mean("top")})
        rows.append({"bed": bed, "label model": "default stack", "fits": len(done), "weight": 1.0,
                     "self": None, "cross": 100 * float(np.mean([r["stack"] for r in done])), "top P(y=1)": None})
    return rows


def report(results: list[dict], head: str) -> str:
    cols = ["bed", "label model", "fits", "weight", "self", "cross", "top P(y=1)"]
    return "\n".join([
        "## Which label model carries the top's error on the test beds (`benchmarks/several_components.py`)", "",
        head + " " + " ".join(__doc__.split("\n\n")[1].split()), "",
        "Signed AUPRC errors in points (positive: the top overstated); for the pool and the copula, "
        "`cross` is every model's; the stack's row gives its mean signed error in `cross`:", "",
        table(summary_rows(results), cols, {"fits": "{}"}), ""])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=12)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="print only (no RESULTS.md)")
    args = ap.parse_args(argv)
    index = store.index_or_exit(CACHE)
    start = time.time()
    tasks = bed_tasks(index, args.tasks)
    results = [one_trial((row, bed, trial)) for row in tasks for bed in BEDS for trial in range(args.trials)]
    head = (run_stamp() + f"; `--tasks {args.tasks} --trials {args.trials}`: {len(tasks)} tasks x {len(BEDS)} beds x "
            f"{args.trials} trials, {(time.time() - start) / 60:.1f} min on 1 process.")
    text = report(results, head)
    print(text)
    if not args.no_write:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
