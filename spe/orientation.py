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


def reversed_probability(scores, labels, n_boot=2000, max_per_class=500) -> float:
    """P(AUROC < 0.5) from the labeled items alone (Bayesian bootstrap of each class).

    NaN when fewer than ``ORIENTATION_MIN_PER_CLASS`` items of a class are labeled.
    """
    known = ~np.isnan(labels)
    pos, neg = scores[known & (labels == 1)], scores[known & (labels == 0)]
    if min(pos.size, neg.size) < ORIENTATION_MIN_PER_CLASS:
        return float("nan")
    rng = np.random.default_rng(0)  # a check, not an estimate: the same answer every time
    pos = pos if pos.size <= max_per_class else rng.choice(pos, max_per_class, replace=False)
    neg = neg if neg.size <= max_per_class else rng.choice(neg, max_per_class, replace=False)
    wins = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    w_pos = rng.dirichlet(np.ones(pos.size), n_boot)
    w_neg = rng.dirichlet(np.ones(neg.size), n_boot)
    auc = np.einsum("bi,ij,bj->b", w_pos, wins, w_neg)
    return float(np.mean(auc < 0.5))


def check_orientation(scores, labels) -> None:
    """Refuse scores that the labels say run the wrong way, naming the fix."""
    p = reversed_probability(scores, labels)
    if p > ORIENTATION_PROBABILITY:
        known = ~np.isnan(labels)
        raise ValueError(
            f"the labels say lower scores mean positive here: P(AUROC < 0.5) = {p:.3f} from the "
            f"{int(known.sum())} labeled items alone. If lower scores mean positive, pass "
            "higher_is_positive=False (CLI: --lower-is-positive); otherwise check how the labels are coded"
        )
