"""The map prior as a mixture: the learned prior with the wide hand-set one (and, for
probabilities, "calibrated").

The shares are learned across sets (recovery of a planted share); a fit under the mixture
weighs the components by the labels' evidence (a classifier unlike the learned ones moves to
the wide component), its intervals hold over draws from the mixture prior itself, and with
shares of 0 it is the learned prior exactly.
"""

import dataclasses

import numpy as np
import pytest
from scipy import special

from spe.calibration import (
    CALIBRATED_COMPONENT,
    Features,
    MapPrior,
    fit_calibration_map,
)
from spe.learned import (
    WIDE,
    ClassifierPrior,
    component_prior,
    default_prior,
    fit_component_weights,
    set_summary,
)

TIGHT = MapPrior(0.0, 0.3, 0.0, 0.15, 0.5)


def labeled_margins(rng, slope, n):
    x = rng.normal(size=n)
    return x, (rng.random(n) < special.expit(slope * x)).astype(float)


def test_the_alternatives_are_components_with_their_prior_probabilities():
    prior = TIGHT.with_alternatives([("wide", 0.1, WIDE.maps["margin"]), ("calibrated", 0.2, CALIBRATED_COMPONENT)])
    names, weights, parts = zip(*prior.components())
    assert names == ("learned", "wide", "calibrated")
    assert weights == pytest.approx((0.7, 0.1, 0.2))
    assert parts == (TIGHT, WIDE.maps["margin"], CALIBRATED_COMPONENT)
    assert TIGHT.with_alternatives([("wide", 0.0, WIDE.maps["margin"])]).components() == [("learned", 1.0, TIGHT)]
    assert prior.given_shape({"spread": 1.0}, 4).alternatives == prior.alternatives  # kept through the shape
    with pytest.raises(ValueError, match="summing to less than 1"):
        TIGHT.with_alternatives([("wide", 0.6, WIDE.maps["margin"]), ("calibrated", 0.4, CALIBRATED_COMPONENT)])
    with pytest.raises(TypeError, match="MapPrior of its own"):
        TIGHT.with_alternatives([("nested", 0.1, prior)])


def test_draws_go_to_the_components_by_their_posterior_mass():
    from spe.calibration._map_posterior import _allocate

    assert _allocate(1000, [0.7, 0.3]) == [700, 300]
    assert _allocate(1000, [0.995, 0.005]) == [900, 100]  # enough draws to judge a minor component
    assert _allocate(1000, [0.9993, 0.0007]) == [1000, 0]  # not one stray draw
    assert sum(_allocate(7, [0.5, 0.5])) == 7


def test_a_share_of_zero_is_the_learned_prior_draw_for_draw():
    rng = np.random.default_rng(0)
    s, y = labeled_margins(rng, 1.0, 300)
    labels = np.where(np.arange(300) < 20, y, np.nan)
    plain, zero = (fit_calibration_map("spline", s, labels, probabilities=False, n_draws=400,
                                       rng=np.random.default_rng(1), prior=p)
                   for p in (TIGHT, TIGHT.with_alternatives([("wide", 0.0, WIDE.maps["margin"])])))
    np.testing.assert_array_equal(plain.c, zero.c)
    np.testing.assert_array_equal(plain.weights, zero.weights)


def test_labels_unlike_the_learned_prior_move_the_fit_to_the_wide_component():
    rng = np.random.default_rng(2)
    s, y = labeled_margins(rng, 8.0, 400)  # far steeper than TIGHT allows (slope 1 +- 15%)
    labels = np.where(np.arange(400) < 60, y, np.nan)
    fits = {w: fit_calibration_map("platt", s, labels, probabilities=False, n_draws=2000,
                                   rng=np.random.default_rng(3),
                                   prior=TIGHT.with_alternatives([("wide", w, WIDE.maps["margin"])]))
            for w in (0.0, 0.05)}
    slope = {w: float(f.weights @ f.slopes[:, 0]) for w, f in fits.items()}
    scale = Features.for_scores("platt", s, False).scale
    assert slope[0.0] < 1.6 < slope[0.05]  # the tight prior holds the slope near 1 (per sd)
    assert slope[0.05] == pytest.approx(8.0 * scale, rel=0.4)
    name, before, after = fits[0.05].component_shares[1]
    assert (name, before) == ("wide", 0.05) and after > 0.9  # the labels moved the share to the wide prior


