"""Tables, figure and the evidence page's block of ``benchmarks/real.py``, from its trials.

``python -m benchmarks.real --report`` rebuilds all three from ``results/real.json``.
"""

from __future__ import annotations

import json
import os
import platform

import numpy as np

from benchmarks.harness.metrics import mean_defined
from benchmarks.harness.report import RESULTS_DIR, RESULTS_MD, ROOT, table, write_section

MARKERS = ("<!-- real-benchmark:start -->", "<!-- real-benchmark:end -->")
SUMMARY_MARKERS = ("<!-- real-summary:start -->", "<!-- real-summary:end -->")
#: The user-guide page that quotes the summary block.
DOCS_PAGE = ROOT / "docs" / "user_guide" / "evidence.md"
FIGURE = ROOT / "figures" / "real_benchmark.png"
#: The stored results of the last full run (tracked: ``--report`` rebuilds from it).
STORED = RESULTS_DIR / "real.json"


# ---- aggregation ---------------------------------------------------------------------------
def aggregate(trials, methods):
    """Rows per (case, budget) from the per-trial results."""
    rows = []
    keys = sorted({(n, b) for n, b, _, _ in trials}, key=lambda k: (list(dict.fromkeys(t[0] for t in trials)).index(k[0]), k[1]))
    for name, budget in keys:
        group = [out for n, b, _, out in trials if n == name and b == budget]
        row = {"case": name, "labels": budget, "trials": len(group)}
        for m in methods:
            ok = [g[m] for g in group if m in g and not g[m].get("failed") and "err" in g[m]]
            row[f"{m}_failed"] = sum(int(g[m].get("failed", 0)) for g in group if m in g)
            for key in ("err", "cov", "width", "iscore", "prevalence_cov", "ap_cov", "accuracy_cov",
                        "prevalence_err", "ap_err", "accuracy_err", "s", "mcmc", "khat_bad", "w_mixture",
                        "err_mean_estimate", "prevalence_err_mean_estimate", "ap_err_mean_estimate",
                        "accuracy_err_mean_estimate"):
                row[f"{m}_{key}"] = mean_defined([o.get(key) for o in ok])
            if m != "naive" and ok:
                row[f"{m}_s"] = float(np.median([o["s"] for o in ok]))
            flagged = [o for o in ok if o.get("disagree") == 1]
            unflagged = [o for o in ok if o.get("disagree") == 0]
            row[f"{m}_n_disagree"], row[f"{m}_n_agree"] = len(flagged), len(unflagged)
            for key in ("err", "prevalence_err", "prevalence_cov", "ap_cov"):
                row[f"{m}_{key}_disagree"] = mean_defined([o[key] for o in flagged])
                row[f"{m}_{key}_agree"] = mean_defined([o[key] for o in unflagged])
        if "naive" in methods:
            naive = [g["naive"] for g in group if "err" in g.get("naive", {})]
            for m in methods:
                if m == "naive":
                    continue
                pairs = [(g[m]["err"], g["naive"]["err"]) for g in group
                         if "err" in g.get(m, {}) and "err" in g.get("naive", {})]
                row[f"{m}_ratio"] = (float(np.mean([a for a, _ in pairs]) / np.mean([b for _, b in pairs]))
                                     if pairs and np.mean([b for _, b in pairs]) > 0 else float("nan"))
                row[f"{m}_win"] = mean_defined([float(a <= b + 0.01) for a, b in pairs]) if pairs else float("nan")
            row["naive_no_positive"] = sum(g.get("no_positive", 0) for g in naive)
        rows.append(row)
    return rows


def aggregate_ssme(results, methods):
    rows = []
    names = list(dict.fromkeys(n for n, _, _ in results))
    for name in names:
        done = [e for n, _, e in results if n == name and e is not None]
        for m in ["labeled only", *methods, "floor (all fitted items labeled)"]:
            ok = [e[m] for e in done if e.get(m) is not None]
            if not ok:
                continue
            rows.append({"model": name, "method": m, "seeds": len(ok),
                         **{k: mean_defined([o[k] for o in ok]) for k in ("accuracy", "auc", "auprc", "ece")},
                         "s": float(np.median([o["s"] for o in ok])) if m in methods else float("nan")})
    return rows


