"""Pooling sparse arms' observations from their kernel neighbours (AAA paper 3.3, 4.4).

An arm with fewer than ``below`` labels (5 in the paper) replaces its observed accuracy by
a mean over its own labels and those of its ``k`` nearest labeled arms (3 in the paper),
each neighbour's labels weighted by its kernel similarity ``exp(-sum_k w_k [a_k != a'_k])``:

    pooled accuracy = (c_a + sum_j s_j c_j) / (n_a + sum_j s_j n_j).

The arm keeps its own number of labels ``n_a`` (its right answers become
``n_a * pooled accuracy``, possibly fractional): pooling smooths the *observation*, it does
not pretend the arm has more labels, which would shrink its Beta-binomial uncertainty and
its Dirichlet share (eq. 11) on borrowed evidence. Arms at or above the threshold are
untouched.
"""

from __future__ import annotations

import numpy as np

from ._kernel import nearest

POOL_BELOW = 5
POOL_NEIGHBOURS = 3


def pool_sparse(codes, n, c, weights, below: int = POOL_BELOW, k: int = POOL_NEIGHBOURS) -> np.ndarray:
    """Right answers per labeled arm after pooling the sparse ones (``n`` unchanged).

    Parameters
    ----------
    codes : (L, A) level codes of the labeled arms
    n, c : (L,) labels and right answers per arm
    weights : (A,) kernel weights per attribute
    below : arms with ``n < below`` are pooled
    k : number of neighbours

    Returns
    -------
    ndarray (L,)
    """
    c = np.asarray(c, dtype=float).copy()
    sparse = np.flatnonzero(n < below)
    if sparse.size == 0 or codes.shape[0] < 2:
        return c
    idx, sim = nearest(codes[sparse], codes, weights, k)
    right = c[sparse] + np.sum(sim * c[idx], axis=1)
    total = n[sparse] + np.sum(sim * n[idx], axis=1)
    c[sparse] = n[sparse] * right / total
    return c
