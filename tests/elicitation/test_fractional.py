"""Linear-fractional metrics (#46): the two query spheres recover random metrics within 2 eps,
and answers that fit no linear-fractional metric fall back to the top-1 rule."""

import warnings

import numpy as np
import pytest

import spe
from spe.elicitation import noisy_oracle, paper_probabilities, random_metric, truthful_oracle
from spe.elicitation._fractional import canonical_of
from spe.elicitation._radius import sphere_radius
from spe.elicitation._space import ConfusionSpace
from spe.exceptions import InconsistentAnswersWarning

EPS = 0.01


@pytest.fixture(scope="module")
def three():
    return paper_probabilities((1, 3, 5), n=2000)


def test_random_linear_fractional_metrics_are_recovered_within_2_eps(three):
    """One sphere's best and worst points left 22-30% of these metrics outside 2 eps (their
    level sets nearly parallel); with the second sphere every one is inside."""
    space = ConfusionSpace(three)
    radius = sphere_radius(space)[0]
    rng = np.random.default_rng(46)
    for _ in range(5):
        truth = random_metric("linear-fractional", 3, rng)
        m = spe.elicit_metric(truthful_oracle(truth), three, family="linear-fractional", radius=radius)
        assert m.n_queries == m.max_queries == 640  # twice the linear family's count
        assert np.abs(m.weights - canonical_of(truth, space).weights).max() <= 2 * EPS
        first, second = m.structure["spheres"]
        assert second.radius == pytest.approx(first.radius / 2)
        assert truth(space.full_matrix(second.centre)) > truth(space.full_matrix(first.centre))


def test_noisy_answers_fall_back_to_top1_and_answers_no_metric_fits_say_so(three, monkeypatch):
    """Coin-flip answers within 0.001 (the sphere's points differ by less): each search's
    lapse is learned, the draws spread, and the rule used is top-1. When no draw is a valid
    linear-fractional metric at all, the point estimate stands in and the summary says so."""
    rng = np.random.default_rng(7)
    truth = [random_metric("linear-fractional", 3, rng) for _ in range(2)][1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InconsistentAnswersWarning)
        m = spe.elicit_metric(noisy_oracle(truth, 1e-3, seed=1), three, family="linear-fractional", seed=1,
                              n_draws=100)
    assert m.rule == "top-1 (fallback)" and np.array_equal(m.decide(), three.argmax(axis=1))
    exact = spe.elicit_metric(truthful_oracle(truth), three, family="linear-fractional", radius=m.radius, n_draws=50)

    def no_metric(*args, **kwargs):
        raise ValueError("the level sets meet inside the reachable matrices")

    monkeypatch.setattr("spe.elicitation._posterior.canonical", no_metric)  # every draw invalid
    assert not exact.posterior.fits and exact.rule == "top-1 (fallback)"
    assert "fit no linear-fractional metric" in exact.summary()
