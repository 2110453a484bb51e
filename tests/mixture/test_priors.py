import numpy as np
import pytest
from scipy import stats

from spe.mixture._priors import Beta, Gamma, LogNormal, Normal

X = np.array([-1.0, 0.0, 1e-3, 0.2, 0.5, 0.99, 1.0, 3.0])


@pytest.mark.parametrize(
    "ours, ref",
    [
        (Normal(0.5, 2.0), stats.norm(0.5, 2.0)),
        (LogNormal(np.log(0.3), 1.5), stats.lognorm(1.5, scale=0.3)),
        (Gamma(2.0, 0.1), stats.gamma(2.0, scale=0.1)),
        (Beta(2.0, 8.0), stats.beta(2.0, 8.0)),
        (Beta(1.0, 1.0), stats.beta(1.0, 1.0)),
    ],
)
def test_prior_logpdf_matches_scipy(ours, ref):
    got, want = ours.logpdf(X), ref.logpdf(X)
    inside = np.isfinite(want) & (X > 0) & (X < 1) | (np.isfinite(want) & isinstance(ours, Normal))
    np.testing.assert_allclose(got[inside], want[inside], rtol=1e-10)
    assert np.all(got[~np.isfinite(want)] == -np.inf)


def test_joint_prior_matches_the_sum_of_its_columns_priors():
    from scipy import stats

    from spe.mixture._priors import Beta, Gamma, JointPrior, LogNormal, Normal

    priors = [Beta(2.0, 3.0), Normal(0.5, 1.0), LogNormal(np.log(0.15), 1.5), Normal(-1.0, 0.3),
              Gamma(2.0, 0.5), LogNormal(0.0, 0.7), stats.norm(1.0, 2.0)]
    rng = np.random.default_rng(0)
    theta = np.column_stack([rng.uniform(0.01, 0.99, 50), rng.normal(size=50), rng.lognormal(size=50),
                             rng.normal(size=50), rng.lognormal(size=50), rng.lognormal(size=50),
                             rng.normal(size=50)])
    theta[0, 2] = -1.0  # outside a log-normal's support
    theta[1, 5] = 0.0
    expected = sum(p.logpdf(theta[:, j]) for j, p in enumerate(priors))
    got = JointPrior(priors).logpdf(theta)
    assert np.all(np.isneginf(got[:2])) and np.all(np.isneginf(expected[:2]))
    np.testing.assert_allclose(got[2:], expected[2:], rtol=1e-12)
