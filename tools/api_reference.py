"""Writes ``docs/api.md`` from the public names: ``spe.__all__`` and each room's ``__all__``.

    python -m tools.api_reference            # rewrite docs/api.md
    python -m tools.api_reference --check    # exit 1 if docs/api.md is stale

The page lists every documentable public name (classes and functions; constants are
described in their room's docstring), so what the reference shows is what ``import``
gives. ``tests/test_api_reference.py`` runs the check.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"

#: Top-level sections: (title, names in ``spe``).
TOP = (
    ("Entry points", ("fit", "fit_multiclass", "fit_many", "accuracy_surface", "elicit_metric", "learn_prior", "count_scores",
                      "read_parquet", "count_dask")),
    ("Results", ("SPEResult", "MulticlassResult", "ManyResult", "ManyMulticlassResult", "ModelResult",
                 "AccuracySurface", "ElicitedMetric", "Summary", "Estimate", "PRCurve", "ROCCurve",
                 "ThresholdDecision", "ScoreCounts", "LabelPosterior", "MixtureFit", "CalibrationFit", "Misfit",
                 "UncertainAttribute", "ClassifierPrior", "exact_precision_at_recall", "exact_tpr_at_fpr")),
)
#: Rooms a user reaches into: (module, title, note).
ROOMS = (
    ("spe.exceptions", "Errors and warnings",
     "Every error and warning spe raises is defined here (each is also importable from ``spe``)."),
    ("spe.learned", "Priors over classifiers", None),
    ("spe.assessment", "Active assessment", None),
    ("spe.surface", "Accuracy surfaces", None),
    ("spe.aaa", "The AAA paper's estimators", None),
    ("spe.elicitation", "Metric elicitation", None),
    ("spe.several", "Several models", None),
    ("spe.multiclass", "Multiclass", None),
    ("spe.sklearn", "scikit-learn estimators and displays",
     "Needs scikit-learn (``import spe`` never imports it; ``import spe.sklearn`` does)."),
    ("spe.mixture", "The score mixture and its families",
     "Extend the mixture with a family of your own (``register_family``); see the user guide."),
    ("spe.datasets", "Data sets", None),
)
#: The rooms the entry points are built from, in the order data flows through them.
BLOCKS = ("spe.scores", "spe.sampling", "spe.calibration", "spe.pooling", "spe.metrics", "spe.report")

INTRO = """\
# API reference

The top-level `spe` namespace holds the entry points, the results they return and every
error and warning. Each room (subpackage) lists its public names in `__all__`; its
modules are private (`spe/<room>/_*.py`) and may move between releases. Names that moved
in 0.3 still answer from their old place with a `FutureWarning` until 0.4 (see the
{doc}`changelog`). This page is generated from the `__all__` lists by
`python -m tools.api_reference`, and a test checks it is current.
"""


def public_names(module_name: str) -> list[str]:
    """A room's documentable public names: classes and functions in ``__all__`` (or, without
    one, the functions the module defines)."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, o in vars(module).items()
                 if inspect.isfunction(o) and o.__module__ == module_name and not n.startswith("_")]
    return [n for n in names if not n.isupper() and not inspect.ismodule(getattr(module, n))
            and callable(getattr(module, n))]


def _autosummary(names) -> list[str]:
    return [".. autosummary::", "   :toctree: generated", "", *(f"   {n}" for n in names), ""]


def page() -> str:
    import spe

    lines = [INTRO, "```{eval-rst}", ".. currentmodule:: spe", ""]
    shown = set()
    for title, names in TOP:
        lines += [title, "-" * len(title), "", *_autosummary(names)]
        shown |= {id(getattr(spe, n)) for n in names}
    for module, title, note in ROOMS:
        room = importlib.import_module(module)
        # an object the top level already documents is not documented twice (one page per object)
        names = [n for n in public_names(module) if id(getattr(room, n)) not in shown]
        shown |= {id(getattr(room, n)) for n in names}
        lines += [title, "-" * len(title), "", f".. currentmodule:: {module}", ""]
        lines += [note, ""] if note else []
        lines += _autosummary(names)
    lines += ["Building blocks", "---------------", "",
              "The rooms the entry points are built from, in the order data flows through them. Their",
              "public names are in each room's ``__all__``; most users never need them.", ""]
    for module in BLOCKS:
        lines += [f".. automodule:: {module}", "   :no-members:", ""]
    return "\n".join(lines + ["```", ""])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/api.md is stale")
    args = parser.parse_args(argv)
    text = page()
    if args.check:
        if PAGE.read_text() != text:
            print(f"{PAGE} is stale: run python -m tools.api_reference", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
