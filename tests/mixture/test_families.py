"""Every density against scipy.stats over parameter grids (cf. PyMC's check_logp)."""

import itertools

import numpy as np
import pytest
from scipy import stats

from spe.mixture import SCORE_FAMILIES, get_component
from spe.mixture._families import Component, log_diff_ndtr, mirrored

X_INSIDE = np.array([1e-3, 0.05, 0.2, 0.5, 0.77, 0.95, 0.999])
X_OUTSIDE_UNIT = np.array([-0.5, -1e-3, 1.001, 2.0])

GRIDS = {
    "truncnorm": ([-0.5, 0.1, 0.5, 1.3], [0.02, 0.1, 0.5, 3.0]),
    "normal": ([-0.5, 0.1, 0.5, 1.3], [0.02, 0.1, 0.5, 3.0]),
    "trunct": ([-0.5, 0.2, 0.9, 1.5], [0.03, 0.2, 1.0], [1.5, 4.0, 30.0]),
    "skewnorm": ([-0.2, 0.4, 1.1], [0.03, 0.2, 1.0], [-6.0, 0.0, 2.5]),
    "gamma": ([0.5, 1.0, 2.0, 15.0], [0.01, 0.1, 1.0]),
    "lognormal": ([-3.0, -1.0, 0.5], [0.1, 0.5, 2.0]),
    "gumbel_r": ([-0.2, 0.3, 0.8], [0.02, 0.1, 0.6]),
    "gumbel_l": ([-0.2, 0.3, 0.8], [0.02, 0.1, 0.6]),
    "gompertz": ([0.1, 1.0, 5.0], [0.05, 0.3, 2.0]),
    "frechet": ([0.7, 2.0, 8.0], [0.05, 0.3, 2.0]),
    "beta": ([0.5, 1.0, 3.0, 20.0], [0.5, 2.0, 9.0]),
}


def reference(name, params):
    """The scipy.stats distribution each family must match."""
    if name == "trunct":
        mu, sigma, df = params
        a, b = (0 - mu) / sigma, (1 - mu) / sigma
        mass = stats.t.sf(a, df) - stats.t.sf(b, df) if a > 0 else stats.t.cdf(b, df) - stats.t.cdf(a, df)
        base = stats.t(df, loc=mu, scale=sigma)
        return lambda x: np.where((x >= 0) & (x <= 1), base.logpdf(x) - np.log(mass), -np.inf)
    return SCORE_FAMILIES[name].scipy_dist(params).logpdf


CDF_FAMILIES = ("normal", "skewnorm")  # hand-written cdf / survival function (hot on censored scores)


@pytest.mark.parametrize("name", CDF_FAMILIES)
def test_closed_form_cdf_sf_and_median_match_scipy(name):
    fam = SCORE_FAMILIES[name]
    x = np.concatenate([X_INSIDE, X_OUTSIDE_UNIT])
    for params in itertools.product(*GRIDS[name]):
        ref = fam.scipy_dist(params)
        p = tuple(np.float64(v) for v in params)
        np.testing.assert_allclose(np.exp(fam.logcdf(x, p)), ref.cdf(x), atol=1e-10, err_msg=f"{name} {params}")
        np.testing.assert_allclose(np.exp(fam.logsf(x, p)), ref.sf(x), atol=1e-10, err_msg=f"{name} {params}")
        np.testing.assert_allclose(fam.median(p), ref.median(), atol=1e-9, err_msg=f"{name} {params}")


def test_every_family_has_a_grid():
    assert set(GRIDS) == set(SCORE_FAMILIES)


@pytest.mark.parametrize("name", sorted(SCORE_FAMILIES))
def test_logpdf_matches_scipy_over_grid(name):
    fam = SCORE_FAMILIES[name]
    x = np.concatenate([X_INSIDE, X_OUTSIDE_UNIT])
    for params in itertools.product(*GRIDS[name]):
        ours = fam.logpdf(x, tuple(np.float64(p) for p in params))
        ref = reference(name, params)(x)
        finite = np.isfinite(ref)
        # Where scipy underflows to -inf (it exponentiates first), ours must be tiny too.
        underflow = ~finite & np.isfinite(ours)
        assert np.all(ours[underflow] < -500), (name, params)
        assert np.all(ours[~finite & ~underflow] == -np.inf), (name, params)
        np.testing.assert_allclose(ours[finite], ref[finite], rtol=1e-7, atol=1e-8, err_msg=f"{name} {params}")


