"""docs/api.md is the public surface: current with the ``__all__`` lists, and complete."""

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
