"""fit_many's two estimands: these items, or the population they come from
(spe.several.population)."""

import numpy as np
import pytest
from scipy import special

import spe
from spe.metrics import _sweeps as SW
from spe.metrics import _thresholds as R
from spe.several._population import population_accuracy


def _world(rng, n, mu=-4.5, ceiling=1.0):
    """Four models reading one latent log-odds with their own noise and temperature; a
    share 1 - ``ceiling`` of the positives-by-score are labeled negative (no model sees it)."""
    eta = mu + 3.0 * rng.standard_normal(n)
    y = (rng.random(n) < ceiling * special.expit(eta)).astype(float)
    shared = 0.4 * rng.standard_normal(n)
    models = {f"m{j}": special.expit(b * (eta + shared + sd * rng.standard_normal(n)))
              for j, (b, sd) in enumerate([(1.0, 0.6), (2.0, 0.5), (0.7, 0.7), (1.5, 1.0)])}
    return y, models


def _population(mu, ceiling, seed=3, n=100_000):
    """A large population and each model's true average precision on it."""
    y, models = _world(np.random.default_rng(seed), n, mu, ceiling)
    return y, models, {k: SW.sample_average_precision(SW.labeled_sweep(s, y))[0] for k, s in models.items()}


def _protocol(y, models, seed, n_items=1020, n_labeled=20):
    """SSME's split: items drawn from the population, the first ``n_labeled`` labeled;
    None when the labels hold one class."""
    idx = np.random.default_rng([seed, 1]).choice(y.size, n_items, replace=False)
    labels = np.full(n_items, np.nan)
    labels[:n_labeled] = y[idx[:n_labeled]]
    if np.unique(labels[:n_labeled]).size < 2:
        return None
    return {k: s[idx] for k, s in models.items()}, labels


def test_a_sweep_with_per_draw_item_weights_of_one_is_the_plain_sweep():
    rng = np.random.default_rng(0)
    pos = rng.random((5, 30)) * 3
    totals = np.full(30, 4)
    plain, weighted = SW.Sweep(pos, totals), SW.Sweep(pos, np.tile(totals, (5, 1)).astype(float))
    for fn in (SW.sample_average_precision, SW.sample_auroc, SW.sample_max_f1):
        np.testing.assert_allclose(fn(plain), fn(weighted))
    grid = np.linspace(0, 1, 11)
    np.testing.assert_allclose(SW.sample_precision_at_recall(plain, grid), SW.sample_precision_at_recall(weighted, grid))
    np.testing.assert_allclose(SW.sample_tpr_at_fpr(plain, grid), SW.sample_tpr_at_fpr(weighted, grid))
    a, b = R.rates_at(plain, np.arange(30.0), 12.0), R.rates_at(weighted, np.arange(30.0), 12.0)
    for k in a:
        np.testing.assert_allclose(a[k], b[k])
    np.testing.assert_allclose(population_accuracy(weighted, np.arange(30) >= 12), b["accuracy"])


def test_one_models_result_gives_the_population_metrics_of_the_comparison():
    y, models = _world(np.random.default_rng(1), 600, mu=-1.0)
    labels = np.where(np.arange(600) < 30, y, np.nan)
    res = spe.fit_many(models, labels, n_draws=300, seed=4, label_model="pool")  # any label model: one is enough
    r = res["m0"]
    draws = res.metric_draws("m0", kind="population")
    np.testing.assert_array_equal(r.average_precision(kind="population").draws, draws["average precision"])
    np.testing.assert_array_equal(r.auroc(kind="population").draws, draws["AUROC"])
    np.testing.assert_allclose(r.metrics_at(0.5, kind="population")["accuracy"].draws, draws["accuracy"])
    assert not np.array_equal(draws["AUROC"], res.metric_draws("m0")["AUROC"])
    rows = res.to_records(kind="population")
    assert {r["kind"] for r in rows} == {"population"}
    assert sum(r["P(best)"] for r in rows if r["metric"] == "AUROC") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="kind must be"):
        res.metrics(kind="items")


@pytest.mark.statistical
def test_with_every_item_labeled_the_population_kind_is_the_bootstrap_of_the_items():
    """Every item labeled: the metric of these items is known exactly (zero width), and
    the population's is uncertain only through which items were drawn. The population
    kind's intervals then are the Bayesian bootstrap's, and hold the population value
    about as often as they say (percentile intervals of AP and AUROC on 300 items run a
    little short of 90%)."""
    y, models, truth = _population(mu=-3.0, ceiling=1.0)
    auroc = {k: SW.sample_auroc(SW.labeled_sweep(s, y))[0] for k, s in models.items()}
    cover = {"average precision": [], "AUROC": []}
    for seed in range(16):
        idx = np.random.default_rng([seed, 7]).choice(y.size, 300, replace=False)
        res = spe.fit_many({k: s[idx] for k, s in models.items()}, y[idx], n_draws=200, seed=seed)
        sample = res.metrics()[0]["average precision"]
        assert sample.lower == sample.upper
        for row in res.metrics(kind="population"):
            for metric, true in (("average precision", truth), ("AUROC", auroc)):
                e = row[metric]
                cover[metric].append(e.lower <= true[row["model"]] <= e.upper)
    assert np.mean(cover["average precision"]) >= 0.8 and np.mean(cover["AUROC"]) >= 0.75


@pytest.mark.statistical
@pytest.mark.parametrize("mu", [-4.5, -3.0])
def test_under_ssmes_protocol_the_population_kind_covers_the_population_value(mu):
    """20 labels + 1,000 unlabeled items drawn from a population (about 10% or 20%
    positives): the population kind's 90% intervals hold the population's AP, AUROC and
    accuracy, and its AP sits no higher above the population's than the sample kind's
    (a finite set's AP is biased upwards; the population kind targets the population)."""
    y, models, ap = _population(mu=mu, ceiling=1.0)
    truth = {"average precision": ap, "AUROC": {k: SW.sample_auroc(SW.labeled_sweep(s, y))[0] for k, s in models.items()},
             "accuracy": {k: np.mean((s >= 0.5) == (y == 1)) for k, s in models.items()}}
    cover, bias = {m: [] for m in truth}, {"sample": [], "population": []}
    for seed in range(10):
        split = _protocol(y, models, seed)
        if split is None:
            continue
        res = spe.fit_many(*split, n_draws=300, seed=seed)
        for kind in bias:
            for row in res.metrics(kind=kind):
                bias[kind].append(row["average precision"].value - ap[row["model"]])
                for m in truth if kind == "population" else ():
                    cover[m].append(row[m].lower <= truth[m][row["model"]] <= row[m].upper)
    assert len(bias["sample"]) >= 24
    for m in truth:
        assert np.mean(cover[m]) >= 0.9, m
    assert np.mean(bias["population"]) <= np.mean(bias["sample"])


def test_several_multiclass_models_have_no_population_kind_yet():
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(3), size=(2, 90))
    labels = np.where(np.arange(90) < 30, p[0].argmax(axis=1), -1)
    res = spe.fit_many({"a": p[0], "b": p[1]}, labels, n_draws=100, seed=0, label_model="pool")  # any label model
    with pytest.raises(ValueError, match="one score per item"):
        res.metrics(kind="population")
