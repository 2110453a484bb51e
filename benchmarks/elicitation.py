"""Metric elicitation benchmark: ``spe.elicit_metric`` on the paper's synthetic classes and on real files.

    python -m benchmarks.elicitation            # ~30 min on one process; writes results/elicitation.json,
                                                # its section of RESULTS.md and the user guide's block
    python -m benchmarks.elicitation --quick    # a tenth of the metrics, prints only
    python -m benchmarks.elicitation --report   # the sections again from results/elicitation.json
    python -m benchmarks.elicitation --families linear-fractional  # rerun one family's rows (~6 min), merged
    python -m benchmarks.elicitation --real     # rerun the real files' rows, merged
    python -m benchmarks.elicitation --noise    # the noise sweep (benchmarks/elicitation_noise.py, ~20 min), merged
    python -m benchmarks.elicitation --noise-families linear-fractional  # one family's sweep rows, merged
    python -m benchmarks.elicitation --noise-threshold  # how the fallback's probability was chosen, merged

**Synthetic** (Hiranandani et al. section 6.1): X ~ U[-1, 1], eta_i(x) prop. to
1 / (1 + exp(p_i x)), p = (1, 3, 5) and (1, 3, 6, 10), on a 20,000-point grid. True metrics
drawn uniformly (DLPM: simplex; LPM: the sphere's negative orthant; linear-fractional:
`spe.elicitation.random_metric`); tolerance eps = 0.01; oracles: truthful (eps_Omega = 0) or
Definition 7's (a coin flip whenever the two values are within eps_Omega), the posterior
then using the `threshold` answer model with that eps_Omega, whose mean is then the reported
estimate of the linear families (`search_err_median`: the searches' own estimate, the
paper's output, on the same answers). `err` = ||a* - a_hat||_inf
(linear-fractional: of the weights of the tangent linear metric at the optimum, the part
of the metric decisions depend on); `within_2eps`: share of metrics with err <= 0.02;
`q_mean` / `q_max`: questions, beside `budget` (the paper's count: 4 (K - 1) ceil(log2(1/eps))
for DLPM, 4 T ceil(log2(pi / (2 eps))), T = 2 (q - 1), for LPM); `ratio` = median err /
(eps + sqrt(eps_Omega)) (Theorems 1 and 2: O(eps + sqrt(eps_Omega))); `cov90`: coverage of
the 90% posterior intervals of the weights (mean over weights; DLPM every metric, the others
the first 10 at eps_Omega = 0); `failed`: elicitations refused with "no linear-fractional
metric fits these answers" (counted as misses, error inf). `paper_*`: Algorithm 1 as written (reference class 1, the
boundary's flat pieces unseen), on the same metrics.

**Real files** (`mnist_labelerrors_cv`, 10 classes; `20news_labelerrors_cv`, 20 classes):
the questions are built from the classifier's probabilities (`raw`) or SPE's recalibrated
ones from 20 / 100 random labels (`spe20`, `spe100`; one `spe.fit_multiclass` per label set,
shared by 20 metrics, as `elicit_metric(labels=...)` would make); 100 random DLPMs per file
and variant, truthful oracle, eps = 0.01. `regret`: a*'s value (on all true labels) of the
rule argmax_i a*_i eta_i minus that of the elicited rule argmax_i a_hat_i eta_i (mean);
`cov90`: coverage of the weights' 90% intervals (mean over weights and metrics);
`value_cov90`: coverage, by `m.evaluate(fit)`'s 90% interval, of the elicited rule's true
value a* . diag(C_true) (label draws of the fit x weight draws; `raw` uses a fit without
labels); `p_beats`: mean P(elicited rule beats the top-1 rule).
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks import elicitation_noise
from benchmarks.harness.report import git_commit, run_stamp, table, write_section

import spe  # noqa: E402
from spe.exceptions import InconsistentAnswersWarning
from spe.elicitation import noisy_oracle, paper_probabilities, random_metric, truthful_oracle
from spe.elicitation._diagonal import elicit_diagonal  # noqa: E402
from spe.elicitation._fractional import canonical_of  # noqa: E402
from spe.elicitation._inputs import recalibrated  # noqa: E402
from spe.elicitation import Asker  # noqa: E402
from spe.elicitation._radius import sphere_radius  # noqa: E402
from spe.elicitation._space import ConfusionSpace  # noqa: E402

HERE = Path(__file__).resolve().parent

MARKERS = ("<!-- elicitation:start -->", "<!-- elicitation:end -->")
SUMMARY_MARKERS = ("<!-- elicitation-summary:start -->", "<!-- elicitation-summary:end -->")
DOCS_PAGE = HERE.parent / "docs" / "user_guide" / "elicitation.md"
STORED = HERE / "results" / "elicitation.json"
EPS = 0.01
SYNTHETIC = {3: (1.0, 3.0, 5.0), 4: (1.0, 3.0, 6.0, 10.0)}
GRID = 20_000
NOISE = (0.0, 0.01, 0.05)
#: linear-fractional: 200, so that ">= 95% within 2 eps" can be told from 90% (all 200 within: >= 0.985 at 95%)
METRICS = {"diagonal": 100, "linear": 100, "diagonal-fractional": 50, "linear-fractional": 200}
COVERAGE_METRICS = 10
#: "No faster than O(eps + sqrt(eps_Omega))" read as: median error / (eps + sqrt(eps_Omega)) stays below this.
RATIO_CAP = 3.0  # posterior coverage of the families sampled by emcee / per-search draws
BUDGETS = (None, 20, 100)
LABEL_SETS = 5
REAL_METRICS = 100


def _quiet():
    warnings.simplefilter("ignore", InconsistentAnswersWarning)


def synthetic_cell(k, family, eps_omega, probs, space, radius, n):
    """Errors, questions and coverage over n random metrics of one (K, family, noise) cell."""
    rng = np.random.default_rng([k, sorted(METRICS).index(family)])  # the same truths at every noise level
    out = {"err": [], "search_err": [], "q": [], "cov": [], "paper_err": [], "paper_q": [], "failed": 0}
    kwargs = {} if eps_omega == 0 else {"noise": "threshold", "noise_scale": eps_omega}
    for r in range(n):
        truth = random_metric(family, k, rng)
        oracle = truthful_oracle(truth) if eps_omega == 0 else noisy_oracle(truth, eps_omega, seed=r)
        try:
            m = spe.elicit_metric(oracle, probs, family=family, tolerance=EPS, radius=radius, seed=r,
                                  n_draws=200 if family.endswith("fractional") else 2000, **kwargs)
        except ValueError:  # noisy answers that no linear-fractional metric gives: a stated error
            out["failed"] += 1
            continue
        target = canonical_of(truth, space).weights if family.endswith("fractional") else truth.weights
        out["err"].append(np.abs(m.weights - target).max())
        if m.search_weights is not None:
            out["search_err"].append(np.abs(m.search_weights - target).max())
        out["q"].append(m.n_queries)
        if family == "diagonal" or (eps_omega == 0 and r < COVERAGE_METRICS):
            lo, hi = m.interval(0.9)
            out["cov"].append(np.mean((lo <= target) & (target <= hi)))
        if family == "diagonal":
            paper = Asker(truthful_oracle(truth) if eps_omega == 0 else noisy_oracle(truth, eps_omega, seed=r))
            weights, _ = elicit_diagonal(space, paper, EPS, champion=False, plateaus=False)
            out["paper_err"].append(np.abs(weights - truth.weights).max())
            out["paper_q"].append(paper.n_queries)
    return out


def run_synthetic(n_scale, families=tuple(METRICS)):
    rows = []
    for k, p in SYNTHETIC.items():
        probs = paper_probabilities(p, GRID)
        space = ConfusionSpace(probs)
        radius = sphere_radius(space)[0]
        for family, n in METRICS.items():
            if family not in families:
                continue
            n = max(2, int(n * n_scale))
            budget = spe.elicitation.question_budget(family, k, EPS)
            for eps_omega in NOISE:
                got = synthetic_cell(k, family, eps_omega, probs, space, radius if "linear" in family else None, n)
                err = np.concatenate([got["err"], np.full(got["failed"], np.inf)])  # a refusal is a miss
                row = {"K": k, "family": family, "eps_omega": eps_omega, "metrics": n, "failed": got["failed"],
                       "err_median": np.median(err), "err_max": err.max(), "within_2eps": np.mean(err <= 2 * EPS),
                       "search_err_median": np.median(got["search_err"]) if got["search_err"] else np.nan,
                       "q_mean": np.mean(got["q"]),
                       "q_max": max(got["q"]), "budget": budget,
                       "ratio": np.median(err) / (EPS + np.sqrt(eps_omega)),
                       "cov90": np.mean(got["cov"]) if got["cov"] else float("nan"),
                       "radius": radius if "linear" in family else float("nan")}
                if got["paper_err"]:
                    paper = np.array(got["paper_err"])
                    row |= {"paper_err_median": np.median(paper), "paper_err_max": paper.max(),
                            "paper_within_2eps": np.mean(paper <= 2 * EPS), "paper_q_max": max(got["paper_q"])}
                rows.append(row)
                print(f"synthetic K={k} {family} eps_omega={eps_omega}: {row}", flush=True)
    return rows


def _true_value(weights, rule, y, k):
    onehot = np.zeros((y.size, k))
    onehot[np.arange(y.size), y] = 1.0
    return float(np.diagonal(ConfusionSpace(onehot).confusion(rule)) @ weights)


def real_variant(name, probs, y, budget, n_metrics, raw_fit):
    """One file and variant: per metric, error, regret, weight and value coverage."""
    k = probs.shape[1]
    rows = []
    per_set = n_metrics // LABEL_SETS
    for s in range(LABEL_SETS):
        rng = np.random.default_rng([sum(map(ord, name)), budget or 0, s])
        if budget is None:
            eta, fit = probs, raw_fit
        else:
            labels = np.full(y.size, -1)
            known = rng.choice(y.size, budget, replace=False)
            labels[known] = y[known]
            eta, fit = recalibrated(probs, labels, seed=s)
        for r in range(per_set):
            truth = random_metric("diagonal", k, rng)
            m = spe.elicit_metric(truthful_oracle(truth), eta, tolerance=EPS, seed=r, n_draws=2000)
            rule = m.decide()
            best = np.argmax(eta * truth.weights, axis=1)
            value = _true_value(truth.weights, rule, y, k)
            lo, hi = m.interval(0.9)
            ev = m.evaluate(fit)
            rows.append({"err": np.abs(m.weights - truth.weights).max(), "q": m.n_queries,
                         "regret": _true_value(truth.weights, best, y, k) - value,
                         "cov": np.mean((lo <= truth.weights) & (truth.weights <= hi)),
                         "value_cov": float(ev.rule.lower <= value <= ev.rule.upper), "p_beats": ev.prob_beats_argmax})
    return rows


def run_real(n_scale):
    rows = []
    for name, probs, y in elicitation_noise.real_files():
        raw_fit = spe.fit_multiclass(probs, seed=0)
        for budget in BUDGETS:
            start = time.time()
            got = real_variant(name, probs, y, budget, max(LABEL_SETS, int(REAL_METRICS * n_scale)), raw_fit)
            err = np.array([g["err"] for g in got])
            row = {"file": f"{name} (K={probs.shape[1]})", "variant": "raw" if budget is None else f"spe{budget}",
                   "metrics": len(got), "err_median": np.median(err), "within_0.05": np.mean(err <= 0.05),
                   "err_max": err.max(), "q_mean": np.mean([g["q"] for g in got]),
                   "regret": np.mean([g["regret"] for g in got]), "regret_max": max(g["regret"] for g in got),
                   "cov90": np.mean([g["cov"] for g in got]), "value_cov90": np.mean([g["value_cov"] for g in got]),
                   "p_beats": np.mean([g["p_beats"] for g in got]), "s": (time.time() - start) / len(got)}
            rows.append(row)
            print(f"real {row}", flush=True)
    return rows


def targets(syn, real) -> list[dict]:
    """The issue's "Done when" lines, read off the tables."""
    clean = [r for r in syn if r["eps_omega"] == 0 and r["family"] in ("diagonal", "linear")]
    out = [{"target": "synthetic, no noise: every DLPM and LPM within 2 eps with the paper's question counts",
            "measured": ", ".join(f"K={r['K']} {r['family']}: {r['within_2eps']:.2f} within, q_max {r['q_max']} "
                                  f"<= {r['budget']}" for r in clean),
            "met": all(r["within_2eps"] == 1.0 and r["q_max"] <= r["budget"] for r in clean)}]
    for family in ("diagonal", "linear"):
        got = {(r["K"], r["eps_omega"]): r["ratio"] for r in syn if r["family"] == family}
        noisy = [(k, got[(k, NOISE[1])], got[(k, NOISE[2])]) for k in SYNTHETIC if (k, NOISE[2]) in got]
        out.append({"target": f"synthetic {family}: error grows no faster than eps + sqrt(eps_Omega) (median err / "
                              f"(eps + sqrt(eps_Omega)) <= {RATIO_CAP:g} at eps_Omega {NOISE[1]:g} and {NOISE[2]:g}, "
                              "and not growing between them)",
                    "measured": ", ".join(f"K={k}: {a:.2f}, {b:.2f}" for k, a, b in noisy),
                    "met": bool(noisy) and all(max(a, b) <= RATIO_CAP and b <= a * 1.25 for _, a, b in noisy)})
    lf = [r for r in syn if r["eps_omega"] == 0 and r["family"] == "linear-fractional"]
    out.append({"target": "synthetic linear-fractional, no noise: >= 95% within 2 eps",
                "measured": ", ".join(f"K={r['K']}: {r['within_2eps']:.3f} of {r['metrics']} (median err "
                                      f"{r['err_median']:.4f}, max {r['err_max']:.4f})" for r in lf),
                "met": bool(lf) and all(r["within_2eps"] >= 0.95 for r in lf)})
    main = [r for r in real if r["variant"] in ("raw", "spe20")]
    out.append({"target": "real files (raw, spe20): >= 95% of DLPMs within 0.05, median error <= 0.02",
                "measured": ", ".join(f"{r['file']} {r['variant']}: {r['within_0.05']:.2f}, {r['err_median']:.4f}"
                                      for r in main),
                "met": bool(main) and all(r["within_0.05"] >= 0.95 and r["err_median"] <= 0.02 for r in main)})
    out.append({"target": "real files (raw, spe20): mean regret of the chosen rule <= 0.005",
                "measured": ", ".join(f"{r['file']} {r['variant']}: {r['regret']:.5f}" for r in main),
                "met": bool(main) and all(r["regret"] <= 0.005 for r in main)})
    out.append({"target": "real files (raw, spe20): the metric's 90% interval covers the truth >= 85% (the weights' "
                          "intervals, and evaluate()'s interval of the chosen rule's value)",
                "measured": ", ".join(f"{r['file']} {r['variant']}: weights {r['cov90']:.2f}, value "
                                      f"{r['value_cov90']:.2f}" for r in main),
                "met": bool(main) and all(r["cov90"] >= 0.85 and r["value_cov90"] >= 0.85 for r in main)})
    more = [r for r in real if r["variant"] not in ("raw", "spe20")]
    out.append({"target": "(beyond the issue) the same three at 100 labels",
                "measured": ", ".join(f"{r['file']} {r['variant']}: within 0.05 {r['within_0.05']:.2f}, median "
                                      f"{r['err_median']:.4f}, regret {r['regret']:.5f}, coverage weights "
                                      f"{r['cov90']:.2f}, value {r['value_cov90']:.2f}" for r in more),
                "met": bool(more) and all(r["within_0.05"] >= 0.95 and r["err_median"] <= 0.02 and r["regret"] <= 0.005
                                          and r["cov90"] >= 0.85 and r["value_cov90"] >= 0.85 for r in more)})
    return out


