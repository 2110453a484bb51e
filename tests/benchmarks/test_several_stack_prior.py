"""`benchmarks/several_stack_prior.py`: re-weighting the stack's candidates, on constructed inputs."""

import numpy as np
import pytest

import spe
from benchmarks import several_stack_prior as sp

WEIGHTS = {"a": 0.2, "b": 0.1, "a (calibrated)": 0.3, "log-linear pool": 0.25, "Gaussian copula": 0.15}


def test_a_multiplier_scales_one_kind_as_prior_odds_and_the_rest_renormalises():
    assert sp.variant_weights(WEIGHTS, "a", sp.Variant()) == pytest.approx(WEIGHTS)
    doubled = sp.variant_weights(WEIGHTS, "a", sp.Variant({"calibrated maps": 2.0}))
    assert doubled["a (calibrated)"] / doubled["a"] == pytest.approx(2 * 0.3 / 0.2)
    assert doubled["log-linear pool"] / doubled["b"] == pytest.approx(0.25 / 0.1)
    assert sum(doubled.values()) == pytest.approx(1.0)
    assert "a (calibrated)" not in sp.variant_weights(WEIGHTS, "a", sp.Variant({"calibrated maps": 0.0}))


def test_own_scores_keep_a_models_own_candidates_and_the_joint_ones():
    kept = sp.variant_weights(WEIGHTS | {"Dawid-Skene": 0.1}, "a", sp.Variant(own_scores=True))
    assert set(kept) == {"a", "a (calibrated)", "log-linear pool", "Gaussian copula", "Dawid-Skene"}
    b = sp.variant_weights(WEIGHTS, "b", sp.Variant(own_scores=True))
    assert set(b) == {"b", "log-linear pool", "Gaussian copula"} and b["log-linear pool"] == pytest.approx(0.25 / 0.5)
    assert sp.variant_weights(WEIGHTS, "b", sp.Variant(own_scores=True), excluded={"b": "reversed"}) == pytest.approx(
        WEIGHTS), "a model kept out of the label model has no candidate of its own: it keeps them all"
    with pytest.raises(ValueError, match="no candidate"):
        sp.variant_weights({"a": 1.0}, "b", sp.Variant(own_scores=True))


def test_the_mean_log_odds_map_alone_keeps_only_itself_and_scales_like_a_kind():
    weights = WEIGHTS | {sp.MEAN_MAP: 0.05}
    assert sp.variant_weights(weights, "a", sp.VARIANTS["mean log-odds map alone"]) == {sp.MEAN_MAP: 1.0}
    scaled = sp.variant_weights(weights, "a", sp.VARIANTS["with a mean log-odds map x7"])
    assert scaled[sp.MEAN_MAP] / scaled["b"] == pytest.approx(7 * 0.05 / 0.1)
    assert sp.VARIANTS["with a mean log-odds map"].with_mean_map and not sp.VARIANTS["pool x2"].with_mean_map


def test_mixture_summary_takes_weighted_median_and_equal_tailed_interval():
    low = np.tile(np.linspace(0.0, 0.1, 101), (2, 1))
    high = np.tile(np.linspace(0.9, 1.0, 101), (2, 1))
    alone = sp.mixture_summary({"x": low, "y": high}, {"x": 1.0})
    assert alone.shape == (2, 3)
    assert alone[:, 0] == pytest.approx(0.05, abs=1e-3)
    assert alone[:, 1] == pytest.approx(0.005, abs=1e-3) and alone[:, 2] == pytest.approx(0.095, abs=1e-3)
    mostly_high = sp.mixture_summary({"x": low, "y": high}, {"x": 0.2, "y": 0.8})
    assert mostly_high[0, 1] < 0.1 < 0.9 < mostly_high[0, 0] < mostly_high[0, 2], "5% quantile in the low fifth"


def test_mean_log_odds_averages_scale_free_log_odds_and_skips_tied_models():
    p = np.linspace(0.05, 0.95, 101)
    margin = 10.0 * (p - 0.5)
    got = sp.mean_log_odds({"p": p, "m": margin, "tied": np.full(101, 0.3)})
    logit = np.log(p / (1 - p))
    assert got[75] == pytest.approx((logit[75] / (logit[75] - logit[25]) + margin[75] / (margin[75] - margin[25])) / 2)
    assert np.all(np.diff(got) > 0) and got[50] == pytest.approx(0.0, abs=1e-12), "zero stays the boundary"


def test_the_default_variant_reproduces_fit_manys_estimates_and_labeled_items_stay_fixed():
    rng = np.random.default_rng(3)
    y = (rng.random(600) < 0.3).astype(float)
    latent = 2.0 * y + rng.normal(size=600)
    models = {f"m{j}": 1 / (1 + np.exp(-(latent + rng.normal(0, 0.7, 600) - 1))) for j in range(3)}
    out = sp.evaluate_fit("x", models, y, np.arange(20), seed=0)
    labels = np.where(np.arange(600) < 20, y, np.nan)
    res = spe.fit_many(models, labels, seed=0)
    rows = {r["model"]: r for r in res.metrics()}
    for m in models:
        ours = out["variants"][sp.DEFAULT][m]
        assert ours[1, 0] == pytest.approx(rows[m]["average precision"].value, abs=0.02)
        assert ours[0, 0] == pytest.approx(rows[m]["AUROC"].value, abs=0.02)
        assert ours[1, 1] == pytest.approx(rows[m]["average precision"].lower, abs=0.03)
        assert ours[1, 2] == pytest.approx(rows[m]["average precision"].upper, abs=0.03)
    fit = next(iter(res.label_model.fits.values()))
    only_labels = sp.candidate_draws(fit, {"truth": y}, y, np.arange(600), np.random.default_rng(0))
    assert np.all(only_labels["truth"] == 1.0), "every item labeled: each draw is the truth, AUROC = AP = 1"


def test_group_measures_score_the_model_ranked_first_and_pair_with_the_default():
    truth = {"p": np.array([0.8, 0.6]), "q": np.array([0.7, 0.5])}
    est = {"p": np.array([[0.8, 0.7, 0.9], [0.55, 0.5, 0.6]]), "q": np.array([[0.7, 0.6, 0.8], [0.62, 0.55, 0.7]])}
    exact = {m: np.column_stack([t, t - 0.01, t + 0.01]) for m, t in truth.items()}
    results = [{"group": "g", "variants": {"v": est, sp.DEFAULT: exact}, "truth": truth}]
    got = sp.group_measures(results, "v")["g"]
    assert got["top"] == pytest.approx(100 * (0.62 - 0.5)), "q is ranked first by AP"
    assert got["auprc"] == pytest.approx(100 * (0.05 + 0.12) / 2)
    assert got["vs_default"] == pytest.approx(got["auprc"]), "the default here is exact"
    assert got["cover_auprc"] == 0.5 and got["fits"] == 1
