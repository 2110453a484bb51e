"""What the estimators and displays of :mod:`spe.sklearn` share: the semisupervised target
(labels with NaN, None or -1 for unlabeled rows), the classifier's scores for the positive
class, and the seed of :func:`spe.fit`.

scikit-learn is imported here only inside functions, so ``import spe.sklearn`` costs
nothing until an estimator is used (``import spe`` never imports this room at all).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._fit import fit as spe_fit

#: How ``response_method="auto"`` looks for scores, first found first (as scikit-learn's
#: ``TunedThresholdClassifierCV`` does).
AUTO_METHODS = ("predict_proba", "decision_function")
RESPONSE_METHODS = ("auto", *AUTO_METHODS)
#: scikit-learn's semisupervised convention (``SelfTrainingClassifier``) for an unlabeled row.
UNLABELED = -1


def check_response_method(response_method) -> tuple[str, ...]:
    """The methods to try, in order, for ``response_method``."""
    if response_method not in RESPONSE_METHODS:
        raise ValueError(f"response_method must be one of {RESPONSE_METHODS}, got {response_method!r}")
    return AUTO_METHODS if response_method == "auto" else (response_method,)


def pick_response_method(estimator, response_method) -> str:
    """The first method of ``response_method`` that ``estimator`` has."""
    methods = check_response_method(response_method)
    for name in methods:
        if hasattr(estimator, name):
            return name
    raise AttributeError(f"{type(estimator).__name__} has none of {', '.join(methods)}: spe needs a score per "
                         "row (response_method)")


def positive_scores(estimator, X, method: str, pos_index: int) -> np.ndarray:
    """(n,) scores of ``estimator`` on ``X`` where higher means the class ``classes_[pos_index]``."""
    out = np.asarray(getattr(estimator, method)(X), dtype=float)
    if method == "predict_proba":
        if out.ndim != 2 or out.shape[1] != 2:
            raise ValueError(f"predict_proba returned shape {out.shape}: spe.sklearn takes binary classifiers "
                             "(two classes)")
        return out[:, pos_index]
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1:
        raise ValueError(f"decision_function returned shape {out.shape}: spe.sklearn takes binary classifiers "
                         "(one score per row)")
    return out if pos_index == 1 else -out


def missing_mask(y: np.ndarray) -> np.ndarray:
    """True where ``y`` is NaN or None (not yet the -1 marker)."""
    if y.dtype.kind == "f":
        return np.isnan(y)
    if y.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in y], dtype=bool)
    return np.zeros(y.shape, dtype=bool)


def _as_1d(y, n_rows) -> np.ndarray:
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None (use NaN or -1 "
                         "for unlabeled rows)")
    from sklearn.utils.validation import column_or_1d

    y = column_or_1d(np.asarray(y, dtype=object) if _is_pandas_nullable(y) else y, warn=True)
    if y.shape[0] != n_rows:
        raise ValueError(f"y has {y.shape[0]} rows but X has {n_rows}: one label (or NaN / -1) per row")
    return y


def _is_pandas_nullable(y) -> bool:
    """A pandas column of a nullable dtype (Int64, boolean: missing is pd.NA, not NaN)."""
    dtype = getattr(y, "dtype", None)
    return dtype is not None and not isinstance(dtype, np.dtype)


def _is_minus_one(y: np.ndarray, missing: np.ndarray) -> np.ndarray:
    out = np.zeros(y.shape, dtype=bool)
    if y.dtype.kind in "iuf":
        out = y == UNLABELED
    elif y.dtype.kind == "O":
        out = np.array([isinstance(v, numbers.Real) and not isinstance(v, bool) and v == UNLABELED for v in y])
    return out & ~missing


def split_target(y, n_rows, classes=None):
    """``(y, labeled mask, classes)`` of a semisupervised target.

    Unlabeled rows are NaN or None, or -1 (scikit-learn's semisupervised convention)
    when -1 is not one of the classes. ``classes``: the classifier's ``classes_``; None
    (a classifier to fit, or bare predictions) reads them off the labeled values: two
    distinct values, or three of which one is -1 (then the unlabeled marker).
    """
    y = _as_1d(y, n_rows)
    missing = missing_mask(y)
    minus_one = _is_minus_one(y, missing)
    _refuse_continuous(y[~missing & ~minus_one])
    if classes is None:
        present = _distinct(y[~missing])
        if len(present) == 3 and minus_one.any():
            present = _distinct(y[~missing & ~minus_one])
        if len(present) > 2:
            raise ValueError(f"Only binary classification is supported: y has {len(present)} classes "
                             f"({_show(present)}); unlabeled rows are NaN or -1")
        if len(present) < 2:
            raise ValueError(f"y has {'only one class' if present else 'no class'} labeled ({_show(present)}): "
                             "label at least one row of each of the two classes (unlabeled rows: NaN or -1)")
        classes = present
    classes = np.asarray(classes)
    if len(classes) != 2:
        raise ValueError(f"the classifier has {len(classes)} classes ({_show(classes)}): spe.sklearn takes binary "
                         "classifiers")
    if not _contains(classes, UNLABELED):
        missing = missing | minus_one
    labeled = ~missing
    unknown = [v for v in _distinct(y[labeled]) if not _contains(classes, v)]
    if unknown:
        raise ValueError(f"y holds {_show(unknown)}, none of the classes {_show(classes)}; mark unlabeled rows "
                         "with NaN, None or -1")
    return y, labeled, classes


def _refuse_continuous(labeled):
    """A regression target (non-integer numbers) is refused in scikit-learn's words."""
    if labeled.dtype.kind == "O" and all(isinstance(v, numbers.Real) for v in labeled.tolist()):
        labeled = labeled.astype(float)
    if labeled.dtype.kind == "f" and labeled.size and np.any(labeled != np.round(labeled)):
        raise ValueError("Unknown label type: continuous. y holds non-integer numbers: a classifier's target is "
                         "classes (NaN or -1 for unlabeled rows)")


def _distinct(values) -> list:
    try:
        return sorted(set(values.tolist()))
    except TypeError:  # mixed types: refused below with the values shown
        return list(dict.fromkeys(values.tolist()))


def _contains(classes, value) -> bool:
    return any(c == value and type(c) is not bool for c in np.asarray(classes).tolist())


def _show(values) -> str:
    return ", ".join(repr(v) for v in list(values)[:5]) + (", ..." if len(values) > 5 else "")


def positive_index(classes, pos_label) -> int:
    """0 or 1: where ``pos_label`` sits in ``classes`` (None: the second class, as in scikit-learn)."""
    if pos_label is None:
        return 1
    hits = [k for k, c in enumerate(np.asarray(classes).tolist()) if c == pos_label]
    if not hits:
        raise ValueError(f"pos_label={pos_label!r} is not one of the classes {_show(classes)}")
    return hits[0]


def binary_labels(y, labeled, classes, pos_index) -> np.ndarray:
    """(n,) 1.0 for the positive class, 0.0 for the other, NaN for unlabeled rows."""
    out = np.full(y.shape[0], np.nan)
    positive = np.asarray(classes).tolist()[pos_index]
    out[labeled] = [1.0 if v == positive else 0.0 for v in y[labeled].tolist()]
    return out


def spe_seed(random_state):
    """``spe.fit``'s seed from a scikit-learn ``random_state`` (int, None, Generator or RandomState)."""
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.Generator)):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    raise TypeError(f"random_state must be an int, None, a numpy Generator or RandomState, got {random_state!r}")


def fit_posterior(scores, labels, spe_params, random_state):
    """:func:`spe.fit` of ``scores`` and ``labels`` with the user's extra options."""
    params = dict(spe_params or {})
    clash = {"scores", "labels", "seed", "higher_is_positive", "positive_label"} & params.keys()
    if clash:
        raise ValueError(f"spe_params sets {sorted(clash)}: the estimator sets these itself (the seed from "
                         "random_state, the positive class from pos_label)")
    return spe_fit(scores, labels, seed=spe_seed(random_state), **params)
