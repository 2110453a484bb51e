"""The classifier families a user has, trained on one half of a task and scoring the other.

Eight scikit-learn families (single-threaded, fixed seeds): logistic regression, random
forest, histogram gradient boosting, Gaussian naive Bayes, k-NN and an MLP give
probabilities (``predict_proba[:, 1]``); an RBF SVC and a linear SVC give margins
(``decision_function``). Scale-sensitive families get a ``StandardScaler`` first.
"""

from __future__ import annotations

import warnings

import numpy as np

#: family -> score kind, in the order the corpus stores them.
KINDS = {"logreg": "probability", "forest": "probability", "hgb": "probability", "gnb": "probability",
         "knn": "probability", "mlp": "probability", "svc_rbf": "margin", "linear_svc": "margin"}
FAMILIES = tuple(KINDS)


def make_model(family: str, seed: int):
    """An unfitted scikit-learn estimator for ``family``.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    seed : int
        The ``random_state`` of families that use one.

    Returns
    -------
    estimator
    """
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, LinearSVC

    seed = int(seed % (2**31))
    builders = {
        "logreg": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "forest": lambda: RandomForestClassifier(n_estimators=100, min_samples_leaf=2, random_state=seed, n_jobs=1),
        "hgb": lambda: HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=seed),
        "gnb": lambda: GaussianNB(),
        "knn": lambda: make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=15)),
        "mlp": lambda: make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(32,), max_iter=200,
                                                                      early_stopping=True, random_state=seed)),
        "svc_rbf": lambda: make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale")),
        "linear_svc": lambda: make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=5000, random_state=seed)),
    }
    if family not in builders:
        raise ValueError(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")
    return builders[family]()


def split_halves(y: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Stratified train / held-out halves of the rows (indices, each sorted).

    Parameters
    ----------
    y : ndarray
        The 0/1 labels.
    seed : int
        The split's seed.

    Returns
    -------
    train, held_out : ndarray
    """
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.size)
    train, test = train_test_split(idx, test_size=0.5, stratify=y, random_state=int(seed % (2**31)))
    return np.sort(train), np.sort(test)


def score(model, X: np.ndarray, kind: str) -> np.ndarray:
    """The positive-class probability or the decision-function margin of ``X``."""
    if kind == "probability":
        return np.asarray(model.predict_proba(X)[:, 1], float)
    return np.asarray(model.decision_function(X), float)


def fit_and_score(family: str, X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                  seed: int) -> np.ndarray:
    """Train ``family`` on the ``train`` rows and score the ``test`` rows.

    Parameters
    ----------
    family : str
    X, y : ndarray
        The task's features and 0/1 labels.
    train, test : ndarray
        Row indices.
    seed : int

    Returns
    -------
    ndarray
        The held-out scores (float64).
    """
    model = make_model(family, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings: the scores are what a user gets
        model.fit(X[train], y[train])
        return score(model, X[test], KINDS[family])
