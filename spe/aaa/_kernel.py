"""A kernel over attribute combinations, and the arm-level data every estimator takes.

The AAA paper embeds arms with a neural network and puts an RBF kernel on the embedding
(eq. 7). With categorical attributes we use the product Hamming kernel

    k(a, a') = s * exp(-sum_k w_k [a_k != a'_k]),

which is exactly an RBF over one-hot embeddings with one length scale per attribute
(``||onehot(a_k) - onehot(a'_k)||^2 = 2 [a_k != a'_k]``). Expanding the product shows it
is also an ANOVA kernel of every order: ``prod_k (e^{-w_k} + (1 - e^{-w_k}) [a_k = a'_k])``
weights interactions of more attributes by the product of their ``1 - e^{-w_k}``. A weight
``w_k = 0`` makes attribute k irrelevant; a large weight makes its levels independent.
No embedding network is learned: there is nothing here for it to learn from (the arms have
no features beyond their attribute values), and the per-attribute weights are fitted by
marginal likelihood like the paper's lengths.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Weak priors on the log kernel hyperparameters (a scale of ~1 on the logit scale is an
#: arm deviating by a factor ~e in odds; a weight of ~0.5 per mismatching attribute).
LOG_SCALE_PRIOR = (np.log(0.5), 1.5)
LOG_WEIGHT_PRIOR = (np.log(0.5), 1.5)


@dataclass(frozen=True)
class ArmData:
    """Arm-level data, checked: what the ladder's estimators see.

    Attributes
    ----------
    codes : ndarray (M, A) of int
        Level codes of each arm.
    n_levels : ndarray (A,) of int
        Number of levels of each attribute.
    n_labeled, n_correct : ndarray (M,) of float
        Labeled items and labeled items the classifier got right, per arm (may be
        fractional, e.g. items split across arms by uncertain attributes).
    """

    codes: np.ndarray
    n_levels: np.ndarray
    n_labeled: np.ndarray
    n_correct: np.ndarray

    @property
    def n_arms(self) -> int:
        return self.codes.shape[0]

    @property
    def labeled(self) -> np.ndarray:
        """Indices of the arms with at least one label."""
        return np.flatnonzero(self.n_labeled > 0)

    def global_accuracy(self) -> tuple[float, float]:
        """(right, labeled) over all arms."""
        return float(self.n_correct.sum()), float(self.n_labeled.sum())


def arm_data(codes, n_levels, n_labeled, n_correct) -> ArmData:
    """Check and package arm-level data (clear errors, not NumPy tracebacks)."""
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[0] == 0 or codes.shape[1] == 0:
        raise ValueError(f"codes must be an (M arms, A attributes) array of level codes, got shape {codes.shape}")
    if codes.dtype.kind not in "iu":
        raise TypeError(f"codes must be integer level codes, got dtype {codes.dtype}")
    n_levels = np.asarray(n_levels, dtype=np.int64).ravel()
    if n_levels.size != codes.shape[1]:
        raise ValueError(f"n_levels has {n_levels.size} entries but codes has {codes.shape[1]} attributes")
    if codes.min() < 0 or (codes >= n_levels[None, :]).any():
        raise ValueError("codes must lie in 0 .. n_levels - 1 for each attribute")
    n_labeled = np.asarray(n_labeled, dtype=float).ravel()
    n_correct = np.asarray(n_correct, dtype=float).ravel()
    for name, arr in (("n_labeled", n_labeled), ("n_correct", n_correct)):
        if arr.size != codes.shape[0]:
            raise ValueError(f"{name} has {arr.size} entries but there are {codes.shape[0]} arms")
        if not np.isfinite(arr).all() or arr.min() < 0:
            raise ValueError(f"{name} must be finite and nonnegative")
    if (n_correct > n_labeled + 1e-9).any():
        raise ValueError("n_correct exceeds n_labeled for some arm")
    if n_labeled.sum() <= 0:
        raise ValueError("no labeled items: these estimators need at least one label")
    return ArmData(codes.astype(np.int64), n_levels, n_labeled, np.minimum(n_correct, n_labeled))


def mismatch(codes_a: np.ndarray, codes_b: np.ndarray) -> np.ndarray:
    """(A, Ma, Mb) boolean: does attribute k differ between arm i of ``a`` and arm j of ``b``."""
    return codes_a.T[:, :, None] != codes_b.T[:, None, :]


def distance(codes_a: np.ndarray, codes_b: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted Hamming distance ``sum_k w_k [a_k != b_k]``, (Ma, Mb), one attribute at a time."""
    out = np.zeros((codes_a.shape[0], codes_b.shape[0]))
    for k, w in enumerate(weights):
        out += w * (codes_a[:, k][:, None] != codes_b[:, k][None, :])
    return out


@dataclass(frozen=True)
class HammingKernel:
    """``scale * exp(-sum_k weights_k [a_k != a'_k])`` over arms given as level codes."""

    scale: float
    weights: np.ndarray

    def __call__(self, codes_a: np.ndarray, codes_b: np.ndarray) -> np.ndarray:
        return self.scale * np.exp(-distance(codes_a, codes_b, self.weights))

    def with_scale(self, scale: float) -> "HammingKernel":
        return HammingKernel(float(scale), self.weights)

    @classmethod
    def from_log(cls, theta: np.ndarray) -> "HammingKernel":
        """From ``[log scale, log w_1, ..., log w_A]``."""
        theta = np.asarray(theta, dtype=float)
        return cls(float(np.exp(theta[0])), np.exp(theta[1:]))

    @property
    def log(self) -> np.ndarray:
        return np.concatenate([[np.log(self.scale)], np.log(self.weights)])


def log_prior(theta: np.ndarray) -> tuple[float, np.ndarray]:
    """Weak normal prior on ``[log scale, log weights]``: value and gradient."""
    means = np.r_[LOG_SCALE_PRIOR[0], np.full(theta.size - 1, LOG_WEIGHT_PRIOR[0])]
    sds = np.r_[LOG_SCALE_PRIOR[1], np.full(theta.size - 1, LOG_WEIGHT_PRIOR[1])]
    z = (theta - means) / sds
    return float(-0.5 * z @ z), -z / sds


def default_theta(n_attributes: int) -> np.ndarray:
    """The prior medians: where every hyperparameter search starts."""
    return np.r_[LOG_SCALE_PRIOR[0], np.full(n_attributes, LOG_WEIGHT_PRIOR[0])]


def nearest(codes: np.ndarray, candidates: np.ndarray, weights: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` candidates most similar to each arm (itself excluded if among them).

    Returns indices into ``candidates`` (Ma, k) and similarities ``exp(-distance)`` (Ma, k);
    ties broken by candidate order, so the result is deterministic.
    """
    d = distance(codes, candidates, weights)
    same = (codes[:, None, :] == candidates[None, :, :]).all(axis=2)
    d[same] = np.inf
    k = min(k, candidates.shape[0])
    idx = np.argsort(d, axis=1, kind="stable")[:, :k]
    sim = np.exp(-np.take_along_axis(d, idx, axis=1))
    return idx, sim
