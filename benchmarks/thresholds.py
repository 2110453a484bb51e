"""Does a threshold keep its promise? A reliability diagram of ``choose_threshold``.

    python -m benchmarks.thresholds --quick     # 3 cases, 3 seeds: a smoke run (~1 minute)
    python -m benchmarks.thresholds             # every case, 20 seeds (~25 minutes, 2 processes)
    python -m benchmarks.thresholds --report    # rebuild RESULTS.md, the figure and the doc blocks

``res.choose_threshold(min_precision=p, confidence=c)`` promises a threshold whose
precision on these items is >= p with probability >= c. Over real score sets (the shared
files' top-1 and one-vs-rest views, the digits classifiers; N = 2,000 each) and generated
scores (drawn afresh for every seed), with 10, 20 and 50 random labels, this counts how
often the truth (all labels) meets the constraint at the chosen threshold, for stated
probabilities 0.5, 0.8, 0.9 and 0.95 and constraints on precision (target: the true
precision at recall 0.5, minus 0.05), recall (0.8) and both (that precision and recall 0.4).

Where it breaks, measured on the same fits: the posterior probability that the
constraints hold at thresholds fixed before any label is seen (inside the curve and in
its tail, where the choices land); the same choice made on an event that is monotone in
the threshold (the constraints hold at every threshold from the most probable one down to
it), on the population kind, and per score model (the least probability any model with
weight >= 0.1 gives); and the probability of the chosen threshold recomputed by an
independent fit (other draws, same labels), which measures selection on Monte Carlo noise.

Beside it, at the same labels: MAPIE's Learn-then-Test controller and scikit-learn's
TunedThresholdClassifierCV (with a scorer that is the recall when the precision target
holds, else 0) on the labeled items, at 10-50 labels and at 200 (where LTT can answer);
and the recalibration error (ECE, 10 bins, unlabeled items) of ``prob_positive()``
against the raw probabilities and Platt scaling fitted to the labels (Platt 1999: his
smoothed targets, no penalty; and the L2-penalised logistic regression of scikit-learn).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import spe  # noqa: E402
from spe.metrics import _thresholds as R  # noqa: E402
from spe.scores import looks_like_probabilities  # noqa: E402

from benchmarks.harness.cases import all_cases  # noqa: E402
from benchmarks.harness.metrics import ece  # noqa: E402
from benchmarks.harness.report import run_stamp  # noqa: E402
from benchmarks.thresholds_diagnosis import (EXACT_REPEATS, exact_posterior_trial, least_model_choice,  # noqa: E402
                                              monotone_choice, objective)
from benchmarks.thresholds_peers import logistic_on_labels, ltt_threshold, platt_1999, tuned_threshold  # noqa: E402
from benchmarks.thresholds_report import report, write_all  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

LEVELS = (0.5, 0.8, 0.9, 0.95)
BUDGETS = (10, 20, 50)
#: A budget where Learn-then-Test can answer (it never does at 10-50 labels).
PEER_BUDGET = 200
RECALL_TARGET = 0.8
BOTH_RECALL = 0.4
PEER_LEVEL = 0.9
#: Seeds below this also get an independent refit (other draws, same labels).
REFIT_SEEDS = 5
RESULTS = HERE / "results" / "thresholds.json"
GENERATED = ("generated mixture", "generated calibrated", "generated over-confident")
QUICK_CASES = ("imdb ovr", "bank ovr", "generated mixture")
#: The package's rule on exact label draws (thresholds_diagnosis.exact_posterior_trial).
EXACT = "exact posterior"
#: Thresholds fixed before any label is seen (the truth's recall there): inside the curve
#: and in its tail, where choices under the precision target land.
FIXED_RECALLS = (0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95)
TAIL_RECALL = 0.8


# ---- cases ---------------------------------------------------------------------------
def generated_case(name, seed, n=2000) -> tuple[np.ndarray, np.ndarray, dict]:
    """(scores, labels, fit options) drawn afresh per seed from a known label model.

    ``mixture``: the mixture's own family pair on its unit frame, fitted on that frame
    (the mixture is then correctly specified); ``calibrated``: probabilities whose labels
    follow them; ``over-confident``: probabilities twice as confident as the truth.
    """
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    if name == "generated mixture":
        from spe.mixture import MixtureModel, get_component

        model = MixtureModel(get_component("gamma"), get_component("truncnorm"))
        z, y = model.simulate(np.array([0.3, 2.0, 0.1, 0.7, 0.12]), 2 * n, rng)
        inside = z < 1.0  # the Gamma restricted to the frame, as the family sees it
        return z[inside][:n], y[inside][:n].astype(float), {"score_range": (0.0, 1.0), "probabilities": False}
    p = rng.beta(0.6, 1.4, n)
    temperature = {"generated calibrated": 1.0, "generated over-confident": 2.0}[name]
    truth = 1 / (1 + np.exp(-np.log(p / (1 - p)) / temperature))
    return p, (rng.random(n) < truth).astype(float), {}


def case_names(quick=False) -> list[str]:
    return list(QUICK_CASES) if quick else list(real_cases()) + list(GENERATED)


@functools.lru_cache(maxsize=1)
def real_cases() -> dict:
    """The real cases, read once per process."""
    return {k: v for k, v in all_cases().items() if not k.endswith("full")}


@functools.lru_cache(maxsize=None)
def population(name, draws=40):
    """A generated case's population, from ``draws`` fresh data sets (seeds no trial uses):
    (precision target, {recall: threshold}) fixed before any trial, so that neither the
    target nor the fixed thresholds depend on the labels a trial is judged against (chosen
    from the realised labels they select on the outcome)."""
    big = [generated_case(name, 1_000_000 + k) for k in range(draws)]
    s, y = np.concatenate([b[0] for b in big]), np.concatenate([b[1] for b in big])
    return truth_targets(s, y)["precision"]["min_precision"], recall_thresholds(s, y)


def recall_thresholds(s, y) -> dict:
    """{recall r: the score of the positive at which the recall reaches r}."""
    order = np.sort(s[y == 1])[::-1]
    return {r: float(order[min(int(r * order.size), order.size - 1)]) for r in FIXED_RECALLS}


def case_data(name, seed):
    if name in GENERATED:
        return generated_case(name, seed)
    s, y = real_cases()[name]
    return s, y, {}


# ---- truth ---------------------------------------------------------------------------
def true_rates(s, y, t):
    sel = s >= t
    tp = y[sel].sum()
    precision = tp / sel.sum() if sel.any() else 0.0
    return precision, tp / y.sum()


def truth_targets(s, y) -> dict:
    """{kind: constraints} from the truth: precision at recall 0.5 minus 0.05, etc."""
    order = np.argsort(-s, kind="stable")
    tp = np.cumsum(y[order])
    k = int(np.searchsorted(tp, 0.5 * y.sum()))
    p_target = round(float(tp[k] / (k + 1)) - 0.05, 4)
    return {"precision": {"min_precision": p_target}, "recall": {"min_recall": RECALL_TARGET},
            "both": {"min_precision": p_target, "min_recall": BOTH_RECALL}}


def meets(s, y, t, constraints) -> bool:
    p, r = true_rates(s, y, t)
    return bool(p >= constraints.get("min_precision", 0.0) and r >= constraints.get("min_recall", 0.0))


def oracle(s, y, constraints):
    """The best a threshold can do on the truth (None when infeasible)."""
    best = None
    for t in np.unique(s):
        if meets(s, y, t, constraints):
            value = true_rates(s, y, t)[0 if objective(constraints) == "precision" else 1]
            best = value if best is None else max(best, value)
    return best


def kept(s, y, t, constraints, best):
    if t is None or not best:
        return None
    return true_rates(s, y, t)[0 if objective(constraints) == "precision" else 1] / best


def targets(s, y, name=None) -> dict:
    """The constraints a trial asks for: from the truth of a real case (fixed across seeds),
    from the population of a generated one (its labels are drawn afresh per seed)."""
    out = truth_targets(s, y)
    if name in GENERATED:
        p = population(name)[0]
        out["precision"]["min_precision"] = out["both"]["min_precision"] = round(float(p), 4)
    return out


# ---- one trial -------------------------------------------------------------------------
def _row(name, budget, seed, kind, level, method, s, y, t, constraints, best, stated=None, region=None):
    return {"case": name, "labels": budget, "seed": seed, "kind": kind, "level": level, "method": method,
            "feasible_truth": best is not None, "feasible": t is not None,
            "met": meets(s, y, t, constraints) if t is not None else None,
            "kept": kept(s, y, t, constraints, best), "stated": stated, "region": region}


def labelled(s, y, name, budget, seed):
    rng = np.random.default_rng([seed, budget, sum(map(ord, name))])
    idx = rng.choice(s.size, budget, replace=False)
    labels = np.full(s.size, np.nan)
    labels[idx] = y[idx]
    return idx, labels


#: Other label models on the generated cases (cheap there): is the shortfall the pool's?
VARIANT_MODELS = {"spline only": "spline", "+calibrated": ["mixture", "spline", "calibrated"]}


def trial(job):
    name, budget, seed = job
    if name == EXACT:
        return exact_rows(budget, seed), None
    s, y, options = case_data(name, seed)
    idx, labels = labelled(s, y, name, budget, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = spe.fit(s, labels, seed=seed, progress=False, **options)
        except ValueError as e:  # e.g. labels that say lower scores are positive: no answer
            return [{"case": name, "labels": budget, "seed": seed, "method": "refused", "error": str(e)[:120]}], None
        if budget == PEER_BUDGET:
            return peer_rows(res, name, s, y, idx, budget, seed), None
        rows = []
        refit = spe.fit(s, labels, seed=10_000 + seed, progress=False, **options) if seed < REFIT_SEEDS else None
        # the rates at every default threshold, once per kind (choose_threshold rebuilds them per call)
        rates = {kind: res._rates(None, kind) for kind in ("sample", "population")}
        for kind, constraints in targets(s, y, name).items():
            rows += choice_rows(res, rates, refit, name, s, y, idx, (budget, seed), kind, constraints)
            rows += fixed_rows(res, name, s, y, budget, seed, kind, constraints)
        if name in GENERATED:
            rows += variant_rows(s, y, labels, options, name, budget, seed)
        if looks_like_probabilities(s):
            unlabeled = np.isnan(labels)
            return rows, {"case": name, "labels": budget, "seed": seed,
                          "ece_spe": ece(res.prob_positive()[unlabeled], y[unlabeled]),
                          "ece_raw": ece(s[unlabeled], y[unlabeled]),
                          "ece_platt": ece(platt_1999(s, idx, y)[unlabeled], y[unlabeled]),
                          "ece_logreg": ece(logistic_on_labels(s, idx, y)[unlabeled], y[unlabeled])}
    return rows, None


def variant_rows(s, y, labels, options, name, budget, seed):
    """The package's rule on other label models' posteriors (same labels and seed)."""
    rows = []
    for method, model in VARIANT_MODELS.items():
        try:
            res = spe.fit(s, labels, seed=seed, progress=False, model=model, **options)
        except ValueError:
            continue
        rates = res._rates(None, "sample")
        for kind, constraints in targets(s, y, name).items():
            best = oracle(s, y, constraints)
            for level in LEVELS:
                d = R.choose(rates, res.weights, constraints, level, "sample")
                rows.append(_row(name, budget, seed, kind, level, method, s, y, d.threshold if d.feasible else None,
                                 constraints, best, d.probability))
    return rows


def exact_rows(budget, seed):
    """The rule on exact label draws (see thresholds_diagnosis): calibrated generated scores,
    whose P(y = 1 | score) is the score itself; a data set of its own per trial."""
    name = "generated calibrated"
    rows = []
    for rep in range(EXACT_REPEATS):
        q, y, _ = generated_case(name, 100_000 * (rep + 1) + 1_000 * budget + seed)
        idx, _ = labelled(q, y, name, budget, 100 * seed + rep)
        rng = np.random.default_rng([seed, budget, rep, 7])
        for kind, constraints in targets(q, y, name).items():
            best = oracle(q, y, constraints)
            for level, (p, t, fresh) in exact_posterior_trial(q, y, idx, constraints, LEVELS, rng).items():
                rows.append(_row(EXACT, budget, seed, kind, level, "exact", q, y, t, constraints, best, p)
                            | {"fresh": fresh})
    return rows


def choice_rows(res, all_rates, refit, name, s, y, idx, trial_id, kind, constraints):
    """The package's choice (what ``res.choose_threshold`` returns, from rates built once),
    its independent refit, and the diagnostic variants, at every stated level."""
    budget, seed = trial_id
    best = oracle(s, y, constraints)
    rates = all_rates["sample"]
    out = []
    for level in LEVELS:
        d = R.choose(rates, res.weights, constraints, level, "sample")
        t = d.threshold if d.feasible else None
        out.append(_row(name, budget, seed, kind, level, "spe", s, y, t, constraints, best, d.probability))
        if refit is not None and t is not None:
            _, again = refit.condition_probability([t], **constraints)
            out.append(_row(name, budget, seed, kind, level, "refit", s, y, t, constraints, best, float(again[0])))
        pop = R.choose(all_rates["population"], res.weights, constraints, level, "population")
        out.append(_row(name, budget, seed, kind, level, "population", s, y, pop.threshold if pop.feasible else None,
                        constraints, best))
        out.append(_row(name, budget, seed, kind, level, "monotone", s, y,
                        monotone_choice(rates, res.weights, constraints, level), constraints, best))
        out.append(_row(name, budget, seed, kind, level, "least model", s, y,
                        least_model_choice(res, rates, constraints, level), constraints, best))
    if kind == "precision":
        out += [_row(name, budget, seed, kind, PEER_LEVEL, m, s, y, t, constraints, best)
                for m, t in peers(s, y, idx, constraints, seed)]
    return out


def peers(s, y, idx, constraints, seed):
    return (("ltt", ltt_threshold(s, y, idx, constraints, PEER_LEVEL)),
            ("tuned", tuned_threshold(s, y, idx, constraints, seed)))


def peer_rows(res, name, s, y, idx, budget, seed):
    constraints = targets(s, y, name)["precision"]
    best = oracle(s, y, constraints)
    d = res.choose_threshold(confidence=PEER_LEVEL, **constraints)
    rows = [_row(name, budget, seed, "precision", PEER_LEVEL, "spe", s, y, d.threshold if d.feasible else None,
                 constraints, best, d.probability)]
    return rows + [_row(name, budget, seed, "precision", PEER_LEVEL, m, s, y, t, constraints, best)
                   for m, t in peers(s, y, idx, constraints, seed)]


def fixed_rows(res, name, s, y, budget, seed, kind, constraints):
    """Posterior P(constraints) at thresholds fixed before the labels, against the truth:
    at the truth's recalls for a real case (its labels are fixed), at the population's
    recalls for a generated one."""
    at = population(name)[1] if name in GENERATED else recall_thresholds(s, y)
    fixed = np.array([at[r] for r in FIXED_RECALLS])
    _, prob = res.condition_probability(fixed, **constraints)
    return [{"case": name, "labels": budget, "seed": seed, "kind": kind, "level": None, "method": "fixed",
             "feasible_truth": True, "feasible": True, "met": meets(s, y, t, constraints), "kept": None,
             "stated": float(q), "region": "tail" if r >= TAIL_RECALL else "inside"}
            for r, t, q in zip(FIXED_RECALLS, fixed, prob)]


# ---- driver ----------------------------------------------------------------------------
def jobs(quick=False, seeds=20):
    names = case_names(quick)
    main = [(n, b, seed) for n in names + [EXACT] for b in BUDGETS for seed in range(seeds)]
    return main + ([] if quick else [(n, PEER_BUDGET, seed) for n in names for seed in range(seeds)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 cases, 3 seeds, no files written")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--report", action="store_true", help="rebuild RESULTS.md, figure and doc blocks from stored results")
    ap.add_argument("--exact", action="store_true", help="recompute only the exact-posterior rows of the stored results")
    args = ap.parse_args(argv)
    if args.report:
        write_all(json.loads(RESULTS.read_text()))
        return 0
    if args.exact:
        stored = json.loads(RESULTS.read_text())
        todo = [(EXACT, b, seed) for b in BUDGETS for seed in range(stored["seeds"])]
        with ProcessPoolExecutor(args.workers) as pool:
            fresh = [row for rows, _ in pool.map(trial, todo) for row in rows]
        stored["rows"] = [r for r in stored["rows"] if r["method"] != "exact"] + fresh
        stored["exact_stamp"] = run_stamp()
        RESULTS.write_text(json.dumps(stored, default=float))
        write_all(stored)
        return 0
    todo = jobs(args.quick, 3 if args.quick else args.seeds)
    start = time.time()
    rows, calibs, refused = [], [], []
    with ProcessPoolExecutor(args.workers) as pool:
        for i, (r, c) in enumerate(pool.map(trial, todo, chunksize=2)):
            rows += [x for x in r if x["method"] != "refused"]
            refused += [x for x in r if x["method"] == "refused"]
            calibs += [c] if c else []
            if (i + 1) % 20 == 0:
                print(f"  {i + 1}/{len(todo)} trials, {time.time() - start:.0f} s", file=sys.stderr)
    stored = {"stamp": run_stamp(), "seeds": 3 if args.quick else args.seeds, "minutes": (time.time() - start) / 60,
              "workers": args.workers, "rows": rows, "calibration": calibs,
              "refused": refused}
    print(report(stored))
    if not args.quick:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(stored, default=float))
        write_all(stored)
    return 0


if __name__ == "__main__":
    sys.exit(main())
