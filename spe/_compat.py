"""Old module paths and names, answered with a :class:`FutureWarning` until spe 0.4.

spe 0.2 kept its code in one flat folder (``spe.results``, ``spe.many``, ...); later 0.2
releases moved it into rooms (``spe.report.results``, ``spe.several.many``, ...); spe 0.3
made every implementation module private (``spe.report._results``): the public names of a
room are those its ``__init__`` lists in ``__all__`` (``from spe.report import SPEResult``).
An old path is answered by the module that holds the code now (the same module object, so
attributes and monkeypatching behave as before), or, for a module that was split, by a
module object carrying the public names of its parts, and importing it warns once with the
path to use instead. The moves are listed in the changelog.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: The release that drops the old paths and names.
REMOVED_IN = "0.4"

#: spe 0.2's flat layout (module under ``spe.``) -> the module(s) that hold its code now.
FLAT = {
    "seeds": ("_util.seeds",), "threads": ("_util.threads",), "progress": ("_util.progress",),
    "frame": ("scores._frame",), "counts": ("scores._counts",), "sources": ("scores._sources",),
    "orientation": ("scores._orientation",), "io": ("scores._tables",), "psis": ("sampling._psis",),
    "families": ("mixture._families",), "family_base": ("mixture._families.base",),
    "family_library": ("mixture._families.library",), "open_scale_families": ("mixture._families.open_scale",),
    "priors": ("mixture._priors",), "model": ("mixture._model",), "misfit": ("mixture._misfit",),
    "fitting": ("mixture._map", "mixture._selection",),
    "posterior": ("mixture._posterior", "sampling._importance",), "calibration_maps": ("calibration._maps",),
    "cells": ("calibration._cells",), "stacking": ("pooling._stacking",),
    "label_posterior": ("pooling._label_posterior",), "label_check": ("pooling._label_check",),
    "labels": ("pooling._label_draws",), "kinds": ("metrics._kinds",), "sweeps": ("metrics._sweeps",),
    "curves": ("metrics._curves",), "thresholds": ("metrics._thresholds",), "suggest": ("metrics._suggest",),
    "results": ("report._results",), "result_methods": ("report._result_methods",),
    "summary": ("report._summary",), "plot": ("report._plot",), "export": ("report._export",),
    "class_maps": ("multiclass._class_maps",), "top_label": ("multiclass._top_label",),
    "class_pool": ("several._class_pool",), "log_linear_pool": ("several._log_linear_pool",),
    "many": ("several._binary", "several._label_model"), "many_multiclass": ("several._multiclass",),
    "comparison": ("several._comparison",), "cli_label": ("cli._label",),
}

#: spe 0.2's rooms, whose modules are private since 0.3: old path -> new path (under ``spe.``).
ROOMS = {
    "api": ("_fit",), "assessment.assessor": ("assessment._assessor",),
    "assessment.groups": ("assessment._groups",), "assessment.metrics": ("assessment._metrics",),
    "assessment.priors": ("assessment._priors",), "assessment.simulate": ("assessment._simulate",),
    "assessment.strategies": ("assessment._strategies",), "calibration.cells": ("calibration._cells",),
    "calibration.maps": ("calibration._maps",), "calibration.recalibration": ("calibration._recalibration",),
    "cli.demo": ("cli._demo",), "cli.elicit": ("cli._elicit",), "cli.fit": ("cli._fit",),
    "cli.label": ("cli._label",), "cli.surface": ("cli._surface",), "cli.threshold": ("cli._threshold",),
    "elicitation.chords": ("elicitation._chords",), "elicitation.diagonal": ("elicitation._diagonal",),
    "elicitation.elicit": ("elicitation._elicit",), "elicitation.evaluation": ("elicitation._evaluation",),
    "elicitation.families": ("elicitation._families",), "elicitation.fractional": ("elicitation._fractional",),
    "elicitation.inputs": ("elicitation._inputs",), "elicitation.oracles": ("elicitation._oracles",),
    "elicitation.plot": ("elicitation._plot",), "elicitation.posterior": ("elicitation._posterior",),
    "elicitation.radius": ("elicitation._radius",), "elicitation.report": ("elicitation._summary",),
    "elicitation.result": ("elicitation._result",), "elicitation.search": ("elicitation._search",),
    "elicitation.simulate": ("elicitation._simulate",), "elicitation.space": ("elicitation._space",),
    "elicitation.sphere": ("elicitation._sphere",), "metrics.curves": ("metrics._curves",),
    "metrics.kinds": ("metrics._kinds",), "metrics.suggest": ("metrics._suggest",),
    "metrics.sweeps": ("metrics._sweeps",), "metrics.thresholds": ("metrics._thresholds",),
    "mixture.families": ("mixture._families",), "mixture.families.base": ("mixture._families.base",),
    "mixture.families.library": ("mixture._families.library",),
    "mixture.families.open_scale": ("mixture._families.open_scale",), "mixture.fitting": ("mixture._map",),
    "mixture.misfit": ("mixture._misfit",), "mixture.mixture_fit": ("mixture._fit",),
    "mixture.model": ("mixture._model",), "mixture.posterior": ("mixture._posterior",),
    "mixture.priors": ("mixture._priors",), "mixture.selection": ("mixture._selection",),
    "multiclass.class_maps": ("multiclass._class_maps",), "multiclass.fitting": ("multiclass._fitting",),
    "multiclass.inputs": ("multiclass._inputs",), "multiclass.result": ("multiclass._result",),
    "multiclass.top_label": ("multiclass._top_label",), "pooling.label_check": ("pooling._label_check",),
    "pooling.label_draws": ("pooling._label_draws",), "pooling.label_posterior": ("pooling._label_posterior",),
    "pooling.stacking": ("pooling._stacking",), "report.export": ("report._export",),
    "report.html": ("report._html",), "report.plot": ("report._plot",), "report.results": ("report._results",),
    "report.summary": ("report._summary",), "sampling.importance": ("sampling._importance",),
    "sampling.psis": ("sampling._psis",), "scores.columns": ("scores._columns",),
    "scores.counts": ("scores._counts",), "scores.data": ("scores._data",), "scores.frame": ("scores._frame",),
    "scores.orientation": ("scores._orientation",), "scores.sources": ("scores._sources",),
    "scores.tables": ("scores._tables",), "scores.validation": ("scores._validation",),
    "several.class_pool": ("several._class_pool",), "several.comparison": ("several._comparison",),
    "several.log_linear_pool": ("several._log_linear_pool",), "several.many": ("several._binary", "several._label_model"),
    "several.many_multiclass": ("several._multiclass",), "several.model_result": ("several._model_result",),
    "several.population": ("several._population",), "surface.arms": ("surface._arms",),
    "surface.baselines": ("aaa._baselines",), "surface.berngp": ("aaa._berngp",),
    "surface.beta_binomial": ("aaa._beta_binomial",), "surface.betagp": ("aaa._betagp",),
    "surface.counts": ("surface._counts",), "surface.effects": ("surface._effects",),
    "surface.estimate": ("surface._estimate",), "surface.explore": ("aaa._explore",),
    "surface.fit": ("surface._fit",), "surface.kernel": ("aaa._kernel",), "surface.ladder": ("aaa._ladder",),
    "surface.laplace": ("surface._laplace",), "surface.membership": ("surface._membership",),
    "surface.model": ("surface._model",), "surface.observation_pooling": ("aaa._observation_pooling",),
    "surface.realised": ("surface._realised",), "surface.report": ("surface._summary",),
    "surface.result": ("surface._result",), "surface.simulate": ("surface._simulate",),
    "surface.suggest": ("surface._suggest",), "surface.uncertain": ("surface._uncertain",),
}

#: Every old module path (under ``spe.``) -> the module(s) that hold its code now.
MOVED = {**FLAT, **ROOMS}

#: Names that moved between namespaces: (module, old name) -> (module, new name).
NAMES = {
    ("spe", "FAMILIES"): ("spe.mixture", "SCORE_FAMILIES"),
    ("spe", "Family"): ("spe.mixture", "Family"),
    ("spe", "register_family"): ("spe.mixture", "register_family"),
    ("spe.mixture", "FAMILIES"): ("spe.mixture", "SCORE_FAMILIES"),
    ("spe.elicitation", "FAMILIES"): ("spe.elicitation", "METRIC_FAMILIES"),
    ("spe.surface", "LADDER"): ("spe.aaa", "LADDER"),
    ("spe.surface", "realised"): ("spe.aaa", "realised"),
}


def _public_home(parts: tuple[str, ...]) -> str:
    """Where to import from now: the room (``spe.report``), or ``spe`` for a top-level module."""
    room = parts[0].split(".")[0]
    return "spe" if room.startswith("_") and "." not in parts[0] else f"spe.{room}"


def _warn(what: str, instead: str, stacklevel: int = 3) -> None:
    warnings.warn(f"{what} is deprecated since spe 0.3 and will be removed in spe {REMOVED_IN}; {instead}",
                  FutureWarning, stacklevel=stacklevel)


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
        _warn(f"the module path {spec.name}", f"import from {_public_home(parts)}")
        if len(parts) > 1:
            return _merged(spec.name, parts)
        module = importlib.import_module(f"spe.{parts[0]}")
        self._real_specs[spec.name] = module.__spec__  # the import machinery overwrites it
        return module

    def exec_module(self, module):
        real = self._real_specs.pop(module.__spec__.name, None)
        if real is not None:
            module.__spec__ = real


def moved_name(module: str, name: str):
    """The object an old name stands for (with a warning), or AttributeError. Old names are
    those of :data:`NAMES` and old submodules reached as attributes (``spe.metrics.curves``)."""
    old_path = f"{module}.{name}"[len("spe."):]
    if (module, name) not in NAMES:  # a name wins over a module path of the same name, as in 0.2's __init__
        if old_path in MOVED:
            return importlib.import_module(f"spe.{old_path}")  # the finder warns
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    home, new = NAMES[(module, name)]
    _warn(f"{module}.{name}", f"use {home}.{new}", stacklevel=4)
    return getattr(importlib.import_module(home), new)


def _name_getattr(module: str):
    def __getattr__(name):
        return moved_name(module, name)
    return __getattr__


def _packages_with_old_names() -> set[str]:
    rooms = {"spe." + old.rsplit(".", 1)[0] for old in MOVED if "." in old}
    return {m for m in rooms | {m for m, _ in NAMES} if m[len("spe."):] not in MOVED} - {"spe"}


class _GuardedPackage(types.ModuleType):
    """A package whose public names are not replaced by old module paths of the same name.

    Importing an old path (``spe.sampling.psis``, now ``spe.sampling._psis``) makes the import
    system set it as an attribute of its parent, which would shadow the function
    ``spe.sampling.psis`` for everyone after that import."""

    def __setattr__(self, name, value):
        current = self.__dict__.get(name)
        if (isinstance(value, types.ModuleType) and current is not None
                and not isinstance(current, types.ModuleType)):
            return
        super().__setattr__(name, value)


def _guard(package: types.ModuleType) -> None:
    if type(package) is types.ModuleType:
        package.__class__ = _GuardedPackage


def install() -> None:
    """Answer the old paths and names (idempotent). The finder goes first on ``sys.meta_path``:
    an old path under a renamed package (``spe.mixture.families.base``) would otherwise be
    found again in the new package's folder and loaded twice."""
    if not any(isinstance(f, _OldPathFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPathFinder())
    for module in _packages_with_old_names():  # every real package an old path lives under
        package = sys.modules.get(module) or importlib.import_module(module)
        package.__getattr__ = _name_getattr(module)
        _guard(package)
    _guard(sys.modules["spe"])
