"""The AAA paper's BetaGP-SL as written: every arm smoothed with [lambda rho_hat, lambda] and its
scale supervised by eq. 11 over all arms (spe.aaa.PAPER_LADDER), on small generated cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from spe.aaa import PAPER_LADDER, PaperBetaGP, fit_beta_i, smoothed_counts
from spe.surface import encode_arms, simulate_surface


def small_case(seed, n_items=3000, budget=250, levels=(2, 3, 4, 5)):
    sim = simulate_surface(n_items, levels, seed=seed)
    arms = encode_arms(sim.attributes)
    m = arms.n_arms
    size = np.bincount(arms.item_arm, minlength=m).astype(float)
    lab = np.random.default_rng(seed).choice(n_items, budget, replace=False)
    return dict(codes=arms.codes, levels=list(levels), size=size,
                n_labeled=np.bincount(arms.item_arm[lab], minlength=m).astype(float),
                n_correct=np.bincount(arms.item_arm[lab], sim.correct[lab], m),
                population=np.bincount(arms.item_arm, sim.p, m) / size)


def test_smoothing_adds_lambda_pseudo_labels_at_the_labeled_accuracy_to_every_arm():
    n, c = smoothed_counts([10, 0, 30], [5, 0, 27], strength=0.1)
    rho = 32 / 40
    np.testing.assert_allclose(n, [10.1, 0.1, 30.1])
    np.testing.assert_allclose(c, [5 + 0.1 * rho, 0.1 * rho, 27 + 0.1 * rho])
    with pytest.raises(ValueError, match="no labeled items"):
        smoothed_counts([0, 0], [0, 0])
    with pytest.raises(ValueError, match="strength"):
        smoothed_counts([1, 0], [1, 0], strength=0)


def test_the_papers_sl_supervises_the_scale_of_every_arm_including_unlabeled_ones():
    """Eq. 11 over all arms: an arm's fitted scale follows its (smoothed) label count, so arms
    without labels get smaller scales than heavily labeled ones; without the term (the
    paper's BetaGP) the scales barely follow the counts. The Dirichlet fitted to one draw of
    very uneven proportions n_a / n also pulls every scale down (their sum far below BetaGP's)."""
    s = small_case(0)
    psi = {}
    for supervise in (False, True):
        fit = PaperBetaGP(supervise_scale=supervise).fit(s["codes"], s["levels"], s["n_labeled"], s["n_correct"])
        psi[supervise] = fit.psi
    n = s["n_labeled"]
    unlabeled, heavy = n == 0, n >= np.quantile(n[n > 0], 0.75)
    assert unlabeled.sum() > 10 and heavy.sum() > 5
    rank = {k: stats.spearmanr(v, n)[0] for k, v in psi.items()}
    assert rank[True] > 0.4 and rank[True] > rank[False] + 0.15, rank
    assert np.median(psi[True][heavy]) > np.median(psi[True][unlabeled])
    assert psi[True].sum() < 0.5 * psi[False].sum()


@pytest.mark.statistical
def test_the_papers_sl_and_slp_recover_a_known_surface_better_than_beta_i():
    errors = {name: [] for name in ("Beta-I", "BetaGP-SL (paper)", "BetaGP-SLP (paper)")}
    for seed in (1, 2):
        s = small_case(seed)
        arms = s["size"] >= 5
        for name in errors:
            fit = fit_beta_i if name == "Beta-I" else PAPER_LADDER[name]
            est = fit(s["codes"], s["levels"], s["n_labeled"], s["n_correct"], seed=seed, n_draws=100)
            errors[name].append(np.mean((est.mean - s["population"])[arms] ** 2))
    beta_i = np.mean(errors.pop("Beta-I"))
    for name, err in errors.items():
        assert np.mean(err) < 0.7 * beta_i, (name, np.mean(err), beta_i)


def test_paper_ladder_entries_are_seeded_and_named():
    s = small_case(3, n_items=800, budget=60, levels=(2, 3, 3))
    for name, fit in PAPER_LADDER.items():
        a = fit(s["codes"], s["levels"], s["n_labeled"], s["n_correct"], seed=4, n_draws=50)
        b = fit(s["codes"], s["levels"], s["n_labeled"], s["n_correct"], seed=4, n_draws=50)
        assert a.method == name and a.draws.shape == (50, s["codes"].shape[0])
        np.testing.assert_array_equal(a.draws, b.draws)
