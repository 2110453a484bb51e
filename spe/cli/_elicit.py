"""``spe elicit``: learn your metric by answering "which outcome would you rather have?".

Each question shows two confusion matrices your classifier can reach on your items, as
counts per 1,000 items with the classes named, at the precision that shows how they differ,
and their difference; you answer 1, 2 or s (about the same). Outcomes that differ by no more
than ``--resolution`` counts per 1,000 in every cell the metric reads are not asked about
(the summary counts them). Every answer, with what was displayed, is saved at
once (atomically) to ``--state``, and a later run with the same options replays the saved
answers and carries on (after ``q``, a crash or a kill). At the end it prints the metric,
the decision rule (binary: a threshold), the rule's expected value with an interval (an
spe fit of the items: with ``--label-col`` the labeled one, else one without labels), and
writes them to ``OUT/elicitation.json``.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
from pathlib import Path

import numpy as np

from .._fit import fit
from .._util.state_files import atomic_write, locked
from ..elicitation import ABOUT_THE_SAME, METRIC_FAMILIES, elicit_metric, question_budget, rule_text
from ..exceptions import CLIError, ElicitationStopped
from ..multiclass import fit_multiclass
from ..scores import parse_scores, read_table
from ._common import DefaultsShown, columns, notes, write_json
from ._fit import _class_labels
from ._label import _ask

STATE_VERSION = 2
#: --tolerance's default: spe.elicit_metric's own (one default for the API and the command)
ELICIT_TOLERANCE = inspect.signature(elicit_metric).parameters["tolerance"].default
ANSWERS = {"1": True, "2": False, "s": ABOUT_THE_SAME}
KEYS = {True: "1", False: "2", ABOUT_THE_SAME: "s"}
#: Most decimals a count per 1,000 is shown with.
MAX_DECIMALS = 4


def fingerprint(probs, labels, args) -> str:
    """Identifies the questions a state file's answers belong to (data and options)."""
    h = hashlib.sha256(np.ascontiguousarray(probs, dtype=float).tobytes())
    h.update(b"" if labels is None else np.ascontiguousarray(labels, dtype=np.int64).tobytes())
    h.update(json.dumps([args.family, args.tolerance, args.repeats, args.seed, args.resolution]).encode())
    return h.hexdigest()


def load_answers(state: Path, stamp: str) -> list:
    if not state.exists():
        return []
    saved = None
    try:
        saved = json.loads(state.read_text())
        ok = saved.get("version") == STATE_VERSION
    except (json.JSONDecodeError, AttributeError):
        ok = False
    if not ok:
        if isinstance(saved, dict) and saved.get("version") == 1:
            raise CLIError(f"{state} was written by an older spe elicit (its questions were shown otherwise); "
                           "remove it or pass another --state")
        raise CLIError(f"{state} is not an spe elicit state file; pass another --state")
    if saved.get("fingerprint") != stamp:
        raise CLIError(f"{state} holds answers to the questions of other data or options (--family, --tolerance, "
                       "--repeats, --seed, the labels); remove it or pass another --state")
    return saved["answers"]


def save_answers(state: Path, stamp: str, answers: list) -> None:
    with locked(state):
        atomic_write(state, json.dumps({"version": STATE_VERSION, "fingerprint": stamp, "answers": answers}))


def decimals_for(first, second) -> int:
    """Decimals of the counts per 1,000 that show the largest cell difference with three
    significant digits (at most :data:`MAX_DECIMALS`)."""
    gap = float(np.max(np.abs(np.asarray(first) - np.asarray(second)))) * 1000
    if gap <= 0:
        return MAX_DECIMALS
    return int(min(MAX_DECIMALS, max(0, math.ceil(-math.log10(gap)) + 2)))


def shown(first, second, decimals: int) -> dict:
    """What a question displays: the counts per 1,000 of both outcomes and their difference,
    rounded to ``decimals``."""
    a, b = (np.asarray(c, float) * 1000 for c in (first, second))
    return {"decimals": decimals, "first": np.round(a, decimals).tolist(), "second": np.round(b, decimals).tolist(),
            "difference": np.round(a - b, decimals).tolist()}