def summary_by_file(rows):
    """Mean over the models of each file, per method, and the ratio to labeled-only.

    Each method's ratio uses the labeled-only error on the models that method ran on
    (spe refuses scores with fewer than 3 distinct values, e.g. a 2-leaf decision tree).
    """
    keys = ("accuracy", "auc", "auprc", "ece")
    out = []
    for f in dict.fromkeys(r["model"].split()[0] for r in rows):
        sub = [r for r in rows if r["model"].split()[0] == f]
        base = {r["model"]: r for r in sub if r["method"] == "labeled only"}
        for m in dict.fromkeys(r["method"] for r in sub):
            mine = [r for r in sub if r["method"] == m]
            vals = {k: mean_defined([r[k] for r in mine]) for k in keys}
            ref = {k: mean_defined([base[r["model"]][k] for r in mine if r["model"] in base]) for k in keys}
            out.append({"file": f, "method": m, "models": len(mine), **vals,
                        **{f"{k}_ratio": vals[k] / ref[k] if ref[k] else float("nan") for k in keys}})
    return out

def headline(rows, methods):
    """The package's targets, over cases, at 10, 20 and 50 labels."""
    out = []
    for m in [x for x in methods if x != "naive"]:
        sel = [r for r in rows if r["labels"] in (10, 20, 50)]
        if not sel:
            continue
        low = [r for r in rows if r["labels"] in (10, 20)]
        cases = list(dict.fromkeys(r["case"] for r in rows))
        falls = [c for c in cases
                 if any(r["case"] == c and r["labels"] == 10 for r in rows)
                 and any(r["case"] == c and r["labels"] == 100 for r in rows)]
        fall_ok = sum(next(r[f"{m}_err"] for r in rows if r["case"] == c and r["labels"] == 100)
                      < next(r[f"{m}_err"] for r in rows if r["case"] == c and r["labels"] == 10) for c in falls)
        at100 = [r[f"{m}_ratio"] for r in rows if r["labels"] == 100]
        out.append({
            "method": m,
            "band_cov_mean": mean_defined([r[f"{m}_cov"] for r in sel]),
            "band_cov_min_case": min(mean_defined([r[f"{m}_cov"] for r in sel if r["case"] == c]) for c in cases),
            "iscore_vs_boot": mean_defined([r[f"{m}_iscore"] for r in low]) / mean_defined([r["naive_iscore"] for r in low]),
            "iscore_vs_platt": (mean_defined([r[f"{m}_iscore"] for r in low]) / mean_defined([r["platt_iscore"] for r in low])
                                if "platt_iscore" in low[0] else float("nan")),
            "prev_cov": mean_defined([r[f"{m}_prevalence_cov"] for r in sel]),
            "ap_cov": mean_defined([r[f"{m}_ap_cov"] for r in sel]),
            "acc_cov": mean_defined([r[f"{m}_accuracy_cov"] for r in sel]),
            "win_rate": mean_defined([r[f"{m}_win"] for r in low]),
            # ratios of means over case x budget rows, as the targets are stated
            "err_ratio": mean_defined([r[f"{m}_err"] for r in low]) / mean_defined([r["naive_err"] for r in low]),
            "median_case_ratio": float(np.median([r[f"{m}_ratio"] for r in low])),
            "max_ratio_100": max(at100) if at100 else float("nan"),
            "falls_10_to_100": f"{fall_ok}/{len(falls)}",
            "mean_err": mean_defined([r[f"{m}_err"] for r in low]),
        })
    return out

def point_estimates(rows, methods):
    """Mean error of the posterior median (reported) and mean (not) over cases, per budget band."""
    out = []
    for m in [x for x in methods if x != "naive"]:
        for label, budgets in (("10-20", (10, 20)), ("50-100", (50, 100))):
            sel = [r for r in rows if r["labels"] in budgets]
            if not sel or f"{m}_err_mean_estimate" not in sel[0]:
                continue
            row = {"method": m, "labels": label,
                   "pr_median": mean_defined([r[f"{m}_err"] for r in sel]),
                   "pr_mean": mean_defined([r[f"{m}_err_mean_estimate"] for r in sel])}
            for key in ("prevalence", "ap", "accuracy"):
                row[f"{key}_median"] = mean_defined([r[f"{m}_{key}_err"] for r in sel])
                row[f"{key}_mean"] = mean_defined([r[f"{m}_{key}_err_mean_estimate"] for r in sel])
            out.append(row)
    return out


