"""The fit both estimators share: the wrapped classifier (fitted already, or fitted here
on the labeled rows), its scores for every row of ``X``, and :func:`spe.fit` of those
scores with the labels."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ._inputs import (
    binary_labels,
    fit_posterior,
    pick_response_method,
    positive_index,
    positive_scores,
    split_target,
)


def _n_rows(X) -> int:
    from sklearn.utils.validation import _num_samples

    return _num_samples(X)


class SemisupervisedMixin(ClassifierMixin, BaseEstimator):
    """Fits ``estimator_``, ``classes_``, ``response_method_``, ``result_`` (see the subclasses)."""

    def _fit_posterior(self, X, y):
        """Set the fitted attributes the two estimators share; returns self."""
        if not isinstance(self.prefit, (bool, np.bool_)):
            raise TypeError(f"prefit must be True or False, got {self.prefit!r}")
        n = _n_rows(X)
        if self.prefit:
            estimator = self._fitted_estimator()
            y, labeled, classes = split_target(np.full(n, np.nan) if y is None else y, n, estimator.classes_)
        else:
            y, labeled, classes = split_target(y, n)
            rows = np.flatnonzero(labeled)
            estimator = clone(self.estimator).fit(_take(X, rows), y[rows])
        pos = positive_index(classes, self.pos_label)
        method = pick_response_method(estimator, self.response_method)
        scores = positive_scores(estimator, X, method, pos)
        self.result_ = fit_posterior(scores, binary_labels(y, labeled, classes, pos), self.spe_params,
                                     self.random_state)
        self.estimator_, self.classes_, self.response_method_ = estimator, np.asarray(classes), method
        self._pos_index = pos
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimator, name):
                setattr(self, name, getattr(estimator, name))
        return self

    def _fitted_estimator(self):
        try:
            check_is_fitted(self.estimator)
        except NotFittedError as exc:
            raise NotFittedError(
                f"prefit=True needs a fitted estimator and {type(self.estimator).__name__} is not fitted: fit it "
                "first (wrap it in sklearn.frozen.FrozenEstimator so that clone() keeps it fitted), or pass "
                "prefit=False to fit it on the labeled rows") from exc
        if not hasattr(self.estimator, "classes_"):
            raise TypeError(f"{type(self.estimator).__name__} has no classes_: spe.sklearn wraps classifiers")
        return self.estimator

    def _positive_scores(self, X) -> np.ndarray:
        """Scores of new rows on the scale the posterior was fitted on."""
        check_is_fitted(self, "result_")
        return positive_scores(self.estimator_, X, self.response_method_, self._pos_index)

    def _labels_of(self, positive: np.ndarray) -> np.ndarray:
        """Class labels from a boolean "is positive" per row."""
        return self.classes_[np.where(positive, self._pos_index, 1 - self._pos_index)]

    def __sklearn_tags__(self):
        from sklearn.utils import get_tags

        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
        return tags

    def _more_tags(self):  # scikit-learn < 1.6
        return {"binary_only": True}


def _take(X, rows):
    """Rows of an array, sparse matrix (of any format), DataFrame or list."""
    from scipy import sparse
    from sklearn.utils import _safe_indexing

    if sparse.issparse(X) and X.format not in ("csr", "csc"):
        X = X.tocsr()
    elif not hasattr(X, "__getitem__"):  # array-likes that only convert (``__array__``)
        X = np.asarray(X)
    return _safe_indexing(X, rows)