SYN_COLS = ["K", "family", "eps_omega", "metrics", "failed", "err_median", "search_err_median", "err_max",
            "within_2eps", "q_mean", "q_max", "budget", "ratio", "cov90"]
PAPER_COLS = ["K", "eps_omega", "err_median", "err_max", "within_2eps", "q_max", "paper_err_median",
              "paper_err_max", "paper_within_2eps", "paper_q_max"]
REAL_COLS = ["file", "variant", "metrics", "err_median", "within_0.05", "err_max", "q_mean", "regret", "regret_max",
             "cov90", "value_cov90", "p_beats", "s"]
SPEC = {"K": "{:d}", "metrics": "{:d}", "failed": "{:d}", "q_max": "{:d}", "budget": "{:d}", "paper_q_max": "{:d}",
        "eps_omega": "{:g}", "err_median": "{:.4f}", "err_max": "{:.4f}", "paper_err_median": "{:.4f}",
        "paper_err_max": "{:.4f}", "search_err_median": "{:.4f}", "regret": "{:.5f}", "regret_max": "{:.5f}",
        "q_mean": "{:.1f}", "s": "{:.2f}", "radius": "{:.5f}",
        "family": "{}", "file": "{}", "variant": "{}", "target": "{}", "measured": "{}", "met": "{}"}


