"""Priors over classifiers, learned across many labeled sets (empirical Bayes).

How a classifier's scores map to P(y = 1) varies from classifier to classifier; a prior
that describes the classifiers users actually bring is what makes a Bayesian statement
("P(constraint met) = 0.9") hold on average over them. :func:`default_prior` is the one
spe ships, learned across a corpus of real tasks; :func:`learn_prior` learns one from your
own past evaluations; :func:`classifier_prior` is the one learned from a single classifier
family (naive Bayes, an RBF SVM, ...) for a user who knows which family scored the items;
:data:`WIDE` is the hand-set prior of spe 0.2. ``spe.fit(...,
prior=...)`` takes any of them; the score kind (:func:`score_kind`) picks the part that
applies.
"""

from ._classifiers import (
           CLASSIFIERS,
           classifier_name,
           classifier_prior,
           classifier_priors,
           priors_to_dict,
           resolve_prior,
)
from ._kinds import FEW_VALUES, KINDS, PROBABILITY_KINDS, SATURATED_SHARE, score_kind
from ._learn import (
           fit_component_weights,
           fit_hyperprior,
           learn_prior,
           log_evidence,
           set_summary,
)
from ._prior import COMPONENTS, WIDE, ClassifierPrior, component_prior, default_prior

__all__ = ["ClassifierPrior", "learn_prior", "default_prior", "classifier_prior", "classifier_priors",
           "classifier_name", "CLASSIFIERS", "priors_to_dict", "resolve_prior", "WIDE", "KINDS",
           "PROBABILITY_KINDS", "COMPONENTS", "component_prior", "score_kind", "fit_hyperprior",
           "fit_component_weights", "set_summary", "log_evidence", "SATURATED_SHARE", "FEW_VALUES"]
