"""The shared label model of several binary classifiers: candidates stacked by the labels.

The models' scores are all evidence about the same unknown labels. The label posterior
stacks several candidate label models, each fitted to the labels once, with weights from
the leave-one-out predictive densities of the labeled items (pseudo-BMA with the
Bayesian bootstrap, :mod:`spe.pooling`, exactly as :func:`spe.fit` pools its score
models; equal weights with no labels):

* each model's own Bayesian calibration map (:mod:`spe.calibration`, the package's
  default piecewise Platt map under the corpus-learned prior of its score kind,
  :func:`spe.learned.default_prior`, as :func:`spe.fit` uses it); for a model with fewer
  than 3 distinct scores (hard predictions) the share of positives per value
  (:func:`spe.calibration.fit_cells`, ``spe.fit``'s ``model="cells"``);
* the log-linear pool of all models' recalibrated log-odds (:mod:`spe.several`),
  which uses their agreement: models with independent errors together say more about an
  item than any one alone;
* the Gaussian copula of the models' scores given the class (``_joint``), which
  represents their dependence: models that share their errors add little to each other;
* for two or more hard-prediction models, Dawid-Skene's model of their values
  (``_dawid_skene``): conditionally independent given the class, fitted to the labels and
  to the unlabeled items' agreement; the copula then takes the other models;
* each probability model's "calibrated" map (its probabilities taken as nearly right;
  ``calibrated=False`` leaves these out, and so does a map prior that holds the hypothesis
  as a component with a learned share, :func:`holds_calibrated`). Labels drawn from a
  calibrated model's own probabilities do not attenuate the other models the way a map
  learned from 20 labels does.

Neither kind is honest alone. Drawn from one model's map, labels are independent of the
other models' scores given that model's, so a second model with independent information
looks worse than it is. The log-linear pool spends the labels twice (recalibration, then
pool), so alone its intervals are too narrow with few labels; the copula, alone, is
sharper still (docs/user_guide/several.md), and so is Dawid-Skene where the models share
their errors. Stacked, the labels decide how far to trust the agreement. ``benchmarks/ssme_shared.py`` measures the coverage of
the stack and of each kind alone (``label_model=``).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..calibration import MAX_CELLS, NEARLY_CALIBRATED, fit_calibration_map, fit_cells
from ..exceptions import SamplingWarning
from ..learned import default_prior, score_kind
from ..pooling import LabelPosterior, combine
from ._dawid_skene import NAME as DAWID_SKENE_NAME
from ._dawid_skene import fit_dawid_skene
from ._joint import NAME as JOINT_NAME
from ._joint import fit_gaussian_copula
from ._log_linear_pool import NAME as POOL_NAME
from ._log_linear_pool import fit_log_linear_pool, platt_fits

#: Each model's calibration map (the package default) and its number of posterior draws.
MAP_FORM = "spline"
MAP_DRAWS = 1000
LABEL_MODELS = ("stack", "maps", "pool", "joint")
#: The kinds of label model "stack" stacks; a tuple of some of them stacks those only.
KINDS = ("maps", "pool", "joint")
#: Items per block when labels are drawn, so memory stays (draws x block).
_DRAW_CELLS = 4_000_000


class ItemScoreModel:
    """One model's calibration posterior, evaluated at item indices.

    The score-model seam of :mod:`spe.pooling` takes scores; models scored on the
    same items pool through the items themselves, each looking up its own scores.
    """

    def __init__(self, fit, scores):
        self.fit = fit
        self.scores = scores

    @property
    def name(self) -> str:
        return self.fit.name

    @property
    def weights(self) -> np.ndarray:
        return self.fit.weights

    @property
    def n_draws(self) -> int:
        return self.fit.n_draws

    def prob_positive(self, items, draws=None) -> np.ndarray:
        """(M, n) P(y = 1) of the items at indices ``items`` under each draw."""
        return self.fit.prob_positive(self.scores[np.asarray(items, dtype=np.intp)], draws)

    def draws(self) -> dict:
        return self.fit.draws()

    def describe(self) -> dict:
        return self.fit.describe()

    def chain_index(self) -> None:
        return None


def calibrated_name(name) -> str:
    return f"{name} (calibrated)"


def holds_calibrated(map_prior) -> bool:
    """Whether a map prior already holds "the probabilities are right" as a component with
    a learned share (``spe.learn_prior(components=("wide", "calibrated"))``): then the model's
    own map weighs that hypothesis by the share of the corpus' sets it told better, and a
    stacked "calibrated" map beside it would count it twice."""
    return any(name == "calibrated" and weight > 0 for name, weight, _ in map_prior.alternatives)


def stacked_kinds(label_model) -> frozenset:
    """The kinds of label model ``label_model`` stacks: "stack" all of KINDS, one kind's
    name that kind, a tuple or list of kinds those.

    Raises
    ------
    ValueError
        Anything else (an empty tuple, an unknown kind).
    """
    if isinstance(label_model, str):
        if label_model not in LABEL_MODELS:
            raise ValueError(f"label_model must be one of {LABEL_MODELS} or a tuple of {KINDS}, got {label_model!r}")
        return frozenset(KINDS if label_model == "stack" else (label_model,))
    kinds = tuple(label_model) if isinstance(label_model, (tuple, list)) else ()
    if not kinds or not all(isinstance(k, str) and k in KINDS for k in kinds):
        raise ValueError(f"label_model must be one of {LABEL_MODELS} or a tuple of {KINDS}, got {label_model!r}")
    return frozenset(kinds)


def fit_label_model(scores: dict, labels, probabilities: dict, n_draws: int, rngs, kind="stack",
                    calibrated=False, prior: dict | None = None, few_values=()) -> LabelPosterior:
    """Each model's own map and (with two or more models) their log-linear pool and joint
    models, stacked by the labels (see above); ``kind="maps"``, ``"pool"`` or ``"joint"``
    keeps one kind only, a tuple of them (:func:`stacked_kinds`) those.
    ``calibrated``: each probability model with more than MAX_CELLS distinct scores also
    adds its "calibrated" map (the probabilities taken as nearly right) to the maps, unless
    its map prior already holds that hypothesis (:func:`holds_calibrated`).
    ``prior``: {model name: ClassifierPrior}, whose map prior (by the model's score kind) the
    model's own map takes; a model it does not name takes :func:`spe.learned.default_prior`.
    ``few_values``: the models with a few distinct scores (hard predictions): their own map
    is the share of positives per value (:func:`spe.calibration.fit_cells`), which also
    recalibrates them for the pool; the joint model of two or more of them is Dawid-Skene's
    (``_dawid_skene``), of two or more of the others the Gaussian copula."""
    map_rng, pool_rng = rngs
    kinds = stacked_kinds(kind)
    ranked = [name for name in scores if name not in few_values]
    hard = [name for name in scores if name in few_values]
    with_pool = "pool" in kinds and len(scores) > 1
    with_joint = "joint" in kinds and (len(ranked) > 1 or len(hard) > 1)
    with_maps = "maps" in kinds or not (with_pool or with_joint)
    fits, map_priors = ({}, {}) if not with_maps else _own_maps(scores, labels, probabilities, map_rng, prior or {},
                                                                 few_values)
    platt = {} if not (with_pool or with_joint) else platt_fits({m: scores[m] for m in ranked}, labels,
                                                                 probabilities, map_rng)
    if with_pool:
        cells = {m: fits[m].fit if m in fits else _cells_fit(scores[m], labels, map_rng) for m in hard}
        fits[POOL_NAME] = fit_log_linear_pool(scores, labels, probabilities, MAP_DRAWS, map_rng,
                                              platt | cells)
    for name in ranked if calibrated and with_maps else ():
        s = scores[name]
        if probabilities[name] and np.unique(s).size > MAX_CELLS and not holds_calibrated(map_priors[name]):
            fits[calibrated_name(name)] = _item_map(NEARLY_CALIBRATED, s, labels, True, map_rng)
    if with_joint and len(ranked) > 1:  # fitted last, so every other candidate's draws are as without it
        fits[JOINT_NAME] = fit_gaussian_copula({m: scores[m] for m in ranked}, labels, platt, map_rng)
    if with_joint and len(hard) > 1:
        fits[DAWID_SKENE_NAME] = fit_dawid_skene({m: scores[m] for m in hard}, labels, map_rng)
    known = np.flatnonzero(~np.isnan(labels))
    # every labelling counts once, so a lone label model's importance weights are resampled away
    return combine(fits, known, labels[known], n_draws=n_draws, rng=pool_rng).equally_weighted(n_draws, pool_rng)


def _item_map(form, s, labels, is_probability, rng, map_prior=None) -> ItemScoreModel:
    """One calibration map of one model's scores, evaluated at item indices."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        fit = fit_calibration_map(form, s, labels, probabilities=is_probability, n_draws=MAP_DRAWS, rng=rng,
                                  prior=map_prior)
    return ItemScoreModel(fit, s)


