"""A labeling session's state file: never loses an answer, never resumes on other items.

Saving is atomic (write a temporary file in the same folder, fsync, rename over the old
one) and takes an exclusive lock on ``STATE.lock``; under the lock it first merges any
answers another process saved meanwhile, so two sessions on one state file lose nothing.
A state file records a checksum of the item list (ids, groups, predictions) so it cannot
be resumed against a different data set.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from .._util.state_files import atomic_write, locked
from ..exceptions import StateError
from ._metrics import BetaGroups, DirichletColumns

STATE_VERSION = 1


def items_checksum(item_ids, groups, predicted) -> str:
    h = hashlib.sha256()
    for part in (item_ids, groups, predicted):
        h.update(json.dumps([str(v) for v in part]).encode())
        h.update(b"|")
    return h.hexdigest()


def read_state(path) -> dict:
    path = Path(path)
    try:
        state = json.loads(path.read_text())
    except FileNotFoundError:
        raise
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise StateError(f"state file {path} is corrupted or truncated ({exc}); it was left untouched") from None
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION or "checksum" not in state:
        raise StateError(f"{path} is not an spe labeling-state file (version {STATE_VERSION})")
    return state


def _plain(value):
    return value if isinstance(value, (int, float, str)) else str(value)


class StateMixin:
    """Persistence of an :class:`~spe.assessment.Assessor` (``to_state``, ``save``, ``load``)."""

    @property
    def checksum(self) -> str:
        pred = [] if self.predicted is None else self.predicted.tolist()
        return items_checksum(self.item_ids.tolist(), self.groups.tolist(), pred)

    def to_state(self) -> dict:
        return {
            "version": STATE_VERSION,
            "checksum": self.checksum,
            "n_items": int(self.groups.size),
            "strategy": self.strategy,
            "strategy_options": {k: (np.asarray(v).tolist() if isinstance(v, (np.ndarray, tuple, list)) else v)
                                 for k, v in self.strategy_options.items()},
            "prior": {"alpha": self.prior.alpha.tolist(), "beta": self.prior.beta.tolist()},
            "confusion_prior": None if self.confusion_prior is None else self.confusion_prior.alpha.tolist(),
            "prior_labels": sorted(self.prior_labels),
            "prior_default": self.prior_is_default,
            "classes": None if self.declared_classes is None else [_plain(c) for c in self.declared_classes],
            "labels": [[int(i), _plain(lab)] for i, lab in sorted(self.labels.items())],
            "rng": self.rng.bit_generator.state,
        }

    def save(self, path):
        """Atomically write the session, merging answers saved concurrently by others."""
        path = Path(path)
        with locked(path):
            if path.exists():
                try:
                    other = read_state(path)
                except StateError:
                    other = None  # never merge from a broken file; overwrite it with good state
                if other is not None:
                    if other["checksum"] != self.checksum:
                        raise StateError(f"{path} belongs to a different item list; not overwritten")
                    for i, lab in other["labels"]:
                        self.labels.setdefault(int(i), lab)
            atomic_write(path, json.dumps(self.to_state()))

    @classmethod
    def load(cls, path, groups, predicted=None, item_ids=None):
        """Resume a session; the item list must match the one it was saved with.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from spe.assessment import Assessor
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "state.json"
        >>> a = Assessor([0, 0, 1], None, seed=0)
        >>> a.update(2, 1)
        >>> a.save(path)
        >>> Assessor.load(path, [0, 0, 1]).labels
        {2: 1}
        """
        state = read_state(path)
        prior = BetaGroups(state["prior"]["alpha"], state["prior"]["beta"])
        confusion = state.get("confusion_prior")
        obj = cls(groups, predicted, prior, state["strategy"], item_ids,
                  prior_labels=state.get("prior_labels", ()), classes=state.get("classes"),
                  confusion_prior=None if confusion is None else DirichletColumns(confusion),
                  **state.get("strategy_options", {}))
        obj.prior_is_default = bool(state.get("prior_default", True))  # files before it: Ji et al.'s cells
        if state["checksum"] != obj.checksum:
            raise StateError(
                f"{path} was saved for a different item list (checksum mismatch): "
                "same items, groups and predictions are needed to resume"
            )
        obj.rng.bit_generator.state = state["rng"]
        obj.labels = {int(i): lab for i, lab in state["labels"]}
        return obj
