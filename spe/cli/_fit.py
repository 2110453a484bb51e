"""``spe fit``: one model's scores, several models' scores, or class probabilities."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..exceptions import CLIError
from ..multiclass import fit_multiclass
from ..report import save_figure, write_outputs
from ..scores import MISSING_TOKENS, parse_labels, parse_scores, read_parquet, read_table
from ..several import fit_many
from ._common import (ID_HELP, DefaultsShown, add_fit_options, as_flags, classifier, columns, estimate_dict,
                      fit_result, load_items, notes, write_csv, write_json)


def run(args):
    if not 0.0 < args.level < 1.0:
        raise CLIError(f"--level must be strictly between 0 and 1 (e.g. 0.9), got {args.level:g}")
    if args.prob_cols and args.prob_prefix:
        raise CLIError("give --prob-cols or --prob-prefix, not both")
    if (args.prob_cols or args.prob_prefix) and args.classifier is not None:
        raise CLIError("--classifier applies to one score per item, not to class probabilities")
    if args.prob_cols:
        return _fit_multiclass_table(args)
    if args.prob_prefix:
        return _fit_prefixed_models(args)
    if args.score_col is None:
        raise CLIError("give --score-col (one model, or several: a,b,c), --prob-cols (class probabilities) or "
                       "--prob-prefix (multiclass models by column prefix)")
    if len(columns(args.score_col)) > 1:
        if args.stream:
            raise CLIError("--stream counts one score column; several models need every score in memory")
        return _fit_many_table(args)
    if args.stream and args.suggest:
        raise CLIError("--suggest names items to label, and --stream keeps no items: drop one of them")
    if args.stream:
        scores, labels, ids, id_name = _streamed_counts(args), None, None, None
    else:
        scores, labels, ids, id_name = load_items(args.data, args.score_col, args.label_col, args.positive_label,
                                                  args.id_col)
    res = fit_result(scores, labels, args)
    out = Path(args.out)
    summ = res.summary(args.level)
    print(summ, flush=True)  # the numbers first; figures take seconds
    write_outputs(res, summ, out, args.level)
    if ids is not None:
        _write_items(res, scores, labels, ids, id_name, args)
    print(f"wrote {out / 'summary.json'}, figures, {out / 'report.html'} (one file to share)"
          + ("" if ids is None else f" and {out / 'items.csv'} (each item's P(positive), by {id_name})"))


def _write_items(res, scores, labels, ids, id_name, args):
    """items.csv (id, score, label, P(positive)) and, with --suggest K, the K items to label next."""
    out = Path(args.out)
    write_csv(out / "items.csv", {id_name: ids, "score": scores,
                                  "label": np.full(scores.size, np.nan) if labels is None else labels,
                                  "prob_positive": res.prob_positive()})
    if args.suggest:
        picks = res.suggest_labels(args.suggest)
        what = "0-based row index" if id_name == "row" else f"column {id_name!r}"
        print(f"label next (items by {what}): {', '.join(map(str, ids[picks]))}")
        write_csv(out / "suggested.csv", {id_name: ids[picks], "score": scores[picks]})


def _streamed_counts(args):
    """The Parquet file or dataset counted batch by batch (spe.read_parquet): never loaded whole."""
    if Path(args.data).suffix.lower() not in (".parquet", ".pq") and not Path(args.data).is_dir():
        raise CLIError(f"--stream reads a Parquet file or a directory of them, not {args.data}")
    try:
        return read_parquet(args.data, args.score_col, args.label_col, positive_label=args.positive_label)
    except ImportError as exc:
        raise CLIError(str(exc)) from None
    except (ValueError, OSError) as exc:
        raise as_flags(exc, ("positive_label",)) from None


def _fit_many_table(args):
    """Several score columns on the same rows: shared labels, paired comparisons (spe.fit_many)."""
    names = columns(args.score_col)
    try:
        table = read_table(args.data)
        scores = {n: parse_scores(table.column(n), n, table.rows) for n in names}
        labels = (None if args.label_col is None else
                  parse_labels(table.column(args.label_col), args.label_col, args.positive_label, table.rows))
    except ValueError as exc:
        raise as_flags(exc, ("positive_label",)) from None
    choice = {m.strip().lower() for m in args.model.split(",")}
    if not (choice <= {"auto", "calibrated"} or choice == {"uncalibrated"}):
        raise CLIError(f"with several score columns --model takes 'auto' (each probability model's "
                       f"'calibrated' map stacked too) or 'uncalibrated' (not), got {args.model!r}")
    with notes():
        table.warn_if_blank()
        res = fit_many(scores, labels, n_draws=args.n_draws, seed=args.seed,
                       higher_is_positive=not args.lower_is_positive, calibrated="uncalibrated" not in choice,
                       prior=classifier(args.classifier))
    _write_comparison(res, "AUROC", args, {"prevalence": res.prevalence(args.level).as_dict()})


def _write_comparison(res, metric, args, extra: dict):
    """Summary, models.json (each model's metrics, ``extra``, label-model weights, P(best)
    and P(beats) on ``metric``) and models.png for a fit_many result."""
    print(res.summary(metric, args.level), flush=True)
    beats = res.prob_beats(metric)
    key = metric.lower()
    models = [{"model": r["model"], "excluded": r["excluded"]} | {k: estimate_dict(r[k]) for k in res.METRICS}
              for r in res.metrics(args.level)]
    data = ({"models": models}
            | extra
            | {"model_weights": res.model_weights, f"prob_best_{key}": res.prob_best(metric),
               f"prob_beats_{key}": {a: dict(zip(res.names, beats[i])) for i, a in enumerate(res.names)}})
    out = write_json(Path(args.out), "models.json", data)
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
                          | {k: estimate_dict(r[k]) for k in ("precision", "recall", "f1", "prevalence")}
                          for r in res.per_class(level)],
            "label_models": res.describe_models()}


def _fit_multiclass_table(args):
    """Class-probability columns: a multiclass fit (spe.fit_multiclass); labels are class indices."""
    names = columns(args.prob_cols)
    try:
        table = read_table(args.data)
        probs = np.column_stack([parse_scores(table.column(n), n, table.rows) for n in names])
        labels = _class_labels(table, args.label_col, names)
        with notes():
            table.warn_if_blank()
            res = fit_multiclass(probs, labels, n_draws=args.n_draws, seed=args.seed)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    _write_multiclass(res, names, args)


def _write_multiclass(res, classes, args):
    """Summary and multiclass.json for a fit_multiclass result."""
    print(res.summary(args.level), flush=True)
    print(f"wrote {write_json(Path(args.out), 'multiclass.json', _multiclass_json(res, classes, args.level))}")


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
    prefixes = columns(args.prob_prefix)
    try:
        table = read_table(args.data)
        by_prefix, classes = _prefixed_columns(table, prefixes)
        probs = {p.rstrip("_:.- ") or p: np.column_stack([parse_scores(table.column(c), c, table.rows) for c in cols])
                 for p, cols in by_prefix.items()}
        labels = _class_labels(table, args.label_col, classes)
        with notes():
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


def add_parser(sub):
    p = sub.add_parser("fit", help="fit scores (+ a few labels) and write summary.json and figures",
                       description="Fit score models to every score and the few labels; print the summary "
                                   "and write summary.json and figures.",
                       formatter_class=DefaultsShown)
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
    p.add_argument("--id-col", default=None, help=ID_HELP)
    p.add_argument("--suggest", type=int, default=0, metavar="K",
                   help="also print the K unlabeled items whose labels would narrow the PR curve most (by --id-col) "
                        "and write suggested.csv")
    p.add_argument("--stream", action="store_true",
                   help="count a Parquet file or directory batch by batch (spe.read_parquet) instead of loading it: "
                        "for one score column larger than memory (per-item outputs are then not written)")
    add_fit_options(p)
    p.set_defaults(func=run)
