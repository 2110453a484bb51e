"""Metric elicitation: learn the user's performance metric from pairwise comparisons.

    >>> from spe.elicitation import DiagonalLinear, paper_probabilities, truthful_oracle
    >>> probs = paper_probabilities((1, 3, 5), n=500)  # a classifier's class probabilities
    >>> oracle = truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3]))  # or a person: ``spe elicit``
    >>> m = spe.elicit_metric(oracle, probs, family="diagonal", tolerance=0.01, n_draws=500)
    >>> np.round(m.weights, 2), m.n_queries <= m.max_queries, m.decide(probs).shape
    (array([0.2, 0.5, 0.3]), True, (500,))
    >>> ev = m.evaluate(spe.fit_multiclass(probs, seed=0, n_draws=200))  # with labels: their fit

The oracle (a person, or a function) compares two confusion matrices reachable on the
user's items; the answers pin down the metric (Hiranandani et al., *Multiclass Performance
Metric Elicitation*): weighted accuracy (``_diagonal``, Algorithm 1), a
cost per mistake (``_sphere``, Algorithm 2, with the offline radius of
``_radius``) or linear-fractional metrics
(``_fractional``), with a posterior over the weights
(``_posterior``) and the rule's value on the items from an spe fit
(``_evaluation``). Data flow: ``_space`` (the
reachable matrices) -> ``_search`` (one-dimensional searches,
``_chords`` where the boundary is flat) -> the algorithms ->
:class:`~spe.elicitation.ElicitedMetric`.
"""

from ..exceptions import InconsistentAnswersWarning
from ._elicit import elicit_metric
from ._evaluation import Evaluation
from ._families import METRIC_FAMILIES, DiagonalLinear, Fractional, Linear, f_beta
from ._oracles import ABOUT_THE_SAME, Asker, Query, bradley_terry_oracle, noisy_oracle, truthful_oracle
from ._posterior import AnswerModel, WeightPosterior
from ._result import ElicitedMetric
from ._simulate import paper_probabilities, random_metric

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._result import question_budget
from ._summary import rule_text

__all__ = [
    "elicit_metric", "ElicitedMetric", "Evaluation", "InconsistentAnswersWarning", "METRIC_FAMILIES", "DiagonalLinear",
    "Linear", "Fractional", "f_beta", "truthful_oracle", "ABOUT_THE_SAME", "noisy_oracle", "bradley_terry_oracle", "Asker", "Query",
    "AnswerModel", "WeightPosterior", "paper_probabilities", "random_metric",
]
