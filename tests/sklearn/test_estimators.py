"""The threshold tuner and the calibrator: scikit-learn's conventions (clone, Pipeline,
fitted attributes), the semisupervised target, determinism, errors, and what they claim."""

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

import spe
from spe.sklearn import (
    SemisupervisedCalibratedClassifier,
    SemisupervisedThresholdClassifier,
)
from tests.sklearn.conftest import FAST


def tuner(estimator, **kw):
    return SemisupervisedThresholdClassifier(estimator, **{"spe_params": FAST, "random_state": 0, **kw})


def test_importing_spe_does_not_import_sklearn(fresh_import_of_spe):
    assert not [m for m in fresh_import_of_spe["modules"] if m.split(".")[0] == "sklearn"]


def test_tuner_states_the_probability_and_its_threshold_holds_on_fresh_rows(task):
    params = {"n_draws": 200, "families": ("normal", "normal")}  # the default models; the pair their search picks
    est = tuner(task["clf"], min_precision=0.7, confidence=0.9, spe_params=params).fit(task["X"], task["y"])
    check_is_fitted(est)
    assert est.feasible_ and est.prob_constraint_met_ >= 0.9
    assert est.prob_constraint_met_ == pytest.approx(est.decision_.probability)
    assert list(est.classes_) == [0, 1] and est.response_method_ == "predict_proba"
    scores = task["clf"].predict_proba(task["X_new"])[:, 1]
    assert np.array_equal(est.predict(task["X_new"]), (scores >= est.best_threshold_).astype(int))
    predicted = est.predict(task["X_new"]) == 1
    # one seed, a sanity check; the rate over real tasks is benchmarks/sklearn_threshold.py
    assert task["y_new"][predicted].mean() >= 0.7
    assert np.array_equal(est.predict_proba(task["X"][:5]), task["clf"].predict_proba(task["X"][:5]))


def test_objectives_without_constraints(task):
    f1 = tuner(task["clf"]).fit(task["X"], task["y"])
    assert np.isnan(f1.prob_constraint_met_) and f1.decision_.rule.startswith("max expected F1")
    costly_fp = tuner(task["clf"], objective="cost", cost_fp=5.0, cost_fn=1.0).fit(task["X"], task["y"])
    costly_fn = tuner(task["clf"], objective="cost", cost_fp=1.0, cost_fn=5.0).fit(task["X"], task["y"])
    assert costly_fp.best_threshold_ > costly_fn.best_threshold_


def test_same_random_state_same_fit_and_nan_none_minus_one_mean_the_same(task):
    a = tuner(task["clf"], min_recall=0.8).fit(task["X"], task["y"])
    y_nan = np.where(task["y"] == -1, np.nan, task["y"])
    y_none = np.array([None if v == -1 else int(v) for v in task["y"]], dtype=object)
    for y in (task["y"], y_nan, y_none):
        b = tuner(task["clf"], min_recall=0.8).fit(task["X"], y)
        assert (b.best_threshold_, b.prob_constraint_met_) == (a.best_threshold_, a.prob_constraint_met_)
    other = tuner(task["clf"], min_recall=0.8).set_params(random_state=1).fit(task["X"], task["y"])
    assert not np.array_equal(other.result_.group_prob, a.result_.group_prob)
    assert np.array_equal(tuner(task["clf"]).fit(task["X"], task["y"]).result_.group_prob, a.result_.group_prob)


def test_clone_keeps_the_parameters_and_a_frozen_classifier_stays_fitted(task):
    frozen = pytest.importorskip("sklearn.frozen")
    est = tuner(task["clf"], min_precision=0.7, kind="sample")
    copy = clone(est)
    assert copy.get_params()["min_precision"] == 0.7 and copy.get_params()["kind"] == "sample"
    with pytest.raises(NotFittedError, match="FrozenEstimator"):
        copy.fit(task["X"], task["y"])  # clone() unfits the wrapped classifier
    wrapped = tuner(frozen.FrozenEstimator(task["clf"]), min_precision=0.7)
    a, b = wrapped.fit(task["X"], task["y"]), clone(wrapped).fit(task["X"], task["y"])
    assert a.best_threshold_ == b.best_threshold_


def test_a_prefit_pipeline_wrapped_and_the_tuner_inside_a_pipeline(task):
    X, y, y_true = task["X"] * 10 + 3, task["y"], task["y_true"]
    pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:60], y_true[:60])
    est = tuner(pipe, min_precision=0.7).fit(X, y)
    assert est.n_features_in_ == 2 and est.predict(X).shape == (800,)
    outer = make_pipeline(StandardScaler(), tuner(LogisticRegression(), min_precision=0.7, prefit=False)).fit(X, y)
    inner = outer[-1]
    assert isinstance(inner.estimator_, LogisticRegression) and inner.estimator_ is not inner.estimator
    assert inner.result_.data.n_labeled == 60 and outer.predict(X).shape == (800,)
    assert set(clone(outer).get_params()) == set(outer.get_params())


def test_decision_function_scores_and_pos_label(task):
    from sklearn.svm import LinearSVC

    svc = LinearSVC().fit(task["X"][:60], task["y_true"][:60])
    est = tuner(svc, min_recall=0.8).fit(task["X"], task["y"])
    assert est.response_method_ == "decision_function" and not hasattr(est, "predict_proba")
    assert est.result_.data.n_labeled == 60
    flipped = tuner(svc, min_recall=0.8, pos_label=0).fit(task["X"], task["y"])
    scores = -svc.decision_function(task["X_new"])
    assert np.array_equal(flipped.predict(task["X_new"]), np.where(scores >= flipped.best_threshold_, 0, 1))


