"""The object :func:`spe.elicit_metric` returns: the metric, how it was found, what it decides."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .._util.seeds import child_seeds
from ..pooling import systematic_resample
from ._evaluation import evaluate_rules, result_size
from ._families import DiagonalLinear, Linear, check_matrix
from ._inputs import as_probabilities
from ._search import question_budget


class ElicitedMetric:
    """Result of :func:`spe.elicit_metric`: the user's metric, from their answers.

    Attributes
    ----------
    family : "diagonal", "linear", "diagonal-fractional" or "linear-fractional".
    metric : the metric object (:class:`~spe.elicitation.DiagonalLinear`,
        :class:`~spe.elicitation.Linear` or
        :class:`~spe.elicitation.Fractional`); ``m(C)`` evaluates it.
    weights : the elicited weights: the searches' estimate (``search_weights``, the paper's
        output) or, with a noisy answer model (``noise="threshold"`` or ``"bradley-terry"``),
        the posterior mean (``estimate`` says which). DLPM: (K,) rewards of each class
        answered right, ||a||_1 = 1. LPM: (K(K - 1),)
        utilities (<= 0, ||a||_2 = 1) of each mistake, row-major off the diagonal
        (``weight_names`` says which); ``cost_matrix()`` shows them as costs.
        Linear-fractional: the weights of the linear metric tangent at the metric's optimum
        (its Bayes rule is the metric's best rule); ``metric.numerator`` / ``denominator``
        hold the canonical metric (0 at the worst reachable matrix, 1 at the best).
    n_queries, history : questions put to the oracle (repeats counted) and each
        :class:`~spe.elicitation.Query` with its answer; ``skipped``: questions not asked
        because the two outcomes differed by no more than the resolution.
    rule : ``"elicited"``, or ``"top-1 (fallback)"`` when the elicited rule's expected metric
        under the posterior is below the classifier's top-1 rule's (``rule_values`` holds
        both): :meth:`decide` then returns the top-1 rule.
    probs : the class probabilities the questions were built from (SPE-recalibrated when
        labels were given); ``fit`` the spe fit that recalibrated them (else None).
    """

    def __init__(self, *, family, metric, classes, tolerance, asker, searches, space, raw_probs, fit, radius,
                 model, seed, posterior_factory, structure, fallback=True):
        self.family, self.metric, self.classes, self.tolerance = family, metric, list(classes), tolerance
        self.asker, self.searches, self.space, self.raw_probs = asker, searches, space, raw_probs
        self.fit, self.radius, self.answer_model, self.structure = fit, radius, model, structure
        self._posterior_factory, self.fallback = posterior_factory, fallback
        # integer seeds, not generators: every evaluate() starts its own generator from the same
        # seed, so it gives the same numbers each call (and summary() the same as evaluate())
        self._posterior_seed, self._evaluate_seed = child_seeds(seed, 2)
        #: the searches' own estimate (the paper's); ``weights`` is it, or the posterior mean
        self.search_weights = None if metric.weights is None else np.array(metric.weights)
        self.estimate = "search"

    def adopt_posterior_mean(self) -> None:
        """Report the posterior mean (renormalised) instead of the searches' estimate: with a
        noisy answer model it uses every answer as evidence, where a search trusts each one."""
        mean = self.posterior.mean()
        if self.family == "diagonal":
            self.metric = DiagonalLinear(mean / mean.sum())
        elif self.family == "linear":
            self.metric = Linear(mean / np.linalg.norm(mean), self.n_classes)
        else:
            raise ValueError("the posterior mean is the reported estimate only for linear families")
        self.estimate = "posterior mean"

    # ---- what was elicited -------------------------------------------------------------
    @property
    def n_classes(self) -> int:
        return self.space.n_classes

    @property
    def weights(self) -> np.ndarray:
        return self.metric.weights

    @property
    def weight_names(self) -> list[str]:
        """What each weight rewards: a class (diagonal families) or a mistake 'true -> predicted'."""
        if self.family.startswith("diagonal"):
            return list(self.classes)
        return [f"{a} -> {b}" for a in self.classes for b in self.classes if a != b]

    @property
    def probs(self) -> np.ndarray:
        return self.space.eta

    @property
    def n_queries(self) -> int:
        return self.asker.n_queries

    @property
    def history(self) -> list:
        return self.asker.history

    @property
    def max_queries(self) -> int:
        """The most questions this family's algorithm asks at this tolerance (repeats counted)."""
        cycles = self.structure.get("cycles", 2)
        return question_budget(self.family, self.n_classes, self.tolerance, cycles) * self.asker.repeats

    @property
    def inconsistent_rounds(self) -> int:
        """Rounds whose answers no metric of the family gives (better, worse, then better again)."""
        return int(sum(s.inconsistent for s in self.structure["searches"]))

    @property
    def split_votes(self) -> int:
        return self.asker.split_votes

    @property
    def skipped(self) -> int:
        """Questions not asked: the two outcomes differed by no more than the resolution."""
        return self.asker.skipped

    @cached_property
    def posterior(self):
        """Weighted draws of the weights (:class:`~spe.elicitation.WeightPosterior`),
        computed on first use."""
        post, metrics = self._posterior_factory(np.random.default_rng(self._posterior_seed))
        self._draw_metrics = metrics
        return post

    def interval(self, level=0.9) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed posterior interval (lower, upper) of each weight."""
        return self.posterior.interval(level)

    # ---- using the metric --------------------------------------------------------------
    def __call__(self, confusion):
        """The metric's value for a (K, K) confusion matrix (rows: true class; entries sum to 1)."""
        return self.metric(check_matrix(confusion, self.n_classes))

    def utility(self) -> np.ndarray:
        """(K, K) reward of predicting column j for true class i; the best rule maximises its
        expectation, sum_i P(y = i) U_ij."""
        return self.metric.utility()

    def cost_matrix(self) -> np.ndarray:
        """(K, K) costs of the rule's decisions, -utility() (0 on the diagonal for linear families)."""
        return -self.utility()

    def elicited_rule(self, probs=None) -> np.ndarray:
        """Each item's class maximising the elicited metric's expected utility."""
        p = self.probs if probs is None else as_probabilities(probs)
        if p.shape[1] != self.n_classes:
            raise ValueError(f"probs has {p.shape[1]} classes; this metric has {self.n_classes}")
        return np.argmax(p @ self.utility(), axis=1)

    def decide(self, probs=None) -> np.ndarray:
        """The rule to use: the metric's best rule (each item's class maximising expected
        utility), or, when :attr:`rule` is the fallback, the top-1 class. ``probs``: (N, K)
        class probabilities; default: the ones the questions were built from (the top-1
        fallback: the classifier's own)."""
        if self.rule == "elicited":
            return self.elicited_rule(probs)
        p = self.raw_probs if probs is None else as_probabilities(probs)
        if p.shape[1] != self.n_classes:
            raise ValueError(f"probs has {p.shape[1]} classes; this metric has {self.n_classes}")
        return np.argmax(p, axis=1)

    @cached_property
    def rule_values(self) -> dict:
        """The metric's posterior expectation on these items (class probabilities ``probs``)
        of the elicited rule and of the classifier's top-1 rule."""
        w, values = self.posterior.weights, {}
        for name, rule in (("elicited", self.elicited_rule()), ("top-1", np.argmax(self.raw_probs, axis=1))):
            values[name] = self._draw_values(self.space.confusion(rule)[None], np.arange(len(w)))
        out = {name: float(w @ v) for name, v in values.items()}
        out["prob_beats"] = float(w @ (values["elicited"] > values["top-1"]))
        return out

    @property
    def rule(self) -> str:
        """``"elicited"``, or ``"top-1 (fallback)"`` when, under the posterior, the elicited
        rule's expected metric is below the top-1 rule's or it beats it with probability < 1/2."""
        if not self.fallback:
            return "elicited"
        v = self.rule_values
        return "elicited" if v["elicited"] >= v["top-1"] and v["prob_beats"] >= 0.5 else "top-1 (fallback)"

    @property
    def threshold(self) -> float | None:
        """Binary only: the rule predicts class 1 when P(class 1) >= threshold."""
        if self.n_classes != 2:
            return None
        if self.rule != "elicited":
            return 0.5
        u = self.utility()
        gain1, gain0 = u[1, 1] - u[1, 0], u[0, 0] - u[0, 1]
        return float(gain0 / (gain0 + gain1)) if gain0 + gain1 > 0 else None

    def evaluate(self, result=None, level=0.9, seed=None):
        """The metric's posterior for the rule (:meth:`decide`) on these items, from an spe
        fit's label draws (each paired with a draw of the weights), beside the classifier's
        top-1 rule, and P(the rule beats it). ``result``: :func:`spe.fit_multiclass` (or,
        binary, :func:`spe.fit`) on these items; default: the fit made from ``labels``.
        ``seed``: of the pairing of draws; default: the elicitation's, so every call (and
        :meth:`summary`) gives the same numbers.

        Returns
        -------
        :class:`~spe.elicitation.Evaluation`
        """
        result = self.fit if result is None else result
        if result is None:
            raise ValueError("evaluate needs an spe fit of these items: pass labels to elicit_metric, or "
                             "evaluate(spe.fit_multiclass(probs, labels)) (binary: spe.fit(probs[:, 1], labels))")
        n, k = result_size(result)
        if (n, k) != self.probs.shape:
            raise ValueError(f"the fit holds {n} items and {k} classes; the metric was elicited on "
                             f"{self.probs.shape[0]} items and {self.n_classes} classes")
        rng = np.random.default_rng(self._evaluate_seed if seed is None else seed)

        def values_of(confusions):
            return self._draw_values(confusions, systematic_resample(self.posterior.weights, len(confusions), rng))

        return evaluate_rules(result, self.decide(), np.argmax(self.raw_probs, axis=1), values_of, level, rng)

    def _draw_values(self, confusions, idx) -> np.ndarray:
        """The metric's value of each confusion matrix (broadcast) under posterior draw ``idx``."""
        post = self.posterior
        confusions = np.broadcast_to(confusions, (len(idx),) + confusions.shape[1:])
        if self._draw_metrics is not None:
            return np.array([self._draw_metrics[i](c) for i, c in zip(idx, confusions)])
        return np.sum(self.metric.features(confusions) * post.draws[idx], axis=1)

    # ---- reporting -----------------------------------------------------------------------
    def summary(self, level=0.9) -> str:
        from ._summary import summary_text

        return summary_text(self, level)

    def to_dict(self, level=0.9, history: bool = True) -> dict:
        """Everything as JSON-ready numbers: the metric, intervals, the rule, the questions."""
        from ._summary import as_dict

        return as_dict(self, level, history)

    def to_frame(self, level=0.9):
        """One row per weight (name, weight, lower, upper) as a pandas DataFrame."""
        import pandas as pd

        lower, upper = self.interval(level)
        return pd.DataFrame({"weight": self.weight_names, "value": self.weights, "lower": lower, "upper": upper})

    def plot_queries(self, ax=None, **kwargs):
        """The questions' path over the query space (see :func:`spe.elicitation.plot_queries`)."""
        from ._plot import plot_queries

        return plot_queries(self, ax, **kwargs)

    def plot_evaluation(self, evaluation=None, ax=None):
        """Posterior of the metric for the elicited rule and the top-1 rule (from :meth:`evaluate`)."""
        from ._plot import plot_evaluation

        return plot_evaluation(self.evaluate() if evaluation is None else evaluation, ax)

    def __repr__(self):
        return (f"<ElicitedMetric {self.family}, {self.n_classes} classes, {self.n_queries} questions; "
                f"call .summary()>")
