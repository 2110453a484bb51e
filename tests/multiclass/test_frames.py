"""A multiclass fit as tidy tables, on the caller's index and class names."""

import numpy as np
import pytest

import spe
from spe.exceptions import InputError

pd = pytest.importorskip("pandas")


def _data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet([1.0, 1.0, 1.0], size=n)
    truth = np.array([rng.choice(3, p=p) for p in probs])
    labels = np.where(np.arange(n) < 30, truth, -1)
    return probs, labels, truth


@pytest.fixture(scope="module")
def res():
    probs, labels, _ = _data()
    return spe.fit_multiclass(probs, labels, model="temperature", n_draws=200, seed=0)


def test_to_frame_holds_overall_and_per_class_rows(res):
    df = res.to_frame()
    assert list(df.columns) == ["metric", "class", "estimate", "lower", "upper", "level"]
    overall = df[df["class"].isna()].set_index("metric")
    assert overall.loc["accuracy", "estimate"] == res.accuracy().value
    per_class = df.dropna(subset=["class"])
    assert len(per_class) == 3 * 5 and set(per_class["class"]) == {0, 1, 2}
    recall1 = per_class[(per_class["metric"] == "recall") & (per_class["class"] == 1)]
    assert recall1["estimate"].item() == res.per_class()[1]["recall"].value


def test_per_class_and_confusion_frames_match_the_old_forms(res):
    rows = res.per_class()
    frame = res.per_class(as_frame=True)
    assert isinstance(rows, list) and len(frame) == 12
    assert frame.loc[(frame["class"] == 2) & (frame["metric"] == "precision"), "estimate"].item() \
        == rows[2]["precision"].value
    cm = res.confusion_matrix()
    table = res.confusion_matrix(as_frame=True).pivot(index="true", columns="predicted", values="estimate")
    np.testing.assert_array_equal(table.to_numpy(), cm["median"])


def test_dataframe_scores_name_classes_and_align_labels():
    probs, labels, truth = _data(seed=1)
    index = pd.Index([f"img{i}" for i in range(len(labels))])
    names = ["cat", "dog", "fox"]
    scores = pd.DataFrame(probs, index=index, columns=names)
    named = pd.Series(np.where(labels >= 0, np.array(names, dtype=object)[labels], None), index=index)
    shuffled = named.sample(frac=1.0, random_state=0)
    res = spe.fit_multiclass(scores, shuffled, model="temperature", n_draws=200, seed=0)
    plain = spe.fit_multiclass(probs, labels, model="temperature", n_draws=200, seed=0)
    np.testing.assert_array_equal(res.labels, plain.labels)
    assert res.accuracy().value == plain.accuracy().value
    shares = res.class_probabilities()
    assert list(shares.columns) == names and shares.index.equals(index)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
    known = labels >= 0
    assert (shares.to_numpy()[known, labels[known]] == 1.0).all()  # labeled items keep their class
    assert res.predicted_class().index.equals(index)
    assert set(res.predicted_class()) <= set(names)
    assert set(res.to_frame().dropna(subset=["class"])["class"]) == set(names)


def test_mismatched_index_and_unknown_class_names_are_refused():
    probs, labels, _ = _data(seed=2)
    scores = pd.DataFrame(probs, columns=["a", "b", "c"])
    with pytest.raises(InputError, match=r"5 label\(s\) of the class scores missing from labels"):
        spe.fit_multiclass(scores, pd.Series(labels).iloc[5:], n_draws=50, seed=0)
    with pytest.raises(ValueError, match="class name"):
        spe.fit_multiclass(scores, ["z"] + [None] * (len(labels) - 1), n_draws=50, seed=0)


def test_arrays_in_give_arrays_out(res):
    assert isinstance(res.class_probabilities(), np.ndarray)
    assert isinstance(res.predicted_class(), np.ndarray)
