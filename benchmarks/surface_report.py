"""The accuracy-surface benchmark's report: tables of stored results, for RESULTS.md and the docs page.

Split from ``benchmarks/surface.py`` (which runs the cases and calls :func:`report`); the
parts stored beside ``results/surface.json`` (the paper's SL and SLP as written,
``surface_paper``; Figure 5, ``surface_figure5``) are read here too.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from spe.aaa import LADDER

from benchmarks.harness.report import run_stamp, table

HERE = Path(__file__).resolve().parent


def _config():
    """The run's cases and settings (imported late: ``benchmarks.surface`` imports this module)."""
    from benchmarks import surface

    return surface


_QUICK = {}  # a quick run's parts: reported, never written


def extra_path(part: str) -> Path:
    """Stored results of a part kept beside surface.json (which stays under 1 MB)."""
    return HERE / "results" / f"surface_{part}.json"


def extra_store(part: str, data: dict, quick: bool):
    if quick:
        _QUICK[part] = data
        return
    extra_path(part).parent.mkdir(exist_ok=True)
    extra_path(part).write_text(json.dumps(data, default=float))


def extra_load(part: str) -> dict | None:
    if part in _QUICK:
        return _QUICK[part]
    path = extra_path(part)
    return json.loads(path.read_text()) if path.exists() else None


LADDER_ORDER = ("CPredictor", "Beta-I", "BernGP", "BetaGP", "BetaGP-SL", "BetaGP-SLP", "confidence-only", "spe")


