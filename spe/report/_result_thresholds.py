"""Choosing a threshold from :class:`~spe.report.SPEResult`'s posterior: the probability
that constraints hold, the threshold that meets them with a stated confidence, and the
best expected F-beta or cost.

Methods of :class:`~spe.report.SPEResult`, bound in its class body (so the API page
lists them with the class): they read the result's ``data``, ``weights`` and ``_rates``
(posterior rates per threshold and draw).
"""

from __future__ import annotations

import numpy as np

from ..metrics import (ThresholdDecision, best_by_score, check_beta, check_constraints, check_costs, check_level,
                       check_thresholds, choose, fbeta, holds, thinned)


def default_thresholds(self) -> np.ndarray:
    """The distinct scores (lowest score of each group), thinned to at most 2000.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> res.default_thresholds().size <= 2000
    True
    """
    return thinned(self.data.threshold)


def condition_probability(self, thresholds=None, *, min_precision=None, min_recall=None,
                          max_fpr=None, kind="sample"):
    """Posterior probability that all constraints hold, per threshold.

    Returns ``(thresholds, probability)`` arrays.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> t, p = res.condition_probability(min_precision=0.8)
    >>> t.shape == p.shape, bool(((p >= 0) & (p <= 1)).all())
    (True, True)
    """
    constraints = check_constraints(min_precision, min_recall, max_fpr)
    t = self.default_thresholds() if thresholds is None else check_thresholds(thresholds)
    return t, self.weights @ holds(self._rates(t, kind), constraints)


def choose_threshold(self, *, min_precision=None, min_recall=None, max_fpr=None,
                     confidence=0.9, kind="sample") -> ThresholdDecision:
    """Pick a threshold meeting the constraints with probability >= ``confidence``.

    See ``_thresholds`` for the rule among feasible thresholds. Infeasible
    constraints give a decision with ``feasible=False`` and the best probability.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> decision = res.choose_threshold(min_precision=0.8, confidence=0.9)
    >>> decision.feasible, decision.probability >= 0.9
    (True, True)
    """
    constraints = check_constraints(min_precision, min_recall, max_fpr)
    confidence = check_level(confidence)
    rates = self._rates(None, kind)
    return choose(rates, self.weights, constraints, confidence, kind)


def best_fbeta_threshold(self, beta=1.0, kind="sample") -> ThresholdDecision:
    """The threshold maximising the posterior expected F-beta.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> res.best_fbeta_threshold(beta=2.0).rule  # doctest: +ELLIPSIS
    'max expected F2 (expected value ...)'
    """
    check_beta(beta)
    rates = self._rates(None, kind)
    return best_by_score(rates, self.weights, fbeta(rates, beta), f"max expected F{beta:g}", kind)


def min_cost_threshold(self, cost_fp=1.0, cost_fn=1.0, kind="sample") -> ThresholdDecision:
    """The threshold minimising expected cost_fp * FP + cost_fn * FN on these items.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> res.min_cost_threshold(cost_fp=1.0, cost_fn=5.0).rule  # doctest: +ELLIPSIS
    'min expected cost (expected value ...)'
    """
    check_costs(cost_fp, cost_fn)
    rates = self._rates(None, kind)
    cost = cost_fp * rates.fp + cost_fn * (rates.n_pos - rates.tp)
    return best_by_score(rates, self.weights, cost, "min expected cost", kind, maximise=False)
