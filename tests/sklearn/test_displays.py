"""PrecisionRecallBandDisplay and ROCBandDisplay: built from an estimator, from predictions
and from a result, with scikit-learn's Display attributes and the band around the curve."""

import numpy as np
import pytest

pytest.importorskip("sklearn")
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from spe.sklearn import (
    PrecisionRecallBandDisplay,
    ROCBandDisplay,
    SemisupervisedThresholdClassifier,
)
from tests.sklearn.conftest import FAST


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_pr_display_from_estimator_has_the_curve_band_and_artists(task):
    display = PrecisionRecallBandDisplay.from_estimator(task["clf"], task["X"], task["y"], spe_params=FAST,
                                                        random_state=0)
    assert display.recall.shape == display.precision.shape == display.precision_lower.shape == (101,)
    assert np.all(display.precision_lower <= display.precision + 1e-12)
    assert np.all(display.precision <= display.precision_upper + 1e-12)
    lo, hi = display.average_precision_interval
    assert lo <= display.average_precision <= hi
    curve = display.result.pr_curve(level=0.9)
    assert np.array_equal(display.precision, curve.precision)
    assert display.line_.get_label().startswith("LogisticRegression (AP = ")
    assert display.ax_.get_xlabel() == "Recall (Positive label: 1)"
    assert display.figure_ is display.ax_.figure and display.band_ in display.ax_.collections


def test_roc_display_from_predictions_on_a_given_axes(task):
    scores = task["clf"].decision_function(task["X"])
    y = np.where(task["y"] == -1, np.nan, task["y"])
    _, ax = plt.subplots()
    display = ROCBandDisplay.from_predictions(y, scores, ax=ax, name="lr", spe_params=FAST, random_state=0,
                                              color="tab:blue")
    assert display.ax_ is ax and display.fpr.shape == display.tpr_upper.shape == (101,)
    assert display.tpr[0] >= 0 and display.tpr[-1] == pytest.approx(1.0)
    assert display.roc_auc_interval[0] <= display.roc_auc <= display.roc_auc_interval[1]
    assert display.line_.get_color() == "tab:blue" and display.line_.get_label().startswith("lr (AUC = ")


def test_more_labels_narrow_the_band(task):
    few = PrecisionRecallBandDisplay.from_estimator(task["clf"], task["X"], task["y"], spe_params=FAST,
                                                    random_state=0)
    y = task["y_true"].copy()
    y[400:] = -1  # 400 labels instead of 60
    many = PrecisionRecallBandDisplay.from_estimator(task["clf"], task["X"], y, spe_params=FAST, random_state=0)
    width = lambda d: np.mean(d.precision_upper - d.precision_lower)
    assert width(many) < width(few)


def test_from_result_reuses_a_tuners_posterior_and_plot_redraws(task):
    tuner = SemisupervisedThresholdClassifier(task["clf"], min_recall=0.8, spe_params=FAST,
                                              random_state=0).fit(task["X"], task["y"])
    display = ROCBandDisplay.from_result(tuner.result_, level=0.8, kind="population")
    assert display.result is tuner.result_ and display.level == 0.8
    _, ax = plt.subplots()
    assert display.plot(ax=ax, name="again").ax_ is ax
    assert display.line_.get_label().startswith("again (AUC")
    with pytest.raises(TypeError, match="SPEResult"):
        ROCBandDisplay.from_result(tuner)


def test_string_labels_and_pos_label():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 400)
    scores = truth + rng.normal(size=400)
    y = np.array([("spam" if t else "ham") if k < 50 else None for k, t in enumerate(truth)], dtype=object)
    display = PrecisionRecallBandDisplay.from_predictions(y, scores, spe_params=FAST, random_state=0)
    assert display.pos_label == "spam" and display.result.data.n_labeled == 50
    flipped = PrecisionRecallBandDisplay.from_predictions(y, -scores, pos_label="ham", spe_params=FAST,
                                                          random_state=0)
    assert flipped.pos_label == "ham"


@pytest.mark.parametrize("y, scores, match", [
    (np.r_[np.ones(10), np.full(90, np.nan)], np.arange(100.0), "only one class labeled"),
    (np.arange(100) % 3, np.arange(100.0), "Only binary classification"),
    (np.r_[0, 1, np.full(98, np.nan)], np.arange(99.0), "y has 100 rows but X has 99"),
    (np.r_[0, 1, np.full(98, np.nan)], np.ones((100, 2)), "one score per row"),
])
def test_bad_inputs_are_refused(y, scores, match):
    with pytest.raises(ValueError, match=match):
        PrecisionRecallBandDisplay.from_predictions(y, scores)


def test_from_estimator_needs_a_fitted_classifier(task):
    from sklearn.exceptions import NotFittedError
    from sklearn.linear_model import LogisticRegression

    with pytest.raises(NotFittedError):
        ROCBandDisplay.from_estimator(LogisticRegression(), task["X"], task["y"])
