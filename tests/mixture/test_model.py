import numpy as np
import pytest
from scipy import stats

from spe.mixture import get_component
from spe.mixture import MixtureModel
from spe.mixture._priors import Beta
from spe.scores import prepare


def brute_force_loglik(model, theta, z, y):
    """Per-item log likelihood straight from method.md section 1."""
    pi, p0, p1 = model.split(theta)
    lf0 = model.neg.logpdf(z, p0)[0]
    lf1 = model.pos.logpdf(z, p1)[0]
    pi = pi[0, 0]
    total = 0.0
    for zi, lf0i, lf1i, yi in zip(z, lf0, lf1, y):
        if np.isnan(yi):
            total += np.log((1 - pi) * np.exp(lf0i) + pi * np.exp(lf1i))
        elif yi == 1:
            total += np.log(pi) + lf1i
        else:
            total += np.log(1 - pi) + lf0i
    return total


def test_compressed_likelihood_equals_per_item_sum():
    rng = np.random.default_rng(1)
    s = np.round(rng.beta(2, 3, size=300), 2)  # heavy ties
    y = np.where(rng.random(300) < 0.2, (s > 0.4).astype(float), np.nan)
    data = prepare(s, y)
    model = MixtureModel(get_component("gamma"), get_component("truncnorm"))
    theta = np.array([[0.35, 2.5, 0.12, 0.6, 0.15]])
    z_items = data.frame.to_unit(s)
    assert model.log_likelihood(theta, data)[0] == pytest.approx(
        brute_force_loglik(model, theta, z_items, y), rel=1e-10
    )


def test_transforms_round_trip_and_jacobian_matches_finite_differences():
    model = MixtureModel(get_component("lognormal"), get_component("gamma-reflected"))
    theta = np.array([[0.2, -1.0, 0.4, 3.0, 0.05]])
    u = model.to_unconstrained(theta)
    np.testing.assert_allclose(model.to_natural(u), theta)
    h = 1e-6
    jac_diag = [(model.to_natural(u + h * e)[0, j] - model.to_natural(u - h * e)[0, j]) / (2 * h)
                for j, e in enumerate(np.eye(5))]
    assert model.log_jacobian(u)[0] == pytest.approx(np.sum(np.log(np.abs(jac_diag))), rel=1e-6)


def test_orientation_constraint_rejects_swapped_components():
    model = MixtureModel(get_component("truncnorm"), get_component("truncnorm"))
    good = np.array([[0.3, 0.2, 0.1, 0.8, 0.1]])
    swapped = np.array([[0.7, 0.8, 0.1, 0.2, 0.1]])
    assert model.oriented(good)[0] and not model.oriented(swapped)[0]
    assert np.isfinite(model.log_prior(good)[0])
    assert model.log_prior(swapped)[0] == -np.inf
    assert np.isfinite(model.log_prior(swapped, oriented=False)[0])


def test_prior_overrides_are_validated():
    comps = (get_component("gamma"), get_component("truncnorm"))
    model = MixtureModel(*comps, prior={"pi": Beta(2, 8)})
    assert model.priors["pi"] == Beta(2, 8)
    with pytest.raises(ValueError, match="unknown parameter 'pi0'"):
        MixtureModel(*comps, prior={"pi0": Beta(2, 8)})
    with pytest.raises(TypeError, match="logpdf"):
        MixtureModel(*comps, prior={"pi": 0.3})


def test_prob_positive_is_bayes_rule():
    model = MixtureModel(get_component("truncnorm"), get_component("truncnorm"))
    theta = np.array([[0.25, 0.3, 0.1, 0.7, 0.1]])
    z = np.array([0.1, 0.5, 0.9])
    f0 = np.exp(model.neg.logpdf(z, (0.3, 0.1)))
    f1 = np.exp(model.pos.logpdf(z, (0.7, 0.1)))
    want = 0.25 * f1 / (0.25 * f1 + 0.75 * f0)
    np.testing.assert_allclose(model.prob_positive(theta, z)[0], want, rtol=1e-10)