def _noise_parts(stored) -> list[str]:
    """The noise part's text (``--noise``), or a line saying it was not run."""
    noise = stored.get("noise")
    if not noise:
        return ["Noise sweep: not run yet (`python -m benchmarks.elicitation --noise`).", ""]
    doc = elicitation_noise.__doc__.split("\n\n")
    return ["### Noise each family tolerates, and the default rule against top-1", "",
            f"Run {noise['date']}, commit {noise['commit']}; {noise['minutes']:.0f} min on one process "
            "(`python -m benchmarks.elicitation --noise`)." + _reruns(noise) + " " + " ".join(doc[2].split()), "",
            " ".join(doc[3].split()), "",
            table(elicitation_noise.targets(noise["sweep"], noise["real"]), ["target", "measured", "met"],
                  elicitation_noise.SPEC), "",
            table(noise["sweep"], elicitation_noise.SWEEP_COLS + ["radius"], SPEC | elicitation_noise.SPEC), "",
            table(noise["real"], elicitation_noise.REAL_COLS, elicitation_noise.SPEC), ""] + _choice_parts(noise)


def _choice_parts(noise) -> list[str]:
    choice = noise.get("threshold_choice")
    if not choice:
        return []
    return ["How the fallback's probability 0.8 was chosen (`python -m benchmarks.elicitation --noise-threshold`, "
            f"run {choice['date']}, commit {choice['commit']}): on {elicitation_noise.CHOICE_METRICS} random DLPMs "
            "per noise level (K = 3, the paper's classes, other seeds than the sweep's), the share of runs where "
            "the rule used would be at least as good as top-1, its mean gain over top-1 and the share of "
            "fallbacks, had the elicited rule been used from each probability (`threshold`) on.", "",
            table(choice["rows"], elicitation_noise.CHOICE_COLS, elicitation_noise.SPEC), ""]


