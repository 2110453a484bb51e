"""Oracles: who answers "is confusion matrix C1 better than C2?", and how answers are taken.

An oracle is any callable ``oracle(C1, C2) -> bool`` (True: C1 preferred), for example a
person at a prompt (``spe elicit``), an A/B test, or one of the helpers here, which answer
from a known metric (to test elicitation, or to simulate a user):

* :func:`truthful_oracle`: always right (paper Definition 3);
* :func:`noisy_oracle`: right whenever the two values differ by more than ``eps_omega``,
  and otherwise wrong with probability ``p_wrong`` (paper Definition 7; ``p_wrong=1`` is
  the adversary the guarantees are stated for);
* :func:`bradley_terry_oracle`: prefers C1 with probability 1 / (1 + exp(-(m(C1) - m(C2)) / scale)).

:class:`Asker` is how the algorithms call an oracle: it checks every answer is a boolean
(or :data:`ABOUT_THE_SAME`), asks each question ``repeats`` times and takes the majority (an
odd number of votes), records every question and answer (:class:`Query`), and counts the
questions it did not ask because the two outcomes differ by no more than its ``resolution``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

#: What an oracle returns for "about the same" (a person at ``spe elicit`` types ``s``): the
#: posterior reads it as "the two values differ by less than the person cares about".
ABOUT_THE_SAME = "about the same"
#: Matrices whose cells agree this closely differ by rounding only (not a question, not a skip).
SAME_CELLS = 1e-12


def _metric(metric):
    if not callable(metric):
        raise TypeError(f"an oracle needs a metric: a callable C -> value (e.g. spe.elicitation.DiagonalLinear(a)), "
                        f"got {type(metric).__name__}")
    return metric


def truthful_oracle(metric):
    """An oracle that prefers C1 exactly when ``metric(C1) > metric(C2)``.

    Examples
    --------
    >>> from spe.elicitation import DiagonalLinear, truthful_oracle
    >>> oracle = truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3]))
    """
    metric = _metric(metric)

    def oracle(first, second) -> bool:
        return bool(metric(first) > metric(second))

    oracle.metric = metric
    return oracle


def noisy_oracle(metric, eps_omega: float, p_wrong: float = 0.5, seed=None):
    """Right when ``abs(metric(C1) - metric(C2)) > eps_omega``, else wrong with probability
    ``p_wrong`` (0.5: a coin flip; 1: always wrong, the worst case of Definition 7).

    Examples
    --------
    >>> from spe.elicitation import DiagonalLinear, noisy_oracle
    >>> oracle = noisy_oracle(DiagonalLinear([0.5, 0.5]), eps_omega=0.01, p_wrong=1.0, seed=0)
    >>> oracle(np.diag([0.6, 0.4]), np.diag([0.3, 0.3]))  # values 0.5 and 0.3: far apart, right
    True
    >>> oracle(np.diag([0.6, 0.4]), np.diag([0.59, 0.4]))  # within eps_omega: wrong (p_wrong = 1)
    False
    """
    metric = _metric(metric)
    if not (isinstance(eps_omega, numbers.Real) and eps_omega >= 0):
        raise ValueError(f"eps_omega must be a number >= 0, got {eps_omega!r}")
    if not (isinstance(p_wrong, numbers.Real) and 0 <= p_wrong <= 1):
        raise ValueError(f"p_wrong must be a probability in [0, 1], got {p_wrong!r}")
    rng = np.random.default_rng(seed)

    def oracle(first, second) -> bool:
        diff = float(metric(first) - metric(second))
        right = diff > 0
        if abs(diff) <= eps_omega and rng.random() < p_wrong:
            return not right
        return right

    oracle.metric = metric
    return oracle


def bradley_terry_oracle(metric, scale: float, seed=None):
    """Prefers C1 with probability 1 / (1 + exp(-(metric(C1) - metric(C2)) / scale)).

    Examples
    --------
    >>> from spe.elicitation import DiagonalLinear, bradley_terry_oracle
    >>> oracle = bradley_terry_oracle(DiagonalLinear([0.5, 0.5]), scale=0.01, seed=0)
    >>> sum(oracle(np.diag([0.55, 0.45]), np.diag([0.45, 0.45])) for _ in range(100)) > 90  # 0.05 apart: 99%
    True
    """
    metric = _metric(metric)
    if not (isinstance(scale, numbers.Real) and scale > 0):
        raise ValueError(f"scale must be a number > 0, got {scale!r}")
    rng = np.random.default_rng(seed)

    def oracle(first, second) -> bool:
        diff = float(metric(first) - metric(second))
        return bool(rng.random() < 0.5 * (1.0 + np.tanh(0.5 * diff / scale)))

    oracle.metric = metric
    return oracle


@dataclass
class Query:
    """One question shown to the oracle and its answer: ``votes`` (True: the first, False:
    the second, None: about the same); ``answer``, what the search follows, is True when most
    votes prefer the first (a tie counts as "not better").

    Examples
    --------
    >>> from spe.elicitation import Query
    >>> q = Query(np.diag([0.6, 0.4]), np.diag([0.5, 0.5]), True, (True, None, True), "classes 0 vs 1")
    >>> q.n_first, q.n_same, q.as_dict()["votes"]
    (2, 1, [True, None, True])
    """

    first: np.ndarray
    second: np.ndarray
    answer: bool
    votes: tuple
    search: str

    @property
    def n_first(self) -> int:
        return sum(v is True for v in self.votes)

    @property
    def n_same(self) -> int:
        return sum(v is None for v in self.votes)

    def as_dict(self) -> dict:
        return {"first": self.first.tolist(), "second": self.second.tolist(), "first_preferred": self.answer,
                "votes": [None if v is None else bool(v) for v in self.votes], "search": self.search}


def oracle_name(oracle) -> str:
    return getattr(oracle, "__qualname__", None) or getattr(oracle, "__name__", None) or type(oracle).__name__


def check_repeats(repeats) -> int:
    if isinstance(repeats, bool) or not isinstance(repeats, numbers.Integral) or repeats < 1 or repeats % 2 == 0:
        raise ValueError(f"repeats must be an odd positive integer (a majority needs an odd number of votes), "
                         f"got {repeats!r}")
    return int(repeats)


def check_resolution(resolution) -> float:
    if isinstance(resolution, bool) or not isinstance(resolution, numbers.Real) or not 0 <= resolution < 1:
        raise ValueError(f"resolution (the smallest difference of a cell, as a share of the items, worth a "
                         f"question) must be a number in [0, 1), e.g. 0.001, got {resolution!r}")
    return float(resolution)


class Asker:
    """Puts questions to ``oracle``: validated answers, majority of ``repeats`` votes, history.

    ``resolution``: two outcomes whose cells (those the metric reads) all differ by no more
    than this are not shown; the searches treat them as tied and :attr:`skipped` counts them.
    An oracle with the attribute ``answers_ties = True`` (or one that ever returns
    :data:`ABOUT_THE_SAME`) is one that may say "about the same".

    Examples
    --------
    >>> from spe.elicitation import Asker, DiagonalLinear, truthful_oracle
    >>> ask = Asker(truthful_oracle(DiagonalLinear([0.5, 0.5])), repeats=3)
    >>> ask(np.diag([0.6, 0.4]), np.diag([0.3, 0.3]))
    True
    >>> ask.n_queries, ask.history[0].votes
    (3, (True, True, True))
    """

    def __init__(self, oracle, repeats: int = 1, resolution: float = 0.0):
        if not callable(oracle):
            raise TypeError(f"oracle must be a callable oracle(C1, C2) -> bool, got {type(oracle).__name__}")
        self.oracle = oracle
        self.repeats = check_repeats(repeats)
        self.resolution = check_resolution(resolution)
        self.history: list[Query] = []
        self.skipped = 0
        self.last_tied = False

    @property
    def answers_ties(self) -> bool:
        """Whether the oracle may answer "about the same" (it says so, or it did)."""
        return bool(getattr(self.oracle, "answers_ties", False)) or any(q.n_same for q in self.history)

    def _vote(self, first, second):
        value = self.oracle(first.copy(), second.copy())
        if isinstance(value, str) and value == ABOUT_THE_SAME:
            return None
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"the oracle {oracle_name(self.oracle)!r} returned {value!r} of type "
                            f"{type(value).__name__}; it must return True (the first confusion matrix is "
                            "preferred), False or spe.elicitation.ABOUT_THE_SAME")
        return bool(value)

    def __call__(self, first, second, search: str = "") -> bool:
        votes = tuple(self._vote(first, second) for _ in range(self.repeats))
        answer = 2 * sum(v is True for v in votes) > len(votes)
        self.history.append(Query(np.array(first), np.array(second), answer, votes, search))
        #: the last answer was "not better" because the two were about the same (not a decided "worse")
        self.last_tied = not answer and sum(v is None for v in votes) >= sum(v is False for v in votes)
        return answer

    def too_close(self, gap: float) -> bool:
        """Whether two outcomes whose largest cell difference is ``gap`` go unasked (and
        count as skipped when they are not the same matrix)."""
        if gap <= self.resolution and gap > SAME_CELLS:
            self.skipped += 1
        return gap <= max(self.resolution, SAME_CELLS)

    @property
    def n_queries(self) -> int:
        """Questions put to the oracle, each repeat counted."""
        return len(self.history) * self.repeats

    @property
    def split_votes(self) -> int:
        """Questions whose repeated answers disagreed (one vote for each outcome: "about the
        same" beside a preference is no contradiction)."""
        return sum(True in q.votes and False in q.votes for q in self.history)

    @property
    def n_same(self) -> int:
        """Votes "about the same"."""
        return sum(q.n_same for q in self.history)
