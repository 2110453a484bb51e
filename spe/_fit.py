"""``spe.fit``: the one entry point. Scores in, :class:`~spe.report.SPEResult` out.

scores -> score models (mixture, Platt) -> pooled label posterior -> result.
"""

from __future__ import annotations

import numpy as np

from ._util.progress import check_show, stage_bar
from ._util.seeds import child_seeds
from ._util.threads import one_blas_thread
from .calibration import (
    MAX_CELLS,
    WEAK_RANKER,
    fit_calibration_map,
    fit_cells,
    fit_weak_ranker,
)
from .exceptions import FitError
from .learned import default_prior, resolve_prior, score_kind
from .metrics import check_n_draws
from .mixture import DEFAULT_PROPOSAL, PROPOSALS, candidate_pairs, fit_mixture
from .pooling import combine, prior_weights, warn_if_contradicted
from .report import SPEResult
from .scores import (
    DEFAULT_MAX_GROUPS,
    ScoreCounts,
    align_on_index,
    as_labels,
    as_scores,
    build_score_data,
    check_orientation,
    count_lazy,
    is_lazy,
    looks_like_probabilities,
    prepare_counts,
)

SCORE_MODELS = ("mixture", "platt", "beta", "spline", "calibrated", "cells", WEAK_RANKER)
CALIBRATION_MAPS = ("platt", "beta", "spline", "calibrated")
MIXTURE_SCALES = ("auto", "identity", "logit", "best")
#: The default pool: the mixture (most from unlabeled scores when its shape is right) and
#: one calibration map (safe when it is not); one map only, since pseudo-BMA would count
#: near-duplicate maps twice against the mixture. Evidence: docs/method.md 2b and the
#: real-score benchmark (docs/user_guide/evidence.md).
DEFAULT_MODELS = ("mixture", "spline")
#: Two distinct values (hard predictions) get the per-value model alone: there is no score
#: shape for the mixture and no continuum for a map.
HARD_MODELS = ("cells",)
#: Up to MAX_CELLS distinct values (a tree's leaves), ``"auto"`` leaves the mixture out: it
#: models a score *density*, and a few atoms are not one (docs/method.md 2c).
FEW_VALUES_MODELS = ("spline",)
#: The mixture needs this many distinct scores to have a shape to fit at all.
MIXTURE_MIN_VALUES = 3
#: Probability scores and no labels: nothing can tell which of the mixture's components
#: is which class, and the classifier's own probabilities are a claim no label has
#: contradicted. ``"auto"`` then fits the map alone, whose prior is centred on those
#: probabilities with the spread of miscalibration seen in practice (Ji et al.'s score
#: prior, widened; docs/method.md 2b).
NO_LABEL_MODELS = ("spline",)
NO_LABEL_NOTE = ("no labels: nothing tells which of its components is which class, so the classifier's own "
                 "probabilities (the map's prior) stand in; label some items and refit")
STACKING_METHODS = ("BB-pseudo-BMA", "stacking")


def _score_models(model, n_values=None, probabilities=False, n_labeled=None, weak=False) -> tuple[str, ...]:
    """The score models to fit; ``n_values``: the number of distinct scores (inf: more than
    the groups hold; None: not read yet, so only the names are checked); ``n_labeled``: the
    labeled items (0: ``"auto"`` takes probability scores at their word, see NO_LABEL_MODELS);
    ``weak``: the prior has a weak ranker, which ``"auto"`` pools with the map."""
    if isinstance(model, str):
        key = model.strip().lower()
        if key == "auto":
            if n_values is not None and n_values < MIXTURE_MIN_VALUES:
                return HARD_MODELS
            if probabilities and n_labeled == 0:
                chosen = NO_LABEL_MODELS
            else:
                chosen = DEFAULT_MODELS if n_values is None or n_values > MAX_CELLS else FEW_VALUES_MODELS
            return chosen + (WEAK_RANKER,) if weak else chosen
        chosen = (key,)
    else:
        try:
            chosen = tuple(str(m).strip().lower() for m in model)
        except TypeError:
            raise TypeError(f"model must be 'auto', a score model name or a list of them, got {model!r}") from None
    unknown = [m for m in chosen if m not in SCORE_MODELS]
    if unknown or not chosen:
        raise ValueError(f"unknown score model {unknown or model!r}; choose 'auto' or from {SCORE_MODELS}")
    if n_values is not None and "mixture" in chosen and n_values < MIXTURE_MIN_VALUES:
        raise ValueError(f"the scores take only {n_values} distinct values: the mixture needs at least "
                         f"{MIXTURE_MIN_VALUES}; use model='cells' (a share of positives per value) or 'auto'")
    if n_values is not None and "calibrated" in chosen and not probabilities:
        raise ValueError("model 'calibrated' (the probabilities taken as nearly right) needs probability "
                         "scores in [0, 1]; for other scores use 'platt', 'beta' or 'spline'")
    if "cells" in chosen and n_values is not None and n_values > MAX_CELLS:
        raise ValueError(f"model='cells' takes scores with at most {MAX_CELLS} distinct values; these have "
                         f"{'more' if np.isinf(n_values) else n_values}")
    return tuple(dict.fromkeys(chosen))


