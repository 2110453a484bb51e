"""Multiclass classifiers: an (N, K) matrix of probabilities (or logits) and a few labels.

Label models, each a small module, each a posterior over P(y_i = k | f_i) from the
classifier's log-probabilities f_ik and the labels:

* ``temperature`` / ``vector`` (:mod:`spe.multiclass`): Bayesian temperature scaling
  (Guo et al. 2017), optionally with a bias per class, and an outlier share for label
  noise; prior centred on "the classifier is calibrated";
* ``top-label`` (:mod:`spe.multiclass`): a piecewise Platt map of the top-1 probability
  (is the predicted class right?) times temperature scaling among the other classes.

The default, ``stack``, weights temperature scaling, the top-label model and (K <= 50)
vector scaling by their leave-one-out predictive densities on the labeled items
(pseudo-BMA with the Bayesian bootstrap, :mod:`spe.pooling`, as :func:`spe.fit` weights
its score models; equal weights with no labels), and each contributes that share of the
draws. Vector scaling is there for label shift: when the classes' shares differ from
those the classifier learned, a calibrated classifier's probabilities need a bias per
class (log of the ratio of shares), which neither a temperature nor the top-label map
has; without it, a class's prevalence interval can miss the truth every time.

Each posterior draw then draws one class for every unlabeled item (Gumbel-max), so the
draws are *coherent*: every item has exactly one class in every draw. Every metric is a
function of those label draws on all N items (labeled items keep their label), so
accuracy, per-class rates, the confusion matrix and one-vs-rest curves agree with each
other draw by draw. Memory is draws x items (one small integer each), never x K.
"""

from __future__ import annotations

import numpy as np

from .._util.seeds import child_generators
from .._util.threads import one_blas_thread
from ..metrics import check_n_draws
from ..pooling import LOO_DRAWS, allocate, stacking_weights
from . import _top_label as top_label
from ._class_maps import fit_class_map
from ..scores import align_on_index
from ._inputs import as_class_labels, as_class_scores, class_names
from ._result import MulticlassResult, describe_weighted

MULTICLASS_MODELS = ("stack", "temperature", "vector", top_label.NAME)
#: The label models the default ``stack`` weighs against each other (vector scaling only
#: while K <= MAX_VECTOR_CLASSES).
STACKED = ("temperature", top_label.NAME, "vector")
#: Vector scaling has K + 1 parameters; importance sampling in more dimensions than this
#: from tens of labels is not trustworthy, so larger K use temperature scaling.
MAX_VECTOR_CLASSES = 50


def fit_label_models(f, y, model: str, n_draws: int, rng) -> dict:
    """The label models ``model`` names (``stack``: all of :data:`STACKED` that fit K), fitted."""
    k = f.shape[1]
    names = tuple(n for n in STACKED if n != "vector" or k <= MAX_VECTOR_CLASSES) if model == "stack" else (model,)
    out = {}
    for name, child in zip(names, child_generators(rng, len(names))):
        if name == top_label.NAME:
            out[name] = top_label.fit_top_label(f, y, n_draws, child)
        else:
            out[name] = fit_class_map(f, y, name, n_draws, child)
    return out


def model_weights(fits: dict, inputs: dict, y, rng) -> dict:
    """Pseudo-BMA weights (Bayesian bootstrap) of the label models' LOO predictive
    densities on the labeled items; equal weights with no labels or one model.
    ``inputs``: each model's own scores (items and classes on the last two axes)."""
    known = y >= 0
    if len(fits) == 1 or not known.any():
        return {name: 1.0 / len(fits) for name in fits}
    log_lik = {name: fit.log_likelihood(inputs[name][..., known, :], y[known], LOO_DRAWS, rng)
               for name, fit in fits.items()}
    return stacking_weights(log_lik, "BB-pseudo-BMA", seed=int(rng.integers(2**31 - 1)))


def draw_classes(fits: dict, weights: dict, inputs: dict, y, n_draws: int, rng) -> np.ndarray:
    """(n_draws, N) coherent labellings, each label model contributing its weight's share;
    labeled items keep their label."""
    out = StackedLabelModel(fits, weights).draw_classes(inputs, n_draws, rng)
    known = y >= 0
    out[:, known] = y[known]
    return out


