"""The corpus report's numbers with intervals from resampling R packages, and its targets
table (no corpus build needed: rows are made here)."""

import pytest

from benchmarks.corpus import measures as M
from benchmarks.corpus.report import against_targets
from benchmarks.corpus.tables import package_intervals


def _row(task_id, cov, met, ap_err=0.1, labels_err=0.2):
    return {"task_id": task_id, "ap_cov": cov, "auroc_cov": cov, "prevalence_cov": cov, "ap_err": ap_err,
            "ap_labels_err": labels_err, "ece_spe": 0.05, "ece_platt": 0.1,
            **{f"feasible_{c}": met is not None for c in M.CONFIDENCES},
            **{f"met_{c}": met for c in M.CONFIDENCES}}


def test_package_intervals_resample_packages_not_fits():
    # Package A: 9 fits all covered; package B: 1 fit, missed. Pooled over fits 0.9; the packages disagree
    # completely, so resampling packages must give an interval from B-heavy to A-only draws.
    rows = [_row(f"A__t{k}__y", True, True) for k in range(9)] + [_row("B__t__y", False, False)]
    found = package_intervals(rows, n_boot=500, seed=1)
    est, low, high = found["ap_cov"]
    assert est == pytest.approx(0.9) and low < 0.9 and high == 1.0
    assert found["met_0.9"][0] == pytest.approx(0.9)
    assert found["ap_ratio"][:1] == pytest.approx((0.5,)) and found["ece_to_platt"][0] == pytest.approx(0.5)
    assert package_intervals(rows, n_boot=500, seed=1) == found  # seeded
    same = [_row(f"{p}__t__y", True, True) for p in "ABCD"]
    assert package_intervals(same)["auroc_cov"] == (1.0, 1.0, 1.0)  # packages alike: no spread
    none_feasible = [_row("A__t__y", True, None)]
    assert package_intervals(none_feasible)["met_0.9"] is None


def test_targets_missed_are_listed_and_a_clear_miss_is_told_from_noise():
    def rows(family, package_covers):
        return [_row(f"{p}__t{k}__y", cov, True) | {"family": family, "budget": 10}
                for p, cov in package_covers for k in range(3)]

    missed_everywhere = rows("gnb", [(p, False) for p in "ABCDE"])  # every package misses: a clear miss
    one_package_off = rows("mlp", [("A", False), *((p, True) for p in "BCDEFG")])  # 0.857 >= 0.85: no row
    noisy = rows("knn", [("A", False), ("B", False), *((p, True) for p in "CDEFGH")])  # 0.75, interval holds 0.85
    text = against_targets({"held-out, learned": missed_everywhere + one_package_off + noisy,
                            "held-out, spe 0.2's prior": missed_everywhere})
    lines = [line for line in text.splitlines() if line.startswith("| held-out")]
    assert all("spe 0.2" not in line for line in lines)  # only learned runs are held to the targets
    assert any("| gnb | AP cov | 0.000 [0.000, 0.000] | >= 0.85 | yes |" in line for line in lines)
    assert any("| knn | AP cov | 0.750" in line and line.endswith("| no |") for line in lines)
    assert not any("| mlp |" in line and "cov" in line for line in lines)


def test_ece_reach_scores_platt_told_every_label_on_each_fits_unlabeled_items(tmp_path):
    import numpy as np

    from benchmarks.corpus.report import ece_reach
    from benchmarks.corpus.store import save_task

    rng = np.random.default_rng(3)
    margin = rng.normal(0, 2, 4000)
    y = (rng.random(margin.size) < 1 / (1 + np.exp(-(1.5 * margin - 0.5)))).astype(int)
    save_task(tmp_path, "A__t__y", y, {"svc": margin}, {"svc": "margin"}, {})
    rows = [{"task_id": "A__t__y", "family": "svc", "budget": 10, "trial": k, "ece_spe": 0.05,
             "ece_platt": 0.1 + 0.1 * k} for k in range(2)]
    line = next(s for s in ece_reach({"dev, learned": rows}, cache=tmp_path).splitlines()
                if s.startswith("| dev, learned"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[:6] == ["dev, learned", "10", "2", "0.050", "0.150", cells[5]]
    assert float(cells[5]) < 0.03  # a sigmoid map told every label of sigmoid-calibrated margins
    assert cells[6] == "0.075"