@one_blas_thread
def fit(scores, labels=None, *, model="auto", families="auto", prior=None, score_range=None,
        probabilities=None, mixture_scale="auto", coarsen=True, stacking="BB-pseudo-BMA",
        n_draws=1000, inference="auto", higher_is_positive=True, positive_label=None,
        proposal=DEFAULT_PROPOSAL, seed=None, max_groups=DEFAULT_MAX_GROUPS,
        progress=None) -> SPEResult:
    """Fit score models to all scores and the labels, and draw the labels' posterior.

    Parameters
    ----------
    scores : array-like of shape (N,), a lazy Dask array or Series, or ScoreCounts
        Classifier scores for every item; higher means "more positive". Any real scale.
        A NumPy array or list, or a pandas, polars or pyarrow column (pandas and polars
        are optional and never imported by spe). Data larger than memory: a lazy Dask
        array or dataframe column, counted block by block by :func:`spe.count_dask` (never
        loaded whole), or a :class:`~spe.scores.ScoreCounts` from
        :func:`spe.read_parquet`, :func:`spe.count_dask` or :func:`spe.count_scores`, which
        holds the labels too; per-item outputs (``prob_positive``, ``suggest_labels``) then
        need the items and refuse. A pandas Series' index names the items: per-item
        outputs carry it (``prob_positive()`` a Series, ``suggest_labels()`` index labels).
    labels : array-like of shape (N,), optional
        1/0, True/False, "yes"/"no" (any case), or NaN/None/blank/"NA" for unlabeled
        (nulls of a pandas, polars or pyarrow column too); ``None``: no labels at all. See
        ``positive_label`` for other codings. With lazy scores: a Dask collection chunked
        like them, or an in-memory array (with a Dask array of scores). A pandas Series
        with pandas ``scores`` is matched to them on the index (any order; differing index
        labels are refused); arrays, lists and polars columns by position.
    model : "auto", "mixture", "platt", "beta", "spline", "calibrated", "cells", "weak" or a list of them
        The score models: the SPE score mixture, Bayesian calibration maps (Platt
        scaling, beta calibration and piecewise Platt, with a slope per quartile segment
        of the logit; for probabilities also ``"calibrated"``, Platt with a tight prior at
        "the probabilities are right"; :mod:`spe.calibration`), and a share of
        positives per distinct score value (``"cells"``, at most 20 values;
        :mod:`spe.calibration`), and the weak ranker (``"weak"``: a classifier at chance on
        these items, a slope of either sign on the score's rank;
        :func:`spe.calibration.fit_weak_ranker`). ``"auto"`` fits the mixture and piecewise
        Platt, with the weak ranker at the prior's learned share (docs/method.md 2f), and weights
        them by their leave-one-out predictive densities on the labeled items: the mixture
        earns weight where the scores' shape identifies the classes, the map where it does
        not (see ``docs/method.md``). With no labels nothing can say which mixture
        component is which class: for probability scores ``"auto"`` then fits piecewise
        Platt alone, whose prior is the classifier's own probabilities with the spread of
        miscalibration seen in practice (other scores keep both, weighted by the prior's
        mixture weight for their kind).
        ``["mixture", "spline", "calibrated"]`` adds the hypothesis that the scores are
        calibrated probabilities: better when they are, worse when they are not and the
        labels are too few to say so. Scores with two distinct
        values (hard predictions) get ``"cells"`` alone, scores with 3-20 values
        (a tree's leaves: atoms, not a density for the mixture) ``"spline"`` alone.
    families : "auto", "all", (neg, pos) pair, or list of names
        The mixture's families. ``"auto"`` fits truncated Normal and Gamma for each
        class (Gamma reflected for positives) and keeps the pair with the lowest BIC;
        ``"all"`` tries every family; a pair such as ``("gamma", "truncnorm")`` fixes
        them. Append ``"-reflected"`` to a name to apply it to the reflected score.
    prior : ClassifierPrior, str or dict, optional
        The prior over classifiers the calibration map starts from. Default: the one spe
        ships (:func:`spe.learned.default_prior`), learned across a corpus of real
        classification tasks, a part per score kind (read off the scores,
        :func:`spe.learned.score_kind`), with a small share for classifiers unlike the
        corpus', and the weak ranker's share of the pool (classifiers at chance). A
        :class:`~spe.learned.ClassifierPrior` from :func:`spe.learn_prior` (your own past
        evaluations); the family that scored the items, e.g. ``"naive_bayes"`` or
        ``"GaussianNB"``: its own prior (:func:`spe.learned.classifier_prior`); or
        ``"wide"``: spe 0.2's (no weak ranker). A dict overrides the mixture's priors by
        parameter name instead, e.g. ``{"pi": spe.mixture.priors.Beta(2, 8)}`` (the map
        keeps the default).
    score_range : (lower, upper), optional
        The range scores can take. Default: (0, 1) for probabilities, else the observed
        range padded by 1% each side.
    probabilities : bool, optional
        Whether the scores are probabilities (default: yes when all lie in [0, 1]). The
        calibration maps then work on their logit with a prior centred on "calibrated".
    mixture_scale : "auto", "identity", "logit" or "best"
        The scale the mixture models: ``"auto"`` is the logit for probabilities (where
        probabilities <= 1e-6 or >= 1 - 1e-6 are censored intervals, not points) and the
        score itself otherwise. ``"best"`` (probabilities only) fits both the logit and
        the [0, 1] scale and keeps the one whose marginal misfits the scores less (the
        binned KL divergence does not depend on the scale).
    coarsen : bool
        Price the mixture's misfit to the score distribution by raising its unlabeled
        likelihood to zeta = 1 / (1 + N d), d the measured excess discrepancy
        (:mod:`spe.mixture`). ``False`` gives the plain posterior.
    stacking : "BB-pseudo-BMA" or "stacking"
        How the labeled items weight the score models (ArviZ ``compare``). The default,
        pseudo-BMA with the Bayesian bootstrap, carries the uncertainty of the LOO
        estimates themselves into the weights, which matters with tens of labels
        (Yao et al. 2018); ``"stacking"`` optimises the weights and tends to pick one
        model.
    n_draws : int
        Number of posterior draws (per score model, and pooled).
    inference : "auto", "is" or "emcee"
        Mixture posterior: ``"auto"`` uses importance sampling and falls back to emcee
        when the Pareto k-hat exceeds 0.7.
    proposal : "student_t", "laplace" or "diagonal"
        Importance-sampling proposal around the mixture's MAP.
    seed : int, numpy.random.Generator or None
        Seeds every random step; the same seed gives identical results.
    max_groups : int
        Above this many distinct scores, scores are pooled into fine bins.
    progress : bool or None
        A progress bar over the fitting stages, shown once a fit has run for 2 s:
        ``None`` (default) only at a terminal, ``True`` always, ``False`` never.
    positive_label : optional
        The label value that means positive (e.g. ``"toxic"``); every other non-missing
        value is then negative.
    higher_is_positive : bool
        ``False`` when lower scores mean positive: the scores are reversed (1 - s for
        probabilities, -s otherwise) and every threshold refers to the reversed score.
        When the labels alone say the scores run the wrong way (P(AUROC < 0.5) > 0.95,
        with at least 3 labeled items of each class), ``fit`` refuses and says so.

    Returns
    -------
    SPEResult

    Raises
    ------
    InputError
        pandas ``labels`` whose index labels differ from those of ``scores``.
    ValueError
        Scores that are not finite real numbers with 2 or more distinct values, labels
        that are not labels, a bad option, or labels saying the scores run the wrong way.
    FitError
        No score model could be fitted.

    See Also
    --------
    spe.fit_multiclass : class probabilities of a multiclass classifier.
    spe.fit_many : several classifiers on the same items, compared.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.full(scores.size, np.nan)
    >>> picked = np.random.default_rng(0).choice(scores.size, 30, replace=False)
    >>> labels[picked] = truth[picked]
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> res.to_frame()["metric"].tolist()
    ['prevalence', 'average precision', 'AUROC', 'max F1']
    """
    check_n_draws(n_draws)
    if proposal not in PROPOSALS:
        raise ValueError(f"proposal must be one of {PROPOSALS}, got {proposal!r}")
    if inference not in ("auto", "is", "emcee"):
        raise ValueError(f"inference must be 'auto', 'is' or 'emcee', got {inference!r}")
    if stacking not in STACKING_METHODS:
        raise ValueError(f"stacking must be one of {STACKING_METHODS}, got {stacking!r}")
    models = _score_models(model)  # names checked now, distinct values once the scores are read
    if "mixture" in models:
        candidate_pairs(families)  # refuse a bad family name before any work
    if not isinstance(higher_is_positive, (bool, np.bool_)):
        raise TypeError(f"higher_is_positive must be True or False, got {higher_is_positive!r}")
    if mixture_scale not in MIXTURE_SCALES:
        raise ValueError(f"mixture_scale must be one of {MIXTURE_SCALES}, got {mixture_scale!r}")
    classifier_prior, mixture_prior = _priors(prior)
    items, scores, labels = align_on_index(scores, labels)
    s, in_unit_range, build = _scores_and_builder(scores, labels, higher_is_positive, positive_label)
    if probabilities is None:
        probabilities = in_unit_range
    if probabilities and not in_unit_range:
        raise ValueError("probabilities=True but some scores lie outside [0, 1]")
    if mixture_scale in ("logit", "best") and not in_unit_range:
        raise ValueError(f"mixture_scale={mixture_scale!r} needs probability scores in [0, 1]")
    scales = {"auto": ["logit" if probabilities else "identity"], "best": ["logit", "identity"]}.get(
        mixture_scale, [mixture_scale])

    def prepared(scale):
        frame_range = (0.0, 1.0) if probabilities and score_range is None and scale == "identity" else score_range
        return build(score_range=frame_range, max_groups=max_groups, transform=scale)

    data = prepared(scales[0])
    n_values = data.n_groups if data.exact else np.inf
    weak_prior = classifier_prior.weak_ranker_prior()
    models = _score_models(model, n_values, bool(probabilities), data.n_labeled, weak=weak_prior is not None)
    if WEAK_RANKER in models and weak_prior is None:
        weak_prior = default_prior().weak_ranker_prior()  # a prior learned without one: spe's own
    reference_scores, reference_weights = data.score_distribution()
    kind = score_kind(reference_scores, bool(probabilities), reference_weights)
    map_prior = classifier_prior.map_prior(kind)
    mix_seed, platt_seed, pool_seed, label_seed, export_seed, check_seed = child_seeds(seed, 6)
    with stage_bar(_n_stages(models, scales, families, data), "spe.fit", check_show(progress)) as bar:
        fits, errors = _fit_score_models(
            data, prepared, scales, models, bar, mix_seed, platt_seed, families=families, prior=mixture_prior,
            map_prior=map_prior, weak_prior=weak_prior,
            coarsen=coarsen, n_draws=int(n_draws), inference=inference, proposal=proposal,
            probabilities=bool(probabilities))
        if "mixture" not in models and "mixture" in _score_models(model, n_values, bool(probabilities)):
            errors["mixture"] = NO_LABEL_NOTE  # "auto" leaves it out only for want of labels
        bar.set_postfix_str("pooling the score models")
        pooled = combine(fits, data.labeled_scores, data.labeled_labels, n_draws=int(n_draws),
                         rng=np.random.default_rng(pool_seed), method=stacking,
                         prior_weights=prior_weights(fits, classifier_prior.prior_weight_of_mixture(kind),
                                                     None if weak_prior is None else weak_prior.weight))
        bar.update()
    result = SPEResult(data, pooled, label_seed, export_seed, errors, check_seed,
                       prior_note=classifier_prior.describe(kind, weak_ranker=WEAK_RANKER in models)
                       if "spline" in models else "", items=items)
    warn_if_contradicted(result.label_checks, result.model_weights)
    return result


