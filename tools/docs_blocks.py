"""The printed output the README and the user guide quote, regenerated from the code.

    python -m tools.docs_blocks           # rewrite the blocks (and figures/readme_pr.png)
    python -m tools.docs_blocks --check   # exit 1 if a block is out of date (a test runs this)

Blocks: the README's Python example (its code is executed as written in the README, and
its printed output and figure replace the block below it) and the output of ``spe demo``
in the user guide. Benchmark blocks are written by their benchmark scripts.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import tempfile
from pathlib import Path

from benchmarks.harness.report import ROOT, with_block

README = ROOT / "README.md"
BINARY_GUIDE = ROOT / "docs" / "user_guide" / "binary.md"
README_FIGURE = ROOT / "figures" / "readme_pr.png"
EXAMPLE_CODE = ("<!-- example-code:start -->", "<!-- example-code:end -->")
EXAMPLE_OUTPUT = ("<!-- example-output:start -->", "<!-- example-output:end -->")
DEMO = ("<!-- demo-output:start -->", "<!-- demo-output:end -->")


def between(text: str, markers) -> str:
    return text.split(markers[0], 1)[1].split(markers[1], 1)[0]


def readme_example(figure: Path | None = None) -> str:
    """Run the README's example as written; its printed output (and the truth) as a block."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    code = re.search(r"```python\n(.*?)```", between(README.read_text(), EXAMPLE_CODE), re.S).group(1)
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(code, str(README), "exec"), namespace)
    from spe.metrics import labeled_sweep, sample_auroc, sample_average_precision

    scores, truth = namespace["scores"], namespace["truth"]
    sweep = labeled_sweep(scores, truth)
    truth_line = (f"# the truth, from all {truth.size:,} labels: average precision "
                  f"{sample_average_precision(sweep)[0]:.3f}, AUROC {sample_auroc(sweep)[0]:.3f}, "
                  f"prevalence {np.mean(truth):.3f}")
    if figure is not None:
        plt.gcf().savefig(figure, dpi=110, bbox_inches="tight")
    plt.close("all")
    return "```\n" + out.getvalue() + truth_line + "\n```"


def demo_output() -> str:
    from spe.cli import main

    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()) as buf:
        main(["demo", "--out", out])
    lines = [line for line in buf.getvalue().splitlines() if not line.startswith("wrote ")]
    return "```\n" + "\n".join(lines) + "\n```"


def regenerated(figure: Path | None = None) -> dict:
    """{path: its text with every block regenerated}."""
    readme = README.read_text()
    guide = BINARY_GUIDE.read_text()
    return {README: with_block(readme, readme_example(figure), EXAMPLE_OUTPUT),
            BINARY_GUIDE: with_block(guide, demo_output(), DEMO)}


def stale() -> list[Path]:
    """Files whose blocks differ from what the code prints now."""
    return [path for path, text in regenerated().items() if path.read_text() != text]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--check" in argv:
        out_of_date = stale()
        for path in out_of_date:
            print(f"{path.relative_to(ROOT)} is out of date: run python -m tools.docs_blocks", file=sys.stderr)
        return 1 if out_of_date else 0
    for path, text in regenerated(README_FIGURE).items():
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}")
    print(f"wrote {README_FIGURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
