"""A labeling session: which items to label next, what the answers say, and a state file
that never loses an answer.

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
from . import _strategies as strategies
from ._metrics import BetaGroups, DirichletColumns
from ._priors import uninformative_prior

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


class Assessor:
    """Active Bayesian assessment of per-group accuracy.

    Parameters
    ----------
    groups : (N,) integer group code per item (see ``_groups``).
    predicted : (N,) the model's prediction per item; an answer counts as "correct" when it
        equals the prediction. ``None``: answers are already 1 = correct / 0 = wrong.
    prior : BetaGroups, optional; default uninformative Beta(1, 1) per group.
    prior_labels : items whose answers the prior already holds (an SPE-informed prior fitted
        on them): their answers are kept but not counted again by :attr:`posterior`.
    strategy : one of :data:`spe.assessment.STRATEGIES`.
    item_ids : optional ids (default 0..N-1), used in the state file's checksum.
    seed : int or None.
    strategy_options : passed to the strategy, e.g. ``compare=(g1, g2)`` for ``"ts-compare"``;
        ``cost`` (K x K, true x predicted) for ``"ts-costliest"`` (groups must be the predicted
        classes in sorted order, answers class labels); ``confidence`` (per item) and
        ``n_bins`` for ``"ts-least-calibrated"``.
    """

    def __init__(self, groups, predicted=None, prior=None, strategy="ts-estimate", item_ids=None,
                 seed=None, prior_labels=(), **strategy_options):
        self.groups = np.asarray(groups)
        if self.groups.ndim != 1 or not np.issubdtype(self.groups.dtype, np.integer) or self.groups.min() < 0:
            raise ValueError("groups must be a 1-D array of integer codes >= 0")
        n = self.groups.size
        self.n_groups = int(self.groups.max()) + 1
        self.predicted = None if predicted is None else np.asarray(predicted)
        if self.predicted is not None and self.predicted.shape != (n,):
            raise ValueError(f"predicted has shape {self.predicted.shape}, expected ({n},)")
        self.item_ids = np.arange(n) if item_ids is None else np.asarray(item_ids)
        if self.item_ids.shape != (n,):
            raise ValueError("item_ids must have one id per item")
        self.prior = prior if prior is not None else uninformative_prior(self.n_groups)
        if self.prior.n_groups != self.n_groups:
            raise ValueError(f"prior has {self.prior.n_groups} groups, data has {self.n_groups}")
        if strategy not in strategies.STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose from {strategies.STRATEGIES}")
        self.strategy = strategy
        self.strategy_options = strategy_options
        self.rng = np.random.default_rng(seed)
        self.labels: dict[int, object] = {}
        self.prior_labels = frozenset(int(i) for i in prior_labels)
        self.sizes = np.bincount(self.groups, minlength=self.n_groups).astype(float)

    # ---- state -----------------------------------------------------------------------
    @property
    def checksum(self) -> str:
        pred = [] if self.predicted is None else self.predicted.tolist()
        return items_checksum(self.item_ids.tolist(), self.groups.tolist(), pred)

    def is_correct(self, index, label) -> bool:
        if self.predicted is None:
            if label not in (0, 1, True, False, "0", "1"):
                raise ValueError(f"without predictions an answer must be 1 (correct) or 0 (wrong), got {label!r}")
            return int(label) == 1
        return str(label) == str(self.predicted[index])

    @property
    def posterior(self) -> BetaGroups:
        ok = np.zeros(self.n_groups)
        bad = np.zeros(self.n_groups)
        for i, label in self.labels.items():
            if i in self.prior_labels:
                continue  # the prior already holds this answer
            if self.is_correct(i, label):
                ok[self.groups[i]] += 1
            else:
                bad[self.groups[i]] += 1
        return self.prior.updated(ok, bad)

    def accuracy(self, level=0.9) -> dict:
        """Per-group accuracy (posterior mean, interval) and the size-weighted overall value."""
        post = self.posterior
        lo, hi = post.interval(level)
        w = self.sizes / self.sizes.sum()
        return {"mean": post.mean(), "lower": lo, "upper": hi, "overall": float(w @ post.mean())}

    # ---- the loop --------------------------------------------------------------------
    def unlabeled_mask(self) -> np.ndarray:
        mask = np.ones(self.groups.size, dtype=bool)
        mask[list(self.labels)] = False
        return mask

    def next_items(self, k=1) -> np.ndarray:
        """Indices of up to ``k`` items to label next (no item twice)."""
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        free = self.unlabeled_mask()
        if not free.any():
            return np.array([], dtype=np.int64)
        remaining = np.bincount(self.groups[free], minlength=self.n_groups).astype(float)
        if self.strategy in strategies.RICH_STRATEGIES:
            groups = self._rich_choice(remaining > 0, k)
        else:
            groups = strategies.choose(self.strategy, self.posterior, remaining > 0,
                                       self._weights(remaining), self.rng, k, **self.strategy_options)
        picked = []
        for g in groups:
            cand = np.flatnonzero(free & (self.groups == g))
            if cand.size:
                i = int(self.rng.choice(cand))
                picked.append(i)
                free[i] = False
        return np.array(picked, dtype=np.int64)

    def _rich_choice(self, available, k):
        opts = self.strategy_options
        if self.strategy == "ts-costliest":
            if "cost" not in opts or self.predicted is None:
                raise ValueError("'ts-costliest' needs predicted classes and cost=(K x K matrix)")
            return strategies.costliest(self.confusion_posterior(), opts["cost"], available, self.rng, k)
        if "confidence" not in opts:
            raise ValueError("'ts-least-calibrated' needs confidence=(per-item model confidence)")
        cells, cell_group, weight, conf = self.calibration_cells()
        return strategies.least_calibrated(cells, cell_group, weight, conf, available, self.rng, k)

    def confusion_posterior(self, pseudo_count=None) -> "DirichletColumns":
        """Dirichlet posterior of the confusion-matrix columns (groups = predicted classes)."""
        classes = sorted({str(c) for c in self.predicted})
        if len(classes) != self.n_groups:
            raise ValueError("confusion-matrix assessment needs one group per predicted class")
        index = {c: i for i, c in enumerate(classes)}
        kk = len(classes)
        alpha = np.full((kk, kk), (pseudo_count or 1.0) / kk)
        for i, label in self.labels.items():
            if str(label) in index:
                alpha[index[str(label)], self.groups[i]] += 1.0
        return DirichletColumns(alpha)

    def calibration_cells(self):
        """Beta posteriors of accuracy per (group, confidence bin) cell, with weights and confidence."""
        conf = np.asarray(self.strategy_options["confidence"], dtype=float)
        n_bins = int(self.strategy_options.get("n_bins", 5))
        bins = np.minimum((conf * n_bins).astype(int), n_bins - 1)
        cell = self.groups * n_bins + bins
        used, cell_of_item = np.unique(cell, return_inverse=True)
        ok = np.zeros(used.size)
        bad = np.zeros(used.size)
        for i, label in self.labels.items():
            (ok if self.is_correct(i, label) else bad)[cell_of_item[i]] += 1
        mean_conf = np.bincount(cell_of_item, weights=conf) / np.bincount(cell_of_item)
        size = np.bincount(cell_of_item).astype(float)
        cell_group = used // n_bins
        weight = size / self.sizes[cell_group]
        # Ji et al.: score-informed Beta(N0 s, N0 (1 - s)) prior per cell, N0 = 2.
        prior_a = 2.0 * np.clip(mean_conf, 1e-3, 1 - 1e-3)
        cells = BetaGroups(prior_a + ok, (2.0 - prior_a) + bad)
        return cells, cell_group, weight, mean_conf

    def _weights(self, remaining):
        if self.strategy == "random":
            return remaining
        return self.sizes / self.sizes.sum()

    def set_prior(self, prior, included=()):
        """Start from a new prior that already holds the answers of items ``included``."""
        if prior.n_groups != self.n_groups:
            raise ValueError(f"prior has {prior.n_groups} groups, data has {self.n_groups}")
        unknown = set(int(i) for i in included) - set(self.labels)
        if unknown:
            raise ValueError(f"the prior cannot hold answers that were never given (items {sorted(unknown)[:5]})")
        self.prior = prior
        self.prior_labels = frozenset(int(i) for i in included)

    def update(self, index, label):
        """Record the true label of item ``index`` (overwrites an earlier answer)."""
        index = int(index)
        if not 0 <= index < self.groups.size:
            raise IndexError(f"item index {index} out of range 0..{self.groups.size - 1}")
        self.is_correct(index, label)  # validates the answer
        if index in self.prior_labels and str(self.labels[index]) != str(label):
            raise ValueError(f"item {index}'s answer is part of the prior; refit the prior to change it")
        self.labels[index] = label

    # ---- persistence -----------------------------------------------------------------
    def to_state(self) -> dict:
        return {
            "version": STATE_VERSION,
            "checksum": self.checksum,
            "n_items": int(self.groups.size),
            "strategy": self.strategy,
            "strategy_options": {k: (np.asarray(v).tolist() if isinstance(v, (np.ndarray, tuple, list)) else v)
                                 for k, v in self.strategy_options.items()},
            "prior": {"alpha": self.prior.alpha.tolist(), "beta": self.prior.beta.tolist()},
            "prior_labels": sorted(self.prior_labels),
            "labels": [[int(i), lab if isinstance(lab, (int, float, str)) else str(lab)]
                       for i, lab in sorted(self.labels.items())],
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
    def load(cls, path, groups, predicted=None, item_ids=None) -> "Assessor":
        """Resume a session; the item list must match the one it was saved with."""
        state = read_state(path)
        prior = BetaGroups(state["prior"]["alpha"], state["prior"]["beta"])
        obj = cls(groups, predicted, prior, state["strategy"], item_ids,
                  prior_labels=state.get("prior_labels", ()), **state.get("strategy_options", {}))
        if state["checksum"] != obj.checksum:
            raise StateError(
                f"{path} was saved for a different item list (checksum mismatch): "
                "same items, groups and predictions are needed to resume"
            )
        obj.rng.bit_generator.state = state["rng"]
        obj.labels = {int(i): lab for i, lab in state["labels"]}
        return obj
