"""Priors for a classifier of a known family: what the user knows about the model they ran.

Classifier families miscalibrate in their own ways (naive Bayes is overconfident, a logistic
regression nearly calibrated), and the scores alone do not tell them apart: GaussianNB's
probabilities and a boosted ensemble's can look alike. A user who knows which family scored
their items can say so, and the map's prior is then the one learned from that family's sets
in the corpus (each centred on the prior learned from every family, so a kind the family
rarely gives stays near it). The default prior averages over the families; a family's own
prior keeps its promises for that family (docs/method.md 2e).
"""

from __future__ import annotations

import functools
import json
from importlib import resources

from ._prior import WIDE, ClassifierPrior, default_prior

FORMAT = "spe.ClassifierPriors"
SHIPPED = "classifier_priors.json"

#: Classifier families with a prior of their own -> the other names they answer to (the
#: scikit-learn estimator the corpus trained, the corpus' short name).
CLASSIFIERS = {
    "logistic_regression": ("LogisticRegression", "logreg"),
    "random_forest": ("RandomForestClassifier", "forest"),
    "gradient_boosting": ("HistGradientBoostingClassifier", "hgb"),
    "naive_bayes": ("GaussianNB", "gnb"),
    "knn": ("KNeighborsClassifier", "k-NN"),
    "mlp": ("MLPClassifier",),
    "svm_rbf": ("SVC", "svc_rbf"),
    "linear_svm": ("LinearSVC", "linear_svc"),
}


def _key(name: str) -> str:
    return "_".join(name.strip().lower().replace("-", " ").split())


_ALIASES = {_key(alias): name for name, aliases in CLASSIFIERS.items() for alias in (name, *aliases)}


def classifier_name(classifier) -> str:
    """The family name (a key of :data:`CLASSIFIERS`) of ``classifier``: a family name, one of
    its aliases (any case; spaces or hyphens for underscores), or a scikit-learn estimator
    or pipeline (its last step's class names it).

    Raises
    ------
    ValueError
        A classifier no shipped prior describes.
    TypeError
        Neither a name nor an estimator.

    Examples
    --------
    >>> from spe.learned import classifier_name
    >>> classifier_name("GaussianNB"), classifier_name("svm_rbf")
    ('naive_bayes', 'svm_rbf')
    """
    if not isinstance(classifier, str):
        steps = getattr(classifier, "steps", None)
        estimator = steps[-1][1] if steps else classifier
        if not hasattr(estimator, "fit"):
            raise TypeError(f"classifier is a family name or a scikit-learn estimator, got {classifier!r}")
        classifier = type(estimator).__name__
    name = _ALIASES.get(_key(classifier))
    if name is None:
        raise ValueError(f"no prior for classifier {classifier!r}; spe has one for {', '.join(CLASSIFIERS)} "
                         "(or pass prior=None for the prior learned across every family)")
    return name


def classifier_prior(classifier) -> ClassifierPrior:
    """The prior learned from the corpus' classifiers of one family (``spe.fit(...,
    prior=...)`` takes it, or the family's name directly).

    Parameters
    ----------
    classifier : str or estimator
        A family of :data:`CLASSIFIERS` or one of its aliases ("GaussianNB", "SVC"), or the
        fitted scikit-learn estimator or pipeline that scored the items.

    Returns
    -------
    ClassifierPrior

    See Also
    --------
    default_prior : the prior learned across every family, for a classifier of another
        or an unknown family.

    Examples
    --------
    >>> import spe
    >>> prior = spe.learned.classifier_prior("naive_bayes")
    >>> "naive Bayes" in prior.source, prior.n_sets["probability"] > 0
    (True, True)
    """
    return classifier_priors()[classifier_name(classifier)]


def resolve_prior(prior) -> ClassifierPrior:
    """The :class:`ClassifierPrior` a ``prior=`` argument names: None (the default prior),
    a ClassifierPrior, ``"wide"`` (spe 0.2's) or a classifier family (:func:`classifier_prior`).

    Examples
    --------
    >>> from spe.learned import resolve_prior
    >>> resolve_prior(None).source.startswith("learned from"), resolve_prior("wide").source[:8]
    (True, 'hand-set')
    """
    if prior is None:
        return default_prior()
    if isinstance(prior, ClassifierPrior):
        return prior
    if isinstance(prior, str):
        return WIDE if prior.strip().lower() == "wide" else classifier_prior(prior)
    raise TypeError(f"prior must be a ClassifierPrior (spe.learn_prior), 'wide' or a classifier family, got {prior!r}")


@functools.lru_cache(maxsize=1)
def classifier_priors() -> dict:
    """Every shipped family's prior, {family: ClassifierPrior} (loaded once).

    Examples
    --------
    >>> import spe
    >>> sorted(spe.learned.classifier_priors()) == sorted(spe.learned.CLASSIFIERS)
    True
    """
    saved = json.loads(resources.files("spe").joinpath("data", SHIPPED).read_text())
    if saved.get("format") != FORMAT:
        raise ValueError(f"spe/data/{SHIPPED} is not a saved set of classifier priors")
    return {name: ClassifierPrior.from_dict(d) for name, d in saved["classifiers"].items()}


def priors_to_dict(priors: dict) -> dict:
    """The saved form of {family: ClassifierPrior} (what ``spe/data/classifier_priors.json`` holds).

    Examples
    --------
    >>> import spe
    >>> saved = spe.learned.priors_to_dict({"naive_bayes": spe.learned.classifier_prior("GaussianNB")})
    >>> saved["format"], list(saved["classifiers"])
    ('spe.ClassifierPriors', ['naive_bayes'])
    """
    unknown = sorted(set(priors) - set(CLASSIFIERS))
    if unknown:
        raise ValueError(f"unknown classifier families {unknown}; choose from {tuple(CLASSIFIERS)}")
    return {"format": FORMAT, "version": 1, "classifiers": {name: p.to_dict() for name, p in priors.items()}}
