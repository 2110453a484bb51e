"""Figures of an elicitation (matplotlib): where the questions went, and what the rule is worth.

* :func:`plot_queries`: diagonal families: one class pair's face of the diagonal
  confusions, (C_rr, C_ii), with its upper and lower boundary (the best and worst rules
  predicting only r or i) and every matrix shown on it, numbered in the order asked;
  linear families: the sphere's questions projected on two mistakes' cells.
* :func:`plot_evaluation`: the metric's posterior for the elicited rule and for the
  classifier's top-1 rule on the user's items.
"""

from __future__ import annotations

import numpy as np

from ._chords import polygon_of
from ._space import offdiag


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.2, 4.4))
    return ax


def plot_queries(m, ax=None, *, pair: int = 0, cells=(0, 1)):
    """The questions' path. ``pair``: which class pair's face (diagonal families, in the
    order searched); ``cells``: which two off-diagonal cells (linear families)."""
    ax = _axes(ax)
    if m.family.startswith("diagonal"):
        return _plot_face(m, ax, pair)
    return _plot_sphere(m, ax, cells)


def _plot_face(m, ax, pair):
    groups = m.structure.get("pairs") or m.structure["faces"]
    if not 0 <= pair < len(groups):
        raise ValueError(f"pair must be in 0..{len(groups) - 1} (the class pairs in the order searched)")
    g = groups[pair]
    r, i = g.parent, g.child
    poly = polygon_of(m.space.pair(r, i, True))
    closed = np.vstack([poly.points, poly.points[:1]])
    ax.plot(closed[:, 0], closed[:, 1], color="0.5", lw=1, label=f"rules predicting only {m.classes[r]} or "
                                                                  f"{m.classes[i]}")
    shown = [q for q in m.history if np.allclose(np.delete(q.first, [r, i], axis=1), 0)
             and np.allclose(np.delete(q.second, [r, i], axis=1), 0)]
    pts = np.array([[np.diagonal(q.first)[[r, i]], np.diagonal(q.second)[[r, i]]] for q in shown])
    if pts.size:
        for j, (a, b) in enumerate(pts):
            ax.plot([a[0], b[0]], [a[1], b[1]], color="tab:blue", alpha=0.25, lw=0.8)
        order = np.arange(len(pts))
        ax.scatter(pts[:, 0, 0], pts[:, 0, 1], c=order, cmap="viridis", s=18, zorder=3, label="matrices compared")
        ax.scatter(pts[:, 1, 0], pts[:, 1, 1], c=order, cmap="viridis", s=18, zorder=3)
    best = np.diagonal(m.space.confusion(m.decide()))
    ax.set_xlabel(f"C[{m.classes[r]}, {m.classes[r]}] (right answers of class {m.classes[r]})")
    ax.set_ylabel(f"C[{m.classes[i]}, {m.classes[i]}]")
    ax.set_title(f"{len(shown)} questions on the face of {m.classes[r]} and {m.classes[i]} (colour: order)")
    if m.n_classes == 2:
        ax.scatter([best[r]], [best[i]], marker="*", s=160, color="tab:red", zorder=4, label="the elicited rule")
    ax.legend(loc="lower left", fontsize=8)
    return ax


def _plot_sphere(m, ax, cells):
    a, b = cells
    centre = m.space.center
    angle = np.linspace(0, 2 * np.pi, 200)
    ax.plot(centre[a] + m.radius * np.cos(angle), centre[b] + m.radius * np.sin(angle), color="0.6", lw=1,
            label="sphere (radius) around the random rule")
    pts = np.array([offdiag(q.first)[[a, b]] for q in m.history])
    ax.scatter(pts[:, 0], pts[:, 1], c=np.arange(len(pts)), cmap="viridis", s=8, label="matrices shown (colour: order)")
    best = centre + m.radius * (m.weights if m.family == "linear" else m.metric.tangent)
    ax.scatter([best[a]], [best[b]], marker="*", s=160, color="tab:red", zorder=4, label="elicited best point")
    names = m.weight_names
    ax.set_xlabel(f"C[{names[a]}]")
    ax.set_ylabel(f"C[{names[b]}]")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_title(f"{len(pts)} questions, projected on two mistakes")
    ax.legend(loc="lower left", fontsize=8)
    return ax


def plot_evaluation(evaluation, ax=None):
    """Weighted histograms of the metric's draws for the elicited rule and the top-1 rule."""
    ax = _axes(ax)
    lo = min(evaluation.rule.draws.min(), evaluation.argmax.draws.min())
    hi = max(evaluation.rule.draws.max(), evaluation.argmax.draws.max())
    bins = np.linspace(lo, hi if hi > lo else lo + 1e-9, 40)
    for est, color, label in ((evaluation.argmax, "0.5", "top-1 rule"), (evaluation.rule, "tab:red", "elicited rule")):
        ax.hist(est.draws, bins=bins, weights=est.weights, color=color, alpha=0.55, label=label)
        ax.axvline(est.value, color=color, lw=1.5)
    ax.set_xlabel("the elicited metric on these items")
    ax.set_ylabel("posterior probability")
    ax.set_title(f"P(elicited rule beats top-1) = {evaluation.prob_beats_argmax:.2f}")
    ax.legend(fontsize=8)
    return ax
