"""The ``spe`` command, one module per subcommand.

    spe demo [--out DIR]
    spe fit DATA.csv --score-col S [--label-col Y] [--out DIR]
    spe fit DATA.csv --score-col A,B,C [--label-col Y]          (several models, shared labels)
    spe fit DATA.csv --prob-cols P0,P1,P2 [--label-col Y]       (a multiclass classifier)
    spe fit DATA.csv --prob-prefix lr_,nb_ [--label-col Y]      (multiclass models: columns lr_cat, nb_cat, ...)
    spe threshold DATA.csv --score-col S --label-col Y --min-precision P --min-recall R
    spe label DATA.csv --state S.json --score-col S --threshold T
    spe surface DATA.csv --attributes A,B,C --correct Y [--confidence P] [--suggest K]
    spe elicit DATA.csv --prob-cols P0,P1,P2 --state S.json [--label-col Y]   (your metric, from comparisons)

Errors are one line on stderr (``spe: error: ...``) with exit status 2; no traceback.
"""

from __future__ import annotations

import argparse
import sys

from . import (_demo as demo, _elicit as elicit, _fit as fit, _label as label, _surface as surface,
               _threshold as threshold)
from ..exceptions import CLIError

#: Subcommands in the order ``spe --help`` lists them.
COMMANDS = (fit, threshold, label, surface, elicit, demo)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spe", description="Semisupervised performance evaluation of a classifier from few labels."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except (CLIError, ValueError, TypeError) as exc:
        print(f"spe: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("spe: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)