def _reruns(stored) -> str:
    return "".join(f" Rows of {', '.join(r['families'])} rerun {r['date']}, commit {r['commit']} "
                   f"({r['minutes']:.0f} min)." for r in stored.get("reruns", []))


def report(syn, real, stamp, stored=None) -> str:
    stored = stored or {}
    paper = [r for r in syn if "paper_err_median" in r]
    goals = targets(syn, real)
    return "\n".join([
        "## Metric elicitation (`benchmarks/elicitation.py`)", "",
        stamp + _reruns(stored) + " " + " ".join(__doc__.split("\n\n")[2].split()), "",
        " ".join(__doc__.split("\n\n")[3].split()), "",
        "Targets (metric elicitation issue):", "",
        table(goals, ["target", "measured", "met"], SPEC), "",
        "Synthetic (`radius`: the certified sphere of the linear families):", "",
        table(syn, SYN_COLS + ["radius"], SPEC), "",
        "DLPM, spe's Algorithm 1 (running champion reference, plateaus seen) against the paper's as written:", "",
        table(paper, PAPER_COLS, SPEC), "",
        "Real files:", "", table(real, REAL_COLS, SPEC), "",
    ] + _noise_parts(stored))


def docs_block(syn, real, stored) -> str:
    goals = targets(syn, real)
    reruns = "".join(f" rows of {', '.join(r['families'])} rerun {r['date']}, commit {r['commit']};"
                     for r in stored.get("reruns", []))
    head = (f"Measured by `benchmarks/elicitation.py` (run {stored['date']}, commit {stored['commit']};{reruns} "
            "full tables in `benchmarks/RESULTS.md`). The issue's targets:")
    dlpm = [r for r in syn if r["family"] == "diagonal"]
    parts = [head, "", table(goals, ["target", "measured", "met"], SPEC), "",
             "Synthetic DLPMs (eps = 0.01), spe beside the paper's Algorithm 1 as written:", "",
             table(dlpm, PAPER_COLS, SPEC), "",
             "Every family on the synthetic classes (`radius`: the linear families' certified sphere):", "",
             table(syn, ["K", "family", "eps_omega", "err_median", "within_2eps", "q_max", "budget", "cov90",
                         "radius"], SPEC), "",
             "Real files (100 random DLPMs each, truthful oracle):", "",
             table(real, ["file", "variant", "err_median", "within_0.05", "regret", "cov90", "value_cov90"], SPEC)]
    noise = stored.get("noise")
    if noise:
        parts += ["", f"Under answer noise (K = 3, the paper's classes, {noise['sweep'][0]['metrics']} random metrics "
                  f"per cell; run {noise['date']}, commit {noise['commit']}"
                  + "".join(f"; rows of {', '.join(r['families'])} rerun {r['date']}, commit {r['commit']}"
                            for r in noise.get("reruns", []))
                  + "): `within_2eps`, the mean regret of the "
                  "elicited rule, of the default rule (`decide()`, with its top-1 fallback) and of top-1, and the "
                  "share of runs where the default rule is at least as good as top-1:", "",
                  table(elicitation_noise.targets(noise["sweep"], noise["real"]), ["target", "measured", "met"],
                        elicitation_noise.SPEC), "",
                  table(noise["sweep"], ["family", "eps_omega", "within_2eps", "spread", "regret_elicited",
                                         "regret_default", "regret_top1", "fallback", "default_ge_top1"],
                        elicitation_noise.SPEC), "",
                  "Real files, DLPMs, noisy oracle (`gain`: mean true value minus top-1's):", "",
                  table(noise["real"], ["file", "eps_omega", "metrics", "default_ge_top1", "elicited_ge_top1",
                                        "fallback", "gain_default", "gain_elicited"], elicitation_noise.SPEC)]
    return "\n".join(parts)


