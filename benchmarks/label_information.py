"""How much can 20 labels tell? SSME's protocol on labels drawn from a known calibration map.

spe's own targets ask, under SSME's protocol (20 labeled + 1,000 unlabeled items, truth on
a held-out half), for errors of at most 0.6x (accuracy) and 0.5x (AUROC, AUPRC) those of
the 20 labeled items alone, for one model at a time. This script measures what is possible
when the calibration-map model is *exactly right*: each real model's scores are kept, and
its labels are replaced by draws from a Platt map P(y = 1 | s) = sigmoid(c + b logit s),
taken in two ways:

* `file maps`: (c, b) fitted by maximum likelihood on all of the file's labels, so the
  labels are as miscalibrated as the real ones, and Bayesian Platt is correctly specified;
* `prior maps`: (c, log b) drawn per model and seed from the Platt prior `spe` uses for
  probabilities. Then Bayesian Platt's posterior is the exact posterior, and its median is
  (up to importance-sampling error and the held-out half's own sampling noise) the
  estimate with the smallest expected absolute error that *any* method can give from these
  scores and labels: the scores say nothing about a map drawn independently of them.

Methods: `platt` (`spe.fit(model="platt")`, correctly specified), `spe` (package default),
`map known` (the generating map itself, labels of the unlabeled items drawn from it: what a
perfect prior would give), and the 20 labeled items alone. Ratios are to the labeled items
alone on the same (model, seed) pairs, mean over a file's models.

Multiclass (the several-models issue asks for top-1 accuracy errors <= 0.6x the labeled
items' at 20 labels): the shared class-probability files as in `multiclass.py` (N = 2,000,
random labeled items), labels drawn from temperature scaling softmax(a log p), with a
fitted by maximum likelihood on all labels (`file maps`) or drawn from `spe`'s prior
(`prior maps`); `spe.fit_multiclass(model="temperature")` is then correctly specified up
to its small outlier share.

Several models on the same labels (the several-models issue asks `fit_many` for errors of
at most 0.45x (accuracy) and 0.4x (AUROC, AUPRC) the labeled items' on the shared fairness
files): every model's scores are kept, and the labels are drawn from the Platt map of one
of them, the generating model g, picked at random per seed among the file's probability
models (file map, or a map drawn from the prior, as above). `fit_many` (package default)
is then correctly specified: g's own map is among its label models. `platt, g known` is
Bayesian Platt on g's scores alone, every model's metrics from its label draws: it knows
which model made the labels, which no method does, so in `prior maps` (where its posterior
is exact given g) no method can expect to beat it.

    python -m benchmarks.label_information [--seeds 20] [--trials 40] [--several-seeds 40] [--quick | --report]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
from scipy import optimize, special  # noqa: E402

from spe import fit_many, fit_multiclass  # noqa: E402
from spe.calibration import CALIBRATED_PRIOR, fit_calibration_map
from spe.calibration._maps import Features  # noqa: E402
from spe.calibration import MAX_CELLS  # noqa: E402
from spe.multiclass import PRIOR_SD  # noqa: E402

from benchmarks import multiclass  # noqa: E402
from benchmarks.harness.cases import DATA, FILES, ssme_models, ssme_split  # noqa: E402
from benchmarks.harness.fits import fit_options, quiet_fit  # noqa: E402
from benchmarks.harness.metrics import accuracy_at, exact_ap, exact_auc, exact_metrics  # noqa: E402
from benchmarks.harness.report import run_stamp, table, write_section  # noqa: E402

HERE = Path(__file__).resolve().parent

MARKERS = ("<!-- label-information:start -->", "<!-- label-information:end -->")
SUMMARY_MARKERS = ("<!-- label-information-summary:start -->", "<!-- label-information-summary:end -->")
DOCS_PAGE = HERE.parent / "docs" / "user_guide" / "evidence.md"
STORED = HERE / "results" / "label_information.json"
KEYS = ("accuracy", "auc", "auprc")
METHODS = ("platt", "spe")
WORLDS = ("file maps", "prior maps")
KNOWN = "map known"
N_KNOWN_DRAWS = 200
CLASS_BUDGET = 20
G_KNOWN = "platt, g known"
SEVERAL_FILES = ("bank", "compas")


def platt_feature(s):
    """The feature spe's Platt map uses for these probabilities (logit, rounding clips)."""
    return Features.for_scores("platt", s, True).platt(s)