def _priors(prior):
    """(the prior over classifiers for the calibration map, the mixture's overrides)."""
    if isinstance(prior, dict):
        return default_prior(), prior
    try:
        return resolve_prior(prior), None
    except TypeError:
        raise TypeError("prior must be a ClassifierPrior (spe.learn_prior), 'wide', a classifier family, or a "
                        f"dict of mixture prior overrides, got {prior!r}") from None


def _scores_and_builder(scores, labels, higher_is_positive, positive_label):
    """(scores for the scale checks, whether they lie in [0, 1], builder of the ScoreData)
    from items or from counts, validated here once; lazy Dask scores are counted block by
    block first, never loaded whole."""
    if is_lazy(scores) or is_lazy(labels):
        scores, labels, positive_label = count_lazy(scores, labels, positive_label=positive_label), None, None
    if isinstance(scores, ScoreCounts):
        if labels is not None or positive_label is not None:
            raise ValueError("with ScoreCounts the labels are counted with the scores: pass them to "
                             "count_scores / read_parquet / count_dask, not to fit")
        counts = scores
        if counts.n_items == 0:
            raise ValueError("the score counts are empty: no scores were read")
        in_unit_range = looks_like_probabilities([counts.minimum, counts.maximum])
        if not higher_is_positive:
            counts = counts.reversed_scores(in_unit_range)
        span = np.array([counts.minimum, counts.maximum])
        check_orientation(counts.labeled_scores, counts.labeled_labels)
        return span, in_unit_range, lambda **kw: prepare_counts(counts, **kw)
    s = as_scores(scores)
    in_unit_range = looks_like_probabilities(s)
    if not higher_is_positive:
        s = 1.0 - s if in_unit_range else -s
    labels = as_labels(labels, s.size, positive_label=positive_label)
    check_orientation(s, labels)
    return s, in_unit_range, lambda **kw: build_score_data(s, labels, **kw)


