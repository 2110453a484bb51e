import numpy as np
import pytest

from spe.sampling.psis import BACKENDS, available_backend, psis


def _backends():
    names = ["arviz"]
    try:
        import arviz_stats.base  # noqa: F401

        names.append("arviz_stats")
    except ImportError:
        pass
    return names


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_weights_increase_with_log_ratio_on_both_signs(backend, sign):
    """Whatever a backend's sign convention, bigger ratios must get bigger weights."""
    rng = np.random.default_rng(3)
    lr = sign * rng.normal(0.0, 0.5, size=2000)
    lw, khat = psis(lr, backend=backend)
    assert np.exp(lw).sum() == pytest.approx(1.0)
    assert np.corrcoef(lw, lr)[0, 1] > 0.99
    assert khat < 0.5  # light-tailed ratios


@pytest.mark.parametrize("backend", _backends())
def test_heavy_tailed_ratios_give_large_khat(backend):
    rng = np.random.default_rng(4)
    lr = np.log(rng.pareto(0.8, size=2000) + 1e-3)  # tail index > 1 -> k-hat near 1.25
    _, khat = psis(lr, backend=backend)
    assert khat > 0.7


def test_backends_agree_and_minus_inf_gets_zero_weight():
    rng = np.random.default_rng(5)
    lr = rng.normal(size=1000)
    lr[:5] = -np.inf
    results = [psis(lr, backend=b) for b in _backends()]
    for lw, _ in results:
        assert np.all(np.exp(lw[:5]) == 0.0)
    if len(results) == 2:
        np.testing.assert_allclose(np.exp(results[0][0]), np.exp(results[1][0]), atol=2e-4)
        assert results[0][1] == pytest.approx(results[1][1], abs=0.1)


def test_backend_registry_and_errors():
    assert available_backend() in BACKENDS
    with pytest.raises(ValueError):
        psis(np.array([-np.inf, -np.inf, 1.0]))
