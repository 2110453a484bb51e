"""The one-dimensional search both algorithms run: the best point of a path of confusions.

Along a path t -> C(t) (the upper boundary of a class pair's face, or one angle of the
sphere) the oracle's metric is unimodal (Lemma 2). Each round queries the five points
a < c < d < e < b ("is c better than a? d than c? e than d? b than e?") and keeps the half
of [a, b] that holds the best one (ShrinkInterval, Hiranandani et al. Algorithm 1); rounds
go on while b - a > tolerance, so a search asks at most 4 ceil(log2((hi - lo) / tolerance))
questions.

Two things the paper's population setting does not meet, handled here:

* **Ties.** On finitely many items a range of t (a plateau) gives the *same* matrix. Two
  identical matrices are not shown (the answer carries nothing). When the best sampled
  vertex spans several of the five points, its plateau is computed (not asked) and the
  oracle compares it with the neighbouring vertex on each side: a better neighbour moves
  the search past the plateau (at least a fourfold shrink), none makes the vertex the best
  one, and the search ends on its plateau (which ``_chords`` may bisect).
  Such a round asks up to 3 + 2 questions but saves a round; in a search's last round a
  neighbour question that would exceed the paper's count is not asked, and the bracket
  it would have split is kept. Two matrices that differ only by rounding in what the
  family reads (neighbouring vertices of items with tiny probabilities) are not shown
  either: the two points count as one, tied.
* **Inconsistent answers.** "Better, worse, better" is impossible for a unimodal metric;
  the round is counted (see :attr:`SearchResult.inconsistent`) and the first "worse"
  decides, as in the paper. "About the same, then better" is possible (the metric rises
  slowly, then faster): the search stops at the first "not better" all the same, but such
  a round is not counted as inconsistent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: Matrices (or the cells a family reads) that agree this closely differ by rounding only.
SAME = 1e-12


@dataclass
class Round:
    """One round: the parameters, the pairs compared (indices into ``points``) and the answers.

    ``kind="peak"``: the five points of a search round, answers "is the next one better?";
    ``kind="above"``: one point m and the answer to "is the best point beyond m?" (a step off
    a plateau, or a chord question of ``_chords``).
    """

    points: tuple
    compared: list
    answers: list
    kind: str = "peak"


@dataclass
class SearchResult:
    """Where one search ended: the final interval and its middle (the estimate)."""

    name: str
    lo: float
    hi: float
    interval: tuple
    rounds: list = field(default_factory=list)
    inconsistent: int = 0
    on_plateau: bool = False

    @property
    def estimate(self) -> float:
        return 0.5 * (self.interval[0] + self.interval[1])

    @property
    def n_queries(self) -> int:
        return sum(len(r.answers) for r in self.rounds)


def max_queries(width: float, tolerance: float) -> int:
    """Questions one search asks at most: 4 ceil(log2(width / tolerance))."""
    return 4 * max(0, math.ceil(math.log2(width / tolerance) - 1e-12))


def question_budget(family: str, k: int, tolerance: float, cycles: int = 2) -> int:
    """The most questions a family's algorithm asks (one vote each) for K classes: the
    paper's 4 (K - 1) ceil(log2(1/eps)) (diagonal), 4 T ceil(log2(pi / (2 eps))) with
    T = cycles (q - 1) (linear), twice that (linear-fractional), and half the diagonal
    count for diagonal-fractional (two chord bisections per pair)."""
    q = k * (k - 1)
    per_pair, per_angle = max_queries(1.0, tolerance), max_queries(math.pi / 2, tolerance)
    return {"diagonal": (k - 1) * per_pair, "diagonal-fractional": (k - 1) * per_pair // 2,
            "linear": cycles * (q - 1) * per_angle, "linear-fractional": 2 * cycles * (q - 1) * per_angle}[family]


def _runs(keys) -> list[tuple[int, int]]:
    """Runs of equal consecutive keys as (first index, last index)."""
    out, start = [], 0
    for j in range(1, len(keys) + 1):
        if j == len(keys) or keys[j] != keys[start]:
            out.append((start, j - 1))
            start = j
    return out


def _halve(j: int, t) -> tuple[float, float]:
    """ShrinkInterval: the half of [a, b] that holds the best point when it is point j."""
    if j <= 1:
        return t[0], t[2]
    if j == 2:
        return t[1], t[3]
    return t[2], t[4]


def _compare(path, ask, first_t, second_t, name, worst):
    """Is the point at ``first_t`` better (``worst``: worse) than the one at ``second_t``?
    None, without asking, when the two matrices differ only by rounding in what the family
    reads (``path.features``, e.g. the diagonal; every entry within ``SAME``): nothing
    follows from the answer."""
    first, second = path.confusion(first_t), path.confusion(second_t)
    if not getattr(path, "ask_ties", False) and _too_close(path, ask, first, second):
        return None
    return bool(ask(second, first, name) if worst else ask(first, second, name))


def _gap(path, first, second) -> float:
    """The largest difference between two matrices in what the family reads."""
    view = getattr(path, "features", None) or np.asarray
    return float(np.max(np.abs(view(first) - view(second))))


def _too_close(path, ask, first, second) -> bool:
    """Not worth a question: the same up to rounding, or (an :class:`~spe.elicitation.Asker`
    with a ``resolution``) no cell differs by more than it (counted as skipped)."""
    gap = _gap(path, first, second)
    too_close = getattr(ask, "too_close", None)
    return too_close(gap) if too_close is not None else gap <= SAME


def _groups(runs, answers):
    """Runs joined where the answer between them is a rounding tie (None): (groups as
    (first point, last point), the answers between consecutive groups)."""
    groups, links = [list(runs[0])], []
    for j, answer in enumerate(answers):
        if answer is None:
            groups[-1][1] = runs[j + 1][1]
        else:
            links.append(answer)
            groups.append(list(runs[j + 1]))
    return groups, links


def _step_off_plateau(path, ask, t, group, a, b, name, worst, result, budget):
    """The best sampled vertex (or vertices tied with it) spans several points: ask whether
    the neighbouring vertex on either side is better. Returns (new interval, done): done
    when the group is the best (the interval is then its plateau), or when ``budget`` left
    no question for the left neighbour (the interval is then the bracket left of the
    right neighbour)."""
    s0, s1 = group
    lo, hi = path.plateau(t[s0])[0], path.plateau(t[s1])[1]
    left_end, right_end = (t[s0 - 1] if s0 > 0 else a), (t[s1 + 1] if s1 < 4 else b)
    if _gap(path, path.confusion(t[s0]), path.confusion(t[s1])) > SAME:
        # tied within the asker's resolution, not the same matrix: the best point is somewhere
        # between the neighbouring groups, and closer points would only tie again
        result.on_plateau = True
        return (left_end, right_end), True
    if hi < b:
        if result.n_queries >= budget:
            return (left_end, right_end), True
        right = _compare(path, ask, hi, t[s1], name, worst)
        if right is not None:
            result.rounds.append(Round((hi,), [], [right], kind="above"))
        if right:
            return (hi, right_end), False
    if lo > a:
        if result.n_queries >= budget:
            return (left_end, min(b, hi)), True
        left = _compare(path, ask, np.nextafter(lo, -np.inf), t[s0], name, worst)
        if left is not None:
            result.rounds.append(Round((lo,), [], [not left], kind="above"))
        if left:
            return (left_end, lo), False
    result.on_plateau = True
    return (max(a, lo), min(b, hi)), True


def _contradicts(links) -> bool:
    """A decided "worse" (not "about the same") followed by a "better": no unimodal metric
    answers so. ``links``: (better?, tied?) along the path."""
    worse = [j for j, (better, tie) in enumerate(links) if not better and not tie]
    return bool(worse) and any(better for better, _ in links[worse[0]:])


def search_best(path, ask, tolerance: float, name: str = "", worst: bool = False) -> SearchResult:
    """Binary search for the oracle's best (``worst=True``: worst) point on ``path``.

    ``path`` has ``lo``, ``hi``, ``confusion(t)``, ``key(t)`` (equal keys = the same matrix)
    and ``plateau(t)`` (the interval of t giving the same matrix, half-open: its upper end
    is the next vertex); ``ask(first, second, name)`` returns True when ``first`` is preferred.
    """
    a, b = float(path.lo), float(path.hi)
    result = SearchResult(name, a, b, (a, b))
    budget = max_queries(b - a, tolerance)
    while b - a > tolerance:
        t = (a, (3 * a + b) / 4, (a + b) / 2, (a + 3 * b) / 4, b)
        runs = _runs([path.key(x) for x in t])
        if len(runs) == 1:  # the whole interval is one vertex, so it is the best: nothing to ask
            lo, hi = path.plateau(t[2])
            a, b = max(a, lo), min(b, hi)
            result.on_plateau = True
            break
        compared = [(s1, s0) for (s0, _), (s1, _) in zip(runs, runs[1:])]  # "is the next one better?"
        answers, tied = [], []
        for s1, s0 in compared:
            answers.append(_compare(path, ask, t[s1], t[s0], name, worst))
            tied.append(answers[-1] is False and getattr(ask, "last_tied", False))
        asked = [j for j, answer in enumerate(answers) if answer is not None]
        result.rounds.append(Round(t, [compared[j] for j in asked], [answers[j] for j in asked]))
        groups, links = _groups(runs, answers)
        best = links.index(False) if False in links else len(links)
        if _contradicts([(a, tie) for a, tie in zip(answers, tied) if a is not None]):
            result.inconsistent += 1
        s0, s1 = groups[best]
        if s0 == s1:
            a, b = _halve(s0, t)
            continue
        (a, b), done = _step_off_plateau(path, ask, t, groups[best], a, b, name, worst, result, budget)
        if done:
            break
    result.interval = (a, b)
    return result


def location_log_likelihood(result: SearchResult, grid, lapse: float) -> np.ndarray:
    """log P(this search's answers | the best point is at t), on ``grid``.

    An answer "t_next is better than t_prev" is certain (up to ``lapse``) when the best
    point lies beyond t_next, impossible when it lies before t_prev, and a coin flip in
    between (either answer fits a unimodal metric there); "worse" mirrors it.
    """
    grid = np.asarray(grid, float)
    out = np.zeros(grid.size)
    for rnd in result.rounds:
        if rnd.kind == "above":
            above = grid > rnd.points[0]
            out += np.log(np.where(above == rnd.answers[0], 1 - lapse / 2, lapse / 2))
            continue
        for (s_next, s_prev), better in zip(rnd.compared, rnd.answers):
            t_next, t_prev = rnd.points[s_next], rnd.points[s_prev]
            p_better = np.where(grid >= t_next, 1.0, np.where(grid <= t_prev, 0.0, 0.5))
            p = p_better if better else 1.0 - p_better
            out += np.log(lapse / 2 + (1 - lapse) * p)
    return out
