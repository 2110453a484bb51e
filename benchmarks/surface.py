"""Accuracy surfaces over attribute combinations: the AAA paper's ladder beside spe's default.

    python -m benchmarks.surface --quick     # smoke run (~1 minute), prints, writes nothing
    python -m benchmarks.surface             # estimation, exploration, speed (20 seeds); writes
                                             # results/surface.json, its RESULTS.md section and
                                             # the Evidence block of docs/user_guide/surface.md
    python -m benchmarks.surface --report    # rebuild both from results/surface.json

Cases: the shared COMPAS files with all six attributes (correct = (score >= 0.5) == label,
confidence = max(s, 1 - s); truth = the realised accuracy over all items of each arm with
>= 5 items) and generated surfaces (``spe.surface.simulate``; a fresh surface per seed) of
~10^3 and ~10^4 arms, plus the ~10^3 design with a confidence that carries no information.

Methods: the ladder (``spe.aaa.LADDER``: CPredictor, Beta-I, BernGP, BetaGP,
BetaGP-SL, BetaGP-SLP), confidence-only (no label) and spe's default
(``spe.accuracy_surface``, skipped while absent). The ladder estimates each arm's
population accuracy (the paper's estimand); the truth is the accuracy over the arm's own
items, so the main tables score every ladder method in its *realised* form
(``ladder.realised``: labeled items as observed, the rest Bernoulli(rho_a)), like spe's
default; the paper's own form (E[rho_a] and its interval) is scored too (``paper_*``).

Measured: macro MSE over evaluated arms, MSE of the worst tenth of arms (by true
accuracy), 90% interval coverage per arm, at 100, 300 and 1,000 random labels; the floor
sum p_i (1 - p_i) / n^2 (true p on generated data; on real files p from a logistic
regression of correctness on the confidence's logit and the six attributes' main effects,
fitted to all labels) and the same floor for an oracle that also knows the labeled items;
exploration (100 random labels, then 8 batches of 50 by each method's own policy or at
random); fit + per-arm table time and peak memory at 10^4 items / 10^3 arms and 10^6
items / 10^4 arms.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from functools import lru_cache  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import optimize, special  # noqa: E402

import spe  # noqa: E402
from spe.surface import encode_arms  # noqa: E402
from spe.aaa import suggest_items  # noqa: E402
from spe.aaa import LADDER, confidence_only, realised  # noqa: E402
from spe.surface import simulate_surface  # noqa: E402

from benchmarks.harness.cases import DATA  # noqa: E402
from benchmarks.harness.report import run_stamp, with_block, write_section  # noqa: E402
from benchmarks.surface_report import extra_load, extra_store, report  # noqa: E402

HERE = Path(__file__).resolve().parent

LEVEL = 0.9
BUDGETS = (100, 300, 1000)
MIN_ITEMS = 5
WORST_SHARE = 0.1
REAL = {"compas": "compas_recidivism_attributes.npz", "compas-violent": "compas_violent_recidivism_attributes.npz"}
GENERATED = {
    "gen-1k": dict(n_items=20_000, n_levels=(2, 3, 3, 4, 4, 5)),
    "gen-10k": dict(n_items=200_000, n_levels=(2, 3, 3, 4, 5, 6, 6)),
    "gen-1k-blind": dict(n_items=20_000, n_levels=(2, 3, 3, 4, 4, 5), informative=False),
}
#: In the blind case only methods that read the confidence differ from gen-1k (same surfaces, labels).
CONFIDENCE_METHODS = ("confidence-only", "spe")
EXPLORE = dict(start=100, batch=50, batches=8)
EXPLORE_CASES = ("compas", "compas-violent", "gen-1k", "gen-10k")
SPEED = {"10^4 items / 10^3 arms": dict(n_items=10_000, n_levels=(2, 3, 3, 4, 4, 5)),
         "10^6 items / 10^4 arms": dict(n_items=1_000_000, n_levels=(2, 3, 3, 4, 5, 6, 6))}
SPEED_LABELS = 1000
MARKERS = ("<!-- surface-benchmark:start -->", "<!-- surface-benchmark:end -->")
DOC_MARKERS = ("<!-- surface-evidence:start -->", "<!-- surface-evidence:end -->")
DOCS_PAGE = HERE.parent / "docs" / "user_guide" / "surface.md"
RESULTS = HERE / "results" / "surface.json"


# ---- cases ----------------------------------------------------------------------------
@dataclass
class Case:
    name: str
    attributes: dict
    correct: np.ndarray
    confidence: np.ndarray
    p: np.ndarray  # per-item P(correct) for the floor: true (generated) or a fitted model (real)
    item_arm: np.ndarray
    codes: np.ndarray
    n_levels: np.ndarray
    size: np.ndarray
    truth: np.ndarray
    evaluated: np.ndarray  # arms with >= MIN_ITEMS items
    worst: np.ndarray  # the evaluated arms in the lowest tenth of true accuracy

    @property
    def n_items(self) -> int:
        return self.correct.size


def _case(name, attributes, correct, confidence, p) -> Case:
    arms = encode_arms(attributes)
    m = arms.n_arms
    size = np.bincount(arms.item_arm, minlength=m).astype(float)
    truth = np.bincount(arms.item_arm, correct, m) / size
    evaluated = size >= MIN_ITEMS
    idx = np.flatnonzero(evaluated)
    low = idx[np.argsort(truth[idx], kind="stable")[: max(1, int(np.ceil(WORST_SHARE * idx.size)))]]
    worst = np.zeros(m, dtype=bool)
    worst[low] = True
    return Case(name, attributes, correct, confidence, p, arms.item_arm, arms.codes,
                np.array([len(lv) for lv in arms.levels]), size, truth, evaluated, worst)


@lru_cache(maxsize=4)
def load_case(name: str, seed: int = 0) -> Case:
    """A case; generated ones draw a fresh surface per seed, real ones ignore the seed."""
    if name in GENERATED:
        sim = simulate_surface(**GENERATED[name], seed=10_000 + seed)
        return _case(name, sim.attributes, sim.correct, sim.confidence, sim.p)
    d = np.load(DATA / REAL[name], allow_pickle=False)
    s = d["scores"].astype(float)
    correct = ((s >= 0.5) == d["labels"]).astype(float)
    confidence = np.maximum(s, 1 - s)
    attributes = {str(n): d["attributes"][:, j] for j, n in enumerate(d["attribute_names"])}
    return _case(name, attributes, correct, confidence, floor_model(attributes, correct, confidence))


def floor_model(attributes, correct, confidence) -> np.ndarray:
    """P(correct) per item from a logistic regression on logit(confidence) + attribute main
    effects, fitted to all labels (ridge 1e-2): the real files' stand-in for the true p."""
    x = [special.logit(np.clip(confidence, 1e-6, 1 - 1e-6))]
    for values in attributes.values():
        levels = np.unique(values)
        x += [(values == lv).astype(float) for lv in levels[1:]]
    X = np.column_stack([np.ones(correct.size)] + x)

    def loss(beta):
        eta = X @ beta
        value = -np.sum(correct * special.log_expit(eta) + (1 - correct) * special.log_expit(-eta))
        grad = X.T @ (special.expit(eta) - correct)
        return value + 0.5e-2 * beta[1:] @ beta[1:], grad + 1e-2 * np.r_[0.0, beta[1:]]

    beta = optimize.minimize(loss, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B").x
    return special.expit(X @ beta)


def floors(case: Case, labeled: np.ndarray) -> tuple[float, float]:
    """Macro floor over evaluated arms: sum p(1-p)/n^2, and with the labeled items known."""
    var = case.p * (1 - case.p)
    m = case.size.size
    full = np.bincount(case.item_arm, var, m) / case.size ** 2
    given = np.bincount(case.item_arm, var * ~labeled, m) / case.size ** 2
    return float(full[case.evaluated].mean()), float(given[case.evaluated].mean())


# ---- methods ----------------------------------------------------------------------------
@dataclass
class Fitted:
    mean: np.ndarray  # realised form, per arm
    lower: np.ndarray
    upper: np.ndarray
    suggest: object = None  # k, seed -> item indices (None: no policy)
    paper: tuple | None = None  # (mean, lower, upper) of the population estimate


def arm_counts(case: Case, labeled: np.ndarray):
    m = case.size.size
    n_labeled = np.bincount(case.item_arm[labeled], minlength=m).astype(float)
    n_correct = np.bincount(case.item_arm[labeled], case.correct[labeled], m)
    return n_labeled, n_correct


def ladder_method(fit):
    def run(case: Case, labeled: np.ndarray, seed: int) -> Fitted:
        n_labeled, n_correct = arm_counts(case, labeled)
        est = fit(case.codes, case.n_levels, n_labeled, n_correct, seed=seed)
        real = realised(est, case.size, n_labeled, n_correct, seed=seed)

        def suggest(k, s):
            return suggest_items(est, case.item_arm, labeled, k, s)

        return Fitted(real.mean, *real.interval(LEVEL), suggest, (est.mean, *est.interval(LEVEL)))

    return run


def confidence_method(case: Case, labeled: np.ndarray, seed: int) -> Fitted:
    est = confidence_only(case.item_arm, case.confidence, case.size.size, seed=seed)
    return Fitted(est.mean, *est.interval(LEVEL))


def spe_method(case: Case, labeled: np.ndarray, seed: int) -> Fitted:
    """spe's default through its public entry (the issue's API: to_frame, suggest_labels)."""
    correct = np.where(labeled, case.correct, np.nan)
    surf = spe.accuracy_surface(case.attributes, correct, case.confidence, seed=seed)
    frame = surf.to_frame(level=LEVEL)
    names = list(case.attributes)
    arms = encode_arms(case.attributes)
    index = {tuple(str(v) for v in row): a for a, row in enumerate(zip(*arms.values().values()))}
    keys = zip(*(frame[n].to_numpy() for n in names))
    rows = np.array([index[tuple(str(v) for v in key)] for key in keys])
    out = [np.full(arms.n_arms, np.nan) for _ in range(3)]
    for arr, col in zip(out, ("estimate", "lower", "upper")):
        arr[rows] = frame[col].to_numpy(dtype=float)
    return Fitted(*out, lambda k, s: np.asarray(surf.suggest_labels(k)))


def methods() -> dict:
    out = {name: ladder_method(fit) for name, fit in LADDER.items()}
    out["confidence-only"] = confidence_method
    if hasattr(spe, "accuracy_surface"):
        out["spe"] = spe_method
    return out


# ---- scoring ----------------------------------------------------------------------------
def score(case: Case, mean, lower, upper) -> dict:
    ev, worst, t = case.evaluated, case.worst, case.truth
    err = (mean - t) ** 2
    hit = (lower <= t + 1e-12) & (t <= upper + 1e-12)
    return {"mse": float(err[ev].mean()), "worst": float(err[worst].mean()), "cov": float(hit[ev].mean()),
            "width": float((upper - lower)[ev].mean())}


def estimation_job(job) -> list:
    name, budget, seed, wanted = job
    case = load_case(name, seed)
    perm = np.random.default_rng([seed, 7]).permutation(case.n_items)
    labeled = np.zeros(case.n_items, dtype=bool)
    labeled[perm[:budget]] = True
    floor, floor_given = floors(case, labeled)
    rows = []
    for method, run in methods().items():
        if method not in wanted:
            continue
        start = time.perf_counter()
        fitted = run(case, labeled, seed)
        row = {"case": name, "labels": budget, "seed": seed, "method": method,
               "s": time.perf_counter() - start, "floor": floor, "floor_given": floor_given,
               **score(case, fitted.mean, fitted.lower, fitted.upper)}
        if fitted.paper is not None:
            row.update({f"paper_{k}": v for k, v in score(case, *fitted.paper).items()})
        rows.append(row)
    return rows


def exploration_job(job) -> dict:
    """Macro MSE after each batch: own policy vs random labelling, for one method and seed."""
    name, seed, method, batches = job
    case = load_case(name, seed)
    run = methods()[method]
    perm = np.random.default_rng([seed, 7]).permutation(case.n_items)
    out = {"case": name, "seed": seed, "method": method}
    for policy in ("own", "random"):
        labeled = np.zeros(case.n_items, dtype=bool)
        labeled[perm[: EXPLORE["start"]]] = True
        curve = []
        for b in range(batches + 1):
            fitted = run(case, labeled, seed)
            curve.append(score(case, fitted.mean, fitted.lower, fitted.upper)["mse"])
            if b == batches:
                break
            if policy == "own":
                new = np.asarray(fitted.suggest(EXPLORE["batch"], seed * 1000 + b), dtype=np.int64)
            else:
                pool = perm[~labeled[perm]]
                new = pool[: EXPLORE["batch"]]
            labeled[new] = True
        out[policy] = curve
    return out


def speed_job(job) -> dict:
    """Time and peak memory of count + fit + per-arm table, in a fresh process."""
    size_name, method = job
    sim = simulate_surface(**SPEED[size_name], seed=3)
    labeled = np.zeros(sim.n_items, dtype=bool)
    labeled[np.random.default_rng(3).choice(sim.n_items, SPEED_LABELS, replace=False)] = True
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    try:
        if method == "spe":
            surf = spe.accuracy_surface(sim.attributes, np.where(labeled, sim.correct, np.nan), sim.confidence,
                                        seed=0)
            frame = surf.to_frame(level=LEVEL)
            n_arms = len(frame)
        else:
            case = _case(size_name, sim.attributes, sim.correct, sim.confidence, sim.p)
            fitted = methods()[method](case, labeled, 0)
            n_arms = fitted.mean.size
        error = ""
    except Exception as exc:  # reported in the table, not hidden
        n_arms, error = 0, f"{type(exc).__name__}: {exc}"[:120]
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"size": size_name, "method": method, "items": sim.n_items, "arms": n_arms, "s": seconds,
            "peak_mib": peak / 1024, "extra_mib": (peak - before) / 1024, "error": error}


