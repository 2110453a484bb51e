"""`benchmarks/several_hard.py`'s tables and choices on constructed inputs (no corpus needed)."""

import numpy as np
import pytest
from scipy import stats

import spe
from benchmarks import several_hard as sh
from spe.several import _binary, _label_model


def row(method, truth, est, lo, hi, w=0.0, **extra):
    return {"method": method, "model": "m", "truth": truth, "est": est, "lo": lo, "hi": hi, "w_DS": w} | extra


def test_summary_rows_average_errors_coverage_and_width_per_method_in_order():
    rows = [row("a", 0.8, 0.9, 0.85, 0.95, w=1.0),  # misses above
            row("a", 0.8, 0.7, 0.6, 0.8, w=0.0),    # covers at its upper end
            row("b", 0.5, 0.5, 0.4, 0.6, prevalence_covered=True),
            row("b", 0.5, 0.6, 0.55, 0.65, prevalence_covered=False),
            {"method": "b", "failed": "ValueError: no model can inform the labels"},
            {"method": "c", "failed": "ValueError"}]
    out = sh.summary_rows(rows, ["b", "missing", "a", "c"])
    assert [r["method"] for r in out] == ["b", "a", "c"], "methods in the order given, absent ones left out"
    b, a, c = out
    assert (b["fits"], b["failed"], a["failed"], c["fits"], c["failed"]) == (2, 1, 0, 0, 1)
    assert "failed: 1" not in sh.table(out, sh.COLS, sh.FORMATS) and "| c | 0 | 1 | - |" in sh.table(
        out, sh.COLS, sh.FORMATS), "a method whose every fit failed is shown, its averages blank"
    assert a["fits"] == 2 and a["MAE"] == pytest.approx(0.1) and a["bias"] == pytest.approx(0.0)
    assert a["coverage"] == 0.5 and a["width"] == pytest.approx(0.15) and a["w_DS"] == 0.5
    assert "prevalence coverage" not in a
    assert b["MAE"] == pytest.approx(0.05) and b["bias"] == pytest.approx(0.05)
    assert b["coverage"] == 0.5 and b["prevalence coverage"] == 0.5


def test_estimate_and_labeled_rows():
    draws = np.linspace(0.0, 1.0, 101)
    r = sh.estimate_row("m", "x", 0.3, draws, 0.2)
    assert (r["est"], r["lo"], r["hi"], r["w_DS"]) == pytest.approx((0.5, 0.05, 0.95, 0.2))
    lab = sh.labeled_row("x", 0.7, 15, 20)
    assert lab["est"] == 0.75 and lab["method"] == sh.LABELED
    assert (lab["lo"], lab["hi"]) == pytest.approx(stats.beta.ppf([0.05, 0.95], 15.5, 5.5))


def test_a_model_with_one_value_is_a_failed_cells_fit_not_a_dropped_one():
    y = np.r_[np.ones(10), np.zeros(30)]
    labels = np.where(np.arange(40) < 20, y, np.nan)
    r = sh.cells_row("flat", np.zeros(40), y, labels, 0)
    assert r["method"] == sh.CELLS and "failed" in r
    assert sh.fit_rows("x", {"a": np.zeros(40), "b": np.ones(40)}, y, labels, 0)[0]["failed"].startswith(
        "ValueError: no model can inform the labels")


def test_cut_at_the_kinds_threshold():
    s = np.array([-0.2, 0.0, 0.3, 0.5, 0.9])
    assert sh.cut(s, "probability").tolist() == [0, 0, 0, 1, 1]
    assert sh.cut(s, "margin").tolist() == [0, 1, 1, 1, 1]


def test_dev_tasks_never_take_the_held_out_half_and_keep_the_size_and_prevalence_bounds():
    index = [{"task_id": f"t{i}", "package": pkg, "half": half, "n": n, "prevalence": p}
             for i, (pkg, half, n, p) in enumerate([("aer", "dev", 1000, 0.3), ("mass", "heldout", 1000, 0.3),
                                                    ("boot", "dev", 200, 0.3), ("car", "dev", 1000, 0.05),
                                                    ("datasets", "dev", 5000, 0.9)])]
    assert sorted(sh.dev_tasks(index, 10)) == ["t0", "t4"]
    assert len(sh.dev_tasks(index, 1)) == 1


def test_mixed_variants_put_the_cut_models_in_the_label_model_and_restore_fit_many():
    rng = np.random.default_rng(5)
    y = (rng.random(300) < 0.4).astype(float)
    scores = {"r1": rng.normal(size=300) + 2 * y, "r2": rng.normal(size=300) + y,
              "h1": np.where(rng.random(300) < 0.8, y, 1 - y), "h2": np.where(rng.random(300) < 0.7, y, 1 - y)}
    labels = np.where(np.arange(300) < 30, y, np.nan)
    saved = _binary.split_models, _label_model._own_maps
    fits = {}
    for variant in sh.MIXED:
        with sh.mixed_variant(variant):
            res = spe.fit_many(scores, labels, seed=0, n_draws=200, label_model=("maps", "joint"))
        fits[variant] = (set(res.excluded), set(res.label_model.fits))
        assert (_binary.split_models, _label_model._own_maps) == saved, "the patch outlives its block"
    default, kept, no_maps = (fits[v] for v in sh.MIXED)
    assert default[0] == {"h1", "h2"} and sh.DS not in default[1]
    assert kept[0] == set() and {"h1", "h2", sh.DS} <= kept[1]
    assert no_maps[0] == set() and sh.DS in no_maps[1] and not {"h1", "h2"} & no_maps[1]


def test_a_simulated_set_where_dawid_skene_is_the_true_model():
    rows = sh.simulated_trial(1)
    out = {r["method"]: r for r in sh.summary_rows(rows, [*sh.SIM_METHODS, sh.LABELED])}
    assert {r["fits"] for r in out.values()} == {len(sh.SIMULATED)}
    ds, lab = out["fit_many, Dawid-Skene alone"], out[sh.LABELED]
    assert ds["w_DS"] == 1.0 and out["fit_many (stack)"]["w_DS"] > 0.5
    assert ds["MAE"] < lab["MAE"] / 2 and ds["width"] < lab["width"] / 2
