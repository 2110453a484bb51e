"""Priors over classifiers: the evidence in closed form, recovery of a known hyperprior,
the shipped prior, and spe.fit's use of it."""

import numpy as np
import pytest
from scipy import special, stats

import spe
from spe.calibration import MapPrior
from spe.learned import (
    KINDS,
    WIDE,
    ClassifierPrior,
    default_prior,
    learn_prior,
    log_evidence,
    score_kind,
)


def margin_sets(n_sets, n_items, seed, c=(-1.0, 0.5), u=(1.0, 0.3), labeled=None, correlation=0.0):
    """Sets whose labels follow logit P = c + exp(u) * standardised score, (c, u) drawn per set
    (correlated by ``correlation``)."""
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(n_sets):
        s = rng.normal(size=n_items)
        z = (s - np.median(s)) / s.std()
        uniform = rng.random(n_items)
        z_c, z_u = rng.standard_normal(), rng.standard_normal()
        c_set, u_set = c[0] + c[1] * z_c, u[0] + u[1] * (correlation * z_c + np.sqrt(1 - correlation**2) * z_u)
        y = (uniform < special.expit(c_set + np.exp(u_set) * z)).astype(float)
        if labeled is not None:
            y[rng.choice(n_items, n_items - labeled, replace=False)] = np.nan
        sets.append((s, y))
    return sets


@pytest.mark.parametrize("r", [0.0, -0.6])  # c independent of the slope, or moving with it
def test_log_evidence_is_the_integral_of_prior_times_likelihood(r):
    prior = MapPrior(-0.5, 0.8, 0.3, 0.6, intercept_correlation=r)
    h, info = np.array([1.2, -0.4]), np.array([[2.0, 0.3], [0.3, 0.5]])
    grid = np.linspace(-8, 8, 801)
    theta = np.stack(np.meshgrid(grid, grid, indexing="ij"), -1)
    log_prior = stats.multivariate_normal([-0.5, 0.3], [[0.64, r * 0.48], [r * 0.48, 0.36]]).logpdf(theta)
    log_lik = theta @ h - 0.5 * np.einsum("...i,ij,...j->...", theta, info, theta)
    numeric = np.log(np.sum(np.exp(log_prior + log_lik)) * (grid[1] - grid[0]) ** 2)
    assert log_evidence(prior, h[None], info[None])[0] == pytest.approx(numeric, abs=1e-6)


def test_the_intercept_correlation_stays_a_covariance_for_any_number_of_segments():
    prior = MapPrior(0.0, 1.0, 0.0, 1.0, slope_correlation=0.0, intercept_correlation=-0.9)
    for n_slopes in (1, 2, 4, 8):
        assert np.linalg.eigvalsh(prior.moments(n_slopes)[1]).min() > 0
    with pytest.raises(ValueError, match="intercept_correlation"):
        MapPrior(0.0, 1.0, 0.0, 1.0, intercept_correlation=1.0)


@pytest.mark.statistical
def test_a_planted_intercept_slope_correlation_is_recovered():
    """Steeper maps sit lower at the median in these sets: the learned prior says so, and
    sets without the link learn none."""
    linked = learn_prior(margin_sets(80, 400, seed=2, c=(-1.0, 0.8), u=(1.0, 0.4), correlation=-0.8), base=WIDE)
    unlinked = learn_prior(margin_sets(80, 400, seed=3, c=(-1.0, 0.8), u=(1.0, 0.4)), base=WIDE)
    assert linked.map_prior("margin").intercept_correlation < -0.4
    assert abs(unlinked.map_prior("margin").intercept_correlation) < 0.3


@pytest.mark.statistical
def test_a_known_hyperprior_is_recovered_from_sixty_sets():
    learned = learn_prior(margin_sets(60, 400, seed=0), base=WIDE).map_prior("margin")
    assert learned.c_mean == pytest.approx(-1.0, abs=0.2)
    assert learned.c_sd == pytest.approx(0.5, abs=0.15)
    assert learned.u_mean == pytest.approx(1.0, abs=0.15)
    assert learned.u_sd < 0.45


@pytest.mark.statistical
def test_sets_with_few_labels_do_not_widen_the_prior_with_their_own_noise():
    """Deconvolution: 40 labels per set make each set's slope noisy, not the classifiers' spread."""
    learned = learn_prior(margin_sets(80, 400, seed=1, labeled=40), base=WIDE).map_prior("margin")
    assert learned.u_mean == pytest.approx(1.0, abs=0.3)
    assert learned.u_sd < 0.6  # the sets' own estimates spread far more (their noise)


def test_kinds_are_read_off_the_scores():
    rng = np.random.default_rng(0)
    p = rng.random(1000)
    assert score_kind(p, True) == "probability"
    assert score_kind(np.where(p < 0.5, 0.0, p), True) == "saturated"
    assert score_kind(np.round(p, 1), True) == "few-values"
    assert score_kind(rng.normal(size=1000), False) == "margin"
    assert score_kind(rng.normal(size=1000) + 5.0, False) == "score"  # its zero is no boundary
    # Group representatives: the weights decide where the 1% and 99% quantiles fall.
    assert score_kind([-1.0, 2.0, 3.0], False, weights=[1, 500, 500]) == "score"
    assert score_kind([-1.0, 2.0, 3.0], False, weights=[100, 500, 500]) == "margin"


