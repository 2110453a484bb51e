"""Algorithm 1 (DLPM elicitation): one binary search per class pair, on the pair's face.

For the pair (r, i) the rules "predict r iff m eta_r >= (1 - m) eta_i, else i" trace the
upper boundary of the face D_{r,i} (:class:`~spe.elicitation.PairBoundary`); the
oracle's weighted accuracy is unimodal along it and peaks at m* = a_r / (a_r + a_i)
(Proposition 2, Lemma 2). A search to tolerance eps pins m* within eps / 2.

**The reference class.** The paper searches the pairs (1, i) and sets a_i = a_1 (1 - m) / m.
When a_1 is small every m* sits near 0, where (1 - m) / m magnifies the search's error
without bound (a_1 = 0.01, m* = 0.0099: the interval [0, 0.0078] cannot say whether a_i is
50 or 500 times a_1). Here the reference is a running champion: class 0 starts, each new
class i is searched against the current reference r, and when m < 1/2 (a_i > a_r) i becomes
the reference for the classes after it. Every search then compares a class with the
heaviest class seen so far, and the weights are chained from the final reference
downwards, each link a ratio min(m, 1 - m) / max(m, 1 - m) <= 1 whose error is at most 4x
that of m. This costs no extra question: still K - 1 searches, 4 (K - 1) ceil(log2(1/eps))
questions at most. The champion chain is short (the records of a random order: about
ln K + 0.6 links).

When a search ends on a plateau wider than the tolerance (a vertex of the face that many
shares m share; ``_chords``), chord questions bisect it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._chords import refine_on_plateau
from ._search import SearchResult, search_best
from ._space import ConfusionSpace

#: Shares m are kept this far from 0 and 1, so every ratio (1 - m) / m is finite.
SHARE_FLOOR = 1e-9


@dataclass
class PairSearch:
    """The search of one class pair: ``parent`` was the reference, m = a_parent / (a_parent + a_child);
    ``answers``: where its questions sit in the asker's history."""

    parent: int
    child: int
    upper: SearchResult
    answers: slice


class _Unseen:
    """A boundary whose plateaus the search is not told about (the paper's algorithm as
    written: identical matrices are shown too, and a tie is answered "not better")."""

    ask_ties = True

    def __init__(self, boundary):
        self.boundary, self.lo, self.hi = boundary, boundary.lo, boundary.hi

    def key(self, m):
        return float(m)

    def plateau(self, m):
        return float(m), float(m)

    def confusion(self, m):
        return self.boundary.confusion(m)


def pair_searches(space: ConfusionSpace, ask, tolerance: float, champion: bool = True,
                  plateaus: bool = True) -> list[PairSearch]:
    """K - 1 searches with a running champion as the reference (``ask``: an
    :class:`~spe.elicitation.Asker`). ``champion=False, plateaus=False`` is the
    paper's Algorithm 1 as written (reference class 0; flat pieces of the boundary unseen),
    kept for comparison."""
    ref, out = 0, []
    for i in range(1, space.n_classes):
        boundary = space.pair(ref, i, True)
        first = len(ask.history)
        up = search_best(boundary if plateaus else _Unseen(boundary), ask, tolerance, name=f"classes {ref} vs {i}")
        if up.on_plateau:
            refine_on_plateau(boundary, up, ask, tolerance)
        out.append(PairSearch(ref, i, up, slice(first, len(ask.history))))
        if champion and up.estimate < 0.5:
            ref = i
    return out


def weights_from_shares(pairs: list[PairSearch], shares) -> np.ndarray:
    """Simplex weights from each pair's share m (array (..., K - 1)): chained log-ratios,
    log a_child = log a_parent + log((1 - m) / m), normalised (softmax)."""
    m = np.clip(np.asarray(shares, float), SHARE_FLOOR, 1 - SHARE_FLOOR)
    k = len(pairs) + 1
    log_a = np.zeros(m.shape[:-1] + (k,))
    for e, p in enumerate(pairs):
        log_a[..., p.child] = log_a[..., p.parent] + np.log1p(-m[..., e]) - np.log(m[..., e])
    log_a -= log_a.max(axis=-1, keepdims=True)
    a = np.exp(log_a)
    return a / a.sum(axis=-1, keepdims=True)


def shares_from_weights(pairs: list[PairSearch], weights) -> np.ndarray:
    """Each pair's share m = a_parent / (a_parent + a_child) (the inverse of :func:`weights_from_shares`)."""
    a = np.asarray(weights, float)
    return np.stack([a[..., p.parent] / (a[..., p.parent] + a[..., p.child]) for p in pairs], axis=-1)


def elicit_diagonal(space: ConfusionSpace, ask, tolerance: float, champion: bool = True, plateaus: bool = True):
    """Algorithm 1: (simplex weights, the pair searches)."""
    pairs = pair_searches(space, ask, tolerance, champion, plateaus)
    return weights_from_shares(pairs, [p.upper.estimate for p in pairs]), pairs