def disagreement_rows(rows, m="spe"):
    """Per budget over cases: share of trials flagged, and errors/coverage flagged vs not
    (means weighted by each case's trial counts)."""
    out = []
    for budget in sorted({r["labels"] for r in rows if f"{m}_n_disagree" in r}):
        sel = [r for r in rows if r["labels"] == budget and f"{m}_n_disagree" in r]
        n_dis = sum(r[f"{m}_n_disagree"] for r in sel)
        n_agr = sum(r[f"{m}_n_agree"] for r in sel)

        def pooled(key, side, count):
            total = sum(r[count] for r in sel if r[count])
            return (sum(r[f"{m}_{key}_{side}"] * r[count] for r in sel if r[count]) / total
                    if total else float("nan"))

        out.append({"labels": budget, "trials": n_dis + n_agr,
                    "share_disagree": n_dis / max(n_dis + n_agr, 1),
                    "err_disagree": pooled("err", "disagree", f"{m}_n_disagree"),
                    "err_agree": pooled("err", "agree", f"{m}_n_agree"),
                    "prev_err_disagree": pooled("prevalence_err", "disagree", f"{m}_n_disagree"),
                    "prev_err_agree": pooled("prevalence_err", "agree", f"{m}_n_agree"),
                    "prev_cov_disagree": pooled("prevalence_cov", "disagree", f"{m}_n_disagree"),
                    "prev_cov_agree": pooled("prevalence_cov", "agree", f"{m}_n_agree")})
    return out


