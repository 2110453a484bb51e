"""Regenerate the numbers the README quotes, so they cannot drift from the code.

    python examples/readme_numbers.py           # rewrites the marked blocks of README.md
    python examples/readme_numbers.py --check   # exit 1 if README.md is out of date

Blocks: the output of ``spe demo`` (bundled data, seed 1, 10 labels). The real-score
benchmark's block is written by ``python benchmarks/real.py`` (or ``--report``).
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
DEMO = ("<!-- demo-output:start -->", "<!-- demo-output:end -->")


def demo_output() -> str:
    from spe.cli import main

    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()) as buf:
        main(["demo", "--out", out])
    lines = [line for line in buf.getvalue().splitlines() if not line.startswith("wrote ")]
    return "```\n" + "\n".join(lines) + "\n```"


def replace_block(text: str, markers, body: str) -> str:
    head, rest = text.split(markers[0], 1)
    return head + markers[0] + "\n" + body + "\n" + markers[1] + rest.split(markers[1], 1)[1]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    old = README.read_text()
    new = replace_block(old, DEMO, demo_output())
    if "--check" in argv:
        if new != old:
            print("README.md is out of date: run python examples/readme_numbers.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
