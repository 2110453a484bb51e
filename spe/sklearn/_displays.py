"""PR and ROC curves with credible bands in scikit-learn's Display convention
(``from_estimator``, ``from_predictions``, ``plot``; like ``PrecisionRecallDisplay`` and
``RocCurveDisplay``), from all rows' scores and a few labels."""

from __future__ import annotations

import numpy as np

from ..report import SPEResult
from ._inputs import (
    binary_labels,
    fit_posterior,
    pick_response_method,
    positive_index,
    positive_scores,
    split_target,
)


class _BandDisplay:
    """What both displays share: building from a result, and drawing a line over a band."""

    _x_name = _y_name = _metric_name = ""

    def __init__(self, *, result: SPEResult | None = None, level=0.9, kind="sample", name=None, pos_label=None):
        self.result = result
        self.level = level
        self.kind = kind
        self.name = name
        self.pos_label = pos_label

    @classmethod
    def from_result(cls, result: SPEResult, *, level=0.9, kind="sample", name=None, pos_label=None, ax=None,
                    **kwargs):
        """The display of a fitted :class:`~spe.SPEResult` (no refit), drawn on ``ax``.

        Parameters
        ----------
        result : spe.SPEResult
            E.g. ``result_`` of a fitted :class:`SemisupervisedThresholdClassifier`.
        level, kind, name, pos_label, ax, **kwargs
            As for :meth:`from_estimator`.

        Returns
        -------
        display
        """
        if not isinstance(result, SPEResult):
            raise TypeError(f"result must be an SPEResult (from spe.fit), got {type(result).__name__}")
        display = cls(**cls._arrays(result, level, kind), result=result, level=level, kind=kind, name=name,
                      pos_label=pos_label)
        return display.plot(ax=ax, **kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, response_method="auto", pos_label=None, level=0.9, kind="sample",
                       name=None, ax=None, spe_params=None, random_state=None, **kwargs):
        """Score ``X`` with a fitted classifier, fit :func:`spe.fit` with the labels, draw.

        Parameters
        ----------
        estimator : fitted binary classifier
            With ``predict_proba`` or ``decision_function``.
        X : array-like of shape (n_samples, n_features)
            Every row the classifier scores, labeled or not.
        y : array-like of shape (n_samples,)
            The class of each labeled row; NaN, None or -1 (when -1 is not a class) for
            unlabeled rows.
        response_method : "auto", "predict_proba" or "decision_function"
            Where the scores come from; ``"auto"`` tries ``predict_proba`` first.
        pos_label : optional
            The positive class (default: ``estimator.classes_[1]``).
        level : float in (0, 1)
            The band's credible level.
        kind : "sample" or "population"
            The curve of these rows (default) or of the score model.
        name : str, optional
            The legend's name (default: the estimator's class name).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).
        spe_params : dict, optional
            Further options of :func:`spe.fit`.
        random_state : int, numpy Generator or None
            The seed of :func:`spe.fit`.
        **kwargs
            Passed to matplotlib's ``plot`` for the curve.

        Returns
        -------
        display
            With ``result`` (the :class:`~spe.SPEResult`), the curve and band arrays,
            ``line_``, ``band_``, ``ax_`` and ``figure_``.

        Raises
        ------
        ValueError
            Bad ``y`` (wrong length, a value that is no class, more than two classes).
        sklearn.exceptions.NotFittedError
            ``estimator`` is not fitted.
        """
        scores, labels, positive = cls._estimator_inputs(estimator, X, y, response_method, pos_label)
        return cls._from_scores(scores, labels, level=level, kind=kind, pos_label=positive, ax=ax,
                                name=type(estimator).__name__ if name is None else name, spe_params=spe_params,
                                random_state=random_state, **kwargs)

    @classmethod
    def from_predictions(cls, y, scores, *, pos_label=None, level=0.9, kind="sample", name=None, ax=None,
                         spe_params=None, random_state=None, **kwargs):
        """Fit :func:`spe.fit` to every row's score and the labels, draw.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            The class of each labeled row; NaN, None or -1 (when -1 is not a class) for
            unlabeled rows. Two classes must be labeled.
        scores : array-like of shape (n_samples,)
            Every row's score, higher meaning ``pos_label``.
        pos_label : optional
            The positive class (default: the second of the two classes in sorted order,
            1 for 0/1 labels).
        level, kind, name, ax, spe_params, random_state, **kwargs
            As for :meth:`from_estimator`.

        Returns
        -------
        display

        Raises
        ------
        ValueError
            Bad ``y`` or ``scores`` (lengths that differ, more than two classes, fewer
            than two classes labeled).
        """
        scores, labels, positive = cls._prediction_inputs(y, scores, pos_label)
        return cls._from_scores(scores, labels, level=level, kind=kind, pos_label=positive, ax=ax, name=name,
                                spe_params=spe_params, random_state=random_state, **kwargs)

    @classmethod
    def _from_scores(cls, scores, labels, *, level, kind, name, pos_label, ax, spe_params, random_state, **kwargs):
        result = fit_posterior(scores, labels, spe_params, random_state)
        return cls.from_result(result, level=level, kind=kind, name=name, pos_label=pos_label, ax=ax, **kwargs)

    @classmethod
    def _estimator_inputs(cls, estimator, X, y, response_method, pos_label):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(estimator)
        if not hasattr(estimator, "classes_"):
            raise TypeError(f"{type(estimator).__name__} has no classes_: from_estimator takes a fitted classifier")
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        y, labeled, classes = split_target(y, n, estimator.classes_)
        pos = positive_index(classes, pos_label)
        scores = positive_scores(estimator, X, pick_response_method(estimator, response_method), pos)
        return scores, binary_labels(y, labeled, classes, pos), classes[pos]

    @classmethod
    def _prediction_inputs(cls, y, scores, pos_label):
        scores = np.asarray(scores, dtype=float)
        if scores.ndim != 1:
            raise ValueError(f"scores must be one score per row (1-D), got shape {scores.shape}")
        y, labeled, classes = split_target(y, scores.shape[0])
        pos = positive_index(classes, pos_label)
        return scores, binary_labels(y, labeled, classes, pos), classes[pos]

    def _label(self, name):
        estimate = self._metric()
        head = f"{name} " if name else ""
        if estimate is None:
            return name
        value, (lo, hi) = estimate
        return f"{head}({self._metric_name} = {value:.2f} [{lo:.2f}, {hi:.2f}])"

    def _draw(self, x, y, lower, upper, ax, name, band_kwargs, kwargs):
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        name = self.name if name is None else name
        line_kwargs = {"label": self._label(name), **kwargs}
        (self.line_,) = ax.plot(x, y, **line_kwargs)
        fill = {"alpha": 0.25, "color": self.line_.get_color(), "linewidth": 0,
                "label": f"{100 * self.level:g}% band", **(band_kwargs or {})}
        self.band_ = ax.fill_between(x, lower, upper, **fill)
        suffix = "" if self.pos_label is None else f" (Positive label: {self.pos_label})"
        ax.set(xlabel=self._x_name + suffix, ylabel=self._y_name + suffix, xlim=(-0.01, 1.01), ylim=(-0.01, 1.01))
        if line_kwargs.get("label"):
            ax.legend(loc=self._legend_loc)
        self.ax_, self.figure_ = ax, ax.figure
        return self


