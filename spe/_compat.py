"""Module paths of spe 0.2 (one flat folder), kept importable after the move into rooms.

``import spe.results``, ``from spe.many import fit_many``, ``from spe.curves import
Estimate``: an old path is answered by the module that holds the code now (the same
module object, so attributes and monkeypatching behave as before), or, for a module
that was split, by a module object carrying the public names of its parts.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

#: Old module (under ``spe.``) -> the module(s) that hold its code now.
MOVED = {
    "seeds": ("_util.seeds",), "threads": ("_util.threads",), "progress": ("_util.progress",),
    "frame": ("scores.frame",), "counts": ("scores.counts",), "sources": ("scores.sources",),
    "orientation": ("scores.orientation",), "io": ("scores.tables",),
    "psis": ("sampling.psis",),
    "families": ("mixture.families",), "family_base": ("mixture.families.base",),
    "family_library": ("mixture.families.library",), "open_scale_families": ("mixture.families.open_scale",),
    "priors": ("mixture.priors",), "model": ("mixture.model",), "misfit": ("mixture.misfit",),
    "fitting": ("mixture.fitting", "mixture.selection"),
    "posterior": ("mixture.posterior", "sampling.importance"),
    "calibration_maps": ("calibration.maps",), "cells": ("calibration.cells",),
    "stacking": ("pooling.stacking",), "label_posterior": ("pooling.label_posterior",),
    "label_check": ("pooling.label_check",), "labels": ("pooling.label_draws",),
    "kinds": ("metrics.kinds",), "sweeps": ("metrics.sweeps",), "curves": ("metrics.curves",),
    "thresholds": ("metrics.thresholds",), "suggest": ("metrics.suggest",),
    "results": ("report.results",), "result_methods": ("report._result_methods",),
    "summary": ("report.summary",), "plot": ("report.plot",), "export": ("report.export",),
    "class_maps": ("multiclass.class_maps",), "top_label": ("multiclass.top_label",),
    "class_pool": ("several.class_pool",), "log_linear_pool": ("several.log_linear_pool",),
    "many": ("several.many",), "many_multiclass": ("several.many_multiclass",),
    "comparison": ("several.comparison",), "cli_label": ("cli.label",),
}


def _merged(name: str, parts: tuple[str, ...]) -> types.ModuleType:
    """A module carrying every public name of ``parts`` (the first part wins a clash)."""
    modules = [importlib.import_module(f"spe.{p}") for p in parts]
    merged = types.ModuleType(name, modules[0].__doc__)
    for module in reversed(modules):
        merged.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    return merged


class _OldPathFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``spe.<old>`` and loads it as the module that holds its code now."""

    def __init__(self):
        self._real_specs = {}

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, old = fullname.partition(".")
        if prefix != "spe" or old not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        parts = MOVED[spec.name.split(".", 1)[1]]
        if len(parts) > 1:
            return _merged(spec.name, parts)
        module = importlib.import_module(f"spe.{parts[0]}")
        self._real_specs[spec.name] = module.__spec__  # the import machinery overwrites it
        return module

    def exec_module(self, module):
        real = self._real_specs.pop(module.__spec__.name, None)
        if real is not None:
            module.__spec__ = real


def install() -> None:
    """Answer the old paths (idempotent)."""
    if not any(isinstance(f, _OldPathFinder) for f in sys.meta_path):
        sys.meta_path.append(_OldPathFinder())
