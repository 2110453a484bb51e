"""Do the scores run the right way? What the labeled items alone say.

A check at the boundary, before any fit: when the labeled items say, with high posterior
probability, that lower scores mean positive, fitting would describe the classes the
wrong way round, so the fit is refused with the fix named.
"""

from __future__ import annotations

import numpy as np

#: Refuse a fit when the labeled items alone say, with this posterior probability, that
#: lower scores mean positive (needs at least ORIENTATION_MIN_PER_CLASS of each class).
ORIENTATION_PROBABILITY = 0.95
ORIENTATION_MIN_PER_CLASS = 3
#: Weight, in items, of the base measure (all scores) in each class's posterior.
BASE_WEIGHT = 1.0


def reversed_probability(scores, labels, n_boot=2000, max_per_class=500) -> float:
    """P(AUROC < 0.5) from the labeled items alone.

    Each class's score distribution gets a Dirichlet-process posterior whose base measure
    is the distribution of all the scores, with the weight of one item (Ferguson 1973):
    the Bayesian bootstrap of the class's labeled items plus one share for "an item like
    any other". Without that share, three positives tied at a score most items share
    would prove the scores reversed in every resample; with it, only labels that are
    actually ordered the wrong way do (a flipped label coding still gives P near 1).

    NaN when fewer than ``ORIENTATION_MIN_PER_CLASS`` items of a class are labeled.
    """
    known = ~np.isnan(labels)
    pos, neg = scores[known & (labels == 1)], scores[known & (labels == 0)]
    if min(pos.size, neg.size) < ORIENTATION_MIN_PER_CLASS:
        return float("nan")
    rng = np.random.default_rng(0)  # a check, not an estimate: the same answer every time
    pos = pos if pos.size <= max_per_class else rng.choice(pos, max_per_class, replace=False)
    neg = neg if neg.size <= max_per_class else rng.choice(neg, max_per_class, replace=False)
    wins = np.empty((pos.size + 1, neg.size + 1))
    wins[:-1, :-1] = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    wins[:-1, -1] = _share_below(scores, pos)  # a positive against an item like any other
    wins[-1, :-1] = 1.0 - _share_below(scores, neg)
    wins[-1, -1] = 0.5
    w_pos = rng.dirichlet(np.r_[np.ones(pos.size), BASE_WEIGHT], n_boot)
    w_neg = rng.dirichlet(np.r_[np.ones(neg.size), BASE_WEIGHT], n_boot)
    auc = np.einsum("bi,ij,bj->b", w_pos, wins, w_neg)
    return float(np.mean(auc < 0.5))


def _share_below(scores, values) -> np.ndarray:
    """P(S < v) + P(S = v) / 2 for each v, S drawn from ``scores``."""
    s = np.sort(scores)
    below = np.searchsorted(s, values, side="left")
    upto = np.searchsorted(s, values, side="right")
    return (below + 0.5 * (upto - below)) / s.size


def check_orientation(scores, labels) -> None:
    """Refuse scores that the labels say run the wrong way, naming the fix.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import check_orientation
    >>> check_orientation(np.array([0.1, 0.2, 0.8, 0.9]), np.array([0.0, 0.0, 1.0, 1.0]))  # fine: nothing
    >>> check_orientation(np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9]), np.array([1.0, 1, 1, 0, 0, 0]))
    Traceback (most recent call last):
        ...
    ValueError: the labels say lower scores mean positive here: ...
    """
    p = reversed_probability(scores, labels)
    if p > ORIENTATION_PROBABILITY:
        known = ~np.isnan(labels)
        raise ValueError(
            f"the labels say lower scores mean positive here: P(AUROC < 0.5) = {p:.3f} from the "
            f"{int(known.sum())} labeled items alone. If lower scores mean positive, pass "
            "higher_is_positive=False (CLI: --lower-is-positive); otherwise check how the labels are coded"
        )
