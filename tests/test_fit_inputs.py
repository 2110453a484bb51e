"""Bad input and edge cases: every input gets a clear answer (issue catalogue)."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spe
from spe.scores import ORIENTATION_PROBABILITY, reversed_probability
from spe.scores import prepare

RNG = np.random.default_rng(0)
FAST = dict(families=("truncnorm", "truncnorm"), n_draws=50, seed=0)


def _fit_quietly(scores, labels=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.fit(scores, labels, **{**FAST, **kw})


def _check_result(res):
    for curve in (res.pr_curve(), res.roc_curve()):
        assert np.all(np.isfinite(curve.draws))
        assert np.all((curve.draws >= 0) & (curve.draws <= 1))
        assert np.all(curve.lower <= curve.y) and np.all(curve.y <= curve.upper)
    est = res.average_precision()
    assert 0 <= est.lower <= est.value <= est.upper <= 1


# ---- scores ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "scores, match",
    [
        ([0.5], "at least two scores"),
        ([], "empty"),
        ([0.1, np.nan, 0.3], "NaN/inf value"),
        ([0.1, np.inf, 0.3], "NaN/inf value"),
        ([1.0, 1.0, 1.0, 1.0], "all 4 scores are equal"),
        (np.ones((3, 4)), "one-dimensional"),
    ],
)
def test_bad_scores_raise_value_error_naming_the_problem(scores, match):
    with pytest.raises(ValueError, match=match):
        spe.fit(scores)


@pytest.mark.parametrize("scores", [["a", "b", "c"], np.array([1 + 1j, 2, 3]), [True, False, True]])
def test_non_numeric_scores_raise_type_error(scores):
    with pytest.raises(TypeError, match="real numbers"):
        spe.fit(scores)


@pytest.mark.parametrize(
    "scores",
    [
        RNG.normal(size=300) * 1e12 + 1e13,  # huge magnitudes
        1.0 + RNG.normal(size=300) * 1e-12,  # tiny spread
        RNG.integers(0, 100, 300),  # integer dtype
        np.round(RNG.beta(2, 5, 400), 1),  # heavy ties: 11 distinct values
        RNG.normal(size=(300, 1)),  # column vector
        list(RNG.normal(size=50)),  # plain list
    ],
    ids=["huge", "tiny-spread", "int", "ties", "column", "list"],
)
def test_awkward_but_valid_scores_give_sane_results(scores):
    _check_result(_fit_quietly(scores))


def test_pandas_series_and_few_items_warning():
    pd = pytest.importorskip("pandas")
    s = pd.Series(RNG.normal(size=60), index=np.arange(100, 160))
    y = pd.Series(np.r_[np.ones(3), np.zeros(3), np.full(54, np.nan)], index=s.index)
    _check_result(_fit_quietly(s, y))
    with pytest.warns(UserWarning, match="only 5 items"):
        spe.fit([0.1, 0.2, 0.5, 0.8, 0.9], **FAST)


def test_beta_family_on_scores_outside_unit_interval():
    res = _fit_quietly(RNG.normal(5, 3, 400), families=("beta", "beta"))
    _check_result(res)
    assert res.data.frame.lower < 0  # scores live on their own scale; beta sees the unit frame


# ---- labels ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "labels, err, match",
    [
        (np.zeros(10), ValueError, "length 10 but scores has length 50"),
        (np.r_[2.0, np.zeros(49)], ValueError, r"\[2.0\]"),
        (np.r_[-1.0, np.zeros(49)], ValueError, r"\[-1.0\]"),
        (["maybe"] * 50, ValueError, "item 0: 'maybe' is not a label"),
        (["yes"] * 50, ValueError, "all are positive"),  # the same tokens as the CLI
        (np.r_[3.0, np.zeros(49)], ValueError, "first at item 0"),
        (np.zeros(50), ValueError, "all are negative"),
        (np.ones(50), ValueError, "all are positive"),
    ],
)
def test_bad_labels(labels, err, match):
    with pytest.raises(err, match=match):
        spe.fit(RNG.normal(size=50), labels)


@pytest.mark.parametrize(
    "labels",
    [
        np.r_[np.ones(5, bool), np.zeros(45, bool)],  # booleans, all labeled
        np.r_[np.zeros(10), np.full(40, np.nan)],  # labeled items all of one class
        np.r_[1.0, np.full(49, np.nan)],  # one labeled item
        None,  # none labeled
    ],
    ids=["bool-all", "one-class", "one-label", "none"],
)
def test_label_edge_cases_give_sane_results(labels):
    scores = np.r_[RNG.normal(0, 1, 40), RNG.normal(3, 1, 10)]
    if labels is not None and labels.dtype == bool:
        scores = np.r_[RNG.normal(3, 1, 5), RNG.normal(0, 1, 45)]
    _check_result(_fit_quietly(scores, labels))


# ---- options ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_result():
    s = np.r_[RNG.normal(0, 1, 150), RNG.normal(2.5, 1, 50)]
    y = np.r_[np.zeros(5), np.full(190, np.nan), np.ones(5)]
    return _fit_quietly(s, y)


@pytest.mark.parametrize(
    "call, err, match",
    [
        (lambda r: r.pr_curve(level=0), ValueError, "level must be strictly between"),
        (lambda r: r.pr_curve(level=1), ValueError, "level must be strictly between"),
        (lambda r: r.roc_curve(level=1.5), ValueError, "level must be strictly between"),
        (lambda r: r.pr_curve(level="high"), TypeError, "level must be a number"),
        (lambda r: r.metrics_at([0.1, 0.2]), ValueError, "single threshold"),
        (lambda r: r.metrics_at(np.nan), ValueError, "finite"),
        (lambda r: r.condition_probability(min_precision=-0.1), ValueError, "min_precision must lie"),
        (lambda r: r.best_fbeta_threshold(beta=0), ValueError, "beta"),
        (lambda r: r.min_cost_threshold(cost_fp=-1), ValueError, "cost_fp"),
    ],
)
def test_bad_options(small_result, call, err, match):
    with pytest.raises(err, match=match):
        call(small_result)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(families="gauss"), "unknown family 'gauss'"),
        (dict(n_draws=0), "n_draws"),
        (dict(n_draws=-5), "n_draws"),
        (dict(inference="nuts"), "inference"),
        (dict(proposal="uniform"), "proposal"),
        (dict(prior={"neg.nope": spe.mixture.priors.Normal(0, 1)}), "unknown parameter"),
    ],
)
def test_bad_fit_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        spe.fit(RNG.normal(size=50), **kwargs)


def test_thresholds_outside_the_score_range(small_result):
    t, prob = small_result.condition_probability([-1e9, 1e9], min_recall=0.5)
    assert prob[0] == pytest.approx(1.0) and prob[1] == 0.0  # everything / nothing predicted positive
    m = small_result.metrics_at(-1e9)
    assert m["recall"].mean == 1.0


def test_contradictory_constraints_are_infeasible_not_errors(small_result):
    dec = small_result.choose_threshold(min_recall=1.0, max_fpr=0.0, confidence=0.9)
    assert not dec.feasible and "INFEASIBLE" in str(dec) and np.isfinite(dec.threshold)


# ---- properties --------------------------------------------------------------------------
label_values = st.sampled_from([0.0, 1.0, np.nan])


@st.composite
def scores_and_labels(draw):
    n = draw(st.integers(min_value=2, max_value=40))
    scores = draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=n, max_size=n))
    labels = draw(st.lists(label_values, min_size=n, max_size=n))
    return np.array(scores), np.array(labels)


# Each example is a full fit (~0.15 s): 30 derandomized examples (hypothesis's default is 100) keep this
# sweep of awkward inputs to a few seconds and still reach every answer a fit gives (constant scores and
# all-one-class labels refused; cells, spline + weak ranker, and the mixture pooled with both); most
# later examples are one-label mutations of these. The cheap validation sweep below runs 800.
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(scores_and_labels())
def test_fit_returns_sane_curves_or_raises_value_error(data):
    scores, labels = data
    try:
        res = _fit_quietly(scores, labels, n_draws=30, inference="is")
    except ValueError as exc:
        assert str(exc)  # a message, never a bare error
        return
    _check_result(res)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(
    st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**15, 10**15),
                       st.text(max_size=3), st.none(), st.booleans()), min_size=0, max_size=30),
    st.one_of(st.none(), st.lists(st.one_of(label_values, st.integers(-2, 3), st.text(max_size=2)),
                                  min_size=0, max_size=30)),
)
def test_validation_answers_any_input_with_value_or_type_error(scores, labels):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "only N items" is expected here
            data = prepare(scores, labels)
    except (ValueError, TypeError) as exc:
        assert str(exc)
        return
    assert data.n_total.sum() == len(scores)
    assert np.all(np.isfinite(data.z))


def test_reversed_scores_are_refused_unless_declared():
    rng = np.random.default_rng(4)
    y = (rng.random(500) < 0.3).astype(float)
    s = np.where(y == 1, rng.normal(-1, 1, 500), rng.normal(1.5, 1, 500))
    labels = np.where(np.arange(500) < 30, y, np.nan)
    with pytest.raises(ValueError, match=r"P\(AUROC < 0.5\) = 1.000 .* higher_is_positive=False"):
        spe.fit(s, labels, **FAST)
    res = spe.fit(s, labels, higher_is_positive=False, **FAST)
    assert res.auroc().lower > 0.8
    with pytest.raises(TypeError, match="higher_is_positive"):
        spe.fit(s, labels, higher_is_positive="no", **FAST)
    # too few labels of a class to tell: no refusal
    # labeled positives tied with most negatives at a common score say little about order
    tied = np.r_[np.zeros(400), rng.uniform(0.1, 1, 100)]
    tied_labels = np.full(500, np.nan)
    tied_labels[:3], tied_labels[400:402] = 1, 0  # three positives at 0, two negatives above
    tied_labels[3:17] = 0  # (the labeled items alone gave P = 1.000: no pair ordered the right way)
    assert 0.5 < reversed_probability(tied, tied_labels) < ORIENTATION_PROBABILITY
    few = np.where(np.arange(500) < 30, y, np.nan)
    few[np.flatnonzero(few == 1)[2:]] = np.nan
    assert spe.fit(s, few, **FAST).data.n_labeled < 30


def test_api_and_cli_share_one_label_parser():
    from spe.scores import as_labels

    np.testing.assert_array_equal(as_labels(["Yes", "no", "TRUE", "0", "", "NA", None, 1], 8),
                                  [1, 0, 1, 0, np.nan, np.nan, np.nan, 1])
    np.testing.assert_array_equal(as_labels(["cat", "dog", ""], 3, positive_label="cat"), [1, 0, np.nan])
    with pytest.raises(ValueError, match="row 3: 'maybe'"):
        as_labels(["1", "maybe"], 2, rows=[2, 3])


def test_scores_spanning_more_than_a_float_can_hold_are_refused():
    """Found by Hypothesis: [0, 1, 1.8e308] overflowed the frame's width to inf (NaN unit scores)."""
    with pytest.raises(ValueError, match="too wide to represent: rescale them"):
        spe.fit([0.0, 1.0, 1.779894192932986e308])
