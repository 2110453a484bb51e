"""The two kinds of performance, behind one interface: a :class:`~spe.metrics.Sweep`.

* ``"sample"``: performance on *these* items: each posterior draw of P(y = 1 | score)
  draws the unknown labels, and the sweep counts the drawn positives per score group.
* ``"population"``: performance of the score model on items like these: the expected
  positives per group (labeled items count as they are; no label-draw noise).

Every curve, metric and threshold is a function of a sweep, so neither knows the kind.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..exceptions import SamplingWarning
from ._sweeps import Sweep

KINDS = ("sample", "population")


def check_kind(kind) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be 'sample' or 'population', got {kind!r}")
    return kind


def build_sweep(kind, data, group_prob, positive_counts) -> Sweep:
    """The sweep of ``kind``.

    ``group_prob``: (draws, groups) P(y = 1) of an unlabeled item per score group;
    ``positive_counts``: a callable giving the (draws, groups) drawn positives (labels
    are drawn only when the sample kind is asked for).
    """
    if check_kind(kind) == "sample":
        return Sweep(positive_counts(), data.n_total)
    return Sweep(data.n_pos + group_prob * data.n_unlabeled, data.n_total)


def band_collapsed(curve, n_unlabeled: int) -> bool:
    """A sample band of zero width (recall 0.05-0.95) while labels are missing."""
    inner = (curve.x >= 0.05) & (curve.x <= 0.95)
    return (curve.kind == "sample" and n_unlabeled > 0 and bool(inner.any())
            and bool(np.all(curve.upper[inner] == curve.lower[inner])))


def warn_if_collapsed(curve, n_unlabeled: int):
    """A zero-width band while labels are missing is overconfidence, never a result."""
    if band_collapsed(curve, n_unlabeled):
        warnings.warn(
            f"the PR band has zero width at recall 0.05-0.95 although {n_unlabeled} items are unlabeled: "
            "every posterior draw labels the items along the curve alike, a certainty few labels cannot "
            "give; treat the band as too narrow and see summary() diagnostics",
            SamplingWarning, stacklevel=4)
