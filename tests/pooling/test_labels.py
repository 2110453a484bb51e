"""Label draws per score group: labeled positives plus Binomial(unlabeled, p) draws."""

import numpy as np

from spe.pooling import draw_positive_counts
from spe.scores import prepare


def test_positive_counts_have_binomial_means_and_variances_for_single_and_pooled_groups():
    # groups with one unlabeled item (distinct scores) and with several (tied scores)
    scores = np.r_[np.linspace(0.0, 1.0, 50), np.repeat([0.25, 0.75], 20)]
    labels = np.full(scores.size, np.nan)
    labels[[0, 10, 49]] = [0.0, 1.0, 1.0]
    data = prepare(scores, labels)
    assert {1, 20} <= set(data.n_unlabeled.tolist())
    rng = np.random.default_rng(7)
    p = rng.uniform(0.05, 0.95, data.n_groups)
    draws = 20000
    counts = draw_positive_counts(np.tile(p, (draws, 1)), data, np.random.default_rng(11))
    assert counts.dtype == np.int64 and counts.shape == (draws, data.n_groups)
    expected = data.n_pos + data.n_unlabeled * p
    sd = np.sqrt(data.n_unlabeled * p * (1 - p) / draws)
    z = (counts.mean(axis=0) - expected) / np.where(sd > 0, sd, 1.0)
    assert np.all(np.abs(z) < 4.5)
    var = counts.var(axis=0)
    np.testing.assert_allclose(var, data.n_unlabeled * p * (1 - p), rtol=0.1, atol=1e-12)
    # labeled items count exactly; no group exceeds its size
    assert np.all(counts >= data.n_pos) and np.all(counts <= data.n_pos + data.n_unlabeled)


def test_positive_counts_are_deterministic_given_the_generator():
    data = prepare(np.linspace(0, 1, 30), None)
    p = np.full((5, data.n_groups), 0.4)
    a = draw_positive_counts(p, data, np.random.default_rng(3))
    b = draw_positive_counts(p, data, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
