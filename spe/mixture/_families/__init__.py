"""Parametric families for the class-conditional score densities.

A family is a small class that declares its parameter names, how each maps to an
unconstrained space (``"real"`` or ``"log"``), a weak default prior per parameter, a
data-driven initial point, and one density. Everything else (cdf, survival function,
quantiles) comes from the matching ``scipy.stats`` distribution via ``scipy_dist``.

Families act on the *unit score* ``z`` in [0, 1]: scores mapped linearly from the
score frame (see :mod:`spe.scores`), so the priors below are stated in units of the
score range. Positive-support families (Gamma, log-normal, Gompertz, Frechet) measure
the distance from the lower end of the frame; used *reflected* (see :class:`Component`)
they measure the distance from the upper end, so a skew can point either way.

``logpdf`` is written with NumPy/``scipy.special`` rather than through
``scipy.stats``: it sits in the inner loop of the fit (batched over parameter vectors)
where scipy's per-element overhead is 10-50x the arithmetic. Each one is checked against
its ``scipy.stats`` twin over parameter grids in ``tests/test_families.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import Family, log1mexp, log_diff_ndtr  # noqa: F401  (log_diff_ndtr re-exported)
from .library import (BetaFamily, Frechet, GammaFamily, Gompertz, GumbelLeft, GumbelRight, LogNormalFamily,
                      TruncNormal, TruncStudentT)
from .open_scale import NormalFamily, SkewNormal

#: Every family ``families=`` can name, by name (:func:`register_family` adds to it).
SCORE_FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        TruncNormal(),
        NormalFamily(),
        TruncStudentT(),
        SkewNormal(),
        GammaFamily(),
        LogNormalFamily(),
        GumbelRight(),
        GumbelLeft(),
        Gompertz(),
        Frechet(),
        BetaFamily(),
    )
}

REFLECTED_SUFFIX = "-reflected"


@dataclass(frozen=True)
class Component:
    """A family applied to the unit score z, or to 1 - z when ``reflected``.

    All methods take the unit score ``z`` and return quantities about the component's
    distribution of z, so callers never see the reflection.
    """

    family: Family
    reflected: bool = False

    @property
    def spec(self) -> str:
        return self.family.name + (REFLECTED_SUFFIX if self.reflected else "")

    @property
    def param_names(self):
        return self.family.param_names

    @property
    def n_params(self):
        return self.family.n_params

    def _v(self, z):
        return 1.0 - z if self.reflected else z

    def logpdf(self, z, params):
        return self.family.logpdf(self._v(z), params)

    def logsf(self, z, params):
        """log P(Z > z)."""
        if self.reflected:
            return self.family.logcdf(1.0 - z, params)
        return self.family.logsf(z, params)

    def logcdf(self, z, params):
        """log P(Z <= z)."""
        if self.reflected:
            return self.family.logsf(1.0 - z, params)
        return self.family.logcdf(z, params)

    def isf(self, q, params):
        """The z with P(Z > z) = q."""
        if self.reflected:
            return 1.0 - self.family.ppf(q, params)
        return self.family.isf(q, params)

    def median(self, params):
        m = self.family.median(params)
        return 1.0 - m if self.reflected else m

    def log_frame_mass(self, params):
        """log P(0 <= Z <= 1): the share of the family's mass on the unit frame (0 for a
        family that lives there; reflection leaves it unchanged). -inf where the share is
        too small to represent: such a component is off the frame."""
        if self.family.unit_support:
            return np.zeros(np.broadcast_shapes(*(np.shape(p) for p in params)))
        fam = self.family
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            cdf1, cdf0, sf0, sf1 = (np.asarray(t, float) for t in fam._frame_log_tails(params))
            # F(1) - F(0) from the side where both terms are small (no cancellation), and
            # 1 - F(0) - S(1) when the frame holds the median
            from_cdf = cdf1 + log1mexp(np.minimum(cdf0 - cdf1, 0.0))
            from_sf = sf0 + log1mexp(np.minimum(sf1 - sf0, 0.0))
            straddle = np.log1p(-np.exp(cdf0) - np.exp(sf1))
            log_half = -np.log(2.0)
            mass = np.where(cdf1 <= log_half, from_cdf, np.where(sf0 <= log_half, from_sf, straddle))
        return np.where(np.isfinite(mass), mass, -np.inf)

    def initial(self, z, w):
        return self.family.initial(self._v(np.asarray(z, float)), w)

    def __str__(self):
        return self.spec


def register_family(family, *, replace=False) -> Family:
    """Make a family nameable in ``families=`` (e.g. ``spe.fit(..., families="mine")``).

    ``family``: a :class:`Family` subclass or instance with a ``name``, parameter names,
    transforms, default priors, ``initial`` and a density (see :class:`TruncNormal` for
    the pattern). A name already taken by another family needs ``replace=True``.

    Returns
    -------
    Family
        The registered instance.

    Raises
    ------
    TypeError
        If ``family`` is not a :class:`Family` subclass or instance.
    ValueError
        If it has no name, inconsistent parameter declarations, or a taken name without
        ``replace=True``.

    See Also
    --------
    Family : has a complete example of a new family.

    Examples
    --------
    >>> from spe.mixture import SCORE_FAMILIES, register_family
    >>> register_family(SCORE_FAMILIES["gamma"])  # already registered: returned as is
    GammaFamily()
    >>> register_family(object())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: a family must be a spe.families.Family subclass or instance, got <object object at ...>
    """
    if isinstance(family, type) and issubclass(family, Family):
        family = family()
    if not isinstance(family, Family):
        raise TypeError(f"a family must be a spe.families.Family subclass or instance, got {family!r}")
    name = str(family.name).strip().lower()
    if not name or name.endswith(REFLECTED_SUFFIX):
        raise ValueError(f"a family needs a name (not ending in {REFLECTED_SUFFIX!r}), got {family.name!r}")
    if not (len(family.param_names) == len(family.transforms) == len(family.default_priors)):
        raise ValueError(f"family {name!r}: param_names, transforms and default_priors must have equal lengths")
    current = SCORE_FAMILIES.get(name)
    if current is not None and type(current) is not type(family) and not replace:
        raise ValueError(f"a different family is already named {name!r}; pass replace=True to replace it")
    SCORE_FAMILIES[name] = family
    return family


def as_spec(spec) -> str:
    """A family given by name, :class:`Family` (class or instance) or :class:`Component`, as its name."""
    if isinstance(spec, Component):
        register_family(spec.family)
        return spec.spec
    if isinstance(spec, Family) or (isinstance(spec, type) and issubclass(spec, Family)):
        return register_family(spec).name
    if not isinstance(spec, str):
        raise TypeError(f"a family must be given by name (str) or as a Family, got {type(spec).__name__}")
    return spec


def get_component(spec) -> Component:
    """Resolve a family spec such as ``"gamma"``, ``"gamma-reflected"`` or a :class:`Family`.

    Returns
    -------
    Component
        The family applied to the unit score, or to 1 - score when reflected.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> from spe.mixture import get_component
    >>> comp = get_component("gamma-reflected")
    >>> comp.family, comp.reflected, comp.family.param_names
    (GammaFamily(), True, ('k', 'theta'))
    >>> get_component("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown family 'nope'; known families: beta, frechet, gamma, ...
    """
    if isinstance(spec, Component):
        return spec
    name = as_spec(spec).strip().lower()
    reflected = name.endswith(REFLECTED_SUFFIX)
    if reflected:
        name = name[: -len(REFLECTED_SUFFIX)]
    if name not in SCORE_FAMILIES:
        known = ", ".join(sorted(SCORE_FAMILIES))
        raise ValueError(
            f"unknown family {spec!r}; known families: {known} "
            f"(append {REFLECTED_SUFFIX!r} to apply one to the reflected score)"
        )
    return Component(SCORE_FAMILIES[name], reflected)


def mirrored(spec) -> Component:
    """The orientation a family naturally takes for the *positive* class.

    Positive scores pile up near the top of the range, so positive-support families
    are reflected (measured down from the upper end); the others are unchanged.
    """
    comp = get_component(spec)
    if comp.family.skewed:
        return Component(comp.family, not comp.reflected)
    return comp