def _plain(rows):
    return [{k: (v.item() if isinstance(v, np.generic) else v) for k, v in r.items()} for r in rows]


def write(stored):
    syn, real = stored["synthetic"], stored["real"]
    stamp = (f"Run {stored['date']}, commit {stored['commit']}; {stored['versions']}; "
             f"{stored['minutes']:.0f} min on one process.")
    write_section(report(syn, real, stamp, stored), HERE / "RESULTS.md", MARKERS)
    write_section(docs_block(syn, real, stored), DOCS_PAGE, SUMMARY_MARKERS)


def _part_stamp(minutes) -> dict:
    return {"date": datetime.date.today().isoformat(), "commit": git_commit(), "minutes": minutes}


def rerun_families(families):
    """Rerun the synthetic rows of ``families`` and merge them into the stored results."""
    stored = json.loads(STORED.read_text())
    start = time.time()
    new = _plain(run_synthetic(1.0, families))
    stored["synthetic"] = [r for r in stored["synthetic"] if r["family"] not in families] + new
    order = {f: j for j, f in enumerate(METRICS)}
    stored["synthetic"].sort(key=lambda r: (r["K"], order[r["family"]], r["eps_omega"]))
    reruns = [r for r in stored.get("reruns", []) if set(r["families"]) - set(families)]
    stored["reruns"] = reruns + [{"families": list(families)} | _part_stamp((time.time() - start) / 60)]
    STORED.write_text(json.dumps(stored, indent=1, default=float))
    write(stored)


