"""The RESULTS.md section of ``benchmarks.assessment_tables``: Ji et al.'s Tables 3-7 and, beside
every comparison of an SPE-informed row with IPrior + TS, its Monte Carlo standard error.

Budget tables (3-5): the mean over runs of each run's difference (SPE row minus IPrior + TS,
the same run seed) and its standard error, sd / sqrt(runs). Table 6: the crossing point is a
property of the mean curve over runs, so its standard error, and that of a difference of two
methods' crossings, come from resampling the runs (the same resampled runs for both methods).
With R runs, a mean MRR above 0.99 allows runs whose MRR is 0.5 on fewer than R / 50 of them: at
40 runs none (the crossing is the slowest run's), at 1000 (Ji et al.) 19, at 200 three. Beside it,
each run's own point (the labels after which its MRR stays 1) and its mean over runs: a mean,
so its standard error is sd / sqrt(runs), and SPE minus IPrior + TS is a paired difference.
"""

from __future__ import annotations

import numpy as np

MRR_TARGET = 0.99
MIN_GAP = 0.01
N_BOOT = 200
REFERENCE = "IPrior + TS"
CONTENDERS = ("SPE-0 + TS", "SPE-10 + TS")
BASIC = ("UPrior (random)", "IPrior (random)", "IPrior + TS", "SPE-0 + TS", "SPE-10 + TS")
T6_METHODS = BASIC[:3] + ("UPrior + TS", "UPrior + UCB", "UPrior + epsilon-greedy") + BASIC[3:]
T5_EXTRA = "spe calibration_error (random)"
#: Ji et al. (2020), 20 Newsgroups (BERT) rows of Tables 3-7, as published.
PAPER_20NEWS = {
    "t3": {"UPrior (random)": (23.9, 15.3, 10.4), "IPrior (random)": (12.3, 10.8, 8.7), "IPrior + TS": (11.7, 10.3, 8.8)},
    "t4": {"UPrior (random)": (3.405, 0.188, 0.011), "IPrior (random)": (0.018, 0.004, 0.001),
           "IPrior + TS": (0.005, 0.001, 0.000)},
    "t5": {"UPrior (random)": (54.0, 32.8, 24.7), "IPrior (random)": (39.7, 28.9, 22.3), "IPrior + TS": (46.1, 36.6, 28.7)},
    "t6": {"UPrior (random)": {1: 53.9, 3: 92.0}, "IPrior (random)": {1: 55.4, 3: 92.5}, "IPrior + TS": {1: 16.9, 3: 42.5}},
    "t7": {"UPrior (random)": 197.3, "IPrior (random)": 157.4, "IPrior + TS": 136.1},
}


def first_crossing(curves, every, n_items):
    """Percent of the file labeled from which on the mean MRR over runs stays above the target
    (a checkpoint before SPE-10's 10 labels has no value: not identified yet)."""
    stacked = np.stack(curves)
    filled = np.isfinite(stacked).all(axis=0)
    mean = np.where(filled, np.nan_to_num(stacked).mean(axis=0), -np.inf)
    below = np.flatnonzero(mean <= MRR_TARGET)
    first = 0 if below.size == 0 else below[-1] + 1
    return 100.0 * (first + 1) * every / n_items if first < mean.size else np.nan


def settle_points(curves, every, n_items):
    """Per run: percent of the file labeled from which on its MRR is 1 (a checkpoint with no
    value, before SPE-10's 10 labels, counts as not yet)."""
    out = []
    for c in curves:
        bad = np.flatnonzero(~(np.asarray(c) >= 1.0))
        out.append(100.0 * (bad[-1] + 2 if bad.size else 1) * every / n_items if bad.size < len(c) else np.nan)
    return np.array(out)


def _cell(v, spec):
    return "-" if v is None or (isinstance(v, float) and np.isnan(v)) else spec.format(v)


def _pm(mean, se, spec):
    return "-" if not np.isfinite(mean) else f"{spec.format(mean)} ± {spec.replace('+', '').format(se)}"


def _runs(results, name, key):
    return [o[key] for n, _, o in results if n == name]


