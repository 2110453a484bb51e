"""The entry point: :func:`elicit_metric`."""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._util.seeds import child_seeds
from ..exceptions import InconsistentAnswersWarning
from ._diagonal import elicit_diagonal
from ._families import DiagonalLinear, Linear
from ._fractional import elicit_fractional, features
from ._inputs import (as_probabilities, check_classes, check_family, check_positive_int, check_tolerance,
                      recalibrated)
from ._oracles import Asker
from ._posterior import answer_model, diagonal_posterior, fractional_posterior, linear_posterior
from ._radius import sphere_radius
from ._result import ElicitedMetric
from ._space import ConfusionSpace
from ._sphere import elicit_linear

#: Below this radius the sphere of Algorithm 2 is a point: the probabilities carry no signal.
MIN_RADIUS = 1e-9


def _answers(asker, diagonal: bool):
    """(features of first minus second, votes for the first, votes "about the same") per
    question: with repeats, every vote is an observation (a majority would discard how split
    they were)."""
    k = asker.history[0].first.shape[0] if asker.history else 2
    first = np.array([q.first for q in asker.history]).reshape(-1, k, k)
    second = np.array([q.second for q in asker.history]).reshape(-1, k, k)
    votes = np.array([q.n_first for q in asker.history], float)
    same = np.array([q.n_same for q in asker.history], float)
    return features(first, diagonal) - features(second, diagonal), votes, same


def _model(model, asker):
    """The answer model, reading "about the same" answers when the oracle gives them."""
    return model.with_ties() if asker.answers_ties else model


def _last_cycle(searches, q):
    return sorted(searches[-(q - 1):], key=lambda s: s.angle)


def _run(family, space, asker, tol, cycles, radius, model, n_draws):
    """(metric, radius, structure, posterior factory) of one family's algorithm."""
    q = space.q
    if family == "diagonal":
        weights, pairs = elicit_diagonal(space, asker, tol)
        structure = {"pairs": pairs, "searches": [p.upper for p in pairs]}

        def factory(rng):
            diffs, votes, same = _answers(asker, True)
            return diagonal_posterior(pairs, diffs, votes, asker.repeats, _model(model, asker), weights, n_draws, rng,
                                      tol, same), None

        return DiagonalLinear(weights), None, structure, factory
    if family == "diagonal-fractional":
        metric, faces = elicit_fractional(space, asker, tol, diagonal=True)
        structure = {"faces": faces, "searches": [s for f in faces for s in f.searches]}
        # a bisection asks one question per halving: "every answer at random" fits its answers as well as "every
        # answer right", so no lapse is learned from them (the typical one is used)
        return metric, None, structure, lambda rng: fractional_posterior(space, True, faces, min(n_draws, 1000), rng,
                                                                         model.typical_lapse, metric)
    if radius is None:  # every question of both linear families lies on a sphere's lower part
        radius = sphere_radius(space)[0]
    if radius < MIN_RADIUS:
        raise ValueError("the class probabilities leave no room for a sphere of queries around the random "
                         f"classifier (radius {radius:.3g}): they carry no information about the classes")
    if family == "linear":
        weights, theta, searches = elicit_linear(space, radius, asker, tol, cycles)
        structure = {"theta": theta, "searches": searches, "cycles": cycles}

        def factory(rng):
            diffs, votes, same = _answers(asker, False)
            widths = [s.interval[1] - s.interval[0] for s in _last_cycle(searches, q)]
            return linear_posterior(theta, widths, diffs, votes, asker.repeats, _model(model, asker), n_draws, rng,
                                    ties=same), None

        return Linear(weights, space.n_classes), radius, structure, factory
    metric, (spheres, thetas, searches) = elicit_fractional(space, asker, tol, False, radius, cycles)
    half = len(searches) // 2
    groups = (_last_cycle(searches[:half], q), _last_cycle(searches[half:], q))
    structure = {"theta": thetas, "spheres": spheres, "searches": searches, "cycles": cycles}
    return metric, radius, structure, lambda rng: fractional_posterior(space, False, groups, min(n_draws, 1000), rng,
                                                                       model.lapses, metric, spheres)


