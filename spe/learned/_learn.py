"""Learning a :class:`ClassifierPrior` from labeled sets: empirical Bayes across classifiers.

Each set (one classifier's scores on one data set, with labels) contributes the likelihood
of its labels under the piecewise-Platt map, summarised as a Gaussian in the map's
parameters (``spe.calibration.likelihood_summary``). For the sets of one score kind the
hyperprior c ~ N(mu_c, sd_c), log slopes ~ N(mu_u, sd_u) with correlation rho is chosen by
maximising the sets' evidence: each set's likelihood integrated against the prior, in
closed form. This is deconvolution (Efron's g-modeling in its Gaussian form): a set with
few labels or separable classes says little about its own parameters, and its broad
likelihood widens the learned prior less than a histogram of point estimates would.
A weak Normal hyperprior on the five hyperparameters, centred on a base prior, keeps a
kind with few sets near that base.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from scipy import optimize

from ..calibration import (
    SHAPE_TERMS,
    MapPrior,
    likelihood_summary,
    score_shape,
    shape_shifts,
)
from ..scores import (
    as_labels,
    as_score_array,
    build_score_data,
    looks_like_probabilities,
)
from ._kinds import KINDS, PROBABILITY_KINDS, score_kind
from ._prior import COMPONENTS, ClassifierPrior, component_prior
from ._weak import learn_weak_ranker, set_aurocs

#: Spread of the hyperprior around the base prior's hyperparameters (means, log sds,
#: atanh of the correlation): weak, so tens of sets overrule it.
HYPER_SD = 1.0
#: The correlation of the slopes is kept inside (RHO_LOW, RHO_HIGH) (a valid covariance).
RHO_LOW, RHO_HIGH = -0.3, 0.95
#: Sets needed before the segments' slopes may differ on average (segment shifts), and
#: before a kind's component weights are learned rather than kept from the base prior.
MIN_SETS_FOR_SHIFTS = 30
#: EM iterations for the map prior's component weights (it stops earlier when they settle).
EM_ITERATIONS = 2000


def _as_pairs(sets):
    """(scores, labels) pairs from pairs or from fitted results (their scores and labels)."""
    for item in sets:
        data = getattr(item, "data", None)
        if data is not None and hasattr(data, "scores"):
            if data.scores is None:
                raise ValueError("a result fitted on counts has no item scores to learn a prior from")
            yield data.scores, data.labels
            continue
        try:
            scores, labels = item
        except (TypeError, ValueError):
            raise TypeError("learn_prior takes (scores, labels) pairs or results of spe.fit") from None
        yield scores, labels


def set_summary(scores, labels, probabilities=None):
    """(kind, h, P) of one labeled set: its score kind and the Gaussian form of the
    piecewise-Platt map's likelihood of its labels; None when the set cannot inform the
    map: fewer than 2 labels of either class, or fewer than 3 distinct scores (hard
    predictions, which ``spe.fit`` models without a map).

    See Also
    --------
    spe.calibration.likelihood_summary, log_evidence

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> sets = []
    >>> for _ in range(5):  # five past evaluations: SVM-like margins, 30% positives, all labeled
    ...     y = (rng.random(300) < 0.3).astype(float)
    ...     sets.append((rng.normal(2.0 * y, 1.0), y))
    >>> from spe.learned import set_summary
    >>> kind, h, P = set_summary(*sets[0])
    >>> kind, h.shape, P.shape  # c and four segment slopes
    ('margin', (5,), (5, 5))
    >>> set_summary([0.0, 1.0, 0.0, 1.0], [0, 1, 0, 1]) is None  # hard predictions
    True
    """
    prepared = _prepared(scores, labels, probabilities)
    return None if prepared is None else prepared[:3]


def _prepared(scores, labels, probabilities):
    """(kind, h, P, the set's ScoreData, the map's features, the scores' shape) of a set that
    can inform the map, or None."""
    s = as_score_array(scores)
    if np.unique(s).size < 3:
        return None
    y = as_labels(labels, s.size)
    known = y[~np.isnan(y)]
    if (known == 1).sum() < 2 or (known == 0).sum() < 2:
        return None
    probabilities = looks_like_probabilities(s) if probabilities is None else bool(probabilities)
    data = build_score_data(s, y)  # s and y validated above
    ref = data.score_distribution()
    kind = score_kind(ref[0], probabilities, ref[1])
    features, h, info = likelihood_summary("spline", data.labeled_scores, data.labeled_labels,
                                           probabilities=probabilities, reference=ref)
    return kind, h, info, data, features, score_shape(features, *ref)


def _unpack(eta, n_segments: int, terms=(), centres=()):
    """Hyperparameters from the optimiser's free vector: c's mean, the slopes' mean, two log
    sds, the slopes' correlation's logit on (RHO_LOW, RHO_HIGH), c's correlation with the
    slopes (its arctanh), n_segments - 1 segment shifts (the last makes them sum to 0), then
    one effect per shape term (at its centre)."""
    mu_c, mu_u, log_sd_c, log_sd_u, z, z_c = eta[:6]
    rho = RHO_LOW + (RHO_HIGH - RHO_LOW) / (1.0 + np.exp(-z))
    free = np.asarray(eta[6:6 + max(n_segments - 1, 0)], float)
    shifts = tuple(np.r_[free, -free.sum()]) if n_segments > 1 else ()
    effects = tuple(zip(terms, eta[eta.size - len(terms):] if terms else (), centres))
    return MapPrior(float(mu_c), float(np.exp(log_sd_c)), float(mu_u), float(np.exp(log_sd_u)), float(rho), shifts,
                    effects, intercept_correlation=float(np.tanh(np.clip(z_c, -5.0, 5.0))))


def _pack(prior: MapPrior, n_segments: int, terms=()) -> np.ndarray:
    share = np.clip((prior.slope_correlation - RHO_LOW) / (RHO_HIGH - RHO_LOW), 1e-3, 1 - 1e-3)
    shifts = prior.shifts_for(n_segments)
    effects = {t: e for t, e, _ in prior.shape_effects}
    return np.r_[prior.c_mean, prior.u_mean, np.log(prior.c_sd), np.log(prior.u_sd), np.log(share / (1 - share)),
                 np.arctanh(prior.intercept_correlation), shifts[:-1] if n_segments > 1 else [],
                 [effects.get(t, 0.0) for t in terms]]


def log_evidence(prior: MapPrior, h: np.ndarray, info: np.ndarray, offsets=None) -> np.ndarray:
    r"""log of the integral of N(u; prior) exp(h'u - u'Pu/2) du, exactly, for a stack of sets
    with the same number of slopes (h: (T, d), info: (T, d, d); ``offsets``: (T, d - 1) shifts
    of each set's log slope means, from the shape of its scores).

    .. math:: \log p_t = -\tfrac12\log|S| - \tfrac12 m_t^\top S^{-1} m_t + \tfrac12 b^\top A^{-1} b
              - \tfrac12 \log|A|, \quad A = S^{-1} + P_t,\; b = S^{-1} m_t + h_t

    See Also
    --------
    fit_hyperprior : maximises its sum over sets.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> sets = []
    >>> for _ in range(5):  # five past evaluations: SVM-like margins, 30% positives, all labeled
    ...     y = (rng.random(300) < 0.3).astype(float)
    ...     sets.append((rng.normal(2.0 * y, 1.0), y))
    >>> from spe.learned import WIDE, log_evidence, set_summary
    >>> summaries = [set_summary(s, y)[1:] for s, y in sets]
    >>> h, P = np.stack([s[0] for s in summaries]), np.stack([s[1] for s in summaries])
    >>> log_evidence(WIDE.map_prior("margin"), h, P).shape  # one per set
    (5,)
    """
    mean, cov = prior.moments(h.shape[1] - 1)
    precision = np.linalg.inv(cov)
    means = np.broadcast_to(mean, h.shape).copy()
    if offsets is not None:
        means[:, 1:] += offsets
    a = precision[None] + info
    b = means @ precision.T + h
    _, logdet_a = np.linalg.slogdet(a)
    _, logdet_cov = np.linalg.slogdet(cov)
    quad = np.einsum("ti,ti->t", b, np.linalg.solve(a, b[..., None])[..., 0])
    prior_quad = np.einsum("ti,ij,tj->t", means, precision, means)
    return -0.5 * logdet_cov - 0.5 * prior_quad + 0.5 * quad - 0.5 * logdet_a


def _shape_terms(shapes) -> tuple[tuple, tuple]:
    """The shape terms enough sets show (at least MIN_SETS_FOR_SHIFTS), and their centres."""
    terms = tuple(t for t in SHAPE_TERMS if sum(t in s for s in shapes) >= MIN_SETS_FOR_SHIFTS)
    return terms, tuple(float(np.mean([s[t] for s in shapes if t in s])) for t in terms)


def _shape_design(shapes, terms, centres, n_slopes: int) -> list[np.ndarray]:
    """Per shape term, each set's log-slope offsets at unit effect, (T, n_slopes): computed
    once, so the evidence's optimiser only scales them by the effects it tries."""
    return [np.stack([shape_shifts(((term, 1.0, centre),), s, n_slopes) for s in shapes])
            for term, centre in zip(terms, centres)]


def fit_hyperprior(summaries, base: MapPrior, shapes=None) -> MapPrior:
    """The map prior maximising the sets' evidence plus a weak hyperprior around ``base``.

    Segment shifts are learned for the most common number of segments (the piecewise map's
    usual four) when at least :data:`MIN_SETS_FOR_SHIFTS` sets have it; with ``shapes``, so
    are the effects of the scores' shape on the slopes (``MapPrior.shape_effects``).

    Parameters
    ----------
    summaries : list of (h, P)
        Each set's :func:`set_summary` without its kind.
    base : spe.calibration.MapPrior
        Centre of the weak hyperprior (sd 1 on the means, the log sds, the correlations'
        logit and the shape effects).
    shapes : list of dict, optional
        Each set's :func:`spe.calibration.score_shape` (None: no shape effects).

    Returns
    -------
    spe.calibration.MapPrior

    See Also
    --------
    learn_prior : does this per score kind.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> sets = []
    >>> for _ in range(5):  # five past evaluations: SVM-like margins, 30% positives, all labeled
    ...     y = (rng.random(300) < 0.3).astype(float)
    ...     sets.append((rng.normal(2.0 * y, 1.0), y))
    >>> from spe.learned import WIDE, fit_hyperprior, set_summary
    >>> learned = fit_hyperprior([set_summary(s, y)[1:] for s, y in sets], WIDE.map_prior("margin"))
    >>> bool(learned.u_sd < WIDE.map_prior("margin").u_sd)  # five alike classifiers: a tighter prior
    True
    """
    shapes = [{}] * len(summaries) if shapes is None else list(shapes)
    by_size = defaultdict(list)
    for (h, info), shape in zip(summaries, shapes):
        by_size[h.size].append((h, info, shape))
    common = max(by_size, key=lambda d: len(by_size[d])) - 1
    n_segments = common if len(by_size[common + 1]) >= MIN_SETS_FOR_SHIFTS else 0
    terms, centres = _shape_terms(shapes)
    stacks = [(np.stack([h for h, _, _ in v]), np.stack([p for _, p, _ in v]),
               _shape_design([s for _, _, s in v], terms, centres, v[0][0].size - 1)) for v in by_size.values()]
    eta0 = _pack(base, n_segments, terms)

    def objective(eta):
        prior = _unpack(eta, n_segments, terms, centres)
        total = 0.0
        for h, p, design in stacks:
            offsets = None
            for (_, effect, _), column in zip(prior.shape_effects, design):
                offsets = (0.0 if offsets is None else offsets) + effect * column
            total += float(log_evidence(prior, h, p, offsets).sum())
        return -(total - 0.5 * np.sum((eta - eta0) ** 2) / HYPER_SD**2)

    best = optimize.minimize(objective, eta0, method="L-BFGS-B", bounds=_BOUNDS[:6] + [(-10.0, 10.0)] * (eta0.size - 6))
    return _unpack(best.x, n_segments, terms, centres)


#: Where the optimiser may look (c's mean, the slopes' mean, two log sds, two correlations'
#: transforms): a few sets of separable classes have evidence that grows without bound as a
#: sd runs to 0 or to infinity, and the covariance must stay invertible.
_BOUNDS = [(-20.0, 20.0), (-10.0, 10.0), (-6.0, 4.0), (-6.0, 4.0), (-10.0, 10.0), (-5.0, 5.0)]


def fit_component_weights(summaries, learned: MapPrior, alternatives: dict, shapes=None) -> dict:
    """The share of sets whose map follows each of ``alternatives`` ({name: MapPrior}) rather
    than ``learned``: the weights of the mixture prior maximising the sets' evidence (EM on
    the mixture proportions, the components held fixed). A tight learned prior serves the
    classifiers it was learned from; each share is how often a set, judged by all its labels,
    is better told by that component.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import MapPrior
    >>> from spe.learned import WIDE, fit_component_weights, set_summary
    >>> rng = np.random.default_rng(0)
    >>> sets = []
    >>> for slope in [1.0] * 16 + [6.0] * 4:  # four sets far steeper than the rest
    ...     x = rng.normal(size=400)
    ...     sets.append((x, (rng.random(400) < 1 / (1 + np.exp(-slope * x))).astype(float)))
    >>> tight = MapPrior(0.0, 0.2, 0.0, 0.1, 0.5)
    >>> weights = fit_component_weights([set_summary(s, y)[1:] for s, y in sets], tight, {"wide": WIDE.maps["margin"]})
    >>> weights  # 4 sets in 20, and a steep-looking draw
    {'wide': 0.25}
    """
    shapes = [{}] * len(summaries) if shapes is None else list(shapes)
    priors = [learned, *alternatives.values()]
    log_z = np.array([[float(log_evidence(prior, h[None], info[None],
                                          shape_shifts(prior.shape_effects, shape, h.size - 1)[None])[0])
                       for prior in priors] for (h, info), shape in zip(summaries, shapes)])
    weights = np.r_[0.8, np.full(len(alternatives), 0.2 / max(len(alternatives), 1))]
    for _ in range(EM_ITERATIONS):
        joint = np.log(weights) + log_z
        responsibility = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
        new = responsibility.mean(axis=0)
        done = np.max(np.abs(new - weights)) < 1e-7
        weights = np.maximum(new, 1e-12)
        if done:
            break
    return {name: round(float(w), 2) for name, w in zip(alternatives, weights[1:])}  # finer is noise


def learn_prior(sets, *, base: ClassifierPrior | None = None, source: str | None = None,
                probabilities=None, components=("wide",), seed=0, min_sets=1) -> ClassifierPrior:
    """Learn a prior over classifiers from labeled sets: your own past evaluations.

    Parameters
    ----------
    sets : iterable
        Labeled sets, each a ``(scores, labels)`` pair (labels 1/0, NaN for unlabeled
        items, which still shape the map's features) or a result of :func:`spe.fit`.
        Sets with fewer than two labeled items of either class are skipped.
    base : ClassifierPrior, optional
        Where a score kind with few sets stays near (default: :func:`default_prior`, the
        prior spe ships); a kind no set informs keeps the base's prior.
    source : str, optional
        How ``summary()`` names the prior (default: the number of sets).
    probabilities : bool, optional
        Whether the scores are probabilities (default: yes when all lie in [0, 1]).
    components : tuple of str, default=("wide",)
        The map prior's components besides the learned one (from
        :data:`spe.learned.COMPONENTS`; "calibrated" applies to probability kinds), each
        with its share of sets learned (:func:`fit_component_weights`); () for the learned
        prior alone.
    seed : int or numpy.random.Generator, default=0
        Seeds the draws of the learned map prior that the weak ranker's share is fitted
        against (:mod:`spe.learned`); the same seed, the same prior.
    min_sets : int, default=1
        A score kind with fewer sets than this keeps the base's map prior, as a kind no set
        informs does (``n_sets`` then gives the base's count): a handful of alike sets
        learn a tight prior that a classifier of another sort would contradict.

    Returns
    -------
    ClassifierPrior
        Pass it to ``spe.fit(..., prior=...)``.

    Raises
    ------
    ValueError
        When no set has two labeled items of each class.
    TypeError
        If ``base`` is not a :class:`ClassifierPrior`.

    See Also
    --------
    default_prior : the prior spe ships, learned the same way on a corpus of real tasks.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> rng = np.random.default_rng(0)
    >>> past = []
    >>> for _ in range(5):
    ...     y = rng.random(300) < 0.3
    ...     past.append((rng.normal(2.0 * y, 1.0), y.astype(float)))
    >>> prior = spe.learn_prior(past)
    >>> prior.n_sets["margin"]
    5
    """
    from ._prior import default_prior

    base = default_prior() if base is None else base
    unknown = sorted(set(components) - set(COMPONENTS))
    if unknown:
        raise ValueError(f"unknown map prior components {unknown}; choose from {COMPONENTS}")
    if not isinstance(base, ClassifierPrior):
        raise TypeError(f"base must be a ClassifierPrior, got {type(base).__name__}")
    per_kind, kept = defaultdict(list), []
    for scores, labels in _as_pairs(sets):
        prepared = _prepared(scores, labels, probabilities)
        if prepared is not None:
            kind, h, info, data, features, shape = prepared
            per_kind[kind].append((h, info, shape))
            kept.append((kind, data, features, shape))
    if not per_kind:
        raise ValueError("no set has two labeled items of each class: nothing to learn a prior from")
    learned = [k for k in KINDS if per_kind[k] and len(per_kind[k]) >= min_sets]
    maps = {k: fit_hyperprior([(h, p) for h, p, _ in per_kind[k]], base.map_prior(k), [s for _, _, s in per_kind[k]])
            if k in learned else base.maps[k] for k in KINDS}
    n_sets = {k: len(per_kind[k]) if k in learned else base.n_sets.get(k, 0) for k in KINDS}
    weights = {k: fit_component_weights([(h, p) for h, p, _ in per_kind[k]], maps[k],
                                        {name: component_prior(name, k) for name in components
                                         if name != "calibrated" or k in PROBABILITY_KINDS},
                                        [s for _, _, s in per_kind[k]])
               if k in learned and len(per_kind[k]) >= MIN_SETS_FOR_SHIFTS else dict(base.component_weights.get(k, {}))
               for k in KINDS}
    source = source or f"learned from {len(kept)} labeled sets (spe.learn_prior)"
    rng = np.random.default_rng(seed)
    weak = learn_weak_ranker([set_aurocs(d.labeled_scores, d.labeled_labels, d.score_distribution(), f,
                                         maps[k].given_shape(shape, f.n_slopes), rng)
                              for k, d, f, shape in kept], base.weak_ranker or None)
    return ClassifierPrior(maps, source, n_sets, mixture_weight=dict(base.mixture_weight), weak_ranker=weak or {},
                           component_weights={k: {n: x for n, x in w.items() if x} for k, w in weights.items()
                                              if any(w.values())})


