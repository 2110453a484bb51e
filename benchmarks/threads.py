"""BLAS threads: the package's one-thread bound against BLAS's default, side by side.

    python -m benchmarks.threads     # prints a table (fresh process per row, alternating)

Each row is a fresh process fitting the same data (N = 3,000 real scores from the shared
imdb file if present, else a synthetic mixture; 20 labels) with ``SPE_BLAS_THREADS`` unset
(the package bounds BLAS to one thread) or ``default`` (no bound). Rows alternate so that
machine noise hits both settings alike; the ratio of medians is reported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

CHILD = r"""
import json, time, warnings, numpy as np, spe, os
from pathlib import Path
warnings.simplefilter("ignore")
path = Path(os.environ["SPE_DATA"]) / "imdb_labelerrors_cv.npz"
rng = np.random.default_rng(0)
if path.exists():
    d = np.load(path); s = d["probs"][:, 1].astype(float); y = (d["labels"] == 1).astype(float)
    i = rng.choice(s.size, 3000, replace=False); s, y = s[i], y[i]
else:
    y = (rng.random(3000) < 0.3).astype(float); s = np.where(y == 1, rng.normal(2, 1, 3000), rng.normal(-1, 1, 3000))
labels = np.where(np.arange(s.size) < 20, y, np.nan)
spe.fit(s[:300], labels[:300], n_draws=50, seed=0)  # warm imports
t = time.perf_counter(); spe.fit(s, labels, seed=0).pr_curve(); print(json.dumps(time.perf_counter() - t))
"""


def main():
    data = os.environ.get("SPE_SHARED_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    times = {"bounded (default)": [], "BLAS default threads": []}
    for rep in range(3):
        for label, value in (("bounded (default)", None), ("BLAS default threads", "default")):
            env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                                     "MKL_NUM_THREADS", "SPE_BLAS_THREADS")}
            env["SPE_DATA"] = data
            if value:
                env["SPE_BLAS_THREADS"] = value
            out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
            times[label].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"| setting | fit + 1000 draws + PR curve, s (3 runs, {os.cpu_count()} cores) | median |")
    print("|---|---|---|")
    for label, ts in times.items():
        print(f"| {label} | {', '.join(f'{t:.2f}' for t in ts)} | {np.median(ts):.2f} |")
    print(f"\nratio default / bounded: {np.median(times['BLAS default threads']) / np.median(times['bounded (default)']):.2f}")


if __name__ == "__main__":
    main()
