"""Out-of-fold classifier scores on scikit-learn's bundled digits (UCI optdigits test set).

The SPE paper's "svm3" / "logres8" setups: a linear SVM or a logistic regression, one
digit as the positive class and the rest negative. Scores are 5-fold cross-validated so
every item is scored by a model that did not train on it. Needs ``pip install .[examples]``.

    python examples/digits_scores.py        # rewrites spe/data/digits_svm3.csv
"""

from __future__ import annotations

import csv
from pathlib import Path


OUT = Path(__file__).resolve().parents[1] / "spe" / "data" / "digits_svm3.csv"


def digit_scores(classifier: str, digit: int, seed: int = 0):
    """(scores, labels) for `classifier` in {"svm", "logres"} and one positive digit."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    X, y = load_digits(return_X_y=True)
    labels = (y == digit).astype(int)
    if classifier == "svm":
        model = make_pipeline(StandardScaler(), LinearSVC(C=0.01, max_iter=20_000))
    elif classifier == "logres":
        model = make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=5_000))
    else:
        raise ValueError(f"classifier must be 'svm' or 'logres', got {classifier!r}")
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    scores = cross_val_predict(model, X, labels, cv=cv, method="decision_function")
    return scores, labels


def top1_scores(seed: int = 0):
    """Top-1 confidence of a 10-class logistic regression, positive = prediction correct.

    The multiclass route of method.md section 6: SPE on these scores estimates accuracy.
    """
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=5_000))
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    proba = cross_val_predict(model, X, y, cv=cv, method="predict_proba")
    return proba.max(axis=1), (proba.argmax(axis=1) == y).astype(int)


def main():
    scores, labels = digit_scores("svm", 3)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["score", "label"])
        for s, y in zip(scores, labels):
            w.writerow([f"{s:.6f}", int(y)])
    print(f"wrote {OUT} ({scores.size} items, {labels.sum()} positive)")


if __name__ == "__main__":
    main()