@pytest.mark.parametrize("labeled_alone", [False, True])
def test_compressed_likelihood_with_fully_labeled_groups_and_censored_edges(labeled_alone):
    """Every group holding unlabeled items (not indexed) or some only labeled ones
    (indexed) give the per-item sum; censored edge groups enter through their cdf / sf."""
    from spe.scores import CountLayout

    rng = np.random.default_rng(2)
    # distinct scores beyond both clips of the logit frame: censored groups, one point each side
    unlabeled = np.r_[10.0 ** -rng.uniform(9, 15, 40), np.round(rng.beta(2, 3, 400), 3),
                      1 - 10.0 ** -rng.uniform(9, 15, 30)]
    # labeled items at scores of their own, or at scores that unlabeled items share
    labeled = rng.uniform(0.01, 0.99, 30) if labeled_alone else rng.choice(unlabeled, 30)
    s = np.r_[unlabeled, labeled]
    y = np.r_[np.full(unlabeled.size, np.nan), (rng.random(30) < labeled).astype(float)]
    data = prepare(s, y, transform="logit")
    lay = data.count_layout
    assert isinstance(lay, CountLayout) and lay.n_unlabeled.sum() == unlabeled.size
    assert (lay.unlabeled is not None) == labeled_alone
    assert np.sum(data.censored == -1) > 1 and np.sum(lay.censored == -1) == 1 and np.sum(lay.censored == 1) == 1
    model = MixtureModel(get_component("normal"), get_component("skewnorm"))
    theta = np.array([[0.4, 0.3, 0.2, 0.6, 0.25, 1.5]])
    z = data.z[data.group]
    cens = data.censored[data.group]
    pi, p0, p1 = model.split(theta)
    lf = []
    for comp, p in ((model.neg, p0), (model.pos, p1)):
        v = comp.logpdf(z, p)[0]
        v[cens == -1] = comp.logcdf(z[cens == -1], p)[0]
        v[cens == 1] = comp.logsf(z[cens == 1], p)[0]
        lf.append(v)
    pi = pi[0, 0]
    per_item = np.where(np.isnan(y), np.logaddexp(np.log1p(-pi) + lf[0], np.log(pi) + lf[1]),
                        np.where(y == 1, np.log(pi) + lf[1], np.log1p(-pi) + lf[0]))
    assert np.any(cens != 0)
    assert model.log_likelihood(theta, data)[0] == pytest.approx(per_item.sum(), rel=1e-10)


LEAKING = (("gamma", "truncnorm"), ("gamma", "gamma-reflected"), ("lognormal", "gumbel_r"))


@pytest.mark.parametrize("pair", LEAKING)
def test_bounded_components_integrate_to_one_on_the_frame(pair):
    model = MixtureModel(get_component(pair[0]), get_component(pair[1]), bounded=True)
    theta = np.array([[0.3, 2.0, 0.3, 2.0, 0.3]]) if pair[1] != "truncnorm" else np.array([[0.3, 2.0, 0.3, 0.6, 0.2]])
    if pair[0] == "lognormal":
        theta = np.array([[0.3, -1.0, 0.8, 0.7, 0.3]])
    grid = np.linspace(1e-7, 1 - 1e-7, 400_001)
    lf0, lf1 = model.component_logpdfs(theta, grid)
    for lf in (lf0[0], lf1[0]):
        assert np.trapezoid(np.exp(lf), grid) == pytest.approx(1.0, abs=2e-4)
    leaky = MixtureModel(model.neg, model.pos)  # the family itself puts mass beyond the frame
    assert np.trapezoid(np.exp(leaky.component_logpdfs(theta, grid)[0][0]), grid) < 0.99
    assert model.marginal_cdf(theta, np.array([0.0, 1.0])) == pytest.approx([0.0, 1.0], abs=1e-9)


@pytest.mark.parametrize("pair, theta", [
    (("gamma", "truncnorm"), [0.3, 2.0, 0.3, 0.6, 0.2]),  # Gamma mass beyond the frame: 2%
    (("gamma", "gamma-reflected"), [0.3, 2.0, 0.3, 2.0, 0.3]),  # both ends leak
    (("gumbel_l", "gumbel_r-reflected"), [0.4, 0.3, 0.15, 0.2, 0.15]),  # whole-line families
])
def test_bounded_simulation_stays_on_the_frame_and_follows_the_truncated_cdf(pair, theta):
    model = MixtureModel(get_component(pair[0]), get_component(pair[1]), bounded=True)
    theta = np.array(theta)
    z, y = model.simulate(theta, 20_000, np.random.default_rng(3))
    assert z.min() >= 0.0 and z.max() <= 1.0
    assert y.mean() == pytest.approx(theta[0], abs=0.015)
    ks = stats.kstest(z, lambda v: model.marginal_cdf(theta, np.atleast_1d(v)))
    assert ks.pvalue > 0.01


@pytest.mark.statistical
def test_truncation_recovers_the_class_balance_of_overlapping_classes():
    """Overlapping classes whose Gamma reaches the end of the frame: a density that leaks
    mass beyond it traded the class balance for the leak (prevalence 0.46 [0.39, 0.54]
    for a truth of 0.30 on every seed); truncated to the frame the intervals cover."""
    import spe

    model = MixtureModel(get_component("gamma"), get_component("truncnorm"), bounded=True)
    theta = np.array([0.3, 2.0, 0.15, 0.55, 0.15])
    covered, errors = 0, []
    for seed in range(6):
        rng = np.random.default_rng([seed, 7])
        s, y = model.simulate(theta, 2000, rng)
        labels = np.full(s.size, np.nan)
        idx = rng.choice(s.size, 20, replace=False)
        labels[idx] = y[idx]
        est = spe.fit(s, labels, model="mixture", families=("gamma", "truncnorm"), score_range=(0, 1),
                      probabilities=False, seed=seed, progress=False, n_draws=400).prevalence()
        covered += est.lower <= y.mean() <= est.upper
        errors.append(abs(est.value - y.mean()))
    assert covered >= 5
    assert np.median(errors) < 0.06
