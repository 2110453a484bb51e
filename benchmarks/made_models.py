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