def budget_table(results, meta, key, methods, budgets_of, spec, paper_key):
    lines = ["| file | N | " + " | ".join(methods) + " |", "|---|---|" + "---|" * len(methods)]
    for name in meta:
        runs = _runs(results, name, key)
        for i, b in enumerate(budgets_of(meta[name]["k"])):
            vals = [np.mean([r[m][b] for r in runs]) for m in methods]
            lines.append(f"| {name} | {b} | " + " | ".join(_cell(v, spec) for v in vals) + " |")
            if name == "20news":
                paper = PAPER_20NEWS[paper_key]
                lines.append(f"| 20news, Ji et al. (BERT) | {b} | "
                             + " | ".join(_cell(paper[m][i], spec) if m in paper else "-" for m in methods) + " |")
    return lines


def differences(results, meta, key, spec):
    """Each SPE row minus IPrior + TS per cell (mean ± standard error over runs), and the verdict."""
    lines = [f"Difference from {REFERENCE} (mean of the per-run differences ± its Monte Carlo standard error; "
             "negative: lower error):", "", "| file | N | " + " | ".join(f"{m} − {REFERENCE}" for m in CONTENDERS) + " |",
             "|---|---|" + "---|" * len(CONTENDERS)]
    tally = {m: [0, 0, 0] for m in CONTENDERS}  # no worse, worse by > 2 SE, cells
    losses = {m: [] for m in CONTENDERS}
    for name in meta:
        runs = _runs(results, name, key)
        for b in runs[0][REFERENCE]:
            cells = []
            for m in CONTENDERS:
                d = np.array([r[m][b] - r[REFERENCE][b] for r in runs])
                se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
                tally[m][0] += d.mean() <= 0
                tally[m][1] += d.mean() > 2 * se
                tally[m][2] += 1
                cells.append(_pm(d.mean(), se, spec))
                if d.mean() > 0:
                    losses[m].append(f"{name} N={b} {_pm(d.mean(), se, spec.replace('{:', '{:+'))}")
            lines.append(f"| {name} | {b} | " + " | ".join(cells) + " |")
    verdict = "; ".join(f"{m} no worse than {REFERENCE} in {ok} of {n} cells, worse by more than two standard "
                        f"errors in {bad}" + (f" (worse: {', '.join(losses[m])})" if losses[m] else "")
                        for m, (ok, bad, n) in tally.items())
    return lines + ["", verdict + "."]


def _boot_crossings(curves_by_method, every, n_items, rng):
    """Crossing per method on ``N_BOOT`` resamplings of the runs (shared across methods)."""
    n_runs = len(next(iter(curves_by_method.values())))
    idx = rng.integers(0, n_runs, (N_BOOT, n_runs))
    return {m: np.array([first_crossing([c[i] for i in row], every, n_items) for row in idx])
            for m, c in curves_by_method.items()}


def _se(x):
    x = x[np.isfinite(x)]
    return float(x.std(ddof=1)) if x.size > 1 else np.nan


def _verdict(notes, what):
    out = []
    for m, cells in notes.items():
        ok = sum(not d > 0 for _, d, _ in cells)
        bad = sum(d > 2 * se for _, d, se in cells)
        out.append(f"{m} needed no more labels than {REFERENCE} in {ok} of {len(cells)} cases, more by over two "
                   f"standard errors in {bad} ({what}: " + ", ".join(f"{c} {_pm(d, se, '{:+.1f}')}" for c, d, se in cells)
                   + ")")
    return ". ".join(out) + "."