def platt_mle(x, y):
    """Maximum-likelihood (c, b) of sigmoid(c + b x)."""
    def nll(p):
        z = p[0] + p[1] * x
        return np.sum(np.logaddexp(0.0, z) - y * z)

    return optimize.minimize(nll, [0.0, 1.0], method="BFGS").x


def generating_map(world, name, file_map, seed):
    """(c, b): the file's own fit (``file_map``), or a draw from spe's Platt prior."""
    if world == "file maps":
        return file_map
    rng = np.random.default_rng([seed, sum(map(ord, name)), 7])
    c = rng.normal(CALIBRATED_PRIOR.c_mean, CALIBRATED_PRIOR.c_sd)
    return np.array([c, np.exp(rng.normal(CALIBRATED_PRIOR.u_mean, CALIBRATED_PRIOR.u_sd))])


def labellings(labels, p, rng) -> np.ndarray:
    """(N_KNOWN_DRAWS, N) labellings: labeled items keep their label, the others are drawn
    from P(y = 1) ``p``, one per item (N,) or one per labelling and item (N_KNOWN_DRAWS, N)."""
    return np.where(~np.isnan(labels), labels, rng.random((N_KNOWN_DRAWS, labels.size)) < p)


def median_metrics(scores, draws) -> list[dict]:
    """Per model (column of ``scores``), the median over labellings ``draws`` (M, N) of
    accuracy at 0.5, AUROC and AUPRC; labellings with one class are skipped."""
    per = [[{"accuracy": accuracy_at(s, y, 0.5), "auc": exact_auc(s, y), "auprc": exact_ap(s, y)}
            for y in draws if 0 < y.sum() < y.size] for s in scores.T]
    return [{k: float(np.median([d[k] for d in m])) for k in KEYS} for m in per]


def known_map_metrics(s, p, labels, seed) -> dict:
    """Posterior medians of the metrics with the map known: unlabeled items' labels drawn from p."""
    return median_metrics(s[:, None], labellings(labels, p, np.random.default_rng([seed, 11])))[0]


def fitted_intervals(method, s, labels, seed) -> dict:
    """{metric: Estimate} (90%) of accuracy at 0.5, AUROC and AUPRC from spe.fit."""
    res = quiet_fit(s, labels, seed, **fit_options(method, s))
    return {"accuracy": res.metrics_at(0.5)["accuracy"], "auc": res.auroc(), "auprc": res.average_precision()}


def one_case(job):
    """Errors (points, against the held-out half) and, for spe's fits, whether the 90%
    interval holds the fitted items' own metric."""
    world, name, s, file_map, seed = job
    x = platt_feature(s)
    c, b = generating_map(world, name, file_map, seed)
    p = special.expit(c + b * x)
    y = (np.random.default_rng([seed, 99]).random(s.size) < p).astype(float)
    split = ssme_split(name, y, seed)
    if split is None:
        return world, name, seed, None
    held, chosen = split
    labels = np.full(chosen.size, np.nan)
    labels[:20] = y[chosen[:20]]
    truth, here = exact_metrics(s[held], y[held]), exact_metrics(s[chosen], y[chosen])
    est = {"labeled only": exact_metrics(s[chosen[:20]], y[chosen[:20]]),
           KNOWN: known_map_metrics(s[chosen], p[chosen], labels, seed)}
    covered = {}
    for method in METHODS:
        intervals = fitted_intervals(method, s[chosen], labels, seed)
        est[method] = {k: e.value for k, e in intervals.items()}
        covered[method] = {k: float(e.lower <= here[k] <= e.upper) for k, e in intervals.items()}
    errors = {m: {k: 100 * abs(e[k] - truth[k]) for k in KEYS} for m, e in est.items()}
    return world, name, seed, {"errors": errors, "covered": covered}


def several_files(quick=False) -> dict:
    """{file: (scores (N, J), labels, model names)} of the shared files with several models."""
    from benchmarks import ssme_shared

    return {f: ssme_shared.file_models(f) for f in SEVERAL_FILES[:1 if quick else None]
            if (DATA / FILES[f]).exists()}


def generating_models(scores) -> list[int]:
    """Models that can make the labels: those with enough distinct scores for a map (every
    model of the fairness files gives probabilities)."""
    return [j for j in range(scores.shape[1]) if np.unique(scores[:, j]).size > MAX_CELLS]


