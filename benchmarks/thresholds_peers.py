"""The peers of ``benchmarks/thresholds.py`` at equal labels: MAPIE's Learn-then-Test and
scikit-learn's TunedThresholdClassifierCV for the threshold, Platt scaling (1999) and
L2 logistic regression on the labels for the recalibration."""

from __future__ import annotations

import numpy as np


# ---- peers -----------------------------------------------------------------------------
def ltt_threshold(s, y, idx, constraints, level):
    """MAPIE Learn-then-Test on the labeled items (precision risk), or None."""
    from mapie.risk_control import BinaryClassificationController

    order = np.sort(s)

    def proba(X):
        p = np.searchsorted(order, np.asarray(X)[:, 0], side="right") / order.size
        return np.c_[1 - p, p]

    ctl = BinaryClassificationController(proba, "precision", constraints["min_precision"], confidence_level=level,
                                         list_predict_params=np.linspace(0, 1, 201))
    ctl.calibrate(s[idx, None], y[idx])
    if ctl.best_predict_param is None:
        return None
    return order[min(int(np.ceil(float(ctl.best_predict_param) * order.size)), order.size - 1)]


def score_classifier():
    """A scikit-learn classifier whose decision function is the score column: the
    classifier already trained, for the threshold tuners (scikit-learn imported on call)."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class ScoreClassifier(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.array([0.0, 1.0])
            return self

        def decision_function(self, X):
            return np.asarray(X)[:, 0]

    return ScoreClassifier


def tuned_threshold(s, y, idx, constraints, seed):
    """TunedThresholdClassifierCV on the labeled items, scoring the recall where the
    precision target holds (0 elsewhere), or None when a fold lacks a class."""
    from sklearn.metrics import make_scorer, precision_score, recall_score
    from sklearn.model_selection import StratifiedKFold, TunedThresholdClassifierCV

    p_min = constraints["min_precision"]

    def recall_if_precise(y_true, y_pred):
        ok = precision_score(y_true, y_pred, zero_division=0) >= p_min
        return recall_score(y_true, y_pred, zero_division=0) if ok else 0.0

    labels = y[idx]
    if len(np.unique(labels)) < 2 or np.bincount(labels.astype(int)).min() < 2:
        return None
    tuned = TunedThresholdClassifierCV(score_classifier()(), scoring=make_scorer(recall_if_precise), response_method="decision_function",
                                       cv=StratifiedKFold(2, shuffle=True, random_state=seed)).fit(s[idx, None], labels)
    return float(tuned.best_threshold_)


def _logit(s):
    s = np.clip(s, 1e-6, 1 - 1e-6)
    return np.log(s / (1 - s))


def platt_1999(s, idx, y):
    """Platt (1999) on the labels: a sigmoid in logit(s) fitted by maximum likelihood to his
    smoothed targets (N+ + 1) / (N+ + 2) and 1 / (N- + 2), no penalty."""
    from scipy import optimize

    x, t = _logit(s[idx]), y[idx]
    n_pos = t.sum()
    target = np.where(t == 1, (n_pos + 1) / (n_pos + 2), 1 / (t.size - n_pos + 2))

    def loss(ab):
        eta = ab[0] * x + ab[1]
        return np.sum(np.logaddexp(0, eta) - target * eta)

    ab = optimize.minimize(loss, np.array([1.0, 0.0]), method="BFGS").x
    return 1 / (1 + np.exp(-(ab[0] * _logit(s) + ab[1])))


def logistic_on_labels(s, idx, y):
    """scikit-learn's logistic regression (L2, C = 1) on logit(s), fitted to the labels."""
    from sklearn.linear_model import LogisticRegression

    if len(np.unique(y[idx])) < 2:
        return np.full(s.size, y[idx].mean())
    return LogisticRegression(C=1.0).fit(_logit(s[idx])[:, None], y[idx]).predict_proba(_logit(s)[:, None])[:, 1]
