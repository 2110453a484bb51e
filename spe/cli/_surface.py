"""``spe surface``: accuracy on every combination of attributes, and which items to label next.

Correctness comes from ``--correct`` (1 right, 0 wrong, a graded score in [0, 1], blank =
not labeled), or from ``--pred-col`` with ``--label-col`` (right where the label equals the
prediction), plus the answers of a ``spe label`` session (``--state``) on the same table.
Items are named by the ``--id-col`` column (default: a column ``id`` if there is one) or
else by their 0-based row index among the data rows (the header not counted).
"""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import numpy as np

from ..assessment import read_state
from ..exceptions import CLIError, InputWarning
from ..report import save_figure
from ..scores import MISSING_TOKENS, parse_label, parse_scores, read_table
from ..surface import accuracy_surface
from ._common import DefaultsShown, columns, item_ids, notes


def _correct_column(table, name) -> np.ndarray:
    out = np.full(len(table.rows), np.nan)
    for i, cell in enumerate(table.column(name)):
        if cell.strip().lower() in MISSING_TOKENS:
            continue
        value = parse_label(cell)
        if value is None or np.isnan(value):
            value = _graded(cell)
        if value is None:
            raise CLIError(f"--correct column {name!r}, row {table.rows[i]}: {cell!r} is not 1/0, true/false, "
                           "yes/no or a graded score in [0, 1] (blank = not labeled)")
        out[i] = value
    return out


def _graded(cell: str):
    try:
        value = float(cell)
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None


def _attribute(table, name, missing_as):
    """An attribute column; blank cells become None, or the level ``missing_as`` (with a note)."""
    cells = table.column(name)
    blank = [c.strip().lower() in MISSING_TOKENS for c in cells]
    if missing_as is not None and any(blank):
        warnings.warn(f"attribute {name!r}: {sum(blank)} blank value(s) made the level {missing_as!r}",
                      InputWarning, stacklevel=2)
    return np.array([missing_as if b else c for c, b in zip(cells, blank)], dtype=object)


def _same(label, predicted) -> float:
    a, b = parse_label(str(label)), parse_label(str(predicted))
    if a is not None and b is not None and not (np.isnan(a) or np.isnan(b)):
        return float(a == b)
    return float(str(label).strip().lower() == str(predicted).strip().lower())


def correctness(table, args) -> np.ndarray:
    """1/0/NaN per row from --correct, or --pred-col and --label-col, plus --state answers."""
    if args.correct and args.pred_col:
        raise CLIError("give either --correct or --pred-col (with --label-col / --state), not both")
    if args.correct:
        correct = _correct_column(table, args.correct)
    elif args.pred_col:
        correct = np.full(len(table.rows), np.nan)
        if args.label_col:
            for i, (lab, pred) in enumerate(zip(table.column(args.label_col), table.column(args.pred_col))):
                if lab.strip().lower() not in MISSING_TOKENS:
                    correct[i] = _same(lab, pred)
    else:
        raise CLIError("say where correctness comes from: --correct COL, or --pred-col P with --label-col Y "
                       "and/or --state S.json")
    if args.state:
        if not args.pred_col:
            raise CLIError("--state holds true labels: give --pred-col (the predictions they are compared with)")
        predicted = table.column(args.pred_col)
        try:
            answers = read_state(Path(args.state))["labels"]
        except FileNotFoundError:
            raise CLIError(f"--state {args.state}: file not found") from None
        for i, label in answers:
            if not 0 <= int(i) < correct.size:
                raise CLIError(f"--state {args.state}: item {i} is not a row of {args.data}")
            correct[int(i)] = _same(label, predicted[int(i)])
    return correct


def _write_csv(path: Path, rows: dict):
    names = list(rows)
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        for i in range(len(rows[names[0]])):
            w.writerow([f"{rows[n][i]:.6g}" if isinstance(rows[n][i], (float, np.floating)) else rows[n][i]
                        for n in names])


