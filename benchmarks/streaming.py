"""Scores larger than memory: the one-pass reduction and a fit from a Parquet dataset.

    python -m benchmarks.streaming               # N = 10^8 (writes ~1.2 GB to a temp dir); RESULTS.md
    python -m benchmarks.streaming --rows 1e7    # smaller, prints only

1. Throughput of :func:`spe.count_scores` against ``np.unique(x, return_counts=True)`` on the
   same in-memory array (the physical floor: a sort), for scores rounded to 4 decimals (exact
   counts) and continuous ones (binned), N = 10^7.
2. N items of synthetic probability scores (a two-class Beta mixture, continuous float64)
   with 100 labels, written as a Parquet dataset of 20 files; then, in a fresh process,
   :func:`spe.read_parquet` + :func:`spe.fit` + the PR curve: seconds and peak RSS.
3. The same dataset counted by :func:`spe.count_dask` on a ``dask.distributed`` LocalCluster
   (2 worker processes), read with ``dask.dataframe.read_parquet``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.harness.report import run_stamp, write_section

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

MARKERS = ("<!-- streaming:start -->", "<!-- streaming:end -->")
FILES = 20
LABELS = 100

CHILD_FIT = r"""
import json, resource, sys, time, warnings
import spe
warnings.simplefilter("ignore")
t = time.perf_counter()
counts = spe.read_parquet(sys.argv[1], "score", "label")
read = time.perf_counter() - t
res = spe.fit(counts, seed=0, progress=False)
curve = res.pr_curve()
ap = res.average_precision()
print(json.dumps({"seconds": time.perf_counter() - t, "read_seconds": read, "keys": int(counts.keys.size),
                  "bits": counts.bits, "groups": int(res.data.n_groups), "n": counts.n_items,
                  "ap": [ap.value, ap.lower, ap.upper], "prevalence": res.prevalence().value,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

CHILD_DASK = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import dask.dataframe as dd
import distributed
import spe
with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
        distributed.Client(cluster):
    t = time.perf_counter()
    frame = dd.read_parquet(sys.argv[1], columns=["score", "label"])
    counts = spe.count_dask(frame["score"], frame["label"])
    print(json.dumps({"seconds": time.perf_counter() - t, "n": counts.n_items, "keys": int(counts.keys.size)}))
"""


def throughput(n=10_000_000, repeats=3):
    """Seconds of np.unique and of count_scores on the same arrays (best of ``repeats``)."""
    import spe

    rng = np.random.default_rng(0)
    out = []
    for label, x in (("4 decimals (exact counts)", np.round(rng.random(n), 4)),
                     ("continuous (binned counts)", rng.beta(2, 5, n))):
        floor, ours = [], []
        for _ in range(repeats):
            t = time.perf_counter()
            np.unique(x, return_counts=True)
            floor.append(time.perf_counter() - t)
            t = time.perf_counter()
            counts = spe.count_scores(x)
            ours.append(time.perf_counter() - t)
        out.append({"scores": label, "n": n, "np_unique_s": min(floor), "count_scores_s": min(ours),
                    "ratio": min(ours) / min(floor), "keys": int(counts.keys.size),
                    "binned": "no" if counts.exact else f"2^-{counts.bits}"})
    return out


def write_dataset(folder: Path, n: int, seed=0):
    """n synthetic probability scores in FILES Parquet files; LABELS random items labeled."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    labeled = np.sort(rng.choice(n, LABELS, replace=False))
    per = -(-n // FILES)
    for i in range(FILES):
        lo, hi = i * per, min(n, (i + 1) * per)
        y = rng.random(hi - lo) < 0.2
        s = np.where(y, rng.beta(5, 2, hi - lo), rng.beta(2, 6, hi - lo))
        lab = np.full(hi - lo, np.nan, dtype=np.float32)
        mine = labeled[(labeled >= lo) & (labeled < hi)] - lo
        lab[mine] = y[mine]
        pq.write_table(pa.table({"score": s, "label": lab}), folder / f"part-{i:02d}.parquet",
                       row_group_size=1 << 20)


def run_child(code, folder):
    proc = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode:
        raise SystemExit(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=1e8)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args(argv)
    n = int(args.rows)
    start = time.time()
    rates = throughput()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "scores"
        folder.mkdir()
        t = time.perf_counter()
        write_dataset(folder, n)
        written = time.perf_counter() - t
        size = sum(f.stat().st_size for f in folder.iterdir()) / 2**30
        fitted = run_child(CHILD_FIT, folder)
        dasked = None if args.no_dask else run_child(CHILD_DASK, folder)
    lines = [
        "## Scores larger than memory (`benchmarks/streaming.py`)", "",
        run_stamp() + f". Command: `python -m benchmarks.streaming --rows {args.rows:g}` "
        f"({(time.time() - start) / 60:.1f} min).", "",
        "Reduction throughput on the same in-memory array, best of 3 (the floor is one sort):", "",
        "| scores | N | np.unique (s) | count_scores (s) | ratio | keys | binned |", "|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {r['scores']} | {r['n']:.0e} | {r['np_unique_s']:.2f} | {r['count_scores_s']:.2f} | "
              f"{r['ratio']:.2f} | {r['keys']} | {r['binned']} |" for r in rates]
    lines += ["", f"N = {n:.0e} continuous probability scores, {LABELS} labeled, in {FILES} Parquet files "
              f"({size:.2f} GiB, written in {written:.0f} s); fresh process, default settings:", "",
              "| step | seconds | peak RSS (MiB) | notes |", "|---|---|---|---|",
              f"| read_parquet (one pass) | {fitted['read_seconds']:.1f} | | {fitted['keys']} keys, "
              + ("exact |" if fitted["bits"] is None else f"binned at relative width 2^-{fitted['bits']} |"),
              f"| read + fit + PR curve | {fitted['seconds']:.1f} | {fitted['rss_mib']:.0f} | {fitted['groups']} groups; "
              f"AP {fitted['ap'][0]:.3f} [{fitted['ap'][1]:.3f}, {fitted['ap'][2]:.3f}], prevalence "
              f"{fitted['prevalence']:.3f} (truth: 0.2 by construction) |"]
    if dasked:
        lines.append(f"| count_dask, LocalCluster (2 processes) | {dasked['seconds']:.1f} | | "
                     f"dask.dataframe.read_parquet; {dasked['keys']} keys |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if n >= 10**8:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