def t6_table(results, meta, methods=T6_METHODS, paper=True):
    """Table 6 (the crossing of the mean MRR curve), each run's own point, and the verdicts."""
    head = "| file | top-m | gap | " + " | ".join(methods) + " |"
    lines, per_run = [head, "|---|---|---|" + "---|" * len(methods)], [head, "|---|---|---|" + "---|" * len(methods)]
    notes, run_notes = {m: [] for m in CONTENDERS}, {m: [] for m in CONTENDERS}
    rng = np.random.default_rng(0)
    for name, info in meta.items():
        for mm in (1, 3):
            gap = info["gaps"][mm]
            if gap < MIN_GAP:
                lines.append(f"| {name} | {mm} | {gap:.4f} | " + " | ".join("not identifiable" for _ in methods) + " |")
                continue
            curves = {m: [o[(m, mm)] for o in _runs(results, name, "t6")] for m in methods}
            vals = {m: first_crossing(c, info["every"], info["n"]) for m, c in curves.items()}
            boot = _boot_crossings(curves, info["every"], info["n"], rng)
            own = {m: settle_points(c, info["every"], info["n"]) for m, c in curves.items()}
            lines.append(f"| {name} | {mm} | {gap:.4f} | "
                         + " | ".join(_pm(vals[m], _se(boot[m]), "{:.1f}") for m in methods) + " |")
            per_run.append(f"| {name} | {mm} | {gap:.4f} | "
                           + " | ".join(_pm(np.mean(own[m]), _se(own[m]) / np.sqrt(own[m].size), "{:.1f}")
                                        for m in methods) + " |")
            if name == "20news" and paper:
                published = PAPER_20NEWS["t6"]
                lines.append(f"| 20news, Ji et al. (BERT) | {mm} | - | " + " | ".join(
                    _cell(published[m][mm], "{:.1f}") if m in published else "-" for m in methods) + " |")
            for m in CONTENDERS:
                notes[m].append((f"{name} top-{mm}", vals[m] - vals[REFERENCE], _se(boot[m] - boot[REFERENCE])))
                d = own[m] - own[REFERENCE]
                run_notes[m].append((f"{name} top-{mm}", np.mean(d), _se(d) / np.sqrt(d.size)))
    return (lines, _verdict(notes, "difference in percent of the file, ± bootstrap standard error over runs"),
            per_run, _verdict(run_notes, "mean of the per-run differences, ± its standard error"))


def t6_section(results, meta, methods=T6_METHODS, paper=True):
    t6, note, per_run, run_note = t6_table(results, meta, methods, paper)
    return t6 + ["", note, "", "Each run's own point: percent of the file labeled from which on that run's MRR is 1 "
                 "(mean ± standard error over runs):", ""] + per_run + ["", run_note]


T6_MORE = ("IPrior + TS", "SPE-0 + TS", "SPE-10 + TS")


def _checked(stored):
    c = stored.get("checked")
    return "" if c is None else (f" Its first {c['runs']} runs, rerun at commit {c['commit']} ({c['date']}, "
                                 "`--check-t6`), are bit-identical: the table holds for that code.")


def t6_more_lines(stored):
    """Table 6 again on its own, longer run (``--only 6``): the score prior and the SPE priors."""
    return [f"#### Table 6 on {stored['runs']} runs (score and SPE priors only)", "",
            f"Run {stored['date']}, commit {stored['commit']}, `python -m benchmarks.assessment_tables --only 6 "
            f"--runs {stored['runs']}` ({stored['minutes']:.1f} min, {stored['jobs']} processes): the runs are "
            "the table's own (other random streams than the full run's)." + _checked(stored), ""] + t6_section(
                stored["results"], stored["meta"], T6_MORE, paper=False)


def t7_table(results, meta):
    lines = ["| file | pairs | runs | " + " | ".join(BASIC) + " |", "|---|---|---|" + "---|" * len(BASIC)]
    for name in meta:
        runs = [o["t7"] for n, _, o in results if n == name and "t7" in o]
        per_run = {m: np.array([np.mean(r[m]) for r in runs]) for m in BASIC}
        lines.append(f"| {name} | {len(runs[0][BASIC[0]])} | {len(runs)} | "
                     + " | ".join(_pm(v.mean(), _se(v) / np.sqrt(v.size), "{:.1f}") for v in per_run.values()) + " |")
        if name == "20news":
            paper = PAPER_20NEWS["t7"]
            lines.append("| 20news, Ji et al. (BERT) | all | 1000 | "
                         + " | ".join(_cell(paper.get(m), "{:.1f}") for m in BASIC) + " |")
    return lines


