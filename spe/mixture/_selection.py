"""The choice of the mixture's families: candidate (negative, positive) pairs from a
``families`` argument, each fitted by MAP (``_map``), the lowest BIC kept.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..exceptions import FitError
from ..scores import ScoreData
from ._families import as_spec, get_component, mirrored
from ._map import fit_map
from ._model import MixtureModel

DEFAULT_CANDIDATES = ("truncnorm", "gamma")


#: On an open scale (the logit of probabilities) no family has a natural origin.
OPEN_SCALE_CANDIDATES = ("normal", "skewnorm")


ALL_CANDIDATES = (
    "truncnorm",
    "normal",
    "skewnorm",
    "gamma",
    "lognormal",
    "trunct",
    "gumbel_r",
    "gumbel_l",
    "gompertz",
    "frechet",
    "beta",
)


@dataclass
class SelectionRow:
    neg: str
    pos: str
    n_params: int
    log_likelihood: float
    bic: float
    error: str = ""


def candidate_pairs(families, open_scale=False) -> list[tuple[str, str]]:
    """Expand a ``families`` argument into (negative, positive) spec pairs.

    ``"auto"`` means truncated Normal and Gamma on a bounded frame, and Normal and
    skew-normal on an open scale (``open_scale=True``: the logit of probabilities).
    ``"all"`` pairs every family; one name serves both classes (in its natural orientation);
    two names are a (negative, positive) pair; more names are paired every way; a list of
    pairs is taken as given.

    Raises
    ------
    ValueError
        For an unknown family name or a ``families`` that cannot be read.
    TypeError
        If ``families`` is neither a name, a Family, nor a sequence of them.

    Examples
    --------
    >>> from spe.mixture import candidate_pairs
    >>> candidate_pairs("auto")
    [('truncnorm', 'truncnorm'), ('truncnorm', 'gamma-reflected'), ('gamma', 'truncnorm'), ('gamma', 'gamma-reflected')]
    >>> candidate_pairs("auto", open_scale=True)[:2]
    [('normal', 'normal'), ('normal', 'skewnorm')]
    """
    if not isinstance(families, str) and not isinstance(families, (list, tuple)):
        try:
            families = as_spec(families)  # one Family (class or instance) or Component
        except TypeError:
            pass
    if isinstance(families, str):
        key = families.strip().lower()
        if key == "auto":
            names = OPEN_SCALE_CANDIDATES if open_scale else DEFAULT_CANDIDATES
        elif key == "all":
            names = ALL_CANDIDATES
        else:  # one family name: that family for both classes, in its natural orientation
            comp = get_component(families)
            return [(comp.spec, mirrored(comp).spec)]
        return [(n, mirrored(p).spec) for n, p in itertools.product(names, names)]
    try:
        items = list(families)
    except TypeError:
        raise TypeError("families must be a name, a Family, or a sequence of them (or of pairs)") from None
    try:
        items = [tuple(as_spec(j) for j in i) if isinstance(i, (tuple, list)) else as_spec(i) for i in items]
    except TypeError as exc:
        raise ValueError(f"could not interpret families={families!r}: {exc}") from None
    if len(items) == 2 and all(isinstance(i, str) for i in items):
        return [(get_component(items[0]).spec, get_component(items[1]).spec)]
    if items and all(isinstance(i, str) for i in items):
        for i in items:
            get_component(i)
        return [(n, mirrored(p).spec) for n, p in itertools.product(items, items)]
    if items and all(isinstance(i, (tuple, list)) and len(i) == 2 for i in items):
        return [(get_component(a).spec, get_component(b).spec) for a, b in items]
    raise ValueError(f"could not interpret families={families!r}")


def select_families(data: ScoreData, pairs, prior=None, on_pair=None, **fit_kwargs):
    """Fit every pair; pick the lowest BIC. Returns (best MapFit, selection table rows).

    ``on_pair``: called with no argument after each pair (a progress bar's ``update``).

    Raises
    ------
    FitError
        If every pair failed.

    See Also
    --------
    candidate_pairs, fit_map

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import prepare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.uniform(size=400) < 0.3  # 30% positives, scores N(2, 1) vs N(0, 1), 20 labeled
    >>> scores = np.where(y, rng.normal(2, 1, 400), rng.normal(0, 1, 400))
    >>> data = prepare(scores, np.where(np.arange(400) < 20, y, np.nan))
    >>> from spe.mixture import candidate_pairs, select_families
    >>> best, rows = select_families(data, candidate_pairs("auto"))
    >>> best.model.spec, len(rows)
    (('truncnorm', 'truncnorm'), 4)
    """
    n = data.n_items
    rows, fits = [], []
    for neg, pos in pairs:
        model = MixtureModel(get_component(neg), get_component(pos), prior, bounded=data.frame.transform != "logit")
        try:
            fit = fit_map(model, data, **fit_kwargs)
        except FitError as exc:
            rows.append(SelectionRow(neg, pos, model.n_params, -np.inf, np.inf, str(exc)))
        else:
            bic = -2.0 * fit.log_likelihood + model.n_params * np.log(n)
            rows.append(SelectionRow(neg, pos, model.n_params, fit.log_likelihood, bic))
            fits.append((bic, fit))
        if on_pair is not None:
            on_pair()
    if not fits:
        raise FitError(
            "no family pair could be fitted: " + " | ".join(f"{r.neg}/{r.pos}: {r.error}" for r in rows)
        )
    best = min(fits, key=lambda bf: bf[0])[1]
    rows.sort(key=lambda r: r.bic)
    return best, rows

