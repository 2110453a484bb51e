"""Reading score tables: CSV (dialect sniffed) or Parquet (with the ``parquet`` extra).

Every problem is an :class:`InputError` (a ``ValueError``) naming the file, column and
row; labels go through the package's one parser (:func:`spe.scores.as_labels`).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from .scores import as_labels


class InputError(ValueError):
    """A table that cannot be read as scores and labels; the message names the place."""


def read_table(path: Path) -> dict[str, list[str]]:
    if not path.exists():
        raise InputError(f"file not found: {path}")
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            import pandas as pd
        except ImportError:
            raise InputError("reading Parquet needs pandas and pyarrow: pip install 'spe[parquet]'") from None
        try:
            df = pd.read_parquet(path)
        except Exception as exc:
            raise InputError(f"could not read {path}: {exc}") from None
        return {str(c): ["" if v is None else str(v) for v in df[c].tolist()] for c in df.columns}
    try:
        with path.open(newline="") as fh:
            sample = fh.read(4096)
            fh.seek(0)
            try:
                dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
            except csv.Error:
                dialect = csv.excel
            reader = csv.reader(fh, dialect)
            header = next(reader, None)
            if not header:
                raise InputError(f"{path} is empty")
            cols: dict[str, list[str]] = {h.strip(): [] for h in header}
            names = list(cols)
            for row in reader:
                if not any(cell.strip() for cell in row):
                    continue
                for name, cell in zip(names, row + [""] * (len(names) - len(row))):
                    cols[name].append(cell.strip())
    except UnicodeDecodeError:
        raise InputError(f"could not read {path}: not a text CSV file") from None
    except OSError as exc:
        raise InputError(f"could not read {path}: {exc.strerror}") from None
    return cols


def column(table, name, path) -> list[str]:
    if name not in table:
        raise InputError(f"column {name!r} not found in {path}; columns are: {', '.join(table)}")
    return table[name]


def parse_scores(cells, name) -> np.ndarray:
    out = np.empty(len(cells))
    for i, cell in enumerate(cells):
        try:
            out[i] = float(cell)
        except ValueError:
            raise InputError(f"score column {name!r}, row {i + 2}: {cell!r} is not a number") from None
    if out.size == 0:
        raise InputError(f"score column {name!r} has no rows")
    return out


def parse_labels(cells, name, positive_label=None) -> np.ndarray:
    """Labels from text cells through the package's one label parser (file rows named)."""
    try:
        return as_labels(cells, len(cells), positive_label=positive_label, row_offset=2)
    except ValueError as exc:
        raise InputError(f"label column {name!r}: {exc}") from None


def load_scores(path, score_col, label_col=None, positive_label=None):
    """(scores, labels or None) from a CSV or Parquet file's columns."""
    path = Path(path)
    table = read_table(path)
    scores = parse_scores(column(table, score_col, path), score_col)
    labels = (None if label_col is None
              else parse_labels(column(table, label_col, path), label_col, positive_label))
    return scores, labels
