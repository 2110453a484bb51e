"""Scores larger than memory: mergeable counts, Parquet datasets, Dask collections."""

import warnings

import numpy as np
import pytest

import spe
from spe.scores import ScoreCounts, count_scores
from spe.scores._counts import quantize


def _same_counts(a: ScoreCounts, b: ScoreCounts):
    assert a.bits == b.bits
    np.testing.assert_array_equal(a.keys, b.keys)
    np.testing.assert_array_equal(a.count, b.count)
    np.testing.assert_array_equal(a.low, b.low)
    np.testing.assert_array_equal(a.high, b.high)
    np.testing.assert_allclose(a.total, b.total, rtol=1e-12)
    np.testing.assert_array_equal(np.sort(a.labeled_scores), np.sort(b.labeled_scores))


def _data(n=20_000, seed=0, decimals=None):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.where(y, rng.normal(1.5, 1, n), rng.normal(-0.5, 1, n))
    if decimals is not None:
        s = np.round(s, decimals)
    labels = np.full(n, np.nan)
    idx = rng.choice(n, 40, replace=False)
    labels[idx] = y[idx]
    return s, labels


@pytest.mark.parametrize("max_keys", [1 << 20, 500])
def test_merging_chunks_in_any_order_gives_the_counts_of_all_items(max_keys):
    s, labels = _data()
    whole = count_scores(s, labels, max_keys=max_keys)
    assert whole.exact == (max_keys > s.size) and whole.n_items == s.size and whole.n_labeled == 40
    rng = np.random.default_rng(1)
    for _ in range(3):
        cuts = np.sort(rng.choice(np.arange(1, s.size), 6, replace=False))
        parts = [ScoreCounts.from_arrays(a, b, max_keys) for a, b in zip(np.split(s, cuts), np.split(labels, cuts))]
        order = rng.permutation(len(parts))
        merged = ScoreCounts.empty(max_keys)
        for i in order:
            merged = merged.merge(parts[i])
        _same_counts(merged, whole.coarsened(merged.bits) if merged.bits != whole.bits else whole)


def test_binned_keys_are_contiguous_ranges_of_bounded_relative_width():
    s, _ = _data(50_000, seed=2)
    c = count_scores(s, max_keys=2000)
    assert not c.exact and c.keys.size <= 2000 and np.all(np.diff(c.keys) > 0)
    key = c.key_of(s)
    assert np.all((c.low[key] <= s) & (s <= c.high[key]))
    assert np.all(c.high[:-1] < c.low[1:])  # disjoint, in order
    np.testing.assert_array_equal(np.bincount(key, minlength=c.keys.size), c.count)
    np.testing.assert_allclose(np.bincount(key, weights=s, minlength=c.keys.size), c.total, rtol=1e-9, atol=1e-9)
    width = np.abs(c.high - c.low) / np.maximum(np.abs(c.low), np.abs(c.high))
    assert np.all(width <= 2.0 ** -c.bits)
    assert np.all(quantize(s, c.bits) == c.keys[key])


def test_fit_on_exact_counts_equals_fit_on_the_items():
    s, labels = _data(3000, seed=3, decimals=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = spe.fit(s, labels, seed=0, n_draws=400)
        b = spe.fit(count_scores(s, labels), seed=0, n_draws=400)
    np.testing.assert_allclose(a.pr_curve().precision, b.pr_curve().precision, atol=1e-12)
    assert a.model_weights == pytest.approx(b.model_weights)
    assert b.data.n_items == 3000 and b.data.n_labeled == 40 and not b.data.item_level
    with pytest.raises(ValueError, match="needs every item's score"):
        b.prob_positive()
    with pytest.raises(ValueError, match="needs every item's score"):
        b.suggest_labels(3)
    np.testing.assert_allclose(b.calibrate([-1.0, 0.0, 2.0]), a.calibrate([-1.0, 0.0, 2.0]), atol=1e-12)
    with pytest.raises(ValueError, match="labels are counted with the scores"):
        spe.fit(count_scores(s, labels), labels)


def test_fit_on_binned_counts_is_close_to_the_fit_on_the_items():
    s, labels = _data(60_000, seed=4)
    quick = {"seed": 0, "n_draws": 400, "families": ("truncnorm", "truncnorm")}  # the pair the default search picks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = spe.fit(s, labels, **quick)
        b = spe.fit(count_scores(s, labels, max_keys=4096), **quick)
        rev = spe.fit(count_scores(-s, labels, max_keys=4096), higher_is_positive=False, **quick)
    assert not b.data.exact
    assert abs(a.average_precision().value - b.average_precision().value) < 0.02
    assert abs(a.prevalence().value - b.prevalence().value) < 0.02
    assert abs(rev.average_precision().value - b.average_precision().value) < 0.02


def test_parquet_dataset_of_several_files_is_read_batch_by_batch(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    s, labels = _data(30_000, seed=5, decimals=4)
    text = np.where(np.isnan(labels), None, np.where(labels == 1, "toxic", "fine")).tolist()
    folder = tmp_path / "scores"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(s.size), 4)):
        table = pa.table({"score": s[part], "label": labels[part], "name": [text[j] for j in part]})
        pq.write_table(table, folder / f"part-{i}.parquet", row_group_size=3000)
    read = spe.read_parquet(folder, "score", "label", batch_rows=5000)
    _same_counts(read, count_scores(s, labels))
    named = spe.read_parquet(folder, "score", "name", positive_label="toxic", batch_rows=7000)
    _same_counts(named, count_scores(s, labels))
    assert spe.read_parquet(folder, "score").n_labeled == 0
    with pytest.raises(ValueError, match="no column 'nope'"):
        spe.read_parquet(folder, "nope")
    with pytest.raises(TypeError, match="positive_label"):
        spe.read_parquet(folder, "score", "name")
    pq.write_table(pa.table({"score": [0.1, None, 0.3]}), tmp_path / "gap.parquet")
    with pytest.raises(ValueError, match="1 missing score"):
        spe.read_parquet(tmp_path / "gap.parquet", "score")


def test_dask_collections_are_counted_on_a_local_cluster():
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    pd = pytest.importorskip("pandas")
    s, labels = _data(40_000, seed=6, decimals=4)
    expected = count_scores(s, labels)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        got = spe.count_dask(da.from_array(s, chunks=7000), da.from_array(labels, chunks=7000), split_every=2)
        _same_counts(got, expected)
        frame = dd.from_pandas(pd.DataFrame({"score": s, "label": labels}), npartitions=5)
        _same_counts(spe.count_dask(frame["score"], frame["label"]), expected)
        with pytest.raises(ValueError, match="blocks"):
            spe.count_dask(da.from_array(s, chunks=7000), da.from_array(labels, chunks=9000))
    with pytest.raises(TypeError, match="dask array or dask dataframe column"):
        spe.count_dask(s)


def test_bad_chunks_are_named():
    with pytest.raises(ValueError, match="NaN/inf"):
        ScoreCounts.from_arrays([0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="0, 1 or NaN"):
        ScoreCounts.from_arrays([0.1, 0.2, 0.3], [0, 2, np.nan])
    with pytest.raises(ValueError, match="max_keys"):
        ScoreCounts.empty(3)
    with pytest.raises(ValueError, match="not among the counted scores"):
        count_scores(np.array([0.1, 0.2, 0.3])).key_of([0.25])
    with pytest.raises(ValueError, match="scores are equal"):
        spe.fit(count_scores(np.array([0.1, 0.1, 0.1])))
