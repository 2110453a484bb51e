"""The ``spe`` command: fit, threshold and demo from the shell.

    spe demo [--out DIR]
    spe fit DATA.csv --score-col S [--label-col Y] [--out DIR]
    spe fit DATA.csv --score-col A,B,C [--label-col Y]          (several models, shared labels)
    spe fit DATA.csv --prob-cols P0,P1,P2 [--label-col Y]       (a multiclass classifier)
    spe fit DATA.csv --prob-prefix lr_,nb_ [--label-col Y]      (multiclass models: columns lr_cat, nb_cat, ...)
    spe threshold DATA.csv --score-col S --label-col Y --min-precision P --min-recall R

Errors are one line on stderr (``spe: error: ...``) with exit status 2; no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np

from . import curves as C
from . import sweeps as SW
from . import thresholds as R
from .api import fit
from .many import fit_many
from .multiclass import fit_multiclass
from .datasets import load_demo
from .io import load_scores, parse_labels, parse_scores, read_table
from .report import save_figure, write_outputs
from .cli_label import GOALS, PRIORS, cmd_label
from .scores import MISSING_TOKENS


class CLIError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


OPTION_NAMES = ("min_precision", "min_recall", "max_fpr", "confidence", "level", "positive_label")


def _as_flags(exc, names=OPTION_NAMES) -> CLIError:
    """A validation message worded with this command's flags instead of Python names."""
    text = str(exc)
    for name in names:
        flag = "--" + name.replace("_", "-")
        text = text.replace(name + "=", flag).replace(name, flag)
    return CLIError(text)


def load_data(path, score_col, label_col=None, positive_label=None):
    """The table's scores and labels; errors worded with the command's flag names."""
    try:
        with _notes():
            return load_scores(path, score_col, label_col, positive_label)
    except ValueError as exc:  # data errors may quote column names: translate only this option
        raise _as_flags(exc, ("positive_label",)) from None


