"""The ANOVA design over arms: main effects of each attribute and pairwise interactions.

A Gaussian process over attribute combinations with the kernel

    k(a, a') = sum_k s_k^2 [a_k = a'_k] + s_pair^2 sum_{k<l} [a_k = a'_k][a_l = a'_l] + s_arm^2 [a = a']

is the same prior as the multilevel logistic model's random effects: one effect per level
of each attribute (variance s_k^2), one per level pair of each attribute pair (s_pair^2)
and one per arm (s_arm^2). Working with the effects instead of the M x M kernel matrix
keeps every solve at the size of the effects (hundreds), not of the arms (up to 10^4+).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import sparse


@dataclass(frozen=True)
class Effects:
    """Sparse indicator design of effects over arms.

    Attributes
    ----------
    matrix : scipy.sparse.csr_matrix (M, P)
        1 where arm a has the level (or level pair) of effect j.
    group : ndarray (P,)
        Variance group of each effect: ``0..A-1`` the main effect of attribute k,
        ``A`` every pairwise interaction.
    group_names : tuple of str
    multiplicity : ndarray (n_groups,)
        How many independent effects of a group an arm carries: 1 for an attribute's main
        effect, the number of attribute pairs for the interactions (their variances add).
    """

    matrix: sparse.csr_matrix
    group: np.ndarray
    group_names: tuple
    multiplicity: np.ndarray

    @property
    def n_effects(self) -> int:
        return self.matrix.shape[1]

    @property
    def n_groups(self) -> int:
        return len(self.group_names)


def anova_effects(codes: np.ndarray, names, pairs: bool = True) -> Effects:
    """Main effects of every attribute and, with ``pairs``, every pairwise interaction.

    Only levels and level pairs present among the arms get an effect (the others would
    only carry their prior).
    """
    codes = np.asarray(codes, dtype=np.int64)
    m, a = codes.shape
    columns, group = [], []
    # With one attribute its main effect is the arm deviation, with two the interactions
    # are: a duplicate group would only make a ridge in the scales' posterior.
    mains = a > 1
    with_pairs = pairs and a > 2
    for k in range(a if mains else 0):
        columns.append(codes[:, k])
        group.append(k)
    if with_pairs:
        for k, l in combinations(range(a), 2):
            columns.append(codes[:, k] * (codes[:, l].max() + 1) + codes[:, l])
            group.append(a)
    blocks, groups = [], []
    for col, g in zip(columns, group):
        _, index = np.unique(col, return_inverse=True)
        blocks.append(sparse.csr_matrix((np.ones(m), (np.arange(m), index.ravel())), shape=(m, index.max() + 1)))
        groups.append(np.full(index.max() + 1, g))
    group_names = tuple(f"main:{n}" for n in names if mains) + (("pairs",) if with_pairs else ())
    multiplicity = np.array([1.0] * (a if mains else 0) + ([a * (a - 1) / 2] if with_pairs else []))
    matrix = sparse.hstack(blocks, format="csr") if blocks else sparse.csr_matrix((m, 0))
    return Effects(matrix, np.concatenate(groups) if groups else np.zeros(0, dtype=np.int64), group_names,
                   multiplicity)
