"""Several real classifiers on the same items, made by code from data scikit-learn bundles.

The shared files hold two sets of several models (bank, compas: tabular models, several of
them calibrated). This adds a third of a different kind: nine common scikit-learn
classifiers, out-of-fold (5-fold) probabilities on the bundled handwritten-digits data
(1,797 images), task "is the digit one of 3, 5, 8, 9", from the top three pixel rows only,
so that no model is near perfect. The set mixes over-confident (naive Bayes, a decision
tree, boosted trees), calibrated (k-NN, SVM with Platt) and under-confident (AdaBoost,
random forest, L2-regularised logistic regression) models. Every random state is fixed,
so the scores are the same on every run.
"""

from __future__ import annotations

import os
import warnings
from functools import lru_cache

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

DIGITS_POSITIVE = (3, 5, 8, 9)
DIGITS_PIXEL_ROWS = 3


def _models() -> dict:
    from sklearn.ensemble import AdaBoostClassifier, HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    return {
        "GaussianNB": GaussianNB(),
        "LR": make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=2000)),
        "DecisionTree": DecisionTreeClassifier(max_depth=6, random_state=0),
        "RandomForest": RandomForestClassifier(50, random_state=0),
        "AdaBoost": AdaBoostClassifier(random_state=0),
        "kNN": KNeighborsClassifier(15),
        "MLP": make_pipeline(StandardScaler(), MLPClassifier((32,), max_iter=500, random_state=0)),
        "SVM": make_pipeline(StandardScaler(), SVC(probability=True, random_state=0)),
        "HistGradientBoosting": HistGradientBoostingClassifier(random_state=0),
    }


@lru_cache(maxsize=1)
def digits_models():
    """(scores (N, M), labels (N,), model names): out-of-fold P(positive) of each model."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    x, digit = load_digits(return_X_y=True)
    x = x[:, : 8 * DIGITS_PIXEL_ROWS]
    y = np.isin(digit, DIGITS_POSITIVE).astype(int)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    models = _models()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes of the small MLP
        scores = np.column_stack([cross_val_predict(m, x, y, cv=folds, method="predict_proba")[:, 1]
                                  for m in models.values()])
    return scores, y.astype(float), list(models)


#: Simulated sets of several models (scores from a known world; not shared files): seven
#: models read one latent log-odds eta ~ N(-4.5, 3^2) (about 10% positives) through a
#: shared and their own noise and their own temperature (the world of
#: tests/several/test_many_population.py, three models added). "noisy top": 15% of the
#: positives-by-score are labeled negative, which no model sees (annotators disagree).
SIMULATED = {"simulated": 1.0, "simulated, noisy top": 0.85}
_SIMULATED_MODELS = [(1.0, 0.6), (2.0, 0.5), (0.7, 0.7), (1.5, 1.0), (1.0, 1.2), (3.0, 0.8), (0.5, 0.9)]


@lru_cache(maxsize=2)
def simulated_models(name, n=20_000):
    """(scores (N, M), labels (N,), model names) of a simulated set (:data:`SIMULATED`), fixed seed."""
    from scipy.special import expit

    rng = np.random.default_rng(sum(map(ord, name)))
    eta = -4.5 + 3.0 * rng.standard_normal(n)
    y = (rng.random(n) < SIMULATED[name] * expit(eta)).astype(float)
    shared = 0.4 * rng.standard_normal(n)
    scores = np.column_stack([expit(b * (eta + shared + sd * rng.standard_normal(n))) for b, sd in _SIMULATED_MODELS])
    return scores, y, [f"m{j}" for j in range(len(_SIMULATED_MODELS))]
