"""The parts of :class:`~spe.multiclass.MulticlassResult` a user takes away: per-item
outputs on the caller's item index (each item's class probabilities, its predicted class)
and tidy tables.

Methods of :class:`~spe.multiclass.MulticlassResult`, bound in its class body (so the
API page lists them with the class): they read the result's ``items``, ``classes``,
``class_draws``, ``predicted`` and metric methods.
"""

from __future__ import annotations

import numpy as np

from ..report import records_frame
from ._frames import class_shares, result_records


def class_probabilities(self):
    """Each item's posterior probability of each class: the share of the draws giving
    it that class (labeled items: 1 for their class).

    Returns
    -------
    numpy.ndarray of shape (N, K) or pandas.DataFrame
        A DataFrame on the caller's index, one column per class, when the scores were
        a pandas DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
    >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
    >>> p = res.class_probabilities()
    >>> p.shape, bool(np.allclose(p.sum(axis=1), 1))
    ((100, 3), True)
    """
    return self.items.wrap_frame(class_shares(self.class_draws, self.n_classes), self.classes)


def predicted_class(self):
    """The classifier's top-1 class of each item, by name (``classes``).

    Returns
    -------
    numpy.ndarray of shape (N,) or pandas.Series
        A Series on the caller's index when the scores were a pandas DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]] * 50)
    >>> spe.fit_multiclass(probs, model="temperature", n_draws=50, seed=0).predicted_class()[:2]
    array([0, 2])
    """
    return self.items.wrap(np.asarray(self.classes, dtype=object)[self.predicted]
                           if self.classes != list(range(self.n_classes)) else self.predicted, "predicted_class")


def to_records(self, level=0.9) -> list[dict]:
    """:meth:`to_frame`'s rows as a list of dicts (no pandas needed)."""
    return result_records(self, level)


def to_frame(self, level=0.9):
    """The metrics as a tidy pandas DataFrame: overall, then per class.

    Parameters
    ----------
    level : float, default=0.9
        Level of the equal-tailed intervals.

    Returns
    -------
    pandas.DataFrame
        Columns ``metric``, ``class`` (None for accuracy, macro F1 and macro AP; the
        class's name for precision, recall, f1, prevalence and one-vs-rest average
        precision), ``estimate`` (posterior median), ``lower``, ``upper``, ``level``.

    Raises
    ------
    ImportError
        pandas is not installed (:meth:`to_records` gives the same rows as dicts).

    See Also
    --------
    per_class, confusion_matrix : their own frames with ``as_frame=True``.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
    >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
    >>> df = res.to_frame()
    >>> df["metric"].unique().tolist()
    ['accuracy', 'macro F1', 'macro AP', 'precision', 'recall', 'f1', 'prevalence', 'average precision']
    """
    return records_frame(self.to_records(level))
