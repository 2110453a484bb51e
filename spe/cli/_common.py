"""What every ``spe`` subcommand shares: one-line errors worded with its flags, notes on
stderr, reading a table's columns, the fit options and JSON output."""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
import warnings
from pathlib import Path

import numpy as np

from .._fit import fit
from ..exceptions import CLIError
from ..metrics import check_level
from ..scores import parse_labels, parse_scores, read_table

#: Help of ``--id-col``: how every output names an item.
ID_HELP = ("column naming the items in outputs (items.csv, --suggest); default: the column 'id' when the file has "
           "one, else the item's 0-based row index as pandas.read_csv numbers rows (0 = the first data row under "
           "the header; blank lines not counted). Error messages point into the file instead: 'row N' is the "
           "spreadsheet row, header = row 1")

OPTION_NAMES = ("min_precision", "min_recall", "max_fpr", "confidence", "level", "positive_label")


def as_flags(exc, names=OPTION_NAMES) -> CLIError:
    """A validation message worded with this command's flags instead of Python names."""
    text = str(exc)
    for name in names:
        flag = "--" + name.replace("_", "-")
        text = text.replace(name + "=", flag).replace(name, flag)
    return CLIError(text)


def load_items(path, score_col, label_col=None, positive_label=None, id_col=None):
    """(scores, labels or None, item ids, the ids' name) from the table: ids from ``id_col``,
    else a column named 'id', else 0-based row indices (name "row")."""
    try:
        with notes():
            table = read_table(path)
            scores = parse_scores(table.column(score_col), score_col, table.rows)
            labels = (None if label_col is None
                      else parse_labels(table.column(label_col), label_col, positive_label, table.rows))
            table.warn_if_blank()
    except ValueError as exc:  # data errors may quote column names: translate only this option
        raise as_flags(exc, ("positive_label",)) from None
    ids, name = item_ids(table, id_col)
    return scores, labels, ids, name


def item_ids(table, id_col=None):
    """(each item's id, the ids' column name): ``id_col``, a column 'id', or 0-based rows."""
    if id_col is None:
        if "id" not in table.columns:
            return np.arange(len(table.rows)), "row"
        id_col = "id"
    try:
        ids = np.array(table.column(id_col), dtype=object)
    except ValueError as exc:
        raise CLIError(f"--id-col: {exc}") from None
    _, first, counts = np.unique(ids.astype(str), return_index=True, return_counts=True)
    if (counts > 1).any():
        dup = ids[np.sort(first[counts > 1])][:3]
        raise CLIError(f"id column {id_col!r} names {int((counts > 1).sum())} item(s) more than once (e.g. "
                       f"{', '.join(map(repr, dup))}); give --id-col a column of unique ids")
    return ids, id_col


def _cell(value) -> str:
    """A CSV cell: floats to 6 significant digits, NaN blank."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float):
        return "" if np.isnan(value) else f"{value:.6g}"
    return str(value)


def write_csv(path: Path, columns: dict) -> Path:
    """A CSV file of equal-length columns (see ``_cell``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(columns))
        w.writerows([_cell(v) for v in row] for row in zip(*columns.values()))
    return path


