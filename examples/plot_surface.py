"""
Accuracy on every combination of attributes, from 300 labels
=============================================================

A classifier is deployed on 20,000 items described by four attributes. Its accuracy
differs by attribute combination (an *arm*), and most of the ~100 arms hold few items.
``spe.accuracy_surface`` estimates every arm's accuracy with an interval from 300
labels and the classifier's own confidence on all 20,000 items, then says which items to
label next. The data are generated (``spe.surface.simulate_surface``), so the truth is
known and drawn beside the estimates.
"""

# %%
# Items, their attributes, the classifier's confidence, and 300 labels
# --------------------------------------------------------------------
import numpy as np

import spe
from spe.surface import simulate_surface

sim = simulate_surface(20_000, n_levels=(2, 3, 4, 4), seed=3)
names = {"attr0": "sex", "attr1": "region", "attr2": "age", "attr3": "device"}
attributes = {names[k]: np.char.add(f"{names[k][0]}", v.astype(str)) for k, v in sim.attributes.items()}
labeled = np.random.default_rng(0).choice(sim.n_items, 300, replace=False)
correct = np.full(sim.n_items, np.nan)  # NaN = not labeled
correct[labeled] = sim.correct[labeled]

surf = spe.accuracy_surface(attributes, correct, confidence=sim.confidence, seed=0)
print(surf.summary())

# %%
# Every arm's estimate against its truth
# --------------------------------------
# The truth of an arm is the accuracy over all its items. Arms of at least five items:
table = surf.to_dict(min_items=5)
truth = {}
for i, key in enumerate(zip(*(attributes[n] for n in attributes))):
    truth.setdefault(key, []).append(sim.correct[i])
true_acc = np.array([np.mean(truth[key]) for key in zip(*(table[n] for n in attributes))])
inside = (table["lower"] <= true_acc) & (true_acc <= table["upper"])
print(f"{true_acc.size} arms of >= 5 items; 90% intervals cover {inside.mean():.2f} of them; "
      f"mean squared error {np.mean((table['accuracy'] - true_acc) ** 2):.4f}")

import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(5, 5))
ax.errorbar(true_acc, table["accuracy"], yerr=[table["accuracy"] - table["lower"], table["upper"] - table["accuracy"]],
            fmt="o", ms=3, alpha=0.5, elinewidth=0.8)
ax.plot([0, 1], [0, 1], "k--", lw=0.8)
ax.set_xlabel("true accuracy of the arm")
ax.set_ylabel("estimate [90% interval]")
ax.set_title("300 labels, 20,000 confidences")

# %%
# Accuracy over two attributes
# ----------------------------
# Cells pool the arms below them by their items (intervals from the joint draws).
ax = surf.plot(rows="region", cols="age")

# %%
# A partial combination, and which items to label next
# ----------------------------------------------------
print(surf.marginal(sex="s0", age="a3"))
print("label next:", surf.suggest_labels(10))
