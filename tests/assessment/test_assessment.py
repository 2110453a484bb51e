"""Active assessment: conjugate updates, ROPE, Thompson sampling, SPE priors, state files."""

import json
import multiprocessing as mp

import numpy as np
import pytest
from scipy import stats

import spe
from spe.assessment import (Assessor, BetaGroups, DirichletColumns, bin_groups, class_groups, encode_groups,
                            rope_probabilities, score_informed_prior, spe_informed_prior, uninformative_prior)
from spe.exceptions import StateError
from spe.assessment._metrics import expected_calibration_error
from spe.assessment._priors import spe_group_moments
from spe.assessment._simulate import run

from tests.helpers import simulate_scores


# ---- conjugate posteriors ----------------------------------------------------------------
def test_beta_updates_match_closed_form():
    post = uninformative_prior(2)
    for z in [1, 1, 0, 1]:
        post.update(0, bool(z))
    assert (post.alpha[0], post.beta[0]) == (4.0, 2.0)
    assert post.mean()[0] == pytest.approx(4 / 6)
    assert post.variance()[0] == pytest.approx(stats.beta(4, 2).var())
    lo, hi = post.interval(0.9)
    assert lo[0] == pytest.approx(stats.beta(4, 2).ppf(0.05)) and hi[0] == pytest.approx(stats.beta(4, 2).ppf(0.95))
    assert post.mode()[0] == pytest.approx(3 / 4)


def test_dirichlet_columns_update_mean_and_cost():
    d = DirichletColumns(np.full((3, 3), 1 / 3))
    for true, pred in [(0, 0), (0, 0), (1, 0), (2, 2)]:
        d.update(true, pred)
    np.testing.assert_allclose(d.mean()[:, 0], (np.array([2, 1, 0]) + 1 / 3) / 4)
    np.testing.assert_allclose(d.mean().sum(axis=0), 1.0)
    cost = 1 - np.eye(3)
    draws = d.expected_cost(cost, np.random.default_rng(0), 20_000)
    assert draws.mean(axis=0)[0] == pytest.approx(1 - d.mean()[0, 0], abs=5e-3)


def test_rope_probabilities_match_monte_carlo_and_sum_to_one():
    post = BetaGroups([30.0, 10.0], [5.0, 10.0])
    mu = rope_probabilities(post, 0, 1, 0.05, rng=1, n=50_000)
    assert mu.sum() == pytest.approx(1.0)
    rng = np.random.default_rng(2)
    d = rng.beta(30, 5, 200_000) - rng.beta(10, 10, 200_000)
    want = [np.mean(d < -0.05), np.mean(np.abs(d) <= 0.05), np.mean(d > 0.05)]
    np.testing.assert_allclose(mu, want, atol=0.01)


def test_prob_lowest_and_ece():
    post = BetaGroups([90.0, 50.0, 95.0], [10.0, 50.0, 5.0])
    p = post.prob_lowest(np.random.default_rng(0))
    assert p.argmax() == 1 and p[1] > 0.99
    ranks = post.rank_distribution(np.random.default_rng(0), 2000)
    np.testing.assert_allclose(ranks.sum(axis=0), 1.0)
    ece = expected_calibration_error(post, [1, 1, 1], [0.9, 0.5, 0.95], np.random.default_rng(0), 5000)
    assert ece.mean() < 0.05


# ---- groups and priors ---------------------------------------------------------------------
def test_groups():
    codes, names = encode_groups(["b", "a", "b", "c"])
    assert codes.tolist() == [1, 0, 1, 2] and names == ["a", "b", "c"]
    codes, edges = bin_groups(np.linspace(0, 1, 100), 4, "mass")
    assert np.bincount(codes).tolist() == [25, 25, 25, 25]
    codes, _ = bin_groups(np.r_[np.zeros(50), np.linspace(0.9, 1, 50)], 10, "width")
    assert codes.max() + 1 < 10  # empty bins dropped
    assert class_groups([3, 3, 7])[0].tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="kind"):
        bin_groups([1.0, 2.0], 2, "quantum")


