"""Prior weights of the score models in the pool, before the labels weigh them."""

from __future__ import annotations

from ..calibration import WEAK_RANKER


def prior_weights(fits, mixture: float | None, weak: float | None = None) -> dict | None:
    """Prior weights of the fitted score models (None: no preference): the weak ranker's
    learned share ``weak`` of classifiers at chance; of the rest, the mixture's prior
    probability ``mixture``, and the remainder shared equally by the maps.

    Examples
    --------
    >>> from spe.pooling import prior_weights
    >>> prior_weights({"mixture": ..., "spline": ..., "weak": ...}, mixture=0.2, weak=0.1)
    {'mixture': 0.18000000000000002, 'spline': 0.7200000000000001, 'weak': 0.1}
    >>> prior_weights({"mixture": ..., "spline": ...}, mixture=None) is None
    True
    """
    at_chance = weak if weak is not None and WEAK_RANKER in fits and len(fits) > 1 else None
    others = [name for name in fits if name != WEAK_RANKER or at_chance is None]
    with_mixture = mixture is not None and "mixture" in others and len(others) > 1
    if at_chance is None and not with_mixture:
        return None
    maps = [name for name in others if name != "mixture" or not with_mixture]
    rest = 1.0 - (at_chance or 0.0)
    weights = {name: rest * (1.0 - (mixture if with_mixture else 0.0)) / len(maps) for name in maps}
    weights |= {"mixture": rest * mixture} if with_mixture else {}
    weights |= {WEAK_RANKER: at_chance} if at_chance is not None else {}
    return {name: weights[name] for name in fits}
