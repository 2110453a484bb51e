"""Oracles: who answers "is confusion matrix C1 better than C2?", and how answers are taken.

An oracle is any callable ``oracle(C1, C2) -> bool`` (True: C1 preferred), for example a
person at a prompt (``spe elicit``), an A/B test, or one of the helpers here, which answer
from a known metric (to test elicitation, or to simulate a user):

* :func:`truthful_oracle`: always right (paper Definition 3);
* :func:`noisy_oracle`: right whenever the two values differ by more than ``eps_omega``,
  and otherwise wrong with probability ``p_wrong`` (paper Definition 7; ``p_wrong=1`` is
  the adversary the guarantees are stated for);
* :func:`bradley_terry_oracle`: prefers C1 with probability 1 / (1 + exp(-(m(C1) - m(C2)) / scale)).

:class:`Asker` is how the algorithms call an oracle: it checks every answer is a boolean,
asks each question ``repeats`` times and takes the majority (an odd number of votes), and
records every question and answer (:class:`Query`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np


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
    ``p_wrong`` (0.5: a coin flip; 1: always wrong, the worst case of Definition 7)."""
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
    """Prefers C1 with probability 1 / (1 + exp(-(metric(C1) - metric(C2)) / scale))."""
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
    """One question shown to the oracle and its (majority) answer."""

    first: np.ndarray
    second: np.ndarray
    answer: bool
    votes: tuple
    search: str

    def as_dict(self) -> dict:
        return {"first": self.first.tolist(), "second": self.second.tolist(), "first_preferred": self.answer,
                "votes": [bool(v) for v in self.votes], "search": self.search}


def oracle_name(oracle) -> str:
    return getattr(oracle, "__qualname__", None) or getattr(oracle, "__name__", None) or type(oracle).__name__


def check_repeats(repeats) -> int:
    if isinstance(repeats, bool) or not isinstance(repeats, numbers.Integral) or repeats < 1 or repeats % 2 == 0:
        raise ValueError(f"repeats must be an odd positive integer (a majority needs an odd number of votes), "
                         f"got {repeats!r}")
    return int(repeats)


class Asker:
    """Puts questions to ``oracle``: validated answers, majority of ``repeats`` votes, history."""

    def __init__(self, oracle, repeats: int = 1):
        if not callable(oracle):
            raise TypeError(f"oracle must be a callable oracle(C1, C2) -> bool, got {type(oracle).__name__}")
        self.oracle = oracle
        self.repeats = check_repeats(repeats)
        self.history: list[Query] = []

    def _vote(self, first, second) -> bool:
        value = self.oracle(first.copy(), second.copy())
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"the oracle {oracle_name(self.oracle)!r} returned {value!r} of type "
                            f"{type(value).__name__}; it must return True (the first confusion matrix is "
                            "preferred) or False")
        return bool(value)

    def __call__(self, first, second, search: str = "") -> bool:
        votes = tuple(self._vote(first, second) for _ in range(self.repeats))
        answer = 2 * sum(votes) > len(votes)
        self.history.append(Query(np.array(first), np.array(second), answer, votes, search))
        return answer

    @property
    def n_queries(self) -> int:
        """Questions put to the oracle, each repeat counted."""
        return len(self.history) * self.repeats

    @property
    def split_votes(self) -> int:
        """Questions whose repeated answers disagreed."""
        return sum(len(set(q.votes)) > 1 for q in self.history)
