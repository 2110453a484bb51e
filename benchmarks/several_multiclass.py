"""Several multiclass models on shared labels: spe.fit_many on class probabilities.

Three scikit-learn models of the digits (logistic regression, Gaussian naive Bayes, a
random forest; 5-fold cross-validated probabilities on all 1,797 images, so every item
is scored out of sample). Per seed and budget, random items are labeled; the truth is
every item's label. Per model: error and 90% interval coverage of top-1 accuracy and
macro AP from `spe.fit_many` with each label model (the default stack of the log-linear
pool and each model's own label model, the pool alone, each model's own alone), and the
accuracy error of the labeled items alone; whether the truly most accurate model is
ranked first (labeled items alone: ties count as a miss unless all tied are best).

Second part, two classes: the shared fairness files' ten models given as class
probabilities [1 - s, s], under SSME's protocol (a random half is the truth; 20 labeled
+ 1,000 unlabeled from the other half); coverage of 90% intervals of the prevalence and of
each model's accuracy at 0.5, AUROC and AUPRC on the fitted items (AUROC and AUPRC from
the class draws), and error ratios against the 20 labeled items alone (truth: the
held-out half); beside them, on the same seeds, `fit_many` given the same models as one
score each (the binary label model of `spe.many`).

    python -m benchmarks.several_multiclass [--seeds 40] [--binary-seeds 50] [--quick]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

from benchmarks.harness.report import run_stamp, table, write_section  # noqa: E402

import spe  # noqa: E402
from spe.metrics import labeled_sweep, sample_average_precision  # noqa: E402

HERE = Path(__file__).resolve().parent

MARKERS = ("<!-- several-multiclass:start -->", "<!-- several-multiclass:end -->")
LABEL_MODELS = ("stack", "pool", "maps")
#: The two-class part's side-by-side row: the same models given as one score each.
AS_SCORES = "fit_many on the scores (binary stack)"
BUDGETS = (20, 50)
LEVEL = 0.9


def digits_models():
    from sklearn.datasets import load_digits
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    X, y = load_digits(return_X_y=True)
    models = {"logistic regression": LogisticRegression(max_iter=2000), "naive Bayes": GaussianNB(),
              "random forest": RandomForestClassifier(50, random_state=0)}
    return {n: cross_val_predict(m, X, y, cv=5, method="predict_proba") for n, m in models.items()}, y


def macro_ap(p, y) -> float:
    return float(np.mean([sample_average_precision(labeled_sweep(p[:, c], (y == c).astype(float)))[0]
                          for c in range(p.shape[1])]))


def one_seed(job):
    probs, y, budget, seed = job
    rng = np.random.default_rng([budget, seed])
    idx = rng.choice(y.size, budget, replace=False)
    labels = np.full(y.size, -1)
    labels[idx] = y[idx]
    truth = {n: {"accuracy": float(np.mean(p.argmax(1) == y)), "macro AP": macro_ap(p, y)} for n, p in probs.items()}
    best = max(truth, key=lambda n: truth[n]["accuracy"])
    labeled_acc = {n: float(np.mean(p[idx].argmax(1) == y[idx])) for n, p in probs.items()}
    top = max(labeled_acc.values())
    out = {"labeled only": {"picks_best": all(n == best for n, v in labeled_acc.items() if v == top),
                            "models": {n: {"accuracy_err": abs(labeled_acc[n] - truth[n]["accuracy"])} for n in probs}}}
    for kind in LABEL_MODELS:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = spe.fit_many(probs, labels, n_draws=500, seed=seed, label_model=kind)
        rows = {r["model"]: r for r in res.metrics(LEVEL)}
        models = {}
        for n in probs:
            models[n] = {}
            for key in ("accuracy", "macro AP"):
                e = rows[n][key]
                models[n][f"{key}_err"] = abs(e.value - truth[n][key])
                models[n][f"{key}_cov"] = float(e.lower <= truth[n][key] <= e.upper)
        out[kind] = {"picks_best": res.ranking("accuracy")[0]["model"] == best, "models": models,
                     "s": time.perf_counter() - start}
    return budget, out


def one_binary_seed(job):
    """One SSME-protocol split of a fairness file, its models as two-class probabilities."""
    from spe.metrics import _sweeps as SW

    from benchmarks.harness.cases import ssme_split
    from benchmarks.harness.metrics import exact_metrics
    from benchmarks.ssme_shared import file_models

    short, seed = job
    scores, y, names = file_models(short)
    split = ssme_split(short, y, seed)
    if split is None:
        return short, None
    held, chosen = split
    labels = np.full(chosen.size, -1)
    labels[:20] = y[chosen[:20]]
    probs = {n: np.column_stack([1 - scores[chosen, j], scores[chosen, j]]) for j, n in enumerate(names)}
    out = {}
    for kind in LABEL_MODELS + (AS_SCORES,):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == AS_SCORES:  # the same models as one score each, the binary label model
                positive = spe.fit_many({n: p[:, 1] for n, p in probs.items()}, np.where(labels < 0, np.nan, labels),
                                        n_draws=500, seed=seed).label_draws
            else:
                positive = spe.fit_many(probs, labels, n_draws=500, seed=seed, label_model=kind).class_draws == 1
        lo, hi = np.quantile(positive.mean(axis=1), [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
        rows = {"prevalence_cov": float(lo <= y[chosen].mean() <= hi), "models": []}
        for j in range(len(names)):
            s = scores[chosen, j]
            sweep = SW.draws_sweep(s, positive)
            draws = {"accuracy": ((s >= 0.5)[None] == positive).mean(axis=1), "auc": SW.sample_auroc(sweep),
                     "auprc": SW.sample_average_precision(sweep)}
            held_truth, here = exact_metrics(scores[held, j], y[held]), exact_metrics(s, y[chosen])
            labeled = exact_metrics(s[:20], y[chosen[:20]])
            model = {}
            for key, d in draws.items():
                a, b = np.quantile(d, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
                model[key] = (abs(np.median(d) - held_truth[key]), abs(labeled[key] - held_truth[key]),
                              float(a <= here[key] <= b))
            rows["models"].append(model)
        out[kind] = rows
    return short, out


def binary_rows(results):
    rows = []
    for short in dict.fromkeys(s for s, _ in results):
        done = [r for s, r in results if s == short and r is not None]
        for kind in LABEL_MODELS + (AS_SCORES,):
            models = [m for r in done for m in r[kind]["models"]]
            row = {"file": short, "method": kind if kind == AS_SCORES else "fit_many, " + kind, "seeds": len(done),
                   "prevalence_cov": float(np.mean([r[kind]["prevalence_cov"] for r in done]))}
            for key in ("accuracy", "auc", "auprc"):
                row[f"{key}_cov"] = float(np.mean([m[key][2] for m in models]))
                row[f"{key}_ratio"] = float(np.mean([m[key][0] for m in models]) / np.mean([m[key][1] for m in models]))
            rows.append(row)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--binary-seeds", type=int, default=50)
    ap.add_argument("--quick", action="store_true", help="4 seeds, no RESULTS.md")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    seeds = 4 if args.quick else args.seeds
    try:
        probs, y = digits_models()
    except ImportError:
        raise SystemExit("needs scikit-learn (pip install -e .[bench])") from None
    start = time.time()
    from benchmarks.harness.cases import DATA, FILES

    files = [f for f in ("bank", "compas") if (DATA / FILES[f]).exists()]
    binary_seeds = 4 if args.quick else args.binary_seeds
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one_seed, [(probs, y, b, s) for b in BUDGETS for s in range(seeds)]))
        binary = list(pool.map(one_binary_seed, [(f, s) for f in files for s in range(binary_seeds)]))
    rows = []
    for b in BUDGETS:
        done = [r for bb, r in results if bb == b]
        for method in ("labeled only",) + LABEL_MODELS:
            for n in probs:
                got = [r[method]["models"][n] for r in done]
                base = np.mean([r["labeled only"]["models"][n]["accuracy_err"] for r in done])
                row = {"labels": b, "method": "fit_many, " + method if method != "labeled only" else method,
                       "model": n, "accuracy_err": float(np.mean([g["accuracy_err"] for g in got]))}
                row["accuracy_ratio"] = row["accuracy_err"] / base
                for key in ("accuracy_cov", "macro AP_err", "macro AP_cov"):
                    row[key] = float(np.mean([g[key] for g in got])) if key in got[0] else float("nan")
                rows.append(row)
    picks = [{"labels": b, "method": m if m == "labeled only" else "fit_many, " + m,
              "p_best_first": float(np.mean([r[m]["picks_best"] for bb, r in results if bb == b])),
              "s": float(np.median([r[m]["s"] for bb, r in results if bb == b])) if m != "labeled only" else float("nan")}
             for b in BUDGETS for m in ("labeled only",) + LABEL_MODELS]
    accuracies = ", ".join(f"{n} {np.mean(p.argmax(1) == y):.3f}" for n, p in probs.items())
    text = "\n".join([
        "## Several multiclass models on shared labels (`benchmarks/several_multiclass.py`)",
        "",
        run_stamp() + f"; {seeds} seeds per budget, {(time.time() - start) / 60:.1f} min on {args.jobs} processes. "
        + " ".join(__doc__.split("\n\n")[1].split()) + f" Top-1 accuracies: {accuracies}. `accuracy_ratio`: error "
        "over the labeled items' error; `*_cov`: coverage of 90% intervals (labeled only: not computed).",
        "",
        table(rows, ["labels", "method", "model", "accuracy_err", "accuracy_ratio", "accuracy_cov", "macro AP_err",
                     "macro AP_cov"]),
        "",
        "Is the most accurate model ranked first (share of seeds), and seconds per fit:",
        "",
        table(picks, ["labels", "method", "p_best_first", "s"]),
        "",
        "Two classes: the shared fairness files' ten models as class probabilities, SSME's protocol "
        f"({binary_seeds} seeds, seeds with one class among the labels skipped); `*_cov`: coverage of 90% "
        "intervals about the fitted items; `*_ratio`: error over the labeled items' error against the "
        "held-out half:",
        "",
        table(binary_rows(binary), ["file", "method", "seeds", "prevalence_cov", "accuracy_cov", "accuracy_ratio",
                                    "auc_cov", "auc_ratio", "auprc_cov", "auprc_ratio"])
        if binary else "(shared data absent: no two-class part)",
        "",
    ])
    print(text)
    if not args.quick:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