def centre_table(results, meta):
    """Where the truth sits in the SPE-10 posterior: (truth - centre) / spread, per group, mean over runs."""
    centres = ("mean", "median", "interquartile mean")
    lines = ["| file | groups | " + " | ".join(f"z vs {c}: mean | rms" for c in centres) + " |",
             "|---|---|" + "---|---|" * len(centres)]
    for name in meta:
        runs = _runs(results, name, "centre")
        for kind in ("classes", "bins"):
            z = {c: np.concatenate([r[kind][c] for r in runs]) for c in centres}
            lines.append(f"| {name} | {kind} | " + " | ".join(
                f"{np.mean(v):+.2f} | {np.sqrt(np.mean(v ** 2)):.2f}" for v in z.values()) + " |")
    return lines


def spe0_bin_table(meta):
    """SPE-0's Beta per confidence bin against IPrior's (why SPE-0 loses ECE cells)."""
    lines = ["| file | prior | strength (ECE-weighted) | abs(truth - centre) | rms z of the truth |",
             "|---|---|---|---|---|"]
    for name, info in meta.items():
        for prior, v in info.get("spe0_bins", {}).items():
            lines.append(f"| {name} | {prior} | {v['strength']:.2f} | {v['distance']:.3f} | {v['rms z']:.2f} |")
    return lines if len(lines) > 2 else []


def report(doc, results, meta, runs, minutes, jobs, commit, date, t6_more=None):
    t5_methods = BASIC + (T5_EXTRA,)
    parts = doc.split("\n\n")
    lines = ["## Active assessment, Ji et al.'s Tables 3-7", "",
             f"Run {date}, commit {commit}, `python -m benchmarks.assessment_tables "
             f"--runs {runs}` ({minutes:.1f} min, {jobs} processes); {runs} runs per cell (Ji et al.: 1000). "
             + " ".join(parts[2].split()), "", parts[3], "", " ".join(parts[4].split()), "",
             "Files: " + "; ".join(f"{n}: {i['n']} items, {i['k']} classes, top-1 accuracy {i['acc']:.3f}, "
                                   f"ECE {i['ece']:.3f}" for n, i in meta.items()) + ".", "",
             " ".join(parts[5].split()), ""]
    bins = spe0_bin_table(meta)
    lines += bins + ([""] if bins else []) + [" ".join(parts[6].split()), ""]
    lines += centre_table(results, meta)
    lines += ["", "### Table 3: RMSE (points) of accuracy per predicted class", ""]
    lines += budget_table(results, meta, "t3", BASIC, lambda k: (2 * k, 5 * k, 10 * k), "{:.1f}", "t3")
    lines += [""] + differences(results, meta, "t3", "{:.2f}")
    lines += ["", "### Table 4: confusion-matrix RMSE divided by the score prior's RMSE with no labels", ""]
    lines += budget_table(results, meta, "t4", BASIC, lambda k: (2 * k, 5 * k, 10 * k), "{:.3f}", "t4")
    lines += [""] + differences(results, meta, "t4", "{:.3f}")
    lines += ["", "Ji et al.'s published scaled values fall by orders of magnitude within 2K-10K labels; a posterior "
              "mean that moves by one label per column cannot, so theirs may be on another scale (squared, or "
              "differently normalised); ours follow the stated definition.", "",
              "### Table 5: ECE estimation error (percent), 10 equal-width confidence bins as groups", ""]
    lines += budget_table(results, meta, "t5", t5_methods, lambda k: (20, 50, 100), "{:.1f}", "t5")
    lines += [""] + differences(results, meta, "t5", "{:.1f}")
    lines += ["", "### Table 6: percent of the test set labeled to identify the m least accurate classes "
              f"(mean MRR > {MRR_TARGET} from there on; ± bootstrap standard error over runs)", "",
              f"`gap`: accuracy of the (m+1)-th minus the m-th least accurate class; below {MIN_GAP} the file is "
              "not scored.", ""]
    lines += t6_section(results, meta) + [""]
    if t6_more is not None:
        lines += t6_more_lines(t6_more) + [""]
    lines += ["### Table 7: labels to settle the ROPE comparison of two predicted classes (mean ± standard error "
              "over runs)", ""]
    lines += t7_table(results, meta) + [""]
    return "\n".join(lines)