def several_case(job):
    """One seed of the several-models world: errors (points) per model and method, and
    whether fit_many's 90% intervals hold the fitted items' metrics."""
    world, short, scores, g, file_map, seed = job
    c, b = generating_map(world, f"{short} {g}", file_map, seed)
    p = special.expit(c + b * platt_feature(scores[:, g]))
    y = (np.random.default_rng([seed, 98]).random(p.size) < p).astype(float)
    split = ssme_split(short, y, seed)
    if split is None:
        return world, short, seed, None
    held, chosen = split
    here_scores = scores[chosen]
    labels = np.full(chosen.size, np.nan)
    labels[:20] = y[chosen[:20]]
    known = ~np.isnan(labels)
    rng = np.random.default_rng([seed, 12])
    truth = [exact_metrics(s, y[held]) for s in scores[held].T]
    here = [exact_metrics(s, y[chosen]) for s in here_scores.T]
    est = {"labeled only": [exact_metrics(s, labels[known]) for s in here_scores[known].T]}
    est[KNOWN] = median_metrics(here_scores, labellings(labels, p[chosen], rng))
    fit = fit_calibration_map("platt", here_scores[:, g], labels, probabilities=True, n_draws=2000, rng=rng)
    pick = rng.choice(fit.weights.size, N_KNOWN_DRAWS, p=fit.weights)
    est[G_KNOWN] = median_metrics(here_scores, labellings(labels, fit.prob_positive(here_scores[:, g], pick), rng))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fit_many({str(j): s for j, s in enumerate(here_scores.T)}, labels, seed=seed)
    rows = res.metrics(level=0.9)
    intervals = [{"accuracy": r["accuracy"], "auc": r["AUROC"], "auprc": r["average precision"]} for r in rows]
    est["fit_many"] = [{k: e.value for k, e in iv.items()} for iv in intervals]
    errors = {m: [{k: 100 * abs(e[k] - t[k]) for k in KEYS} for e, t in zip(per, truth)] for m, per in est.items()}
    covered = [{k: float(iv[k].lower <= h[k] <= iv[k].upper) for k in KEYS} for iv, h in zip(intervals, here)]
    return world, short, seed, {"errors": errors, "covered": covered}


def several_rows(results):
    """Rows per world, file and method: mean error over seeds and models, ratios to the
    labeled items alone on the same (model, seed) pairs; fit_many's coverage."""
    rows = []
    for world in WORLDS:
        for short in dict.fromkeys(f for w, f, _, r in results if w == world and r):
            done = [r for w, f, _, r in results if w == world and f == short and r]
            for m in ("labeled only", "fit_many", G_KNOWN, KNOWN):
                row = {"world": world, "file": short, "method": m, "seeds": len(done)}
                for k in KEYS:
                    err = np.mean([e[k] for r in done for e in r["errors"][m]])
                    base = np.mean([e[k] for r in done for e in r["errors"]["labeled only"]])
                    row[k], row[f"{k}_ratio"] = float(err), float(err / base)
                    if m == "fit_many":
                        row[f"{k}_cov"] = float(np.mean([c[k] for r in done for c in r["covered"]]))
                rows.append(row)
    return rows


def temperature_mle(logp, y):
    """Maximum-likelihood inverse temperature of softmax(a log p)."""
    rows = np.arange(y.size)

    def nll(t):
        eta = np.exp(t) * logp
        return float(np.sum(special.logsumexp(eta, axis=1) - eta[rows, y]))

    return float(np.exp(optimize.minimize_scalar(nll, bounds=(-5.0, 5.0), method="bounded").x))


def class_logp(p):
    return np.log(np.clip(p, 1e-12, None))


def class_trial(job):
    world, name, p, y_real, a_file, trial = job
    rng = np.random.default_rng([trial, sum(map(ord, name)), 5])
    a = a_file if world == "file maps" else float(np.exp(rng.normal(0.0, PRIOR_SD)))
    q = special.softmax(a * class_logp(p), axis=1)
    y = (rng.random(y_real.size)[:, None] > np.cumsum(q, axis=1)).sum(axis=1)
    y = np.minimum(y, p.shape[1] - 1)
    idx = rng.choice(y.size, CLASS_BUDGET, replace=False)
    labels = np.full(y.size, -1)
    labels[idx] = y[idx]
    pred = p.argmax(1)
    truth = np.mean(pred == y)
    known = ~np.isin(np.arange(y.size), idx)
    # map known: the labeled items' correctness plus the unlabeled items' expected one
    est_known = (np.sum(pred[idx] == y[idx]) + q[known, pred[known]].sum()) / y.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = fit_multiclass(p, labels, model="temperature", n_draws=500, seed=trial).accuracy()
    return world, name, {"labeled only": 100 * abs(np.mean(pred[idx] == y[idx]) - truth),
                         "temperature": 100 * abs(fitted.value - truth), KNOWN: 100 * abs(est_known - truth),
                         "covered": float(fitted.lower <= truth <= fitted.upper)}


