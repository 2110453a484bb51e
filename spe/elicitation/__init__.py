"""Metric elicitation: learn the user's performance metric from pairwise comparisons.

    >>> m = spe.elicit_metric(oracle, probs, family="diagonal", tolerance=0.01)
    >>> m.weights, m.n_queries, m.decide(probs), m.evaluate(spe.fit_multiclass(probs, labels))

The oracle (a person, or a function) compares two confusion matrices reachable on the
user's items; the answers pin down the metric (Hiranandani et al., *Multiclass Performance
Metric Elicitation*): weighted accuracy (:mod:`~spe.elicitation.diagonal`, Algorithm 1), a
cost per mistake (:mod:`~spe.elicitation.sphere`, Algorithm 2, with the offline radius of
:mod:`~spe.elicitation.radius`) or linear-fractional metrics
(:mod:`~spe.elicitation.fractional`), with a posterior over the weights
(:mod:`~spe.elicitation.posterior`) and the rule's value on the items from an spe fit
(:mod:`~spe.elicitation.evaluation`). Data flow: :mod:`~spe.elicitation.space` (the
reachable matrices) -> :mod:`~spe.elicitation.search` (one-dimensional searches,
:mod:`~spe.elicitation.chords` where the boundary is flat) -> the algorithms ->
:class:`~spe.elicitation.result.ElicitedMetric`.
"""

from .elicit import InconsistentAnswersWarning, elicit_metric
from .evaluation import Evaluation
from .families import FAMILIES, DiagonalLinear, Fractional, Linear, f_beta
from .oracles import Asker, Query, bradley_terry_oracle, noisy_oracle, truthful_oracle
from .posterior import AnswerModel, WeightPosterior
from .result import ElicitedMetric
from .simulate import paper_probabilities, random_metric

__all__ = [
    "elicit_metric", "ElicitedMetric", "Evaluation", "InconsistentAnswersWarning", "FAMILIES", "DiagonalLinear",
    "Linear", "Fractional", "f_beta", "truthful_oracle", "noisy_oracle", "bradley_terry_oracle", "Asker", "Query",
    "AnswerModel", "WeightPosterior", "paper_probabilities", "random_metric",
]