@pytest.mark.parametrize("name", sorted(SCORE_FAMILIES))
def test_logpdf_is_minus_inf_outside_support(name):
    fam = SCORE_FAMILIES[name]
    params = tuple(np.float64(g[len(g) // 2]) for g in GRIDS[name])
    if fam.unit_support:
        assert np.all(fam.logpdf(X_OUTSIDE_UNIT, params) == -np.inf)
    elif fam.skewed:
        assert np.all(fam.logpdf(np.array([-1.0, -1e-6]), params) == -np.inf)
    else:  # unbounded families have positive density everywhere
        assert np.all(np.isfinite(fam.logpdf(X_OUTSIDE_UNIT, params)))


@pytest.mark.parametrize("name", sorted(SCORE_FAMILIES))
def test_logpdf_broadcasts_over_parameter_batches(name):
    fam = SCORE_FAMILIES[name]
    cols = tuple(np.array(g[:2], float)[:, None] for g in GRIDS[name])
    batched = fam.logpdf(X_INSIDE, cols)
    assert batched.shape == (2, X_INSIDE.size)
    for i in range(2):
        single = fam.logpdf(X_INSIDE, tuple(c[i, 0] for c in cols))
        np.testing.assert_allclose(batched[i], single)


@pytest.mark.parametrize("name", sorted(SCORE_FAMILIES))
@pytest.mark.parametrize("reflected", [False, True])
def test_component_cdf_sf_isf_are_consistent(name, reflected):
    comp = Component(SCORE_FAMILIES[name], reflected)
    params = tuple(np.float64(g[len(g) // 2]) for g in GRIDS[name])
    q = np.array([0.05, 0.3, 0.5, 0.8])
    z = comp.isf(q, params)
    np.testing.assert_allclose(np.exp(comp.logsf(z, params)), q, rtol=1e-6)
    np.testing.assert_allclose(np.exp(comp.logcdf(z, params)), 1 - q, rtol=1e-6)
    # survival function is the integral of the density above z
    grid = np.linspace(z[1], z[2], 4001)
    mass = np.trapezoid(np.exp(comp.logpdf(grid, params)), grid)
    assert mass == pytest.approx(q[1] - q[2], rel=1e-4)


def test_reflection_mirrors_density():
    comp = get_component("gamma-reflected")
    params = (np.float64(2.0), np.float64(0.1))
    z = np.array([0.5, 0.9, 0.99])
    np.testing.assert_allclose(comp.logpdf(z, params), SCORE_FAMILIES["gamma"].logpdf(1 - z, params))
    assert comp.median(params) == pytest.approx(1 - stats.gamma(2.0, scale=0.1).median())


def test_family_specs_resolve_and_reject_unknown_names():
    assert get_component("Gamma-Reflected").spec == "gamma-reflected"
    assert mirrored("gamma").spec == "gamma-reflected"
    assert mirrored("truncnorm").spec == "truncnorm"
    with pytest.raises(ValueError, match="unknown family 'gauss'"):
        get_component("gauss")
    with pytest.raises(TypeError):
        get_component(3)


def test_log_diff_ndtr_is_accurate_in_both_tails():
    a = np.array([-40.0, -3.0, 5.0, 30.0])
    b = np.array([-39.0, 2.0, 6.0, 31.0])
    ref = [stats.norm.logcdf(-39) + np.log1p(-np.exp(stats.norm.logcdf(-40) - stats.norm.logcdf(-39))),
           np.log(stats.norm.cdf(2) - stats.norm.cdf(-3)),
           np.log(stats.norm.sf(5) - stats.norm.sf(6)),
           stats.norm.logsf(30) + np.log1p(-np.exp(stats.norm.logsf(31) - stats.norm.logsf(30)))]
    np.testing.assert_allclose(log_diff_ndtr(a, b), ref, rtol=1e-9)


def test_fast_log_ndtr_matches_scipy_in_the_body_and_both_tails():
    from scipy import special

    from spe.mixture._families.open_scale import _log_ndtr_inplace

    x = np.concatenate([np.linspace(-60.0, 40.0, 20001), [-5.0, -5.0 - 1e-12]])
    work = x.copy()
    out = _log_ndtr_inplace(work)
    assert out is work  # computed in place
    np.testing.assert_allclose(out, special.log_ndtr(x), rtol=1e-12, atol=1e-14)
    assert _log_ndtr_inplace(np.array(-50.0)) == special.log_ndtr(-50.0)  # 0-d input
    assert _log_ndtr_inplace(x[None, :].copy()).shape == (1, x.size)


def test_hot_densities_do_not_modify_their_inputs_and_broadcast():
    from spe.mixture import get_component

    v = np.linspace(0.01, 0.99, 7)
    for name in ("normal", "skewnorm", "truncnorm"):
        comp = get_component(name)
        fam = comp.family
        params = [np.array([[0.4], [0.6]]), np.array([[0.2], [0.3]])] + ([np.array([[2.0], [-1.0]])]
                                                                         if fam.n_params == 3 else [])
        before = v.copy()
        out = fam.logpdf(v, params)
        np.testing.assert_array_equal(v, before)
        assert out.shape == (2, v.size)
        ref = np.stack([fam.scipy_dist([p[i, 0] for p in params]).logpdf(v) for i in range(2)])
        np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)
        scalar = fam.logpdf(0.5, [p[0, 0] for p in params])
        np.testing.assert_allclose(scalar, ref[0, 3], rtol=1e-10)


@pytest.mark.parametrize("name", sorted(SCORE_FAMILIES))
def test_initial_guess_is_finite_and_inside_bounds(name):
    fam = SCORE_FAMILIES[name]
    rng = np.random.default_rng(0)
    v = rng.beta(2, 5, size=300)
    init = fam.initial(v, np.ones_like(v))
    assert init.shape == (fam.n_params,) and np.all(np.isfinite(init))
    is_log = np.array(fam.transforms) == "log"
    u = init.copy()
    u[is_log] = np.log(init[is_log])
    lo, hi = np.array(fam.bounds).T
    assert np.all((u > lo) & (u < hi))
    assert np.all(np.isfinite(fam.logpdf(v, tuple(init))))


@pytest.mark.parametrize("name", sorted(SCORE_FAMILIES))
def test_median_is_the_half_survival_point_and_matches_ppf(name):
    fam = SCORE_FAMILIES[name]
    for params in itertools.product(*GRIDS[name]):
        p = tuple(np.float64(v) for v in params)
        m = fam.median(p)
        assert np.isfinite(m), (name, params)
        assert np.exp(fam.logsf(m, p)) == pytest.approx(0.5, rel=1e-6), (name, params)
        assert m == pytest.approx(float(fam.ppf(0.5, p)), rel=1e-6, abs=1e-9), (name, params)


def test_a_user_family_is_registered_and_fitted_by_name_or_instance():
    """A new family is one small class; spe.fit takes it by instance and then by name."""
    from scipy import stats

    import spe
    from spe.mixture._families.base import LOCATION_PRIOR, SCALE_PRIOR

    class Logistic(spe.mixture.Family):
        name = "logistic-test"
        param_names = ("loc", "scale")
        transforms = ("real", "log")
        default_priors = (LOCATION_PRIOR, SCALE_PRIOR)

        def scipy_dist(self, params):
            return stats.logistic(params[0], params[1])

        def initial(self, v, w):
            m = np.average(v, weights=w)
            return np.array([m, max(np.sqrt(np.average((v - m) ** 2, weights=w)) * 0.55, 1e-3)])

    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.3  # 200 items: a family known only through scipy_dist is slow to fit
    s = np.where(y, rng.logistic(2.0, 0.5, 200), rng.logistic(-1.0, 0.5, 200))
    labels = np.where(np.arange(200) < 20, y, np.nan)
    try:
        res = spe.fit(s, labels, model="mixture", families=(Logistic(), Logistic), seed=0, n_draws=200)
        assert res.families == ("logistic-test", "logistic-test")
        assert "logistic-test" in SCORE_FAMILIES
        again = spe.fit(s, labels, model="mixture", families="logistic-test", seed=0, n_draws=200)
        assert abs(again.prevalence().value - y.mean()) < 0.08
        with pytest.raises(ValueError, match="already named 'gamma'"):
            spe.mixture.register_family(type("G", (Logistic,), {"name": "gamma"}))
    finally:
        SCORE_FAMILIES.pop("logistic-test", None)


def test_a_scipy_only_family_freezes_once_for_the_frame_and_gives_the_same_tails():
    """The frame's four tails of a family known only through ``scipy_dist`` come from one
    frozen distribution, number for number what the four separate calls give."""
    from scipy import stats

    import spe

    frozen = []

    class Logistic(spe.mixture.Family):
        name, param_names, transforms = "logistic-frame", ("loc", "scale"), ("real", "log")

        def scipy_dist(self, params):
            frozen.append(params)
            return stats.logistic(params[0], params[1])

    fam = Logistic()
    params = (np.array([[-0.5], [0.3], [2.0]]), np.array([[0.1], [0.4], [1.5]]))
    tails = fam._frame_log_tails(params)
    assert len(frozen) == 1
    separate = (fam.logcdf(1.0, params), fam.logcdf(0.0, params), fam.logsf(0.0, params), fam.logsf(1.0, params))
    for got, want in zip(tails, separate, strict=True):
        np.testing.assert_array_equal(got, want)
    mass = np.exp(Component(fam).log_frame_mass(params))
    want = stats.logistic.cdf(1.0, *params) - stats.logistic.cdf(0.0, *params)
    np.testing.assert_allclose(mass, want, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(SCORE_FAMILIES))
@pytest.mark.parametrize("reflected", [False, True])
def test_frame_mass_is_the_scipy_mass_on_the_unit_interval(name, reflected):
    comp = Component(SCORE_FAMILIES[name], reflected)
    for params in itertools.product(*GRIDS[name]):
        p = tuple(np.array([[v]]) for v in params)
        got = float(np.exp(np.ravel(comp.log_frame_mass(p))[0]))
        if SCORE_FAMILIES[name].unit_support:
            assert got == 1.0
            continue
        ref = SCORE_FAMILIES[name].scipy_dist(params)
        want = ref.cdf(1.0) - ref.cdf(0.0)
        if got == 0.0:  # off the frame: only where the mass is negligible
            assert want < 1e-15, f"{name} {params}"
        else:
            assert got == pytest.approx(want, rel=1e-7, abs=1e-12), f"{name} {params}"


CLOSED_LOGCDF = ("gamma", "lognormal", "gumbel_r", "gumbel_l", "gompertz", "frechet")


@pytest.mark.parametrize("name", CLOSED_LOGCDF)
def test_closed_form_logcdf_and_logsf_match_scipy_in_log_space(name):
    """The frame's mass is computed in the fit's inner loop from these, in its tails too:
    closed forms, checked in log space wherever scipy's value is finite."""
    fam = SCORE_FAMILIES[name]
    x = np.concatenate([X_INSIDE, X_OUTSIDE_UNIT, [0.0, 1.0]])
    for params in itertools.product(*GRIDS[name]):
        ref = fam.scipy_dist(params)
        p = tuple(np.float64(v) for v in params)
        for method in ("logcdf", "logsf"):
            want, got = getattr(ref, method)(x), getattr(fam, method)(x, p)
            finite = np.isfinite(want)
            np.testing.assert_allclose(got[finite], want[finite], rtol=1e-7, atol=1e-12, err_msg=f"{name} {method} {params}")
            # where scipy underflows to -inf the closed form may still hold the (tiny) value
            assert np.all((got[~finite] == want[~finite]) | (got[~finite] < -700)), f"{name} {method} {params}"


@pytest.mark.parametrize("name, params, log_mass", [
    ("gumbel_r", (-3.5, 0.1), -35.0000454),  # the frame holds only the far upper tail
    ("gumbel_r", (-5.0, 0.1), -50.0000454),
    ("gumbel_l", (-0.5, 0.1), -148.413159),
    ("gamma", (2.0, 0.15), -0.00980477),
])
def test_frame_mass_is_accurate_in_the_tails(name, params, log_mass):
    comp = get_component(name)
    got = float(np.ravel(comp.log_frame_mass(tuple(np.array([[v]]) for v in params)))[0])
    assert got == pytest.approx(log_mass, rel=1e-6)
