"""The printed summary of an evaluation: per budget, one row per family and one overall.

Three tables per budget: intervals (coverage of the 90% intervals of AP, AUROC and
prevalence; mean absolute AP error of spe and of the labeled items alone, and their
ratio), thresholds (``min_precision=0.9``: share feasible, truth met given feasible, mean
true recall given feasible, at each confidence) and calibration (mean ECE of spe's
``prob_positive()``, of the raw scores (probability families), of Platt on the labels).
Failed fits are counted; their measures are absent, never imputed.
"""

from __future__ import annotations

import numpy as np

from .measures import CONFIDENCES


def _mean(values) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def _fmt(value, digits=3) -> str:
    return "   -" if value is None else f"{value:.{digits}f}"


def summarise(rows: list[dict]) -> dict:
    """The summary numbers of a group of fit rows (failed rows counted, not measured).

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`benchmarks.corpus.evaluate.fit_row`.

    Returns
    -------
    dict
    """
    ok = [r for r in rows if not r.get("failed")]
    out = {"fits": len(rows), "failed": len(rows) - len(ok), "tasks": len({r["task_id"] for r in rows})}
    for m in ("ap", "auroc", "prevalence"):
        out[f"{m}_cov"] = _mean(r[f"{m}_cov"] for r in ok)
    out["ap_err"] = _mean(r["ap_err"] for r in ok)
    out["ap_labels_err"] = _mean(r["ap_labels_err"] for r in ok)
    out["ap_ratio"] = out["ap_err"] / out["ap_labels_err"] if out["ap_err"] is not None and out["ap_labels_err"] else None
    for c in CONFIDENCES:
        feasible = [r for r in ok if r[f"feasible_{c}"]]
        out[f"feasible_{c}"] = _mean(r[f"feasible_{c}"] for r in ok)
        out[f"met_{c}"] = _mean(r[f"met_{c}"] for r in feasible)
        out[f"recall_{c}"] = _mean(r[f"recall_{c}"] for r in feasible)
    out["feasible_truth"] = _mean(r["feasible_truth"] for r in ok)
    for k in ("ece_spe", "ece_raw", "ece_platt"):
        out[k] = _mean(r[k] for r in ok)
    out["fit_s"] = _mean(r.get("fit_s") for r in ok)
    return out


def groups(rows: list[dict]) -> dict:
    """{family: rows} in first-seen order, plus 'overall'."""
    out: dict = {}
    for r in rows:
        out.setdefault(r["family"], []).append(r)
    out["overall"] = rows
    return out


def interval_table(summaries: dict) -> list[str]:
    """Lines of the intervals table."""
    lines = [f"{'family':<12}{'fits':>6}{'fail':>5}{'tasks':>6}{'cov AP':>8}{'cov AUC':>8}{'cov prev':>9}"
             f"{'AP err':>8}{'labels':>8}{'ratio':>7}{'fit s':>7}"]
    for name, s in summaries.items():
        lines.append(f"{name:<12}{s['fits']:>6}{s['failed']:>5}{s['tasks']:>6}{_fmt(s['ap_cov']):>8}"
                     f"{_fmt(s['auroc_cov']):>8}{_fmt(s['prevalence_cov']):>9}{_fmt(s['ap_err']):>8}"
                     f"{_fmt(s['ap_labels_err']):>8}{_fmt(s['ap_ratio'], 2):>7}{_fmt(s['fit_s'], 2):>7}")
    return lines


def threshold_table(summaries: dict) -> list[str]:
    """Lines of the thresholds table: feasible / met | feasible / recall | feasible per c."""
    head = f"{'family':<12}{'truth ok':>9}" + "".join(f"{f'feas@{c}':>10}{f'met@{c}':>10}{f'rec@{c}':>9}"
                                                       for c in CONFIDENCES)
    lines = [head]
    for name, s in summaries.items():
        cells = "".join(f"{_fmt(s[f'feasible_{c}']):>10}{_fmt(s[f'met_{c}']):>10}{_fmt(s[f'recall_{c}']):>9}"
                        for c in CONFIDENCES)
        lines.append(f"{name:<12}{_fmt(s['feasible_truth']):>9}{cells}")
    return lines