@contextlib.contextmanager
def notes():
    """Print each UserWarning raised inside (data skipped, small data, sampling trouble) as a
    one-line note on stderr once the block has succeeded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        yield
    for w in caught:
        if issubclass(w.category, UserWarning):
            print(f"spe: note: {w.message}", file=sys.stderr)


def fit_result(scores, labels, args):
    check_level(args.level)
    with notes():
        return fit(
            scores, labels, model=[m.strip() for m in args.model.split(",")] if "," in args.model else args.model,
            families=families(args.families), seed=args.seed, n_draws=args.n_draws,
            higher_is_positive=not args.lower_is_positive,
            score_range=args.score_range, progress=False if args.no_progress else None,
            prior=one_classifier(args.classifier),
        )


def one_classifier(value):
    """``--classifier`` for one score column: a family (or None)."""
    family = classifier(value)
    if isinstance(family, dict):
        raise ValueError("--classifier takes COLUMN=FAMILY pairs with several score columns only; "
                         "give one family for one score column")
    return family


def classifier(value):
    """``--classifier``: None, one family for every score column, or {column: family}
    from "COL=FAMILY,COL=FAMILY"."""
    if value is None or "=" not in value:
        return value
    pairs = [p.split("=", 1) for p in columns(value)]
    if any(len(p) != 2 or not p[0].strip() or not p[1].strip() for p in pairs):
        raise ValueError(f"--classifier takes one family or COLUMN=FAMILY pairs separated by commas, got {value!r}")
    return {col.strip(): family.strip() for col, family in pairs}


def families(value):
    if value is None:
        return "auto"
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if len(parts) == 1:
        return parts[0]
    return tuple(parts) if len(parts) == 2 else parts


def columns(value):
    return [c.strip() for c in value.split(",") if c.strip()]


def read_cost(path):
    """(classes, K x K cost matrix, true x predicted) from a CSV whose header names the
    predicted classes after a first cell, and whose rows start with the true class."""
    table = read_table(path)
    first, *predicted = table.columns  # not `columns`: that is this module's column-list parser
    rows = [c.strip() for c in table.column(first)]
    if sorted(rows) != sorted(predicted) or len(set(rows)) != len(rows):
        raise ValueError(f"--cost {path}: the rows' true classes {rows[:8]} and the header's predicted classes "
                         f"{predicted[:8]} must be the same classes, each once")
    try:
        cost = np.array([table.column(c) for c in rows], dtype=float).T
    except ValueError:
        cost = np.array(np.nan)
    if not np.all(np.isfinite(cost)):
        raise ValueError(f"--cost {path}: every cost must be a finite number")
    return rows, cost


def write_json(out: Path, name: str, data) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(json.dumps(data, indent=2, default=float))
    return path


def estimate_dict(e):
    return None if e is None else e.as_dict()


def add_fit_options(p):
    p.add_argument("--model", default="auto",
                   help="score models: 'auto' (mixture + spline + the weak ranker, weighted by the labels; "
                        "spline and weak ranker alone for 3-20 distinct scores, cells for hard 0/1 predictions), "
                        "'mixture', 'platt', 'beta', 'spline', 'calibrated' (probabilities taken as nearly right), "
                        "'cells' (a share of positives per score value), 'weak' (a classifier at chance here), "
                        "or a comma-separated list; with several "
                        "score columns 'auto' or 'uncalibrated' (fit_many(calibrated=False))")
    p.add_argument("--positive-label", default=None,
                   help="the label value meaning positive (others: negative); without it 1/0, true/false, yes/no")
    p.add_argument("--lower-is-positive", action="store_true",
                   help="lower scores mean positive (scores are reversed; thresholds refer to the reversed score)")
    p.add_argument("--families", default=None,
                   help="mixture families: 'auto', 'all', 'NEG,POS' (e.g. gamma,truncnorm) or a list of candidates")
    p.add_argument("--classifier", default=None, metavar="FAMILY",
                   help="the classifier family that scored the items (naive_bayes, random_forest, "
                        "gradient_boosting, logistic_regression, knn, mlp, svm_rbf, linear_svm, or the "
                        "scikit-learn class name): the calibration map starts from that family's prior; "
                        "with several score columns one for all or COLUMN=FAMILY pairs")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (by default one appears at a terminal when a fit takes over 2 s)")
    p.add_argument("--n-draws", type=int, default=1000, help="posterior draws")
    p.add_argument("--level", type=float, default=0.9, help="credible level of bands and intervals")
    p.add_argument("--score-range", type=float, nargs=2, metavar=("LOW", "HIGH"), default=None,
                   help="range scores can take, e.g. 0 1 for probabilities")


class DefaultsShown(argparse.ArgumentDefaultsHelpFormatter):
    """Show a default only when there is one (not None, not an unset flag)."""

    def _get_help_string(self, action):
        if action.default in (None, False) or action.default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)