def _mean(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return float(np.mean(vals)) if vals else float("nan")


def aggregate(rows) -> list:
    """Mean over seeds per (case, labels, method)."""
    cases = list(_config().REAL) + list(_config().GENERATED)
    keys = sorted({(r["case"], r["labels"], r["method"]) for r in rows},
                  key=lambda k: (cases.index(k[0]) if k[0] in cases else 99, k[1],
                                 LADDER_ORDER.index(k[2]) if k[2] in LADDER_ORDER else 99))
    out = []
    for case, labels, method in keys:
        sel = [r for r in rows if (r["case"], r["labels"], r["method"]) == (case, labels, method)]
        row = {"case": case, "labels": labels, "method": method, "seeds": len(sel)}
        for k in ("mse", "worst", "cov", "width", "paper_mse", "paper_worst", "paper_cov", "s", "floor",
                  "floor_given"):
            row[k] = _mean(sel, k)
        row["mse_se"] = float(np.std([r["mse"] for r in sel], ddof=1) / np.sqrt(len(sel))) if len(sel) > 1 else 0.0
        out.append(row)
    return out


def wide(agg, key, with_floor=False) -> tuple[list, list]:
    """One row per (case, labels), one column per method."""
    present = [m for m in LADDER_ORDER if any(r["method"] == m for r in agg)]
    rows = []
    for case, labels in dict.fromkeys((r["case"], r["labels"]) for r in agg):
        sel = {r["method"]: r for r in agg if (r["case"], r["labels"]) == (case, labels)}
        row = {"case": case, "labels": labels}
        if with_floor:
            any_row = next(iter(sel.values()))
            row["floor"], row["floor, labels known"] = any_row["floor"], any_row["floor_given"]
        for m in present:
            row[m] = sel[m][key] if m in sel else None
        rows.append(row)
    cols = ["case", "labels"] + (["floor", "floor, labels known"] if with_floor else []) + present
    return rows, cols


def ordering(agg) -> list:
    """The paper's claims on generated data: SL and SLP below BetaGP and Beta-I (ratios < 1)."""
    out = []
    for case, labels in dict.fromkeys((r["case"], r["labels"]) for r in agg if r["case"].startswith("gen")):
        sel = {r["method"]: r for r in agg if (r["case"], r["labels"]) == (case, labels)}
        if not all(m in sel for m in ("Beta-I", "BetaGP", "BetaGP-SL", "BetaGP-SLP")):
            continue
        row = {"case": case, "labels": labels}
        for key, tag in (("paper_mse", "macro"), ("paper_worst", "worst")):
            for new in ("BetaGP-SL", "BetaGP-SLP"):
                for old in ("BetaGP", "Beta-I"):
                    row[f"{tag} {new[7:]}/{old}"] = sel[new][key] / sel[old][key]
        for old in ("BetaGP", "Beta-I"):
            ratios = [v for k, v in row.items() if k.endswith(f"/{old}")]
            row[f"below {old}"] = "yes" if all(v < 1 for v in ratios) else f"no ({sum(v >= 1 for v in ratios)} of 4)"
        out.append(row)
    return out


def labels_to_reach(own, target) -> float:
    """Labels at which the own-policy curve first reaches ``target`` (linear interpolation)."""
    explore = _config().EXPLORE
    xs = explore["start"] + explore["batch"] * np.arange(len(own))
    for i, v in enumerate(own):
        if v <= target:
            if i == 0:
                return float(xs[0])
            frac = (own[i - 1] - target) / (own[i - 1] - v)
            return float(xs[i - 1] + frac * (xs[i] - xs[i - 1]))
    return float("inf")


def exploration_rows(results) -> list:
    out = []
    cases = list(_config().REAL) + list(_config().GENERATED)
    order = sorted(dict.fromkeys((r["case"], r["method"]) for r in results),
                   key=lambda k: (cases.index(k[0]), LADDER_ORDER.index(k[1]) if k[1] in LADDER_ORDER else 99))
    for case, method in order:
        sel = [r for r in results if (r["case"], r["method"]) == (case, method)]
        own = np.mean([r["own"] for r in sel], axis=0)
        rnd = np.mean([r["random"] for r in sel], axis=0)
        explore = _config().EXPLORE
        last = explore["start"] + explore["batch"] * (own.size - 1)
        need = labels_to_reach(own, rnd[-1])
        row = {"case": case, "method": method, "seeds": len(sel), "start": own[0]}
        for i in range(2, own.size, 2):
            n = explore["start"] + explore["batch"] * i
            row[f"own {n}"], row[f"random {n}"] = own[i], rnd[i]
        if rnd[-1] >= rnd[0]:  # more random labels made this method worse: nothing to reach
            row[f"labels to random's {last}"], row["ratio"] = "n/a (random labels do not help)", float("nan")
        else:
            row[f"labels to random's {last}"] = f"{need:.0f}" if np.isfinite(need) else f"> {last}"
            row["ratio"] = need / last if np.isfinite(need) else float("nan")
        out.append(row)
    return out


def report(stored, docs=False) -> str:
    est = aggregate(stored.get("estimation", []))
    spec = "{:.4f}"
    lines = [run_stamp() if "stamp" not in stored else stored["stamp"], ""]
    stamps = stored.get("stamps", {})
    if len(set(stamps.values())) > 1:  # methods run at different commits: say which
        by_stamp = {}
        for method, stamp in stamps.items():
            by_stamp.setdefault(stamp.split(";")[0], []).append(method)
        lines = [" ".join(f"{', '.join(ms)}: {st}." for st, ms in by_stamp.items()), ""]
    if not docs:
        lines = ["## Accuracy surfaces (`benchmarks/surface.py`)", ""] + lines
    lines += [
        f"Seeds: {stored.get('seeds')} per case and budget in the estimation tables (a fresh generated surface per "
        f"seed; exploration: its `seeds` column). Arms with >= "
        f"{_config().MIN_ITEMS} items are scored against their realised accuracy (all items). Ladder methods in realised "
        "form (labeled items as observed, the rest Bernoulli(rho_a)); `floor`: mean over arms of sum p_i(1 - p_i)"
        "/n^2 (generated: true p; COMPAS: p from a logistic regression of correctness on logit confidence + "
        "attribute main effects fitted to all labels); `floor, labels known`: the same for an oracle that also knows "
        "the labeled items. `spe` is spe's default (`spe.accuracy_surface`), shown when present.",
        "",
    ]
    if est:
        for title, key, floor in (("Macro MSE over arms", "mse", True), ("MSE of the worst tenth of arms", "worst",
                                                                           False),
                                  ("90% interval coverage per arm", "cov", False)):
            rows, cols = wide(est, key, floor)
            if docs and "spe" in cols:  # on the docs page the package's own column comes first, readable unscrolled
                cols = cols[:2] + ["spe"] + [c for c in cols[2:] if c != "spe"]
            lines += [f"### {title}", "", table(rows, cols, spec), ""]
        if not docs:
            rows, cols = wide([r for r in est if r["method"] in LADDER], "paper_mse")
            lines += ["### The paper's form: E[rho_a] and its interval (macro MSE; coverage below)", "",
                      table(rows, cols, spec), ""]
            rows, cols = wide([r for r in est if r["method"] in LADDER], "paper_cov")
            lines += [table(rows, cols, spec), ""]
        order = ordering(est)
        if order:
            lines += ["### spe's reading of the ladder on generated data (paper's form; ratios of MSE, < 1 = the "
                      "paper's ordering)", "", "spe's BetaGP-SL supervises the scales of the labeled arms only; the "
                      "paper's own form (all arms smoothed and supervised) is tested in the next section.", "",
                      table(order, list(order[0]), "{:.2f}"), ""]
        if not docs:
            lines += ["<details><summary>Every row (mean over seeds; mse_se: its standard error)</summary>", "",
                      table(est, ["case", "labels", "method", "seeds", "mse", "mse_se", "worst", "cov", "width",
                                  "paper_mse", "paper_worst", "paper_cov", "s"], spec), "", "</details>", ""]
    paper, figure5 = extra_load("paper"), extra_load("figure5")
    if paper:
        from benchmarks import surface_paper

        lines += [surface_paper.report(paper["rows"], docs=docs, stamp=paper["stamp"])]
    if figure5:
        from benchmarks import surface_figure5

        lines += [surface_figure5.report(figure5, docs=docs)]
    if stored.get("exploration"):
        rows = exploration_rows(stored["exploration"])
        lines += ["### Exploration: macro MSE, own policy vs random labels (same start of 100 random labels)", "",
                  f"Batches of {_config().EXPLORE['batch']}; `labels to random's 500`: labels the own policy needs to reach the "
                  "macro MSE that random labelling reaches with 500 (interpolated between batches); `ratio` = that / 500.",
                  "", table(rows, list(rows[0]), spec), ""]
    if stored.get("speed"):
        lines += ["### Speed: count + fit + per-arm table (1,000 random labels; one process, one BLAS thread)", "",
                  table(stored["speed"], ["size", "method", "items", "arms", "s", "peak_mib", "extra_mib", "error"],
                        {"s": "{:.2f}", "peak_mib": "{:.0f}", "extra_mib": "{:.0f}", "items": "{:.0f}",
                         "arms": "{:.0f}"}), ""]
    return "\n".join(lines)
