"""SSME's protocol with every model of a file on the same labels: spe.fit_many side by side.

Sets of several models: the shared fairness files (bank, compas; 10 models each), with
scikit-learn installed `digits`, nine scikit-learn models' out-of-fold probabilities on
its bundled digits images (`made_models.py`; 1,797 items, so 20 labeled + 879 unlabeled),
and two simulated sets of 20,000 items (`made_models.py`: seven models reading one latent
log-odds, about 10% positives; "noisy top": 15% of the positives-by-score labeled
negative, which no model sees).
Per seed, one split for all of a file's models: a random half is held out as the truth,
20 labeled + 1,000 unlabeled items come from the other half (Shanmugam et al. 2025's
protocol). Per model: mean absolute error (points) of accuracy at 0.5, AUROC and AUPRC (and the
mean signed AUPRC error, `auprc_bias`: the top of the ranking overstated when positive)
from `spe.fit_many` (all models, shared label draws; `fit_many, population` is the same
fit's `kind="population"`, the population the items come from, which the held-out half
samples; also with only the models' own maps, only their Gaussian copula (`joint only`),
each model's wide map and its "calibrated" one, or only the log-linear pool; with
`calibrated=False`, without the "calibrated" maps; and the stack without the copula, `no
copula`, paired with the default on the same seeds), from `spe.fit` on that
model alone (package default) and from the 20 labeled items alone; ratios to the labeled
items alone. ssme-lite (Shanmugam et al.'s package) fits every model of the file at once,
on the first seeds only (it takes seconds per fit); its ratios are against the labeled
items on the same seeds.
Coverage: how often each method's 90% intervals hold the value it targets: the metric of
the items it describes (the 20 labeled + unlabeled items; target "items"), or for
`fit_many, population` the held-out half's (target "held-out", a sample of the
population, so its own sampling noise counts against the interval); `fit_many` against
the held-out half shows what an interval about these items claims about the population.
Labeled only: Beta intervals for rates, percentile bootstrap for AUROC and AUPRC.

    python -m benchmarks.ssme_shared [--seeds 50] [--ssme-seeds 10] [--quick] [--files bank,compas] [--no-write]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

from benchmarks.made_models import SIMULATED, digits_models, simulated_models  # noqa: E402
from benchmarks.harness.cases import DATA, FILES, ssme_split  # noqa: E402
from benchmarks.harness.metrics import ALPHA, beta_interval, covers, exact_ap, exact_auc, exact_metrics  # noqa: E402
from benchmarks.harness.report import run_stamp, table, write_section  # noqa: E402

import spe  # noqa: E402

HERE = Path(__file__).resolve().parent

MARKERS = ("<!-- ssme-shared:start -->", "<!-- ssme-shared:end -->")
KEYS = ("accuracy", "auc", "auprc")
N_BOOT = 200
NO_COPULA = "fit_many, no copula"
#: fit_many's label model (the default stack) and, to compare, its kinds alone and without "calibrated" maps.
VARIANTS = {"fit_many": {}, "fit_many, maps only": {"label_model": "maps"},
            "fit_many, pool only": {"label_model": "pool"},
            # the Gaussian copula of the models' scores given the class alone (#47)
            "fit_many, joint only": {"label_model": "joint"},
            # the default stack without the copula: paired with fit_many on the same splits (#47)
            NO_COPULA: {"label_model": ("maps", "pool")},
            # without each probability model's "calibrated" map (the default before 2026-11-24)
            "fit_many, calibrated=False": {"calibrated": False}}
#: Shanmugam et al. (2025), CivilComments, 7 models, 20 labels: (SSME, labeled only) MAE in points.
PUBLISHED = {"accuracy": (2.27, 5.54), "auc": (3.28, 6.98), "auprc": (9.41, 22.4)}
SSME_LITE = "ssme-lite (all models)"
#: fit_many's intervals about these items, held against the held-out half.
HELD_OUT = "fit_many, against held-out"
#: A third set of several models, made by code (made_models.py): not a shared file.
MADE = "digits"
#: fit_many's default fit, read as the population the items come from (no second fit).
POPULATION = "fit_many, population"


def file_models(short):
    """(scores (N, M), labels, model names) of a shared file, or of the made digits set."""
    if short == MADE:
        return digits_models()
    if short in SIMULATED:
        return simulated_models(short)
    d = np.load(DATA / FILES[short], allow_pickle=False)
    names = [str(m).removeprefix("score_") for m in d["model_names"]]
    return d["scores_all"].astype(float), d["labels"].astype(float), names


def labeled_intervals(s, y, rng):
    """90% intervals from the labeled items alone: Beta for accuracy, bootstrap for AUROC/AUPRC
    (the labeled-only prevalence interval is one per seed, in :func:`one_seed`)."""
    boot = np.empty((N_BOOT, 2))
    for b in range(N_BOOT):
        i = rng.integers(0, y.size, y.size)
        both = 0 < y[i].sum() < y.size
        boot[b] = (exact_auc(s[i], y[i]) if both else 0.5, exact_ap(s[i], y[i]) if y[i].any() else 0.0)
    auc, auprc = np.quantile(boot, [ALPHA / 2, 1 - ALPHA / 2], axis=0).T
    correct = (s >= 0.5) == (y == 1)
    return {"accuracy": beta_interval(correct.sum(), y.size), "auc": auc, "auprc": auprc}


def ssme_lite_all_models(scores, labels, seed) -> dict:
    """ssme-lite (Shanmugam et al. 2025) on every model at once: {model index: metrics}."""
    from ssme_lite import SSMEEstimator

    y = np.where(np.isnan(labels), -1, labels).astype(int)
    est = SSMEEstimator(random_state=seed, early_stopping=True).fit(np.clip(scores, 1e-6, 1 - 1e-6), y)
    rep = est.evaluate(metrics=("accuracy", "auc", "auprc"), n_draws=100, random_state=seed)
    return {j: {k: float(rep.data["metrics"][k]["rows"][j]["estimate"]) for k in KEYS} for j in range(scores.shape[1])}


def has_ssme_lite() -> bool:
    return importlib.util.find_spec("ssme_lite") is not None


def one_seed(job):
    short, seed, with_single, with_ssme, variants = job
    scores, y, names = file_models(short)
    split = ssme_split(short, y, seed)
    if split is None:
        return short, seed, None
    held, chosen = split
    labels = np.full(chosen.size, np.nan)
    labels[:20] = y[chosen[:20]]
    out, cover, estimates, truths = {}, {}, {}, {}
    boot_rng = np.random.default_rng([seed, 1])
    prevalence_here = y[chosen].mean()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        manys = {}
        for method, options in ((m, VARIANTS[m]) for m in variants):
            start = time.perf_counter()
            manys[method] = spe.fit_many({n: scores[chosen, j] for j, n in enumerate(names)}, labels, seed=seed,
                                         **options)
            if method == "fit_many":
                many_s = time.perf_counter() - start
        many_rows = {m: {r["model"]: r for r in res.metrics(level=1 - ALPHA)} for m, res in manys.items()}
        many_rows[POPULATION] = {r["model"]: r for r in manys["fit_many"].metrics(level=1 - ALPHA, kind="population")}
        lite, lite_s = {}, None
        if with_ssme:
            start = time.perf_counter()
            lite = ssme_lite_all_models(scores[chosen], labels, seed)
            lite_s = time.perf_counter() - start
        lab_prev = beta_interval(labels[:20].sum(), 20)
        prevalence = {"labeled only": [covers(*lab_prev, prevalence_here)]}
        for m, res in manys.items():
            prev = res.prevalence(level=1 - ALPHA)
            prevalence[m] = [covers(prev.lower, prev.upper, prevalence_here)]
        for j, name in enumerate(names):
            truth = exact_metrics(scores[held, j], y[held])
            here = exact_metrics(scores[chosen, j], y[chosen])
            intervals = {m: {"accuracy": rows[name]["accuracy"], "auc": rows[name]["AUROC"],
                             "auprc": rows[name]["average precision"]} for m, rows in many_rows.items()}
            est = {m: {k: e.value for k, e in v.items()} for m, v in intervals.items()}
            est["labeled only"] = exact_metrics(scores[chosen[:20], j], y[chosen[:20]])
            if lite:
                est[SSME_LITE] = lite[j]
            lab = labeled_intervals(scores[chosen[:20], j], y[chosen[:20]], boot_rng)
            if with_single:
                try:
                    res = spe.fit(scores[chosen, j], labels, seed=seed)
                    intervals["fit (this model alone)"] = {"accuracy": res.metrics_at(0.5)["accuracy"],
                                                           "auc": res.auroc(), "auprc": res.average_precision()}
                    est["fit (this model alone)"] = {k: e.value for k, e in intervals["fit (this model alone)"].items()}
                    p = res.prevalence()
                    prevalence.setdefault("fit (this model alone)", []).append(
                        covers(p.lower, p.upper, prevalence_here))
                except Exception:  # e.g. a 2-valued decision tree: counted as missing, not hidden
                    pass
            out[name] = {m: {k: 100 * abs(e[k] - truth[k]) for k in KEYS} | {"auprc_bias": 100 * (e["auprc"] - truth["auprc"])}
                         for m, e in est.items()}
            cover[name] = {m: {k: covers(e[k].lower, e[k].upper, truth[k] if m == POPULATION else here[k])
                               for k in KEYS} for m, e in intervals.items()}
            cover[name][HELD_OUT] = {k: covers(intervals["fit_many"][k].lower, intervals["fit_many"][k].upper,
                                               truth[k]) for k in KEYS}
            cover[name]["labeled only"] = {k: covers(*lab[k], here[k]) for k in KEYS}
            truths[name] = truth
            for m, e in est.items():
                estimates.setdefault(m, {})[name] = e
    return short, seed, {"models": out, "cover": cover, "prevalence": {m: float(np.mean(v)) for m, v in
                                                                       prevalence.items()},
                         "s": many_s, "ssme_s": lite_s, "pick": {k: best_model_picks(estimates, truths, k) for k in ("auc", "auprc")}}


def paired_rows(results, files) -> list[dict]:
    """Per file: the per-seed MAE difference, fit_many minus the stack without the copula."""
    rows = []
    for f in files:
        done = [r for short, _, r in results if short == f and r is not None
                and all(NO_COPULA in per for per in r["models"].values())]
        if len(done) < 2:
            continue
        row = {"file": f, "seeds": len(done)}
        for k in KEYS:
            d = [np.mean([per["fit_many"][k] - per[NO_COPULA][k] for per in r["models"].values()]) for r in done]
            row[f"{k}_diff"] = float(np.mean(d))
            row[f"{k}_se"] = float(np.std(d, ddof=1) / np.sqrt(len(d)))
        rows.append(row)
    return rows


def best_model_picks(estimates, truths, key):
    """Per method: is the model it ranks first by ``key`` ("auc" or "auprc") the truly best
    by it (held-out half), and how many points the pick gives up (regret). Ties in the
    ranking count as a miss unless every tied model is truly best."""
    true = {n: t[key] for n, t in truths.items()}
    best = max(true.values())
    out = {}
    for method, per_model in estimates.items():
        est = {n: e[key] for n, e in per_model.items()}
        if len(est) < len(true):
            continue  # a model this method could not fit: no comparable ranking
        top = max(est.values())
        picked = [n for n, v in est.items() if v == top]
        out[method] = {"hit": all(true[n] == best for n in picked),
                       "regret": 100 * (best - np.mean([true[n] for n in picked]))}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--quick", action="store_true", help="3 seeds, fit_many only, no RESULTS.md")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--files", help="comma-separated subset of the sets (a subset run writes no RESULTS.md)")
    ap.add_argument("--no-write", action="store_true", help="print the tables only (no RESULTS.md)")
    ap.add_argument("--variants", help="';'-separated subset of fit_many's variants (default: all); prints only")
    ap.add_argument("--no-single", action="store_true", help="skip spe.fit on each model alone; prints only")
    ap.add_argument("--ssme-seeds", type=int, default=10,
                    help="run ssme-lite (if installed) on the first this many seeds")
    args = ap.parse_args(argv)
    seeds = 3 if args.quick else args.seeds
    ssme_seeds = 0 if args.quick or not has_ssme_lite() else min(args.ssme_seeds, seeds)
    files = [f for f in ("bank", "compas") if (DATA / FILES[f]).exists()]
    if not files:
        raise SystemExit(f"no shared data in {DATA}")
    if not args.quick and importlib.util.find_spec("sklearn") is not None:
        files.append(MADE)
    files += [] if args.quick else list(SIMULATED)
    if args.files:
        files = [f for f in args.files.split(",") if f in files or f in SIMULATED]
    start = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        variants = list(VARIANTS) if not args.variants else ["fit_many", *(
            v for v in args.variants.split(";") if v in VARIANTS and v != "fit_many")]
        results = list(pool.map(one_seed, [(f, s, not (args.quick or args.no_single), s < ssme_seeds, variants)
                                           for f in files for s in range(seeds)]))
    rows = []
    for f in files:
        done = [r for short, _, r in results if short == f and r is not None]
        methods = list(dict.fromkeys(m for r in done for per in r["models"].values() for m in per))
        for m in methods:
            # mean over seeds, then over models; ratio against labeled-only on the same (model, seed) pairs
            vals = {k: [] for k in KEYS}
            base = {k: [] for k in KEYS}
            for r in done:
                for per in r["models"].values():
                    if m in per:
                        for k in KEYS:
                            vals[k].append(per[m][k])
                            base[k].append(per["labeled only"][k])
            ran = [r for r in done if any(m in per for per in r["models"].values())]
            row = {"file": f, "method": m, "seeds": len(ran)}
            for k in KEYS:
                row[k] = float(np.mean(vals[k]))
                row[f"{k}_ratio"] = float(np.mean(vals[k]) / np.mean(base[k]))
            row["auprc_bias"] = float(np.mean([per[m]["auprc_bias"] for r in done for per in r["models"].values()
                                               if m in per]))
            if m == "fit_many":
                row["s"] = float(np.median([r["s"] for r in done]))
            if m == SSME_LITE:
                row["s"] = float(np.median([r["ssme_s"] for r in ran]))
            rows.append(row)
    coverage = []
    for f in files:
        done = [r for short, _, r in results if short == f and r is not None]
        methods = list(dict.fromkeys(m for r in done for per in r["cover"].values() for m in per))
        for m in methods:
            got = [per[m] for r in done for per in r["cover"].values() if m in per]
            prevalence = [r["prevalence"][m] for r in done if m in r["prevalence"]]
            coverage.append({"file": f, "method": m, "target": "held-out" if m in (POPULATION, HELD_OUT) else "items",
                             "seeds": len(done), "prevalence": float(np.mean(prevalence)) if prevalence else None}
                            | {k: float(np.mean([g[k] for g in got])) for k in KEYS})
    paired = paired_rows(results, files)
    picks = []
    for f in files:
        done = [r for short, _, r in results if short == f and r is not None]
        for m in dict.fromkeys(m for r in done for m in r["pick"]["auc"]):
            row = {"file": f, "method": m}
            for k in ("auc", "auprc"):
                got = [r["pick"][k][m] for r in done if m in r["pick"][k]]
                row |= {"seeds": len(got), f"p_best_first_{k}": float(np.mean([g["hit"] for g in got])),
                        f"regret_{k}": float(np.mean([g["regret"] for g in got]))}
            picks.append(row)
    text = "\n".join([
        "## SSME's protocol, every model of a file on the same labels (`benchmarks/ssme_shared.py`)",
        "",
        run_stamp()
        + f"; {seeds} seeds, {(time.time() - start) / 60:.1f} min on {args.jobs} processes. " + " ".join(
            __doc__.split("\n\n")[1].split()) + " spe's own targets: ratios <= 0.6 (accuracy) and "
        "<= 0.5 (AUROC, AUPRC). SSME's published ratios on its own CivilComments data (7 models, other data): "
        + " / ".join(f"{a / b:.2f}" for a, b in PUBLISHED.values()) + ".",
        "",
        table(rows, ["file", "method", "seeds", "accuracy", "auc", "auprc", "accuracy_ratio", "auc_ratio",
                     "auprc_ratio", "auprc_bias", "s"]),
        "",
        f"Coverage of {100 * (1 - ALPHA):g}% intervals (share of (model, seed) pairs; prevalence: of seeds, "
        "for `fit` the mean over a seed's models) of the value each targets: the metric of the items it "
        "describes (`items`) or of the held-out half (`held-out`). "
        "A model's coverage is correlated across models within a seed, so the seed count is the sample size:",
        "",
        table(coverage, ["file", "method", "target", "seeds", "prevalence", "accuracy", "auc", "auprc"]),
        "",
        *([f"The default stack against the same stack without the Gaussian copula (`{NO_COPULA}`), paired on "
           "the same seeds, splits and labels: mean over seeds of the per-seed difference in MAE (points, "
           "averaged over the file's models; positive: the copula's stack is worse) and its standard error:", "",
           table(paired, ["file", "seeds", *(f"{k}_{s}" for k in KEYS for s in ("diff", "se"))]), ""]
          if paired else []),
        "Which model is best? Share of seeds where the model a method ranks first by AUROC (by AUPRC) is "
        "the truly best by that metric on the held-out half (`p_best_first_*`; tied firsts count only if all "
        "are truly best), and the mean points the pick gives up against the truly best (`regret_*`):",
        "",
        table(picks, ["file", "method", "seeds", "p_best_first_auc", "regret_auc", "p_best_first_auprc",
                      "regret_auprc"]),
        "",
    ])
    print(text)
    if not (args.quick or args.files or args.no_write or args.variants or args.no_single):
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