def rerun_real():
    """Rerun the real files' rows and merge them into the stored results."""
    stored = json.loads(STORED.read_text())
    start = time.time()
    stored["real"] = _plain(run_real(1.0))
    reruns = [r for r in stored.get("reruns", []) if r["families"] != ["real files"]]
    stored["reruns"] = reruns + [{"families": ["real files"]} | _part_stamp((time.time() - start) / 60)]
    STORED.write_text(json.dumps(stored, indent=1, default=float))
    write(stored)


def run_threshold_choice():
    """The fallback probability's choice (``elicitation_noise.run_threshold_choice``), merged."""
    start = time.time()
    rows = _plain(elicitation_noise.run_threshold_choice())
    stored = json.loads(STORED.read_text())
    stored["noise"]["threshold_choice"] = _part_stamp((time.time() - start) / 60) | {"rows": rows}
    STORED.write_text(json.dumps(stored, indent=1, default=float))
    write(stored)


def run_noise(scale, families=None):
    """The noise sweep and the real files under noise (``elicitation_noise``), merged into the
    stored results; ``families``: rerun only these families' sweep rows."""
    start = time.time()
    sweep = elicitation_noise.run_sweep(scale, families or elicitation_noise.FAMILIES)
    real = elicitation_noise.run_real(scale) if families is None else None
    if scale < 1:
        print(table(sweep, elicitation_noise.SWEEP_COLS, elicitation_noise.SPEC))
        return
    stored = json.loads(STORED.read_text())
    stamp = _part_stamp((time.time() - start) / 60)
    if families is not None:
        old = stored["noise"]
        rows = [r for r in old["sweep"] if r["family"] not in families] + _plain(sweep)
        rows.sort(key=lambda r: (elicitation_noise.FAMILIES.index(r["family"]), r["eps_omega"]))
        reruns = [r for r in old.get("reruns", []) if set(r["families"]) - set(families)]
        stored["noise"] = old | {"sweep": rows, "reruns": reruns + [{"families": list(families)} | stamp]}
    else:
        stored["noise"] = stamp | {"sweep": _plain(sweep), "real": _plain(real)}
    STORED.write_text(json.dumps(stored, indent=1, default=float))
    write(stored)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the metrics; print, write nothing")
    ap.add_argument("--skip-real", action="store_true")
    ap.add_argument("--report", action="store_true", help="rewrite the sections from results/elicitation.json")
    ap.add_argument("--families", nargs="+", choices=list(METRICS),
                    help="rerun only these families' synthetic rows and merge them into results/elicitation.json")
    ap.add_argument("--real", action="store_true", help="rerun only the real files' rows and merge them into "
                                                        "results/elicitation.json")
    ap.add_argument("--noise", action="store_true", help="run the noise sweep (benchmarks/elicitation_noise.py) and "
                                                         "merge it into results/elicitation.json")
    ap.add_argument("--noise-threshold", action="store_true",
                    help="rerun how the fallback's probability was chosen and merge it (~2 min)")
    ap.add_argument("--noise-families", nargs="+", choices=list(METRICS),
                    help="rerun only these families' rows of the noise sweep and merge them")
    args = ap.parse_args(argv)
    if args.report:
        return write(json.loads(STORED.read_text()))
    _quiet()
    if args.families:
        return rerun_families(tuple(args.families))
    if args.real:
        return rerun_real()
    if args.noise_threshold:
        return run_threshold_choice()
    if args.noise or args.noise_families:
        return run_noise(0.2 if args.quick else 1.0, args.noise_families)
    scale = 0.1 if args.quick else 1.0
    start = time.time()
    syn = run_synthetic(scale)
    real = [] if args.skip_real else run_real(scale)
    minutes = (time.time() - start) / 60
    print(report(syn, real, run_stamp() + f"; {minutes:.1f} min."))
    if not args.quick and not args.skip_real:
        old = json.loads(STORED.read_text()) if STORED.exists() else {}
        stored = {"date": datetime.date.today().isoformat(), "commit": git_commit(),
                  "versions": run_stamp().split("; ", 1)[1], "minutes": minutes,
                  "synthetic": _plain(syn), "real": _plain(real)} | ({"noise": old["noise"]} if "noise" in old else {})
        STORED.write_text(json.dumps(stored, indent=1, default=float))
        write(stored)


if __name__ == "__main__":
    main()
