"""Posterior sampling shared by the score models: importance sampling around a mode,
adapted while the Pareto-smoothed weights (PSIS, through ArviZ) cannot be trusted."""

from .importance import (KHAT_THRESHOLD, Proposal, adaptive_importance_draws, mode_importance_draws,
                         student_t_importance_draws)
from .psis import psis

__all__ = ["psis", "Proposal", "adaptive_importance_draws", "student_t_importance_draws", "mode_importance_draws",
           "KHAT_THRESHOLD"]
