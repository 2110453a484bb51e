"""Scores larger than memory: a Parquet dataset or a Dask collection, reduced in one pass.

Both readers produce a :class:`~spe.scores.ScoreCounts`, which :func:`spe.fit` takes in
place of a score array. Memory stays at one batch (or one block per worker) plus the
counts, whatever the number of items:

* :func:`read_parquet` scans a Parquet file or a directory of them (pyarrow's dataset
  API, the ``parquet`` extra) batch by batch;
* :func:`count_dask` reduces each block of a ``dask.array`` or partition of a
  ``dask.dataframe`` column where it lives (on a ``dask.distributed`` cluster, on the
  workers) and merges the counts in a tree (the ``dask`` extra).

Labels come from a column or array of the same length: 1/0 (or True/False) for labeled
items, NaN/null for unlabeled ones; with ``positive_label`` that value means positive
and any other non-null value negative. Only labeled items are kept item by item.
"""

from __future__ import annotations

import sys

import numpy as np

from ._columns import is_lazy
from ._counts import DEFAULT_MAX_KEYS, ScoreCounts
from ._validation import as_labels

#: Rows per Parquet batch: ~16 MiB of float64 scores.
DEFAULT_BATCH_ROWS = 1 << 21
#: Items reduced at a time within a Dask block (whatever the block's size).
BLOCK_SLICE = 1 << 21


def _labels_to_float(values, positive_label, where: str) -> np.ndarray:
    """1.0 / 0.0 / NaN from a batch of label values (numbers, booleans or text)."""
    arr = np.asarray(values)
    if positive_label is not None:
        if arr.dtype == object:
            known = np.array([v is not None and v == v for v in arr], dtype=bool)
        else:
            known = ~np.isnan(arr.astype(float)) if arr.dtype.kind == "f" else np.ones(arr.shape, bool)
        out = np.where(arr == positive_label, 1.0, 0.0)
        out[~known] = np.nan
        return out
    if arr.dtype == object:  # nullable booleans or integers arrive as objects with None
        try:
            arr = np.array([np.nan if v is None else float(v) for v in arr])
        except (TypeError, ValueError):
            raise TypeError(f"labels {where} are not numbers: pass positive_label= to name the positive class") from None
    out = arr.astype(float)
    bad = ~np.isnan(out) & (out != 0) & (out != 1)
    if bad.any():
        raise ValueError(f"labels {where} must be 0, 1 or null (unlabeled); found {np.unique(out[bad])[:5].tolist()}; "
                         "pass positive_label= to name the positive class")
    return out


def read_parquet(path, score_col: str, label_col: str | None = None, *, positive_label=None,
                 batch_rows: int = DEFAULT_BATCH_ROWS, max_keys: int = DEFAULT_MAX_KEYS) -> ScoreCounts:
    """Counts of the scores (and labels) in a Parquet file or dataset directory, one batch at a time.

    Parameters
    ----------
    path : a Parquet file, or a directory of Parquet files (one dataset).
    score_col, label_col : column names; without ``label_col`` there are no labels.
    positive_label : the label value that means positive (others: negative, null: unlabeled).
    batch_rows : rows read at a time (memory is about batch_rows x 16 bytes plus the counts).
    max_keys : distinct scores kept exactly before the counts are binned (see :class:`ScoreCounts`).

    Examples
    --------
    >>> import spe
    >>> counts = spe.read_parquet("scores.parquet", "score", "label")  # doctest: +SKIP
    >>> res = spe.fit(counts)  # doctest: +SKIP
    """
    try:
        import pyarrow.dataset as ds
    except ImportError:
        raise ImportError("reading Parquet needs pyarrow: pip install 'spe[parquet]'") from None
    dataset = ds.dataset(str(path), format="parquet")
    names = set(dataset.schema.names)
    for col in [score_col] + ([label_col] if label_col else []):
        if col not in names:
            raise ValueError(f"no column {col!r} in {path}; columns: {', '.join(sorted(names))}")
    columns = [score_col] + ([label_col] if label_col else [])
    out = ScoreCounts.empty(max_keys)
    rows = 0
    # One thread, no read-ahead: the reduction is slower than reading, and a threaded
    # scanner queues decoded batches ahead of it (peak memory: benchmarks/streaming.py).
    for batch in dataset.to_batches(columns=columns, batch_size=int(batch_rows), batch_readahead=1,
                                    fragment_readahead=1, use_threads=False):
        scores = batch.column(0)
        if scores.null_count:
            raise ValueError(f"column {score_col!r} has {scores.null_count} missing score(s) in rows "
                             f"{rows}-{rows + batch.num_rows - 1}")
        s = scores.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        y = None
        if label_col:
            y = _labels_to_float(batch.column(1).to_numpy(zero_copy_only=False), positive_label,
                                 f"in rows {rows}-{rows + batch.num_rows - 1}")
        out = out.merge(ScoreCounts.from_arrays(s, y, max_keys, out.bits))
        rows += batch.num_rows
    if out.n_items == 0:
        raise ValueError(f"{path} holds no rows")
    return out


def _count_block(scores, labels, max_keys, positive_label):
    """One block's counts, reduced slice by slice: the temporaries (sorted copy, bin keys,
    parsed labels) stay a slice's size whatever the block's."""
    s = np.asarray(scores, dtype=np.float64).ravel()
    lab = None if labels is None else np.asarray(labels).ravel()
    out = ScoreCounts.empty(max_keys)
    for start in range(0, s.size, BLOCK_SLICE):
        part = slice(start, start + BLOCK_SLICE)
        y = None if lab is None else _labels_to_float(lab[part], positive_label, "in a block")
        out = out.merge(ScoreCounts.from_arrays(s[part], y, max_keys, out.bits))
    return out