@contextlib.contextmanager
def _notes():
    """Print each UserWarning raised inside (data skipped, small data, sampling trouble) as a
    one-line note on stderr once the block has succeeded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        yield
    for w in caught:
        if issubclass(w.category, UserWarning):
            print(f"spe: note: {w.message}", file=sys.stderr)


# ---- outputs ---------------------------------------------------------------------------
def _fit_result(scores, labels, args):
    C.check_level(args.level)
    with _notes():
        return fit(
            scores, labels, model=[m.strip() for m in args.model.split(",")] if "," in args.model else args.model,
            families=_families(args.families), seed=args.seed, n_draws=args.n_draws,
            higher_is_positive=not args.lower_is_positive,
            score_range=args.score_range, progress=False if args.no_progress else None,
        )


def _families(value):
    if value is None:
        return "auto"
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if len(parts) == 1:
        return parts[0]
    return tuple(parts) if len(parts) == 2 else parts


# ---- commands --------------------------------------------------------------------------
def _columns(value):
    return [c.strip() for c in value.split(",") if c.strip()]


def cmd_fit(args):
    if not 0.0 < args.level < 1.0:
        raise CLIError(f"--level must be strictly between 0 and 1 (e.g. 0.9), got {args.level:g}")
    if args.prob_cols and args.prob_prefix:
        raise CLIError("give --prob-cols or --prob-prefix, not both")
    if args.prob_cols:
        return _fit_multiclass_table(args)
    if args.prob_prefix:
        return _fit_prefixed_models(args)
    if args.score_col is None:
        raise CLIError("give --score-col (one model, or several: a,b,c), --prob-cols (class probabilities) or "
                       "--prob-prefix (multiclass models by column prefix)")
    if len(_columns(args.score_col)) > 1:
        return _fit_many_table(args)
    scores, labels = load_data(args.data, args.score_col, args.label_col, args.positive_label)
    res = _fit_result(scores, labels, args)
    out = Path(args.out)
    summ = res.summary(args.level)
    print(summ, flush=True)  # the numbers first; figures take seconds
    write_outputs(res, summ, out, args.level)
    print(f"wrote {out / 'summary.json'}, figures and {out / 'report.html'} (one file to share)")


def _write_json(out: Path, name: str, data) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(json.dumps(data, indent=2, default=float))
    return path


def _estimate_dict(e):
    return None if e is None else e.as_dict()


def _fit_many_table(args):
    """Several score columns on the same rows: shared labels, paired comparisons (spe.fit_many)."""
    names = _columns(args.score_col)
    try:
        table = read_table(args.data)
        scores = {n: parse_scores(table.column(n), n, table.rows) for n in names}
        labels = (None if args.label_col is None else
                  parse_labels(table.column(args.label_col), args.label_col, args.positive_label, table.rows))
    except ValueError as exc:
        raise _as_flags(exc, ("positive_label",)) from None
    choice = {m.strip().lower() for m in args.model.split(",")}
    if not (choice <= {"auto", "calibrated"} or choice == {"uncalibrated"}):
        raise CLIError(f"with several score columns --model takes 'auto' (each probability model's "
                       f"'calibrated' map stacked too) or 'uncalibrated' (not), got {args.model!r}")
    with _notes():
        table.warn_if_blank()
        res = fit_many(scores, labels, n_draws=args.n_draws, seed=args.seed,
                       higher_is_positive=not args.lower_is_positive, calibrated="uncalibrated" not in choice)
    _write_comparison(res, "AUROC", args, {"prevalence": res.prevalence(args.level).as_dict()})


def _write_comparison(res, metric, args, extra: dict):
    """Summary, models.json (each model's metrics, ``extra``, label-model weights, P(best)
    and P(beats) on ``metric``) and models.png for a fit_many result."""
    print(res.summary(metric, args.level), flush=True)
    beats = res.prob_beats(metric)
    key = metric.lower()
    models = [{"model": r["model"], "excluded": r["excluded"]} | {k: _estimate_dict(r[k]) for k in res.METRICS}
              for r in res.metrics(args.level)]
    data = ({"models": models}
            | extra
            | {"model_weights": res.model_weights, f"prob_best_{key}": res.prob_best(metric),
               f"prob_beats_{key}": {a: dict(zip(res.names, beats[i])) for i, a in enumerate(res.names)}})
    out = _write_json(Path(args.out), "models.json", data)
    save_figure(Path(args.out) / "models.png", lambda ax: res.plot_comparison(ax, metric=metric, level=args.level))
    print(f"wrote {out} and {Path(args.out) / 'models.png'}")


def _class_labels(table, label_col, names):
    """Class index per row from a label column holding class indices or class names (-1 = unlabeled)."""
    if label_col is None:
        return None
    index = {n: k for k, n in enumerate(names)}
    cells = table.column(label_col)
    labels = np.full(len(cells), -1)
    for i, cell in enumerate(cells):
        token = cell.strip()
        if token.lower() in MISSING_TOKENS:
            continue
        if token in index:
            labels[i] = index[token]
        elif token.lstrip("-").isdigit() and 0 <= int(token) < len(names):
            labels[i] = int(token)
        else:
            raise CLIError(f"label column {label_col!r}, row {table.rows[i]}: {token!r} is neither a "
                           f"class index 0..{len(names) - 1} nor a class name ({', '.join(names)})")
    return labels


def _multiclass_json(res, names, level) -> dict:
    return {"classes": names, "accuracy": res.accuracy(level).as_dict(),
            "macro_f1": res.macro_f1(level).as_dict(),
            "per_class": [{"class": names[r["class"]], "n_predicted": r["n_predicted"]}
                          | {k: _estimate_dict(r[k]) for k in ("precision", "recall", "f1", "prevalence")}
                          for r in res.per_class(level)],
            "label_models": res.describe_models()}


def _fit_multiclass_table(args):
    """Class-probability columns: a multiclass fit (spe.fit_multiclass); labels are class indices."""
    names = _columns(args.prob_cols)
    try:
        table = read_table(args.data)
        probs = np.column_stack([parse_scores(table.column(n), n, table.rows) for n in names])
        labels = _class_labels(table, args.label_col, names)
        with _notes():
            table.warn_if_blank()
            res = fit_multiclass(probs, labels, n_draws=args.n_draws, seed=args.seed)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    _write_multiclass(res, names, args)


def _write_multiclass(res, classes, args):
    """Summary and multiclass.json for a fit_multiclass result."""
    print(res.summary(args.level), flush=True)
    print(f"wrote {_write_json(Path(args.out), 'multiclass.json', _multiclass_json(res, classes, args.level))}")


def _prefixed_columns(table, prefixes) -> tuple[dict, list]:
    """{prefix: its columns}, and the class names (the columns' suffixes, the same for every prefix)."""
    found, classes = {}, None
    for prefix in prefixes:
        cols = [c for c in table.columns if c.startswith(prefix) and len(c) > len(prefix)]
        if len(cols) < 2:
            raise CLIError(f"--prob-prefix {prefix!r}: {len(cols)} column(s) start with it; a multiclass model needs "
                           f"one per class (2 or more). Columns: {', '.join(table.columns)}")
        suffixes = [c[len(prefix):] for c in cols]
        if classes is None:
            classes = suffixes
        elif sorted(suffixes) != sorted(classes):
            raise CLIError(f"--prob-prefix {prefix!r} has classes {', '.join(suffixes)}; {prefixes[0]!r} has "
                           f"{', '.join(classes)}: every model must score the same classes")
        found[prefix] = [prefix + c for c in classes]  # the first model's class order for all
    return found, classes


def _fit_prefixed_models(args):
    """Class probabilities of one or several models, columns named <prefix><class>."""
    prefixes = _columns(args.prob_prefix)
    try:
        table = read_table(args.data)
        columns, classes = _prefixed_columns(table, prefixes)
        probs = {p.rstrip("_:.- ") or p: np.column_stack([parse_scores(table.column(c), c, table.rows) for c in cols])
                 for p, cols in columns.items()}
        labels = _class_labels(table, args.label_col, classes)
        with _notes():
            table.warn_if_blank()
            res = (fit_multiclass(next(iter(probs.values())), labels, n_draws=args.n_draws, seed=args.seed)
                   if len(probs) == 1 else fit_many(probs, labels, n_draws=args.n_draws, seed=args.seed))
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if len(probs) == 1:
        return _write_multiclass(res, classes, args)
    _write_comparison(res, "accuracy", args,
                      {"classes": classes,
                       "per_model": {n: _multiclass_json(r, classes, args.level) for n, r in res.results.items()}})


def cmd_threshold(args):
    # Every option is checked before the fit, which takes seconds.
    try:
        R.check_constraints(args.min_precision, args.min_recall, args.max_fpr)
    except (TypeError, ValueError) as exc:
        raise _as_flags(exc) from None
    if not 0.0 < args.confidence < 1.0:
        raise CLIError(f"--confidence must be strictly between 0 and 1 (e.g. 0.9), got {args.confidence:g}")
    scores, labels = load_data(args.data, args.score_col, args.label_col, args.positive_label)
    res = _fit_result(scores, labels, args)
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
        print(f"wrote {out / 'threshold.json'} and {out / 'conditions.png'}")
    return 0 if decision.feasible else 1


def cmd_demo(args):
    scores, truth = load_demo()
    rng = np.random.default_rng(args.seed)
    labels = np.full(scores.size, np.nan)
    idx = rng.choice(scores.size, args.labels, replace=False)
    labels[idx] = truth[idx]
    print(
        f"demo: linear-SVM scores for digit 3 vs rest on scikit-learn's digits "
        f"({scores.size} items); {args.labels} random labels kept "
        f"({int(truth[idx].sum())} positive), the rest hidden"
    )
    res = _fit_result(scores, labels, args)
    out = Path(args.out)
    summ = res.summary(args.level)
    print(summ, flush=True)
    summary = write_outputs(res, summ, out, args.level, true_labels=truth)
    naive = SW.exact_precision_at_recall(scores[idx], truth[idx])
    true_pr = np.array(summary["demo_truth"]["true_precision"])
    grid = C.DEFAULT_RECALL_GRID
    print(
        f"  area between estimated and true PR curve: SPE {summary['demo_truth']['pr_area_error_spe']:.3f}, "
        f"labeled items only {np.trapezoid(np.abs(naive - true_pr), grid):.3f}"
    )
    true_ap = float(SW.sample_average_precision(SW.labeled_sweep(scores, truth))[0])
    print(f"  truth (all {scores.size} labels): prevalence {truth.mean():.3f}, average precision {true_ap:.3f}")
    decision = res.choose_threshold(min_precision=0.9, min_recall=0.8, confidence=0.9)
    print("  threshold for precision >= 0.9 and recall >= 0.8 with probability >= 0.9:")
    print("   ", str(decision).replace("\n", "\n    "))
    chosen = scores >= decision.threshold
    print(f"  on the full labels that threshold gives precision {truth[chosen].mean():.3f}, "
          f"recall {truth[chosen].sum() / truth.sum():.3f}")
    print(f"wrote {out / 'summary.json'}, figures ({', '.join(summary['figures'])}) and report.html to {out}/")


def _add_fit_options(p):
    p.add_argument("--model", default="auto",
                   help="score models: 'auto' (mixture + spline, weighted by the labels; spline alone for 3-20 "
                        "distinct scores, cells for hard 0/1 predictions), "
                        "'mixture', 'platt', 'beta', 'spline', 'calibrated' (probabilities taken as nearly right), "
                        "'cells' (a share of positives per score value), or a comma-separated list; with several "
                        "score columns 'auto' or 'uncalibrated' (fit_many(calibrated=False))")
    p.add_argument("--positive-label", default=None,
                   help="the label value meaning positive (others: negative); without it 1/0, true/false, yes/no")
    p.add_argument("--lower-is-positive", action="store_true",
                   help="lower scores mean positive (scores are reversed; thresholds refer to the reversed score)")
    p.add_argument("--families", default=None,
                   help="mixture families: 'auto', 'all', 'NEG,POS' (e.g. gamma,truncnorm) or a list of candidates")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (by default one appears at a terminal when a fit takes over 2 s)")
    p.add_argument("--n-draws", type=int, default=1000, help="posterior draws")
    p.add_argument("--level", type=float, default=0.9, help="credible level of bands and intervals")
    p.add_argument("--score-range", type=float, nargs=2, metavar=("LOW", "HIGH"), default=None,
                   help="range scores can take, e.g. 0 1 for probabilities")


class _DefaultsShown(argparse.ArgumentDefaultsHelpFormatter):
    """Show a default only when there is one (not None, not an unset flag)."""

    def _get_help_string(self, action):
        if action.default in (None, False) or action.default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="spe", description="Semisupervised performance evaluation of a classifier from few labels."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    fmt = {"formatter_class": _DefaultsShown}
    p = sub.add_parser("fit", help="fit scores (+ a few labels) and write summary.json and figures",
                       description="Fit score models to every score and the few labels; print the summary "
                                   "and write summary.json and figures.", **fmt)
    p.add_argument("data", help="CSV (or Parquet with spe[parquet]) file")
    p.add_argument("--score-col", default=None,
                   help="column with classifier scores; several (a,b,c): models compared on shared labels")
    p.add_argument("--prob-cols", default=None,
                   help="class-probability columns of a multiclass classifier (p0,p1,...); labels are then "
                        "class indices or these column names")
    p.add_argument("--prob-prefix", default=None,
                   help="multiclass models by column prefix (lr_,nb_: columns lr_cat, lr_dog, nb_cat, ...); "
                        "several prefixes compare the models on shared labels; labels are class indices or "
                        "the class names after the prefix")
    p.add_argument("--label-col", default=None,
                   help="column with labels (1/0, true/false, yes/no; blank or NA = unlabeled)")
    p.add_argument("--out", default="spe-out", help="output folder")
    _add_fit_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("threshold", help="choose a threshold that meets constraints with stated probability",
                       description="Choose the score threshold that meets every constraint (on this data's "
                                   "precision, recall, false positive rate) with posterior probability >= "
                                   "--confidence. Exit status 0 when one exists, 1 when none does.", **fmt)
    p.add_argument("data", help="CSV (or Parquet with spe[parquet]) file")
    p.add_argument("--score-col", required=True, help="column with classifier scores")
    p.add_argument("--label-col", default=None,
                   help="column with labels (1/0, true/false, yes/no; blank or NA = unlabeled)")
    p.add_argument("--min-precision", type=float, default=None, help="required precision, in (0, 1]")
    p.add_argument("--min-recall", type=float, default=None, help="required recall, in (0, 1]")
    p.add_argument("--max-fpr", type=float, default=None, help="largest allowed false positive rate, in [0, 1)")
    p.add_argument("--confidence", type=float, default=0.9,
                   help="required probability that every constraint holds, in (0, 1)")
    p.add_argument("--out", default=None, help="also write threshold.json and conditions.png here")
    _add_fit_options(p)
    p.set_defaults(func=cmd_threshold)

    p = sub.add_parser("label", help="label items one by one, chosen actively; resumable",
                       description="Label items one at a time, chosen by Thompson sampling over groups; every "
                                   "answer is saved at once (atomically) to --state, and a later run resumes.",
                       **fmt)
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
    p.add_argument("--strategy", default="ts-estimate", help="how items are chosen: ts-estimate, ts-worst, random, ...")
    p.add_argument("--goal", default="accuracy", choices=GOALS,
                   help="accuracy: per-group accuracy (Thompson sampling, --strategy); pr / ap: the PR curve "
                        "or average precision of the scores; threshold: precision and recall at --threshold "
                        "(pr / ap / threshold refit spe.fit after every answer and ask suggest_labels for the "
                        "next item; binary labels only)")
    p.add_argument("--prior", default="auto", choices=PRIORS,
                   help="the per-group prior of --goal accuracy: spe = SPE-informed (spe.fit on the scores and "
                        "the answers so far, rebuilt each time a session starts or resumes; answers it holds are "
                        "not counted twice), uniform = Beta(1, 1); auto = spe for binary labels, else uniform")
    p.add_argument("--max", type=int, default=None, help="stop after this many answers")
    p.add_argument("--seed", type=int, default=0, help="random seed of the item choice")
    p.set_defaults(func=cmd_label)

    p = sub.add_parser("demo", help="run the whole pipeline on the bundled digits data",
                       description="Fit the bundled digits SVM scores with a few random labels kept and "
                                   "compare every estimate with the truth.", **fmt)
    p.add_argument("--out", default="spe-demo", help="output folder")
    p.add_argument("--labels", type=int, default=10, help="how many labels to keep")
    _add_fit_options(p)
    p.set_defaults(func=cmd_demo, seed=1)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except CLIError as exc:
        print(f"spe: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:
        print(f"spe: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("spe: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
