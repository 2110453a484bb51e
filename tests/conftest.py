import pytest

from tests.helpers import hide_labels, simulate_scores


@pytest.fixture
def gamma_normal_data():
    """N = 2000 scores from a Gamma/truncated-Normal mixture, 20 labels."""
    z, y = simulate_scores("gamma", "truncnorm", [0.3, 2.0, 0.1, 0.7, 0.1], 2000, seed=11)
    return z, y, hide_labels(y, 20, seed=12)