def _merge_all(*parts):
    out = parts[0]
    for part in parts[1:]:
        out = out.merge(part)
    return out


def count_dask(scores, labels=None, *, positive_label=None, max_keys: int = DEFAULT_MAX_KEYS,
               split_every: int = 8, compute: bool = True, scheduler=None):
    """Counts of a ``dask.array`` (1-D) or ``dask.dataframe`` column of scores, reduced where
    the blocks live and merged in a tree of fan-in ``split_every``.

    ``labels``: a Dask collection chunked like ``scores`` (same partitions), or None.
    ``compute=False`` returns the delayed result (to compute with other work);
    ``scheduler``: passed to ``compute`` (None: Dask's default, or the active
    ``dask.distributed`` client).

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da  # doctest: +SKIP
    >>> from spe.scores import count_dask
    >>> scores = da.from_array(np.linspace(0, 1, 10_000), chunks=2_500)  # doctest: +SKIP
    >>> count_dask(scores).n_items  # doctest: +SKIP
    10000
    """
    try:
        import dask
    except ImportError:
        raise ImportError("counting Dask collections needs dask: pip install 'spe[dask]'") from None
    blocks = _blocks(scores, "scores")
    label_blocks = [None] * len(blocks) if labels is None else _blocks(labels, "labels")
    if len(label_blocks) != len(blocks):
        raise ValueError(f"labels have {len(label_blocks)} blocks but scores have {len(blocks)}: chunk them alike")
    if split_every < 2:
        raise ValueError(f"split_every must be >= 2, got {split_every!r}")
    count = dask.delayed(_count_block, pure=True)
    merge = dask.delayed(_merge_all, pure=True)
    level = [count(b, lab, max_keys, positive_label) for b, lab in zip(blocks, label_blocks)]
    while len(level) > 1:
        level = [merge(*level[i:i + split_every]) for i in range(0, len(level), split_every)]
    if not compute:
        return level[0]
    return level[0].compute() if scheduler is None else level[0].compute(scheduler=scheduler)


def _blocks(collection, name):
    """Delayed numpy blocks of a 1-D dask array, a dask Series, or a one-column dask DataFrame."""
    if hasattr(collection, "to_delayed") and hasattr(collection, "ndim") and hasattr(collection, "chunks"):
        if collection.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got a {collection.ndim}-D dask array")
        return list(collection.to_delayed().ravel())
    if hasattr(collection, "to_dask_array"):
        if getattr(collection, "ndim", 1) == 2:
            if len(collection.columns) != 1:
                raise ValueError(f"{name}: pass one column (a Series), not {len(collection.columns)} columns")
            collection = collection[collection.columns[0]]
        return list(collection.to_dask_array(lengths=True).to_delayed().ravel())
    raise TypeError(f"{name} must be a dask array or dask dataframe column, got {type(collection).__name__}")


def count_lazy(scores, labels=None, *, positive_label=None) -> ScoreCounts:
    """:func:`spe.fit`'s path for lazy scores: :func:`count_dask`, one pass block by block,
    never the whole array in memory. In-memory labels with a 1-D dask array of scores are
    validated and chunked like the scores; with a Dask dataframe column, give the labels
    as a column of the same dataframe.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da  # doctest: +SKIP
    >>> from spe.scores import count_lazy
    >>> scores = da.from_array(np.linspace(0, 1, 1_000), chunks=250)  # doctest: +SKIP
    >>> count_lazy(scores, np.r_[1.0, 0.0, np.full(998, np.nan)]).labeled_labels.size  # doctest: +SKIP
    2
    """
    if not is_lazy(scores):
        raise TypeError("the labels are a lazy Dask collection but the scores are not: give both lazily "
                        "(spe.fit counts them block by block with spe.count_dask) or compute the labels")
    if labels is not None and not is_lazy(labels):
        labels = _chunked_like(scores, labels, positive_label)
        positive_label = None
    # a merge tree of fan-in 2: fewer blocks' counts (up to 2^20 keys each) wait to be merged
    return count_dask(scores, labels, positive_label=positive_label, split_every=2,
                      scheduler=_scheduler_of_choice())


def _scheduler_of_choice():
    """The user's scheduler (an active ``dask.distributed`` client, or one set in
    ``dask.config``) if any, else one block at a time in this process: Dask's default thread
    pool holds a block per thread and keeps their freed memory (measured in
    ``benchmarks/lazy.py``), for no gain in speed on a reduction this size."""
    import dask

    if dask.config.get("scheduler", None) is not None:
        return None
    distributed = sys.modules.get("distributed")
    if distributed is not None:
        try:
            distributed.default_client()
            return None
        except ValueError:
            pass
    return "sync"


def _chunked_like(scores, labels, positive_label):
    """In-memory labels as a dask array chunked like the 1-D dask array ``scores``."""
    chunks = getattr(scores, "chunks", None)
    if chunks is None or getattr(scores, "ndim", 0) != 1 or np.isnan(scores.shape[0]):
        raise TypeError("with a lazy Dask dataframe column of scores, give the labels as a column of the same "
                        "dataframe (same partitions), or None")
    import dask.array as da

    return da.from_array(as_labels(labels, int(scores.shape[0]), positive_label=positive_label), chunks=chunks)
