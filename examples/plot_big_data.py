"""
Scores larger than memory: count once, fit the counts
=====================================================

Every score model sees the scores only as counts per score group, so data that do not
fit in memory are reduced in one pass to those counts (chunk by chunk here; Parquet files
with ``spe.read_parquet``, Dask collections with ``spe.count_dask``), and ``spe.fit``
takes the counts in place of an array. Counts of separate chunks merge exactly, whatever
the chunking, and with exact counts the fit is the same as on the array.
"""

# %%
import numpy as np

import spe

scores, truth = spe.datasets.load_demo()
labels = np.full(scores.size, np.nan)
picked = np.random.default_rng(1).choice(scores.size, 10, replace=False)
labels[picked] = truth[picked]

chunks = np.array_split(np.arange(scores.size), 7)  # as if read batch by batch
counts = spe.count_scores(scores[chunks[0]], labels[chunks[0]])
for rows in chunks[1:]:
    counts = counts.merge(spe.count_scores(scores[rows], labels[rows]))
print(counts)

from_counts = spe.fit(counts, seed=0)
from_array = spe.fit(scores, labels, seed=0)
print("average precision from counts:", from_counts.average_precision())
print("average precision from array: ", from_array.average_precision())

# %%
# Outputs that need the items themselves refuse clearly
# -----------------------------------------------------
try:
    from_counts.prob_positive()
except ValueError as exc:
    print("ValueError:", exc)
print("calibrated P(y = 1) for any chunk of scores:", np.round(from_counts.calibrate(scores[:5]), 3))