def test_score_informed_prior_is_ji_et_al():
    prior = score_informed_prior([0.9, 0.7, 0.6, 0.6], np.array([0, 0, 1, 1]))
    np.testing.assert_allclose(prior.alpha, [1.6, 1.2])
    np.testing.assert_allclose(prior.beta, [0.4, 0.8])


@pytest.mark.statistical
def test_spe_prior_moments_match_label_draws():
    """The closed-form group moments equal the Monte Carlo over SPE's own label draws."""
    z, y = simulate_scores("gamma", "truncnorm", [0.3, 2.0, 0.1, 0.7, 0.12], 800, seed=4)
    labels = np.full(z.size, np.nan)
    labels[:15] = y[:15]
    res = spe.fit(z, labels, seed=0, n_draws=400)
    predicted = (z >= 0.45).astype(float)
    groups, _ = bin_groups(z, 5, "mass")
    mean, var = spe_group_moments(res, groups, predicted)
    rng = np.random.default_rng(0)
    draws = []
    for m in rng.choice(res.n_draws, 3000, p=res.weights):
        pm = res.group_prob[m][res.data.group]
        yl = np.where(np.isnan(labels), rng.random(z.size) < pm, labels)
        draws.append(np.bincount(groups, weights=(yl == predicted)) / np.bincount(groups))
    draws = np.array(draws)
    np.testing.assert_allclose(mean, draws.mean(axis=0), atol=0.01)
    np.testing.assert_allclose(np.sqrt(var), draws.std(axis=0), rtol=0.15, atol=0.003)
    prior = spe_informed_prior(res, groups, predicted, max_strength=10)
    assert np.all(prior.alpha + prior.beta <= 10 + 1e-9)
    np.testing.assert_allclose(prior.mean(), np.clip(mean, 1e-3, 1 - 1e-3), atol=1e-9)


# ---- active selection ---------------------------------------------------------------------
@pytest.mark.statistical
def test_thompson_finds_the_worst_arm_of_a_synthetic_bandit():
    rng = np.random.default_rng(0)
    truth = np.array([0.95, 0.9, 0.7, 0.92, 0.88])
    groups = np.repeat(np.arange(5), 400)
    correct = (rng.random(groups.size) < truth[groups]).astype(int)
    hits = 0
    for seed in range(20):
        _, at = run(groups, correct, uninformative_prior(5), "ts-worst", [150], seed)
        hits += at is not None
    assert hits >= 18


def test_thompson_concentrates_labels_on_the_worst_arm():
    groups = np.repeat(np.arange(4), 300)
    rng = np.random.default_rng(1)
    truth = np.array([0.95, 0.6, 0.95, 0.95])
    correct = (rng.random(groups.size) < truth[groups]).astype(int)
    a = Assessor(groups, None, strategy="ts-worst", seed=0)
    for _ in range(120):
        i = a.next_items(1)[0]
        a.update(i, int(correct[i]))
    share = np.bincount(groups[list(a.labels)], minlength=4) / 120
    assert share[1] > 0.4


@pytest.mark.parametrize("strategy", ["random", "ts-estimate", "ts-worst", "ttts-worst", "greedy-estimate",
                                      "epsilon-greedy-estimate"])
def test_every_strategy_labels_distinct_items_until_exhausted(strategy):
    groups = np.repeat(np.arange(3), [5, 3, 2])
    a = Assessor(groups, None, strategy=strategy, seed=0)
    seen = []
    while True:
        idx = a.next_items(2)
        if idx.size == 0:
            break
        for i in idx:
            a.update(i, 1)
            seen.append(int(i))
    assert sorted(seen) == list(range(10))


def test_compare_strategy_only_labels_the_two_groups():
    groups = np.repeat(np.arange(3), 50)
    a = Assessor(groups, None, strategy="ts-compare", compare=(0, 2), seed=0)
    for _ in range(10):
        i = a.next_items(1)[0]
        assert groups[i] in (0, 2)
        a.update(i, 1)