def run(args):
    if not 0.0 < args.level < 1.0:
        raise CLIError(f"--level must be strictly between 0 and 1, got {args.level:g}")
    table = read_table(args.data)
    names = columns(args.attributes)
    if not names:
        raise CLIError("--attributes needs at least one column name")
    ids, id_name = item_ids(table, args.id_col)
    with notes():
        attributes = {n: _attribute(table, n, args.missing_as) for n in names}
    rows, cols = args.rows or names[0], args.cols or (names[1] if len(names) > 1 else None)
    for flag, name in (("--rows", rows), ("--cols", cols)):
        if name is not None and name not in names:
            raise CLIError(f"{flag} {name!r} is not one of --attributes ({', '.join(names)})")
    correct = correctness(table, args)
    confidence = parse_scores(table.column(args.confidence), args.confidence, table.rows) if args.confidence else None
    with notes():
        surf = accuracy_surface(attributes, correct, confidence, n_draws=args.n_draws, seed=args.seed)
    print(surf.summary(level=args.level))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    _write_csv(out / "surface.csv", surf.to_dict(level=args.level))
    save_figure(out / "surface.png", lambda ax: surf.plot(rows, cols, ax=ax, level=args.level))
    written = ["surface.csv", "surface.png"]
    if args.suggest:
        picks = surf.suggest_labels(args.suggest)
        _write_csv(out / "suggested.csv", {id_name: ids[picks], **{n: attributes[n][picks] for n in names}})
        written.append("suggested.csv")
        what = f"by {id_name!r}" if id_name != "row" else "by 0-based row"
        print(f"label next ({what}): {', '.join(map(str, ids[picks]))}")
    overall = surf.marginal(level=args.level)
    summary = {"items": int(correct.size), "labeled": int((~np.isnan(correct)).sum()), "arms": surf.n_arms,
               "attributes": names, "members": surf.weights, "level": args.level,
               "accuracy": overall.as_dict()}
    (out / "surface.json").write_text(json.dumps(summary, indent=2, default=float))
    written.append("surface.json")
    print(f"wrote {', '.join(str(out / w) for w in written)}")
    return 0


def add_parser(sub):
    p = sub.add_parser("surface", help="accuracy on every combination of attributes",
                       description="Estimate the classifier's accuracy on every combination of attribute values "
                                   "present (with intervals), from a few labels and, if given, the classifier's "
                                   "confidence on every item; write the table, a heatmap, and the items to label next.",
                       formatter_class=DefaultsShown)
    p.add_argument("data", help="CSV (or Parquet with spe[parquet]) file, one row per item")
    p.add_argument("--attributes", required=True, help="comma-separated attribute columns, e.g. sex,race,age_group")
    p.add_argument("--correct", "--correct-col", dest="correct", default=None,
                   help="column: 1 where the classifier was right, 0 wrong, a graded score in [0, 1] (e.g. BLEU), "
                        "blank unlabeled")
    p.add_argument("--pred-col", default=None, help="column with the classifier's prediction (instead of --correct)")
    p.add_argument("--label-col", default=None, help="with --pred-col: column of true labels (blank = unlabeled)")
    p.add_argument("--state", default=None, help="a `spe label` session's state file on this table: its answers "
                                                 "are true labels, compared with --pred-col")
    p.add_argument("--confidence", "--confidence-col", dest="confidence", default=None, help="column with the classifier's confidence in its prediction, in [0, 1]")
    p.add_argument("--suggest", type=int, default=0, help="write suggested.csv with this many items to label next, "
                                                           "named by --id-col or their 0-based row index")
    p.add_argument("--id-col", default=None, help="column naming the items in suggested.csv and the printout "
                                                  "(default: a column 'id' if present, else the 0-based row index "
                                                  "among the data rows, header not counted)")
    p.add_argument("--missing-as", default=None, metavar="LEVEL",
                   help="make blank attribute values this level (with a note) instead of refusing them")
    p.add_argument("--rows", default=None, help="heatmap rows (default: the first attribute)")
    p.add_argument("--cols", default=None, help="heatmap columns (default: the second attribute)")
    p.add_argument("--out", default="spe-surface", help="folder for surface.csv, surface.png, surface.json")
    p.add_argument("--level", type=float, default=0.9, help="credible level of the intervals")
    p.add_argument("--n-draws", type=int, default=400, help="posterior draws")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.set_defaults(func=run)
