"""Active assessment on digits (10-class logistic regression), Ji et al. Tables 3 and 6 shape,
with the binary top-1 route of the SPE-informed prior.

    python -m benchmarks.active [--runs 50] [--quick]     # writes benchmarks/ACTIVE.md

Groups are predicted classes; theta_g is accuracy per predicted class. Rows: uniform
prior with random labels (UPrior), score-informed prior (IPrior, Ji et al.), IPrior with
Thompson sampling, and SPE-informed priors by the *binary top-1 route*: :func:`spe.fit` on
the top-1 confidence (score) and "the prediction is correct" (label), with no labels or
with 10 random labels that count against the budget ("SPE-10"), turned into a Beta per
class by :func:`~spe.assessment.spe_informed_prior` (strength capped at 10). The
multiclass route (:func:`spe.fit_multiclass`) is in ``ACTIVE_REAL.md`` and RESULTS.md.

Identification: the two least accurate classes of digits differ by 0.006 (not identifiable
in Ji et al.'s sense, RESULTS.md Table 6), so the table scores the **three** least
accurate (the 3rd and 4th differ by 0.053): the mean reciprocal rank of the true three in
the posterior-mean order (Ji et al.'s MRR; 1 = the estimated three are the true three)
after 200 and 600 labels, and the labels after which the estimated three are the true
three for good (median over runs; within the whole file, so every run gets there).
Identification rows label by multiple-play TS (``ts-worst``, three groups per step) where
the estimation rows use ``ts-estimate``; random rows label at random.
"""

from __future__ import annotations

import argparse
import datetime
import time
import warnings
from pathlib import Path

import numpy as np

import spe
from benchmarks.assessment_replay import beta_replay
from benchmarks.harness.report import git_commit
from spe.assessment import class_groups, mrr, score_informed_prior, spe_informed_prior, uninformative_prior

HERE = Path(__file__).resolve().parent
BUDGETS = (20, 50, 100, 200)
TOP_M = 3
MRR_BUDGETS = (200, 600)


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
    """The binary top-1 SPE prior and the items whose labels it holds."""
    labels = np.full(conf.size, np.nan)
    idx = np.random.default_rng(seed).choice(conf.size, n_labels, replace=False) if n_labels else np.array([], int)
    labels[idx] = correct[idx]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit(conf, labels, seed=seed, score_range=(0, 1), progress=False)
    return spe_informed_prior(res, groups), idx


def estimation(groups, correct, truth, prior, strategy, held, rng):
    """RMSE of the posterior-mean accuracy per class after each budget (held labels count)."""
    share = np.bincount(groups) / groups.size
    got = {}

    def check(n, a, b):
        if n + len(held) in BUDGETS:
            got[n + len(held)] = float(np.sqrt(share @ (a / (a + b) - truth) ** 2))
    beta_replay(groups, correct, prior, strategy, max(BUDGETS) - len(held), rng, exclude=held, check=check)
    return got


def identification(groups, correct, truth, prior, strategy, held, rng):
    """MRR of the TOP_M least accurate classes at MRR_BUDGETS, and the labels from which on it is 1."""
    curve = np.zeros(groups.size + 1)

    def check(n, a, b):
        curve[n + len(held)] = mrr(a / (a + b), truth, TOP_M)
    plays = 1 if strategy == "random" else TOP_M
    last = len(held) + beta_replay(groups, correct, prior, "random" if strategy == "random" else "ts-worst",
                                   groups.size - len(held), rng, plays=plays, exclude=held, check=check)
    wrong = np.flatnonzero(curve[len(held) + 1:last + 1] < 1.0)
    at = len(held) + 1 + (wrong[-1] + 1 if wrong.size else 0)
    return {b: curve[b] for b in MRR_BUDGETS}, (at if at <= last else np.inf)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--quick", action="store_true", help="5 runs, prints only")
    args = ap.parse_args(argv)
    runs = 5 if args.quick else args.runs
    start = time.time()
    predicted, conf, correct = digits_top1()
    groups, _ = class_groups(predicted)
    k = int(groups.max()) + 1
    truth = np.bincount(groups, weights=correct) / np.bincount(groups)
    ip = score_informed_prior(conf, groups)
    spe0 = _spe_prior(conf, groups, correct, 0, 0)
    methods = {
        "UPrior (random)": lambda r: ((uninformative_prior(k), ()), "random"),
        "IPrior (random)": lambda r: ((ip, ()), "random"),
        "IPrior + TS": lambda r: ((ip, ()), "ts-estimate"),
        "SPE prior, 0 labels (random)": lambda r: (spe0, "random"),
        "SPE prior, 0 labels + TS": lambda r: (spe0, "ts-estimate"),
        "SPE-10 prior + TS": lambda r: (_spe_prior(conf, groups, correct, 10, r), "ts-estimate"),
    }
    rows = []
    for name, make in methods.items():
        rm, ranks, ident = {b: [] for b in BUDGETS}, {b: [] for b in MRR_BUDGETS}, []
        for r in range(runs):
            (prior, held), strategy = make(r)
            got = estimation(groups, correct, truth, prior, strategy, held, np.random.default_rng(r))
            at_budget, at = identification(groups, correct, truth, prior, strategy, held,
                                           np.random.default_rng(10_000 + r))
            for b in BUDGETS:
                rm[b].append(got[b])
            for b in MRR_BUDGETS:
                ranks[b].append(at_budget[b])
            ident.append(at)
        rows.append((name, {b: 100 * np.mean(v) for b, v in rm.items()}, {b: np.mean(v) for b, v in ranks.items()},
                     np.median(ident), np.mean(np.isfinite(ident))))
    order = np.sort(truth)
    lines = [
        "# Active assessment: digits, 10-class logistic regression, accuracy per predicted class",
        "",
        f"Run {datetime.date.today().isoformat()}, commit {git_commit()}, `python -m benchmarks.active --runs {runs}` "
        f"({(time.time() - start) / 60:.1f} min, 1 process), {runs} runs per row. {len(groups)} items; true overall "
        f"accuracy {correct.mean():.3f}; per-class accuracy {np.round(truth, 3).tolist()}. "
        + " ".join(__doc__.split("\n\n")[2].split()),
        "",
        " ".join(__doc__.split("\n\n")[3].split()) + f" Here: least accurate {order[0]:.3f}, {order[1]:.3f}, "
        f"{order[2]:.3f}, then {order[3]:.3f}.",
        "",
        ("Columns: `N=...`: mean RMSE (points) of per-class accuracy, sqrt(sum_g p_g (theta_hat_g - theta_g)^2), "
        "after N labels (SPE-10 rows include their 10 labels in N); `MRR@N`: mean MRR of the three least "
        "accurate classes after N labels; `labels to identify`: median labels from which on the estimated three "
        "are the true three; `identified`: share of runs that got there before the file ran out."),
        "",
        "| method | " + " | ".join(f"N={b}" for b in BUDGETS) + " | " + " | ".join(f"MRR@{b}" for b in MRR_BUDGETS)
        + " | labels to identify | identified |",
        "|---|" + "---|" * (len(BUDGETS) + len(MRR_BUDGETS) + 2),
    ]
    for name, rm, ranks, ident, frac in rows:
        lines.append(f"| {name} | " + " | ".join(f"{rm[b]:.2f}" for b in BUDGETS) + " | "
                     + " | ".join(f"{ranks[b]:.3f}" for b in MRR_BUDGETS) + f" | {ident:.0f} | {frac:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.quick:
        (HERE / "ACTIVE.md").write_text(text)


if __name__ == "__main__":
    main()
