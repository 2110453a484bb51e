"""One model's result from several: ``res[name]`` has spe.fit's accessors on the shared draws,
``res.to_frame()`` one row per model and metric; the same for several multiclass models."""

import sys

import numpy as np
import pytest
from scipy import special

import spe
from spe.metrics import _sweeps as SW
from spe.several import ModelResult


def _models(rng, n=600):
    y = rng.random(n) < 0.3
    latent = np.where(y, 1.0, -1.0)
    return y.astype(float), {"good": special.expit(2.5 * latent + rng.normal(0, 1.2, n)),
                             "fair": special.expit(1.0 * latent + rng.normal(0, 1.5, n)),
                             "noise": special.expit(rng.normal(0, 1, n))}


@pytest.fixture(scope="module")
def many():
    y, models = _models(np.random.default_rng(3))
    labels = np.where(np.arange(y.size) < 40, y, np.nan)
    return spe.fit_many(models, labels, n_draws=300, seed=0), y


def test_a_model_is_looked_up_by_name_and_unknown_names_are_listed(many):
    res, _ = many
    assert res.names == ["good", "fair", "noise"] and len(res) == 3 and list(res) == res.names
    assert "good" in res and "bad" not in res
    r = res["good"]
    assert isinstance(r, ModelResult) and isinstance(r, spe.SPEResult)
    assert res["good"] is r  # built once
    assert [name for name, _ in res.items()] == res.names
    with pytest.raises(KeyError, match="no model 'bad'; models: 'good', 'fair', 'noise'"):
        res["bad"]


def test_metrics_equal_the_shared_draws_number_for_number(many):
    res, _ = many
    for name in res.names:
        r, shared = res[name], res.metric_draws(name)
        assert r.data.exact and r.n_draws == res.label_draws.shape[0]
        for est, metric in ((r.auroc(), "AUROC"), (r.average_precision(), "average precision"),
                            (r.max_f1(), "max F1"), (r.metrics_at(res.thresholds[name])["accuracy"], "accuracy")):
            np.testing.assert_array_equal(est.draws, shared[metric])
            row = next(row for row in res.metrics() if row["model"] == name)[metric]
            assert (est.value, est.lower, est.upper) == (row.value, row.lower, row.upper)
        assert r.prevalence().value == res.prevalence().value
        sweep = SW.draws_sweep(res.scores[name], res.label_draws)
        np.testing.assert_array_equal(r.pr_curve().draws, SW.sample_precision_at_recall(sweep, r.pr_curve().x))
        np.testing.assert_array_equal(r.roc_curve().draws, SW.sample_tpr_at_fpr(sweep, r.roc_curve().x))


class AtItems:
    """spe.fit's label posterior looked up at items, as fit_many's label model is."""

    def __init__(self, posterior, scores):
        self.posterior, self.scores = posterior, scores
        for attr in ("fits", "model_weights", "weighting", "n_draws", "weights"):
            setattr(self, attr, getattr(posterior, attr))

    def prob_positive(self, items, draws=None):
        return self.posterior.prob_positive(self.scores[np.asarray(items, dtype=np.intp)])


def test_accessors_equal_spe_fits_on_the_same_draws():
    """spe.fit's labellings (one item per distinct score) handed to a ModelResult as shared
    draws give spe.fit's numbers: the sample kind identically. The population kind also
    bootstraps the items (spe.fit's takes their scores as given): about the same centre and
    width here, where the map's uncertainty dominates, but not the same draws."""
    rng = np.random.default_rng(5)
    y, models = _models(rng, n=400)
    s, labels = models["fair"], np.where(np.arange(400) < 30, y, np.nan)
    fit = spe.fit(s, labels, seed=2, n_draws=300, families=("normal", "normal"))  # the default search's pick
    draws = fit.positive_counts[:, fit.data.group].astype(bool)
    r = ModelResult("fair", fit.data, AtItems(fit.label_posterior, s), draws, fit.prob_positive, (0, 1, 2))
    for method in ("auroc", "average_precision", "max_f1", "prevalence"):
        a, b = getattr(fit, method)(), getattr(r, method)()
        np.testing.assert_array_equal(a.draws, b.draws)
        pa, pb = getattr(fit, method)(kind="population"), getattr(r, method)(kind="population")
        assert abs(pa.value - pb.value) < 0.02
        assert abs((pb.upper - pb.lower) / (pa.upper - pa.lower) - 1) < 0.15
        assert not np.allclose(pa.draws, pb.draws)
    np.testing.assert_array_equal(fit.pr_curve().draws, r.pr_curve().draws)
    np.testing.assert_array_equal(fit.roc_curve().draws, r.roc_curve().draws)
    for k, est in fit.metrics_at(0.4).items():
        np.testing.assert_array_equal(est.draws, r.metrics_at(0.4)[k].draws)
    assert fit.choose_threshold(min_precision=0.5) == r.choose_threshold(min_precision=0.5)
    assert fit.best_fbeta_threshold() == r.best_fbeta_threshold()
    np.testing.assert_allclose(fit.group_prob, r.group_prob, rtol=1e-9)


