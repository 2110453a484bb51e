import numpy as np
import pytest

from spe.sampling import psis


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_weights_increase_with_log_ratio_on_both_signs(sign):
    """Bigger ratios must get bigger weights (the backend takes negated ratios)."""
    rng = np.random.default_rng(3)
    lr = sign * rng.normal(0.0, 0.5, size=2000)
    lw, khat = psis(lr)
    assert np.exp(lw).sum() == pytest.approx(1.0)
    assert np.corrcoef(lw, lr)[0, 1] > 0.99
    assert khat < 0.5  # light-tailed ratios


def test_heavy_tailed_ratios_give_large_khat():
    rng = np.random.default_rng(4)
    lr = np.log(rng.pareto(0.8, size=2000) + 1e-3)  # tail index > 1 -> k-hat near 1.25
    _, khat = psis(lr)
    assert khat > 0.7


def test_minus_inf_gets_zero_weight_and_too_few_draws_are_refused():
    rng = np.random.default_rng(5)
    lr = rng.normal(size=1000)
    lr[:5] = -np.inf
    lw, _ = psis(lr)
    assert np.all(np.exp(lw[:5]) == 0.0)
    with pytest.raises(ValueError):
        psis(np.array([-np.inf, -np.inf, 1.0]))


def test_smoothing_is_arviz_psislw_on_the_same_ratios():
    """One implementation whatever is installed: the weights are ArviZ's own PSIS of these
    ratios (ArviZ 0.2x's arviz.psislw where it exists), up to its normalisation."""
    arviz = pytest.importorskip("arviz")
    if not hasattr(arviz, "psislw"):
        pytest.skip("ArviZ >= 1 has no arviz.psislw")
    rng = np.random.default_rng(6)
    lr = rng.normal(size=1500)
    lw, khat = psis(lr)
    ref_lw, ref_khat = arviz.psislw(lr - lr.max())
    np.testing.assert_allclose(np.exp(lw), np.exp(ref_lw - np.logaddexp.reduce(ref_lw)), atol=2e-4)
    assert khat == pytest.approx(float(ref_khat), abs=0.1)
