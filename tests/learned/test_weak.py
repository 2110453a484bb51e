"""The learned share of classifiers at chance: recovery from sets, round trips, and how
spe.fit pools the weak ranker with it."""

import numpy as np
import pytest
from scipy import special

import spe
from spe.calibration import Features, MapPrior, WeakRankerPrior
from spe.learned import WIDE, ClassifierPrior, default_prior, learn_prior
from spe.learned._weak import expected_auroc, learn_weak_ranker, set_aurocs
from spe.pooling import prior_weights


def sets_with_a_share_at_chance(n_sets, share, seed, n_items=400):
    """Margin sets: a ``share`` of classifiers whose labels ignore the scores, the rest with
    labels that follow them (a slope drawn per set)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n_sets):
        s = rng.normal(size=n_items)
        z = (s - np.median(s)) / s.std()
        b = 0.0 if k < share * n_sets else rng.lognormal(0.3, 0.5)
        out.append((s, (rng.random(n_items) < special.expit(-0.7 + b * z)).astype(float)))
    return out


def aurocs(sets, seed=0):
    rng = np.random.default_rng(seed)
    return [set_aurocs(s, y, (s, None), Features.for_scores("spline", s, False), MARGIN_MAP, rng) for s, y in sets]


#: A map prior for the generated sets' informative classifiers (log slopes around 0.3).
MARGIN_MAP = MapPrior(-0.7, 0.5, 0.3, 0.5, slope_correlation=0.9)


def test_expected_auroc_is_the_labels_auroc_for_zero_one_rows_and_half_at_ties():
    s = np.array([0.1, 0.4, 0.4, 0.8, 0.9])
    y = np.array([0, 1, 0, 1, 1.0])
    assert expected_auroc(s, y[None])[0] == pytest.approx((1 + 0.5 + 1 + 1 + 1 + 1) / 6)
    assert expected_auroc(s, np.full((1, 5), 0.3))[0] == pytest.approx(0.5, abs=0.06)


@pytest.mark.statistical
def test_the_share_at_chance_is_recovered_from_eighty_sets():
    part = learn_weak_ranker(aurocs(sets_with_a_share_at_chance(80, 0.2, seed=0)), base=None)
    assert part["weight"] == pytest.approx(0.2, abs=0.08)
    assert part["c_mean"] == pytest.approx(-0.7, abs=0.25)


def test_few_sets_and_no_base_learn_no_weak_ranker_and_a_base_is_kept_near():
    estimates = aurocs(sets_with_a_share_at_chance(6, 0.0, seed=1))
    assert learn_weak_ranker(estimates, base=None) is None
    base = default_prior().weak_ranker
    learned = learn_weak_ranker(estimates, base=base)
    assert abs(special.logit(learned["weight"]) - special.logit(base["weight"])) < 1.5  # six sets move it little
    four, three = [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3]
    assert set_aurocs(four, [1, 0, 1, 0], (four, None), Features.for_scores("spline", four, False), MARGIN_MAP,
                      np.random.default_rng(0)) is not None  # two of each class: enough
    assert set_aurocs(three, [1, 0, 0], (three, None), Features.for_scores("spline", three, False), MARGIN_MAP,
                      np.random.default_rng(0)) is None  # one positive


def test_the_shipped_prior_has_a_weak_ranker_and_a_saved_one_round_trips(tmp_path):
    prior = default_prior()
    weak = prior.weak_ranker_prior()
    assert isinstance(weak, WeakRankerPrior) and 0.0 < weak.weight < 0.5
    assert WIDE.weak_ranker_prior() is None  # spe 0.2's prior: no weak ranker, draws as before
    back = ClassifierPrior.load(prior.save(tmp_path / "p.json"))
    assert back.weak_ranker == pytest.approx(prior.weak_ranker)
    assert "at chance" in prior.describe("margin")


def test_learn_prior_keeps_the_base_mixture_weight_and_learns_a_weak_part():
    learned = learn_prior(sets_with_a_share_at_chance(8, 0.25, seed=2))
    assert learned.mixture_weight == default_prior().mixture_weight
    assert learned.weak_ranker_prior() is not None


def test_pool_prior_weights_give_the_weak_ranker_its_share_and_the_rest_as_before():
    assert prior_weights({"mixture": 0, "spline": 0}, 0.2) == {"mixture": 0.2, "spline": 0.8}
    got = prior_weights({"mixture": 0, "spline": 0, "weak": 0}, 0.2, 0.1)
    assert got == pytest.approx({"mixture": 0.18, "spline": 0.72, "weak": 0.1})
    assert prior_weights({"spline": 0, "weak": 0}, None, 0.1) == pytest.approx({"spline": 0.9, "weak": 0.1})
    assert prior_weights({"weak": 0}, None, 0.1) is None
    assert prior_weights({"mixture": 0, "spline": 0}, None) is None


def test_auto_pools_the_weak_ranker_with_the_learned_prior_and_not_with_the_wide_one():
    rng = np.random.default_rng(0)
    y = (rng.random(600) < 0.3).astype(float)
    scores = rng.normal(1.5 * y, 1.0)
    labels = np.where(np.arange(600) < 20, y, np.nan)
    pair = ("gamma", "gamma-reflected")  # the default search's pick: which models are pooled is checked
    learned = spe.fit(scores, labels, seed=0, n_draws=300, progress=False, families=pair)
    wide = spe.fit(scores, labels, seed=0, n_draws=300, progress=False, prior="wide", families=pair)
    assert "weak" in learned.fits and "weak" not in wide.fits
    spline = spe.fit(scores, labels, model="spline", seed=0, n_draws=300, progress=False)
    assert "weak" not in spline.fits
    assert "weak ranker" in learned.summary().text and "weak ranker" not in spline.summary().text
