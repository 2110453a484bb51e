"""The corpus' top-of-the-ranking diagnostics on constructed inputs (no corpus build needed)."""

import numpy as np
import pytest

from benchmarks.corpus.tops import threshold_rows, top_precisions


def test_top_precisions_read_the_items_ranked_first():
    # 1,000 items: the 10 highest scores hold 2 positives, the next 90 all positive.
    scores = -np.arange(1000.0)
    labels = np.r_[[1, 1], np.zeros(8), np.ones(90), np.zeros(900)]
    p_top, p_next, n_top = top_precisions(scores, labels)
    assert n_top == 10 and p_top == pytest.approx(0.2) and p_next == pytest.approx(92 / 100)
    shuffled = np.random.default_rng(0).permutation(1000)  # the order of the items does not matter
    assert top_precisions(scores[shuffled], labels[shuffled]) == (p_top, p_next, n_top)


def test_threshold_rows_split_the_met_rate_by_the_share_selected():
    results = ([{"family": "gnb", "budget": 10, "feasible": True, "share": 0.001, "met": m} for m in (0, 0, 1, 1)]
               + [{"family": "gnb", "budget": 10, "feasible": True, "share": 0.2, "met": 1}]
               + [{"family": "gnb", "budget": 10, "feasible": False}]
               + [{"family": "gnb", "budget": 30, "feasible": False}])
    ten, thirty = threshold_rows(results)
    assert (ten["fits"], ten["feasible"], ten["met"]) == ("6", "5", pytest.approx(0.6))
    assert ten["selects <= 1%: n"] == "4" and ten["selects <= 1%: met"] == pytest.approx(0.5)
    assert ten["selects 1-5%: n"] == "0" and ten["selects 1-5%: met"] is None
    assert ten["selects > 5%: met"] == 1.0
    assert thirty["feasible"] == "0" and thirty["met"] is None