def class_rows(results):
    rows = []
    for world in WORLDS:
        for name in dict.fromkeys(n for w, n, _ in results if w == world):
            got = [e for w, n, e in results if w == world and n == name]
            base = np.mean([e["labeled only"] for e in got])
            for m in ("labeled only", "temperature", KNOWN):
                err = float(np.mean([e[m] for e in got]))
                rows.append({"world": world, "case": name, "method": m, "trials": len(got),
                             "accuracy": err, "accuracy_ratio": err / base}
                            | ({"accuracy_cov": float(np.mean([e["covered"] for e in got]))}
                               if m == "temperature" else {}))
    return rows


def summarise(results):
    """Rows per world, file and method: mean error over seeds per model, then over the
    file's models (as in real.py's SSME rows); ratios to the labeled items alone; coverage
    over every (model, seed) pair."""
    rows = []
    for world in WORLDS:
        here = [(name, r) for w, name, _, r in results if w == world and r]
        for f in dict.fromkeys(name.split()[0] for name, _ in here):
            done = [(name, r) for name, r in here if name.split()[0] == f]
            models = list(dict.fromkeys(name for name, _ in done))
            seeds = len({seed for w, name, seed, r in results if w == world and name.split()[0] == f and r})
            for m in ("labeled only",) + METHODS + (KNOWN,):
                per_model = {k: [np.mean([r["errors"][m][k] for n, r in done if n == model]) for model in models]
                             for k in KEYS}
                base = {k: [np.mean([r["errors"]["labeled only"][k] for n, r in done if n == model])
                            for model in models] for k in KEYS}
                row = {"world": world, "file": f, "method": m, "models": len(models), "seeds": seeds}
                for k in KEYS:
                    row[k] = float(np.mean(per_model[k]))
                    row[f"{k}_ratio"] = float(np.mean(per_model[k]) / np.mean(base[k]))
                    if m in METHODS:
                        row[f"{k}_cov"] = float(np.mean([r["covered"][m][k] for _, r in done]))
                rows.append(row)
    return rows


def _unwrap(paragraph):
    """One docstring paragraph as Markdown: a bullet list keeps its items, prose is one line."""
    items = paragraph.split("\n* ")
    return "\n* ".join(" ".join(item.split()) for item in items)


def results_section(stored) -> str:
    """The RESULTS.md section from stored results."""
    return "\n".join([
        "## How much can 20 labels tell? (`benchmarks/label_information.py`)",
        "",
        stored["stamp"],
        "",
        *[_unwrap(p) + "\n" for p in __doc__.split("\n\n")[1:-1]],
        "Mean absolute error in points; `*_ratio` = error / the labeled items' error (spe's own "
        "targets: 0.6 / 0.5 / 0.5); `*_cov` = share of (model, seed) pairs whose 90% interval holds the "
        "metric of the fitted items (20 labeled + unlabeled; in `prior maps` Bayesian Platt's should hold it "
        "0.9 of the time). Seeds whose 20 labels hold one class are skipped.",
        "",
        table(stored["binary"], ["world", "file", "method", "models", "seeds", "accuracy", "auc", "auprc",
                                 "accuracy_ratio", "auc_ratio", "auprc_ratio", "accuracy_cov", "auc_cov",
                                 "auprc_cov"]),
        "",
        f"Multiclass, {CLASS_BUDGET} labels: top-1 accuracy error in points (target ratio 0.6) and 90% "
        "interval coverage of the items' accuracy:",
        "",
        table(stored["multiclass"], ["world", "case", "method", "trials", "accuracy", "accuracy_ratio",
                                     "accuracy_cov"]),
        "",
        "Several models on the same labels, labels from one model's map (20 labels; mean over the file's "
        "models; targets of the several-models issue 0.45 / 0.4 / 0.4); `*_cov`: fit_many's 90% intervals:",
        "",
        table(stored["several"], ["world", "file", "method", "seeds", "accuracy", "auc", "auprc", "accuracy_ratio",
                                  "auc_ratio", "auprc_ratio", "accuracy_cov", "auc_cov", "auprc_cov"]),
        "",
    ])


