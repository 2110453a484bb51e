"""The manual's sources hold text only: a Python string that once carried TeX without a raw
prefix turned ``\\tau``, ``\\text`` and ``\\varepsilon`` into a tab, a tab and a vertical tab."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def test_no_control_characters_in_the_manual_or_the_front_page():
    sources = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sources if p.exists()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if CONTROL.search(line)]
    assert not found, f"control characters (a TeX escape read as a Python escape?) at {found}"
