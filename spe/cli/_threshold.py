"""``spe threshold``: the score threshold that meets constraints with a stated probability."""

from __future__ import annotations

import json
from pathlib import Path

from ..exceptions import CLIError
from ..metrics import check_constraints
from ..report import save_figure
from ._common import ID_HELP, DefaultsShown, add_fit_options, as_flags, fit_result, load_items, write_csv


def run(args):
    # Every option is checked before the fit, which takes seconds.
    try:
        check_constraints(args.min_precision, args.min_recall, args.max_fpr)
    except (TypeError, ValueError) as exc:
        raise as_flags(exc) from None
    if not 0.0 < args.confidence < 1.0:
        raise CLIError(f"--confidence must be strictly between 0 and 1 (e.g. 0.9), got {args.confidence:g}")
    scores, labels, ids, id_name = load_items(args.data, args.score_col, args.label_col, args.positive_label,
                                              args.id_col)
    res = fit_result(scores, labels, args)
    decision = res.choose_threshold(
        min_precision=args.min_precision, min_recall=args.min_recall, max_fpr=args.max_fpr,
        confidence=args.confidence,
    )
    print(decision)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        save_figure(out / "conditions.png", lambda ax: res.plot_conditions(
            ax, min_precision=args.min_precision, min_recall=args.min_recall, max_fpr=args.max_fpr,
            confidence=args.confidence))
        (out / "threshold.json").write_text(json.dumps(decision.as_dict(), indent=2, default=float))
        _write_predictions(out, res, scores, decision, ids, id_name)
        print(f"wrote {out / 'threshold.json'}, {out / 'conditions.png'} and {out / 'predictions.csv'} "
              f"(each item by {id_name})")
    return 0 if decision.feasible else 1


def _write_predictions(out, res, scores, decision, ids, id_name):
    """predictions.csv: each item's id, score, prediction at the threshold (on the fit's
    score, reversed with --lower-is-positive) and P(positive)."""
    predicted = (res.data.scores >= decision.threshold).astype(int)
    write_csv(out / "predictions.csv", {id_name: ids, "score": scores, "predicted_positive": predicted,
                                        "prob_positive": res.prob_positive()})


def add_parser(sub):
    p = sub.add_parser("threshold", help="choose a threshold that meets constraints with stated probability",
                       description="Choose the score threshold that meets every constraint (on this data's "
                                   "precision, recall, false positive rate) with posterior probability >= "
                                   "--confidence. Exit status 0 when one exists, 1 when none does.",
                       formatter_class=DefaultsShown)
    p.add_argument("data", help="CSV (or Parquet with spe[parquet]) file")
    p.add_argument("--score-col", required=True, help="column with classifier scores")
    p.add_argument("--label-col", default=None,
                   help="column with labels (1/0, true/false, yes/no; blank or NA = unlabeled)")
    p.add_argument("--min-precision", type=float, default=None, help="required precision, in (0, 1]")
    p.add_argument("--min-recall", type=float, default=None, help="required recall, in (0, 1]")
    p.add_argument("--max-fpr", type=float, default=None, help="largest allowed false positive rate, in [0, 1)")
    p.add_argument("--confidence", type=float, default=0.9,
                   help="required probability that every constraint holds, in (0, 1)")
    p.add_argument("--out", default=None,
                   help="also write threshold.json, conditions.png and predictions.csv (each item's prediction at "
                        "the threshold and P(positive), by --id-col) here")
    p.add_argument("--id-col", default=None, help=ID_HELP)
    add_fit_options(p)
    p.set_defaults(func=run)
