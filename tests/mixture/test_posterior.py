"""Posterior sampling: IS vs MCMC on the same posterior, band calibration, exactness."""

import numpy as np
import pytest

import spe
import spe.mixture._posterior as posterior_mod
from spe.metrics import Sweep, sample_precision_at_recall
from spe.mixture import get_component
from spe.mixture import fit_map
from spe.mixture import MixtureModel
from spe.exceptions import SamplingWarning
from spe.mixture._posterior import importance_sample, run_emcee
from spe.mixture import sample_posterior
from spe.scores import prepare

from tests.helpers import MIXTURE_ON_MODEL_DATA, hide_labels, simulate_scores

THETA = [0.3, 2.0, 0.1, 0.7, 0.12]
GRID = np.linspace(0.05, 0.95, 19)


def true_sample_curve(res, y, grid):
    d = res.data
    pos = np.bincount(d.group, weights=y, minlength=d.n_groups)
    return sample_precision_at_recall(Sweep(pos[None, :], d.n_total), grid)[0]


@pytest.mark.statistical
def test_importance_sampling_agrees_with_emcee():
    z, y = simulate_scores("gamma", "truncnorm", THETA, 2000, seed=7)
    data = prepare(z, hide_labels(y, 10, seed=8))
    model = MixtureModel(get_component("gamma"), get_component("truncnorm"))
    fit = fit_map(model, data)
    is_post = importance_sample(fit, data, 2000, np.random.default_rng(0))
    mc_post = run_emcee(fit, data, 2000, np.random.default_rng(1))
    assert is_post.khat < 0.7
    for j in range(model.n_params):
        sd = np.sqrt(is_post.weights @ (is_post.theta[:, j] - is_post.mean()[j]) ** 2)
        # Monte Carlo error of the difference of two means with ESS >= ~400 each
        assert abs(is_post.mean()[j] - mc_post.mean()[j]) < 4 * sd * np.sqrt(1 / is_post.ess + 1 / mc_post.ess)


@pytest.mark.statistical
def test_importance_sampling_and_emcee_agree_on_precision():
    z, y = simulate_scores("gamma", "truncnorm", THETA, 2000, seed=17)
    labels = hide_labels(y, 10, seed=18)
    r_is = spe.fit(z, labels, families=("gamma", "truncnorm"), inference="is", seed=1, n_draws=2000,
                   **MIXTURE_ON_MODEL_DATA)
    r_mc = spe.fit(z, labels, families=("gamma", "truncnorm"), inference="emcee", seed=1, n_draws=2000,
                   **MIXTURE_ON_MODEL_DATA)
    assert r_mc.posterior.method == "emcee"
    grid = np.array([0.2, 0.5, 0.8])
    c_is, c_mc = r_is.pr_curve(grid), r_mc.pr_curve(grid)
    width = c_is.upper - c_is.lower
    np.testing.assert_array_less(np.abs(c_is.precision - c_mc.precision), 0.25 * width + 1e-3)
    assert r_is.prevalence().mean == pytest.approx(r_mc.prevalence().mean, abs=0.01)


def test_fully_labeled_sample_curve_is_exact_with_zero_width():
    z, y = simulate_scores("gamma", "truncnorm", THETA, 500, seed=3)
    res = spe.fit(z, y, seed=0, n_draws=200, families=("normal", "normal"))  # the default search's pick here
    c = res.pr_curve(GRID)
    np.testing.assert_allclose(c.precision, true_sample_curve(res, y, GRID))
    np.testing.assert_array_equal(c.lower, c.upper)
    assert res.auroc().upper == res.auroc().lower


@pytest.mark.statistical
def test_sample_band_covers_the_truth_over_many_seeds():
    coverage = []
    for seed in range(50):
        rng = np.random.default_rng(seed)
        theta = [rng.uniform(0.15, 0.45), 2.0, 0.1, rng.uniform(0.55, 0.75), 0.12]
        z, y = simulate_scores("gamma", "truncnorm", theta, 1000, seed)
        # The model's frame: the Gamma's origin is 0 (the observed minimum would misplace it,
        # measured: coverage 0.80 instead of 0.91).
        res = spe.fit(z, hide_labels(y, 10, seed), families=("gamma", "truncnorm"),
                      seed=seed, n_draws=400, score_range=(0.0, max(1.0, z.max())), **MIXTURE_ON_MODEL_DATA)
        c = res.pr_curve(GRID, level=0.9)
        truth = true_sample_curve(res, y, GRID)
        coverage.append(np.mean((truth >= c.lower) & (truth <= c.upper)))
    assert np.mean(coverage) >= 0.85