def readme_block(stored) -> str:
    """The evidence page's block: the correctly specified map's error ratios, world by world."""
    binary = [r for r in stored["binary"] if r["method"] != "labeled only"]
    multi = [r for r in stored["multiclass"] if r["method"] != "labeled only"]
    return "\n".join([
        f"From `python -m benchmarks.label_information` ({stored['stamp'].split(';')[0].lower()}; tables in "
        "`benchmarks/RESULTS.md`). Labels drawn from a Platt map (binary) or temperature scaling "
        "(multiclass) fitted to each file (`file maps`) or drawn from spe's prior (`prior maps`); "
        "`platt` / `temperature` is spe's own Bayesian map, correctly specified, from 20 labels; "
        "`spe` is the package default; `map known` is the generating map itself. Error ratios to the 20 "
        "labeled items alone (targets 0.6 accuracy, 0.5 AUROC and AUPRC) and coverage of 90% intervals:",
        "",
        table(binary, ["world", "file", "method", "accuracy_ratio", "auc_ratio", "auprc_ratio", "accuracy_cov",
                       "auc_cov", "auprc_cov"]),
        "",
        table(multi, ["world", "case", "method", "accuracy_ratio", "accuracy_cov"]),
        "",
        "Several models on the same labels, the labels drawn from one model's map (`platt, g known`: Bayesian "
        "Platt on the generating model, which no method knows; targets of `fit_many` 0.45 / 0.4 / 0.4):",
        "",
        table([r for r in stored["several"] if r["method"] != "labeled only"],
              ["world", "file", "method", "accuracy_ratio", "auc_ratio", "auprc_ratio", "accuracy_cov", "auc_cov",
               "auprc_cov"]),
    ])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--trials", type=int, default=40, help="multiclass trials per case and world")
    ap.add_argument("--several-seeds", type=int, default=40, help="seeds per file and world, several models")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="2 seeds, imdb and bank only, no RESULTS.md")
    ap.add_argument("--report", action="store_true", help=f"rewrite the RESULTS.md section and the evidence page's "
                    f"block from {STORED.relative_to(HERE.parent)}, without running")
    args = ap.parse_args(argv)
    if args.report:
        stored = json.loads(STORED.read_text())
    else:
        models = ssme_models(["imdb"] if args.quick else None)
        if not models:
            raise SystemExit("no shared data (set SPE_SHARED_DATA)")
        seeds = 2 if args.quick else args.seeds
        trials = 2 if args.quick else args.trials
        start = time.time()
        file_maps = {name: platt_mle(platt_feature(s), y) for name, (s, y) in models.items()}
        jobs = [(w, name, s, file_maps[name], seed) for w in WORLDS for name, (s, _) in models.items()
                for seed in range(seeds)]
        class_cases = {k: v for k, v in multiclass.cases().items() if not args.quick or k == "imdb"}
        file_temperatures = {name: temperature_mle(class_logp(p), y) for name, (p, y) in class_cases.items()}
        class_jobs = [(w, name, p, y, file_temperatures[name], t) for w in WORLDS
                      for name, (p, y) in class_cases.items() for t in range(trials)]
        several = several_files(args.quick)
        several_jobs = []
        for short, (scores, y, _) in several.items():
            eligible = generating_models(scores)
            maps = {g: platt_mle(platt_feature(scores[:, g]), y) for g in eligible}
            for w in WORLDS:
                for seed in range(2 if args.quick else args.several_seeds):
                    g = eligible[np.random.default_rng([seed, 13]).integers(len(eligible))]
                    several_jobs.append((w, short, scores, g, maps[g], seed))
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(one_case, jobs, chunksize=2))
            class_results = list(pool.map(class_trial, class_jobs, chunksize=2))
            several_results = list(pool.map(several_case, several_jobs))
        stored = {"stamp": run_stamp() + f"; {seeds} seeds, {trials} multiclass trials, "
                  f"{args.several_seeds} seeds per file with several models, "
                  f"{(time.time() - start) / 60:.1f} min on {args.jobs} processes.",
                  "binary": summarise(results), "multiclass": class_rows(class_results),
                  "several": several_rows(several_results)}
    text = results_section(stored)
    print(text)
    if args.quick:
        return
    if not args.report:
        STORED.write_text(json.dumps(stored, indent=1))
    write_section(text, HERE / "RESULTS.md", MARKERS)
    write_section(readme_block(stored), DOCS_PAGE, SUMMARY_MARKERS)


if __name__ == "__main__":
    main()