def side_by_side(first, second, names, decimals: int = 0) -> str:
    """Two confusion matrices as counts per 1,000 items (``decimals`` places), classes named,
    next to each other, and their difference (outcome 1 minus outcome 2)."""
    view = shown(first, second, decimals)
    width = max(5 + decimals + (decimals > 0), max(map(len, names)) + 1)
    label = max(len("true \\ predicted"), max(map(len, names)))

    def rows(c, sign=""):
        head = "".join(f"{n:>{width}s}" for n in names)
        return [head] + ["".join(f"{v + 0.0:>{sign}{width}.{decimals}f}" for v in row) for row in c]

    blocks = rows(view["first"]), rows(view["second"]), rows(view["difference"], "+")
    block = len(blocks[0][0])
    title = (f"{'':{label}s}   {'outcome 1':^{block}s}     {'outcome 2':^{block}s}     "
             f"{'1 minus 2':^{block}s}")
    lines = [title]
    for i, (a, b, d) in enumerate(zip(*blocks)):
        name = "true \\ predicted" if i == 0 else names[i - 1]
        lines.append(f"{name:<{label}s}   {a}     {b}     {d}")
    return "\n".join(lines)


def make_oracle(saved: list, state: Path, stamp: str, names, ask, limit: int, resolution: float = 1.0):
    """An oracle that replays ``saved`` answers (checking the questions match) and then asks;
    it may answer "about the same" (``s``)."""
    answers = list(saved)
    position = {"next": 0}

    def oracle(first, second) -> bool:
        j = position["next"]
        position["next"] += 1
        if j < len(answers):
            old = answers[j]
            if not (np.allclose(old["first"], first, atol=1e-9) and np.allclose(old["second"], second, atol=1e-9)):
                raise CLIError(f"{state}: saved answer {j + 1} was given to another question (the data or the "
                               "program changed); remove the file or pass another --state")
            return ANSWERS[old["answer"]]
        decimals = decimals_for(first, second)
        gap = float(np.max(np.abs(np.asarray(first) - np.asarray(second)))) * 1000
        print(f"\nquestion {j + 1} (at most {limit}, outcomes within {resolution:g} per 1,000 not asked): "
              "which outcome would you rather have?")
        print(f"counts per 1,000 items (rows: true class, columns: predicted class); the largest difference is "
              f"{gap:.{decimals}f} per 1,000\n")
        print(side_by_side(first, second, names, decimals))
        answer = _ask(ask, "\nwhich is better? [1/2, s = about the same (the difference does not matter to you); "
                           "q = stop, answers so far are saved] ", ANSWERS.get, "1, 2 or s")
        if answer is None:
            raise ElicitationStopped
        answers.append({"first": np.asarray(first).tolist(), "second": np.asarray(second).tolist(),
                        "answer": KEYS[answer], "shown": shown(first, second, decimals)})
        save_answers(state, stamp, answers)
        return answer

    oracle.count = lambda: len(answers)
    oracle.answers_ties = True
    return oracle


def _data(args):
    names = columns(args.prob_cols)
    if len(names) < 2:
        raise CLIError("--prob-cols needs one column per class (2 or more)")
    try:
        table = read_table(args.data)
        probs = np.column_stack([parse_scores(table.column(n), n, table.rows) for n in names])
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    labels = _class_labels(table, args.label_col, names)
    return probs, labels, names


def _evaluation_fit(m, probs, seed):
    """The spe fit the rule is evaluated on: the labeled one, or one without labels."""
    if m.fit is not None:
        return m.fit
    with notes():
        if probs.shape[1] == 2:
            return fit(m.raw_probs[:, 1], seed=seed, progress=False)
        return fit_multiclass(m.raw_probs, seed=seed)


