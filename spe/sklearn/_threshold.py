"""A decision threshold chosen from all rows' scores and a few labels, with the posterior
probability that it meets the user's constraints (counterpart of scikit-learn's
``TunedThresholdClassifierCV``)."""

from __future__ import annotations

import warnings

from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..metrics import check_constraints, check_level
from ._base import SemisupervisedMixin

OBJECTIVES = ("f1", "cost")
KINDS = ("population", "sample")


def _estimator_has(name):
    def check(self):
        return hasattr(getattr(self, "estimator_", self.estimator), name)

    return check


class SemisupervisedThresholdClassifier(SemisupervisedMixin):
    """Tune a fitted binary classifier's decision threshold from unlabeled rows and a few labels.

    The counterpart of :class:`sklearn.model_selection.TunedThresholdClassifierCV` when
    most rows are unlabeled: ``fit(X, y)`` scores every row of ``X`` with the wrapped
    classifier, fits :func:`spe.fit` to all the scores and the labeled rows, and picks the
    threshold with :meth:`spe.SPEResult.choose_threshold` (constraints) or the expected
    F1 or cost (no constraint). It states the posterior probability that the
    constraints hold at that threshold (``prob_constraint_met_``), which a tuner on the
    labels alone cannot.

    Parameters
    ----------
    estimator : classifier
        A binary classifier with ``predict_proba`` or ``decision_function``: fitted
        already (``prefit=True``; wrap it in ``sklearn.frozen.FrozenEstimator`` so that
        :func:`~sklearn.base.clone` keeps it fitted), or fitted here on the labeled rows
        (``prefit=False``).
    min_precision, min_recall, max_fpr : float in [0, 1], optional
        The constraints; the threshold meets all of them with posterior probability
        >= ``confidence`` (see :meth:`spe.SPEResult.choose_threshold` for the rule among
        such thresholds). None of them: ``objective`` picks the threshold.
    confidence : float in (0, 1)
        The posterior probability the chosen threshold must reach.
    objective : "f1" or "cost"
        Without constraints: the maximal expected F1, or the minimal expected
        ``cost_fp * FP + cost_fn * FN``.
    cost_fp, cost_fn : float
        The costs of ``objective="cost"``.
    kind : "population" or "sample"
        What the constraints refer to: ``"population"`` (default) the rows the
        classifier will meet, as the score model sees them (no finite-sample noise of
        these rows); ``"sample"`` the rows of ``X`` passed to ``fit``.
    response_method : "auto", "predict_proba" or "decision_function"
        Where the scores come from; ``"auto"`` tries ``predict_proba`` first.
    pos_label : optional
        The positive class (default: ``classes_[1]``).
    prefit : bool
        Whether ``estimator`` is fitted already (True, the intended use). False fits a
        clone on the labeled rows; their scores are then in-sample, which flatters the
        labeled rows that spe learns the calibration from.
    spe_params : dict, optional
        Further options of :func:`spe.fit` (e.g. ``{"n_draws": 500, "model": "spline"}``).
    random_state : int, numpy Generator or None
        The seed of :func:`spe.fit`: the same seed gives the same threshold.

    Attributes
    ----------
    best_threshold_ : float
        The chosen threshold: ``predict`` says the positive class where the score >= it.
    prob_constraint_met_ : float
        Posterior probability that the constraints hold at ``best_threshold_`` (NaN with
        no constraint).
    feasible_ : bool
        Whether some threshold reaches ``confidence``; if not, ``best_threshold_`` is the
        most probable one and a warning says so.
    decision_ : spe.ThresholdDecision
        The decision with its expected precision, recall and FPR.
    result_ : spe.SPEResult
        The fitted posterior (curves, metrics, :meth:`~spe.SPEResult.summary`).
    estimator_ : classifier
        The classifier that scores (``estimator`` itself when ``prefit=True``).
    classes_ : ndarray of shape (2,)
    response_method_ : str
        ``"predict_proba"`` or ``"decision_function"``.
    n_features_in_, feature_names_in_
        Those of ``estimator_``, when it has them.

    See Also
    --------
    SemisupervisedCalibratedClassifier : calibrated probabilities from the same posterior.
    spe.SPEResult.choose_threshold : the rule.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from spe.sklearn import SemisupervisedThresholdClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 2)); y_true = (X[:, 0] + rng.normal(size=600) > 0).astype(int)
    >>> clf = LogisticRegression().fit(X[:200], y_true[:200])
    >>> y = np.full(600, -1); y[200:260] = y_true[200:260]      # 60 labels, -1: unlabeled
    >>> tuner = SemisupervisedThresholdClassifier(clf, min_precision=0.8, random_state=0,
    ...                                           spe_params={"n_draws": 200}).fit(X, y)
    >>> bool(tuner.feasible_), bool(tuner.prob_constraint_met_ >= 0.9)
    (True, True)
    >>> tuner.predict(X[:3]).shape
    (3,)
    """

    def __init__(self, estimator, *, min_precision=None, min_recall=None, max_fpr=None, confidence=0.9,
                 objective="f1", cost_fp=1.0, cost_fn=1.0, kind="population", response_method="auto",
                 pos_label=None, prefit=True, spe_params=None, random_state=None):
        self.estimator = estimator
        self.min_precision = min_precision
        self.min_recall = min_recall
        self.max_fpr = max_fpr
        self.confidence = confidence
        self.objective = objective
        self.cost_fp = cost_fp
        self.cost_fn = cost_fn
        self.kind = kind
        self.response_method = response_method
        self.pos_label = pos_label
        self.prefit = prefit
        self.spe_params = spe_params
        self.random_state = random_state

    def fit(self, X, y):
        """Score ``X``, fit the posterior, choose the threshold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Every row the classifier scores, labeled or not.
        y : array-like of shape (n_samples,)
            The class of each labeled row; NaN, None or -1 (when -1 is not a class)
            for unlabeled rows. With ``prefit=True`` ``y=None`` means no labels at all.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad ``y`` (wrong length, a value that is no class, more than two classes),
            a bad option, or ``prefit=True`` with an estimator that is not fitted
            (``sklearn.exceptions.NotFittedError``).
        """
        self._check_options()
        self._fit_posterior(X, y)
        self.decision_ = self._decide()
        self.best_threshold_ = float(self.decision_.threshold)
        constrained = bool(self.decision_.constraints)
        self.prob_constraint_met_ = float(self.decision_.probability) if constrained else float("nan")
        self.feasible_ = bool(self.decision_.feasible)
        if not self.feasible_:
            warnings.warn(f"no threshold meets the constraints with probability >= {self.confidence:g}: "
                          f"best_threshold_ is the most probable one (P = {self.prob_constraint_met_:.3f})",
                          UserWarning, stacklevel=2)
        return self

    def _check_options(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}")
        check_level(self.confidence)
        if self._constraints():
            check_constraints(**self._constraints())  # before the fit, not after it

    def _constraints(self) -> dict:
        given = {"min_precision": self.min_precision, "min_recall": self.min_recall, "max_fpr": self.max_fpr}
        return {k: v for k, v in given.items() if v is not None}

    def _decide(self):
        res, constraints = self.result_, self._constraints()
        if constraints:
            return res.choose_threshold(**constraints, confidence=self.confidence, kind=self.kind)
        if self.objective == "f1":
            return res.best_fbeta_threshold(1.0, kind=self.kind)
        return res.min_cost_threshold(self.cost_fp, self.cost_fn, kind=self.kind)

    def predict(self, X):
        """The positive class where the score reaches ``best_threshold_``, else the other.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Values of ``classes_``.
        """
        return self._labels_of(self._positive_scores(X) >= self.best_threshold_)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """The wrapped classifier's ``predict_proba`` (the threshold does not change it).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self, "result_")
        return self.estimator_.predict_proba(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """The wrapped classifier's ``decision_function``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "result_")
        return self.estimator_.decision_function(X)
