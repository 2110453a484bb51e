"""What an accuracy surface shows: its text summary and its heatmap."""

from __future__ import annotations

import numpy as np

from ._estimate import MIN_ITEMS

DESCRIPTIONS = {
    "confidence": "the confidence nearly right (recalibration prior tight at the identity) + attribute effects",
    "recalibrated": "the confidence recalibrated (Platt, wide prior) + attribute effects",
    "labels": "attribute effects learned from the labels alone (no confidence given)",
}


def surface_summary(surf, level: float, n_worst: int) -> str:
    c = surf.counts
    fit = surf.fit
    n_items, n_lab = c.n_items.sum(), c.n_labeled.sum()
    big = c.arm_items >= MIN_ITEMS
    lines = [
        "Accuracy surface (spe)",
        f"  items: {n_items:.0f} ({n_lab:.0f} labeled, {c.n_correct.sum():.0f} of them right); "
        f"{c.n_arms} arms over {len(surf.names)} attributes ({', '.join(surf.names)}), {int(big.sum())} of >= "
        f"{MIN_ITEMS:g} items",
        "  members (posterior probability from their marginal likelihoods):",
    ]
    for name, w in surf.weights.items():
        lines.append(f"    {name:<13}{w:6.3f}  {DESCRIPTIONS.get(name, '')}")
    if c.has_confidence:
        a, b = fit.arm_constant.mean(), fit.slope.mean()
        lines.append(f"  recalibration (pooled): logit P(right) = {a:.3g} + {b:.3g} logit(confidence), "
                     "averaged over arms")
    heaviest = fit.heaviest
    scales = ", ".join(f"{k.removeprefix('main:')} {v:.2g}" for k, v in fit.scales(heaviest).items())
    lines.append(f"  attribute effects' scales ({heaviest}, sd on the logit scale, most probable): {scales}")
    overall = surf.marginal(level=level)
    pct = f"{100 * level:g}%"
    lines.append(f"  accuracy over all items: {overall.mean:.3f} [{pct} {overall.lower:.3f}, {overall.upper:.3f}]")
    rows = surf.to_dict(level, min_items=MIN_ITEMS)
    order = np.argsort(rows["accuracy"])[:n_worst]
    if order.size:
        lines.append(f"  least accurate arms of >= {MIN_ITEMS:g} items (posterior mean [{pct}]):")
        for i in order:
            combo = ", ".join(f"{n}={rows[n][i]}" for n in surf.names)
            lines.append(f"    {rows['accuracy'][i]:.3f} [{rows['lower'][i]:.3f}, {rows['upper'][i]:.3f}]  "
                         f"n={rows['n_items'][i]:.0f} ({rows['n_labeled'][i]:.0f} labeled)  {combo}")
    lines.append("  next: suggest_labels(k) names the items whose labels shrink the uncertainty most; "
                 "to_frame() has every arm")
    return "\n".join(lines)


def plot_surface(surf, rows, cols, ax=None, level=0.9, truth=None):
    import matplotlib.pyplot as plt

    t = surf.table(rows, cols, level)
    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 + 1.5 * t["cols"].size, 1.0 + 0.8 * t["rows"].size))
    image = ax.imshow(t["mean"], vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
    for i in range(t["rows"].size):
        for j in range(t["cols"].size):
            if np.isnan(t["mean"][i, j]):
                continue
            text = f"{t['mean'][i, j]:.2f}\n[{t['lower'][i, j]:.2f}, {t['upper'][i, j]:.2f}]\nn={t['n_items'][i, j]:.0f}"
            if truth is not None:
                text += f"\ntrue {truth['mean'][i, j]:.2f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=7)
    ax.set_xticks(range(t["cols"].size), [str(v) for v in t["cols"]], rotation=30, ha="right")
    ax.set_yticks(range(t["rows"].size), [str(v) for v in t["rows"]])
    ax.set_xlabel(cols or "")
    ax.set_ylabel(rows)
    ax.set_title(f"accuracy: posterior mean [{100 * level:g}% interval]")
    ax.figure.colorbar(image, ax=ax, fraction=0.04)
    return ax