def test_answers_compare_with_predictions():
    a = Assessor(np.array([0, 0, 1]), predicted=np.array(["cat", "dog", "cat"]), seed=0)
    a.update(0, "cat")
    a.update(1, "cat")
    post = a.posterior
    assert (post.alpha[0], post.beta[0]) == (2.0, 2.0)
    with pytest.raises(ValueError, match="1 \\(correct\\) or 0"):
        Assessor(np.array([0, 1]), None).update(0, "maybe")
    with pytest.raises(IndexError):
        a.update(7, "cat")
    with pytest.raises(ValueError, match="unknown strategy"):
        Assessor(np.array([0, 1]), strategy="psychic")


# ---- state files ----------------------------------------------------------------------------
def _session(seed=0):
    groups = np.repeat(np.arange(3), 20)
    return groups, Assessor(groups, None, strategy="ts-estimate", seed=seed)


def test_save_load_round_trip_continues_identically(tmp_path):
    groups, a = _session()
    for _ in range(5):
        i = a.next_items(1)[0]
        a.update(i, 1)
    path = tmp_path / "state.json"
    a.save(path)
    b = Assessor.load(path, groups)
    assert b.labels == a.labels
    np.testing.assert_array_equal(b.next_items(3), a.next_items(3))  # rng state restored


def test_corrupted_truncated_and_foreign_state_files(tmp_path):
    groups, a = _session()
    a.update(0, 1)
    path = tmp_path / "state.json"
    a.save(path)
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(StateError, match="corrupted or truncated"):
        Assessor.load(path, groups)
    assert path.read_text() == text[: len(text) // 2]  # left untouched for the user
    path.write_text(json.dumps({"hello": 1}))
    with pytest.raises(StateError, match="not an spe labeling-state"):
        Assessor.load(path, groups)
    a.save(path)  # a broken file is replaced by good state
    with pytest.raises(StateError, match="different item list"):
        Assessor.load(path, np.repeat(np.arange(3), [19, 20, 21]))
    with pytest.raises(StateError, match="different item list"):
        Assessor(np.repeat(np.arange(2), 5), None).save(path)


def _writer(path, start, n):
    groups = np.repeat(np.arange(3), 20)
    a = Assessor(groups, None, seed=start)
    for i in range(start, start + n):
        a.update(i, 1)
        a.save(path)


def test_concurrent_writers_lose_no_answer(tmp_path):
    path = tmp_path / "state.json"
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(path), s, 10)) for s in (0, 10, 20)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    state = json.loads(path.read_text())
    assert sorted(i for i, _ in state["labels"]) == list(range(30))


def test_costliest_strategy_targets_the_class_with_most_expensive_confusions():
    rng = np.random.default_rng(0)
    predicted = np.repeat(np.array(["a", "b", "c"]), 200)
    truth = predicted.copy()
    wrong_b = rng.random(200) < 0.4  # class "b" predictions are often really "a"
    truth[200:400][wrong_b] = "a"
    cost = 1 - np.eye(3)
    groups, _ = class_groups(predicted)
    a = Assessor(groups, predicted, strategy="ts-costliest", cost=cost, seed=0)
    for _ in range(60):
        i = a.next_items(1)[0]
        a.update(i, truth[i])
    share = np.bincount(groups[list(a.labels)], minlength=3) / 60
    assert share[1] > 0.5
    post = a.confusion_posterior()
    assert post.mean()[0, 1] > 0.2  # P(true a | predicted b) is learned


def test_least_calibrated_strategy_targets_the_miscalibrated_group(tmp_path):
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(3), 200)
    confidence = rng.uniform(0.6, 1.0, 600)
    acc = np.where(groups == 2, confidence - 0.4, confidence)  # group 2 is overconfident
    correct = (rng.random(600) < acc).astype(int)
    a = Assessor(groups, None, strategy="ts-least-calibrated", confidence=confidence, n_bins=4, seed=0)
    for _ in range(80):
        i = a.next_items(1)[0]
        a.update(i, int(correct[i]))
    share = np.bincount(groups[list(a.labels)], minlength=3) / 80
    assert share[2] > 0.5
    a.save(tmp_path / "s.json")  # options survive a round trip
    b = Assessor.load(tmp_path / "s.json", groups)
    np.testing.assert_array_equal(b.next_items(2), a.next_items(2))


