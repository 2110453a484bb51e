"""Several models on shared labels: input boundary, degenerate models, paired comparisons."""

import os
from pathlib import Path

import numpy as np
import pytest
from scipy import special

import spe
from spe.metrics import labeled_sweep, sample_auroc


DATA = Path(os.environ.get("SPE_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
COMPAS = DATA / "compas_violent_recidivism_race_fairness.npz"


def _three_models(rng, n=800):
    y = rng.random(n) < 0.3
    latent = np.where(y, 1.0, -1.0)
    good = special.expit(2.5 * latent + rng.normal(0, 1.2, n))
    fair = special.expit(1.0 * latent + rng.normal(0, 1.5, n))
    noise = special.expit(rng.normal(0, 1, n))
    return y.astype(float), {"good": good, "fair": fair, "noise": noise}


def test_inputs_are_checked():
    with pytest.raises(TypeError, match="dict"):
        spe.fit_many([np.arange(5.0)])
    with pytest.raises(ValueError, match="same items"):
        spe.fit_many({"a": np.linspace(0, 1, 5), "b": np.linspace(0, 1, 6)})
    with pytest.raises(ValueError, match="label_model must be one of"):
        spe.fit_many({"a": np.linspace(0, 1, 5)}, label_model="copula")
    for name in ("log-linear pool", "Gaussian copula", "Dawid-Skene"):
        with pytest.raises(ValueError, match="rename that model"):
            spe.fit_many({name: np.linspace(0, 1, 5)})
    with pytest.raises(ValueError, match=r"no model can inform the labels: flat: one score for every item"):
        spe.fit_many({"flat": np.ones(10)})


def test_degenerate_models_are_reported_and_kept_out_of_the_labels():
    rng = np.random.default_rng(0)
    y, models = _three_models(rng)
    models["binary"] = (models["good"] > 0.5).astype(float)
    models["reversed"] = 1.0 - models["good"]
    models["constant"] = np.ones(y.size)
    labels = np.where(np.arange(y.size) < 60, y, np.nan)
    res = spe.fit_many(models, labels, n_draws=300, seed=0)
    assert set(res.excluded) == {"binary", "constant", "reversed"}
    assert "one score" in res.excluded["constant"] and "wrong way" in res.excluded["reversed"]
    assert "hard predictions inform the labels only when no model with more does" in res.excluded["binary"]
    own = {"good", "fair", "noise"}
    calibrated = {f"{m} (calibrated)" for m in own}
    assert set(res.label_model.fits) == own | calibrated | {"log-linear pool", "Gaussian copula"}
    assert res.model_weights["binary"] == 0 and sum(res.model_weights.values()) == pytest.approx(1)
    maps = spe.fit_many(models, labels, n_draws=300, seed=0, label_model="maps")
    pool = spe.fit_many(models, labels, n_draws=300, seed=0, label_model="pool")
    assert set(maps.label_model.fits) == own | calibrated
    assert set(pool.label_model.fits) == {"log-linear pool"} and pool.model_weights["log-linear pool"] == 1
    # every labelling counts once, so a single label model's importance weights are resampled away
    single = spe.fit_many({"good": models["good"]}, labels, n_draws=300, seed=0, calibrated=False)
    assert "good's calibration map alone" in single.summary()
    assert "log-linear pool of all models alone" in pool.summary() and "pool" not in maps.summary()
    for res_ in (maps, pool, single):
        np.testing.assert_allclose(res_.label_model.weights, 1 / 300)
        assert res_.label_draws.shape == (300, y.size)
    assert "excluded from the label model" in res.summary()


@pytest.mark.statistical
def test_paired_comparisons_rank_the_models_and_cover_their_auroc():
    rng = np.random.default_rng(1)
    y, models = _three_models(rng)
    labels = np.where(np.arange(y.size) < 30, y, np.nan)
    res = spe.fit_many(models, labels, n_draws=400, seed=0)
    beats = res.prob_beats("AUROC")
    np.testing.assert_allclose(beats + beats.T, 1.0)
    best = res.prob_best("AUROC")
    assert abs(sum(best.values()) - 1) < 1e-9 and best["good"] > 0.8
    assert [r["model"] for r in res.ranking()] == ["good", "fair", "noise"]
    again = spe.fit_many(models, labels, n_draws=400, seed=0)
    np.testing.assert_array_equal(again.label_draws, res.label_draws)
    hits = []
    for seed in range(10):  # 90% AUROC intervals of the three models over repeated data sets
        y, models = _three_models(np.random.default_rng(10 + seed))
        res = spe.fit_many(models, np.where(np.arange(y.size) < 30, y, np.nan), n_draws=400, seed=seed)
        hits += [row["AUROC"].lower <= sample_auroc(labeled_sweep(models[row["model"]], y))[0] <= row["AUROC"].upper
                 for row in res.metrics()]
    assert np.mean(hits) >= 0.8, np.mean(hits)


def test_prevalence_comes_from_the_shared_draws_and_covers_the_truth():
    rng = np.random.default_rng(2)
    y, models = _three_models(rng)
    labels = np.where(np.arange(y.size) < 30, y, np.nan)
    res = spe.fit_many(models, labels, n_draws=400, seed=0)
    prev = res.prevalence(level=0.9)
    assert prev.lower <= y.mean() <= prev.upper
    assert prev.value == pytest.approx(np.median(res.label_draws.mean(axis=1)))
    assert res.prevalence(level=0.5).upper - res.prevalence(level=0.5).lower < prev.upper - prev.lower
    assert f"prevalence {prev.value:.3f}" in res.summary()


def test_comparison_plot_draws_every_model_best_on_top():
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(2)
    y, models = _three_models(rng, n=400)
    labels = np.where(np.arange(y.size) < 30, y, np.nan)
    res = spe.fit_many(models, labels, n_draws=200, seed=0, label_model="pool")  # the plot is checked: one label model
    ax = res.plot_comparison(metric="average precision")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 3 and labels[-1].startswith("good") and "P(best)" in labels[-1]
    assert "average precision" in ax.get_xlabel()
    with pytest.raises(ValueError, match="metric must be one of"):
        res.plot_comparison(metric="F1")
    import matplotlib.pyplot as plt

    truth = {"good": 0.9, "noise": 0.3}  # a model may be left out
    marked = res.plot_comparison(plt.subplots()[1], metric="average precision", truth=truth)
    xs, ys = marked.lines[-1].get_data()
    rows = [t.get_text().split()[0] for t in marked.get_yticklabels()]
    assert sorted(zip(ys, xs)) == sorted((rows.index(k), v) for k, v in truth.items())


@pytest.mark.statistical
def test_every_models_auroc_interval_covers_with_ten_labels():
    """Models with independent errors, 10 labels: each model's 90% AUROC interval covers its
    AUROC on these items in most seeds. Either kind of label model alone fails here: the
    log-linear pool (labels spent twice) covers the best model in 0 of these 20 seeds, the
    models' own maps (labels independent of the other scores) the second model in 8."""
    hits = {"good": [], "fair": [], "noise": []}
    for seed in range(20):
        y, models = _three_models(np.random.default_rng(100 + seed))
        labels = np.where(np.arange(y.size) < 10, y, np.nan)
        if np.nansum(labels) in (0, 10):
            continue
        for row in spe.fit_many(models, labels, n_draws=300, seed=seed).metrics(level=0.9):
            truth = sample_auroc(labeled_sweep(models[row["model"]], y))[0]
            hits[row["model"]].append(row["AUROC"].lower <= truth <= row["AUROC"].upper)
    coverage = {k: np.mean(v) for k, v in hits.items()}
    assert min(coverage.values()) >= 0.6 and np.mean(list(coverage.values())) >= 0.8, coverage


@pytest.mark.statistical
@pytest.mark.skipif(not COMPAS.exists(), reason="shared real data not present")
def test_prevalence_interval_covers_on_real_scores_with_twenty_labels():
    """compas (10 models, prevalence 0.17), 20 labels + 649 unlabeled per seed: the 90%
    prevalence interval covers the items' prevalence in >= 85% of 40 seeds (the log-linear
    pool alone: 82%)."""
    d = np.load(COMPAS)
    scores, y = d["scores_all"].astype(float), d["labels"].astype(float)
    hits = []
    for seed in range(40):
        items = np.random.default_rng(seed).permutation(y.size)[: y.size // 2]
        labels = np.full(items.size, np.nan)
        labels[:20] = y[items[:20]]
        if np.nansum(labels) in (0, 20):
            continue
        res = spe.fit_many({str(j): scores[items, j] for j in range(scores.shape[1])}, labels, n_draws=400, seed=seed)
        prev = res.prevalence(level=0.9)
        hits.append(prev.lower <= y[items].mean() <= prev.upper)
    assert len(hits) >= 35 and np.mean(hits) >= 0.85, np.mean(hits)


def test_calibrated_maps_are_the_default_and_checked():
    y, models = _three_models(np.random.default_rng(4))
    labels = np.where(np.arange(y.size) < 20, y, np.nan)
    margins = {"margin": special.logit(models["good"]), "fair": models["fair"]}
    off = spe.fit_many(models, labels, n_draws=200, seed=0, calibrated=False)
    assert list(off.model_weights) == [*models, "log-linear pool", "Gaussian copula"]
    assert "'calibrated' maps" not in off.summary()
    res = spe.fit_many(margins, labels, n_draws=200, seed=0)
    weights = res.model_weights
    # margins have no 'calibrated' map
    assert list(weights) == ["margin", "fair", "fair (calibrated)", "log-linear pool", "Gaussian copula"]
    assert sum(weights.values()) == pytest.approx(1.0) and "1 models' 'calibrated' maps" in res.summary()
    assert spe.fit_many(margins, labels, n_draws=200, seed=0, calibrated=True).model_weights == weights
    with pytest.raises(TypeError, match="calibrated must be True, False or None"):
        spe.fit_many(models, labels, calibrated="yes")
    with pytest.raises(ValueError, match="rename that model"):
        spe.fit_many({"a": models["good"], "a (calibrated)": models["fair"]}, labels, calibrated=True)
    matrix = {"a": np.column_stack([1 - models["good"], models["good"]])}
    with pytest.raises(ValueError, match="calibrated=True applies to one score per item"):
        spe.fit_many(matrix, calibrated=True)
    with pytest.raises(TypeError, match="calibrated must be True, False or None"):
        spe.fit_many(matrix, calibrated="yes")


@pytest.mark.statistical
def test_calibrated_maps_help_a_calibrated_model_and_keep_coverage():
    """A calibrated model and a 3x over-confident one, 20 labels, 20 seeds. With
    calibrated=True the accuracy error falls (0.056 -> 0.042 measured), 90% AUROC
    intervals cover as often (0.90 both), and the labels give the calibrated model's
    'calibrated' map more weight than the over-confident one's (0.36 vs 0.10)."""
    errors, hits, weights = {False: [], True: []}, [], []
    for seed in range(20):
        rng = np.random.default_rng(300 + seed)
        p = special.expit(rng.normal(-1, 1.5, 800))
        y = (rng.random(800) < p).astype(float)
        models = {"calibrated one": p, "over-confident": special.expit(3 * special.logit(p) + rng.normal(0, 1, 800))}
        labels = np.where(np.arange(800) < 20, y, np.nan)
        for calibrated in (False, True):
            res = spe.fit_many(models, labels, n_draws=300, seed=seed, calibrated=calibrated)
            for row in res.metrics(level=0.9):
                s = models[row["model"]]
                errors[calibrated].append(abs(row["accuracy"].value - np.mean((s >= 0.5) == (y == 1))))
                if calibrated:
                    truth = sample_auroc(labeled_sweep(s, y))[0]
                    hits.append(row["AUROC"].lower <= truth <= row["AUROC"].upper)
        weights.append([res.model_weights[f"{m} (calibrated)"] for m in models])
    assert np.mean(errors[True]) < 0.85 * np.mean(errors[False]), {k: np.mean(v) for k, v in errors.items()}
    assert np.mean(hits) >= 0.8, np.mean(hits)
    mean_weight = np.mean(weights, axis=0)
    assert mean_weight[0] > 2 * mean_weight[1], mean_weight


def test_each_model_may_start_from_its_own_family_prior():
    rng = np.random.default_rng(5)
    y, models = _three_models(rng, n=600)
    labels = np.where(np.arange(600) < 15, y, np.nan)
    models = {"good": models["good"], "fair": models["fair"]}

    def fit(**kw):
        return spe.fit_many(models, labels, n_draws=200, seed=2, label_model="maps", calibrated=False, **kw)

    default, empty = fit(), fit(prior={})
    np.testing.assert_array_equal(default.prob_positive(), empty.prob_positive())  # no model named: the default
    nb_good = fit(prior={"good": "naive_bayes"})  # the model the labels weight most here
    assert not np.allclose(default.prob_positive(), nb_good.prob_positive())
    both = fit(prior="GaussianNB")
    same = fit(prior={"good": spe.learned.classifier_prior("naive_bayes"), "fair": "naive_bayes"})
    np.testing.assert_array_equal(both.prob_positive(), same.prob_positive())
    with pytest.raises(ValueError, match=r"not among the scores: \['svm'\]"):
        fit(prior={"svm": "svm_rbf"})
    with pytest.raises(ValueError, match="no prior for classifier 'xgboost'"):
        fit(prior="xgboost")
    with pytest.raises(TypeError, match="prior must be"):
        fit(prior=3)
    probs = rng.dirichlet(np.ones(3), 50)
    with pytest.raises(ValueError, match="prior applies to one score per item"):
        spe.fit_many({"a": probs, "b": probs}, np.full(50, -1), prior="naive_bayes")
