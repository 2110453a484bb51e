"""The house rules of the package layout, checked on the source itself.

Rooms (subpackages) sit on floors; a module imports only from its own room or from rooms
on lower floors (data flows down: scores -> score models -> pooling -> metrics ->
results -> entry points -> CLI), never another room's private (``_``) modules. No module
is longer than 400 lines, and the top level holds only the entry points and thin modules.
Old module paths and names keep answering, with a FutureWarning;
every exception and warning is defined in ``spe/exceptions.py``.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
import types
from pathlib import Path

import pytest

import spe
from spe._compat import MOVED, NAMES

ROOT = Path(spe.__file__).parent
#: Lowest floor first. A room may import from its own floor's *same* room and lower floors.
FLOORS = (
    ("exceptions", "_util", "datasets"),
    ("scores",),
    ("sampling",),
    ("mixture", "calibration"),
    ("pooling", "learned"),
    ("metrics",),
    ("report",),
    ("_fit", "multiclass", "assessment"),
    ("several", "surface", "elicitation"),
    ("aaa",),
    ("sklearn",),
    ("cli",),
)
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}
TOP_LEVEL_FILES = {"__init__.py", "__main__.py", "_fit.py", "datasets.py", "exceptions.py", "_compat.py"}
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
def test_old_module_paths_still_import_with_a_future_warning(old):
    name = f"spe.{old}"
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]  # a previous test may have imported it already
    with pytest.warns(FutureWarning, match=rf"{re.escape(name)} is deprecated since spe 0.3 .* removed in spe 0\.4"):
        module = importlib.import_module(name)
    parts = MOVED[old]
    new = importlib.import_module(f"spe.{parts[0]}")
    if len(parts) == 1:
        assert module is new
    else:
        public = [k for k in vars(new) if not k.startswith("_")]
        assert all(getattr(module, k) is getattr(new, k) for k in public)


@pytest.mark.parametrize("module, old", sorted(NAMES))
def test_moved_names_answer_with_a_future_warning(module, old):
    home, new = NAMES[(module, old)]
    namespace = importlib.import_module(module)
    if isinstance(vars(namespace).get(old), types.ModuleType):
        del vars(namespace)[old]  # an old module path of the same name, imported by the test above
    with pytest.warns(FutureWarning, match="removed in spe 0.4"):
        value = getattr(namespace, old)
    assert value is getattr(importlib.import_module(home), new)


def test_documented_old_imports_work():
    for old in ("spe.assessment.assessor", "spe.many", "spe.results"):
        sys.modules.pop(old, None)
    with pytest.warns(FutureWarning):
        from spe.assessment.assessor import Assessor
        from spe.many import ManyResult, fit_many
        from spe.results import SPEResult
    from spe.multiclass import MulticlassResult, fit_multiclass

    assert (Assessor, fit_many, ManyResult, fit_multiclass, MulticlassResult, SPEResult) == (
        spe.assessment.Assessor, spe.fit_many, spe.ManyResult, spe.fit_multiclass, spe.MulticlassResult,
        spe.SPEResult)


def test_every_public_name_is_importable():
    for name in spe.__all__:
        assert getattr(spe, name) is not None


def _exception_classes(path: Path):
    """Classes in ``path`` whose bases name an exception or warning."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            if any(b.endswith(("Exception", "Error", "Warning")) for b in bases):
                yield node.name


def test_every_exception_and_warning_is_defined_in_spe_exceptions():
    elsewhere = {f"{p.relative_to(ROOT)}: {name}" for p in modules() if p.name != "exceptions.py"
                 for name in _exception_classes(p)}
    assert not elsewhere, f"define these in spe/exceptions.py: {sorted(elsewhere)}"
    defined = set(_exception_classes(ROOT / "exceptions.py"))
    assert defined == set(spe.exceptions.__all__) <= set(spe.__all__)


def test_implementation_modules_are_private():
    """A room's public names are its ``__init__``'s; every other module name starts with ``_``
    (``_util``'s modules sit in a private room already)."""
    public = [str(p.relative_to(ROOT)) for p in modules()
              if len(p.relative_to(ROOT).parts) > 1 and p.relative_to(ROOT).parts[0] != "_util"
              and not any(part.startswith("_") for part in p.relative_to(ROOT).parts)]
    assert not public, f"implementation modules with public paths: {public}"


def test_each_room_has_a_test_folder():
    tests = Path(__file__).parent
    rooms = {m.name for m in pkgutil.iter_modules(spe.__path__) if m.ispkg} - {"data", "_util"}
    missing = sorted(r for r in rooms if not (tests / r).is_dir())
    assert not missing, f"rooms without a tests/ folder: {missing}"


def test_importing_spe_itself_warns_of_nothing(fresh_import_of_spe):
    assert fresh_import_of_spe["future_warnings"] == []


def test_an_old_submodule_reached_as_an_attribute_answers_with_a_warning():
    sys.modules.pop("spe.elicitation.search", None)
    vars(spe.elicitation).pop("search", None)
    with pytest.warns(FutureWarning, match="spe.elicitation.search is deprecated"):
        budget = spe.elicitation.search.question_budget
    assert budget is spe.elicitation._search.question_budget


def test_an_old_module_path_does_not_shadow_the_public_name_it_shares():
    # spe.sampling.psis was a module in 0.2 and is a function now: importing the old path
    # must not replace the function for everyone imported after it
    sys.modules.pop("spe.sampling.psis", None)
    with pytest.warns(FutureWarning):
        importlib.import_module("spe.sampling.psis")
    from spe.sampling import psis

    assert callable(psis) and not isinstance(psis, types.ModuleType)