def test_string_classes_and_minus_one_as_a_class(task):
    names = np.array(["ham", "spam"])
    clf = LogisticRegression().fit(task["X"][:60], names[task["y_true"][:60]])
    y = np.array([names[v] if v >= 0 else None for v in task["y"]], dtype=object)
    est = tuner(clf, min_recall=0.8).fit(task["X"], y)
    assert set(est.predict(task["X"])) <= {"ham", "spam"} and est.result_.data.n_labeled == 60
    signs = np.array([-1, 1])
    clf = LogisticRegression().fit(task["X"][:60], signs[task["y_true"][:60]])
    y = np.where(task["y"] == -1, np.nan, signs[np.clip(task["y"], 0, 1)])
    est = tuner(clf, min_recall=0.8).fit(task["X"], y)  # -1 is a class here: NaN marks the unlabeled
    assert est.result_.data.n_labeled == 60


@pytest.mark.parametrize("y, match", [
    (np.zeros(5), "y has 5 rows but X has 800"),
    (np.r_[np.zeros(799), 2.0], "none of the classes"),
    (np.r_[np.full(799, np.nan), 0.5], "continuous"),
])
def test_bad_y_is_refused_with_a_clear_message(task, y, match):
    with pytest.raises(ValueError, match=match):
        tuner(task["clf"]).fit(task["X"], y)


def test_bad_y_with_prefit_false():
    X = np.arange(30.0).reshape(-1, 1)
    est = tuner(LogisticRegression(), prefit=False)
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        est.fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="only one class labeled"):
        est.fit(X, np.r_[np.ones(5), np.full(25, np.nan)])
    with pytest.raises(ValueError, match="requires y"):
        est.fit(X, None)


@pytest.mark.parametrize("option, match", [
    ({"kind": "train"}, "kind must be one of"),
    ({"objective": "auc"}, "objective must be one of"),
    ({"response_method": "predict"}, "response_method must be one of"),
    ({"spe_params": {"seed": 3}}, "random_state"),
    ({"spe_params": {"higher_is_positive": False}}, "pos_label"),
    ({"min_precision": 1.5}, "min_precision must lie in"),
    ({"confidence": 1.0}, "strictly between 0 and 1"),
    ({"prefit": "yes"}, "prefit must be True or False"),
])
def test_bad_options_are_refused_at_fit(task, option, match):
    with pytest.raises((ValueError, TypeError), match=match):
        tuner(task["clf"], **option).fit(task["X"], task["y"])


def test_unfitted_classifier_with_prefit_and_predict_before_fit(task):
    with pytest.raises(NotFittedError, match="prefit=False"):
        tuner(LogisticRegression()).fit(task["X"], task["y"])
    with pytest.raises(NotFittedError):
        tuner(task["clf"]).predict(task["X"])


def test_infeasible_constraint_warns_and_keeps_the_most_probable_threshold(task):
    with pytest.warns(UserWarning, match="no threshold meets"):
        est = tuner(task["clf"], min_precision=0.999, min_recall=0.999).fit(task["X"], task["y"])
    assert not est.feasible_ and est.prob_constraint_met_ < 0.9


def test_calibrator_maps_new_rows_through_the_fitted_posterior(task):
    cal = SemisupervisedCalibratedClassifier(task["clf"], spe_params=FAST, random_state=0).fit(task["X"], task["y"])
    proba = cal.predict_proba(task["X_new"])
    scores = task["clf"].predict_proba(task["X_new"])[:, 1]
    assert proba.shape == (4000, 2) and np.allclose(proba.sum(axis=1), 1.0)
    assert np.allclose(proba[:, 1], cal.result_.calibrate(scores))
    # on the fitted rows, new-row probabilities are prob_positive() of the unlabeled rows
    unlabeled = task["y"] == -1
    fitted = cal.predict_proba(task["X"])[unlabeled, 1]
    assert np.allclose(fitted, cal.result_.prob_positive()[unlabeled], atol=1e-6)
    assert np.array_equal(cal.predict(task["X_new"]), (proba[:, 1] >= 0.5).astype(int))
    assert isinstance(cal.result_, spe.SPEResult)


def test_calibrator_corrects_an_overconfident_classifier(task):
    """Scores pushed towards 0 and 1 (logit x 3): the calibrated probabilities of fresh rows
    are closer to the truth (Brier score) than the classifier's own."""
    from sklearn.metrics import brier_score_loss

    class Overconfident(LogisticRegression):
        def predict_proba(self, X):
            p = super().predict_proba(X)[:, 1]
            q = 1 / (1 + np.exp(-3 * np.log(p / (1 - p))))
            return np.c_[1 - q, q]

    clf = Overconfident().fit(task["X"][:300], task["y_true"][:300])
    cal = SemisupervisedCalibratedClassifier(clf, spe_params=FAST, random_state=0).fit(task["X"], task["y"])
    raw = brier_score_loss(task["y_new"], clf.predict_proba(task["X_new"])[:, 1])
    fixed = brier_score_loss(task["y_new"], cal.predict_proba(task["X_new"])[:, 1])
    assert fixed < raw - 0.01
