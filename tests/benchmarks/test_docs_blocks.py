"""The README's example output and the demo output quoted in the user guide are what the
code prints now (``python -m tools.docs_blocks`` regenerates them); the benchmarks room
keeps its door sign: every section of its reports has one documented command."""

import re
import subprocess
from pathlib import Path

import pytest

from tools import docs_blocks

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"


def test_quoted_outputs_are_current():
    assert docs_blocks.stale() == [], "run: python -m tools.docs_blocks"


def section_title(heading: str) -> str:
    """A RESULTS.md heading's title: the text before its first ': ' or ' ('."""
    return re.split(r": | \(", heading.removeprefix("## "), maxsplit=1)[0]


def command_rows() -> dict[str, list[str]]:
    """{first cell: [rows]} of the table rows of benchmarks/README.md that name a command."""
    rows = {}
    for line in (BENCHMARKS / "README.md").read_text().splitlines():
        if line.startswith("| ") and "`python -m benchmarks." in line:
            rows.setdefault(line.split(" | ")[0].removeprefix("| ").strip(), []).append(line)
    return rows


def test_every_report_section_has_one_command_in_the_benchmarks_readme():
    rows = command_rows()
    headings = [line for line in (BENCHMARKS / "RESULTS.md").read_text().splitlines() if line.startswith("## ")]
    wanted = [section_title(h) for h in headings] + ["ACTIVE.md", "ACTIVE_REAL.md"]
    assert len(wanted) == len(set(wanted)), "two RESULTS.md sections share a title"
    missing = [t for t in wanted if len(rows.get(t, [])) != 1]
    assert not missing, f"benchmarks/README.md: no single command row for {missing}"


def test_stored_results_in_git_stay_small():
    try:
        listed = subprocess.run(["git", "ls-files", "benchmarks/results"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    big = [p for p in listed if (ROOT / p).exists() and (ROOT / p).stat().st_size > 1_000_000]
    assert not big, f"tracked results over 1 MB (keep them in the ignored cache): {big}"


def test_benchmarks_tools_and_tests_import_as_packages():
    edit = re.compile(r"\bsys\.path\.(insert|append)\(")
    edits = [str(p.relative_to(ROOT)) for folder in ("benchmarks", "tools", "tests")
             for p in (ROOT / folder).rglob("*.py") if edit.search(p.read_text())]
    assert not edits, f"edit sys.path (import benchmarks.* / tools.* from the repository root instead): {edits}"
