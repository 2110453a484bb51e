"""Several models' columns and the labels matched on the caller's pandas index.

A pandas DataFrame of models (one column each) carries one index for all of them; a dict
of pandas Series (or of class-probability DataFrames) carries one per model. The first
indexed input sets the item index; every other indexed input (another model's column,
the labels) is reordered to it, or refused when its labels differ
(:func:`spe.scores.align_on_index`). Inputs without an index are matched by position.
"""

from __future__ import annotations

from ..scores import ItemIndex, align_on_index


def _has_index(x) -> bool:
    """A pandas Series or DataFrame, recognised by its module (pandas is not imported)."""
    return type(x).__module__.split(".")[0] == "pandas" and getattr(x, "ndim", 0) in (1, 2) and hasattr(x, "index")


def align_models(scores, labels):
    """``(items, scores, labels)`` with every indexed model column and the labels in the
    item order of the first indexed input (a DataFrame of models: its own index).

    Raises
    ------
    InputError
        An indexed model column or labels whose index labels differ from the first one's.
    """
    if _has_index(scores) and getattr(scores, "ndim", 1) == 2:
        items, scores, labels = align_on_index(scores, labels, names=("scores", "labels"))
        return items, scores, labels
    if not isinstance(scores, dict):
        return ItemIndex(None), scores, labels
    indexed = [name for name, values in scores.items() if _has_index(values)]
    if not indexed:
        return ItemIndex(None), scores, labels
    first = indexed[0]
    others = [name for name in scores if name != first]
    names = (f"scores[{first!r}]", *(f"scores[{name!r}]" for name in others), "labels")
    items, primary, *rest = align_on_index(scores[first], *(scores[n] for n in others), labels, names=names)
    aligned = dict(zip(others, rest[:-1])) | {first: primary}
    return items, {name: aligned[name] for name in scores}, rest[-1]