# ---- main (the report: benchmarks/surface_report.py) -----------------------------------

def run_parallel(fn, jobs, workers, label):
    start, out = time.time(), []
    with ProcessPoolExecutor(workers) as pool:
        for i, res in enumerate(pool.map(fn, jobs)):
            out.append(res)
            if (i + 1) % max(1, len(jobs) // 10) == 0:
                print(f"  {label}: {i + 1}/{len(jobs)} jobs, {time.time() - start:.0f} s", file=sys.stderr)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="compas + gen-1k, 2 seeds, short exploration; writes nothing")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--explore-seeds", type=int, default=20)
    ap.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    ap.add_argument("--cases", nargs="+", default=list(REAL) + list(GENERATED))
    ap.add_argument("--parts", nargs="+", default=["estimation", "exploration", "speed", "paper", "figure5"],
                    choices=["estimation", "exploration", "speed", "paper", "figure5"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--methods", nargs="+", default=None,
                    help="run only these methods; their stored rows are replaced, the others' kept")
    ap.add_argument("--report", action="store_true", help="rebuild RESULTS.md and the docs block from stored results")
    args = ap.parse_args(argv)
    if args.report:
        write_outputs(json.loads(RESULTS.read_text()))
        return 0
    names = list(methods()) if args.methods is None else list(args.methods)
    unknown = set(names) - set(methods())
    if unknown:
        ap.error(f"unknown methods {sorted(unknown)}; known: {list(methods())}")
    if args.quick:
        args.seeds, args.explore_seeds, args.budgets, args.cases = 2, 1, [100, 300], ["compas", "gen-1k"]
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() and not args.quick else {}
    if {"estimation", "exploration", "speed"} & set(args.parts):
        stored["stamp"] = run_stamp()
        stored.setdefault("stamps", {}).update({m: stored["stamp"] for m in names})


    def kept(rows, cases):
        return [r for r in rows if not (r["case"] in cases and r["method"] in names)]

    if "estimation" in args.parts:
        stored["seeds"] = args.seeds
    if "estimation" in args.parts:
        jobs = [(c, b, s, tuple(m for m in names if m in CONFIDENCE_METHODS or not c.endswith("blind")))
                for s in range(args.seeds) for c in args.cases for b in args.budgets]
        new = [r for rows in run_parallel(estimation_job, jobs, args.workers, "estimation") for r in rows]
        stored["estimation"] = kept(stored.get("estimation", []), args.cases) + new
    if "exploration" in args.parts:
        batches = 2 if args.quick else EXPLORE["batches"]
        policy_methods = [m for m in names if m not in ("CPredictor", "confidence-only")]
        cases = ["compas"] if args.quick else [c for c in EXPLORE_CASES if c in args.cases]
        jobs = [(c, s, m, batches) for s in range(args.explore_seeds) for c in cases for m in policy_methods]
        new = run_parallel(exploration_job, jobs, args.workers, "exploration")
        stored["exploration"] = kept(stored.get("exploration", []), cases) + new
    if "speed" in args.parts:
        sizes = list(SPEED)[:1] if args.quick else list(SPEED)
        jobs = [(size, m) for size in sizes for m in names if m != "confidence-only"]
        with ProcessPoolExecutor(1, max_tasks_per_child=1) as pool:  # fresh process: clean peak memory
            new = list(pool.map(speed_job, jobs))
        stored["speed"] = [r for r in stored.get("speed", []) if r["method"] not in names] + new
    if "paper" in args.parts:
        from benchmarks import surface_paper

        todo = surface_paper.jobs(["compas"], (100, 300), 2) if args.quick else surface_paper.jobs()
        rows = [r for out in run_parallel(surface_paper.job, todo, args.workers, "paper") for r in out]
        if not args.quick:  # rows of cases run apart (surface_paper --cases gen-1k) are kept
            rows = [r for r in (extra_load("paper") or {"rows": []})["rows"] if r["case"] not in
                    surface_paper.CASES] + rows
        extra_store("paper", {"stamp": run_stamp(), "rows": rows}, args.quick)
    if "figure5" in args.parts:
        from benchmarks import surface_figure5

        extra_store("figure5", {"stamp": run_stamp(), **surface_figure5.run(args.workers, quick=args.quick)},
                    args.quick)
    print(report(stored))
    if not args.quick:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(stored, default=float))
        write_outputs(stored)
    return 0


def write_outputs(stored):
    write_section(report(stored), HERE / "RESULTS.md", MARKERS)
    old = DOCS_PAGE.read_text() if DOCS_PAGE.exists() else "# Accuracy surfaces\n\n## Evidence\n"
    intro = ""
    DOCS_PAGE.write_text(with_block(old, intro + report(stored, docs=True), DOC_MARKERS))


if __name__ == "__main__":
    sys.exit(main())