def elicit_metric(oracle, probs, family="diagonal", tolerance=0.01, labels=None, seed=0, *, classes=None,
                  repeats=1, noise="exact", noise_scale=None, lapse=None, cycles=2, n_draws=4000,
                  radius=None, resolution=0.0, fallback=True) -> ElicitedMetric:
    """Learn the user's performance metric from "which would you rather have?" answers.

    Each question shows two confusion matrices reachable on the user's items and asks the
    ``oracle`` which is better; the answers pin down the metric (Hiranandani et al.,
    *Multiclass Performance Metric Elicitation*), and the metric's best rule for these items.

    Parameters
    ----------
    oracle : callable
        ``oracle(C1, C2) -> bool``: True when confusion matrix C1 (K x K, rows: true class,
        entries summing to 1) is preferred to C2. Any other return raises ``TypeError``.
        Helpers: :func:`spe.elicitation.truthful_oracle`, ``noisy_oracle``,
        ``bradley_terry_oracle``; a person: ``spe elicit``.
    probs : array-like of shape (N, K)
        The classifier's class probabilities on the user's items (binary: K = 2, columns
        [P(class 0), P(class 1)]).
    family : {"diagonal", "linear", "diagonal-fractional", "linear-fractional"}
        ``diagonal``: weighted accuracy (Algorithm 1, at most 4 (K - 1) ceil(log2(1/tol))
        questions). ``linear``: a cost per kind of mistake (Algorithm 2 on a sphere inside
        the reachable matrices, 8 (q - 1) ceil(log2(pi / (2 tol))) questions, q = K(K - 1)).
        ``diagonal-fractional``: F-measure-like ratios of the diagonal (binary: F-beta, ...).
        ``linear-fractional``: ratios of the mistakes (twice the linear questions).
    tolerance : float in (0, 0.5)
        Each search stops when its interval is this narrow.
    labels : array-like of shape (N,), optional
        A few class indices (-1, NaN or None = unlabeled). The questions are then built from
        SPE's recalibrated probabilities (:func:`spe.fit_multiclass`; binary :func:`spe.fit`)
        and :meth:`~spe.elicitation.ElicitedMetric.evaluate` uses that fit.
    seed : int, numpy Generator or None
        Seeds the recalibration fit, the posterior and the evaluation draws.
    classes : list of str, optional
        Class names (shown in summaries).
    repeats : odd int
        Ask each question this many times and take the majority.
    noise, noise_scale, lapse :
        How answers relate to the metric in the posterior
        (:class:`~spe.elicitation.AnswerModel`): ``"exact"``, ``"threshold"``
        (wrong only within ``noise_scale`` = eps_Omega) or ``"bradley-terry"`` (logistic with
        ``noise_scale``), each with a ``lapse`` share of random answers (default None: learned
        from the answers, so inconsistent answers widen the posterior). With a noisy model, or
        "about the same" answers (:data:`~spe.elicitation.ABOUT_THE_SAME`), the reported
        weights of the linear families are the posterior mean (every answer weighed as
        evidence; the searches' own estimate stays in ``search_weights``).
    cycles : int
        Passes over the angles (``linear`` families; the paper's 2).
    n_draws : int
        Posterior draws of the weights (at most 1000 for linear-fractional families).
    radius : float, optional
        The sphere's radius (``linear`` families); default: the certified radius of
        :func:`spe.elicitation.sphere_radius`.
    resolution : float in [0, 1)
        Two outcomes whose cells (those the metric reads) differ by no more than this share of
        the items are not shown; the searches treat them as tied (``m.skipped`` counts them).
        ``spe elicit`` uses 1 item per 1,000.
    fallback : bool
        Unless, under the posterior, the elicited rule beats the classifier's top-1 rule in
        expectation and with probability >= 0.8,
        :meth:`~spe.elicitation.ElicitedMetric.decide` returns the top-1 rule (and the
        summary says so).

    Returns
    -------
    ElicitedMetric

    Examples
    --------
    >>> import numpy as np, spe
    >>> from spe.elicitation import DiagonalLinear, truthful_oracle, paper_probabilities
    >>> probs = paper_probabilities((1, 3, 5), n=2000)
    >>> m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs)
    >>> np.round(m.weights, 2)
    array([0.2, 0.5, 0.3])
    """
    raw = as_probabilities(probs)
    k = raw.shape[1]
    family = check_family(family, k)
    tol = check_tolerance(tolerance)
    names = check_classes(classes, k)
    model = answer_model(noise, noise_scale, lapse)
    cycles, n_draws = check_positive_int(cycles, "cycles"), check_positive_int(n_draws, "n_draws")
    if radius is not None and not (isinstance(radius, numbers.Real) and radius > 0):
        raise ValueError(f"radius must be a number > 0, got {radius!r}")
    asker = Asker(oracle, repeats, resolution)
    fit_seed, result_seed = child_seeds(seed, 2)
    eta, fit = (raw, None) if labels is None else recalibrated(raw, labels, fit_seed)
    space = ConfusionSpace(eta)
    metric, radius, structure, factory = _run(family, space, asker, tol, cycles, radius, model, n_draws)
    out = ElicitedMetric(family=family, metric=metric, classes=names, tolerance=tol, asker=asker,
                         searches=structure["searches"], space=space, raw_probs=raw, fit=fit, radius=radius,
                         model=model, seed=result_seed, posterior_factory=factory, structure=structure,
                         fallback=bool(fallback))
    if (model.kind != "exact" or asker.n_same) and family in ("diagonal", "linear"):
        out.adopt_posterior_mean()
    _warn_if_inconsistent(out)
    return out


def _warn_if_inconsistent(m: ElicitedMetric) -> None:
    rounds, split = m.inconsistent_rounds, m.split_votes
    if not (rounds or split):
        return
    said = []
    if rounds:
        said.append(f"{rounds} round(s) of questions got answers that no {m.family} metric gives (along one path: "
                    "better, then worse, then better again)")
    if split:
        said.append(f"{split} question(s) got different answers when repeated")
    warnings.warn("; ".join(said) + ". The oracle is noisy, or its metric is not of this family. Each search kept "
                  "its first 'worse' answer; the posterior counts every answer under the "
                  f"answer model ({m.answer_model.describe()}). Consider repeats=3, "
                  "noise='threshold' or another family.", InconsistentAnswersWarning, stacklevel=3)
