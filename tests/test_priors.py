import numpy as np
import pytest
from scipy import stats

from spe.priors import Beta, Gamma, LogNormal, Normal

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
