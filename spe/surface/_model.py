"""spe's surface model: the classifier's confidence, recalibrated by the labels, plus
attribute effects, averaged over two priors for the recalibration.

Both members are the multilevel logistic model of ``_laplace`` (Platt scaling of the
confidence, main effects, pairwise interactions, arm deviations, their scales integrated
out); they differ in how far the labels may move the recalibration:

* ``confidence``: the confidence is nearly right (alpha ~ N(0, 0.25^2), beta ~ N(1, 0.2^2),
  the prior of spe's ``calibrated`` score model): Ji et al.'s score prior, with effects;
* ``recalibrated``: spe's wide Platt prior (alpha ~ N(0, 1.5^2), beta ~ N(1, 1)).

They are weighed by their marginal likelihoods (Bayesian model averaging). Without
confidence there is one member, ``labels``: the multilevel model of the labels alone.
Attribute effects are never switched off: a spike at "no effects" let a handful of labels
declare them absent and cost interval coverage on generated surfaces whose effects were
real (0.81 of arms at 100 labels); their continuous shrinkage (:meth:`.LatentLogistic.log_hyperprior`)
keeps them small until the labels say otherwise. With no labels the ``confidence``
member answers alone, its scales at their prior.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._counts import ArmCounts
from ._effects import Effects, anova_effects
from ._estimate import ArmEstimate
from ._laplace import LOG_SD_BOUNDS, LatentLogistic, Mode, Priors
from ._realised import realised_accuracy

#: spe's "calibrated" score model prior: the confidence as it is, give or take a little.
CONFIDENCE_PRIORS = Priors(intercept_sd=0.25, slope_sd=0.2)
#: Labels needed before members are weighed by the evidence.
MIN_LABELS_TO_WEIGH = 1
#: Without labels the scales keep their prior: this many draws of it.
NO_LABEL_SCALE_POINTS = 16


def member_priors(has_confidence: bool) -> dict:
    """The members' priors, by name (the first answers alone when nothing is labeled)."""
    if has_confidence:
        return {"confidence": CONFIDENCE_PRIORS, "recalibrated": Priors()}
    return {"labels": Priors(intercept_sd=2.0)}


@dataclass
class Member:
    """One fitted member: its model, mode, and draws of arm predictors and slope."""

    model: LatentLogistic
    mode: Mode                # at the most probable scales
    arm_constant: np.ndarray  # (S, M)
    slope: np.ndarray         # (S,)
    log_marginal: float       # log p(labels | member), learned scales integrated out
    ess: float                # effective sample size of the scales' importance sampling


@dataclass
class SurfaceFit:
    """The pooled surface model.

    Attributes
    ----------
    counts : ArmCounts
    effects : Effects
    members : dict name -> Member
    weights : dict name -> float
        Posterior probabilities of the members (their marginal likelihoods, equal prior odds).
    arm_constant, slope : pooled draws of each arm's predictor and the confidence slope
    accuracy : ArmEstimate
        Draws of each arm's realised accuracy.
    """

    counts: ArmCounts
    effects: Effects
    members: dict
    weights: dict
    arm_constant: np.ndarray
    slope: np.ndarray
    accuracy: ArmEstimate

    @property
    def heaviest(self) -> str:
        """The member with the most posterior probability."""
        return max(self.weights, key=self.weights.get)

    def scales(self, member: str | None = None) -> dict:
        """Standard deviation of each effect group (at the most probable scales) of a member
        (default: the heaviest), on the logit scale."""
        member = member or self.heaviest
        names = (*self.effects.group_names, "arm")
        return dict(zip(names, np.exp(self.members[member].mode.log_sd).round(4).tolist()))

    def effect_sd(self, member: str | None = None) -> float:
        """Total standard deviation the attribute effects add to an arm's logit (most
        probable scales of a member, default the heaviest)."""
        member = member or self.heaviest
        return _total_sd(self.members[member])


def _total_sd(member: Member) -> float:
    m = member.model
    return float(np.sqrt(np.sum(m.multiplicity * np.exp(2 * member.mode.log_sd))))


def _fit_member(counts, effects, priors: Priors, n_draws, rng) -> Member:
    model = LatentLogistic(counts, effects, priors)
    if counts.n_labeled.sum() > 0:
        scales = model.integrate_scales(rng)
        modes, share, best = scales.modes, scales.weights, scales.best
        log_marginal, ess = scales.log_marginal, scales.ess
    else:  # nothing to learn the scales from: their prior drawn
        modes = [model.mode(np.clip(h, *LOG_SD_BOUNDS)) for h in model.sample_hyperprior(NO_LABEL_SCALE_POINTS, rng)]
        share, log_marginal, ess = np.full(len(modes), 1 / len(modes)), 0.0, float(len(modes))
        best = model.mode(0.5 * np.log(priors.scale**2 / model.multiplicity.size / model.multiplicity))
    counts_per_mode = rng.multinomial(n_draws, share)
    parts = [model.draw(m, c, rng) for m, c in zip(modes, counts_per_mode) if c]
    arm_constant, slope = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return Member(model, best, arm_constant, slope, log_marginal, ess)


def member_weights(members: dict, n_labeled: float) -> dict:
    """Posterior model probabilities (equal prior odds); the first member alone without labels."""
    if n_labeled < MIN_LABELS_TO_WEIGH:
        first = next(iter(members))
        return {name: float(name == first) for name in members}
    log_m = np.array([m.log_marginal for m in members.values()])
    w = np.exp(log_m - log_m.max())
    return dict(zip(members, (w / w.sum()).tolist()))


def fit_surface(counts: ArmCounts, *, pairs: bool = True, n_draws: int = 400,
                rng: np.random.Generator) -> SurfaceFit:
    """Fit the members, weigh them by the labels, and draw every arm's realised accuracy."""
    effects = anova_effects(counts.codes, counts.names, pairs=pairs)
    members = {name: _fit_member(counts, effects, priors, n_draws, rng)
               for name, priors in member_priors(counts.has_confidence).items()}
    weights = member_weights(members, counts.n_labeled.sum())
    names = list(members)
    pick = rng.choice(len(names), size=n_draws, p=np.array([weights[n] for n in names]))
    rows = np.arange(n_draws)
    arm_constant = np.stack([members[n].arm_constant for n in names])[pick, rows]
    slope = np.stack([members[n].slope for n in names])[pick, rows]
    draws = realised_accuracy(counts, arm_constant, slope, rng)
    return SurfaceFit(counts, effects, members, weights, arm_constant, slope, ArmEstimate(draws.mean(0), draws, "spe"))
