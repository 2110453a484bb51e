"""Active assessment on digits (10-class logistic regression), Ji et al. Tables 3 and 6 shape.

    python -m benchmarks.active [--runs 50]      # writes benchmarks/ACTIVE.md

Groups are predicted classes; theta_g is accuracy per predicted class. Rows: uniform
prior with random labels (UPrior), score-informed prior (IPrior, Ji et al.), IPrior with
Thompson sampling, and SPE-informed priors: SPE fitted on the top-1 confidence with no
labels, or with 10 random labels that count against the budget ("SPE-10").
"""

from __future__ import annotations

import argparse
import datetime
import sys
import warnings
from pathlib import Path

import numpy as np

import spe
from spe.assessment import class_groups, score_informed_prior, spe_informed_prior, uninformative_prior
from spe.assessment._simulate import run, true_accuracy

HERE = Path(__file__).resolve().parent
BUDGETS = (20, 50, 100, 200)
IDENTIFY_BUDGET = 600


def digits_probs():
    """Cross-validated class probabilities of a 10-class logistic regression on digits, and labels."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=5_000))
    proba = cross_val_predict(model, X, y, cv=StratifiedKFold(5, shuffle=True, random_state=0),
                              method="predict_proba")
    return proba, y


def digits_top1():
    proba, y = digits_probs()
    return proba.argmax(1), proba.max(1), (proba.argmax(1) == y).astype(int)


def _spe_prior(conf, groups, correct, n_labels, seed):
    labels = np.full(conf.size, np.nan)
    if n_labels:
        idx = np.random.default_rng(seed).choice(conf.size, n_labels, replace=False)
        labels[idx] = correct[idx]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit(conf, labels, seed=seed, score_range=(0, 1))
    return spe_informed_prior(res, groups)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args(argv)
    predicted, conf, correct = digits_top1()
    groups, _ = class_groups(predicted)
    k = int(groups.max()) + 1
    truth = true_accuracy(groups, correct)
    ip = score_informed_prior(conf, groups)
    spe0 = _spe_prior(conf, groups, correct, 0, 0)
    methods = {
        "UPrior (random)": lambda r: (uninformative_prior(k), "random", 0),
        "IPrior (random)": lambda r: (ip, "random", 0),
        "IPrior + TS": lambda r: (ip, "ts-estimate", 0),
        "SPE prior, 0 labels (random)": lambda r: (spe0, "random", 0),
        "SPE prior, 0 labels + TS": lambda r: (spe0, "ts-estimate", 0),
        "SPE-10 prior + TS": lambda r: (_spe_prior(conf, groups, correct, 10, r), "ts-estimate", 10),
    }
    rows = []
    for name, make in methods.items():
        rm = {b: [] for b in BUDGETS}
        ident = []
        for r in range(args.runs):
            prior, strategy, spent = make(r)
            res, _ = run(groups, correct, prior, strategy, [b - spent for b in BUDGETS], seed=r)
            for b in BUDGETS:
                rm[b].append(res[b - spent])
            _, at = run(groups, correct, prior, "ts-worst" if strategy != "random" else "random",
                        [IDENTIFY_BUDGET - spent], seed=r)
            ident.append(np.inf if at is None else at + spent)
        rows.append((name, {b: np.mean(v) for b, v in rm.items()}, np.median(ident), np.mean(np.isfinite(ident))))
        print(f"{name:30s} " + " ".join(f"{b}:{rows[-1][1][b]:.4f}" for b in BUDGETS), file=sys.stderr)
    lines = [
        "# Active assessment: digits, 10-class logistic regression, accuracy per predicted class",
        "",
        f"Run {datetime.date.today().isoformat()}, {args.runs} runs per row, `python -m benchmarks.active --runs {args.runs}`. "
        f"True overall accuracy {correct.mean():.3f}; per-class accuracy {np.round(truth, 3).tolist()}.",
        "",
        "Mean RMSE of per-class accuracy, sqrt(sum_g p_g (theta_hat_g - theta_g)^2), after N labels "
        "(SPE-10 rows include their 10 labels in N). Last columns: median labels until the lowest "
        f"posterior-mean class is the truly least accurate one for good (within {IDENTIFY_BUDGET}; "
        "TS rows identify with `ts-worst`), and the fraction of runs that got there.",
        "",
        "| method | " + " | ".join(f"N={b}" for b in BUDGETS) + " | labels to identify worst | identified |",
        "|---|" + "---|" * (len(BUDGETS) + 2),
    ]
    for name, rm, ident, frac in rows:
        lines.append(f"| {name} | " + " | ".join(f"{rm[b]:.4f}" for b in BUDGETS) + f" | {ident:.0f} | {frac:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    (HERE / "ACTIVE.md").write_text(text)


if __name__ == "__main__":
    main()
