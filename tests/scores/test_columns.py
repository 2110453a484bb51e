"""Columns as users hold them: pandas, polars and pyarrow columns give the numbers NumPy arrays
give; lazy Dask collections are streamed by spe.fit (never computed whole) and refused
elsewhere with the streaming path named."""

import warnings

import numpy as np
import pytest
from scipy import special

import spe
from spe.cli import main


def _data(n=1500, seed=0, decimals=3):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.round(np.where(y, rng.beta(5, 2, n), rng.beta(2, 5, n)), decimals)
    return s, np.where(np.arange(n) % 50 == 0, y.astype(float), np.nan)


# These tests check that a column reaches spe.fit as the NumPy array would (number for number), not
# the family choice: the pair the default search picks for these scores gives the default fit's very
# draws (a float32 round trip of the scores still changes them) at half the cost.
FAMILIES = ("skewnorm", "skewnorm")


def _fit(scores, labels=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.fit(scores, labels, seed=0, n_draws=200, families=FAMILIES, **kw)


@pytest.fixture(scope="module")
def reference():
    s, labels = _data()
    return s, labels, _fit(s, labels).auroc().draws


def _nullable(labels):
    return [None if np.isnan(v) else int(v) for v in labels]


def test_pandas_columns_and_nullable_labels_give_the_numpy_numbers(reference):
    pd = pytest.importorskip("pandas")
    s, labels, auroc = reference
    frame = pd.DataFrame({"s": s, "y": pd.array(_nullable(labels), dtype="Int64")})
    frame["yes"] = pd.Series(np.where(np.isnan(labels), None, np.where(labels == 1, "yes", "no")), dtype="string")
    for scores, y in ((frame["s"], frame["y"]), (frame[["s"]], frame["y"].astype("boolean")), (frame["s"], frame["yes"])):
        np.testing.assert_array_equal(_fit(scores, y).auroc().draws, auroc)
    with pytest.raises(ValueError, match="1 NaN/inf"):
        _fit(pd.Series([0.1, None, 0.3, 0.5], dtype="Float64"))
    with pytest.raises(ValueError, match="one-dimensional"):
        _fit(frame[["s", "y"]])


def test_polars_columns_give_the_numpy_numbers(reference):
    pl = pytest.importorskip("polars")
    s, labels, auroc = reference
    y = pl.Series(_nullable(labels))
    np.testing.assert_array_equal(_fit(pl.Series(s), y).auroc().draws, auroc)
    np.testing.assert_array_equal(_fit(pl.Series(s), y.cast(pl.Boolean)).auroc().draws, auroc)
    with pytest.raises(ValueError, match="NaN/inf"):
        _fit(pl.Series([0.1, None, 0.3]))


def test_pyarrow_arrays_give_the_numpy_numbers(reference):
    pa = pytest.importorskip("pyarrow")
    s, labels, auroc = reference
    chunked = pa.chunked_array([s[:700], s[700:]])
    np.testing.assert_array_equal(_fit(chunked, pa.array(_nullable(labels))).auroc().draws, auroc)
    np.testing.assert_array_equal(_fit(pa.array(s), pa.array(_nullable(labels)).cast(pa.bool_())).auroc().draws, auroc)


def test_fit_many_takes_a_frame_of_models_and_fit_multiclass_a_frame_of_classes():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    n = 300
    y = rng.random(n) < 0.4
    models = {"a": special.expit(2 * np.where(y, 1, -1) + rng.normal(0, 1, n)), "b": rng.random(n)}
    labels = np.where(np.arange(n) < 30, y.astype(float), np.nan)
    # one label model each (the log-linear pool, temperature scaling): the frames are checked, not the stacks
    many = {"n_draws": 200, "seed": 0, "label_model": "pool"}
    want = spe.fit_many(models, labels, **many).metric_draws("a")["AUROC"]
    got = spe.fit_many(pd.DataFrame(models), pd.array(_nullable(labels), dtype="Int64"), **many)
    np.testing.assert_array_equal(got.metric_draws("a")["AUROC"], want)
    pl = pytest.importorskip("polars")
    np.testing.assert_array_equal(spe.fit_many(pl.DataFrame(models), labels, **many).metric_draws("a")["AUROC"], want)
    k = 3
    classes = rng.integers(0, k, n)
    probs = special.softmax(2 * np.eye(k)[classes] + rng.normal(0, 1, (n, k)), axis=1)
    class_labels = np.where(np.arange(n) < 20, classes, -1)
    one = {"n_draws": 200, "seed": 0, "model": "temperature"}
    want = spe.fit_multiclass(probs, class_labels, **one).accuracy().draws
    nullable = pd.array([None if c < 0 else int(c) for c in class_labels], dtype="Int64")
    got = spe.fit_multiclass(pd.DataFrame(probs, columns=["x", "y", "z"]), pd.Series(nullable), **one)
    np.testing.assert_array_equal(got.accuracy().draws, want)


@pytest.fixture
def never_whole(monkeypatch):
    """Dask arrays whose whole computation fails (np.asarray, .compute()), and a log of the
    size of every block computed."""
    da = pytest.importorskip("dask.array")

    def whole(self, *args, **kwargs):
        raise AssertionError("the whole lazy array was computed")

    monkeypatch.setattr(da.Array, "__array__", whole)
    monkeypatch.setattr(da.Array, "compute", whole)
    computed = []

    def lazy(values, chunks):
        def block(x):
            computed.append(x.size)
            return x
        return da.from_array(values, chunks=chunks).map_blocks(block, meta=np.empty(0, values.dtype))

    return lazy, computed


def test_a_lazy_dask_array_is_streamed_block_by_block_never_computed_whole(never_whole, reference):
    """Exact counts: the fit of the array itself, number for number."""
    lazy, computed = never_whole
    s, labels, expected = reference
    res = _fit(lazy(s, 250), lazy(labels, 250))
    assert sorted(computed) == [250] * 6 * 2  # every block of scores and labels once, none larger
    np.testing.assert_array_equal(res.auroc().draws, expected)
    assert not res.data.item_level and res.data.n_labeled == 30
    np.testing.assert_array_equal(_fit(lazy(s, 250), labels).auroc().draws, expected)  # labels in memory
    with pytest.raises(ValueError, match="needs every item's score"):
        res.prob_positive()
    np.testing.assert_array_equal(_fit(lazy(s, 250), None).auroc().draws, _fit(s).auroc().draws)


def test_a_lazy_dask_dataframe_column_is_streamed_with_its_label_column(reference):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    s, labels, want = reference
    frame = dd.from_pandas(pd.DataFrame({"s": s, "y": labels}), npartitions=4)
    np.testing.assert_array_equal(_fit(frame["s"], frame["y"]).auroc().draws, want)
    with pytest.raises(TypeError, match="column of the same dataframe"):
        _fit(frame["s"], labels)


def test_lazy_collections_are_refused_where_they_cannot_be_streamed(never_whole):
    lazy, computed = never_whole
    s, labels = _data(300)
    with pytest.raises(TypeError, match=r"not loaded whole silently.*spe\.fit\(spe\.count_dask"):
        spe.fit_many({"a": lazy(s, 100), "b": s}, labels)
    with pytest.raises(TypeError, match=r"labels is a lazy Dask collection.*\.compute\(\)"):
        spe.fit_many({"a": s}, lazy(labels, 100))
    probs = np.column_stack([s, 1 - s])
    with pytest.raises(TypeError, match="cannot be streamed"):
        spe.fit_multiclass(lazy(probs, (100, 2)))
    with pytest.raises(TypeError, match="cannot be streamed"):
        spe.fit_many({"a": lazy(probs, (100, 2)), "b": probs})
    with pytest.raises(TypeError, match="spe.count_dask"):
        spe.count_scores(lazy(s, 100))
    with pytest.raises(TypeError, match="scores are not"):
        _fit(s, lazy(labels, 100))
    assert computed == []


def test_cli_streams_a_parquet_file_and_gives_the_numbers_of_loading_it(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import json

    s, labels = _data(2000)
    pq.write_table(pa.table({"score": s, "label": labels}), tmp_path / "scores.parquet")
    out = {}
    for name, extra in (("loaded", []), ("streamed", ["--stream"])):
        assert main(["fit", str(tmp_path / "scores.parquet"), "--score-col", "score", "--label-col", "label",
                     "--n-draws", "200", "--families", ",".join(FAMILIES), "--out", str(tmp_path / name), *extra]) == 0
        out[name] = json.loads((tmp_path / name / "summary.json").read_text())
    assert out["streamed"]["metrics"] == out["loaded"]["metrics"] and out["streamed"]["n_items"] == 2000
    assert main(["fit", str(tmp_path / "scores.parquet"), "--score-col", "score,label", "--stream"]) == 2
    assert "--stream counts one score column" in capsys.readouterr().err
