"""spe's surface model: the classifier's confidence, recalibrated by the labels, plus
ANOVA arm effects; several such models pooled by how well they predict held-out labels.

Members (all the multilevel logistic model of :mod:`.laplace`, differing in priors):

* ``confidence``: the confidence is right (recalibration prior tight at the identity, as
  spe's ``calibrated`` score model) and attributes add nothing: Ji et al.'s score prior;
* ``recalibrated``: Platt scaling of the confidence with spe's wide prior, no attribute effects;
* ``surface``: Platt scaling plus main effects, pairwise interactions and arm deviations,
  their scales by the Laplace marginal posterior.

Without confidence the members are ``constant`` (one accuracy for all arms) and ``surface``.
The members are nested (``surface`` with its scales at zero is ``recalibrated``), so together
they are one model with a spike-and-slab prior on the attribute effects, and they are
weighed by their marginal likelihoods (Bayesian model averaging, Laplace approximations;
the learned scales integrated out). A surface earns weight only when the labels hold more
evidence for attribute effects than their prior spreads thin; with few labels the
classifier's confidence keeps it honest. (Leave-one-out weights, as :func:`spe.fit` uses
for score models, gave the over-fitted ``surface`` member 0.43 of the weight at 100 labels
on the shared COMPAS file, see the user guide's evidence.) With no labels the
``confidence`` member answers alone: its prior is all there is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .counts import ArmCounts
from .effects import Effects, anova_effects
from .estimate import ArmEstimate
from .laplace import LOG_SD_BOUNDS, LatentLogistic, Mode, Priors
from .realised import realised_accuracy

#: spe's "calibrated" score model prior: the confidence as it is, give or take a little.
CONFIDENCE_PRIORS = Priors(intercept_sd=0.25, slope_sd=0.2)
#: Labels needed before members are weighed by the evidence.
MIN_LABELS_TO_WEIGH = 1


@dataclass(frozen=True)
class MemberSpec:
    priors: Priors
    learn_scales: bool


def member_specs(has_confidence: bool) -> dict:
    if has_confidence:
        return {"confidence": MemberSpec(CONFIDENCE_PRIORS, False),
                "recalibrated": MemberSpec(Priors(), False),
                "surface": MemberSpec(Priors(), True)}
    return {"constant": MemberSpec(Priors(intercept_sd=2.0), False), "surface": MemberSpec(Priors(intercept_sd=2.0), True)}


@dataclass
class Member:
    """One fitted member: its model, mode, and draws of arm predictors and slope."""

    model: LatentLogistic
    mode: Mode
    arm_constant: np.ndarray  # (S, M)
    slope: np.ndarray         # (S,)

    learned: bool = False

    def log_marginal(self) -> float:
        """log p(labels | member), its learned scales integrated out."""
        return self.model.log_marginal(self.mode) if self.learned else self.mode.log_evidence


@dataclass
class SurfaceFit:
    """The pooled surface model.

    Attributes
    ----------
    counts : ArmCounts
    effects : Effects
    members : dict name -> Member
    weights : dict name -> float
        Pooling weights of the members (LOO predictive densities of the labels).
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

    def scales(self, member: str = "surface") -> dict:
        """Standard deviation of each effect group of a member, on the logit scale."""
        names = (*self.effects.group_names, "arm")
        return dict(zip(names, np.exp(self.members[member].mode.log_sd).round(4).tolist()))


def _fit_member(counts, effects, spec: MemberSpec, n_draws, rng) -> Member:
    model = LatentLogistic(counts, effects, spec.priors)
    if spec.learn_scales and counts.n_labeled.sum() > 0:
        mode = model.fit_scales()
    elif spec.learn_scales:  # no labels to learn from: the scales' prior median
        mode = model.mode(np.full(effects.n_groups + 1, np.log(0.674 * spec.priors.scale)))
    else:
        mode = model.mode(np.full(effects.n_groups + 1, LOG_SD_BOUNDS[0]))
    v, e = model.draw(mode, n_draws, rng)
    arm_constant = np.asarray((model.design @ v[:, : model.n_const].T).T) + e
    slope = v[:, -1] if model.with_slope else np.zeros(n_draws)
    return Member(model, mode, arm_constant, slope, learned=spec.learn_scales and counts.n_labeled.sum() > 0)


def member_weights(members: dict, n_labeled: float) -> dict:
    """Posterior model probabilities (equal prior odds); the first member alone without labels."""
    if n_labeled < MIN_LABELS_TO_WEIGH:
        first = next(iter(members))
        return {name: float(name == first) for name in members}
    log_m = np.array([m.log_marginal() for m in members.values()])
    w = np.exp(log_m - log_m.max())
    return dict(zip(members, (w / w.sum()).tolist()))


def fit_surface(counts: ArmCounts, *, pairs: bool = True, n_draws: int = 400,
                rng: np.random.Generator) -> SurfaceFit:
    """Fit the members, weigh them by the labels, and draw every arm's realised accuracy."""
    effects = anova_effects(counts.codes, counts.names, pairs=pairs)
    specs = member_specs(counts.has_confidence)
    members = {name: _fit_member(counts, effects, spec, n_draws, rng) for name, spec in specs.items()}
    weights = member_weights(members, counts.n_labeled.sum())
    names = list(members)
    pick = rng.choice(len(names), size=n_draws, p=np.array([weights[n] for n in names]))
    rows = np.arange(n_draws)
    arm_constant = np.stack([members[n].arm_constant for n in names])[pick, rows]
    slope = np.stack([members[n].slope for n in names])[pick, rows]
    draws = realised_accuracy(counts, arm_constant, slope, rng)
    return SurfaceFit(counts, effects, members, weights, arm_constant, slope, ArmEstimate(draws.mean(0), draws, "spe"))
