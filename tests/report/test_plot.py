import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import spe  # noqa: E402


@pytest.fixture(scope="module")
def fitted(request):
    rng = np.random.default_rng(1)
    y = (rng.random(600) < 0.3).astype(float)
    s = np.where(y == 1, rng.normal(0.7, 0.1, 600), rng.gamma(2.0, 0.1, 600))
    labels = np.full(600, np.nan)
    labels[:12] = y[:12]
    return spe.fit(s, labels, seed=0, n_draws=200, families=("gamma", "truncnorm")), y  # the default search's pick


@pytest.mark.parametrize(
    "method, kwargs",
    [
        ("plot_fit", {}),
        ("plot_pr", {"true_labels": True}),
        ("plot_pr", {"kind": "population"}),
        ("plot_roc", {"true_labels": True}),
        ("plot_conditions", {"min_precision": 0.9, "min_recall": 0.8}),
        ("plot_reliability", {"true_labels": True}),
        ("plot_reliability", {}),
    ],
)
def test_each_plot_draws_on_the_given_axes(fitted, method, kwargs):
    res, y = fitted
    kwargs = {k: (y if v is True else v) for k, v in kwargs.items()}
    fig, ax = plt.subplots()
    returned = getattr(res, method)(ax, **kwargs)
    assert returned is ax
    assert ax.lines or ax.collections or ax.patches
    assert ax.get_xlabel() and ax.get_legend() is not None
    plt.close(fig)


def test_pr_plot_band_matches_result(fitted):
    res, _ = fitted
    fig, ax = plt.subplots()
    res.plot_pr(ax, naive=False)
    spe_line = [line for line in ax.lines if line.get_label().startswith("SPE")][0]
    np.testing.assert_allclose(spe_line.get_ydata(), res.pr_curve().precision)
    plt.close(fig)
