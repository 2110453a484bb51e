"""A lazy Dask array handed to ``spe.fit``: streamed through the counts, never loaded whole.

    python -m benchmarks.lazy                 # N = 2e8 lazy scores; writes its section of RESULTS.md
    python -m benchmarks.lazy --rows 2e7      # smaller, prints only

In a fresh process per measurement: N synthetic probability scores (a two-class Beta
mixture, prevalence 0.2, continuous float64) and their labels (100 items labeled, NaN
elsewhere) are built as *lazy* ``dask.array`` collections (generated block by block,
``--chunk`` items per block); then ``spe.fit(scores, labels)`` and the PR curve. Reported:
seconds, the resident memory when the lazy graph is built, the peak resident memory
after the fit (``ru_maxrss``), and the growth between them (the issue's target: under
1 GiB at N = 2e8, where loading the array whole held 1.5 GiB of scores before any fit).
For scale, the same lazy array at ``--eager-rows`` items (default 2e7) computed into
memory first (``np.asarray``) and fitted as an array is measured the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.harness.report import run_stamp, write_section

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

MARKERS = ("<!-- lazy-dask:start -->", "<!-- lazy-dask:end -->")
LABELS = 100

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
import dask.array as da
import spe
warnings.simplefilter("ignore")
n, eager = int(float(sys.argv[1])), sys.argv[3] == "eager"
chunk = sys.argv[2] if sys.argv[2] == "auto" else int(float(sys.argv[2]))
rng = da.random.default_rng(0)
y = rng.random(n, chunks=chunk) < 0.2
scores = da.where(y, rng.beta(5, 2, n, chunks=chunk), rng.beta(2, 6, n, chunks=chunk))
labeled = da.arange(n, chunks=chunk) % (n // LABELS) == 0
labels = da.where(labeled, y.astype(float), np.nan)

def rss_mib():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20

block = scores.chunks[0][0]
before = rss_mib()
t = time.perf_counter()
if eager:
    scores, labels = np.asarray(scores), np.asarray(labels)
res = spe.fit(scores, labels, seed=0, progress=False)
ap, curve = res.average_precision(), res.pr_curve()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"n": n, "chunk": block, "auto": chunk == "auto", "eager": eager,
                  "seconds": time.perf_counter() - t, "before_mib": before,
                  "peak_mib": peak, "growth_mib": peak - before, "item_level": res.data.item_level,
                  "groups": int(res.data.n_groups), "labeled": res.data.n_labeled,
                  "ap": [ap.value, ap.lower, ap.upper], "prevalence": res.prevalence().value}))
""".replace("LABELS", str(LABELS))


def measure(n, chunk, eager=False):
    """One fresh process: build the lazy arrays, fit, report memory (see the module docstring).
    ``chunk``: items per block, or "auto" (Dask's default, ~128 MiB blocks)."""
    proc = subprocess.run([sys.executable, "-c", CHILD, str(n), chunk, "eager" if eager else "lazy"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def row(r, how) -> str:
    gib = r["growth_mib"] / 1024
    chunk = f"{r['chunk']:.3g}" + (" (Dask's auto)" if r["auto"] else "")
    return (f"| {how} | {r['n']:.0e} | {chunk} | {r['seconds']:.1f} | {r['before_mib']:.0f} | "
            f"{r['peak_mib']:.0f} | {r['growth_mib']:.0f} ({gib:.2f} GiB) | {r['groups']} | "
            f"{r['ap'][0]:.3f} [{r['ap'][1]:.3f}, {r['ap'][2]:.3f}] | {r['prevalence']:.3f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=2e8)
    ap.add_argument("--chunk", default="1e7", help="items per block, or 'auto'")
    ap.add_argument("--eager-rows", type=float, default=2e7)
    args = ap.parse_args(argv)
    start = time.time()
    chunk = args.chunk if args.chunk == "auto" else str(int(float(args.chunk)))
    lazy = measure(int(args.rows), chunk)
    auto = measure(int(args.rows), "auto")
    eager = measure(int(args.eager_rows), chunk, eager=True)
    lines = [
        "## A lazy Dask array through `spe.fit` (`benchmarks/lazy.py`)", "",
        run_stamp() + f". Command: `python -m benchmarks.lazy --rows {args.rows:g}` "
        f"({(time.time() - start) / 60:.1f} min).", "",
        f"Synthetic probability scores (Beta(5, 2) positives, Beta(2, 6) negatives, prevalence 0.2) and labels "
        f"({LABELS} items labeled), both lazy `dask.array`s generated block by block; fresh process per row, "
        "default fit settings, then the PR curve. Memory is resident set size: when the lazy graph is built, "
        "the process peak after the fit, and the growth between them. `spe.fit` counts a lazy array "
        "block by block (`spe.count_dask`, the threaded scheduler); the second row computes a smaller one "
        "into memory first (`np.asarray`) and fits the array, for scale.", "",
        "| path | N | chunk | seconds | RSS before (MiB) | peak RSS (MiB) | growth (MiB) | groups | AP [90%] | "
        "prevalence |", "|---|---|---|---|---|---|---|---|---|---|",
        row(lazy, "lazy, streamed by `spe.fit`"),
        row(auto, "lazy, streamed by `spe.fit`"),
        row(eager, "computed with `np.asarray`, then `spe.fit`"),
        "",
        f"Growth at N = {lazy['n']:.0e}: {lazy['growth_mib'] / 1024:.2f} GiB with blocks of {lazy['chunk']:.3g} items, "
        f"{auto['growth_mib'] / 1024:.2f} GiB with Dask's auto blocks (target < 1 GiB); the fit holds "
        f"{'every item' if lazy['item_level'] else 'counts only'} ({lazy['labeled']} labeled items kept "
        "exactly), so per-item outputs (`prob_positive`, `suggest_labels`) refuse.", "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.rows >= 2e8:
        write_section(text, HERE / "RESULTS.md", MARKERS)


if __name__ == "__main__":
    main()
