"""How much answer noise each metric family tolerates, and whether the default rule ever loses to top-1.

Run through ``python -m benchmarks.elicitation --noise`` (merged into
``results/elicitation.json`` and the elicitation section of RESULTS.md).

**Noise sweep** (the paper's synthetic classes, K = 3, p = (1, 3, 5), 20,000-point grid;
tolerance eps = 0.01): per family, random metrics (`spe.elicitation.random_metric`)
answered by Definition 7's oracle (`noisy_oracle(truth, eps_Omega)`: a coin flip whenever
the two values differ by at most eps_Omega), `elicit_metric` with its defaults (answer model
`exact`, lapse learned, top-1 fallback; the fractional families' posterior from 200 draws,
not 1,000). `within_2eps`: share with
||a* - a_hat||_inf <= 2 eps (linear-fractional: the tangent weights at the optimum);
`regret_elicited` / `regret_default` / `regret_top1`: the true metric's value (on the
population) of its best rule minus that of the elicited rule, of the rule `decide()`
returns (the elicited one or the top-1 fallback) and of the classifier's top-1 rule, mean
over metrics; `fallback`: share of runs where `decide()` fell back to top-1 (it does unless,
under the posterior, the elicited rule beats top-1 in expectation and with probability
>= 0.8, a threshold chosen on other seeds);
`default_ge_top1`: share of runs where the default rule's true value is >= the top-1
rule's (to 1e-12). `spread`: the largest true-metric difference among the first 20
questions (median over metrics), the size of the differences the questions ask about:
noise much above it leaves every answer a coin flip.

**Real files under noise** (`mnist_labelerrors_cv`, K = 10; `20news_labelerrors_cv`,
K = 20; DLPMs, the raw probabilities): the same oracle with eps_Omega 0.002 and 0.02 (the
issue's case), 40 random metrics each; the rules' true values on all labels.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

import spe
from benchmarks.harness.cases import DATA
from spe.elicitation import noisy_oracle, paper_probabilities, random_metric
from spe.elicitation._fractional import canonical_of
from spe.elicitation._radius import sphere_radius
from spe.elicitation._space import ConfusionSpace
from spe.exceptions import InconsistentAnswersWarning

EPS = 0.01
K, P, GRID = 3, (1.0, 3.0, 5.0), 20_000
LEVELS = (0.0, 1e-5, 1e-4, 1e-3, 1e-2)
FAMILIES = ("diagonal", "linear", "diagonal-fractional", "linear-fractional")
METRICS = 16
#: posterior draws of the fractional families (default 1,000: each draw is made canonical, ~12 ms)
FRACTIONAL_DRAWS = 200
FILES = {"mnist": "mnist_labelerrors_cv.npz", "20news": "20news_labelerrors_cv.npz"}
REAL_LEVELS = (0.002, 0.02)
REAL_METRICS = 40
#: "the default rule is never worse than top-1": in at least this share of runs
TARGET = 0.95
#: the fallback's probability: chosen on these noise levels and metrics (DLPMs, other seeds than the sweep's)
CHOICE_LEVELS = (0.001, 0.01, 0.05)
CHOICE_METRICS = 40
THRESHOLDS = (0.5, 0.8, 0.9, 0.95)


def _best_rule(truth, space):
    """The true metric's best rule on these items (fractional: its tangent's Bayes rule)."""
    utility = canonical_of(truth, space).utility() if truth.family.endswith("fractional") else truth.utility()
    return space.bayes_rule(utility)


def _target(truth, space):
    return canonical_of(truth, space).weights if truth.family.endswith("fractional") else truth.weights


def _history_spread(truth, m) -> float:
    """Largest true-metric difference of the first 20 questions asked."""
    diffs = [abs(float(truth(q.first) - truth(q.second))) for q in m.history[:20]]
    return float(np.max(diffs)) if diffs else float("nan")


def sweep_cell(family, eps_omega, probs, space, radius, n):
    rng = np.random.default_rng([K, FAMILIES.index(family)])  # the same metrics at every noise level
    top1 = np.argmax(probs, axis=1)
    out = {k: [] for k in ("err", "elicited", "default", "top1", "fallback", "ge", "spread", "s")}
    for r in range(n):
        truth = random_metric(family, K, rng)
        start = time.time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InconsistentAnswersWarning)
            m = spe.elicit_metric(noisy_oracle(truth, eps_omega, seed=r), probs, family=family, tolerance=EPS,
                                  radius=radius if "linear" in family else None, seed=r,
                                  n_draws=FRACTIONAL_DRAWS if family.endswith("fractional") else 4000)
            best = truth(space.confusion(_best_rule(truth, space)))
            values = [truth(space.confusion(rule)) for rule in (m.elicited_rule(), m.decide(), top1)]
        out["s"].append(time.time() - start)
        out["err"].append(np.abs(m.weights - _target(truth, space)).max())
        for key, v in zip(("elicited", "default", "top1"), values):
            out[key].append(best - v)
        out["fallback"].append(m.rule != "elicited")
        out["ge"].append(values[1] >= values[2] - 1e-12)
        out["spread"].append(_history_spread(truth, m))
    err = np.array(out["err"])
    return {"family": family, "eps_omega": eps_omega, "metrics": n, "within_2eps": float(np.mean(err <= 2 * EPS)),
            "err_median": float(np.median(err)), "spread": float(np.median(out["spread"])),
            "regret_elicited": float(np.mean(out["elicited"])), "regret_default": float(np.mean(out["default"])),
            "regret_top1": float(np.mean(out["top1"])), "fallback": float(np.mean(out["fallback"])),
            "default_ge_top1": float(np.mean(out["ge"])), "s": float(np.mean(out["s"]))}


def run_sweep(scale=1.0, families=FAMILIES):
    probs = paper_probabilities(P, GRID)
    space = ConfusionSpace(probs)
    radius = sphere_radius(space)[0]
    rows = []
    for family in families:
        for eps_omega in LEVELS:
            row = sweep_cell(family, eps_omega, probs, space, radius, max(2, int(METRICS * scale)))
            row["radius"] = radius if "linear" in family else float("nan")
            rows.append(row)
            print(f"noise sweep {row}", flush=True)
    return rows


def _true_value(weights, rule, y, k):
    confusion = np.zeros((k, k))
    np.add.at(confusion, (y, rule), 1.0)
    return float(np.diagonal(confusion / y.size) @ weights)


def real_files():
    """(name, class probabilities normalised per row, labels) of each shared file present;
    an absent file is skipped with a note."""
    for name, file in FILES.items():
        path = DATA / file
        if not path.exists():
            print(f"skipping {name}: {path} not found", flush=True)
            continue
        d = np.load(path, allow_pickle=False)
        probs, y = d["probs"].astype(float), d["labels"].astype(int)
        yield name, probs / probs.sum(axis=1, keepdims=True), y


def run_real(scale=1.0):
    rows = []
    for name, probs, y in real_files():
        k = probs.shape[1]
        top1 = np.argmax(probs, axis=1)
        for eps_omega in REAL_LEVELS:
            rng = np.random.default_rng([sum(map(ord, name)), int(eps_omega * 1e4)])
            got = {k_: [] for k_ in ("default", "elicited", "top1", "fallback", "s")}
            for r in range(max(2, int(REAL_METRICS * scale))):
                truth = random_metric("diagonal", k, rng)
                start = time.time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", InconsistentAnswersWarning)
                    m = spe.elicit_metric(noisy_oracle(truth, eps_omega, seed=r), probs, seed=r)
                    rules = (m.decide(), m.elicited_rule(), top1)
                got["s"].append(time.time() - start)
                for key, rule in zip(("default", "elicited", "top1"), rules):
                    got[key].append(_true_value(truth.weights, rule, y, k))
                got["fallback"].append(m.rule != "elicited")
            default, elicited, top = (np.array(got[k_]) for k_ in ("default", "elicited", "top1"))
            row = {"file": f"{name} (K={k})", "eps_omega": eps_omega, "metrics": len(default),
                   "default_ge_top1": float(np.mean(default >= top - 1e-12)),
                   "elicited_ge_top1": float(np.mean(elicited >= top - 1e-12)),
                   "fallback": float(np.mean(got["fallback"])), "gain_default": float(np.mean(default - top)),
                   "gain_elicited": float(np.mean(elicited - top)), "s": float(np.mean(got["s"]))}
            rows.append(row)
            print(f"noise real {row}", flush=True)
    return rows


def run_threshold_choice(scale=1.0):
    """How the fallback's probability was chosen (``CONFIDENT`` in ``spe.elicitation``): on
    40 random DLPMs per noise level, drawn with other seeds than the sweep's, the share of
    runs where the rule used is at least as good as top-1, its mean gain over top-1 and the
    share of fallbacks, had the elicited rule been used from each probability on."""
    probs = paper_probabilities(P, GRID)
    space = ConfusionSpace(probs)
    top1 = space.confusion(np.argmax(probs, axis=1))
    rows = []
    for eps_omega in CHOICE_LEVELS:
        rng = np.random.default_rng([K, 1, int(eps_omega * 1e4)])
        got = []
        for r in range(max(2, int(CHOICE_METRICS * scale))):
            truth = random_metric("diagonal", K, rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", InconsistentAnswersWarning)
                m = spe.elicit_metric(noisy_oracle(truth, eps_omega, seed=r), probs, seed=r)
                v = m.rule_values
            got.append((v["prob_beats"], v["elicited"] - v["top-1"],
                        truth(space.confusion(m.elicited_rule())) - truth(top1)))
        a = np.array(got)
        for threshold in THRESHOLDS:
            used = (a[:, 0] >= threshold) & (a[:, 1] >= 0)
            gain = np.where(used, a[:, 2], 0.0)
            rows.append({"eps_omega": eps_omega, "threshold": threshold, "metrics": len(a),
                         "default_ge_top1": float(np.mean(gain >= -1e-12)), "gain_default": float(gain.mean()),
                         "fallback": float(1 - used.mean())})
        print(f"threshold choice eps_Omega {eps_omega}: {rows[-len(THRESHOLDS):]}", flush=True)
    return rows


def tolerated(rows, family) -> float:
    """The largest noise level at which the family's metrics are still within 2 eps in >= 90%
    of runs (0 when even the smallest noisy level fails; nan without rows)."""
    ok = [r["eps_omega"] for r in rows if r["family"] == family and r["within_2eps"] >= 0.9]
    return max(ok) if ok else float("nan")


def targets(sweep, real) -> list[dict]:
    noisy = [r for r in sweep if r["eps_omega"] > 0]
    runs = sum(r["metrics"] for r in noisy) + sum(r["metrics"] for r in real)
    wins = sum(r["default_ge_top1"] * r["metrics"] for r in noisy) + sum(r["default_ge_top1"] * r["metrics"]
                                                                          for r in real)
    out = [{"target": f"under noise, the default rule's true value >= the top-1 rule's in >= {TARGET:.0%} of runs",
            "measured": f"{wins:.0f} of {runs} runs ({wins / max(runs, 1):.3f}); worst cell "
                        + min((f"{r.get('family', r.get('file'))} eps_Omega {r['eps_omega']:g}: "
                               f"{r['default_ge_top1']:.2f}" for r in noisy + real), key=lambda s: float(s.split()[-1]),
                              default="-"),
            "met": runs > 0 and wins / runs >= TARGET}]
    out.append({"target": "the noise each family tolerates (largest eps_Omega of the sweep with >= 90% within 2 eps)",
                "measured": ", ".join(f"{f}: {tolerated(sweep, f):g}" for f in FAMILIES),
                "met": "measured"})
    return out


SWEEP_COLS = ["family", "eps_omega", "metrics", "within_2eps", "err_median", "spread", "regret_elicited",
              "regret_default", "regret_top1", "fallback", "default_ge_top1", "s"]
REAL_COLS = ["file", "eps_omega", "metrics", "default_ge_top1", "elicited_ge_top1", "fallback", "gain_default",
             "gain_elicited", "s"]
CHOICE_COLS = ["eps_omega", "threshold", "metrics", "default_ge_top1", "gain_default", "fallback"]
SPEC = {"threshold": "{:g}", "family": "{}", "file": "{}", "eps_omega": "{:g}", "metrics": "{:d}", "err_median": "{:.4f}",
        "spread": "{:.2g}", "regret_elicited": "{:.4f}", "regret_default": "{:.4f}", "regret_top1": "{:.4f}",
        "gain_default": "{:+.4f}", "gain_elicited": "{:+.4f}", "s": "{:.2f}", "target": "{}", "measured": "{}",
        "met": "{}"}
