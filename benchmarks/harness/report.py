"""What the benchmarks write: Markdown tables, marked blocks in RESULTS.md and the docs, stamps."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parents[1]
ROOT = BENCHMARKS.parent
RESULTS_MD = BENCHMARKS / "RESULTS.md"
#: Stored raw results: a cache, mostly not tracked (see benchmarks/README.md).
RESULTS_DIR = BENCHMARKS / "results"


def _fmt(v, spec):
    if isinstance(v, str):
        return v
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "-"
    return spec.format(v)


def table(rows, cols, spec="{:.3f}"):
    specs = {c: (spec if not isinstance(spec, dict) else spec.get(c, "{:.3f}")) for c in cols}
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c), "{}" if c in ("case", "labels", "trials", "model", "method", "file", "seeds", "models") else specs[c]) for c in cols) + " |")
    return "\n".join(lines)


def with_block(old: str, text: str, markers) -> str:
    """``old`` with the text between ``markers`` replaced by ``text`` (the block appended if absent)."""
    block = f"{markers[0]}\n{text}\n{markers[1]}"
    if markers[0] in old:
        head, rest = old.split(markers[0], 1)
        return head + block + rest.split(markers[1], 1)[1]
    return old.rstrip() + "\n\n" + block + "\n"


def write_section(text, path, markers):
    """Replace the text between ``markers`` in ``path`` (append the block if absent)."""
    old = path.read_text() if path.exists() else "# spe benchmark results\n"
    path.write_text(with_block(old, text, markers))


def versions():
    import importlib.metadata as md

    out = {}
    for p in ("numpy", "scipy", "emcee", "arviz", "scikit-learn", "ssme-lite"):
        try:
            out[p] = md.version(p)
        except md.PackageNotFoundError:
            pass
    return out


def run_stamp() -> str:
    """"Run DATE, commit C; package versions" for the head of a RESULTS.md section."""
    import datetime

    return (f"Run {datetime.date.today().isoformat()}, commit {git_commit()}; "
            + ", ".join(f"{k} {v}" for k, v in versions().items()))


def git_commit():
    """The commit the code came from; "+uncommitted" when the package or a benchmark script
    differs from it (a stamp must name the code that made the numbers)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--", "spe", "benchmarks/*.py")
    except Exception:
        return "unknown"
    return commit + ("+uncommitted" if changed else "")
