"""Probabilities recalibrated from all rows' scores and a few labels (counterpart of
scikit-learn's ``CalibratedClassifierCV(FrozenEstimator(clf))``, formerly ``cv="prefit"``)."""

from __future__ import annotations

import numpy as np

from ._base import SemisupervisedMixin


class SemisupervisedCalibratedClassifier(SemisupervisedMixin):
    """Calibrate a fitted binary classifier from unlabeled rows and a few labels.

    ``fit(X, y)`` scores every row of ``X``, fits :func:`spe.fit` to all the scores and
    the labeled rows; ``predict_proba(X_new)`` is the posterior mean of
    P(y = 1 | score) at the new rows' scores (:meth:`spe.SPEResult.calibrate`: the same
    pooled draws whose per-row values :meth:`spe.SPEResult.prob_positive` gives for the
    fitted rows, which there also replaces a labeled row by its label). The map is
    monotone in the score only when the score models are (the Platt-type maps are; the
    mixture's ratio of densities need not be).

    Parameters
    ----------
    estimator : classifier
        A binary classifier with ``predict_proba`` or ``decision_function``, fitted
        already (``prefit=True``; ``sklearn.frozen.FrozenEstimator`` keeps it fitted
        through :func:`~sklearn.base.clone`) or fitted here on the labeled rows.
    response_method : "auto", "predict_proba" or "decision_function"
        Where the scores come from; ``"auto"`` tries ``predict_proba`` first.
    pos_label : optional
        The positive class (default: ``classes_[1]``).
    prefit : bool
        Whether ``estimator`` is fitted already. False fits a clone on the labeled rows
        (their scores are then in-sample: the calibration learnt from them is optimistic).
    spe_params : dict, optional
        Further options of :func:`spe.fit` (e.g. ``{"model": "spline"}``).
    random_state : int, numpy Generator or None
        The seed of :func:`spe.fit`.

    Attributes
    ----------
    result_ : spe.SPEResult
        The fitted posterior.
    estimator_ : classifier
        The classifier that scores.
    classes_ : ndarray of shape (2,)
    response_method_ : str
    n_features_in_, feature_names_in_
        Those of ``estimator_``, when it has them.

    See Also
    --------
    SemisupervisedThresholdClassifier : a decision threshold from the same posterior.
    spe.SPEResult.calibrate : the map applied to new scores.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from spe.sklearn import SemisupervisedCalibratedClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 1)); y_true = (X[:, 0] + rng.normal(size=600) > 0).astype(int)
    >>> clf = GaussianNB().fit(X[:200], y_true[:200])
    >>> y = np.full(600, np.nan); y[200:250] = y_true[200:250]     # 50 labels
    >>> cal = SemisupervisedCalibratedClassifier(clf, random_state=0,
    ...                                          spe_params={"n_draws": 200}).fit(X, y)
    >>> proba = cal.predict_proba(np.array([[-2.0], [0.0], [2.0]]))
    >>> proba.shape, bool(np.all(np.diff(proba[:, 1]) > 0))
    ((3, 2), True)
    """

    def __init__(self, estimator, *, response_method="auto", pos_label=None, prefit=True, spe_params=None,
                 random_state=None):
        self.estimator = estimator
        self.response_method = response_method
        self.pos_label = pos_label
        self.prefit = prefit
        self.spe_params = spe_params
        self.random_state = random_state

    def fit(self, X, y):
        """Score ``X`` and fit the posterior of P(y = 1 | score).

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
            Bad ``y`` (wrong length, a value that is no class, more than two classes)
            or a bad option.
        """
        return self._fit_posterior(X, y)

    def predict_proba(self, X):
        """Recalibrated class probabilities of new rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Columns in the order of ``classes_``.
        """
        scores = self._positive_scores(X)
        p = np.clip(self.result_.calibrate(scores), 0.0, 1.0) if scores.size else np.empty(0)
        out = np.empty((p.size, 2))
        out[:, self._pos_index], out[:, 1 - self._pos_index] = p, 1.0 - p
        return out

    def predict(self, X):
        """The class with the higher recalibrated probability (the positive class on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._labels_of(self.predict_proba(X)[:, self._pos_index] >= 0.5)
