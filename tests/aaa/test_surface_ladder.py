"""The AAA paper's ladder of estimators, the surface generator and the exploration policy.

Statistical checks on generated surfaces (seeded, small: seconds in total): the GPs recover
a known surface better than Beta-I, interval coverage, the Dirichlet term's effect on the
scales, pooling's reach; exact checks of the derivatives the Newton steps and the evidence
gradient rely on.
"""

from __future__ import annotations

import numpy as np
import pytest

from spe.surface import encode_arms
from spe.aaa import confidence_only, fit_beta_i
from spe.aaa._berngp import evidence_and_gradient, prior_mean
from spe.aaa._beta_binomial import beta_binomial, dirichlet, dirichlet_coupling
from spe.aaa import BetaGP
from spe.aaa import pick_items, suggest_items, variance_policy
from spe.surface import ArmEstimate
from spe.aaa._kernel import arm_data, distance, mismatch, nearest
from spe.aaa import LADDER, realised
from spe.aaa._observation_pooling import pool_sparse
from spe.surface import simulate_surface

LEVELS = (2, 3, 4, 5)


def surface(seed, n_items=5000, budget=300, levels=LEVELS):
    """A generated surface, its arms, a random labelled subset and the truths per arm."""
    sim = simulate_surface(n_items, levels, seed=seed)
    arms = encode_arms(sim.attributes)
    m = arms.n_arms
    size = np.bincount(arms.item_arm, minlength=m).astype(float)
    lab = np.random.default_rng(seed).choice(n_items, budget, replace=False)
    n_labeled = np.bincount(arms.item_arm[lab], minlength=m).astype(float)
    n_correct = np.bincount(arms.item_arm[lab], sim.correct[lab], m)
    return dict(sim=sim, arms=arms, size=size, n_labeled=n_labeled, n_correct=n_correct, levels=list(levels),
                population=np.bincount(arms.item_arm, sim.p, m) / size,
                realised=np.bincount(arms.item_arm, sim.correct, m) / size)


def fit(name, s, seed=0):
    return LADDER[name](s["arms"].codes, s["levels"], s["n_labeled"], s["n_correct"], seed=seed)


# ---- the generator ----------------------------------------------------------------------
def test_generator_realised_accuracies_match_its_p():
    sim = simulate_surface(40_000, (2, 3, 3, 4), seed=3)
    arms = encode_arms(sim.attributes)
    m = arms.n_arms
    right = np.bincount(arms.item_arm, sim.correct, m)
    expected = np.bincount(arms.item_arm, sim.p, m)
    var = np.bincount(arms.item_arm, sim.p * (1 - sim.p), m)
    keep = var > 1
    chi2 = np.sum((right - expected)[keep] ** 2 / var[keep])
    k = keep.sum()
    assert abs(chi2 / k - 1) < 4 * np.sqrt(2 / k)  # sum of squared z-scores ~ chi^2_k
    assert abs(sim.correct.mean() - sim.p.mean()) < 4 * np.sqrt(sim.p.var() / sim.p.size + 0.25 / sim.p.size)


def test_generator_makes_uneven_arms_and_an_informative_but_uncalibrated_confidence():
    sim = simulate_surface(20_000, (2, 3, 3, 4, 4, 5), seed=0)
    size = np.bincount(encode_arms(sim.attributes).item_arm)
    assert (size < 5).mean() > 0.3 and size.max() > 20 * np.median(size)
    assert np.corrcoef(sim.confidence, sim.p)[0, 1] > 0.3
    assert abs(sim.confidence.mean() - sim.p.mean()) > 0.03  # globally miscalibrated
    blind = simulate_surface(20_000, (2, 3, 3, 4, 4, 5), informative=False, seed=0)
    assert np.array_equal(blind.p, sim.p)  # the same surface, only the confidence differs
    assert abs(np.corrcoef(blind.confidence, blind.p)[0, 1]) < 0.05


def test_generator_rejects_bad_designs():
    with pytest.raises(ValueError, match="2-6 levels"):
        simulate_surface(100, (1, 3))
    with pytest.raises(ValueError, match="2-6 levels"):
        simulate_surface(100, (2, 7))
    with pytest.raises(ValueError, match="n_items"):
        simulate_surface(0, (2, 3))


# ---- estimation -------------------------------------------------------------------------
@pytest.mark.statistical
def test_every_gp_recovers_a_known_surface_better_than_beta_i():
    errors = {name: [] for name in ("Beta-I", "BernGP", "BetaGP", "BetaGP-SL", "BetaGP-SLP")}
    for seed in (0, 1):
        s = surface(seed, n_items=3000, budget=200)
        arms = s["size"] >= 5
        for name in errors:
            errors[name].append(np.mean((fit(name, s, seed).mean - s["population"])[arms] ** 2))
    beta_i = np.mean(errors.pop("Beta-I"))
    for name, err in errors.items():
        assert np.mean(err) < 0.7 * beta_i, (name, np.mean(err), beta_i)


