"""``spe label``: label items one at a time, chosen actively, every answer saved at once.

Problems raise ``ValueError`` (a ``StateError`` is one), which ``spe.cli.main`` prints
as one line with exit status 2.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

from .._fit import fit
from ..assessment import (STRATEGIES, Assessor, Identification, bin_groups, class_groups, encode_groups,  # a StateError is a ValueError
                          spe_informed_prior)
from ..scores import MISSING_TOKENS, parse_label, parse_scores, read_table
from ._common import DefaultsShown, read_cost

YES_NO_SHORT = {"y": "yes", "n": "no"}
#: What the next item is chosen for: per-group accuracy (the assessor's Thompson sampling),
#: or a metric of the scores (spe.fit + suggest_labels).
GOALS = ("accuracy", "confusion", "cost", "calibration", "least-accurate", "compare", "pr", "ap", "threshold")
#: Ji et al.'s estimands: each one's default strategy (calibration with --group-col: ts-least-calibrated).
ESTIMAND_STRATEGY = {"accuracy": "ts-estimate", "confusion": "ts-confusion", "cost": "ts-costliest",
                     "calibration": "ts-estimate", "least-accurate": "ts-worst", "compare": "ts-compare"}
#: Goals that label one item from each of the --top groups drawn (multiple-play TS).
TOP_GOALS = ("least-accurate", "cost", "calibration")
#: Goals whose groups are the predicted classes.
CLASS_GOALS = ("confusion", "cost")
#: Equal-width confidence bins of --goal calibration (Ji et al.'s 10).
CONFIDENCE_BINS = 10
#: The assessor's prior per group: SPE-informed (spe.fit on the scores and every answer so
#: far) or uniform. "auto": SPE-informed for binary labels, uniform for class names.
PRIORS = ("auto", "spe", "uniform")


def answer_parser(predicted, extra=()):
    """(canonical predictions, parse(answer) -> stored label or None, hint for the prompt).

    Binary predictions (1/0, true/false, yes/no) take any of those answers, and y/n, and
    store "1"/"0", so "y" is not compared as text with "1". Other predictions are class
    names: an answer must be one of them or of ``extra`` (classes no item is predicted as,
    e.g. a cost matrix's), matched ignoring case.
    """
    parsed = [parse_label(v) for v in predicted]
    if all(p is not None and not np.isnan(p) for p in parsed) and set(map(str, extra)) <= {"0", "1"}:
        canonical = np.array(["1" if p == 1 else "0" for p in parsed])

        def parse(answer):
            value = parse_label(YES_NO_SHORT.get(answer.lower(), answer))
            return None if value is None or np.isnan(value) else ("1" if value == 1 else "0")

        return canonical, parse, "1/y = positive, 0/n = negative"
    classes = sorted(set(map(str, predicted)) | set(map(str, extra)))
    by_lower = {c.lower(): c for c in classes}

    def parse(answer):
        return answer if answer in classes else by_lower.get(answer.lower())

    shown = ", ".join(classes[:8]) + (", ..." if len(classes) > 8 else "")
    return np.array([str(v) for v in predicted]), parse, f"one of: {shown}"


def _existing_labels(table, args, parse):
    """{item: stored label} from --label-col (blank/NA cells = not yet labeled)."""
    cells = table.column(args.label_col)
    out = {}
    for i, cell in enumerate(cells):
        if cell.strip().lower() in MISSING_TOKENS:
            continue
        label = parse(cell.strip())
        if label is None:
            raise ValueError(f"label column {args.label_col!r}, row {table.rows[i]}: {cell!r} is not a label "
                           "these predictions can be compared with")
        out[i] = label
    return out


def _fitted(scores, answers, seed, cache=None):
    """spe.fit on the binary answers so far ("1" = positive); ``cache``: a dict keeping the
    last fit, given back while the answers are unchanged (spe.fit is deterministic)."""
    cache = {} if cache is None else cache
    key = (seed, sorted((int(i), a) for i, a in answers.items()))
    if cache.get("key") != key:
        labels = np.full(scores.size, np.nan)
        for i, answer in answers.items():
            labels[int(i)] = 1.0 if answer == "1" else 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the fit's notes would interrupt every prompt
            cache.update(key=key, fit=fit(scores, labels, seed=seed, progress=False))
    return cache["fit"]


def _suggested(scores, answers, goal, seed, threshold=None, cache=None) -> np.ndarray:
    """The next item for ``goal`` ("pr", "ap", or "threshold": precision and recall at
    ``threshold``): fit spe on the answers so far and ask
    :meth:`~spe.report.SPEResult.suggest_labels` (empty when everything is labeled)."""
    if len(answers) >= scores.size:
        return np.empty(0, dtype=int)
    res = _fitted(scores, answers, seed, cache)
    if goal == "threshold":
        return res.suggest_labels(1, target="threshold", threshold=threshold)
    return res.suggest_labels(1, target=goal)


def _spe_prior(assessor, scores, predicted, seed):
    """Rebuild the assessor's prior from spe.fit on every answer so far; the prior then holds
    those answers and the assessor counts only later ones (no answer is counted twice).
    Its strength per group is earned: what the posterior's own uncertainty supports."""
    res = _fitted(scores, assessor.labels, seed)
    prior = spe_informed_prior(res, assessor.groups, predicted.astype(float), max_strength="group size")
    assessor.set_prior(prior, included=assessor.labels)
    strength = prior.alpha + prior.beta
    print(f"prior: SPE-informed from the scores and {len(assessor.labels)} answers; worth "
          f"{strength.min():.0f}-{strength.max():.0f} labels per group")


def _prior_choice(args, predicted) -> str:
    choice = getattr(args, "prior", "auto")
    binary = set(predicted) <= {"0", "1"}
    if choice == "spe" and not binary:
        raise ValueError("--prior spe needs binary labels (--threshold, or 1/0 predictions), not class names")
    return "spe" if choice == "auto" and binary else ("uniform" if choice == "auto" else choice)


def _confidence(args, table, scores, predicted):
    """The model's probability that its prediction is correct: --confidence-col, else the
    score of a class prediction, or for 1/0 predictions the score (predicted 1) or 1 - score."""
    if getattr(args, "confidence_col", None):
        conf = parse_scores(table.column(args.confidence_col), args.confidence_col, table.rows)
    else:
        conf = np.where(predicted == "0", 1.0 - scores, scores) if set(predicted) <= {"0", "1"} else scores
    if np.any((conf < 0) | (conf > 1)):
        raise ValueError("--goal calibration needs the model's probability that its prediction is correct, in "
                         "[0, 1]: scores that are probabilities, or --confidence-col")
    return conf


def _items(args, table):
    """(scores, ids, predicted, parse, hint, groups, group names, confidence or None) of the table's items."""
    scores = parse_scores(table.column(args.score_col), args.score_col, table.rows)
    ids = np.array(table.column(args.id_col)) if args.id_col else np.arange(scores.size)
    if args.pred_col:
        predicted = np.array(table.column(args.pred_col))
    elif args.threshold is not None:
        predicted = (scores >= args.threshold).astype(int).astype(str)
    else:
        raise ValueError("give --pred-col (the model's prediction) or --threshold (predict 1 when score >= T)")
    goal = getattr(args, "goal", "accuracy")
    extra = read_cost(args.cost)[0] if goal == "cost" and getattr(args, "cost", None) else ()
    predicted, parse, hint = answer_parser(predicted, extra)
    conf = _confidence(args, table, scores, predicted) if goal == "calibration" else None
    if goal in CLASS_GOALS and not args.group_col:
        groups, names = class_groups(predicted)
        names = [str(c) for c in names]
    elif args.group_col:
        groups, names = encode_groups(np.array(table.column(args.group_col)))
    elif goal == "calibration":  # Ji et al.'s Table 5 groups: equal-width confidence bins
        groups, codes = encode_groups(np.minimum((conf * CONFIDENCE_BINS).astype(int), CONFIDENCE_BINS - 1))
        names = [f"conf [{c / CONFIDENCE_BINS:.1f}, {(c + 1) / CONFIDENCE_BINS:.1f}]" for c in codes]
    else:
        groups, edges = bin_groups(scores, args.bins, "mass")
        names = [f"[{edges[i]:.4g}, {edges[i + 1]:.4g}]" for i in range(len(edges) - 1)]
    return scores, ids, predicted, parse, hint, groups, names, conf


def _check_goal(args, predicted) -> str:
    goal = getattr(args, "goal", "accuracy")
    if goal in CLASS_GOALS and args.group_col:
        raise ValueError(f"--goal {goal} groups items by their predicted class; drop --group-col")
    if (goal == "cost") != bool(getattr(args, "cost", None)):
        raise ValueError("--goal cost needs --cost FILE (a CSV cost matrix), and --cost needs --goal cost")
    if goal not in ESTIMAND_STRATEGY and not set(predicted) <= {"0", "1"}:
        raise ValueError(f"--goal {goal} needs binary labels (--threshold, or 1/0 predictions), not class names")
    if goal == "threshold" and args.threshold is None:
        raise ValueError("--goal threshold needs --threshold (the score at which items are predicted positive)")
    return goal


def _strategy(args, goal, names, conf=None) -> tuple[str, dict]:
    """The assessor's strategy and its options: ``--strategy``, else the estimand's own."""
    own = "ts-least-calibrated" if goal == "calibration" and args.group_col else ESTIMAND_STRATEGY.get(goal)
    strategy = getattr(args, "strategy", None) or own or "ts-estimate"
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown --strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
    options = {}
    if goal in TOP_GOALS and not 1 <= args.top <= len(names):
        raise ValueError(f"--top must be between 1 and the number of groups ({len(names)}), got {args.top}")
    if goal == "cost":
        options = dict(zip(("classes", "cost"), read_cost(args.cost)))
    if conf is not None:
        options = {"confidence": conf}
    if goal == "compare" or strategy == "ts-compare":
        pair = getattr(args, "compare", None)
        if not pair:
            raise ValueError("--goal compare needs --compare GROUP1 GROUP2 (two group names)")
        unknown = [g for g in pair if g not in names]
        if unknown:
            raise ValueError(f"--compare: {unknown} are not groups; groups are {names[:8]}")
        options = {"compare": (names.index(pair[0]), names.index(pair[1])), "rope": args.rope}
    return strategy, options


def _open_session(args, state, groups, predicted, ids, existing, strategy=("ts-estimate", {})) -> Assessor:
    """The session in ``state`` (resumed, or new), with the table's known labels added."""
    if state.exists():
        assessor = Assessor.load(state, groups, predicted, ids)
        print(f"resuming {state}: {len(assessor.labels)} answers so far")
    else:
        assessor = Assessor(groups, predicted, strategy=strategy[0], item_ids=ids, seed=args.seed, **strategy[1])
    new = {i: lab for i, lab in existing.items() if i not in assessor.labels}
    for i, lab in new.items():
        assessor.update(i, lab)
    if new:
        print(f"loaded {len(new)} existing labels from column {args.label_col!r}")
    return assessor


def _ask(ask, prompt, parse, hint):
    """The parsed answer, asking again until it is one; None when the user quits."""
    while True:
        try:
            answer = ask(prompt).strip()
        except EOFError:
            answer = "q"
        if answer.lower() in ("q", "quit", "exit"):
            return None
        label = parse(answer)
        if label is not None:
            return label
        said = "no answer" if not answer else f"{answer!r} is not an answer"
        print(f"  {said}: type {hint}, or q to quit")


def _print_estimand(args, assessor, names, goal):
    """The answer to ``goal`` (Ji et al.'s other estimands), after the accuracies."""
    if goal in ("calibration", "cost"):
        _print_calibration(args, assessor, names) if goal == "calibration" else _print_cost(args, assessor)
    elif goal == "confusion":
        conf = assessor.confusion()
        print("confusion matrix, P(true class | predicted) (posterior mean [90%]), predicted -> true:")
        for k, pred in enumerate(conf["classes"]):
            cells = [f"{t}: {conf['mean'][j, k]:.3f} [{conf['lower'][j, k]:.3f}, {conf['upper'][j, k]:.3f}]"
                     for j, t in enumerate(conf["classes"]) if conf["mean"][j, k] >= 0.01 or j == k]
            print(f"  {pred} -> " + "; ".join(cells))
    elif goal == "least-accurate":
        ident = assessor.least_accurate(m=args.top)
        print(f"the {args.top} least accurate group(s): " + ", ".join(
            f"{names[g]} (P(among them) {ident.prob_top[g]:.2f}, rank {ident.rank_lower[g] + 1}-"
            f"{ident.rank_upper[g] + 1})" for g in ident.top))
    elif goal == "compare":
        g1, g2 = (names.index(g) for g in args.compare)
        c = assessor.compare(g1, g2, epsilon=args.rope)
        print(f"{names[g1]} minus {names[g2]}: {c.difference:+.3f} [90% {c.lower:+.3f}, {c.upper:+.3f}]; "
              f"P(below, equivalent, above) = {', '.join(f'{v:.2f}' for v in c.probabilities)} "
              f"(ROPE +/-{c.epsilon:g})")


def _print_calibration(args, assessor, names):
    ece = assessor.calibration_error()
    o, per = ece.overall, ece.per_group
    print(f"expected calibration error ({CONFIDENCE_BINS} confidence bins; posterior median [90%]): "
          f"{o['median']:.4f} [{o['lower']:.4f}, {o['upper']:.4f}]; per group:")
    conf = np.bincount(assessor.groups, weights=assessor.strategy_options["confidence"]) / assessor.sizes
    for g, name in enumerate(names):
        print(f"  {name}: ECE {per['median'][g]:.4f} [{per['lower'][g]:.4f}, {per['upper'][g]:.4f}], "
              f"mean confidence {conf[g]:.3f}")
    if args.group_col:
        ident = assessor.least_calibrated(m=args.top)
        print(f"the {args.top} least calibrated group(s): " + ", ".join(
            f"{names[g]} (P(among them) {ident.prob_top[g]:.2f})" for g in ident.top))


def _print_cost(args, assessor):
    got = assessor.expected_cost(assessor.strategy_options["cost"])
    cols = np.unique(assessor.group_columns())  # the predicted classes (a class never predicted costs nothing)
    print("expected cost per predicted class (posterior mean [90%]):")
    for k in cols:
        print(f"  {got['classes'][k]}: {got['mean'][k]:.4g} [{got['lower'][k]:.4g}, {got['upper'][k]:.4g}]")
    ident = Identification.from_draws(got["draws"][:, cols], m=args.top, lowest=False)
    print(f"the {args.top} costliest predicted class(es): " + ", ".join(
        f"{got['classes'][cols[g]]} (P(among them) {ident.prob_top[g]:.2f})" for g in ident.top))


def _print_results(args, assessor, state, names, scores, goal, cache=None):
    acc = assessor.accuracy()
    print(f"{len(assessor.labels)} answers saved in {state}; accuracy per group (posterior mean [90%]):")
    for g, name in enumerate(names):
        print(f"  {name}: {acc['mean'][g]:.3f} [{acc['lower'][g]:.3f}, {acc['upper'][g]:.3f}]")
    print(f"  overall (size-weighted): {acc['overall']:.3f}")
    if goal in ESTIMAND_STRATEGY:
        _print_estimand(args, assessor, names, goal)
        return
    if goal != "accuracy":
        res = _fitted(scores, assessor.labels, args.seed, cache)
        ap = res.average_precision()
        print(f"average precision of the scores (spe.fit): {ap.value:.3f} [{ap.lower:.3f}, {ap.upper:.3f}]")
        if goal == "threshold":
            at = res.metrics_at(args.threshold)
            print("at threshold {:g} (spe.fit): ".format(args.threshold) + ", ".join(
                f"{k} {at[k].value:.3f} [{at[k].lower:.3f}, {at[k].upper:.3f}]" for k in ("precision", "recall")))


def run(args, ask=input):
    """Interactive labeling: pick the next item actively, save after every answer."""
    table = read_table(args.data)
    scores, ids, predicted, parse, hint, groups, names, conf = _items(args, table)
    goal = _check_goal(args, predicted)
    existing = _existing_labels(table, args, parse) if args.label_col else {}
    if table.blank_rows:
        print(f"spe: note: {table.blank_note()}", file=sys.stderr)
    state = Path(args.state)
    assessor = _open_session(args, state, groups, predicted, ids, existing, _strategy(args, goal, names, conf))
    if _prior_choice(args, predicted) == "spe" and goal in ESTIMAND_STRATEGY and goal not in CLASS_GOALS:
        _spe_prior(assessor, scores, predicted, args.seed)
    assessor.save(state)
    asked, last_fit = 0, {}  # last_fit: quitting after a suggestion reuses its fit for the results
    queue = []  # TOP_GOALS: one item from each of the --top groups drawn (multiple-play TS)
    while args.max is None or asked < args.max:
        if goal in ESTIMAND_STRATEGY:
            queue = [i for i in queue if i not in assessor.labels] or list(
                assessor.next_items(getattr(args, "top", 1) if goal in TOP_GOALS else 1))
            nxt = np.array(queue[:1], dtype=np.int64)
        else:
            nxt = _suggested(scores, assessor.labels, goal, args.seed, args.threshold, last_fit)
        if nxt.size == 0:
            print("every item is labeled")
            break
        i = int(nxt[0])
        label = _ask(ask, f"item {ids[i]} (score {scores[i]:.6g}, group {names[groups[i]]}, predicted "
                          f"{predicted[i]}): true label? [{hint}; q = quit] ", parse, hint)
        if label is None:
            break
        assessor.update(i, label)
        assessor.save(state)
        asked += 1
    _print_results(args, assessor, state, names, scores, goal, last_fit)

def add_parser(sub):
    p = sub.add_parser("label", help="label items one by one, chosen actively; resumable",
                       description="Label items one at a time, chosen by Thompson sampling over groups; every "
                                   "answer is saved at once (atomically) to --state, and a later run resumes.",
                       formatter_class=DefaultsShown)
    p.add_argument("data", help="CSV of items to label")
    p.add_argument("--state", required=True, help="JSON state file (created, or resumed if it exists)")
    p.add_argument("--score-col", required=True, help="column with classifier scores")
    p.add_argument("--id-col", default=None, help="column with item ids shown in the prompt (default: row index)")
    p.add_argument("--label-col", default=None,
                   help="column with labels already known (blank or NA = not yet); loaded before asking")
    p.add_argument("--pred-col", default=None, help="column with the model's predicted label")
    p.add_argument("--threshold", type=float, default=None, help="predict 1 when score >= threshold")
    p.add_argument("--group-col", default=None, help="column with group ids (without it: equal-mass score bins)")
    p.add_argument("--bins", type=int, default=5, help="equal-mass score bins when no --group-col")
    p.add_argument("--strategy", default=None, choices=STRATEGIES, metavar="STRATEGY",
                   help="how items are chosen (default: the --goal's Thompson sampling): " + ", ".join(STRATEGIES))
    p.add_argument("--goal", default="accuracy", choices=GOALS,
                   help="the estimand (Ji et al.): accuracy per group (ts-estimate); confusion: the confusion "
                        "matrix, groups = predicted classes (ts-confusion); cost: expected cost per predicted "
                        "class under --cost and the --top costliest (ts-costliest); calibration: the expected "
                        "calibration error, overall and per group, groups = 10 equal-width confidence bins "
                        "(ts-estimate) or --group-col with the --top least calibrated (ts-least-calibrated); "
                        "least-accurate: the --top least "
                        "accurate groups (ts-worst); compare: --compare G1 G2 with a ROPE of +/- --rope "
                        "(ts-compare). pr / ap: the PR curve or average precision of the scores; threshold: "
                        "precision and recall at --threshold (these refit spe.fit after every answer and ask "
                        "suggest_labels for the next item; binary labels only)")
    p.add_argument("--top", type=int, default=1,
                   help="--goal least-accurate, cost, calibration: how many extreme groups to identify")
    p.add_argument("--cost", default=None, metavar="FILE",
                   help="--goal cost: CSV cost matrix; header: a first cell, then the predicted classes; each row: "
                        "a true class, then the cost of each prediction for it")
    p.add_argument("--confidence-col", default=None,
                   help="--goal calibration: column with the model's probability that its prediction is correct "
                        "(default: the score; for 1/0 predictions the score or 1 - score)")
    p.add_argument("--compare", nargs=2, default=None, metavar=("G1", "G2"),
                   help="--goal compare: the two groups (names as printed)")
    p.add_argument("--rope", type=float, default=0.05, help="--goal compare: half-width of practical equivalence")
    p.add_argument("--prior", default="auto", choices=PRIORS,
                   help="the per-group prior of --goal accuracy, least-accurate and compare: spe = SPE-informed (spe.fit on the scores and "
                        "the answers so far, rebuilt each time a session starts or resumes; answers it holds are "
                        "not counted twice), uniform = Beta(1, 1); auto = spe for binary labels, else uniform")
    p.add_argument("--max", type=int, default=None, help="stop after this many answers")
    p.add_argument("--seed", type=int, default=0, help="random seed of the item choice")
    p.set_defaults(func=run)
