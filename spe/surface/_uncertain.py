"""Attributes known only as an attribute classifier's probabilities (AAA paper, section 3.5).

An item whose attribute is uncertain is split across the arms it may belong to, by

    log P(a | x) = sum_k t_k log M_k(a_k | x) + N(a) - log Z(x),

the attribute classifiers' log probabilities M_k recalibrated by a temperature t_k each,
plus a joint potential N over the uncertain attributes' level combinations (their
correlation, and each level's base rate). Both are fitted by maximum penalised
likelihood on the items whose attributes are known (the paper's seed set D); N has a
Normal(0, 1) penalty per entry, so with few known items it stays near zero. Items whose
attribute is known sit in their arm with weight one.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from itertools import product

import numpy as np
from scipy import optimize, special

#: Arm shares below this are dropped (and the rest renormalised): they cost rows, not accuracy.
MIN_SHARE = 1e-3
_LOG_EPS = 1e-12


@dataclass
class UncertainAttribute:
    """An attribute given as class probabilities of an attribute classifier.

    Parameters
    ----------
    probs : array (N, L)
        P(level | item) from the attribute classifier; rows sum to 1.
    levels : sequence of L values, optional
        The levels' names (default ``0..L-1``).
    known : array (N,), optional
        The true level where it is known (a value of ``levels``), None/NaN elsewhere. These
        items recalibrate the classifier and keep their level.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.surface import UncertainAttribute
    >>> probs = np.array([[0.9, 0.1], [0.3, 0.7], [0.5, 0.5]])
    >>> age = UncertainAttribute(probs, levels=["<40", "40+"], known=["<40", None, None])
    >>> age.levels.tolist(), age.known_index.tolist()
    (['<40', '40+'], [0, -1, -1])
    """

    probs: np.ndarray
    levels: np.ndarray = None
    known: np.ndarray = None
    temperature: float = field(default=1.0, init=False)

    def __post_init__(self):
        p = np.asarray(self.probs, dtype=float)
        if p.ndim != 2 or p.shape[1] < 2:
            raise ValueError(f"probs of an uncertain attribute must be (N items, L >= 2 levels), got shape {p.shape}")
        if not np.isfinite(p).all() or (p < 0).any():
            raise ValueError("probs of an uncertain attribute must be finite and nonnegative")
        if not np.allclose(p.sum(axis=1), 1.0, atol=1e-3):
            bad = int(np.argmax(np.abs(p.sum(axis=1) - 1)))
            raise ValueError(f"probs of an uncertain attribute must sum to 1 per item; item {bad} sums to "
                             f"{p[bad].sum():.4g}")
        self.probs = p
        levels = np.arange(p.shape[1]) if self.levels is None else np.asarray(self.levels)
        if levels.shape != (p.shape[1],) or np.unique(levels).size != levels.size:
            raise ValueError(f"levels must be {p.shape[1]} distinct values, got {levels!r}")
        self.levels = levels.astype(str)
        self.known_index = self._known_index(self.known)

    def _known_index(self, known) -> np.ndarray:
        n = self.probs.shape[0]
        out = np.full(n, -1)
        if known is None:
            return out
        known = np.asarray(known, dtype=object)
        if known.shape != (n,):
            raise ValueError(f"known must have one entry per item ({n}), got shape {known.shape}")
        lookup = {v: j for j, v in enumerate(self.levels)}
        for i, v in enumerate(known.tolist()):
            if v is None or (isinstance(v, float) and np.isnan(v)):
                continue
            if str(v) not in lookup:
                raise ValueError(f"known level {v!r} of item {i} is not one of the levels {self.levels.tolist()}")
            out[i] = lookup[str(v)]
        return out


def _joint_log_probs(logs, temps, potential, combos):
    """(N, C) log P(combination | item) for the uncertain attributes' combinations."""
    score = sum(t * lg[:, combos[:, k]] for k, (t, lg) in enumerate(zip(temps, logs))) + potential
    return score - special.logsumexp(score, axis=1, keepdims=True)


#: The AAA paper's three forms of P(a | x) (its Figure 5): Cal:Raw, Cal:Temp, Cal:Full.
CALIBRATIONS = ("raw", "temperature", "full")


