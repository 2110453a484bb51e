"""fit_many matches pandas inputs on their index (issue #44): shuffled columns and labels give
the aligned answer, mismatched indexes are refused, per-item outputs carry the index."""

import warnings

import numpy as np
import pytest

import spe
from spe.exceptions import InputError

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def items():
    rng = np.random.default_rng(0)
    n = 240
    y = (rng.random(n) < 0.35).astype(float)
    a = np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, n), 0, 1)
    b = np.clip(0.3 + 0.2 * y + rng.normal(0, 0.25, n), 0, 1)
    labels = np.where(np.arange(n) < 30, y, np.nan)
    ids = pd.Index([f"item{i}" for i in range(n)], name="id")
    return a, b, labels, ids


def fit(scores, labels, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.fit_many(scores, labels, n_draws=200, seed=0, label_model="maps", **kw)


@pytest.fixture(scope="module")
def base(items):
    """The fit of the plain arrays, made once for the tests that compare with it (read only)."""
    a, b, labels, _ = items
    return fit({"a": a, "b": b}, labels)


def test_shuffled_series_give_the_aligned_answer(items, base):
    a, b, labels, ids = items
    order = np.random.default_rng(1).permutation(a.size)
    shuffled = {"a": pd.Series(a, ids), "b": pd.Series(b, ids).iloc[order]}
    res = fit(shuffled, pd.Series(labels, ids).iloc[order[::-1]])
    assert res.metrics()[1]["AUROC"].value == base.metrics()[1]["AUROC"].value
    np.testing.assert_array_equal(res.prob_positive().to_numpy(), base.prob_positive())
    assert res.prob_positive().index.equals(ids)


def test_a_frame_of_models_aligns_the_labels_and_outputs_carry_its_index(items, base):
    a, b, labels, ids = items
    frame = pd.DataFrame({"a": a, "b": b}, index=ids)
    order = np.random.default_rng(2).permutation(a.size)
    res = fit(frame, pd.Series(labels, ids).iloc[order])
    assert res.metrics()[0]["AUROC"].value == base.metrics()[0]["AUROC"].value
    picks = res["a"].suggest_labels(3)
    assert all(p in ids for p in picks) and not any(p in ids[:30] for p in picks)
    assert isinstance(res["b"].prob_positive(), pd.Series)
    beats = res.prob_beats("AUROC")
    assert isinstance(beats, pd.DataFrame) and beats.index.tolist() == ["a", "b"]
    np.testing.assert_array_equal(res.prob_beats("AUROC", as_frame=False), beats.to_numpy())
    assert beats.loc["a", "b"] + beats.loc["b", "a"] == pytest.approx(1.0)


def test_arrays_in_give_arrays_out_and_a_labelled_frame_on_request(base):
    assert isinstance(base.prob_positive(), np.ndarray) and isinstance(base.prob_beats(), np.ndarray)
    assert base.prob_beats(as_frame=True).columns.tolist() == ["a", "b"]


def test_mismatched_or_duplicated_indexes_are_refused(items):
    a, b, labels, ids = items
    other = pd.Index([f"other{i}" for i in range(a.size)])
    with pytest.raises(InputError, match=r"scores\['b'\].*240 extra label"):
        fit({"a": pd.Series(a, ids), "b": pd.Series(b, other)}, labels)
    with pytest.raises(InputError, match="labels"):
        fit({"a": pd.Series(a, ids), "b": b}, pd.Series(labels, other))
    dup = ids[:-1].append(ids[:1])
    with pytest.raises(ValueError, match="duplicated"):
        fit({"a": pd.Series(a, ids), "b": pd.Series(b, dup).iloc[::-1]}, labels)


def test_several_multiclass_models_align_their_labels():
    rng = np.random.default_rng(3)
    n, k = 150, 3
    y = rng.integers(0, k, n)
    ids = pd.Index(np.arange(n) * 7)
    probs = {f"m{j}": pd.DataFrame(np.exp(2 * np.eye(k)[y] + rng.normal(0, 1, (n, k))), index=ids)
             for j in range(2)}
    probs = {m: p.div(p.sum(axis=1), axis=0) for m, p in probs.items()}
    labels = pd.Series(np.where(np.arange(n) < 30, y, -1), ids)
    pool = {"n_draws": 100, "seed": 0, "label_model": "pool"}  # one label model: the labels' alignment is checked
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = spe.fit_many(probs, labels, **pool)
        shuffled = spe.fit_many(probs, labels.iloc[::-1], **pool)
    assert base.metrics()[0]["accuracy"].value == shuffled.metrics()[0]["accuracy"].value
    assert isinstance(base.prob_beats(), pd.DataFrame)
    frame = base.to_frame()
    assert frame.columns.tolist()[:6] == ["model", "metric", "kind", "estimate", "lower", "upper"]