def _n_stages(models, scales, families, data):
    """Stages the progress bar counts: family pairs, refit and sampling per mixture scale,
    one per calibration map, one for pooling."""
    n = 1 + sum(name in models for name in CALIBRATION_MAPS + ("cells", WEAK_RANKER))
    if "mixture" in models:
        for scale in scales:
            n += len(candidate_pairs(families, open_scale=scale == "logit")) + 2
    return n


def _fit_score_models(data, prepared, scales, models, bar, mix_seed, platt_seed, *, families, prior,
                      coarsen, n_draws, inference, proposal, probabilities, map_prior=None, weak_prior=None):
    fits, errors = {}, {}
    if "mixture" in models:
        candidates = []
        for scale in scales:
            try:
                candidates.append(fit_mixture(
                    data if scale == scales[0] else prepared(scale), families=families, prior=prior,
                    coarsen=coarsen, n_draws=n_draws, rng=np.random.default_rng(mix_seed),
                    inference=inference, proposal=proposal, bar=bar,
                ))
            except FitError as exc:
                errors[f"mixture ({scale})"] = str(exc)
        if candidates:
            # KL is invariant under monotone maps of the score: the misfits compare across scales.
            fits["mixture"] = min(candidates, key=lambda f: f.misfit.kl)
        elif len(models) == 1:
            raise FitError("; ".join(errors.values()))
    # Children by position (platt, beta, spline, cells, calibrated): a map added later
    # leaves the others' draws as they were.
    platt_s, beta_s, spline_s, cells_seed, calibrated_s, weak_s = np.random.SeedSequence(platt_seed).spawn(6)
    for name, map_seed in zip(CALIBRATION_MAPS, (platt_s, beta_s, spline_s, calibrated_s)):
        if name in models:
            bar.set_postfix_str(f"{name} calibration map")
            fits[name] = fit_calibration_map(name, data.labeled_scores, data.labeled_labels,
                                             probabilities=probabilities, n_draws=n_draws,
                                             rng=np.random.default_rng(map_seed),
                                             reference=data.score_distribution(),
                                             prior=map_prior if name == "spline" else None)
            bar.update()
    if "cells" in models:
        bar.set_postfix_str("shares per score value")
        fits["cells"] = fit_cells(data.labeled_scores, data.labeled_labels, n_draws=n_draws,
                                  rng=np.random.default_rng(cells_seed),
                                  reference=data.score_distribution())
        bar.update()
    if WEAK_RANKER in models:
        fits[WEAK_RANKER] = fit_weak_ranker(data.labeled_scores, data.labeled_labels, prior=weak_prior,
                                            n_draws=n_draws, rng=np.random.default_rng(weak_s),
                                            reference=data.score_distribution())
        bar.update()
    return fits, errors
