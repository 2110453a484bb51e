"""Multiclass: input boundary, coherent label draws, and calibration of the posterior."""

import os
from pathlib import Path

import numpy as np
import pytest
from scipy import special

import spe
from spe.multiclass import as_class_labels, as_class_scores
from spe.multiclass import fit_multiclass


def _calibrated_data(rng, n=500, k=5, inverse_temperature=1.0):
    """Classifier probabilities p, and classes drawn from softmax(a log p)."""
    logits = rng.normal(0.0, 2.0, (n, k))
    p = special.softmax(logits, axis=1)
    truth = special.softmax(inverse_temperature * np.log(p), axis=1)
    y = (truth.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    return p, y


@pytest.mark.parametrize("bad, err, message", [
    (np.ones(5), ValueError, r"\(N, K\) array"),
    (np.ones((5, 1)), ValueError, "K >= 2 classes"),
    (np.array([[0.5, np.nan], [0.2, 0.8]]), ValueError, "NaN/inf value"),
    (np.array([[0.5, 0.6], [0.2, 0.8]]), ValueError, "rows do not sum to 1"),
    ([["a", "b"], ["c", "d"]], TypeError, "array of numbers"),
])
def test_bad_class_scores_are_refused_with_the_reason(bad, err, message):
    with pytest.raises(err, match=message):
        as_class_scores(bad)


def test_probabilities_rounded_past_one_are_still_probabilities():
    """float32 files hold entries like 1.00001 (the shared imdb file: 219 of 2,000 rows);
    read as logits they would make a softmax of the probabilities themselves."""
    p = np.array([[0.99999, 1.0e-5], [0.3, 0.7]], dtype=np.float32).astype(float)
    p[0] = [1.0000100135803223, 1.0000003385357559e-05]
    f, kind = as_class_scores(p)
    assert kind == "probabilities"
    np.testing.assert_allclose(f[1], np.log([0.3, 0.7]))
    assert f[0, 0] == 0.0  # clipped to 1, not log(1.00001)
    with pytest.raises(ValueError, match="rows do not sum to 1"):
        as_class_scores(np.array([[1.0005, 0.2], [0.3, 0.7]]))


def test_labels_and_options_are_checked():
    assert as_class_labels([0, -1, np.nan, None, 2.0], 5, 3).tolist() == [0, -1, -1, -1, 2]
    with pytest.raises(ValueError, match="item 1: class 3 outside 0..2"):
        as_class_labels([0, 3], 2, 3)
    with pytest.raises(ValueError, match="item 0: 'cat' is not a class index"):
        as_class_labels(["cat", 1], 2, 3)
    with pytest.raises(ValueError, match="length 2"):
        as_class_labels([0, 1], 3, 3)
    p = special.softmax(np.random.default_rng(0).normal(size=(60, 60)), axis=1)
    with pytest.raises(ValueError, match="use model='temperature'"):
        fit_multiclass(p, model="vector")
    with pytest.raises(ValueError, match="model must be one of"):
        fit_multiclass(p[:, :3] / p[:, :3].sum(1, keepdims=True), model="dirichlet")


def test_label_draws_are_coherent_and_keep_the_labels():
    rng = np.random.default_rng(1)
    p, y = _calibrated_data(rng, n=300, k=4)
    labels = np.where(np.arange(300) < 30, y, -1)
    res = fit_multiclass(p, labels, n_draws=200, seed=0)
    draws = res.class_draws
    assert draws.shape == (200, 300) and draws.min() >= 0 and draws.max() < 4  # one class per item per draw
    assert np.all(draws[:, :30] == y[:30])
    tp, pred, actual = res._per_class_counts
    assert np.all(actual.sum(axis=1) == 300) and np.all(pred.sum(axis=1) == 300)
    acc = res.accuracy()
    assert acc.lower <= acc.value <= acc.upper
    # accuracy is the per-class true positives over all items, draw by draw
    np.testing.assert_allclose(np.sort(tp.sum(axis=1) / 300), np.sort(acc.draws))
    cm = res.confusion_matrix()
    assert cm["median"].shape == (4, 4)
    same = fit_multiclass(p, labels, n_draws=200, seed=0)
    np.testing.assert_array_equal(same.class_draws, draws)  # seeded


@pytest.mark.statistical
def test_accuracy_intervals_cover_when_the_model_holds():
    """Simulation-based check: inverse temperature from the prior, classes from the model."""
    rng = np.random.default_rng(2)
    covered = []
    for rep in range(30):
        a = float(np.exp(rng.normal()))
        p, y = _calibrated_data(rng, n=400, k=4, inverse_temperature=a)
        labels = np.where(rng.random(400) < 0.05, y, -1)
        res = fit_multiclass(p, labels, n_draws=300, seed=rep)
        est = res.accuracy()
        covered.append(est.lower <= np.mean(p.argmax(1) == y) <= est.upper)
    assert np.mean(covered) >= 0.8, np.mean(covered)


def test_inverse_temperature_is_recovered_from_many_labels():
    rng = np.random.default_rng(3)
    p, y = _calibrated_data(rng, n=800, k=5, inverse_temperature=3.0)
    res = fit_multiclass(p, np.where(np.arange(800) < 400, y, -1), model="temperature", n_draws=500, seed=0)
    fit = res.fits["temperature"]
    lo, hi = spe.curves.weighted_quantile(fit.inverse_temperature, fit.weights, [0.05, 0.95])
    assert lo < 3.0 < hi and hi - lo < 1.5


DATA = Path(os.environ.get("SPE_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))


@pytest.mark.statistical
@pytest.mark.skipif(not (DATA / "20news_labelerrors_cv.npz").exists(), reason="shared real data not present")
def test_real_under_confident_classifier_accuracy_is_covered_and_beats_labels_alone():
    """20 Newsgroups probabilities are strongly under-confident (mean max-prob 0.73, accuracy 0.92)."""
    d = np.load(DATA / "20news_labelerrors_cv.npz")
    rng = np.random.default_rng(4)
    sub = rng.choice(d["labels"].size, 1500, replace=False)
    p, y = d["probs"][sub].astype(float), d["labels"][sub]
    truth = np.mean(p.argmax(1) == y)
    cover, err, naive = [], [], []
    for trial in range(8):
        idx = rng.choice(y.size, 20, replace=False)
        labels = np.full(y.size, -1)
        labels[idx] = y[idx]
        est = fit_multiclass(p, labels, n_draws=300, seed=trial).accuracy()
        cover.append(est.lower <= truth <= est.upper)
        err.append(abs(est.value - truth))
        naive.append(abs(np.mean(p[idx].argmax(1) == y[idx]) - truth))
    assert np.mean(cover) >= 0.75 and np.mean(err) < np.mean(naive), (cover, err, naive)


@pytest.mark.parametrize("vector", [False, True])
def test_log_posterior_gradient_matches_finite_differences(vector):
    from scipy.optimize import check_grad

    from spe.multiclass._class_maps import _log_posterior_and_grad

    rng = np.random.default_rng(5)
    f = np.log(rng.dirichlet(np.ones(4), 40))
    y = rng.integers(0, 4, 40)
    theta = rng.normal(size=2 + (4 if vector else 0))
    err = check_grad(lambda t: _log_posterior_and_grad(t, f, y, vector)[0],
                     lambda t: _log_posterior_and_grad(t, f, y, vector)[1], theta)
    assert err < 1e-4


def test_one_confidently_wrong_label_does_not_soften_every_item():
    """A labeled item whose true class got probability 0 (label noise) must not drag the map."""
    rng = np.random.default_rng(6)
    p, y = _calibrated_data(rng, n=600, k=5, inverse_temperature=1.0)
    labels = np.where(np.arange(600) < 40, y, -1)
    wrong = int(np.argmax(p[:40].max(1)))  # the most confident labeled item
    p[wrong] = np.eye(5)[p[wrong].argmax()]  # exact 0 for every other class
    labels[wrong] = (p[wrong].argmax() + 1) % 5  # and its label says another class
    fit = fit_multiclass(p, labels, model="temperature", n_draws=300, seed=0).fits["temperature"]
    a = np.average(fit.inverse_temperature, weights=fit.weights)
    assert 0.5 < a < 2.0, a


def _step_confidence_data(rng, n=600, k=4):
    """The top-1 class is right with probability 0.3 below confidence 0.7 and 0.995 above
    (a step no temperature makes); otherwise the class follows the other probabilities."""
    p = special.softmax(rng.normal(0.0, 2.0, (n, k)), axis=1)
    top = p.argmax(1)
    rest = p.copy()
    rest[np.arange(n), top] = 0.0
    rest /= rest.sum(1, keepdims=True)
    other = (rest.cumsum(1) > rng.random((n, 1))).argmax(1)
    y = np.where(rng.random(n) < np.where(p.max(1) < 0.7, 0.3, 0.995), top, other)
    return p, y


@pytest.mark.statistical
def test_stack_covers_accuracy_where_one_temperature_cannot():
    """With 200 labels a temperature's interval narrows around the wrong accuracy; the
    stack hands the draws to the top-label map, which follows the step."""
    rng = np.random.default_rng(11)
    covered = {"stack": [], "temperature": []}
    top_weight = []
    for rep in range(10):
        p, y = _step_confidence_data(rng)
        labels = np.where(rng.random(y.size) < 1 / 3, y, -1)
        truth = np.mean(p.argmax(1) == y)
        for model in covered:
            res = fit_multiclass(p, labels, model=model, n_draws=300, seed=rep)
            est = res.accuracy()
            covered[model].append(est.lower <= truth <= est.upper)
            if model == "stack":
                top_weight.append(res.model_weights["top-label"])
    assert np.mean(covered["stack"]) >= 0.8 and np.mean(covered["temperature"]) < 0.6, covered
    assert np.mean(top_weight) > 0.9, top_weight


def test_top_label_draws_follow_its_own_likelihood():
    """The class frequencies the top-label model draws equal its predictive probabilities
    (the same factorisation on both sides: q for the top class, temperature for the rest)."""
    from spe.multiclass._top_label import fit_top_label

    rng = np.random.default_rng(12)
    p, y = _calibrated_data(rng, n=80, k=3)
    labels = np.where(np.arange(80) < 30, y, -1)
    f = np.log(p)
    fit = fit_top_label(f, labels, 400, np.random.default_rng(0))
    item = 50  # unlabeled
    predictive = [np.mean(np.exp(fit.log_likelihood(f[[item]], np.array([k]), 4000, np.random.default_rng(1))))
                  for k in range(3)]
    assert np.isclose(sum(predictive), 1.0, atol=0.02)
    drawn = fit.draw_classes(f, 8000, np.random.default_rng(2))[:, item]
    freq = np.bincount(drawn, minlength=3) / drawn.size
    np.testing.assert_allclose(freq, predictive, atol=0.02)


def test_label_models_are_reported():
    rng = np.random.default_rng(13)
    p, y = _calibrated_data(rng, n=200, k=3)
    labels = np.where(np.arange(200) < 20, y, -1)
    res = fit_multiclass(p, labels, n_draws=200, seed=0)
    assert set(res.model_weights) == {"temperature", "top-label", "vector"}
    assert np.isclose(sum(res.model_weights.values()), 1.0)
    text = res.summary()
    assert "top-label" in text and "temperature" in text
    one = fit_multiclass(p, labels, model="top-label", n_draws=200, seed=0)
    assert one.model_weights == {"top-label": 1.0} and one.class_draws.shape == (200, 200)
    none = fit_multiclass(p, None, n_draws=200, seed=0)
    assert none.model_weights == dict.fromkeys(("temperature", "top-label", "vector"), 1 / 3)
    many_classes = special.softmax(rng.normal(size=(100, 60)), axis=1)
    assert "vector" not in fit_multiclass(many_classes, n_draws=50, seed=0).model_weights  # K > 50


def test_per_class_plot_draws_every_predicted_class_with_its_truth():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(14)
    p, y = _calibrated_data(rng, n=300, k=4)
    res = fit_multiclass(p, np.where(np.arange(300) < 20, y, -1), model="temperature", n_draws=200, seed=0)
    predicted = p.argmax(1)
    truth = {c: float(np.mean(y[predicted == c] == c)) for c in range(4) if (predicted == c).any()}
    ax = res.plot_per_class(truth=truth)
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert len(ticks) == len(truth) and ticks[0].startswith("class 0")
    xs, ys = [line for line in ax.lines if line.get_marker() == "x"][0].get_data()
    assert sorted(zip(ys, xs)) == sorted(enumerate(truth.values()))
    with pytest.raises(ValueError, match="metric must be one of"):
        res.plot_per_class(metric="auc")


@pytest.mark.statistical
def test_class_prevalence_covers_under_label_shift():
    """Classes drawn from softmax(log p + b), b = 1.5 for class 0: the class is over-
    represented against what the calibrated classifier learned (label shift). Its
    prevalence interval covers with the stack (vector scaling has the bias), and
    temperature scaling alone misses it in most seeds."""
    covered = {"stack": [], "temperature": []}
    for seed in range(10):
        rng = np.random.default_rng(200 + seed)
        p = special.softmax(rng.normal(0.0, 2.0, (400, 4)), axis=1)
        truth = special.softmax(np.log(p) + np.array([1.5, 0.0, 0.0, 0.0]), axis=1)
        y = (truth.cumsum(axis=1) > rng.random((400, 1))).argmax(axis=1)
        labels = np.where(rng.permutation(400) < 60, y, -1)
        for model in covered:
            row = fit_multiclass(p, labels, model=model, n_draws=300, seed=seed).per_class()[0]
            covered[model].append(row["prevalence"].lower <= np.mean(y == 0) <= row["prevalence"].upper)
    assert np.mean(covered["stack"]) >= 0.8 and np.mean(covered["temperature"]) < 0.5, covered
