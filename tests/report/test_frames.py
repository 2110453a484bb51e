"""Tidy tables of a binary fit, and numbers printed to the digits their intervals support."""

import sys

import numpy as np
import pytest

import spe
from spe.report import FRAME_COLUMNS, format_interval, interval_decimals


@pytest.fixture(scope="module")
def res():
    rng = np.random.default_rng(5)
    y = (rng.random(600) < 0.3).astype(float)
    s = np.where(y == 1, rng.normal(1.5, 1.0, 600), rng.normal(-1.0, 1.0, 600))
    labels = np.where(np.arange(600) < 25, y, np.nan)
    return spe.fit(s, labels, model="platt", n_draws=300, seed=1, progress=False)


def test_to_frame_is_tidy_and_matches_the_estimates(res):
    pd = pytest.importorskip("pandas")
    df = res.to_frame(level=0.8)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["metric", "kind", *FRAME_COLUMNS[1:]]
    assert df["metric"].tolist() == ["prevalence", "average precision", "AUROC", "max F1"]
    ap = df.set_index("metric").loc["average precision"]
    est = res.average_precision(0.8)
    assert (ap["estimate"], ap["lower"], ap["upper"], ap["level"]) == (est.value, est.lower, est.upper, 0.8)
    assert (df["lower"] <= df["estimate"]).all() and (df["estimate"] <= df["upper"]).all()
    population = res.to_frame(kind="population")
    assert (population["kind"] == "population").all()
    assert res.to_records(level=0.8) == df.to_dict("records")


def test_to_frame_without_pandas_says_what_to_do(res, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    assert len(res.to_records()) == 4
    with pytest.raises(ImportError, match=r"needs pandas .*to_records\(\)"):
        res.to_frame()


@pytest.mark.parametrize("lower, upper, decimals", [(0.81, 0.93, 2), (0.9312, 0.9368, 4), (0.5, 0.5, 6),
                                                    (12.0, 480.0, 0), (0.0, 0.099, 3)])
def test_interval_decimals_keep_two_significant_digits_of_the_width(lower, upper, decimals):
    assert interval_decimals(lower, upper) == decimals


def test_format_interval_rounds_value_and_ends_alike():
    assert format_interval(0.123456, 0.1, 0.2) == "0.12 [0.10, 0.20]"
    assert format_interval(0.93, 0.9301, 0.9302, digits=1) == "0.9300 [0.9301, 0.9302]"
