"""`benchmarks/several_loo.py`: PSIS against exact leave-one-out on constructed scores."""

import numpy as np
import pytest

from benchmarks import several_loo as sl


def scores_and_labels(seed=4, n=400):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(float)
    latent = 1.5 * y + rng.normal(size=n)
    scores = {f"m{j}": 1 / (1 + np.exp(-(latent + rng.normal(0, 0.8, n) - 0.5))) for j in range(3)}
    labeled = np.arange(20)
    labels = np.full(n, np.nan)
    labels[labeled] = y[labeled]
    return scores, labels, labeled, y


def test_psis_and_exact_loo_agree_for_a_one_stage_map():
    scores, labels, labeled, y = scores_and_labels()
    fit = sl.fit_candidate(sl.CANDIDATES[0], scores, labels, 1)
    psis, bad = sl.psis_loo(fit, labeled, y[labeled])
    exact = sl.exact_elpd(sl.CANDIDATES[0], scores, labels, labeled, 1)
    assert np.isfinite(psis) and psis < 0 and exact < 0 and bad < 0.3
    assert exact == pytest.approx(psis, abs=0.5), "one stage: PSIS leaves the item out of all of it"


def test_exact_loo_leaves_the_item_out_of_every_stage():
    scores, labels, labeled, y = scores_and_labels()
    pool = sl.fit_candidate("log-linear pool", scores, labels, 1)
    assert sl.exact_elpd("log-linear pool", scores, labels, labeled, 1) < sl.psis_loo(pool, labeled, y[labeled])[0], \
        "the recalibration saw the item: PSIS over the pool's draws alone is optimistic"


def test_summary_rows_average_the_gap_and_its_weight_factor():
    results = [{"task": "t", **{k: (-10.0, 0.0, -10.5) for k in sl.CANDIDATES}},
               {"task": "u", **{k: (-9.0, 0.5, -10.5) for k in sl.CANDIDATES}}]
    row = sl.summary_rows(results)[1]
    assert row["fits"] == 2 and row["exact - PSIS"] == pytest.approx(-1.0)
    assert row["weight factor"] == pytest.approx(np.exp(-1.0)) and row["se"] == pytest.approx(0.5)
    assert row["k > 0.7"] == pytest.approx(0.25)