def _report(m, evaluation, out: Path, level: float):
    print(f"\n{m.summary(level)}")
    if m.fit is None:
        print(f"  on these items (no labels: spe's fit without labels; {100 * level:g}% interval):")
        for est in (evaluation.rule, evaluation.argmax):
            print(f"    {est.name:28s} {est.value:.4f} [{est.lower:.4f}, {est.upper:.4f}]")
        print(f"    P(elicited rule beats top-1) {evaluation.prob_beats_argmax:.3f}")
    data = {"metric": m.to_dict(level, history=False), "rule": rule_text(m), "evaluation": evaluation.as_dict()}
    print(f"wrote {write_json(out, 'elicitation.json', data)}")


def run(args, ask=input):
    if args.family not in METRIC_FAMILIES:
        raise CLIError(f"--family must be one of {', '.join(METRIC_FAMILIES)}")
    probs, labels, names = _data(args)
    state = Path(args.state)
    stamp = fingerprint(probs, labels, args)
    saved = load_answers(state, stamp)
    if saved:
        print(f"resuming {state}: {len(saved)} answers so far")
    if not 0 <= args.resolution < 1000:
        raise CLIError("--resolution must be a count per 1,000 in [0, 1000)")
    oracle = make_oracle(saved, state, stamp, names, ask,
                         limit=question_budget(args.family, len(names), args.tolerance) * args.repeats,
                         resolution=args.resolution)
    try:
        with notes():
            m = elicit_metric(oracle, probs, family=args.family, tolerance=args.tolerance, labels=labels,
                              seed=args.seed, classes=names, repeats=args.repeats,
                              resolution=args.resolution / 1000)
    except ElicitationStopped:
        print(f"stopped: {oracle.count()} answers saved in {state}; run the same command to go on")
        return 0
    evaluation = m.evaluate(_evaluation_fit(m, probs, args.seed), level=args.level)
    _report(m, evaluation, Path(args.out), args.level)
    return 0


def add_parser(sub):
    p = sub.add_parser("elicit", help="learn your metric from 'which outcome is better?' answers; resumable",
                       description="Show two confusion matrices your classifier can reach on your items and ask "
                                   "which is better, until the metric is pinned down (Hiranandani et al.); every "
                                   "answer is saved at once to --state, and a later run resumes.",
                       formatter_class=DefaultsShown)
    p.add_argument("data", help="CSV (or Parquet) of the classifier's class probabilities, one row per item")
    p.add_argument("--prob-cols", required=True, help="class-probability columns, one per class (their names are "
                                                      "the class names shown)")
    p.add_argument("--state", required=True, help="JSON file of the answers (created, or resumed if it exists)")
    p.add_argument("--label-col", default=None, help="column with a few known classes (class names or indices; "
                                                     "blank = unknown): questions use SPE-recalibrated probabilities")
    p.add_argument("--family", default="diagonal", choices=METRIC_FAMILIES,
                   help="diagonal: a reward per class answered right; linear: a cost per kind of mistake; "
                        "*-fractional: ratios (F-measure-like)")
    p.add_argument("--tolerance", type=float, default=ELICIT_TOLERANCE,
                   help="each search stops at this width (smaller: more questions, 4 per halving). The default is "
                        "spe.elicit_metric's: at 0.01 the weights land within 0.02 of a consistent person's in "
                        "benchmarks/RESULTS.md, at most 4 (K - 1) x 7 questions for weighted accuracy (56 for 3 "
                        "classes); questions within --resolution are skipped, so fewer are asked. 0.05 asks at most "
                        "4 (K - 1) x 5 for weights within about 0.1")
    p.add_argument("--repeats", type=int, default=1, help="ask each question this many times (odd), majority counts")
    p.add_argument("--resolution", type=float, default=1.0,
                   help="outcomes whose cells (those the metric reads) differ by no more than this many items per "
                        "1,000 are not asked about")
    p.add_argument("--out", default="spe-elicit", help="output folder (elicitation.json)")
    p.add_argument("--level", type=float, default=0.9, help="credible level of the intervals")
    p.add_argument("--seed", type=int, default=0, help="random seed (recalibration, posterior, evaluation)")
    p.set_defaults(func=run)
