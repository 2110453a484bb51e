"""The corpus' prior scripts: the mixture's weight chosen by the log score, and the report's
tables built from evaluation rows (small synthetic rows: no corpus build needed)."""

import json

import pytest

pytest.importorskip("sklearn")
from benchmarks.corpus import mixture_weight, report  # noqa: E402


def _row(kind, best_pi, budget=10):
    """A fit row whose log score peaks at ``best_pi``."""
    return {"kind": kind, "budget": budget, "w_mix": 0.5,
            **{f"ls_{pi}": -0.5 - abs(pi - best_pi) for pi in mixture_weight.GRID},
            **{f"ece_{pi}": 0.05 for pi in mixture_weight.GRID}}


def test_the_mixture_weight_is_the_best_log_score_and_sparse_kinds_borrow(tmp_path, capsys):
    rows = [_row("margin", 0.2) for _ in range(mixture_weight.MIN_ROWS)]
    rows += [_row("probability", 0.05) for _ in range(mixture_weight.MIN_ROWS)]
    rows += [_row("saturated", 0.5) for _ in range(3)]  # too few: takes the probability kind's
    (tmp_path / mixture_weight.ROWS.format(part=0)).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    chosen = mixture_weight.choose(tmp_path)
    assert chosen["margin"] == 0.2 and chosen["probability"] == 0.05
    assert chosen["saturated"] == 0.05 and chosen["few-values"] == 0.05
    assert json.loads((tmp_path / mixture_weight.CHOSEN).read_text())["mixture_weight"] == chosen
    assert "mean log score" in capsys.readouterr().out


def _fit_row(family, budget, covered, met):
    return {"task_id": f"t{family}", "family": family, "budget": budget, "failed": False,
            "ap_cov": covered, "auroc_cov": covered, "prevalence_cov": covered, "ap_err": 0.1, "ap_labels_err": 0.2,
            **{f"feasible_{c}": True for c in (0.8, 0.9, 0.95)}, **{f"met_{c}": met for c in (0.8, 0.9, 0.95)},
            **{f"recall_{c}": 0.3 for c in (0.8, 0.9, 0.95)}, "feasible_truth": True,
            "ece_spe": 0.05, "ece_raw": 0.06, "ece_platt": 0.1, "fit_s": 0.5}


def test_the_report_puts_runs_side_by_side_per_family_and_budget():
    runs = {"dev, learned (fold)": [_fit_row("logreg", 10, True, True), _fit_row("svc", 10, False, False)],
            "held-out, learned": [_fit_row("logreg", 10, True, False)]}
    text = report.tables(runs)
    assert "**10 labels**" in text
    assert "| logreg | dev, learned (fold) | 1 | 1.000 |" in text
    assert "| svc | dev, learned (fold) | 1 | 0.000 |" in text
    assert "| **overall** | dev, learned (fold) | 2 | 0.500 |" in text
    assert "| logreg | held-out, learned | 1 | 1.000 | 1.000 | 1.000 | 0.50 | 0.000 |" in text