def test_beta_i_covers_near_nominal_where_labels_outweigh_its_prior():
    hits = []
    for seed in range(4):
        s = surface(seed, budget=2000)
        lower, upper = fit("Beta-I", s, seed).interval(0.9)
        well = s["n_labeled"] >= 20
        hits.append(((lower <= s["population"]) & (s["population"] <= upper))[well])
    coverage = np.concatenate(hits).mean()
    assert 0.82 <= coverage <= 0.98, coverage


def test_berngp_realised_intervals_cover_near_nominal():
    coverage = []
    for seed in range(4):
        s = surface(seed)
        est = realised(fit("BernGP", s, seed), s["size"], s["n_labeled"], s["n_correct"], seed)
        lower, upper = est.interval(0.9)
        arms = s["size"] >= 5
        coverage.append(np.mean(((lower <= s["realised"] + 1e-12) & (s["realised"] <= upper + 1e-12))[arms]))
    assert 0.85 <= np.mean(coverage) <= 0.98, coverage


def test_every_ladder_entry_returns_seeded_draws_of_every_arm():
    s = surface(5, n_items=1000, budget=80, levels=(2, 3, 3))
    for name in LADDER:
        a, b = fit(name, s, seed=3), fit(name, s, seed=3)
        assert isinstance(a, ArmEstimate) and a.method == name
        assert a.draws.shape == (500, s["arms"].n_arms) and a.mean.shape == (s["arms"].n_arms,)
        assert np.all((a.draws >= 0) & (a.draws <= 1)) and np.all((a.mean >= 0) & (a.mean <= 1))
        np.testing.assert_array_equal(a.draws, b.draws)


def test_realised_form_keeps_labeled_items_as_observed():
    est = ArmEstimate(np.array([0.5, 0.5]), np.full((200, 2), 0.5))
    out = realised(est, n_items=[4, 10], n_labeled=[4, 2], n_correct=[3, 2], seed=0)
    np.testing.assert_allclose(out.draws[:, 0], 0.75)  # fully labeled: known exactly
    np.testing.assert_allclose(out.mean, [0.75, (2 + 8 * 0.5) / 10])
    with pytest.raises(ValueError, match="n_labeled <= n_items"):
        realised(est, n_items=[1, 10], n_labeled=[4, 2], n_correct=[3, 2])


# ---- the BetaGP mechanics ---------------------------------------------------------------
def test_dirichlet_term_raises_the_scale_of_heavily_observed_arms():
    """At the same hyperparameters, eq. 11 moves psi up where n_a is large, down where small."""
    s = surface(0, budget=1000)
    lab = s["n_labeled"] > 0
    codes, n, c = s["arms"].codes[lab], s["n_labeled"][lab], s["n_correct"][lab]
    dist = distance(codes, codes, np.full(codes.shape[1], 0.5))
    theta = np.array([0.0, 0.0, 0.0, 3.0])
    psi = {}
    for supervise in (False, True):
        latent = BetaGP(supervise_scale=supervise)._latent(theta, dist, 1.0, n, c)
        psi[supervise] = np.logaddexp(0.0, latent.mode().z[1])
    heavy, sparse = n >= np.quantile(n, 0.9), n <= 1
    ratio = {k: np.median(v[heavy]) / np.median(v[sparse]) for k, v in psi.items()}
    assert ratio[True] > 1.5 * ratio[False], ratio
    # with fitted hyperparameters too (weaker: the evidence keeps g smooth), heavy arms end up higher
    fitted = BetaGP(supervise_scale=True).fit(s["arms"].codes, s["levels"], s["n_labeled"], s["n_correct"])
    full_heavy, full_sparse = lab & (s["n_labeled"] >= np.quantile(n, 0.9)), s["n_labeled"] == 1
    assert np.median(fitted.psi[full_heavy]) > np.median(fitted.psi[full_sparse])


def test_pooling_touches_only_arms_below_the_threshold():
    rng = np.random.default_rng(0)
    codes = np.unique(rng.integers(0, 4, (60, 3)), axis=0)
    n = rng.integers(1, 12, codes.shape[0]).astype(float)
    c = np.floor(n * rng.uniform(0.2, 1.0, n.size))
    pooled = pool_sparse(codes, n, c, np.array([0.3, 0.6, 1.0]), below=5, k=3)
    sparse = n < 5
    np.testing.assert_array_equal(pooled[~sparse], c[~sparse])
    assert np.any(pooled[sparse] != c[sparse])
    assert np.all((pooled >= 0) & (pooled <= n))
    # a pooled accuracy lies between the arm's own and the most extreme of its neighbours'
    idx, _ = nearest(codes[sparse], codes, np.array([0.3, 0.6, 1.0]), 3)
    rates = np.column_stack([c[sparse] / n[sparse], (c / n)[idx]])
    pooled_rate = pooled[sparse] / n[sparse]
    assert np.all((rates.min(1) - 1e-12 <= pooled_rate) & (pooled_rate <= rates.max(1) + 1e-12))


