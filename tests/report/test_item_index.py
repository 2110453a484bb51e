"""spe.fit matches pandas scores and labels on their index, and per-item outputs carry it."""

import numpy as np
import pytest

import spe

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def breast_cancer():
    """Out-of-fold logistic-regression probabilities on scikit-learn's breast cancer data,
    30 labels, as pandas Series sharing an index (the issue's case)."""
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X.index = y.index = [f"patient{i}" for i in range(len(y))]
    model = make_pipeline(StandardScaler(), LogisticRegression())
    p = cross_val_predict(model, X, y, cv=5, method="predict_proba")[:, 1]
    scores = pd.Series(p, index=X.index, name="score")
    keep = pd.Series(np.random.default_rng(0).permutation(len(y)) < 30, index=y.index)
    labels = y.astype(float).where(keep)
    return scores, labels, y


def _fit(scores, labels):
    return spe.fit(scores, labels, model="platt", n_draws=300, seed=0, progress=False)


def test_shuffled_labels_give_the_aligned_answer(breast_cancer):
    scores, labels, y = breast_cancer
    shuffled = labels.sample(frac=1.0, random_state=1)
    aligned = _fit(scores, shuffled)
    by_position = _fit(scores.to_numpy(), labels.to_numpy())
    wrong = _fit(scores, shuffled.to_numpy())  # what matching by position gave before
    assert aligned.average_precision().value == by_position.average_precision().value
    assert aligned.average_precision().value > 0.9
    assert wrong.average_precision().value < aligned.average_precision().value - 0.1
    np.testing.assert_array_equal(aligned.prob_positive().to_numpy(), by_position.prob_positive())


def test_per_item_outputs_carry_the_callers_index(breast_cancer):
    scores, labels, _ = breast_cancer
    res = _fit(scores, labels.sample(frac=1.0, random_state=2))
    p = res.prob_positive()
    assert isinstance(p, pd.Series) and p.index.equals(scores.index)
    assert p[labels.notna()].isin([0.0, 1.0]).all()  # labeled items keep their label
    values = res.label_values()
    assert isinstance(values, pd.Series) and values.index.equals(scores.index)
    picks = res.suggest_labels(5)
    assert len(picks) == 5 and all(isinstance(p, str) and p.startswith("patient") for p in picks)
    assert labels.loc[picks].isna().all()  # only unlabeled items are suggested
    new = res.calibrate(scores.iloc[:4])
    assert isinstance(new, pd.Series) and new.index.equals(scores.index[:4])


def test_arrays_in_give_arrays_out(breast_cancer):
    scores, labels, _ = breast_cancer
    res = _fit(scores.to_numpy(), labels.to_numpy())
    assert isinstance(res.prob_positive(), np.ndarray)
    picks = res.suggest_labels(3)
    assert isinstance(picks, np.ndarray) and picks.dtype.kind == "i"
    assert res.items.index is None


def test_mismatched_index_is_refused_with_the_counts(breast_cancer):
    scores, labels, _ = breast_cancer
    with pytest.raises(spe.exceptions.InputError, match=r"20 label\(s\) of scores missing from labels"):
        _fit(scores, labels.iloc[20:])
    renamed = labels.rename(lambda i: i.upper())
    with pytest.raises(ValueError, match=r"labels.to_numpy\(\)"):
        _fit(scores, renamed)


def test_a_frames_columns_keep_their_rows(breast_cancer):
    scores, labels, _ = breast_cancer
    frame = pd.DataFrame({"score": scores, "label": labels}).sample(frac=1.0, random_state=4)
    res = _fit(frame["score"], frame["label"])
    assert res.prob_positive().index.equals(frame.index)
    assert res.average_precision().value == _fit(scores, labels).average_precision().value


def test_the_index_survives_pickling_and_exports_still_work(breast_cancer, tmp_path):
    import pickle

    scores, labels, _ = breast_cancer
    res = _fit(scores, labels)
    back = pickle.loads(pickle.dumps(res))
    assert back.items.index.equals(scores.index)
    pd.testing.assert_series_equal(back.prob_positive(), res.prob_positive())
    assert "posterior" in res.to_inference_data().groups()
    assert res.summary().to_dict()["n_items"] == len(scores)
