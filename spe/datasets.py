"""Real classifier outputs to try spe on: the bundled demo, and out-of-fold scores of
scikit-learn classifiers on its bundled handwritten digits (made by code, no download).

The digits makers need scikit-learn (``pip install "spe[examples]"``); every random state
is fixed, so they return the same scores on every run.
"""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np

DEMO_FILE = "digits_svm3.csv"
#: The binary classifiers :func:`digits_scores` makes (the SPE paper's svm / logres setups).
DIGITS_CLASSIFIERS = ("svm", "logres", "naive_bayes")


def load_demo() -> tuple[np.ndarray, np.ndarray]:
    """(scores, labels) of the demo: out-of-fold linear-SVM scores, digit 3 vs the rest.

    scikit-learn's digits (1,797 items), the SPE paper's "svm3": ``digits_scores("svm", 3)``
    rounded to 6 decimals and bundled, so the demo needs no scikit-learn.

    Returns
    -------
    scores : ndarray of shape (1797,)
        Linear-SVM margins (higher means "more likely a 3").
    labels : ndarray of shape (1797,)
        1.0 for the digit 3, 0.0 for the rest.

    See Also
    --------
    digits_scores : the same scores made from scikit-learn's digits, other classifiers too.

    Examples
    --------
    >>> from spe.datasets import load_demo
    >>> scores, labels = load_demo()
    >>> scores.shape, int(labels.sum())
    ((1797,), 183)
    """
    with resources.files("spe").joinpath("data", DEMO_FILE).open() as fh:
        rows = list(csv.DictReader(fh))
    return np.array([float(r["score"]) for r in rows]), np.array([float(r["label"]) for r in rows])


def _digits():
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise ImportError("the digits data sets need scikit-learn: pip install 'spe[examples]'") from None
    return load_digits(return_X_y=True)


def _folds(seed):
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(5, shuffle=True, random_state=seed)


def digits_scores(classifier: str = "svm", digit: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(scores, labels) of one digit against the rest, 5-fold out-of-fold.

    ``classifier``: ``"svm"`` (linear SVM margins) or ``"logres"`` (logistic regression
    decision values), both on standardised pixels, or ``"naive_bayes"`` (Gaussian naive
    Bayes probabilities). Every item is scored by a model that did not train on it.

    Parameters
    ----------
    classifier : {"svm", "logres", "naive_bayes"}, default="svm"
        Which classifier scores the items.
    digit : int, default=3
        The positive class (0-9).
    seed : int, default=0
        Seed of the stratified 5-fold split.

    Returns
    -------
    scores : ndarray of shape (1797,)
    labels : ndarray of shape (1797,)
        1 for ``digit``, 0 for the rest.

    Raises
    ------
    ValueError
        If ``classifier`` is not one of :data:`DIGITS_CLASSIFIERS`.
    ImportError
        If scikit-learn is not installed.

    See Also
    --------
    load_demo : the bundled ``digits_scores("svm", 3)``, no scikit-learn needed.

    Examples
    --------
    >>> from spe.datasets import digits_scores
    >>> scores, labels = digits_scores("naive_bayes", digit=8)
    >>> scores.shape, int(labels.sum())
    ((1797,), 174)
    """
    if classifier not in DIGITS_CLASSIFIERS:
        raise ValueError(f"classifier must be one of {DIGITS_CLASSIFIERS}, got {classifier!r}")
    X, y = _digits()
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    labels = (y == digit).astype(int)
    if classifier == "naive_bayes":
        return cross_val_predict(GaussianNB(), X, labels, cv=_folds(seed), method="predict_proba")[:, 1], labels
    model = (LinearSVC(C=0.01, max_iter=20_000) if classifier == "svm"
             else LogisticRegression(C=0.01, max_iter=5_000))
    scores = cross_val_predict(make_pipeline(StandardScaler(), model), X, labels, cv=_folds(seed),
                               method="decision_function")
    return scores, labels


def digits_top1(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(top-1 confidence, correct) of a 10-class logistic regression, 5-fold out-of-fold:
    the multiclass route of the method's section 6, where SPE on these estimates accuracy.

    Parameters
    ----------
    seed : int, default=0
        Seed of the stratified 5-fold split.

    Returns
    -------
    confidence : ndarray of shape (1797,)
        The top-1 class probability of each item.
    correct : ndarray of shape (1797,)
        1 where the top-1 class is the true one.

    Raises
    ------
    ImportError
        If scikit-learn is not installed.

    Examples
    --------
    >>> from spe.datasets import digits_top1
    >>> confidence, correct = digits_top1()
    >>> bool(((confidence > 0.1) & (confidence <= 1)).all()), round(float(correct.mean()), 2)
    (True, 0.95)
    """
    X, y = _digits()
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=5_000))
    proba = cross_val_predict(model, X, y, cv=_folds(seed), method="predict_proba")
    return proba.max(axis=1), (proba.argmax(axis=1) == y).astype(int)


def digits_probabilities(seed: int = 0) -> tuple[dict, np.ndarray]:
    """({model: (1797, 10) class probabilities}, true classes): a logistic regression,
    Gaussian naive Bayes and a random forest, 5-fold out-of-fold.

    Several classifiers on the same items, for :func:`spe.fit_many` and
    :func:`spe.fit_multiclass`.

    Parameters
    ----------
    seed : int, default=0
        Seed of the 5-fold split and of the random forest.

    Returns
    -------
    probabilities : dict of str to ndarray of shape (1797, 10)
    classes : ndarray of shape (1797,)

    Raises
    ------
    ImportError
        If scikit-learn is not installed.

    Examples
    --------
    >>> from spe.datasets import digits_probabilities
    >>> probabilities, classes = digits_probabilities()  # doctest: +SKIP
    >>> sorted(probabilities), probabilities["naive Bayes"].shape  # doctest: +SKIP
    (['logistic regression', 'naive Bayes', 'random forest'], (1797, 10))
    """
    X, y = _digits()
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    models = {"logistic regression": LogisticRegression(max_iter=2000), "naive Bayes": GaussianNB(),
              "random forest": RandomForestClassifier(100, random_state=seed)}
    return {n: cross_val_predict(m, X, y, cv=_folds(seed), method="predict_proba") for n, m in models.items()}, y