def _cells_fit(s, labels, rng):
    """The share of positives at each of a model's few values (hard predictions)."""
    return fit_cells(s, labels, n_draws=MAP_DRAWS, rng=rng)


def _own_maps(scores: dict, labels, probabilities: dict, rng, prior: dict, few_values) -> tuple[dict, dict]:
    """({model: its own map at item indices}, {model: the map prior it took}): a model with
    few distinct scores its share per value, any other its calibration map under the
    corpus-learned map prior of its score kind, as spe.fit takes it (the hand-set
    "calibrated" centre let over-confident models overstate the top, docs/method.md 9)."""
    default = default_prior()
    fits, map_priors = {}, {}
    for name, s in scores.items():
        if name in few_values:
            fits[name] = ItemScoreModel(_cells_fit(s, labels, rng), s)
            continue
        map_priors[name] = prior.get(name, default).map_prior(score_kind(s, probabilities[name]))
        fits[name] = _item_map(MAP_FORM, s, labels, probabilities[name], rng, map_priors[name])
    return fits, map_priors


def draw_labels(model: LabelPosterior, labels, rng) -> np.ndarray:
    """(draws, N) bool labellings, one per pooled draw; labeled items keep their label."""
    n = labels.size
    out = np.empty((model.n_draws, n), dtype=bool)
    step = max(1, _DRAW_CELLS // model.n_draws)
    for start in range(0, n, step):
        items = np.arange(start, min(n, start + step))
        out[:, items] = rng.random((model.n_draws, items.size)) < model.prob_positive(items)
    known = ~np.isnan(labels)
    out[:, known] = labels[known] == 1
    return out