def test_prob_positive_is_the_shared_posterior_the_label_draws_come_from(many):
    res, y = many
    p = res["fair"].prob_positive()
    np.testing.assert_array_equal(p, res["good"].prob_positive())
    np.testing.assert_array_equal(p[:40], y[:40])
    freq = res.label_draws.mean(axis=0)
    m = res.label_draws.shape[0]
    # One label draw per pooled draw d, y ~ Bernoulli(P_d): the frequency's variance is
    # sum_d P_d (1 - P_d) / m^2, below p (1 - p) / m by the spread of P_d across draws.
    assert np.allclose(res.label_model.weights, 1.0 / m)
    per_draw = res.label_model.prob_positive(np.arange(y.size))[:, 40:]
    var = (per_draw * (1 - per_draw)).sum(axis=0) / m**2
    total = np.sum((freq - p)[40:]) / np.sqrt(var.sum())
    uncertain = var > 0.01 / m
    z2 = (freq - p)[40:][uncertain] ** 2 / var[uncertain]
    assert abs(total) < 4 and 0.8 < z2.mean() < 1.25 and uncertain.sum() > 100  # frequencies scatter around p
    with pytest.raises(ValueError, match="reads every model's score"):
        res["good"].calibrate([0.5])


def test_summary_plots_thresholds_and_export_run_on_a_model(many):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    res, _ = many
    r = res["fair"]
    summ = r.summary()
    assert "model 'fair' of spe.fit_many" in summ.text and "log-linear pool" in summ.text
    assert summ.to_dict()["model"] == "fair" and "AUROC" in summ.to_dict()["metrics"]
    assert set(r.label_checks) == set(res.label_model.fits)
    decision = r.choose_threshold(min_precision=0.6)
    assert decision.feasible and decision.probability >= 0.9
    for plot in (r.plot_pr, r.plot_roc, r.plot_reliability):
        assert plot() is not None
    with pytest.raises(ValueError, match="none was fitted"):
        r.plot_fit()
    assert r.to_inference_data(model="good").log_likelihood["y"].shape[-1] == 40
    assert "<SPEResult of model 'fair'" in repr(r)


def test_to_frame_has_a_row_per_model_and_metric(many, monkeypatch):
    res, _ = many
    records = res.to_records()
    assert len(records) == 3 * len(res.METRICS)
    for metric in res.METRICS:
        rows = [r for r in records if r["metric"] == metric]
        assert sum(r["P(best)"] for r in rows) == pytest.approx(1.0)
        for r in rows:
            est = next(m for m in res.metrics() if m["model"] == r["model"])[metric]
            assert (r["estimate"], r["lower"], r["upper"]) == (est.value, est.lower, est.upper)
    pd = pytest.importorskip("pandas")
    frame = res.to_frame(level=0.8)
    assert isinstance(frame, pd.DataFrame) and frame.shape[0] == len(records)
    assert list(frame.columns[:6]) == ["model", "metric", "kind", "estimate", "lower", "upper"]
    assert (frame["level"] == 0.8).all()
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="to_records"):
        res.to_frame()


def test_several_multiclass_models_are_looked_up_the_same_way():
    rng = np.random.default_rng(2)
    k, n = 3, 200
    y = rng.integers(0, k, n)
    probs = {f"m{j}": special.softmax(s * np.eye(k)[y] + rng.normal(0, 1, (n, k)), axis=1)
             for j, s in enumerate((2.0, 1.0))}
    # one label model: the lookup is checked, not the label models' stack
    res = spe.fit_many(probs, np.where(np.arange(n) < 20, y, -1), n_draws=200, seed=0, label_model="pool")
    assert len(res) == 2 and list(res) == ["m0", "m1"]
    r = res["m0"]
    assert isinstance(r, spe.MulticlassResult) and r is res.results["m0"]
    np.testing.assert_array_equal(r.accuracy().draws, res.metric_draws("m0")["accuracy"])
    frame = res.to_records()
    assert {row["metric"] for row in frame} == {"accuracy", "macro AP", "macro F1"}
    with pytest.raises(KeyError, match="models: 'm0', 'm1'"):
        res["m2"]