class StackedLabelModel:
    """Label models mixed by their weights, behaving as one: each member contributes its
    weight's share of the draws. ``f`` is every member's input, or {member: its input}
    when members are fed different scores.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
    >>> res = spe.fit_multiclass(probs, n_draws=100, seed=0)
    >>> from spe.multiclass import StackedLabelModel
    >>> stack = StackedLabelModel(res.fits, res.model_weights)
    >>> stack.draw_classes(np.log(probs), 10, np.random.default_rng(0)).shape
    (10, 100)
    """

    def __init__(self, fits: dict, weights: dict):
        self.fits = fits
        self.weights = weights

    def _members(self, f, n):
        shares = allocate([self.weights[k] for k in self.fits], n)
        return [(fit, f[name] if isinstance(f, dict) else f, share)
                for (name, fit), share in zip(self.fits.items(), shares) if share]

    def log_likelihood(self, f, y, n: int, rng) -> np.ndarray:
        """(n, L) log P(y_i | f_i): each member's equally weighted draws, in its share."""
        return np.concatenate([fit.log_likelihood(x, y, share, rng) for fit, x, share in self._members(f, n)])

    def draw_classes(self, f, n: int, rng) -> np.ndarray:
        return np.concatenate([fit.draw_classes(x, share, rng) for fit, x, share in self._members(f, n)], axis=0)

    def describe(self) -> dict:
        members = describe_weighted(self.fits, self.weights)
        khats = [d["pareto_khat"] for d in members.values() if d["pareto_khat"] is not None]
        return {"model": "stack of " + ", ".join(f"{k} ({w:.2f})" for k, w in self.weights.items()),
                "members": members, "inference": "stacked by LOO predictive densities",
                "pareto_khat": max(khats) if khats else None,
                "ess": float(sum(self.weights[k] * d["ess"] for k, d in members.items()))}


@one_blas_thread
def fit_multiclass(scores, labels=None, *, model="stack", n_draws=1000, seed=None) -> MulticlassResult:
    """Fit a multiclass calibration posterior and draw the unknown classes.

    Parameters
    ----------
    scores : array-like of shape (N, K)
        Predicted class probabilities (rows sum to 1; exact 0s are fine) or logits. A
        pandas DataFrame's index names the items (per-item outputs carry it) and its
        columns name the classes (``res.classes``).
    labels : array-like of shape (N,), optional
        Class indices 0..K-1, or class names (the DataFrame's column names); -1, NaN or
        None for unlabeled. ``None``: no labels. A pandas Series is matched to a pandas
        ``scores`` on its index (any order); arrays and lists by position.
    model : "stack", "temperature", "vector" or "top-label"
        ``stack`` (default): temperature scaling, the top-label model and (K <= 50)
        vector scaling, weighted by their leave-one-out predictive densities on the
        labels. ``temperature``: one parameter; ``vector``: a shared temperature and one
        bias per class (K <= 50);
        ``top-label``: a piecewise Platt map of the top-1 probability, temperature
        scaling among the other classes.
    n_draws : int
        Posterior draws of each map, and labellings of the items drawn from them.
    seed : int, numpy Generator or None
        Seeds every random step.

    Returns
    -------
    MulticlassResult

    Raises
    ------
    InputError
        pandas ``labels`` whose index labels differ from those of ``scores``.
    ValueError
        Class scores that are not an (N, K) matrix of finite probabilities or logits, a
        label that is no class, or an unknown ``model``.

    See Also
    --------
    spe.fit : one score per item (a binary classifier).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import spe
    >>> rng = np.random.default_rng(0)
    >>> probs = pd.DataFrame(rng.dirichlet([1, 1, 1], size=300), columns=["cat", "dog", "fox"])
    >>> labels = pd.Series([None] * 300, dtype=object)
    >>> labels[:30] = probs.iloc[:30].idxmax(axis=1)  # 30 labeled items, by class name
    >>> res = spe.fit_multiclass(probs, labels, n_draws=200, seed=0)
    >>> res.classes
    ['cat', 'dog', 'fox']
    >>> res.to_frame().query("metric == 'recall'")["class"].tolist()
    ['cat', 'dog', 'fox']
    """
    items, scores, labels = align_on_index(scores, labels, names=("the class scores", "labels"))
    f, kind = as_class_scores(scores)
    n, k = f.shape
    classes = class_names(scores, k)
    y = as_class_labels(labels, n, k, classes)
    if model not in MULTICLASS_MODELS:
        raise ValueError(f"model must be one of {MULTICLASS_MODELS}, got {model!r}")
    if model == "vector" and k > MAX_VECTOR_CLASSES:
        raise ValueError(f"vector scaling has K + 1 = {k + 1} parameters; with K > {MAX_VECTOR_CLASSES} "
                         "use model='temperature'")
    n_draws = check_n_draws(n_draws)
    fit_rng, weight_rng, draw_rng = child_generators(seed, 3)
    fits = fit_label_models(f, y, model, n_draws, fit_rng)
    inputs = dict.fromkeys(fits, f)
    weights = model_weights(fits, inputs, y, weight_rng)
    return MulticlassResult(f, y, kind, fits, weights, draw_classes(fits, weights, inputs, y, n_draws, draw_rng),
                            classes=classes, items=items)