class PrecisionRecallBandDisplay(_BandDisplay):
    """Precision-recall curve with a credible band, from all scores and a few labels.

    The counterpart of :class:`sklearn.metrics.PrecisionRecallDisplay` when most rows are
    unlabeled: precision at each recall of a grid is the posterior median of
    :meth:`spe.SPEResult.pr_curve`, the band its equal-tailed ``level`` interval.
    Build it with :meth:`from_estimator`, :meth:`from_predictions` or :meth:`from_result`.

    Parameters
    ----------
    precision, recall : ndarray
        The curve: posterior median precision on the recall grid.
    precision_lower, precision_upper : ndarray
        The band.
    average_precision : float, optional
        Posterior median of the average precision.
    average_precision_interval : (float, float), optional
        Its ``level`` credible interval.
    result : spe.SPEResult, optional
        The posterior the curve comes from.
    level : float
    kind : "sample" or "population"
    name : str, optional
        The legend's name.
    pos_label : optional
        The positive class, shown in the axis labels.

    Attributes
    ----------
    line_ : matplotlib Line2D
    band_ : matplotlib PolyCollection
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    See Also
    --------
    ROCBandDisplay : the ROC curve with its band.
    spe.SPEResult.pr_curve : the curve itself.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.sklearn import PrecisionRecallBandDisplay
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.integers(0, 2, 500); scores = y_true + rng.normal(size=500)
    >>> y = np.where(np.arange(500) < 40, y_true, -1)                # 40 labels
    >>> display = PrecisionRecallBandDisplay.from_predictions(
    ...     y, scores, random_state=0, spe_params={"n_draws": 200})
    >>> display.precision.shape, display.recall.shape
    ((101,), (101,))
    >>> bool(np.all(display.precision_lower <= display.precision_upper))
    True
    """

    _x_name, _y_name, _metric_name, _legend_loc = "Recall", "Precision", "AP", "lower left"

    def __init__(self, precision, recall, *, precision_lower, precision_upper, average_precision=None,
                 average_precision_interval=None, result=None, level=0.9, kind="sample", name=None,
                 pos_label=None):
        super().__init__(result=result, level=level, kind=kind, name=name, pos_label=pos_label)
        self.precision, self.recall = np.asarray(precision), np.asarray(recall)
        self.precision_lower, self.precision_upper = np.asarray(precision_lower), np.asarray(precision_upper)
        self.average_precision = average_precision
        self.average_precision_interval = average_precision_interval

    @staticmethod
    def _arrays(result, level, kind):
        curve, ap = result.pr_curve(level=level, kind=kind), result.average_precision(level=level, kind=kind)
        return {"precision": curve.precision, "recall": curve.recall, "precision_lower": curve.lower,
                "precision_upper": curve.upper, "average_precision": ap.value,
                "average_precision_interval": (ap.lower, ap.upper)}

    def _metric(self):
        if self.average_precision is None:
            return None
        return self.average_precision, self.average_precision_interval or (np.nan, np.nan)

    def plot(self, ax=None, *, name=None, band_kwargs=None, **kwargs):
        """Draw the curve and its band.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        name : str, optional
            Overrides the display's ``name`` in the legend.
        band_kwargs : dict, optional
            Passed to ``fill_between`` for the band.
        **kwargs
            Passed to ``plot`` for the curve.

        Returns
        -------
        PrecisionRecallBandDisplay
            Itself, with ``line_``, ``band_``, ``ax_`` and ``figure_``.
        """
        return self._draw(self.recall, self.precision, self.precision_lower, self.precision_upper, ax, name,
                          band_kwargs, kwargs)


