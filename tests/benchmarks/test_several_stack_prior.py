"""`benchmarks/several_stack_prior.py`: re-weighting the stack's candidates, on constructed inputs."""

import numpy as np
import pytest

import spe
from benchmarks import several_stack_prior as sp

WEIGHTS = {"a": 0.2, "b": 0.1, "a (calibrated)": 0.3, "log-linear pool": 0.25, "Gaussian copula": 0.15}


def test_a_multiplier_scales_one_kind_as_prior_odds_and_the_rest_renormalises():
    same = sp.variant_weights(WEIGHTS, "a", {})
    assert same == pytest.approx(WEIGHTS)
    doubled = sp.variant_weights(WEIGHTS, "a", {"calibrated maps": 2.0})
    assert doubled["a (calibrated)"] / doubled["a"] == pytest.approx(2 * 0.3 / 0.2)
    assert doubled["log-linear pool"] / doubled["b"] == pytest.approx(0.25 / 0.1)
    assert sum(doubled.values()) == pytest.approx(1.0)


def test_own_scores_keep_a_models_own_candidates_and_the_joint_ones():
    kept = sp.variant_weights(WEIGHTS, "b", {"own scores": 1.0})
    assert set(kept) == {"b", "log-linear pool", "Gaussian copula"}
    assert kept["log-linear pool"] == pytest.approx(0.25 / 0.5)
    no_calibrated = sp.variant_weights(WEIGHTS, "a", {"own scores": 1.0, "calibrated maps": 0.0})
    assert set(no_calibrated) == {"a", "log-linear pool", "Gaussian copula"}


def test_mixture_summary_takes_quantiles_of_the_weighted_draws():
    low = np.tile(np.linspace(0.0, 0.1, 101), (3, 1))
    high = np.tile(np.linspace(0.9, 1.0, 101), (3, 1))
    alone = sp.mixture_summary({"x": low, "y": high}, {"x": 1.0})
    assert alone[:, 0] == pytest.approx(0.05, abs=1e-3) and alone[:, 1] == pytest.approx(0.005, abs=1e-3)
    mostly_high = sp.mixture_summary({"x": low, "y": high}, {"x": 0.2, "y": 0.8})
    assert mostly_high[0, 1] < 0.1 < 0.9 < mostly_high[0, 0], "the 5% quantile in the low fifth, median high"


def test_the_default_variant_reproduces_fit_manys_own_estimates():
    rng = np.random.default_rng(3)
    y = (rng.random(600) < 0.3).astype(float)
    latent = 2.0 * y + rng.normal(size=600)
    models = {f"m{j}": 1 / (1 + np.exp(-(latent + rng.normal(0, 0.7, 600) - 1))) for j in range(3)}
    out = sp.evaluate_fit("x", models, y, np.arange(20), dict.fromkeys(models, 0.5), seed=0)
    labels = np.where(np.arange(600) < 20, y, np.nan)
    rows = {r["model"]: r for r in spe.fit_many(models, labels, seed=0).metrics()}
    for m in models:
        ours = out["variants"]["default stack"][m]
        assert ours[1, 0] == pytest.approx(rows[m]["average precision"].value, abs=0.02)
        assert ours[0, 0] == pytest.approx(rows[m]["AUROC"].value, abs=0.02)
        assert ours[1, 1] <= ours[1, 0] <= ours[1, 2]


def test_group_measures_score_the_model_ranked_first():
    truth = {"p": np.array([0.8, 0.6, 0.9]), "q": np.array([0.7, 0.5, 0.8])}
    est = {"p": np.array([[0.8, 0.7, 0.9], [0.55, 0.5, 0.6], [0.9, 0.85, 0.95]]),
           "q": np.array([[0.7, 0.6, 0.8], [0.62, 0.55, 0.7], [0.8, 0.75, 0.85]])}
    results = [{"group": "g", "variants": {"v": est}, "truth": truth}]
    got = sp.group_measures(results, "v")["g"]
    assert got["top"] == pytest.approx(100 * (0.62 - 0.5)), "q is ranked first by AP"
    assert got["auprc"] == pytest.approx(100 * (0.05 + 0.12) / 2)
    assert got["cover_auprc"] == 0.5 and got["fits"] == 1


def test_the_mean_log_odds_map_alone_keeps_only_itself():
    weights = WEIGHTS | {sp.MEAN_MAP: 0.05}
    assert sp.variant_weights(weights, "a", {sp.MEAN_MAP: 1.0, "alone": True}) == {sp.MEAN_MAP: 1.0}
    scaled = sp.variant_weights(weights, "a", {sp.MEAN_MAP: 7.0})
    assert scaled[sp.MEAN_MAP] / scaled["b"] == pytest.approx(7 * 0.05 / 0.1)


def test_mean_log_odds_averages_scale_free_log_odds():
    p = np.linspace(0.05, 0.95, 101)
    margin = 10.0 * (p - 0.5)
    got = sp.mean_log_odds({"p": p, "m": margin})
    logit = np.log(p / (1 - p))
    iqr = lambda g: np.subtract(*np.percentile(g, [75, 25]))  # noqa: E731
    assert got == pytest.approx((logit / iqr(logit) + margin / iqr(margin)) / 2)
    assert np.all(np.diff(got) > 0) and got[50] == pytest.approx(0.0, abs=1e-12), "zero stays the boundary"
