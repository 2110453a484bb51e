"""`benchmarks/several_corpus.py`'s label budgets (``--labels``) on constructed tasks and
results (no corpus build needed)."""

import numpy as np
import pytest
from scipy import stats

from benchmarks import several_corpus as sc
from benchmarks.corpus import store


@pytest.fixture
def one_task(tmp_path, monkeypatch):
    """A 400-item task of three models (one clearly the best by AUROC and AP) in a cache of
    its own; one_fit runs the default fit_many only."""
    rng = np.random.default_rng(3)
    y = (rng.random(400) < 0.4).astype(float)
    scores = {name: rng.normal(size=400) + shift * y for name, shift in (("best", 3.0), ("mid", 1.0), ("weak", 0.4))}
    store.save_task(tmp_path, "t", y, scores, dict.fromkeys(scores, "margin"), {})
    monkeypatch.setattr(sc, "CACHE", tmp_path)
    monkeypatch.setattr(sc, "METHODS", {"fit_many": {}})
    return "t"


def without_times(out):
    return {**out, "methods": {m: {k: v for k, v in r.items() if k != "s"} for m, r in out["methods"].items()}}


def test_twenty_labels_stay_the_default_and_a_budget_draws_that_many(one_task):
    default = sc.one_fit((one_task, 0, False))
    assert without_times(default) == without_times(sc.one_fit((one_task, 0, False, sc.N_LABELS)))
    many = sc.one_fit((one_task, 0, False, 300))
    assert (default["labels"], many["labels"]) == (20, 300)
    # the labeled-only AP of the 300 labeled items is near the truth of all 400; with 300 labels
    # the clearly best model is stated the best (and within 0.005 of it) with P >= 0.8
    assert abs(many["labeled"]["best"]["auprc"] - many["truth"]["best"]["auprc"]) < 0.02
    fit = many["methods"]["fit_many"]["models"]
    assert fit["best"]["best_auc"] >= 0.8 and fit["best"]["near_auprc"] >= 0.8
    assert fit["best"]["best_auc"] > default["methods"]["fit_many"]["models"]["best"]["best_auc"]
    assert sc.realised_best(many["truth"], "auc", "best") == {"best": 1.0, "mid": 0.0, "weak": 0.0}
    with pytest.raises(ValueError, match="leave none unlabeled"):
        sc.one_fit((one_task, 0, False, 400))


@pytest.mark.parametrize(("k", "n"), [(4, 4), (0, 7), (13, 20), (1, 50)])
def test_share_interval_is_clopper_pearson(k, n):
    lo, hi = sc.share_interval(np.r_[np.ones(k), np.zeros(n - k)])
    exact = stats.binomtest(k, n).proportion_ci(confidence_level=0.9, method="exact")
    assert (lo, hi) == pytest.approx((exact.low, exact.high))
    assert np.isnan(sc.share_interval(np.array([]))).all(), "no models, no interval"


def constructed_result(labels, stated_best, best_model):
    """One (task, trial) result of two models, the same for every method: model "a" stated
    P(best) ``stated_best``, "b" the rest, the truly best ``best_model`` by AUROC and AP (by
    more than 0.005)."""
    truth = {m: dict.fromkeys(("auc", "auprc", "accuracy"), 0.9 if m == best_model else 0.8) for m in "ab"}
    models = {m: {k: (truth[m][k], True) for k in ("auc", "auprc", "accuracy")}
              | {f"{s}_{k}": (stated_best if m == "a" else 1 - stated_best) for s in ("best", "near")
                 for k in ("auc", "auprc")} for m in "ab"}
    methods = {method: {"s": 1.0, "models": models} for method in sc.METHODS} | {
        sc.SYMMETRIC_DRAWS: {"draws": 100, "models": models}}
    return {"labels": labels, "truth": truth, "labeled": dict.fromkeys("ab"), "methods": methods, "own_first": []}


def brier_row(text, budget, metric="AUROC", stated="P(best)"):
    """The default fit's Brier row of one budget's tables in ``text``, as {column: cell}."""
    block = text.split(f"### {budget} labels")[1].split("### ")[0]
    header, *rows = [line for line in block.splitlines() if line.startswith("| method | metric | stated | models")
                     or line.startswith(f"| fit_many | {metric} | {stated} |")]
    def cells(line):
        return [c.strip() for c in line.strip().strip("|").split(" | ")]

    return dict(zip(cells(header), cells(rows[0]), strict=True))


def test_budget_text_scores_each_budget_apart():
    # budget 60: "a" stated 0.5 everywhere; budget 150: "a" stated 0.9 in 4 results, truly best in 3
    results = [constructed_result(60, 0.5, "a") for _ in range(4)]
    results += [constructed_result(150, 0.9, best) for best in "aaab"]
    text = sc.budget_text(results, [60, 150])
    low, high = brier_row(text, 60), brier_row(text, 150)
    assert (low["models"], low["stated >= 0.8"], low["realised if >= 0.8"]) == ("8", "0", "-")
    assert (high["models"], high["stated >= 0.8"], high["realised if >= 0.8"]) == ("8", "4", "0.750")
    lo, hi = sc.share_interval(np.array([1.0, 1.0, 1.0, 0.0]))
    assert high["90% interval"] == f"[{lo:.3f}, {hi:.3f}]"
    # Brier at 150: "a" (0.9) wrong once, "b" (0.1) right once; uniform 0.5 scores 0.25 every model
    brier = np.mean([0.01] * 3 + [0.81] + [0.01] * 3 + [0.81])
    assert float(high["brier"]) == pytest.approx(brier, abs=5e-4) and high["brier_uniform"] == "0.250"
    assert brier_row(text, 150, "average precision", "P(within 0.005 of best)")["stated >= 0.8"] == "4"