class ROCBandDisplay(_BandDisplay):
    """ROC curve with a credible band, from all scores and a few labels.

    The counterpart of :class:`sklearn.metrics.RocCurveDisplay` when most rows are
    unlabeled: TPR at each FPR of a grid is the posterior median of
    :meth:`spe.SPEResult.roc_curve`, the band its equal-tailed ``level`` interval.

    Parameters
    ----------
    fpr, tpr : ndarray
        The curve: posterior median TPR on the FPR grid.
    tpr_lower, tpr_upper : ndarray
        The band.
    roc_auc : float, optional
        Posterior median of the AUROC.
    roc_auc_interval : (float, float), optional
        Its ``level`` credible interval.
    result, level, kind, name, pos_label
        As for :class:`PrecisionRecallBandDisplay`.

    Attributes
    ----------
    line_ : matplotlib Line2D
    band_ : matplotlib PolyCollection
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    See Also
    --------
    PrecisionRecallBandDisplay : the precision-recall curve with its band.
    spe.SPEResult.roc_curve : the curve itself.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from spe.sklearn import ROCBandDisplay
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 2)); y_true = (X[:, 0] + rng.normal(size=500) > 0).astype(int)
    >>> clf = LogisticRegression().fit(X[:100], y_true[:100])
    >>> y = np.full(500, np.nan); y[100:140] = y_true[100:140]
    >>> display = ROCBandDisplay.from_estimator(clf, X, y, random_state=0, spe_params={"n_draws": 200})
    >>> 0.5 < display.roc_auc < 1.0
    True
    """

    _x_name, _y_name, _metric_name, _legend_loc = "False Positive Rate", "True Positive Rate", "AUC", "lower right"

    def __init__(self, fpr, tpr, *, tpr_lower, tpr_upper, roc_auc=None, roc_auc_interval=None, result=None,
                 level=0.9, kind="sample", name=None, pos_label=None):
        super().__init__(result=result, level=level, kind=kind, name=name, pos_label=pos_label)
        self.fpr, self.tpr = np.asarray(fpr), np.asarray(tpr)
        self.tpr_lower, self.tpr_upper = np.asarray(tpr_lower), np.asarray(tpr_upper)
        self.roc_auc = roc_auc
        self.roc_auc_interval = roc_auc_interval

    @staticmethod
    def _arrays(result, level, kind):
        curve, auc = result.roc_curve(level=level, kind=kind), result.auroc(level=level, kind=kind)
        return {"fpr": curve.fpr, "tpr": curve.tpr, "tpr_lower": curve.lower, "tpr_upper": curve.upper,
                "roc_auc": auc.value, "roc_auc_interval": (auc.lower, auc.upper)}

    def _metric(self):
        if self.roc_auc is None:
            return None
        return self.roc_auc, self.roc_auc_interval or (np.nan, np.nan)

    def plot(self, ax=None, *, name=None, band_kwargs=None, **kwargs):
        """Draw the curve and its band (parameters and return as in
        :meth:`PrecisionRecallBandDisplay.plot`).

        Parameters
        ----------
        ax : matplotlib Axes, optional
        name : str, optional
        band_kwargs : dict, optional
        **kwargs
            Passed to ``plot`` for the curve.

        Returns
        -------
        ROCBandDisplay
        """
        return self._draw(self.fpr, self.tpr, self.tpr_lower, self.tpr_upper, ax, name, band_kwargs, kwargs)
