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

#: The elicited rule is used when, under the posterior, it beats the top-1 rule in expectation and
#: with at least this probability. Chosen on 40 random weighted accuracies per noise level (K = 3,
#: the paper's classes, eps_Omega 0.001, 0.01, 0.05; other seeds than the benchmark's): at 1/2 the
#: rule used lost to top-1 in 1 of 40 runs at each level, at 0.8 in none, for a mean gain over
#: top-1 a tenth lower (0.001, 0.01) or higher (0.05) (``python -m benchmarks.elicitation --noise-threshold``).
CONFIDENT = 0.8


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
    rule : ``"elicited"``, or ``"top-1 (fallback)"`` when, under the posterior, the elicited
        rule does not beat the classifier's top-1 rule in expectation and with probability
        0.8 (``rule_values`` holds both): :meth:`decide` then returns the top-1 rule.
    probs : the class probabilities the questions were built from (SPE-recalibrated when
        labels were given); ``fit`` the spe fit that recalibrated them (else None).

    See Also
    --------
    spe.elicit_metric : makes it.

    Examples
    --------
    >>> from spe.elicitation import DiagonalLinear, paper_probabilities, truthful_oracle
    >>> probs = paper_probabilities((1, 3, 5), n=500)
    >>> m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs, n_draws=500)
    >>> m.family, m.rule, m.n_queries <= m.max_queries
    ('diagonal', 'elicited', True)
    >>> m.decide().shape
    (500,)
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
        """Equal-tailed posterior interval (lower, upper) of each weight.

        Examples
        --------
        >>> from spe.elicitation import DiagonalLinear, paper_probabilities, truthful_oracle
        >>> probs = paper_probabilities((1, 3, 5), n=500)
        >>> m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs, n_draws=500)
        >>> lower, upper = m.interval(0.9)
        >>> bool(((lower <= m.weights) & (m.weights <= upper)).all())
        True
        """
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
        fallback: the classifier's own).

        Examples
        --------
        >>> from spe.elicitation import DiagonalLinear, paper_probabilities, truthful_oracle
        >>> probs = paper_probabilities((1, 3, 5), n=500)
        >>> m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs, n_draws=500)
        >>> m.decide([[0.5, 0.3, 0.2], [0.3, 0.4, 0.3]])  # a_i P(i): 0.1, 0.15, 0.06 and 0.06, 0.2, 0.09
        array([1, 1])
        """
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
        rule's expected metric is below the top-1 rule's or it beats it with probability below
        :data:`CONFIDENT`, or when no draw of the posterior is a metric of the family."""
        if not self.fallback:
            return "elicited"
        if not self.posterior.fits:  # the answers fit no metric of the family
            return "top-1 (fallback)"
        v = self.rule_values
        confident = v["elicited"] >= v["top-1"] and v["prob_beats"] >= CONFIDENT
        return "elicited" if confident else "top-1 (fallback)"

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

        Examples
        --------
        >>> from spe.elicitation import DiagonalLinear, paper_probabilities, truthful_oracle
        >>> probs = paper_probabilities((1, 3, 5), n=500)
        >>> m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs, n_draws=500)
        >>> ev = m.evaluate(spe.fit_multiclass(probs, seed=0, n_draws=200))
        >>> ev.rule.lower <= ev.rule.value <= ev.rule.upper, 0 <= ev.prob_beats_argmax <= 1
        (True, True)
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
        """The metric, its intervals, the questions and the rule, in words.

        Examples
        --------
        >>> from spe.elicitation import DiagonalLinear, paper_probabilities, truthful_oracle
        >>> probs = paper_probabilities((1, 3, 5), n=500)
        >>> m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs, n_draws=500)
        >>> print(m.summary())  # doctest: +ELLIPSIS
        Metric elicitation from pairwise comparisons of confusion matrices (Hiranandani et al.)
          family: weighted accuracy (DLPM): sum_i a_i C_ii
        ...
        """
        from ._summary import summary_text

        return summary_text(self, level)

    def to_dict(self, level=0.9, history: bool = True) -> dict:
        """Everything as JSON-ready numbers: the metric, intervals, the rule, the questions."""
        from ._summary import as_dict

        return as_dict(self, level, history)

    def to_records(self, level=0.9, result=None) -> list[dict]:
        """:meth:`to_frame`'s rows as a list of dicts (no pandas needed)."""
        from ._summary import records

        return records(self, level, result)

    def to_frame(self, level=0.9, result=None):
        """The weights and the chosen rule's value as a tidy pandas DataFrame.

        Parameters
        ----------
        level : float, default=0.9
            Level of the equal-tailed intervals.
        result : spe fit, optional
            :func:`spe.fit_multiclass` (binary: :func:`spe.fit`) of these items, for the
            rule's value on them (as :meth:`evaluate`); default: the fit made from
            ``labels``, else the weights' posterior on the class probabilities as given.

        Returns
        -------
        pandas.DataFrame
            One row per weight (``quantity="weight"``, ``name`` from :attr:`weight_names`),
            then three ``quantity="metric"`` rows: the rule :meth:`decide` uses (its ``name``
            says whether it is the elicited rule or the top-1 fallback), the top-1 rule, and
            their difference. Columns ``quantity``, ``name``, ``estimate`` (weights: the
            reported estimate; metric rows: the posterior median), ``lower``, ``upper``,
            ``level``.

        Raises
        ------
        ImportError
            pandas is not installed (:meth:`to_records` gives the same rows as dicts).

        Examples
        --------
        >>> from spe.elicitation import DiagonalLinear, paper_probabilities, truthful_oracle
        >>> probs = paper_probabilities((1, 3, 5), n=500)
        >>> m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs, n_draws=500)
        >>> df = m.to_frame()
        >>> df[["quantity", "name"]].values.tolist()  # doctest: +NORMALIZE_WHITESPACE
        [['weight', '0'], ['weight', '1'], ['weight', '2'], ['metric', 'rule used: elicited'],
         ['metric', 'top-1 rule'], ['metric', 'rule used minus top-1']]
        >>> df.loc[df.quantity == "weight", "estimate"].round(2).tolist()
        [0.2, 0.5, 0.3]
        >>> df.columns.tolist()
        ['quantity', 'name', 'estimate', 'lower', 'upper', 'level']
        """
        from ..report import records_frame

        return records_frame(self.to_records(level, result))

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
