"""The item index contract: pandas inputs matched on their index, arrays by position."""

import sys

import numpy as np
import pytest

from spe.exceptions import InputError
from spe.scores import ItemIndex, align_on_index

pd = pytest.importorskip("pandas")


def _pair(seed=0, n=12):
    rng = np.random.default_rng(seed)
    index = pd.Index([f"id{i}" for i in range(n)])
    scores = pd.Series(rng.random(n), index=index)
    labels = pd.Series(rng.integers(0, 2, n).astype(float), index=index)
    return scores, labels


def test_shuffled_index_is_reordered_to_the_primary():
    scores, labels = _pair()
    shuffled = labels.sample(frac=1.0, random_state=3)
    assert not shuffled.index.equals(scores.index)
    items, s, y = align_on_index(scores, shuffled)
    assert s is scores
    assert y.index.equals(scores.index)
    np.testing.assert_array_equal(y.to_numpy(), labels.to_numpy())
    assert items.index.equals(scores.index)


def test_dataframe_others_are_reordered_by_row():
    scores, _ = _pair()
    frame = pd.DataFrame({"a": np.arange(12.0), "b": -np.arange(12.0)}, index=scores.index)
    items, _, f = align_on_index(scores, frame.iloc[::-1], names=("scores", "attributes"))
    np.testing.assert_array_equal(f["a"].to_numpy(), np.arange(12.0))


def test_identical_index_passes_through_even_with_duplicates():
    index = pd.Index(["a", "a", "b"])
    scores = pd.Series([0.1, 0.2, 0.3], index=index)
    labels = pd.Series([1.0, 0.0, 1.0], index=index)
    _, _, y = align_on_index(scores, labels)
    assert y is labels


@pytest.mark.parametrize("where", ["primary", "other"])
def test_duplicated_labels_are_refused_when_orders_differ(where):
    scores, labels = _pair()
    dup = list(scores.index)
    dup[1] = dup[0]
    if where == "primary":
        scores.index = dup
    else:
        labels.index = dup
    with pytest.raises(InputError, match=r"duplicated label\(s\) \('id0'\)") as info:
        align_on_index(scores, labels.iloc[::-1])
    assert "to_numpy()" in str(info.value)


def test_missing_and_extra_labels_are_counted_with_examples():
    scores, labels = _pair()
    other = labels.copy()
    other.index = [f"id{i}" for i in range(4)] + [f"x{i}" for i in range(8)]
    with pytest.raises(InputError) as info:
        align_on_index(scores, other, names=("scores", "labels"))
    msg = str(info.value)
    assert "8 label(s) of scores missing from labels ('id4', 'id5', 'id6', ...)" in msg
    assert "8 extra label(s) in labels ('x0', 'x1', 'x2', ...)" in msg
    assert "labels.to_numpy()" in msg


def test_a_subset_index_is_refused_not_filled_with_nan():
    scores, labels = _pair()
    with pytest.raises(InputError, match=r"2 label\(s\) of scores missing from labels"):
        align_on_index(scores, labels.iloc[2:])


def test_arrays_pass_through_unchanged():
    z = np.array([0.3, 0.1, 0.7])
    y = [1, 0, None]
    items, z2, y2 = align_on_index(z, y)
    assert items.index is None and z2 is z and y2 is y
    assert items.wrap(z) is not None and isinstance(items.wrap(z), np.ndarray)
    np.testing.assert_array_equal(items.labels([2, 0]), [2, 0])


def test_array_primary_matches_an_indexed_other_by_position():
    labels = pd.Series([1.0, 0.0], index=[5, 4])
    items, _, y = align_on_index(np.array([0.2, 0.4]), labels)
    assert items.index is None and y is labels


def test_none_passes_through():
    scores, _ = _pair()
    items, _, y, w = align_on_index(scores, None, None)
    assert y is None and w is None


def test_item_index_wraps_labels_and_positions_round_trip():
    scores, _ = _pair()
    items = ItemIndex(scores.index)
    series = items.wrap(np.arange(12), name="n")
    assert series.name == "n" and series.index.equals(scores.index)
    frame = items.wrap_frame(np.zeros((12, 2)), ["a", "b"])
    assert list(frame.columns) == ["a", "b"] and frame.index.equals(scores.index)
    assert items.labels([3, 1]) == ["id3", "id1"]
    np.testing.assert_array_equal(items.positions(["id3", "id1"]), [3, 1])
    with pytest.raises(KeyError, match="nope"):
        items.positions(["nope"])
    with pytest.raises(ValueError, match="3 rows"):
        items.wrap(np.arange(3))


def test_item_index_pickles():
    import pickle

    items = pickle.loads(pickle.dumps(ItemIndex(pd.Index(["a", "b"]))))
    assert items.labels([1]) == ["b"]


def test_polars_inputs_never_import_pandas(monkeypatch):
    pl = pytest.importorskip("polars")
    monkeypatch.setitem(sys.modules, "pandas", None)  # any import of pandas would now fail
    s, y = pl.Series([0.1, 0.5, 0.9]), pl.Series([1.0, None, 0.0])
    items, s2, y2 = align_on_index(s, y)
    assert items.index is None and s2 is s and y2 is y
    assert isinstance(items.wrap(np.arange(3.0)), np.ndarray)
    np.testing.assert_array_equal(items.labels([2]), [2])
