"""Reading score tables: CSV (dialect sniffed) or Parquet (with the ``parquet`` extra).

Every problem is an :class:`InputError` (a ``ValueError``) naming the file, column and
row; labels go through the package's one parser (:func:`spe.scores.as_labels`).
"""

from __future__ import annotations

import csv
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..exceptions import InputError, InputWarning
from ._validation import as_labels


@dataclass
class Table:
    """A table's text cells by column, with the file row number of each record.

    ``blank_rows`` are the file rows that held nothing (skipped, and reported by the
    readers that skip them); ``rows[i]`` is the file row of record ``i`` (header = row 1).
    """

    path: Path
    columns: dict[str, list[str]]
    rows: list[int] = field(default_factory=list)
    blank_rows: list[int] = field(default_factory=list)

    def column(self, name) -> list[str]:
        if name not in self.columns:
            raise InputError(f"column {name!r} not found in {self.path}; columns are: {', '.join(self.columns)}")
        return self.columns[name]

    def warn_if_blank(self):
        """An :class:`InputWarning` naming the skipped blank rows, if any."""
        if self.blank_rows:
            warnings.warn(self.blank_note(), InputWarning, stacklevel=3)

    def blank_note(self) -> str | None:
        """A one-line note on skipped blank rows, or None."""
        if not self.blank_rows:
            return None
        shown = ", ".join(map(str, self.blank_rows[:5])) + (", ..." if len(self.blank_rows) > 5 else "")
        return f"{self.path}: skipped {len(self.blank_rows)} blank row(s) (file row {shown})"


def read_table(path) -> Table:
    path = Path(path)
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
        cols = {str(c): ["" if v is None else str(v) for v in df[c].tolist()] for c in df.columns}
        return Table(path, cols, rows=list(range(2, len(df) + 2)))
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
            table = Table(path, {h.strip(): [] for h in header})
            names = list(table.columns)
            for row in reader:
                if not any(cell.strip() for cell in row):
                    table.blank_rows.append(reader.line_num)
                    continue
                table.rows.append(reader.line_num)
                for name, cell in zip(names, row + [""] * (len(names) - len(row))):
                    table.columns[name].append(cell.strip())
    except UnicodeDecodeError:
        raise InputError(f"could not read {path}: not a text CSV file") from None
    except OSError as exc:
        raise InputError(f"could not read {path}: {exc.strerror}") from None
    # A trailing newline is not a blank record worth a note.
    while table.blank_rows and table.blank_rows[-1] > (table.rows[-1] if table.rows else 1):
        table.blank_rows.pop()
    return table


def parse_scores(cells, name, rows=None) -> np.ndarray:
    """Floats from text cells; ``rows`` are the file row numbers used in messages."""
    out = np.empty(len(cells))
    for i, cell in enumerate(cells):
        try:
            out[i] = float(cell)
        except ValueError:
            row = rows[i] if rows is not None else i + 2
            what = "is blank" if not cell else f"{cell!r} is not a number"
            raise InputError(f"score column {name!r}, row {row}: {what}") from None
    if out.size == 0:
        raise InputError(f"score column {name!r} has no rows")
    return out


def parse_labels(cells, name, positive_label=None, rows=None) -> np.ndarray:
    """Labels from text cells through the package's one label parser (file rows named)."""
    try:
        return as_labels(cells, len(cells), positive_label=positive_label,
                         rows=rows if rows is not None else range(2, len(cells) + 2))
    except ValueError as exc:
        raise InputError(f"label column {name!r}: {exc}") from None


def load_scores(path, score_col, label_col=None, positive_label=None):
    """(scores, labels or None) from a CSV or Parquet file's columns."""
    table = read_table(path)
    scores = parse_scores(table.column(score_col), score_col, table.rows)
    labels = (None if label_col is None
              else parse_labels(table.column(label_col), label_col, positive_label, table.rows))
    table.warn_if_blank()
    return scores, labels