def test_a_kind_with_fewer_sets_than_min_sets_keeps_the_base_prior_and_its_count():
    sets = margin_sets(6, 300, seed=4)
    base = default_prior()
    few = learn_prior(sets, base=base, min_sets=10)
    own = learn_prior(sets, base=base)
    assert few.maps["margin"] == base.maps["margin"] and few.n_sets["margin"] == base.n_sets["margin"]
    assert own.maps["margin"] != base.maps["margin"] and own.n_sets["margin"] == 6
    assert own.n_sets["probability"] == base.n_sets["probability"]  # no set of that kind: the base's, its count
    assert own.source == "learned from 6 labeled sets (spe.learn_prior)"


def test_a_prior_saved_before_the_score_kind_keeps_the_hand_set_prior_there():
    old = default_prior().to_dict()
    old["maps"].pop("score")
    old["n_sets"].pop("score", None)
    back = ClassifierPrior.from_dict(old)
    assert back.maps["score"] == WIDE.maps["score"] and back.maps["margin"] == default_prior().maps["margin"]
    assert "hand-set" in back.describe("score")


def test_the_shipped_prior_covers_every_kind():
    """(Its load time is measured by ``benchmarks.corpus.report``, not asserted here.)"""
    default_prior.cache_clear()
    prior = default_prior()
    assert set(prior.maps) == set(KINDS)
    assert prior.meta["corpus_hash"] and prior.meta["tasks"] > 100
    assert all(prior.n_sets[k] > 0 for k in KINDS)
    assert ClassifierPrior.from_dict(prior.to_dict()) == prior


def test_a_saved_prior_round_trips_and_bad_files_are_refused(tmp_path):
    path = WIDE.save(tmp_path / "p.json")
    assert ClassifierPrior.load(path) == WIDE
    (tmp_path / "bad.json").write_text("{\"format\": \"other\"}")
    with pytest.raises(ValueError, match="not a saved ClassifierPrior"):
        ClassifierPrior.load(tmp_path / "bad.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ValueError, match="not JSON"):
        ClassifierPrior.load(tmp_path / "broken.json")
    with pytest.raises(ValueError, match="missing"):
        ClassifierPrior({"margin": WIDE.maps["margin"]}, "incomplete")


def test_fit_uses_the_prior_it_is_given_and_names_it():
    scores, truth = spe.datasets.load_demo()
    labels = np.full(scores.size, np.nan)
    picked = np.random.default_rng(1).choice(scores.size, 10, replace=False)
    labels[picked] = truth[picked]
    learned = learn_prior(margin_sets(20, 400, seed=2), base=WIDE, source="my past evaluations")
    # the prior is checked, not the bands or the family search (the pair it picks here)
    quick = {"seed": 0, "n_draws": 200, "families": ("truncnorm", "truncnorm")}
    res = spe.fit(scores, labels, prior=learned, **quick)
    assert "my past evaluations; 'margin' scores (20 labeled sets)" in str(res.summary())
    assert res.fits["spline"].prior == learned.map_prior("margin")
    wide = spe.fit(scores, labels, prior="wide", **quick)
    assert wide.fits["spline"].prior == WIDE.map_prior("margin")
    assert "shipped" not in str(wide.summary()) and "hand-set" in str(wide.summary())
    with pytest.raises(TypeError, match="prior must be"):
        spe.fit(scores, labels, prior=3)


def test_learn_prior_takes_results_and_refuses_sets_without_both_classes():
    scores, truth = spe.datasets.load_demo()
    res = spe.fit(scores, truth, seed=0, model="spline")
    prior = learn_prior([res], base=WIDE)
    assert prior.n_sets["margin"] == 1
    with pytest.raises(ValueError, match="two labeled items of each class"):
        learn_prior([(scores, np.zeros(scores.size))], base=WIDE)
    with pytest.raises(TypeError, match="pairs or results"):
        learn_prior([scores], base=WIDE)


def test_a_fit_takes_the_prior_of_its_scores_kind():
    """A margin's zero is its boundary; a score that never crosses zero has no boundary there."""
    rng = np.random.default_rng(4)
    y = (rng.random(400) < 0.2).astype(float)
    margins = rng.normal(2.0 * y - 1.5, 1.0)
    labels = np.where(np.arange(400) < 10, y, np.nan)
    quick = {"seed": 0, "n_draws": 200, "families": ("truncnorm", "gamma-reflected")}  # the default search's pick
    assert "'margin' scores" in spe.fit(margins, labels, **quick).prior_note
    assert "'score' scores" in spe.fit(margins + 10.0, labels, **quick).prior_note