def report(results, args_text):
    rows, methods = results["rows"], results["methods"]
    hl = headline(rows, methods)
    lines = [
        "## Real classifier outputs (`benchmarks/real.py`)",
        "",
        f"Run {results['date']} on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; " + ", ".join(f"{k} {v}" for k, v in results["versions"].items())
        + f"; commit {results['commit']}. Command: `python -m benchmarks.real{args_text}` "
        f"({results['seconds'] / 60:.1f} min, {results['jobs']} processes).",
        "",
        "Methods: `spe` = package default (score mixture + Bayesian piecewise Platt, weighted by their "
        "LOO predictive densities on the labels); `spe+calibrated` = the same plus, for probability scores, "
        "the opt-in `calibrated` member (Platt with a tight prior at \"the probabilities are right\"); "
        "`mixture` = the plain SPE mixture of spe 0.1; `platt` = "
        "Bayesian Platt alone (the baseline to beat); `beta` = Bayesian beta calibration alone; `spline` = "
        "Bayesian piecewise Platt alone (a slope per quartile segment of the logit); `naive` = labeled "
        "items alone with a bootstrap band. Cases of N = 2,000 (subsampled, seeded) unless `full`.",
        "",
        "### Targets over cases at 10/20/50 labels",
        "",
        "`band_cov_*` = 90% PR band coverage (mean; worst case); `iscore_vs_boot` / `iscore_vs_platt` = mean "
        "interval score / that of the bootstrap band (target <= 0.7) / of the Platt band (target < 1), 10-20 "
        "labels; `*_cov` = 90% interval coverage of prevalence, AP, accuracy (target >= 0.8); `win_rate` = "
        "share of trials with error <= naive + 0.01 (10-20 labels, target >= 0.75); `err_ratio` = mean error "
        "/ naive mean error over cases (10-20 labels, target <= 0.6), `median_case_ratio` the median of the "
        "per-case ratios (robust to cases where the labels alone are nearly exact); `max_ratio_100` = worst "
        "case at 100 labels (target <= 1.1); `falls_10_to_100` = cases whose error at 100 labels is below "
        "that at 10.",
        "",
        table(hl, ["method", "band_cov_mean", "band_cov_min_case", "iscore_vs_boot", "iscore_vs_platt", "prev_cov",
                   "ap_cov", "acc_cov", "win_rate", "err_ratio", "median_case_ratio", "max_ratio_100",
                   "falls_10_to_100", "mean_err"]),
        "",
        "### Point estimate: posterior median or mean",
        "",
        "The package reports the weighted posterior median (pointwise for curves); the same fits' "
        "posterior mean gave these errors (mean over cases; 10-20 and 50-100 labels).",
        "",
        table(point_estimates(rows, methods), ["method", "labels", "pr_median", "pr_mean", "prevalence_median",
                                               "prevalence_mean", "ap_median", "ap_mean", "accuracy_median",
                                               "accuracy_mean"]),
        "",
        "### PR curve: error, band coverage, interval score per case and budget",
        "",
        table(rows, ["case", "labels", "trials"] + [f"{m}_err" for m in methods]
              + [f"{m}_cov" for m in methods] + [f"{m}_iscore" for m in methods]
              + [f"{m}_ratio" for m in methods if m != "naive"] + [f"{m}_win" for m in methods if m != "naive"]),
        "",
        "### Scalar intervals (90%): coverage and absolute error",
        "",
        table(rows, ["case", "labels"] + [f"{m}_{k}_{q}" for k in ("prevalence", "ap", "accuracy")
                                          for q in ("cov", "err") for m in methods]),
        "",
        "### Stated disagreement between score models (`spe`)",
        "",
        "`summary()` says the score models disagree when two that carry weight >= 0.05 have 90% intervals "
        "of prevalence or AP more than 0.01 apart. Per label budget, over all cases: how often it said so, "
        "and the PR-area error, prevalence error and coverage of the trials where it did and did not.",
        "",
        table(disagreement_rows(rows), ["labels", "trials", "share_disagree", "err_disagree", "err_agree",
                                        "prev_err_disagree", "prev_err_agree", "prev_cov_disagree",
                                        "prev_cov_agree"]),
        "",
        "### Fits: median time (s), MCMC share, k-hat > 0.7 share, stacking weight of the mixture, failures",
        "",
        table(rows, ["case", "labels"] + [f"{m}_{k}" for m in methods if m != "naive"
                                          for k in ("s", "mcmc", "khat_bad", "w_mixture", "failed")]),
        "",
    ]
    if results.get("ssme"):
        lines += [
            "### SSME's protocol (20 labeled + 1,000 unlabeled, truth on a held-out half)",
            "",
            f"Mean absolute error in points over seeds ({results['ssme_seeds']} seeds, seeds with one class "
            "among the labels skipped), mean over the models of each binary file (10 models for the fairness "
            "files' `scores_all`, 1 for imdb). `*_ratio` = error / labeled-only error. ssme-lite runs on "
            f"the first {results['ssme_lite_seeds']} seeds of the first model of each file only (it takes "
            "tens of seconds per fit). Its published numbers on its own CivilComments data (7 models): "
            "accuracy 2.27, ECE 2.12, AUC 3.28, AUPRC 9.41; labeled-only 5.54, 5.05, 6.98, 22.4 (reference, "
            "not the same data)." + (f" {results['ssme_note']}." if results.get("ssme_note") else ""),
            "",
            table(results["ssme_summary"], ["file", "method", "models", "accuracy", "auc", "auprc", "ece",
                                            "accuracy_ratio", "auc_ratio", "auprc_ratio"]),
            "",
            "<details><summary>Per model</summary>",
            "",
            table(results["ssme"], ["model", "method", "seeds", "accuracy", "auc", "auprc", "ece", "s"]),
            "",
            "</details>",
            "",
        ]
    return "\n".join(lines)