def calibration_table(summaries: dict) -> list[str]:
    """Lines of the calibration table (mean ECE)."""
    lines = [f"{'family':<12}{'ECE spe':>9}{'ECE raw':>9}{'ECE Platt':>11}"]
    for name, s in summaries.items():
        lines.append(f"{name:<12}{_fmt(s['ece_spe']):>9}{_fmt(s['ece_raw']):>9}{_fmt(s['ece_platt']):>11}")
    return lines


def print_tables(rows: list[dict]) -> None:
    """Print the three tables for every budget of ``rows``, and the failures' messages."""
    for budget in sorted({r["budget"] for r in rows}):
        summaries = {k: summarise(v) for k, v in groups([r for r in rows if r["budget"] == budget]).items()}
        print(f"\n=== {budget} labels: 90% intervals (coverage), AP error spe vs labeled items alone ===")
        print("\n".join(interval_table(summaries)))
        print(f"\n--- {budget} labels: choose_threshold(min_precision=0.9, confidence=c): share feasible, "
              "truth met | feasible, true recall | feasible ('truth ok': some threshold reaches 0.9) ---")
        print("\n".join(threshold_table(summaries)))
        print(f"\n--- {budget} labels: ECE (10 bins, unlabeled items) ---")
        print("\n".join(calibration_table(summaries)))
    failures = [r for r in rows if r.get("failed")]
    if failures:
        print(f"\n{len(failures)} failed fits:")
        for r in failures[:20]:
            print(f"  {r['task_id']} {r['family']} budget {r['budget']} trial {r['trial']}: {r['error']}")


def package_of(row: dict) -> str:
    """The R package of a fit row (the first part of its task id)."""
    return row["task_id"].split("__")[0]


def _ratio_parts(rows: list[dict]) -> dict:
    """(numerator, denominator) per summary number of these rows; the number is their ratio."""
    ok = [r for r in rows if not r.get("failed")]
    parts = {f"{m}_cov": (sum(r[f"{m}_cov"] for r in ok), len(ok)) for m in ("ap", "auroc", "prevalence")}
    parts["ap_ratio"] = (sum(r["ap_err"] for r in ok), sum(r["ap_labels_err"] for r in ok))
    for c in CONFIDENCES:
        met = [r[f"met_{c}"] for r in ok if r[f"feasible_{c}"] and r[f"met_{c}"] is not None]
        parts[f"met_{c}"] = (sum(met), len(met))
    platt = [r for r in ok if r["ece_platt"] is not None]
    parts["ece_to_platt"] = (sum(r["ece_spe"] for r in platt), sum(r["ece_platt"] for r in platt))
    return parts


def package_intervals(rows: list[dict], level: float = 0.9, n_boot: int = 2000, seed: int = 0) -> dict:
    """Every overall number of :func:`_ratio_parts` with an interval from resampling R packages.

    Tasks of one R package share their data's origin and fail together, so the package, not
    the fit, is the unit that varies from one corpus to another: the bootstrap draws packages
    with replacement (each number a ratio of the drawn packages' sums).

    Returns
    -------
    dict
        name -> (estimate, low, high); None where no row measures it.
    """
    by_package: dict = {}
    for r in rows:
        by_package.setdefault(package_of(r), []).append(r)
    parts = [_ratio_parts(rr) for rr in by_package.values()]
    counts = np.random.default_rng(seed).multinomial(len(parts), np.full(len(parts), 1 / len(parts)), n_boot)
    out = {}
    for name in parts[0]:
        num = np.array([p[name][0] for p in parts], float)
        den = np.array([p[name][1] for p in parts], float)
        if den.sum() == 0:
            out[name] = None
            continue
        boot = (counts @ num) / np.where(counts @ den > 0, counts @ den, np.nan)
        low, high = np.nanquantile(boot, [(1 - level) / 2, (1 + level) / 2])
        out[name] = (float(num.sum() / den.sum()), float(low), float(high))
    return out