def test_auto_falls_back_to_emcee_when_weights_degenerate(monkeypatch):
    z, y = simulate_scores("gamma", "truncnorm", THETA, 1000, seed=5)
    data = prepare(z, hide_labels(y, 10, seed=5))
    fit = fit_map(MixtureModel(get_component("gamma"), get_component("truncnorm")), data)
    real_build = posterior_mod.build_proposal

    def far_too_narrow(fit, data, form):
        q = real_build(fit, data, form)
        return posterior_mod.Proposal(form, q.mean, q.cov * 1e-3)

    monkeypatch.setattr(posterior_mod, "build_proposal", far_too_narrow)
    with pytest.warns(SamplingWarning, match="falling back to MCMC"):
        post = sample_posterior(fit, data, n_draws=300, rng=np.random.default_rng(0), inference="auto")
    assert post.method == "emcee" and post.importance_khat > 0.7
    assert np.allclose(post.weights, 1 / 300)


def test_same_seed_same_result_and_different_seed_differs():
    z, y = simulate_scores("gamma", "truncnorm", THETA, 800, seed=2)
    labels = hide_labels(y, 10, seed=2)
    a = spe.fit(z, labels, seed=42, n_draws=200)
    b = spe.fit(z, labels, seed=42, n_draws=200)
    c = spe.fit(z, labels, seed=43, n_draws=200)
    np.testing.assert_array_equal(a.posterior.theta, b.posterior.theta)
    np.testing.assert_array_equal(a.pr_curve().draws, b.pr_curve().draws)
    assert not np.array_equal(a.posterior.theta, c.posterior.theta)


@pytest.mark.statistical
def test_adaptive_importance_sampling_recovers_from_a_poor_proposal(monkeypatch):
    """A proposal 5x too narrow gives k-hat > 0.7; the adapted mixture must still agree
    with emcee on the same posterior."""
    z, y = simulate_scores("gamma", "truncnorm", THETA, 2000, seed=7)
    data = prepare(z, hide_labels(y, 10, seed=8))
    model = MixtureModel(get_component("gamma"), get_component("truncnorm"))
    fit = fit_map(model, data)
    good = posterior_mod.build_proposal

    def too_narrow(fit, data, form="student_t"):
        q = good(fit, data, form)
        return posterior_mod.Proposal(form, q.mean, q.cov / 25.0)

    monkeypatch.setattr(posterior_mod, "build_proposal", too_narrow)
    plain = importance_sample(fit, data, 1000, np.random.default_rng(0), adaptations=0)
    adapted = importance_sample(fit, data, 1000, np.random.default_rng(0))
    monkeypatch.undo()
    mc = run_emcee(fit, data, 2000, np.random.default_rng(1))
    assert plain.khat > 0.7 and plain.adaptations == 0
    assert adapted.khat <= 0.7 and adapted.adaptations >= 1
    assert adapted.n_draws == 1000 * (adapted.adaptations + 1)
    for j in range(model.n_params):
        sd = np.sqrt(adapted.weights @ (adapted.theta[:, j] - adapted.mean()[j]) ** 2)
        assert abs(adapted.mean()[j] - mc.mean()[j]) < 4 * sd * np.sqrt(1 / adapted.ess + 1 / mc.ess)


def test_emcee_fallback_starts_from_the_importance_draws(monkeypatch):
    z, y = simulate_scores("gamma", "truncnorm", THETA, 1000, seed=7)
    data = prepare(z, hide_labels(y, 10, seed=8))
    fit = fit_map(MixtureModel(get_component("gamma"), get_component("truncnorm")), data)
    monkeypatch.setattr(posterior_mod, "KHAT_THRESHOLD", -1.0)  # every importance sample "fails"
    seen = {}
    real_run = posterior_mod.run_emcee

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(posterior_mod, "run_emcee", spy)
    with pytest.warns(SamplingWarning, match="falling back to MCMC"):
        post = sample_posterior(fit, data, n_draws=300, rng=np.random.default_rng(0))
    assert post.method == "emcee" and seen["start_from"] is not None
    assert post.chains.shape[1] >= 32


