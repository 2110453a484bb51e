"""How badly the mixture's marginal misses the observed scores, and what that costs it.

A parametric mixture fitted to N real scores is nearly always wrong in shape; with N in
the thousands its posterior is nevertheless sharp, so it is confidently wrong. Following
the coarsened posterior of Miller & Dunson (2019, JASA), the unlabeled likelihood is
raised to a power

    zeta = alpha / (alpha + N),    1 / alpha = the expected discrepancy d,

which is what conditioning on "the data are within d (in Kullback-Leibler terms) of the
model" amounts to. ``d`` is measured here, not tuned: the KL divergence from the
empirical score distribution to the fitted marginal, on B equal-mass bins, minus what
sampling noise alone would produce. Under a correct model 2 N KL is approximately
chi-square with B - 1 - k degrees of freedom; only the excess over its 95% quantile is
counted, so a well-specified mixture keeps zeta = 1 (full weight) in ~95% of data sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

MAX_BINS = 50
MIN_BINS = 8
ITEMS_PER_BIN = 40
NULL_QUANTILE = 0.95


@dataclass(frozen=True)
class Misfit:
    """Discrepancy between the empirical score distribution and the fitted marginal.

    Attributes
    ----------
    kl : KL(empirical || model) on ``n_bins`` equal-mass bins (nats).
    null_kl : the 95% quantile of that KL under a correct model (sampling noise).
    excess : max(0, kl - null_kl): the discrepancy sampling noise does not explain.
    zeta : power on the unlabeled likelihood, 1 / (1 + N excess).
    n_bins, n_items : the binning and the number of scores.

    See Also
    --------
    fit_mixture : measures it after the plain fit and coarsens by ``zeta``.

    Examples
    --------
    >>> from spe.mixture import Misfit
    >>> misfit = Misfit(kl=0.0178, null_kl=0.0149, excess=0.0029, zeta=0.161, n_bins=44, n_items=1797)
    >>> round(misfit.effective_items)
    289
    >>> misfit.verdict()
    'the mixture misses the score distribution by more than sampling noise; its unlabeled scores count as ~289 of 1797'
    """

    kl: float
    null_kl: float
    excess: float
    zeta: float
    n_bins: int
    n_items: int

    @property
    def effective_items(self) -> float:
        """How many unlabeled scores the coarsened likelihood is worth."""
        return self.zeta * self.n_items

    def verdict(self) -> str:
        if self.excess == 0.0:
            return "the mixture fits the score distribution within sampling noise"
        worth = f"its unlabeled scores count as ~{self.effective_items:.0f} of {self.n_items}"
        if self.zeta >= 0.1:
            return f"the mixture misses the score distribution by more than sampling noise; {worth}"
        return f"the mixture does not fit the score distribution; {worth}"

    def as_dict(self) -> dict:
        return {"kl": self.kl, "null_kl": self.null_kl, "excess": self.excess, "zeta": self.zeta,
                "n_bins": self.n_bins, "effective_items": self.effective_items,
                "verdict": self.verdict()}


def n_bins_for(n_items: int) -> int:
    return int(np.clip(n_items // ITEMS_PER_BIN, MIN_BINS, MAX_BINS))


def equal_mass_bins(z, counts, n_bins):
    """Bin index per group so that each bin holds ~1/n_bins of the items (ties kept whole)."""
    cum = np.cumsum(counts) - 0.5 * counts
    raw = np.floor(cum / counts.sum() * n_bins).astype(np.int64)
    _, idx = np.unique(raw, return_inverse=True)
    return idx


def measure(marginal_cdf, z, counts, n_params: int, censored=None) -> Misfit:
    """Misfit of a fitted marginal (``marginal_cdf(z)`` on unit scores) to grouped scores.

    ``z`` are ascending group scores and ``counts`` the items per group; ``censored``
    (-1 / 0 / +1 per group) marks groups that only say "at or beyond the clip".
    """
    z = np.asarray(z, float)
    counts = np.asarray(counts, float)
    if censored is not None and np.any(censored):
        # All items beyond a clip are one outcome, whose expected mass is the model's tail:
        # one group at the outermost score, so its bin reaches the end of the frame.
        censored = np.asarray(censored)
        z = np.where(censored == 1, z[censored == 1].max(initial=-np.inf), z)
        z = np.where(censored == -1, z[censored == -1].min(initial=np.inf), z)
    # Groups sharing a score (censored ones, and items just inside the clip) are one group
    # here, or the bin between them would have zero width and no expected mass.
    z, where = np.unique(z, return_inverse=True)
    counts = np.bincount(where, weights=counts, minlength=z.size)
    n = float(counts.sum())
    bins = equal_mass_bins(z, counts, n_bins_for(int(n)))
    n_bins = int(bins.max()) + 1
    observed = np.bincount(bins, weights=counts, minlength=n_bins) / n
    # Bin edges halfway between the last group of one bin and the first of the next.
    last = np.searchsorted(bins, np.arange(n_bins), side="right") - 1
    inner = 0.5 * (z[last[:-1]] + z[last[:-1] + 1])
    cdf = np.concatenate([[0.0], np.clip(marginal_cdf(inner), 0.0, 1.0), [1.0]])
    expected = np.maximum(np.diff(cdf), 1e-300)
    keep = observed > 0
    kl = float(np.sum(observed[keep] * np.log(observed[keep] / expected[keep])))
    df = max(n_bins - 1 - n_params, 1)
    null_kl = float(stats.chi2.ppf(NULL_QUANTILE, df) / (2.0 * n))
    excess = max(0.0, kl - null_kl)
    return Misfit(kl=kl, null_kl=null_kl, excess=excess, zeta=1.0 / (1.0 + n * excess),
                  n_bins=n_bins, n_items=int(n))
