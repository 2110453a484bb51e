import numpy as np
import pytest

#: Options of spe.fit that keep these tests fast: fewer draws than the default 1000, and the
#: piecewise-Platt map alone (the mixture's MAP search is most of a default fit's time).
FAST = {"n_draws": 200, "model": "spline"}


@pytest.fixture(scope="module")
def task():
    """A logistic regression fitted on 300 rows, 800 more rows with 60 labels (-1 elsewhere),
    and 4,000 fresh rows from the same distribution with their truth."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(7)

    def draw(n):
        X = rng.normal(size=(n, 2))
        return X, (1.2 * X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=n) > 0.8).astype(int)

    X_train, y_train = draw(300)
    X, y_true = draw(800)
    X_new, y_new = draw(4000)
    clf = LogisticRegression().fit(X_train, y_train)
    y = np.full(800, -1)
    y[:60] = y_true[:60]
    return {"clf": clf, "X": X, "y": y, "y_true": y_true, "X_new": X_new, "y_new": y_new}
