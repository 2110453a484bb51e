"""The README's example output and the demo output quoted in the user guide are what the
code prints now (``python benchmarks/docs_blocks.py`` regenerates them)."""

import importlib.util
from pathlib import Path

BLOCKS = Path(__file__).resolve().parents[2] / "benchmarks" / "docs_blocks.py"


def test_quoted_outputs_are_current():
    spec = importlib.util.spec_from_file_location("docs_blocks", BLOCKS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.stale() == [], "run: python benchmarks/docs_blocks.py"
