import numpy as np
import pytest

import spe


@pytest.fixture(scope="module")
def res():
    rng = np.random.default_rng(0)
    y = (rng.random(1500) < 0.3).astype(float)
    s = np.where(y == 1, rng.normal(2.0, 1.0, 1500), rng.normal(-1.0, 1.0, 1500))  # logits
    labels = np.full(1500, np.nan)
    labels[:12] = y[:12]
    return spe.fit(s, labels, seed=3, n_draws=300)


def test_curves_lie_in_unit_interval_and_bands_are_ordered(res):
    for curve in (res.pr_curve(), res.roc_curve(), res.pr_curve(kind="population"),
                  res.roc_curve(kind="population")):
        for arr in (curve.y, curve.lower, curve.upper, curve.draws):
            assert np.all((arr >= 0) & (arr <= 1))
        assert np.all(curve.lower <= curve.y) and np.all(curve.y <= curve.upper)
        assert curve.draws.shape == (300, curve.x.size)


def test_scalar_metrics_and_metrics_at(res):
    for est in (res.prevalence(), res.average_precision(), res.auroc(), res.max_f1(),
                res.prevalence(kind="population"), res.auroc(kind="population")):
        assert 0 <= est.lower <= est.value <= est.upper <= 1
    m = res.metrics_at(0.5)
    assert set(m) == {"precision", "recall", "fpr", "f1", "accuracy"}
    top = res.metrics_at(1e9)  # nothing predicted positive
    assert top["recall"].mean == 0 and top["precision"].mean == 0


def test_summary_text_and_dict(res):
    summ = res.summary()
    text = str(summ)
    assert "families: negative" in text and "Pareto k-hat" in text and "AUROC" in text
    d = summ.to_dict()
    assert d["n_items"] == 1500 and d["n_labeled"] == 12
    assert set(d["metrics"]) == {"prevalence", "average precision", "AUROC", "max F1"}
    assert len(d["family_selection"]) == 4
    assert summ.to_json()


def _group(idata, name):
    return getattr(idata, name) if hasattr(idata, name) else idata[name]


def test_inference_data_export(res):
    both = res.to_inference_data()
    assert set(both) == {"mixture", "spline", "weak"}  # ready for az.compare
    mix = res.fits["mixture"]
    post = _group(both["mixture"], "posterior")
    pi_mean = float(mix.weights @ mix.posterior.theta[:, 0])
    assert float(post["pi"].mean()) == pytest.approx(pi_mean, abs=0.02)
    loglik = _group(both["spline"], "log_likelihood")["y"].values
    assert loglik.shape == (1, res.fits["spline"].n_draws, 12) and np.all(loglik <= 0)
    raw = res.to_inference_data(model="mixture", resample=False)
    np.testing.assert_allclose(np.exp(_group(raw, "sample_stats")["log_weight"].values.ravel()), mix.weights)
    from spe.pooling import import_arviz

    assert np.isfinite(float(import_arviz().loo(both["spline"]).elpd_loo))


def test_exports_and_resampling_are_reproducible_from_the_fit_seed(res):
    np.testing.assert_array_equal(res.resample(), res.resample())
    a = _group(res.to_inference_data(model="mixture"), "posterior")["pi"].values
    b = _group(res.to_inference_data(model="mixture"), "posterior")["pi"].values
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="no score model 'nope'"):
        res.to_inference_data(model="nope")


def test_argument_validation(res):
    with pytest.raises(ValueError, match="level"):
        res.pr_curve(level=1.2)
    with pytest.raises(ValueError, match="kind"):
        res.pr_curve(kind="both")
    with pytest.raises(ValueError, match="recall values must lie in"):
        res.pr_curve(recall=[0.5, 1.5])
    with pytest.raises(ValueError, match="n_draws"):
        spe.fit([0.1, 0.2, 0.3], n_draws=0)


def test_point_estimate_is_the_weighted_median_and_stays_with_the_majority_model():
    # Two models that disagree, pooled 0.8 / 0.2: the mean falls between them where
    # neither puts mass; the median (the Bayes estimate under absolute error) does not.
    from spe.metrics import CurveBand, Estimate

    draws = np.r_[np.full(80, 0.9), np.full(20, 0.1)]
    weights = np.full(100, 0.01)
    est = Estimate.from_draws("ap", draws, weights, 0.9)
    assert est.value == 0.9 and est.mean == pytest.approx(0.74)
    assert est.lower == 0.1 and est.upper == 0.9
    assert est.as_dict()["value"] == 0.9 and float(est) == 0.9
    heavy_minority = np.r_[np.full(80, 1.0), np.full(20, 5.0)]  # the 0.1 draws now hold 100/180
    assert Estimate.from_draws("ap", draws, heavy_minority / heavy_minority.sum(), 0.9).value == 0.1
    curve = CurveBand.from_draws(np.array([0.0, 1.0]), np.c_[draws, 1 - draws], weights, 0.9, "sample")
    np.testing.assert_allclose(curve.y, [0.9, 0.1])


