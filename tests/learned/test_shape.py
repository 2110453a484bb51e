"""The map prior's dependence on the shape of the scores: the shape read off the scores, the
prior it gives, recovery of a planted tail effect, and the round trip through a saved prior."""

import numpy as np
import pytest
from scipy import special

import spe
from spe.calibration import Features, MapPrior, fit_calibration_map, score_shape
from spe.learned import WIDE, ClassifierPrior, fit_hyperprior, set_summary

TRUE_TOP_EFFECT = -1.0


def tailed_margins(rng, n, stretch):
    """Normal margins whose top quarter is stretched by ``stretch`` (a longer top tail)."""
    s = rng.normal(size=n)
    cut = np.quantile(s, 0.75)
    return np.where(s > cut, cut + stretch * (s - cut), s)


def tail_sets(n_sets, n_items, seed):
    """Sets whose top segment's log slope falls by 1 per unit of log top-tail length (the
    plateau of real maps), every other part of the map from one prior."""
    rng = np.random.default_rng(seed)
    sets, shapes = [], []
    for _ in range(n_sets):
        s = tailed_margins(rng, n_items, np.exp(rng.uniform(-0.5, 1.5)))
        features = Features.for_scores("spline", s, False)
        shape = score_shape(features, s)
        u = rng.normal(0.5, 0.2, features.n_slopes)
        u[-1] += TRUE_TOP_EFFECT * shape["top_tail"]
        logit = rng.normal(-0.5, 0.3) + features(s) @ np.exp(u)
        y = (rng.random(n_items) < special.expit(logit)).astype(float)
        sets.append((s, y))
        shapes.append(shape)
    return sets, shapes


def test_a_longer_top_tail_flattens_only_the_top_segment():
    prior = MapPrior(0.0, 1.0, 0.0, 1.0, shape_effects=(("top_tail", -1.0, 0.5), ("spread", 0.5, 0.0)))
    mean = prior.given_shape({"spread": 0.2, "top_tail": 1.5, "bottom_tail": 3.0}, 4).moments(4)[0]
    assert mean.tolist() == pytest.approx([0.0, 0.1, 0.1, 0.1, 0.1 - 1.0])
    assert prior.given_shape({}, 4).moments(4)[0].tolist() == [0.0] * 5  # no shape: the centre's prior
    with pytest.raises(ValueError, match="unknown shape terms"):
        MapPrior(0.0, 1.0, 0.0, 1.0, shape_effects=(("kurtosis", 1.0, 0.0),))


def test_a_mixture_priors_alternatives_take_the_shape_too():
    flat = MapPrior(0.0, 1.0, 0.0, 1.0)
    other = MapPrior(0.0, 1.0, 0.0, 1.0, shape_effects=(("top_tail", -1.0, 0.5),))
    shaped = flat.with_alternatives([("other", 0.3, other)]).given_shape({"top_tail": 1.5}, 4)
    (_, _, first), (_, weight, second) = shaped.components()
    assert first.moments(4)[0].tolist() == [0.0] * 5 and weight == pytest.approx(0.3)
    assert second.moments(4)[0].tolist() == pytest.approx([0.0, 0.0, 0.0, 0.0, -1.0])
    assert second.shape_effects == ()


def test_the_shape_is_read_off_all_items_and_grows_with_the_tail():
    rng = np.random.default_rng(0)
    short, long = (tailed_margins(rng, 500, k) for k in (1.0, 4.0))
    top = [score_shape(Features.for_scores("spline", s, False), s)["top_tail"] for s in (short, long)]
    assert top[1] > top[0] + 0.4  # in standardised units: the stretch widens the spread too
    assert set(score_shape(Features.for_scores("platt", short, False), short)) == {"spread"}  # no knots


@pytest.mark.statistical
def test_a_planted_tail_effect_is_recovered_from_eighty_sets():
    sets, shapes = tail_sets(80, 600, seed=0)
    summaries = [set_summary(s, y)[1:] for s, y in sets]
    learned = fit_hyperprior(summaries, WIDE.map_prior("margin"), shapes)
    effects = {t: e for t, e, _ in learned.shape_effects}
    assert effects["top_tail"] == pytest.approx(TRUE_TOP_EFFECT, abs=0.3)
    assert abs(effects["bottom_tail"]) < 0.3
    without = fit_hyperprior(summaries, WIDE.map_prior("margin"))
    assert without.shape_effects == ()


def test_fit_applies_the_shape_and_a_saved_prior_keeps_it(tmp_path):
    effects = (("top_tail", -1.0, 0.0),)
    maps = {k: MapPrior(0.0, 1.0, 0.0, 1.0, 0.5, (), effects) for k in WIDE.maps}
    prior = ClassifierPrior(maps, "test prior")
    assert ClassifierPrior.load(prior.save(tmp_path / "p.json")) == prior
    rng = np.random.default_rng(1)
    s = tailed_margins(rng, 400, 5.0)
    labels = np.where(np.arange(400) < 10, (rng.random(400) < special.expit(s)).astype(float), np.nan)
    fit = fit_calibration_map("spline", s, labels, probabilities=False, n_draws=200, rng=rng, prior=maps["margin"])
    shape = score_shape(fit.features, s)
    assert fit.prior.moments(4)[0][-1] == pytest.approx(-shape["top_tail"])
    res = spe.fit(s, labels, prior=prior, seed=0, progress=False, n_draws=200,
                  families=("gamma", "truncnorm"))  # the default search's pick
    assert np.isfinite(res.average_precision().value)


def test_the_shipped_prior_flattens_long_tails():
    """Learned on the corpus' development half: longer tails, flatter end segments."""
    for kind in ("probability", "margin"):
        effects = {t: e for t, e, _ in spe.learned.default_prior().map_prior(kind).shape_effects}
        assert effects["top_tail"] < 0 and effects["bottom_tail"] < 0
