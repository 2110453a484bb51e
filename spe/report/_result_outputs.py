"""The parts of :class:`~spe.report.SPEResult` a user takes away: per-item outputs on the
caller's item index (P(positive), which items to label next) and tidy tables.

Methods of :class:`~spe.report.SPEResult`, bound in its class body (so the API page
lists them with the class): they read the result's ``items``, ``data``, ``weights``,
``group_prob``, ``positive_counts``, ``label_posterior`` and metric methods.
"""

from __future__ import annotations

import numpy as np

from ..calibration import calibrate as calibrate_scores
from ..calibration import item_probabilities
from ..metrics import RANDOM_SHARE, suggest
from ..metrics import label_values as item_label_values
from ..scores import align_on_index
from ._frames import estimate_record, records_frame


def prob_positive(self):
    """Posterior P(y_i = 1 | data) for every item (labeled items: their label): an
    (N,) array, or a pandas Series on the caller's index when the scores were one.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> res.prob_positive().shape
    (1797,)
    >>> import pandas as pd
    >>> ids = pd.Index([f"img{i}" for i in range(scores.size)])
    >>> res = spe.fit(pd.Series(scores, ids), pd.Series(labels, ids), model="platt", n_draws=200, seed=0,
    ...               progress=False)
    >>> res.prob_positive().index[:2].tolist()
    ['img0', 'img1']
    """
    return self.items.wrap(item_probabilities(self.weights @ self.group_prob, self.data), "prob_positive")


def calibrate(self, scores):
    """Recalibrated P(y = 1 | score) for new scores (see :func:`spe.calibration.calibrate`);
    a pandas Series in gives a Series on its index.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> p = res.calibrate([-2.0, 0.0, 2.0])
    >>> bool(np.all(np.diff(p) > 0))
    True
    """
    items, scores = align_on_index(scores)
    return items.wrap(calibrate_scores(self.label_posterior, scores), "prob_positive")


def label_values(self, target="pr", threshold=None) -> np.ndarray:
    """(N,) expected reduction of ``target``'s posterior variance from labeling each item
    (``"pr"``, ``"ap"``, ``"auroc"``, ``"max_f1"``, ``"prevalence"``, or ``"threshold"``
    with ``threshold=t``: precision and recall when predicting positive at score >= t;
    0 if labeled); a pandas Series on the caller's index when the scores were one.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> values = res.label_values()
    >>> values.shape, float(values[~np.isnan(labels)].max())
    ((1797,), 0.0)
    """
    return self.items.wrap(self._label_values(target, threshold), "label_value")


def _label_values(self, target, threshold) -> np.ndarray:
    self.data.require_items("label_values / suggest_labels (which items to label)")
    return item_label_values(self._sweep_of("sample"), self.weights, self.positive_counts, self.data, target,
                             threshold)


def suggest_labels(self, k=10, target="pr", random_share=RANDOM_SHARE, seed=None,
                   threshold=None):
    """The ``k`` unlabeled items to label next (see :func:`spe.metrics.suggest`): their
    0-based positions (an array), or a list of the caller's index labels when the scores
    were a pandas Series; ``seed=None`` uses the fit's seed; ``threshold`` with
    ``target="threshold"``.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> picks = res.suggest_labels(3)
    >>> picks.shape, bool(np.isnan(labels[picks]).all())
    ((3,), True)
    """
    rng = np.random.default_rng(self._export_seed if seed is None else seed)
    return self.items.labels(suggest(self._label_values(target, threshold), self.data, k, random_share, rng))


#: The scalar metrics of :meth:`to_frame`, by the name in its ``metric`` column.
FRAME_METRICS = ("prevalence", "average precision", "AUROC", "max F1")


def to_records(self, level=0.9, kind="sample") -> list[dict]:
    """:meth:`to_frame`'s rows as a list of dicts (no pandas needed).

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> res.to_records()[0]["metric"]
    'prevalence'
    """
    methods = (self.prevalence, self.average_precision, self.auroc, self.max_f1)
    return [estimate_record(method(level, kind), metric=name, kind=kind)
            for name, method in zip(FRAME_METRICS, methods)]


def to_frame(self, level=0.9, kind="sample"):
    """The scalar metrics as a tidy pandas DataFrame, one row per metric.

    Parameters
    ----------
    level : float, default=0.9
        Level of the equal-tailed credible intervals.
    kind : {"sample", "population"}, default="sample"
        Performance on these items, or that of the score model (see :meth:`pr_curve`).

    Returns
    -------
    pandas.DataFrame
        Columns ``metric`` (prevalence, average precision, AUROC, max F1), ``kind``,
        ``estimate`` (posterior median), ``lower``, ``upper`` (interval ends) and
        ``level``.

    Raises
    ------
    ImportError
        pandas is not installed (:meth:`to_records` gives the same rows as dicts).

    See Also
    --------
    summary : the same numbers in words, with the fit's diagnostics.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> res.to_frame().columns.tolist()
    ['metric', 'kind', 'estimate', 'lower', 'upper', 'level']
    >>> res.to_frame()["metric"].tolist()
    ['prevalence', 'average precision', 'AUROC', 'max F1']
    """
    return records_frame(self.to_records(level, kind))