def test_multiclass_informed_prior_matches_the_draws_and_earns_its_strength():
    from scipy import special

    import spe
    from spe.assessment import multiclass_informed_prior

    rng = np.random.default_rng(0)
    p = special.softmax(rng.normal(0, 2.5, (800, 4)), axis=1)
    y = (p.cumsum(1) > rng.random((800, 1))).argmax(1)
    one = {"model": "temperature", "n_draws": 300, "seed": 0}  # one label model: the prior reads any fit's draws
    few = spe.fit_multiclass(p, np.where(np.arange(800) < 5, y, -1), **one)
    many = spe.fit_multiclass(p, np.where(np.arange(800) < 400, y, -1), **one)
    prior_few, prior_many = multiclass_informed_prior(few), multiclass_informed_prior(many)
    pred = p.argmax(1)
    acc = np.stack([[np.mean(d[pred == g] == g) for g in range(4)] for d in few.class_draws])
    centre = stats.trim_mean(acc, 0.25, axis=0)  # the draws' interquartile mean, not their (skewed) mean
    np.testing.assert_allclose(prior_few.mean(), centre, atol=1e-9)
    strength = lambda b: b.alpha + b.beta  # noqa: E731
    earned = np.maximum(centre * (1 - centre) / np.mean((acc - centre) ** 2, axis=0) - 1, 2.0)
    np.testing.assert_allclose(strength(prior_few), earned, rtol=1e-9)
    assert np.all(strength(prior_many) > strength(prior_few))  # more labels, a sharper posterior, more weight
    assert np.all(strength(prior_many) > 10)  # no fixed cap
    truth = np.array([np.mean(y[pred == g] == g) for g in range(4)])
    lower, upper = stats.beta.ppf([[0.025], [0.975]], prior_many.alpha, prior_many.beta)
    assert np.all((lower <= truth) & (truth <= upper)), (lower, truth, upper)  # each group's truth in its 95% prior


def test_multiclass_prior_for_a_class_never_predicted_is_uninformative():
    from scipy import special

    import spe
    from spe.assessment import multiclass_informed_prior

    rng = np.random.default_rng(1)
    p = special.softmax(rng.normal(0, 2, (300, 4)), axis=1)
    p[:, 2] *= 1e-4  # class 2 is never the top class
    p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(1) > rng.random((300, 1))).argmax(1)
    res = spe.fit_multiclass(p, np.where(np.arange(300) < 10, y, -1), n_draws=200, seed=0)
    prior = multiclass_informed_prior(res)
    assert np.bincount(res.predicted, minlength=4)[2] == 0
    assert prior.alpha[2] == prior.beta[2] == 1.0  # Beta(1, 1), not a spike at accuracy 0


def test_multiclass_prior_without_labels_is_centred_on_the_classifiers_own_probabilities():
    from scipy import special

    import spe
    from spe.assessment import multiclass_informed_prior, score_informed_prior

    rng = np.random.default_rng(2)
    p = special.softmax(rng.normal(0, 3.0, (1500, 5)), axis=1)  # confident, and calibrated
    y = (p.cumsum(1) > rng.random((1500, 1))).argmax(1)
    res = spe.fit_multiclass(p, None, n_draws=300, seed=0)
    prior = multiclass_informed_prior(res)
    pred = p.argmax(1)
    ji = score_informed_prior(p.max(1), pred)
    np.testing.assert_allclose(prior.mean(), ji.mean(), atol=1e-9)  # the classifier's own accuracy per group
    drawn = np.stack([[np.mean(d[pred == g] == g) for g in range(5)] for d in res.class_draws])
    assert np.all(drawn.mean(0) < ji.mean())  # averaging over the label models' prior would sink it
    strength = prior.alpha + prior.beta
    assert np.all(strength >= 2.0)
    truth = np.array([np.mean(y[pred == g] == g) for g in range(5)])
    lower, upper = stats.beta.ppf([[0.05], [0.95]], prior.alpha, prior.beta)
    assert np.all((lower <= truth) & (truth <= upper)), (lower, truth, upper)
