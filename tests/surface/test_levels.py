"""Graded correctness, continuous attributes (binned), ordered levels, missing values, and the
three recalibrations of uncertain attributes (the AAA paper's Figure 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import spe
from spe.surface import (
    UncertainAttribute,
    attribute_probabilities,
    count_arms,
    encode_arms,
)


def graded_world(seed, n=1500):
    """Items in 3 x 2 arms whose graded score (a BLEU-like number in [0, 1]) has a known mean per arm."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], n)
    b = rng.choice(["u", "v"], n)
    mean = 0.35 + 0.25 * (a == "y") + 0.4 * (a == "z") * (b == "v")
    score = rng.beta(6 * mean, 6 * (1 - mean))
    return {"a": a, "b": b}, score, mean


@pytest.mark.statistical
def test_graded_correctness_recovers_each_arms_mean_score_and_covers_it():
    hits, errors = [], []
    for seed in range(3):
        attrs, score, _ = graded_world(seed)
        shown = np.where(np.random.default_rng(seed + 10).random(score.size) < 0.15, score, np.nan)
        surf = spe.accuracy_surface(attrs, shown, seed=seed, n_draws=200)
        frame = surf.to_dict()
        arms = encode_arms(attrs)
        truth = np.bincount(arms.item_arm, score) / np.bincount(arms.item_arm)  # each arm's realised mean score
        keys = list(zip(frame["a"], frame["b"]))
        order = [keys.index(tuple(v)) for v in zip(*arms.values().values())]
        mean, lower, upper = (np.asarray(frame[k])[order] for k in ("accuracy", "lower", "upper"))
        errors.append(np.abs(mean - truth).mean())
        hits.append((lower <= truth) & (truth <= upper))
    assert np.mean(errors) < 0.05, errors
    assert np.concatenate(hits).mean() >= 0.85  # conservative by design: scores drawn as if 0/1


def test_graded_correctness_outside_zero_one_is_refused():
    attrs, score, _ = graded_world(0, n=100)
    with pytest.raises(ValueError, match=r"correct must lie in \[0, 1\].*item 3"):
        spe.accuracy_surface(attrs, np.where(np.arange(100) == 3, 1.2, score))


def test_a_continuous_attribute_is_cut_into_quantile_bins_shown_in_order():
    rng = np.random.default_rng(1)
    age = rng.uniform(18, 90, 800)
    group = rng.choice(["p", "q"], 800)
    correct = np.where(rng.random(800) < 0.3, (rng.random(800) < 0.8) * 1.0, np.nan)
    surf = spe.accuracy_surface({"age": age, "group": group}, correct, seed=0, n_draws=100)
    rows = surf.table("age")["rows"].tolist()
    assert len(rows) == 4 and rows[0].startswith("[18") and rows[-1].endswith("]")
    lows = [float(r[1:].split(",")[0]) for r in rows]
    assert lows == sorted(lows)
    assert surf.to_frame()["n_items"].sum() == 800
    edges = spe.accuracy_surface({"age": age, "group": group}, correct, bins={"age": [18, 30, 60, 90]}, seed=0,
                                 n_draws=100)
    assert edges.table("age")["rows"].tolist() == ["[18, 30)", "[30, 60)", "[60, 90]"]
    with pytest.raises(ValueError, match="outside its bin edges"):
        spe.accuracy_surface({"age": age, "group": group}, correct, bins={"age": [20, 60, 90]})
    with pytest.raises(ValueError, match="not among the attributes"):
        spe.accuracy_surface({"age": age, "group": group}, correct, bins={"agee": 3})


def test_an_ordered_categorical_keeps_its_order_in_tables_and_arms():
    rng = np.random.default_rng(2)
    size = pd.Categorical(rng.choice(["small", "medium", "large"], 300), categories=["small", "medium", "large"],
                          ordered=True)
    frame = pd.DataFrame({"size": size, "colour": rng.choice(["red", "blue"], 300)})
    correct = np.where(rng.random(300) < 0.4, (rng.random(300) < 0.7) * 1.0, np.nan)
    surf = spe.accuracy_surface(frame, correct, seed=0, n_draws=100)
    assert surf.table("size", "colour")["rows"].tolist() == ["small", "medium", "large"]
    assert list(dict.fromkeys(surf.to_dict()["size"].tolist())) == ["small", "medium", "large"]
    unordered = spe.accuracy_surface(frame.assign(size=frame["size"].astype(str)), correct, seed=0, n_draws=100)
    assert unordered.table("size")["rows"].tolist() == ["large", "medium", "small"]


