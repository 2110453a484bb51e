"""Metric elicitation (spe.elicitation): recovery of known metrics with the paper's question
counts, noise, posterior coverage, the decision rule, evaluation from spe fits, bad inputs."""

import json
import warnings

import numpy as np
import pytest

import spe
from spe.elicitation import (DiagonalLinear, ElicitedMetric, Linear, bradley_terry_oracle, f_beta, noisy_oracle,
                             paper_probabilities, random_metric, truthful_oracle)
from spe.exceptions import InconsistentAnswersWarning
from spe.elicitation._fractional import canonical_of
from spe.elicitation._radius import longest_step, sphere_radius
from spe.elicitation._space import ConfusionSpace, offdiag

EPS = 0.01


def elicit_quietly(*args, **kwargs):
    """``spe.elicit_metric`` with a noisy oracle, whose inconsistent answers are expected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InconsistentAnswersWarning)
        return spe.elicit_metric(*args, **kwargs)


@pytest.fixture(scope="module")
def three():
    """The paper's synthetic classes, K = 3, p = (1, 3, 5), on a 4,000-point grid."""
    return paper_probabilities((1, 3, 5), n=4000)


@pytest.fixture(scope="module")
def four():
    return paper_probabilities((1, 3, 6, 10), n=4000)


@pytest.mark.parametrize("k", [3, 4])
def test_every_random_dlpm_is_recovered_within_2_eps_with_the_papers_question_count(k, three, four):
    probs = three if k == 3 else four
    rng = np.random.default_rng(k)
    budget = 4 * (k - 1) * int(np.ceil(np.log2(1 / EPS)))  # 56 and 84, the paper's Table 2
    for _ in range(25):
        truth = random_metric("diagonal", k, rng)
        m = spe.elicit_metric(truthful_oracle(truth), probs, tolerance=EPS)
        assert np.abs(m.weights - truth.weights).max() <= 2 * EPS
        assert m.n_queries <= budget == m.max_queries
        assert np.isclose(m.weights.sum(), 1.0) and (m.weights >= 0).all()


def test_a_tiny_first_weight_and_a_flat_boundary_do_not_cost_precision(three):
    """With class 0 as a fixed reference the ratios a_i / a_0 blow up when a_0 is small; and
    a_0 / (a_0 + a_1) = 0.9 lies where every rule is "always 0" (a plateau of the face)."""
    for weights in ([0.004, 0.6, 0.396], [0.9, 0.1, 0.0], [0.45, 0.05, 0.5]):
        m = spe.elicit_metric(truthful_oracle(DiagonalLinear(weights)), three, tolerance=EPS)
        assert np.abs(m.weights - weights).max() <= 2 * EPS


def test_random_lpms_are_recovered_within_2_eps_with_the_papers_question_count(three):
    rng = np.random.default_rng(5)
    radius = sphere_radius(ConfusionSpace(three))[0]
    for _ in range(4):
        truth = random_metric("linear", 3, rng)
        m = spe.elicit_metric(truthful_oracle(truth), three, family="linear", tolerance=EPS, radius=radius)
        assert m.n_queries == m.max_queries == 320  # 4 T ceil(log2(pi / (2 eps))), T = 2 (q - 1): Table 3
        assert np.abs(m.weights - truth.weights).max() <= 2 * EPS
        assert np.isclose(np.linalg.norm(m.weights), 1.0) and (m.weights <= 0).all()