@pytest.mark.statistical
def test_intervals_hold_over_draws_from_the_mixture_prior():
    """Simulation-based check: maps drawn from the contaminated prior itself, 25 labels each;
    the 90% interval of P(y = 1) at the top score should hold about 90% of the time."""
    prior = TIGHT.with_alternatives([("wide", 0.3, WIDE.maps["margin"])])
    rng = np.random.default_rng(4)
    s = rng.normal(size=200)
    features = Features.for_scores("platt", s, False)
    x_top = features(np.array([s.max()]))
    hits = []
    for _ in range(150):
        _, _, component = prior.components()[int(rng.random() < 0.3)]
        mean, cov = component.moments(1)
        u = rng.multivariate_normal(mean, cov)
        p = special.expit(u[0] + np.exp(u[1:]) @ features(s).T)
        y = np.where(np.arange(200) < 25, (rng.random(200) < p).astype(float), np.nan)
        fit = fit_calibration_map("platt", s, y, probabilities=False, n_draws=800, rng=rng, prior=prior)
        draws = special.expit(fit.c + fit.slopes[:, 0] * x_top[0, 0])
        order = np.argsort(draws)
        cdf = np.cumsum(fit.weights[order])
        lo, hi = draws[order][np.searchsorted(cdf, 0.05)], draws[order][np.searchsorted(cdf, 0.95)]
        truth = special.expit(u[0] + np.exp(u[1]) * x_top[0, 0])
        hits.append(lo <= truth <= hi)
    assert 0.84 <= np.mean(hits) <= 0.96


def test_the_shares_are_recovered_from_sets():
    rng = np.random.default_rng(5)
    sets = [labeled_margins(rng, slope, 400) for slope in [1.0] * 45 + [6.0] * 15]  # a quarter unlike
    summaries = [set_summary(s, y)[1:] for s, y in sets]
    share = fit_component_weights(summaries, TIGHT, {"wide": WIDE.maps["margin"]})["wide"]
    assert 0.15 <= share <= 0.4
    alike = fit_component_weights(summaries[:40], TIGHT, {"wide": WIDE.maps["margin"]})["wide"]
    assert alike < share
    far = MapPrior(3.0, 0.2, 2.0, 0.1, 0.5)  # a component no set resembles gets no share
    assert fit_component_weights(summaries, TIGHT, {"wide": WIDE.maps["margin"], "far": far})["far"] == 0.0


def test_the_component_weights_are_saved_and_attached_on_use(tmp_path):
    prior = dataclasses.replace(default_prior(), component_weights={"margin": {"wide": 0.07},
                                                                    "probability": {"calibrated": 0.2}})
    back = ClassifierPrior.load(prior.save(tmp_path / "p.json"))
    assert back.component_weights == {"margin": {"wide": 0.07}, "probability": {"calibrated": 0.2}}
    assert back.map_prior("margin").alternatives == (("wide", 0.07, WIDE.maps["margin"]),)
    assert back.map_prior("probability").alternatives == (("calibrated", 0.2, CALIBRATED_COMPONENT),)
    assert back.map_prior("saturated").alternatives == ()
    with pytest.raises(ValueError, match="summing to less than 1"):
        dataclasses.replace(prior, component_weights={"margin": {"wide": 1.5}})
    with pytest.raises(ValueError, match="unknown map prior components"):
        dataclasses.replace(prior, component_weights={"margin": {"tight": 0.1}})
    with pytest.raises(ValueError, match="no map prior component 'calibrated' for 'margin'"):
        component_prior("calibrated", "margin")


def test_a_calibrated_component_keeps_calibrated_probabilities_calibrated():
    """Calibrated probabilities, 10 labels, over six label draws: with the 'calibrated'
    component the fitted map stays nearer the identity than under a learned prior alone that
    expects over-confident probabilities (as the corpus' does)."""
    learned = MapPrior(-0.2, 0.4, -0.3, 0.7, 0.5)
    prior = {"learned": learned, "mixture": learned.with_alternatives([("calibrated", 0.25, CALIBRATED_COMPONENT)])}
    grid = np.linspace(0.05, 0.95, 19)
    error = {name: [] for name in prior}
    for seed in range(6):
        rng = np.random.default_rng(seed)
        s = rng.beta(1.0, 2.0, 1000)
        labels = np.where(np.arange(1000) < 10, (rng.random(1000) < s).astype(float), np.nan)
        for name, p in prior.items():
            fit = fit_calibration_map("spline", s, labels, probabilities=True, n_draws=500,
                                      rng=np.random.default_rng(seed), prior=p)
            error[name].append(float(np.mean(np.abs(fit.weights @ fit.prob_positive(grid) - grid))))
    assert all(m < a for m, a in zip(error["mixture"], error["learned"]))
    assert np.mean(error["mixture"]) < 0.9 * np.mean(error["learned"])