def test_counts_of_chunks_with_ordered_levels_merge_in_order():
    order = {"level": ["low", "mid", "high"]}
    a = count_arms({"level": np.array(["high", "low"])}, np.array([1.0, 0.0]), order=order)
    b = count_arms({"level": np.array(["mid", "mid"])}, np.array([1.0, np.nan]), order=order)
    merged = a.merge(b)
    assert merged.levels[0].tolist() == ["low", "mid", "high"]
    assert merged.arm_items.tolist() == [1.0, 2.0, 1.0]


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_missing_attribute_values_are_refused_with_the_item_named(missing):
    values = np.array(["a", "b"] * 5, dtype=object)
    values[6] = missing
    with pytest.raises(ValueError, match=r"attribute 'g' has 1 missing value\(s\) \(first at item 6\).*level of "
                                         r"their own"):
        spe.accuracy_surface({"g": values, "h": np.array(["u", "v"] * 5)}, np.ones(10))


def test_the_three_recalibrations_of_an_uncertain_attribute():
    """Cal:Raw leaves the classifier as given; Cal:Temp fixes its confidence (an over-confident
    classifier gets a temperature below 1); Cal:Full also learns the base rates, so its most
    likely level is right more often when the classifier's base rates are off."""
    rng = np.random.default_rng(0)
    n = 3000
    true = rng.choice(3, n, p=[0.7, 0.2, 0.1])
    logits = 1.2 * np.eye(3)[true] + np.array([0.0, 0.8, 0.8]) + rng.standard_normal((n, 3))
    probs = np.exp(3 * logits) / np.exp(3 * logits).sum(axis=1, keepdims=True)
    known = np.where(np.arange(n) < 600, true, None).astype(object)
    att = UncertainAttribute(probs, known=known)
    out = {cal: attribute_probabilities([att], cal) for cal in ("raw", "temperature", "full")}
    rest = np.arange(n) >= 600
    np.testing.assert_allclose(out["raw"][0][rest], probs[rest], atol=1e-9)
    assert out["raw"][2][0] == 1.0 and out["temperature"][2][0] < 0.7
    right = {cal: np.mean(np.argmax(p, axis=1)[rest] == true[rest]) for cal, (p, _, _) in out.items()}
    assert right["raw"] == right["temperature"] and right["full"] > right["raw"] + 0.05, right
    log_loss = {cal: -np.mean(np.log(p[rest, true[rest]])) for cal, (p, _, _) in out.items()}
    assert log_loss["full"] < log_loss["temperature"] < log_loss["raw"], log_loss
    assert att.temperature == 1.0  # the caller's object is not touched
    with pytest.raises(ValueError, match="calibration must be one of"):
        attribute_probabilities([att], "platt")


def test_correctness_is_matched_to_attributes_on_their_index_and_suggestions_name_it():
    rng = np.random.default_rng(4)
    n = 300
    frame = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n)}, index=[f"id{i}" for i in range(n)])
    truth = np.where(frame["g"] == "c", 0.5, 0.95)
    correct = pd.Series(np.where(rng.random(n) < 0.5, (rng.random(n) < truth) * 1.0, np.nan), index=frame.index)
    shuffled = correct.sample(frac=1.0, random_state=0)
    a = spe.accuracy_surface(frame, correct, seed=0, n_draws=100)
    b = spe.accuracy_surface(frame, shuffled, seed=0, n_draws=100)
    np.testing.assert_array_equal(a.draws, b.draws)  # matched on the index, not by position
    picks = b.suggest_labels(5)
    assert all(p in frame.index and np.isnan(correct[p]) for p in picks)
    with pytest.raises(ValueError, match="missing from correct"):
        spe.accuracy_surface(frame, correct.iloc[:-2], seed=0)


def test_to_frame_is_tidy_and_keeps_ordered_levels_sortable():
    rng = np.random.default_rng(5)
    age = rng.uniform(20, 70, 400)
    correct = np.where(rng.random(400) < 0.5, (rng.random(400) < 0.8) * 1.0, np.nan)
    frame = spe.accuracy_surface({"age": age, "g": rng.choice(["x", "y"], 400)}, correct, seed=0,
                                 n_draws=100).to_frame(level=0.8)
    assert list(frame.columns) == ["age", "g", "metric", "estimate", "lower", "upper", "level", "sd", "n_items",
                                   "n_labeled", "n_correct"]
    assert (frame["level"] == 0.8).all() and (frame["metric"] == "accuracy").all()
    assert frame["age"].cat.ordered
    by_age = frame.sort_values("age")["age"].astype(str).unique().tolist()
    assert by_age == frame["age"].cat.categories.tolist() and by_age[0].startswith("[20")
    assert ((frame["lower"] <= frame["estimate"]) & (frame["estimate"] <= frame["upper"])).all()