def test_the_radius_is_the_exact_longest_step_and_its_sphere_is_reachable():
    """Column generation agrees with the linear program over every item's prediction, and
    the certified sphere's lower points are reachable (that program finds them feasible)."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(0)
    eta = rng.dirichlet(np.full(3, 0.7), size=30)
    space = ConfusionSpace(eta)
    n, k, q = 30, 3, 6
    cells = [(i, j) for i in range(k) for j in range(k) if i != j]

    def reachable_step(direction):  # max t: o + t u = offdiag(eta^T H / N), H row-stochastic
        a_eq = np.zeros((n + q, n * k + 1))
        for i in range(n):
            a_eq[i, i * k:(i + 1) * k] = 1
        for c, (i, j) in enumerate(cells):
            a_eq[n + c, j:n * k:k] = eta[:, i] / n
            a_eq[n + c, -1] = -direction[c]
        res = linprog(np.r_[np.zeros(n * k), -1], A_eq=a_eq, b_eq=np.r_[np.ones(n), space.center],
                      bounds=[(0, None)] * (n * k + 1), method="highs")
        return res.x[-1]

    for j in range(q):
        u = -np.eye(q)[j]
        assert longest_step(space, u) == pytest.approx(reachable_step(u), rel=2e-3)
    radius = sphere_radius(space)[0]
    for _ in range(5):
        a = -np.abs(rng.standard_normal(q))
        a /= np.linalg.norm(a)
        assert reachable_step(a) >= radius * (1 - 1e-9)  # o + radius * a is in C


def test_binary_f1_is_elicited_and_its_threshold_is_the_f1_optimal_one():
    probs = paper_probabilities((1, 4), n=4000)
    space = ConfusionSpace(probs)
    truth = f_beta(1.0, space.prevalence[1])
    m = spe.elicit_metric(truthful_oracle(truth), probs, family="diagonal-fractional", tolerance=EPS)
    exact = canonical_of(truth, space)
    assert np.abs(m.weights - exact.weights).max() <= 2 * EPS
    assert m.n_queries <= m.max_queries == 14  # two chord bisections on the one face
    thresholds = np.linspace(0, 1, 2001)
    f1 = [truth(space.confusion((probs[:, 1] >= t).astype(int))) for t in thresholds]
    best = truth(space.confusion((probs[:, 1] >= thresholds[int(np.argmax(f1))]).astype(int)))
    assert truth(space.confusion(m.decide())) >= best - 1e-3
    assert 0 < m.threshold < 1


def test_linear_fractional_metrics_order_matrices_as_the_truth_does(three):
    rng = np.random.default_rng(11)
    space = ConfusionSpace(three)
    for family in ("diagonal-fractional", "linear-fractional"):
        truth = random_metric(family, 3, rng)
        m = spe.elicit_metric(truthful_oracle(truth), three, family=family, tolerance=EPS)
        a, b = space.trivial[0], space.confusion(np.argmax(three, axis=1))
        assert (m(a) > m(b)) == (truth(a) > truth(b))
        assert np.abs(m.weights - canonical_of(truth, space).weights).max() < 0.1


def test_noise_makes_errors_grow_no_faster_than_eps_plus_sqrt_eps_omega(three):
    """Definition 7's oracle (a coin flip within eps_Omega): the median error over random
    metrics stays within a fixed multiple of eps + sqrt(eps_Omega)."""
    ratios = []
    for eps_omega in (0.0005, 0.005, 0.05):
        rng = np.random.default_rng(2)
        errors = []
        for s in range(12):
            truth = random_metric("diagonal", 3, rng)
            m = elicit_quietly(noisy_oracle(truth, eps_omega, seed=s), three, tolerance=EPS)
            errors.append(np.abs(m.weights - truth.weights).max())
        ratios.append(np.median(errors) / (EPS + np.sqrt(eps_omega)))
    assert max(ratios) <= 3.0
    assert ratios[-1] <= 1.5 * ratios[0] + 0.5


def test_majority_voting_tames_a_bradley_terry_oracle(three):
    rng = np.random.default_rng(4)
    err = {1: [], 7: []}
    for s in range(8):
        truth = random_metric("diagonal", 3, rng)
        for repeats in err:
            m = elicit_quietly(bradley_terry_oracle(truth, 0.001, seed=s), three, tolerance=EPS, repeats=repeats)
            err[repeats].append(np.abs(m.weights - truth.weights).max())
            assert m.n_queries == repeats * len(m.history)
    assert np.mean(err[7]) < np.mean(err[1])


@pytest.mark.statistical
def test_posterior_intervals_cover_the_true_weights_at_their_level(three):
    """Truths drawn from the prior, answers from the truth: 90% intervals of every weight
    cover it about 90% of the time."""
    rng = np.random.default_rng(7)
    covered = []
    for s in range(30):
        truth = random_metric("diagonal", 3, rng)
        m = spe.elicit_metric(truthful_oracle(truth), three, tolerance=0.05, seed=s, n_draws=2000)
        lo, hi = m.interval(0.9)
        covered.extend((lo <= truth.weights) & (truth.weights <= hi))
        assert m.posterior.ess > 200
    assert 0.8 <= np.mean(covered) <= 0.98


@pytest.mark.statistical
def test_posterior_of_a_noisy_oracle_with_its_noise_model_covers(three):
    rng = np.random.default_rng(8)
    covered = []
    for s in range(20):
        truth = random_metric("diagonal", 3, rng)
        m = elicit_quietly(bradley_terry_oracle(truth, 0.002, seed=s), three, tolerance=0.05, seed=s,
                           noise="bradley-terry", noise_scale=0.002, n_draws=2000)
        lo, hi = m.interval(0.9)
        covered.extend((lo <= truth.weights) & (truth.weights <= hi))
    assert np.mean(covered) >= 0.75


def test_the_same_seed_gives_the_same_posterior(three):
    truth = DiagonalLinear([0.2, 0.5, 0.3])
    a = spe.elicit_metric(truthful_oracle(truth), three, seed=3, n_draws=500)
    b = spe.elicit_metric(truthful_oracle(truth), three, seed=3, n_draws=500)
    assert np.array_equal(a.posterior.draws, b.posterior.draws)


def test_decide_is_the_bayes_rule_and_the_metric_reads_matrices(three):
    truth = DiagonalLinear([0.2, 0.5, 0.3])
    m = spe.elicit_metric(truthful_oracle(truth), three)
    assert np.array_equal(m.decide(three), np.argmax(three * m.weights, axis=1))
    c = ConfusionSpace(three).confusion(m.decide())
    assert m(c) == pytest.approx(np.diagonal(c) @ m.weights)
    with pytest.raises(ValueError, match="3 x 3"):
        m(np.eye(2) / 2)
    with pytest.raises(ValueError, match="sum to 1"):
        m(np.eye(3))


def test_linear_weights_name_the_mistakes_and_give_a_cost_matrix(three):
    truth = Linear(-np.full(6, 1 / np.sqrt(6)), 3)
    m = spe.elicit_metric(truthful_oracle(truth), three, family="linear", classes=["a", "b", "c"], tolerance=0.05)
    assert m.weight_names[:2] == ["a -> b", "a -> c"]
    costs = m.cost_matrix()
    assert np.allclose(np.diagonal(costs), 0) and (offdiag(costs) >= 0).all()


def test_inconsistent_answers_are_warned_about_clearly(three):
    rng = np.random.default_rng(0)
    with pytest.warns(InconsistentAnswersWarning, match="no diagonal metric gives"):
        m = spe.elicit_metric(lambda c1, c2: bool(rng.random() < 0.5), three, tolerance=EPS)
    assert m.inconsistent_rounds > 0


def test_an_oracle_that_does_not_return_a_boolean_is_refused_by_name(three):
    def says_yes(c1, c2):
        return "yes"

    with pytest.raises(TypeError, match=r"says_yes.*'yes'.*str.*True"):
        spe.elicit_metric(says_yes, three)
    with pytest.raises(TypeError, match="returned 1 of type int"):
        spe.elicit_metric(lambda c1, c2: 1, three)


@pytest.mark.parametrize("probs, match", [
    (np.full((5, 3), 0.5), "row 0 sums to 1.5"),
    (np.ones((5, 1)), "K >= 2"),
    (np.array([[0.5, np.nan], [0.5, 0.5]]), "NaN"),
    (np.full(6, 0.5), "1 dimension"),
    (np.array([[2.0, -1.0], [0.5, 0.5]]), r"\[0, 1\]"),
])
def test_bad_probabilities_get_clear_errors(probs, match):
    with pytest.raises(ValueError, match=match):
        spe.elicit_metric(truthful_oracle(DiagonalLinear([0.5, 0.5])), probs)


@pytest.mark.parametrize("kwargs, match", [
    ({"tolerance": 0.0}, "tolerance"), ({"tolerance": 0.7}, "tolerance"), ({"tolerance": "small"}, "tolerance"),
    ({"family": "quadratic"}, "family"), ({"repeats": 2}, "odd"), ({"labels": [0, 1]}, "length"),
    ({"noise": "loud"}, "noise"), ({"classes": ["a"]}, "classes"),
])
def test_bad_options_get_clear_errors(kwargs, match, three):
    with pytest.raises(ValueError, match=match):
        spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), three, **kwargs)


def test_a_non_callable_oracle_is_a_type_error(three):
    with pytest.raises(TypeError, match="callable"):
        spe.elicit_metric("me", three)


def test_to_dict_is_json_and_summary_names_everything(three):
    m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), three, classes=["x", "y", "z"])
    data = json.loads(json.dumps(m.to_dict()))
    assert data["weights"].keys() == {"x", "y", "z"} and len(data["history"]) == len(m.history)
    assert data["n_queries"] == m.n_queries and data["history"][0]["first_preferred"] in (True, False)
    text = m.summary()
    assert "weighted accuracy" in text and "questions" in text and " y " in text
    assert isinstance(m, ElicitedMetric) and "ElicitedMetric" in repr(m)


def test_to_frame_is_tidy_with_the_weights_and_the_chosen_rules_value(three):
    pd = pytest.importorskip("pandas")
    m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), three, n_draws=1000)
    frame = m.to_frame()
    assert isinstance(frame, pd.DataFrame) and frame.columns.tolist() == ["quantity", "name", "estimate", "lower",
                                                                          "upper", "level"]
    weights = frame[frame.quantity == "weight"]
    assert weights.name.tolist() == ["0", "1", "2"] and np.allclose(weights.estimate, m.weights)
    assert (frame.lower <= frame.estimate).all() and (frame.estimate <= frame.upper).all()
    rows = frame[frame.quantity == "metric"].set_index("name")
    assert rows.index.tolist() == ["rule used: elicited", "top-1 rule", "rule used minus top-1"]
    truth = m.metric  # the rule's value is the weights' posterior value of decide() on these items
    assert rows.loc["rule used: elicited", "estimate"] == pytest.approx(truth(m.space.confusion(m.decide())), abs=2e-3)
    assert m.to_records() == frame.to_dict("records")
    probs = three[::4]
    labelled = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs,
                                 labels=_labelled(probs, 30, 0)[1], n_draws=500, seed=0)
    ev, rows = labelled.evaluate(), labelled.to_frame(0.8).set_index("name")
    assert rows.loc["rule used: elicited", "estimate"] == ev.rule.value and (rows.level == 0.8).all()


def _labelled(probs, budget, seed):
    """Classes drawn from the (calibrated) probabilities; ``budget`` of them revealed."""
    rng = np.random.default_rng(seed)
    y = (rng.random(len(probs))[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)
    labels = np.full(len(probs), -1)
    known = rng.choice(len(probs), budget, replace=False)
    labels[known] = y[known]
    return y, labels


@pytest.mark.statistical
def test_evaluate_gives_the_rules_value_on_the_items_with_an_interval_that_covers():
    probs = paper_probabilities((1, 3, 5), n=600)
    covered = []
    for s in range(6):
        y, labels = _labelled(probs, 30, s)
        truth = random_metric("diagonal", 3, np.random.default_rng(100 + s))
        m = spe.elicit_metric(truthful_oracle(truth), probs, labels=labels, seed=s, n_draws=1000)
        assert m.fit is not None and m.probs.shape == probs.shape and not np.allclose(m.probs, probs)
        ev = m.evaluate()
        value = truth(ConfusionSpace(np.eye(3)[y]).confusion(m.decide()))
        covered.append(ev.rule.lower <= value <= ev.rule.upper)
        assert 0 <= ev.prob_beats_argmax <= 1
        assert np.allclose(ev.difference.draws, ev.rule.draws - ev.argmax.draws)
    assert np.mean(covered) >= 4 / 6


def test_binary_users_get_a_threshold_and_an_evaluation_from_spe_fit():
    probs = paper_probabilities((1, 4), n=500)
    y, labels = _labelled(probs, 20, 0)
    # 200 draws: the threshold comes from the answers, and the evaluation's band is checked for order only
    m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.3, 0.7])), probs, labels=labels, n_draws=200)
    assert isinstance(m.fit, spe.SPEResult)
    assert m.threshold == pytest.approx(m.weights[0] / m.weights.sum(), abs=1e-12)
    assert abs(m.threshold - 0.3) <= 2 * EPS
    assert np.array_equal(m.decide(), (m.probs[:, 1] >= m.threshold).astype(int))
    ev = m.evaluate(level=0.8)
    assert ev.rule.lower <= ev.rule.value <= ev.rule.upper and ev.rule.level == 0.8
    assert "P(1) >=" in m.summary()


def test_evaluate_needs_a_fit_of_these_items(three):
    m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), three)
    with pytest.raises(ValueError, match="needs an spe fit"):
        m.evaluate()
    other = spe.fit_multiclass(three[:50], n_draws=50, seed=0)
    with pytest.raises(ValueError, match="50 items"):
        m.evaluate(other)
    with pytest.raises(TypeError, match="spe fit"):
        m.evaluate("a fit")


def test_plots_draw_the_query_path_and_the_two_rules(three):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    probs = paper_probabilities((1, 3, 5), n=600)
    _, labels = _labelled(probs, 30, 1)
    m = spe.elicit_metric(truthful_oracle(DiagonalLinear([0.2, 0.5, 0.3])), probs, labels=labels, n_draws=200)
    ax = m.plot_queries(pair=1)
    assert len(ax.collections) >= 2 and "questions" in ax.get_title()
    ax = m.plot_evaluation()
    assert "P(elicited rule beats top-1)" in ax.get_title()
    lin = spe.elicit_metric(truthful_oracle(Linear(-np.full(6, 6 ** -0.5), 3)), three, family="linear",
                            tolerance=0.1)
    assert lin.plot_queries().get_title().endswith("two mistakes")
    with pytest.raises(ValueError, match="pair"):
        m.plot_queries(pair=5)
    plt.close("all")


@pytest.mark.statistical
def test_with_a_noisy_answer_model_the_posterior_mean_is_reported_and_beats_the_searches(three):
    rng = np.random.default_rng(12)
    search, reported = [], []
    for s in range(10):
        truth = random_metric("diagonal", 3, rng)
        m = elicit_quietly(noisy_oracle(truth, 0.01, seed=s), three, tolerance=EPS, noise="threshold",
                           noise_scale=0.01, n_draws=1000, seed=s)
        assert m.estimate == "posterior mean" and np.isclose(m.weights.sum(), 1.0)
        search.append(np.abs(m.search_weights - truth.weights).max())
        reported.append(np.abs(m.weights - truth.weights).max())
    assert np.median(reported) < np.median(search)


def test_the_papers_own_synthetic_classes_break_its_assumption_1(three):
    """eta_0 / eta_1 only spans [0.77, 5.7] on X in [-1, 1]: every share m above 0.57 gives
    the rule "always class 0". The paper's Algorithm 1 as written cannot locate a metric
    whose share lies there; the plateau-aware search does."""
    from spe.elicitation._diagonal import elicit_diagonal
    from spe.elicitation import Asker

    space = ConfusionSpace(three)
    switch = space.pair(0, 1).switch
    assert 0.14 < switch.min() and switch.max() < 0.58
    truth = DiagonalLinear([0.7, 0.2, 0.1])  # a_0 / (a_0 + a_1) = 0.78
    as_written, _ = elicit_diagonal(space, Asker(truthful_oracle(truth)), EPS, champion=False, plateaus=False)
    ours, _ = elicit_diagonal(space, Asker(truthful_oracle(truth)), EPS)
    assert np.abs(as_written - truth.weights).max() > 0.05
    assert np.abs(ours - truth.weights).max() <= 2 * EPS


class StepPath:
    """A path of vertices: vertex j holds for t in [edges[j], edges[j + 1]); its matrix
    carries its value, so vertices with equal values look the same (a rounding tie)."""

    lo, hi = 0.0, 1.0

    def __init__(self, edges, values):
        self.edges, self.values = np.concatenate([[0.0], edges, [1.0]]), np.asarray(values, float)

    def _vertex(self, t):
        return int(np.clip(np.searchsorted(self.edges, t, side="right") - 1, 0, self.values.size - 1))

    def key(self, t):
        return self._vertex(t)

    def plateau(self, t):
        j = self._vertex(t)
        return float(self.edges[j]), float(self.edges[j + 1])

    def confusion(self, t):
        v = self.values[self._vertex(t)]
        return np.array([[0.5 + v, 0.0], [0.0, 0.5 - v]])


def test_the_search_finds_the_best_vertex_through_plateaus_and_ties():
    from spe.elicitation._search import search_best

    rng = np.random.default_rng(0)
    for _ in range(40):
        n = int(rng.integers(3, 300))
        edges = np.sort(rng.random(n - 1))
        best = int(rng.integers(0, n - 1))
        values = -0.001 * (np.arange(n) - best) ** 2
        values[best + 1] = values[best]  # two best vertices, tied: their matrices are the same
        asked = []

        def oracle(first, second, name):
            asked.append(1)
            return bool(first[0, 0] > second[0, 0])

        result = search_best(StepPath(edges, values), oracle, EPS)
        lo, hi = result.interval
        path = StepPath(edges, values)
        top = (path.edges[best], path.edges[best + 2])  # where the best matrix is reached
        assert lo <= top[1] + 1e-12 and hi >= top[0] - 1e-12
        assert len(asked) <= 4 * np.ceil(np.log2(1 / EPS))
