"""The house rules of the package layout, checked on the source itself.

Rooms (subpackages) sit on floors; a module imports only from its own room or from rooms
on lower floors (data flows down: scores -> score models -> pooling -> metrics ->
results -> entry points -> CLI), never another room's private (``_``) modules. No module
is longer than 400 lines, and the top level holds only the entry points and thin modules.
Old module paths of the flat layout keep answering.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import spe
from spe._compat import MOVED

ROOT = Path(spe.__file__).parent
#: Lowest floor first. A room may import from its own floor's *same* room and lower floors.
FLOORS = (
    ("exceptions", "_util", "datasets"),
    ("scores",),
    ("sampling",),
    ("mixture", "calibration"),
    ("pooling",),
    ("metrics",),
    ("report",),
    ("api", "multiclass", "assessment"),
    ("several", "surface", "elicitation"),
    ("cli",),
)
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}
TOP_LEVEL_FILES = {"__init__.py", "__main__.py", "api.py", "datasets.py", "exceptions.py", "_compat.py"}
MAX_LINES = 400


def modules():
    return sorted(p for p in ROOT.rglob("*.py"))


def room_of(path: Path) -> str:
    rel = path.relative_to(ROOT)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imported_modules(path: Path):
    """Absolute ``spe.*`` names this module imports (relative imports resolved)."""
    package = ["spe", *path.relative_to(ROOT).parent.parts]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.startswith("spe"):
                yield name, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("spe"):
                    yield a.name, []


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_flow_down_and_stay_out_of_other_rooms_internals(path):
    if path.relative_to(ROOT).parts[0] in ("__init__.py", "__main__.py", "_compat.py"):
        return  # the package's front door re-exports every room
    room = room_of(path)
    for name, names in imported_modules(path):
        parts = name.split(".")
        if len(parts) < 2:
            continue
        target = parts[1]
        if target == room:
            continue
        assert FLOOR[target] < FLOOR[room], f"{path.name} ({room}) imports {name} from a room on its floor or above"
        private = [p for p in parts[2:] if p.startswith("_")]
        assert not private, f"{path.name} ({room}) reaches into {name}, another room's internals"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_longer_than_400_lines(path):
    assert len(path.read_text().splitlines()) <= MAX_LINES


def test_top_level_holds_only_entry_points_and_thin_modules():
    top = {p.name for p in ROOT.glob("*.py")}
    assert top <= TOP_LEVEL_FILES, f"unexpected top-level modules: {sorted(top - TOP_LEVEL_FILES)}"
    rooms = {m.name for m in pkgutil.iter_modules(spe.__path__) if m.ispkg}
    assert rooms - {"data"} <= set(FLOOR), f"rooms without a floor: {sorted(rooms - set(FLOOR))}"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_paths_still_import(old):
    module = importlib.import_module(f"spe.{old}")
    parts = MOVED[old]
    new = importlib.import_module(f"spe.{parts[0]}")
    if len(parts) == 1:
        assert module is new
        assert getattr(spe, old) is new
    else:
        public = [k for k in vars(new) if not k.startswith("_")]
        assert all(getattr(module, k) is getattr(new, k) for k in public)


def test_documented_old_imports_work():
    from spe.assessment.assessor import Assessor  # noqa: F401
    from spe.calibration import calibrate, item_probabilities  # noqa: F401
    from spe.many import ManyResult, fit_many
    from spe.multiclass import MulticlassResult, fit_multiclass
    from spe.results import SPEResult

    assert (fit_many, ManyResult, fit_multiclass, MulticlassResult, SPEResult) == (
        spe.fit_many, spe.ManyResult, spe.fit_multiclass, spe.MulticlassResult, spe.SPEResult)


def test_every_public_name_is_importable():
    for name in spe.__all__:
        assert getattr(spe, name) is not None
