"""Posterior sampling shared by the score models: importance sampling around a mode,
adapted while the Pareto-smoothed weights (PSIS, through ArviZ) cannot be trusted."""

from ._importance import (KHAT_THRESHOLD, Proposal, adaptive_importance_draws, mode_importance_draws,
                          student_t_importance_draws)
from ._psis import psis

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._importance import MAX_ADAPTATIONS, fd_hessian, positive_definite

__all__ = ["psis", "Proposal", "adaptive_importance_draws", "student_t_importance_draws", "mode_importance_draws",
           "KHAT_THRESHOLD"]