def recalibrate(uncertain: list[UncertainAttribute], calibration: str = "full") -> tuple[np.ndarray, np.ndarray]:
    """Fit temperatures (set on each attribute) and the joint potential on the items whose
    uncertain attributes are all known; returns (N, C) P(combination | item) with known
    attributes clamped, and the (C, K) level codes of the combinations.

    ``calibration`` is ``"full"`` (temperatures and joint potential, eq. 13),
    ``"temperature"`` (temperatures only, the potential held at 0) or ``"raw"`` (the
    classifiers' product as given)."""
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")
    logs = [np.log(np.maximum(u.probs, _LOG_EPS)) for u in uncertain]
    combos = np.array(list(product(*[range(u.levels.size) for u in uncertain])))
    known = np.stack([u.known_index for u in uncertain], axis=1)
    seed = (known >= 0).all(axis=1)
    k = len(uncertain)
    temps, potential = np.ones(k), np.zeros(len(combos))
    if seed.sum() >= 2 and calibration != "raw":
        target = np.ravel_multi_index(known[seed].T, [u.levels.size for u in uncertain])
        seed_logs = [lg[seed] for lg in logs]
        n_phi = len(combos) if calibration == "full" else 0

        def loss(theta):
            t, phi = np.exp(theta[:k]), theta[k:] if n_phi else np.zeros(len(combos))
            lp = _joint_log_probs(seed_logs, t, phi, combos)
            return -lp[np.arange(target.size), target].sum() + 0.5 * np.dot(phi, phi)

        res = optimize.minimize(loss, np.zeros(k + n_phi), method="L-BFGS-B",
                                bounds=[(np.log(0.02), np.log(50))] * k + [(-10, 10)] * n_phi)
        temps = np.exp(res.x[:k])
        potential = res.x[k:] if n_phi else potential
    for u, t in zip(uncertain, temps):
        u.temperature = float(t)
    probs = np.exp(_joint_log_probs(logs, temps, potential, combos))
    for j, u in enumerate(uncertain):  # a known level clamps that attribute
        rows = u.known_index >= 0
        probs[rows] *= combos[:, j][None, :] == u.known_index[rows, None]
    probs /= probs.sum(axis=1, keepdims=True)
    return probs, combos


def attribute_probabilities(uncertain, calibration: str = "full"):
    """P(level combination | item) of uncertain attributes, recalibrated (AAA eq. 13).

    Parameters
    ----------
    uncertain : dict name -> UncertainAttribute, or a list of them
        The attributes; those items whose level is ``known`` for every attribute fit the
        recalibration and keep their levels.
    calibration : {"full", "temperature", "raw"}
        Temperatures and a joint potential over the level combinations (the paper's
        Cal:Full, default); temperatures only (Cal:Temp); or the classifiers' product as
        given (Cal:Raw).

    Returns
    -------
    probs : ndarray (N, C)
        Each item's probability of each combination (rows sum to 1).
    combos : ndarray (C, K) of int
        Level codes (into each attribute's ``levels``) of the combinations.
    temperatures : ndarray (K,)
        The fitted temperatures (1 for ``"raw"``).

    Raises
    ------
    ValueError
        For an unknown ``calibration`` or attributes of different lengths.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> true = rng.integers(0, 2, 200)
    >>> p = np.where(true == 1, 0.7, 0.3)  # an under-confident classifier
    >>> known = np.where(np.arange(200) < 100, true, None)
    >>> att = UncertainAttribute(np.column_stack([1 - p, p]), known=known)
    >>> probs, combos, temps = attribute_probabilities([att], calibration="temperature")
    >>> probs.shape, combos.ravel().tolist(), bool(temps[0] > 1)
    ((200, 2), [0, 1], True)
    """
    items = list(uncertain.values()) if isinstance(uncertain, dict) else list(uncertain)
    if not items or not all(isinstance(u, UncertainAttribute) for u in items):
        raise TypeError("uncertain must be a non-empty list or dict of UncertainAttribute")
    if len({u.probs.shape[0] for u in items}) > 1:
        raise ValueError(f"uncertain attributes describe different numbers of items: "
                         f"{[u.probs.shape[0] for u in items]}")
    items = [copy.copy(u) for u in items]  # the fitted temperatures land on copies
    probs, combos = recalibrate(items, calibration)
    return probs, combos, np.array([u.temperature for u in items])


def expand(columns: dict, n: int):
    """Split items over the arms their uncertain attributes allow.

    Returns (columns of the expanded rows, the item of each row, the share of each row,
    the uncertain attributes by name) — the input unchanged when no attribute is uncertain.
    """
    # copies: the fitted temperatures are set on them, never on the caller's objects
    uncertain = {name: copy.copy(v) for name, v in columns.items() if isinstance(v, UncertainAttribute)}
    if not uncertain:
        return columns, np.arange(n), np.ones(n), {}
    probs, combos = recalibrate(list(uncertain.values()))
    if not np.isfinite(probs).all():
        raise ValueError("the recalibrated attribute probabilities are not finite; check the attribute "
                         "classifiers' probabilities (exact 0s everywhere for an item?)")
    keep = (probs >= MIN_SHARE) | (probs == probs.max(axis=1, keepdims=True))  # an item's likeliest arm stays
    probs = np.where(keep, probs, 0.0)
    probs /= probs.sum(axis=1, keepdims=True)
    item, combo = np.nonzero(probs)
    out = {}
    names = list(uncertain)
    for name, values in columns.items():
        if name in uncertain:
            out[name] = uncertain[name].levels[combos[combo, names.index(name)]]
        else:
            out[name] = np.asarray(values)[item]
    return out, item, probs[item, combo], uncertain