def test_emcee_draws_are_exported_one_chain_per_walker():
    from spe.pooling import import_arviz

    rng = np.random.default_rng(4)
    s = np.r_[rng.normal(0, 1, 400), rng.normal(2.5, 1, 150)]
    y = np.full(s.size, np.nan)
    y[[0, 1, 2, 3, 400, 401, 402]] = [0, 0, 0, 0, 1, 1, 1]
    r = spe.fit(s, y, model="mixture", inference="emcee", n_draws=320, seed=0,
                families=("truncnorm", "truncnorm"))
    idata = r.to_inference_data()
    post = _group(idata, "posterior")
    walkers = r.fits["mixture"].posterior.chains.shape[1]
    assert post.sizes["chain"] == walkers and post.sizes["draw"] == 320 // walkers
    assert _group(idata, "log_likelihood")["y"].shape == (walkers, 320 // walkers, 7)
    # the exported chains are the fit's own draws, in the order emcee made them
    idx = r.fits["mixture"].chain_index()
    np.testing.assert_array_equal(post["pi"].values, r.fits["mixture"].posterior.theta[idx, 0])
    summ = import_arviz().summary(idata, var_names=["pi"])
    assert np.isfinite(float(summ["r_hat"].iloc[0]))


def test_each_models_own_estimates_and_a_stated_disagreement_without_labels():
    # Probability scores in two clusters (logit 3 and 7, 70/30): the mixture calls the
    # upper cluster positive (prevalence ~0.3); a calibration map centred on "calibrated"
    # reads the scores as probabilities (prevalence ~ the mean score, ~0.96).
    rng = np.random.default_rng(2)
    upper = rng.random(1500) < 0.3
    s = 1 / (1 + np.exp(-np.where(upper, rng.normal(7.0, 0.3, upper.size), rng.normal(3.0, 0.3, upper.size))))
    # "auto" fits the map alone here; families: the pair the default search picks
    res = spe.fit(s, None, seed=1, model=["mixture", "spline"], families=("normal", "normal"))
    own = res.model_estimates()
    assert set(own) == set(res.fits) and len(own) > 1
    assert abs(own["mixture"]["prevalence"].value - upper.mean()) < 0.05
    others = [n for n in own if n != "mixture"]
    assert all(own[n]["prevalence"].lower > own["mixture"]["prevalence"].upper for n in others)
    summary = res.summary()
    assert "the score models disagree" in summary.text and "suggest_labels()" in summary.text
    assert summary.to_dict()["model_disagreement"].startswith("the score models disagree")
    assert set(summary.to_dict()["model_estimates"]) == set(res.fits)
    assert res.model_estimates() is own  # computed once per level


def test_disagreement_needs_disjoint_intervals_of_models_that_carry_weight():
    from spe.metrics import Estimate
    from spe.report._summary import disagreement

    def est(lo, hi):
        return {"prevalence": Estimate("prevalence", (lo + hi) / 2, lo, hi, 0.9, np.zeros(1), np.ones(1)),
                "average precision": Estimate("average precision", 0.5, 0.4, 0.6, 0.9, np.zeros(1), np.ones(1))}

    apart = {"a": est(0.1, 0.2), "b": est(0.5, 0.7)}
    assert "a puts the prevalence at 0.15 [0.10, 0.20]" in disagreement(apart, {"a": 0.5, "b": 0.5})
    assert disagreement({"a": est(0.1, 0.2), "b": est(0.205, 0.7)}, {"a": 0.5, "b": 0.5}) is None  # < MIN_GAP
    assert disagreement(apart, {"a": 0.99, "b": 0.01}) is None  # b carries no weight
    assert disagreement({"a": est(0.1, 0.5), "b": est(0.4, 0.7)}, {"a": 0.5, "b": 0.5}) is None


def test_without_labels_probability_scores_are_taken_at_their_word():
    """No label can tell which mixture component is which class: "auto" fits the map alone,
    its prior centred on the classifier's probabilities, and says why in the summary.
    Labels bring the mixture back; other scores keep it (nothing else to go on)."""
    rng = np.random.default_rng(4)
    p = rng.beta(0.6, 1.4, 3000)
    y = (rng.random(p.size) < p).astype(float)  # a calibrated classifier
    res = spe.fit(p, None, seed=0)
    assert list(res.fits) == ["spline", "weak"] and "no labels" in res.errors["mixture"]
    assert "mixture  not fitted: no labels" in res.summary().text
    prevalence = res.prevalence()
    assert prevalence.lower <= y.mean() <= prevalence.upper
    assert abs(prevalence.value - p.mean()) < 0.05
    labels = np.full(p.size, np.nan)
    labels[:20] = y[:20]
    # which models, not their numbers: one family pair, on the logit of probabilities one of its open-scale pairs
    quick = {"seed": 0, "n_draws": 200}
    assert set(spe.fit(p, labels, families=("normal", "normal"), **quick).fits) == {"mixture", "spline", "weak"}
    margins = spe.fit(4 * p - 2, None, families=("truncnorm", "truncnorm"), **quick)  # margins, not probabilities
    assert set(margins.fits) == {"mixture", "spline", "weak"}