@pytest.mark.statistical
def test_chain_on_pooled_scores_reweighted_agrees_with_emcee_on_exact_scores():
    """The fallback chain runs on pooled scores and is importance-weighted to the exact
    posterior: same posterior as emcee on the exact scores, within Monte Carlo error."""
    from spe.mixture._posterior import reweighted_chain
    from spe.scores import pooled

    rng = np.random.default_rng(11)
    y = (rng.random(1500) < 0.3).astype(float)
    s = 1 / (1 + np.exp(-np.where(y == 1, rng.normal(1.5, 1.2, y.size), rng.normal(-1.5, 1.0, y.size))))
    data = prepare(s, hide_labels(y, 20, seed=3), transform="logit")
    model = MixtureModel(get_component("normal"), get_component("normal"))
    fit = fit_map(model, data)
    fast = reweighted_chain(fit, data, pooled(data, 64), 1000, np.random.default_rng(0))
    exact = run_emcee(fit, data, 1000, np.random.default_rng(1))
    assert fast.method == "emcee" and fast.khat <= 0.7
    assert fast.weights.sum() == pytest.approx(1.0) and np.ptp(fast.weights) > 0
    assert 0 < fast.ess <= fast.n_draws
    for j in range(model.n_params):
        sd = np.sqrt(exact.weights @ (exact.theta[:, j] - exact.mean()[j]) ** 2)
        assert abs(fast.mean()[j] - exact.mean()[j]) < 4 * sd * np.sqrt(1 / fast.ess + 1 / exact.ess)


def test_auto_fallback_prefers_the_pooled_chain(monkeypatch):
    from spe.scores import pooled

    rng = np.random.default_rng(12)
    y = (rng.random(1200) < 0.3).astype(float)
    s = 1 / (1 + np.exp(-np.where(y == 1, rng.normal(1.5, 1.2, y.size), rng.normal(-1.5, 1.0, y.size))))
    data = prepare(s, hide_labels(y, 20, seed=4), transform="logit")
    fit = fit_map(MixtureModel(get_component("normal"), get_component("normal")), data)
    monkeypatch.setattr(posterior_mod, "KHAT_THRESHOLD", 0.69)
    real_is = posterior_mod.importance_sample

    def failing(*args, **kwargs):
        post = real_is(*args, **kwargs)
        post.khat = 0.9
        return post

    monkeypatch.setattr(posterior_mod, "importance_sample", failing)
    with pytest.warns(SamplingWarning, match="falling back to MCMC"):
        post = sample_posterior(fit, data, n_draws=300, rng=np.random.default_rng(0),
                                pooled_data=pooled(data, 64))
    assert post.method == "emcee" and post.proposal.startswith("chain on pooled")
    assert post.khat <= 0.69 and post.importance_khat == 0.9


def test_precision_at_recall_matches_a_row_by_row_reading_of_the_curve():
    """The integer-count search equals the definition: precision at the first column
    (threshold from high to low) whose recall reaches r; recall 1 when a draw has no positive."""
    from spe.metrics import DEFAULT_RECALL_GRID

    rng = np.random.default_rng(11)
    for trial in range(60):
        g, m = int(rng.integers(2, 200)), int(rng.integers(1, 30))
        totals = rng.integers(1, 4, g)
        pos = rng.binomial(totals, rng.uniform(0, 1, g) ** rng.uniform(0.2, 5), size=(m, g))
        if trial % 3 == 0:
            pos[: m // 2] = 0  # draws without a positive
        for counts in (pos, 0.7 * pos + 0.1 * totals):  # sample and population sweeps
            sweep = Sweep(counts, totals)
            expected = np.empty((m, DEFAULT_RECALL_GRID.size))
            for row in range(m):
                tp, n_pos = sweep.tp[row], sweep.n_pos[row]
                recall = tp / n_pos if n_pos > 0 else np.ones(g)
                for j, r in enumerate(DEFAULT_RECALL_GRID):
                    k = int(np.flatnonzero(recall >= r - 1e-12)[0])
                    expected[row, j] = tp[k] / sweep.predicted[k]
            np.testing.assert_allclose(sample_precision_at_recall(sweep, DEFAULT_RECALL_GRID), expected,
                                       rtol=0, atol=1e-15)
