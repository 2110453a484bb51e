"""docs/api.md is the public surface: current with the ``__all__`` lists, and complete."""

import importlib
import inspect

import spe
from tools import api_reference


def test_api_page_is_current():
    assert api_reference.main(["--check"]) == 0, "docs/api.md is stale: run python -m tools.api_reference"


def test_every_top_level_class_and_function_is_on_the_page():
    listed = {n for _, names in api_reference.TOP for n in names}
    listed |= set(api_reference.public_names("spe.exceptions"))
    top = {n for n in spe.__all__ if not inspect.ismodule(getattr(spe, n)) and callable(getattr(spe, n))}
    assert top <= listed, f"missing from docs/api.md: {sorted(top - listed)}"


def documented_objects():
    """(qualified name, object) of every public class and function: the top level, the rooms
    on the API page and the building-block rooms."""
    seen = {}
    for _, names in api_reference.TOP:
        for n in names:
            seen.setdefault(id(getattr(spe, n)), (f"spe.{n}", getattr(spe, n)))
    for module in [m for m, _, _ in api_reference.ROOMS] + list(api_reference.BLOCKS):
        room = importlib.import_module(module)
        for n in api_reference.public_names(module):
            seen.setdefault(id(getattr(room, n)), (f"{module}.{n}", getattr(room, n)))
    return sorted(seen.values(), key=lambda pair: pair[0])


def test_every_public_class_and_function_has_an_examples_section():
    # the examples run as doctests (pytest --doctest-modules spe): see conftest.py
    missing = [name for name, obj in documented_objects()
               if "\nExamples\n" not in inspect.cleandoc(inspect.getdoc(obj) or "")]
    assert not missing, f"{len(missing)} public names lack an Examples section: {missing}"
