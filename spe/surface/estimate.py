"""What every surface estimator returns: posterior draws of each arm's accuracy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ArmEstimate:
    """Posterior of the accuracy of M arms.

    Attributes
    ----------
    mean : ndarray (M,)
        Posterior mean accuracy of each arm (the point estimate the AAA paper scores).
    draws : ndarray (S, M)
        Posterior draws of each arm's accuracy, for intervals, marginals over partial
        combinations and variance-based exploration.
    method : str
        Name of the estimator.
    """

    mean: np.ndarray
    draws: np.ndarray
    method: str = ""

    @property
    def variance(self) -> np.ndarray:
        return self.draws.var(axis=0)

    def interval(self, level: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed posterior interval of each arm's accuracy."""
        if not 0 < level < 1:
            raise ValueError(f"level must lie in (0, 1), got {level!r}")
        tail = (1 - level) / 2
        lo, hi = np.quantile(self.draws, [tail, 1 - tail], axis=0)
        return lo, hi