def readme_summary(results) -> str:
    """The evidence page's block: targets over cases and the SSME protocol, from stored results."""
    rows, methods = results["rows"], results["methods"]
    lines = [
        f"From `python -m benchmarks.real` (run {results['date']}, commit {results['commit']}; "
        f"{len({r['case'] for r in rows})} cases, {max(r['trials'] for r in rows)} trials per label "
        "budget; full tables in `benchmarks/RESULTS.md`). Targets over cases at "
        "10/20/50 labels (band coverage >= 0.85 mean and >= 0.6 per case; interval score <= 0.7x the "
        "bootstrap band's; scalar coverage >= 0.8; win rate >= 0.75; error <= 0.6x the labels alone):",
        "",
        table(headline(rows, methods), ["method", "band_cov_mean", "band_cov_min_case", "iscore_vs_boot",
                                        "iscore_vs_platt", "prev_cov", "ap_cov", "acc_cov", "win_rate",
                                        "err_ratio", "median_case_ratio", "max_ratio_100", "falls_10_to_100"]),
        "",
    ]
    flagged = disagreement_rows(rows)
    if flagged:
        lines += [
            "How often `summary()` said the score models disagree, and the PR-area error and prevalence "
            "coverage of `spe` in the trials where it did and did not:",
            "",
            table(flagged, ["labels", "trials", "share_disagree", "err_disagree", "err_agree",
                            "prev_cov_disagree", "prev_cov_agree"]),
            "",
        ]
    if results.get("ssme_summary"):
        lines += [
            f"SSME's protocol (20 labels + 1,000 unlabeled, truth on a held-out half, {results['ssme_seeds']} "
            "seeds; mean absolute error in points, mean over each file's models):",
            "",
            table(results["ssme_summary"], ["file", "method", "models", "accuracy", "auc", "auprc", "ece",
                                            "accuracy_ratio", "auc_ratio", "auprc_ratio"]),
            "",
        ]
    return "\n".join(lines)


def rebuild_report(path=STORED):
    """Regenerate the RESULTS.md section, the figure and the evidence page's block from stored results."""
    results = json.loads(path.read_text())
    if results.get("ssme"):  # derived tables are recomputed from the stored rows
        results["ssme_summary"] = summary_by_file(results["ssme"])
    text = report(results, results.get("args", ""))
    write_section(text, RESULTS_MD, MARKERS)
    write_section(readme_summary(results), DOCS_PAGE, SUMMARY_MARKERS)
    figure(results["rows"], results["methods"], FIGURE)
    print(text)


def figure(rows, methods, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    cases = list(dict.fromkeys(r["case"] for r in rows))
    shown = [m for m in methods if m != "naive"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.32 * len(cases) + 1.8), sharey=True)
    y = np.arange(len(cases))
    colors = {"spe": "tab:red", "spe+calibrated": "tab:orange", "mixture": "tab:gray", "platt": "tab:blue",
              "beta": "tab:green", "spline": "tab:purple"}
    height = 0.8 / len(shown)
    for i, m in enumerate(shown):
        off = (i - (len(shown) - 1) / 2) * height
        ratio = [mean_defined([r[f"{m}_ratio"] for r in rows if r["case"] == c and r["labels"] in (10, 20, 50)]) for c in cases]
        cov = [mean_defined([r[f"{m}_cov"] for r in rows if r["case"] == c and r["labels"] in (10, 20, 50)]) for c in cases]
        axes[0].barh(y + off, ratio, height=height, color=colors.get(m, "k"), label=m)
        axes[1].barh(y + off, cov, height=height, color=colors.get(m, "k"), label=m)
    if "naive" in methods:
        cov = [mean_defined([r["naive_cov"] for r in rows if r["case"] == c and r["labels"] in (10, 20, 50)]) for c in cases]
        axes[1].plot(cov, y, "k|", ms=10, mew=2, label="naive bootstrap")
    axes[0].axvline(1.0, color="k", lw=1, ls="--")
    axes[0].set_xscale("log")
    # Labelled minor ticks of a log axis spanning less than two decades collide ("2 x 10^-1"
    # beside "3 x 10^-1"): label a few round ratios only.
    ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 5, 10) if axes[0].get_xlim()[0] <= t <= axes[0].get_xlim()[1]]
    axes[0].xaxis.set_major_locator(FixedLocator(ticks))
    axes[0].xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axes[0].xaxis.set_minor_formatter(NullFormatter())
    axes[0].set_xlabel("PR-area error / labeled-only error (10-50 labels; < 1 is better)")
    axes[1].axvline(0.9, color="k", lw=1, ls="--")
    axes[1].set_xlim(0, 1.02)
    axes[1].set_xlabel("90% PR band coverage of the true curve (10-50 labels)")
    axes[0].set_yticks(y, cases)
    axes[0].invert_yaxis()
    axes[1].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle("spe on real classifier outputs")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
