"""Several multiclass models on shared labels: input boundary, paired draws, degenerate
models, and interval coverage on simulated models with independent errors."""

import numpy as np
import pytest
from scipy import special

import spe
from spe.several import ManyMulticlassResult


def _models(rng, n=300, k=4, strengths=(2.5, 1.5, 0.8)):
    """Classes uniform; model j's logits are strength_j on the true class plus its own
    N(0, 1) noise, so the models err independently; each is calibrated by construction
    up to its softmax (probabilities softmax(logits))."""
    y = rng.integers(0, k, n)
    probs = {}
    for j, s in enumerate(strengths):
        logits = s * np.eye(k)[y] + rng.normal(0.0, 1.0, (n, k))
        probs[f"m{j}"] = special.softmax(logits, axis=1)
    return probs, y


def test_inputs_are_checked():
    rng = np.random.default_rng(0)
    probs, y = _models(rng, n=50)
    with pytest.raises(ValueError, match="not a mix"):
        spe.fit_many({"a": probs["m0"], "b": probs["m1"][:, 0]})
    with pytest.raises(ValueError, match="same items and classes"):
        spe.fit_many({"a": probs["m0"], "b": probs["m1"][:40]})
    with pytest.raises(ValueError, match="higher_is_positive"):
        spe.fit_many(probs, higher_is_positive=False)
    with pytest.raises(ValueError, match="names the pool"):
        spe.fit_many({"log-linear pool": probs["m0"], "b": probs["m1"]})
    bad = probs["m1"].copy()
    bad[0, 0] += 0.3
    with pytest.raises(ValueError, match=r"scores\['b'\]: class scores lie in \[0, 1\] but rows do not sum to 1"):
        spe.fit_many({"a": probs["m0"], "b": bad})
    with pytest.raises(ValueError, match="label_model must be one of"):
        spe.fit_many(probs, label_model="maps only")


def test_models_share_one_set_of_class_draws_and_comparisons_are_paired():
    rng = np.random.default_rng(1)
    probs, y = _models(rng)
    labels = np.where(np.arange(y.size) < 20, y, -1)
    res = spe.fit_many(probs, labels, n_draws=200, seed=0)
    assert isinstance(res, ManyMulticlassResult)
    draws = res.class_draws
    assert all(r.class_draws is draws for r in res.results.values())
    assert np.all(draws[:, :20] == y[:20])
    beats = res.prob_beats("accuracy")
    np.testing.assert_allclose(beats + beats.T, 1.0)
    assert np.isclose(sum(res.prob_best("macro AP").values()), 1.0)
    assert set(res.model_weights) == {"m0", "m1", "m2", "log-linear pool"}
    assert np.isclose(sum(res.model_weights.values()), 1.0)
    pool = spe.fit_many(probs, labels, n_draws=200, seed=0, label_model="pool")
    assert pool.model_weights == {"log-linear pool": 1.0}
    assert res.ranking("accuracy")[0]["model"] == "m0"  # by far the strongest model
    diff = res.accuracy_difference("m0", "m2")
    assert diff.lower > 0
    text = res.summary()
    assert "3 models, 4 classes" in text and "log-linear pool" in text
    again = spe.fit_many(probs, labels, n_draws=200, seed=0)
    np.testing.assert_array_equal(again.class_draws, draws)  # seeded


def test_degenerate_models_are_reported_and_kept_out_of_the_labels():
    rng = np.random.default_rng(2)
    probs, y = _models(rng)
    probs["constant"] = np.full_like(probs["m0"], 0.25)
    wrong = np.roll(np.eye(4)[y], 1, axis=1) * 0.9 + 0.025  # confidently the next class
    probs["wrong"] = wrong / wrong.sum(1, keepdims=True)
    labels = np.where(np.arange(y.size) < 30, y, -1)
    res = spe.fit_many(probs, labels, n_draws=200, seed=0, label_model="maps")  # a label model per included model
    assert "same probabilities" in res.excluded["constant"]
    assert "less often than chance" in res.excluded["wrong"]
    assert "constant" not in res.model_weights and "wrong" not in res.model_weights
    assert res.metrics()[-1]["accuracy"].upper < 0.1  # still measured on the shared draws


@pytest.mark.statistical
def test_accuracy_intervals_cover_models_with_independent_errors():
    """Simulated models that err independently, 20 labels: each model's 90% accuracy
    interval covers its accuracy on the items in most seeds. Each model's own maps alone
    (``label_model="maps"``) cover the weakest model in almost none of these seeds: its
    classes, drawn from the strongest model's map, ignore what the weak model knows."""
    covered = {f"m{j}": [] for j in range(3)}
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        probs, y = _models(rng)
        labels = np.where(rng.permutation(y.size) < 20, y, -1)
        res = spe.fit_many(probs, labels, n_draws=300, seed=seed)
        for row in res.metrics():
            truth = np.mean(probs[row["model"]].argmax(1) == y)
            covered[row["model"]].append(row["accuracy"].lower <= truth <= row["accuracy"].upper)
    coverage = {k: np.mean(v) for k, v in covered.items()}
    assert min(coverage.values()) >= 0.6 and np.mean(list(coverage.values())) >= 0.8, coverage


def test_pool_gradient_matches_finite_differences():
    from scipy.optimize import check_grad

    from spe.several._class_pool import _log_posterior_and_grad

    rng = np.random.default_rng(3)
    F = np.log(rng.dirichlet(np.ones(4), (3, 40)))
    y = rng.integers(0, 4, 40)
    theta = rng.normal(size=4)
    err = check_grad(lambda t: _log_posterior_and_grad(t, F, y)[0], lambda t: _log_posterior_and_grad(t, F, y)[1], theta)
    assert err < 1e-4


def test_pool_of_one_model_is_temperature_scaling():
    """With J = 1 the pool's model, prior and posterior are temperature scaling's, by other code."""
    from spe.multiclass._class_maps import fit_class_map
    from spe.several._class_pool import fit_class_pool

    rng = np.random.default_rng(4)
    probs, y = _models(rng, n=300)
    f = np.log(probs["m1"])
    labels = np.where(np.arange(300) < 60, y, -1)
    pool = fit_class_pool(["m1"], f[None], labels, 2000, np.random.default_rng(0))
    temp = fit_class_map(f, labels, "temperature", 2000, np.random.default_rng(1))
    a_pool = pool.weights @ pool.model_temperatures[:, 0]
    a_temp = temp.weights @ temp.inverse_temperature
    sd = np.sqrt(temp.weights @ (temp.inverse_temperature - a_temp) ** 2)
    assert abs(a_pool - a_temp) < 0.1 * sd, (a_pool, a_temp, sd)