def test_beta_binomial_and_dirichlet_derivatives_match_finite_differences():
    rng = np.random.default_rng(1)
    f, g = rng.normal(1, 1, 6), rng.normal(1, 2, 6)
    n = rng.integers(1, 30, 6).astype(float)
    c = np.floor(n * rng.random(6))
    _, grad, hess = beta_binomial(f, g, n, c)
    h = 1e-6
    for j, (df, dg) in enumerate(((1, 0), (0, 1))):
        e = np.eye(6) * h
        num_grad = [(beta_binomial(f + df * e[i], g + dg * e[i], n, c)[0]
                     - beta_binomial(f - df * e[i], g - dg * e[i], n, c)[0]) / (2 * h) for i in range(6)]
        num_hess = [(beta_binomial(f + df * e[i], g + dg * e[i], n, c)[1][i]
                     - beta_binomial(f - df * e[i], g - dg * e[i], n, c)[1][i]) / (2 * h) for i in range(6)]
        np.testing.assert_allclose(num_grad, grad[:, j], atol=1e-6)
        np.testing.assert_allclose(num_hess, hess[:, j, :], atol=1e-6)
    _, d_grad, d_hess = dirichlet(g, n)
    t, u = dirichlet_coupling(g)
    e = np.eye(6) * h
    num = np.array([(dirichlet(g + e[i], n)[1] - dirichlet(g - e[i], n)[1]) / (2 * h) for i in range(6)])
    np.testing.assert_allclose(num, np.diag(d_hess) + t * np.outer(u, u), atol=1e-6)
    np.testing.assert_allclose([(dirichlet(g + e[i], n)[0] - dirichlet(g - e[i], n)[0]) / (2 * h)
                                for i in range(6)], d_grad, atol=1e-6)


def test_berngp_evidence_gradient_matches_finite_differences():
    s = surface(2, n_items=3000, budget=200, levels=(2, 3, 4))
    data = arm_data(s["arms"].codes, s["levels"], s["n_labeled"], s["n_correct"])
    lab = data.labeled
    mism = mismatch(data.codes[lab], data.codes[lab]).astype(float)
    args = (mism, prior_mean(data), data.n_labeled[lab], data.n_correct[lab])
    theta = np.array([0.2, -0.4, 0.1, -1.0])
    _, grad = evidence_and_gradient(theta, *args)
    h = 1e-5
    num = [(evidence_and_gradient(theta + h * e, *args)[0] - evidence_and_gradient(theta - h * e, *args)[0]) / (2 * h)
           for e in np.eye(theta.size)]
    np.testing.assert_allclose(num, grad, rtol=1e-4, atol=1e-5)


# ---- exploration ------------------------------------------------------------------------
def test_variance_policy_takes_the_most_uncertain_arms_with_items_left():
    draws = np.random.default_rng(0).normal(0.5, [0.01, 0.3, 0.2, 0.25], size=(4000, 4)).clip(0, 1)
    est = ArmEstimate(np.full(4, 0.5), draws)
    picks = variance_policy(est, n_unlabeled=[5, 0, 5, 1], k=3, seed=0)
    assert picks.sum() == 3 and picks[1] == 0 and picks[3] <= 1  # arm 1 has no item left
    assert picks[3] == 1 and picks[2] == 2  # 3 first (0.25), then 2 twice as its variance stays top
    assert variance_policy(est, [1, 0, 0, 0], k=5, seed=0).tolist() == [1, 0, 0, 0]
    with pytest.raises(ValueError, match="arms"):
        variance_policy(est, [1, 2], k=1)


def test_suggested_items_are_unlabeled_items_of_the_chosen_arms():
    s = surface(4, n_items=2000, budget=100, levels=(2, 3, 4))
    item_arm = s["arms"].item_arm
    labeled = np.zeros(item_arm.size, dtype=bool)
    labeled[np.random.default_rng(4).choice(item_arm.size, 100, replace=False)] = True
    est = fit("BernGP", s)
    items = suggest_items(est, item_arm, labeled, 40, seed=1)
    assert items.size == 40 and not labeled[items].any() and np.unique(items).size == 40
    np.testing.assert_array_equal(items, suggest_items(est, item_arm, labeled, 40, seed=1))
    per_arm = np.zeros(s["arms"].n_arms, dtype=np.int64)
    per_arm[item_arm[~labeled][:3]] = 1
    picked = pick_items(item_arm, labeled, per_arm, seed=0)
    assert np.array_equal(np.bincount(item_arm[picked], minlength=per_arm.size), per_arm)


# ---- inputs -----------------------------------------------------------------------------
def test_bad_arm_data_gets_clear_errors():
    codes = np.array([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="no labeled items"):
        fit_beta_i(codes, [2, 2], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="exceeds"):
        fit_beta_i(codes, [2, 2], [1, 1], [2, 0])
    with pytest.raises(ValueError, match="0 .. n_levels - 1"):
        fit_beta_i(codes, [2, 1], [1, 1], [1, 0])
    with pytest.raises(ValueError, match="2 arms"):
        fit_beta_i(codes, [2, 2], [1, 1, 1], [1, 0, 0])
    with pytest.raises(TypeError, match="integer"):
        fit_beta_i(codes.astype(float), [2, 2], [1, 1], [1, 0])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        confidence_only([0, 1], [0.5, 1.5])
