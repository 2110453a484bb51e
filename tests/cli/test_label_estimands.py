"""``spe label`` offers Ji et al.'s estimands: confusion, cost, calibration, least-accurate, compare.

(These test the CLI's use of the assessment room; they sit here because the helper that
wrote them owns ``tests/assessment`` and not ``tests/cli``.)"""

import itertools
import json

import numpy as np
import pytest

from spe.cli import build_parser
from spe.cli._label import run as cmd_label


@pytest.fixture
def items(tmp_path):
    rng = np.random.default_rng(0)
    pred = rng.choice(["cat", "dog", "eel"], 120)
    rows = [f"{i},{rng.random():.3f},{pred[i]},{'ab'[i % 2]}" for i in range(120)]
    path = tmp_path / "items.csv"
    path.write_text("id,score,pred,grp\n" + "\n".join(rows) + "\n")
    return path, pred


def _run(path, state, *options, answers=("cat",)):
    args = build_parser().parse_args(["label", str(path), "--state", str(state), "--score-col", "score",
                                      "--pred-col", "pred", *options])
    cycle = itertools.cycle(answers)
    asked = []

    def ask(prompt):
        asked.append(int(prompt.split()[1]))
        return next(cycle)
    cmd_label(args, ask=ask)
    return asked


def test_goal_confusion_groups_by_predicted_class_and_prints_the_matrix(items, tmp_path, capsys):
    path, pred = items
    asked = _run(path, tmp_path / "s.json", "--goal", "confusion", "--max", "9")
    out = capsys.readouterr().out
    assert len(asked) == 9 and "confusion matrix" in out and "cat -> cat:" in out
    state = json.loads((tmp_path / "s.json").read_text())
    assert state["strategy"] == "ts-confusion" and len(state["labels"]) == 9


def test_goal_least_accurate_labels_the_top_groups_and_names_them(items, tmp_path, capsys):
    path, pred = items
    asked = _run(path, tmp_path / "s.json", "--goal", "least-accurate", "--top", "2", "--group-col", "grp",
                 "--max", "6", answers=("cat", "dog"))
    assert len(set(asked)) == 6
    assert "the 2 least accurate group(s): " in capsys.readouterr().out
    with pytest.raises(ValueError, match="--top"):
        _run(path, tmp_path / "t.json", "--goal", "least-accurate", "--top", "3", "--group-col", "grp")


def test_goal_compare_labels_only_the_two_groups(items, tmp_path, capsys):
    path, pred = items
    asked = _run(path, tmp_path / "s.json", "--goal", "compare", "--compare", "cat", "eel", "--max", "8",
                 "--group-col", "pred")
    assert set(pred[asked]) <= {"cat", "eel"}
    assert "cat minus eel:" in capsys.readouterr().out
    with pytest.raises(ValueError, match="--compare"):
        _run(path, tmp_path / "t.json", "--goal", "compare", "--max", "1")
    with pytest.raises(ValueError, match="not groups"):
        _run(path, tmp_path / "u.json", "--goal", "compare", "--compare", "cat", "fox", "--group-col", "pred")


@pytest.fixture
def cost_file(tmp_path):
    path = tmp_path / "cost.csv"
    path.write_text("true,cat,dog,eel,fox\ncat,0,1,1,1\ndog,1,0,1,1\neel,9,9,0,9\nfox,3,3,3,0\n")
    return path


def test_goal_cost_prints_the_expected_cost_per_predicted_class_and_takes_unpredicted_answers(
        items, cost_file, tmp_path, capsys):
    path, _ = items
    # every eel item is truly a dog (cost 1), every other answer right (cost 0); "fox" is never predicted
    answers = {"cat": "cat", "dog": "dog", "eel": "fox"}
    args = build_parser().parse_args(["label", str(path), "--state", str(tmp_path / "s.json"), "--score-col", "score",
                                      "--pred-col", "pred", "--goal", "cost", "--cost", str(cost_file), "--top", "1",
                                      "--max", "30"])
    cmd_label(args, ask=lambda prompt: answers[prompt.split("predicted ")[1].split(")")[0]])
    out = capsys.readouterr().out
    assert "expected cost per predicted class" in out and "fox:" not in out.split("expected cost")[1]
    costs = {line.split(":")[0].strip(): float(line.split(":")[1].split()[0])
             for line in out.split("expected cost per predicted class")[1].splitlines()[1:4]}
    assert costs["eel"] > 1.5 > costs["cat"] and costs["dog"] < 1.5  # eel items are all foxes: cost 3 each
    assert "the 1 costliest predicted class(es): eel" in out
    state = json.loads((tmp_path / "s.json").read_text())
    assert state["strategy"] == "ts-costliest" and {lab for _, lab in state["labels"]} >= {"fox"}
    with pytest.raises(ValueError, match="--cost FILE"):
        _run(path, tmp_path / "t.json", "--goal", "cost", "--max", "1")
    with pytest.raises(ValueError, match="drop --group-col"):
        _run(path, tmp_path / "u.json", "--goal", "cost", "--cost", str(cost_file), "--group-col", "grp")
    bad = tmp_path / "bad.csv"
    bad.write_text("true,cat,dog\ncat,0,x\ndog,1,0\n")
    with pytest.raises(ValueError, match="finite number"):
        _run(path, tmp_path / "v.json", "--goal", "cost", "--cost", str(bad))


def _ece_line(out):
    line = next(x for x in out.splitlines() if x.startswith("expected calibration error"))
    median, rest = line.split("): ")[1].split(" [")
    lower, upper = rest.split("]")[0].split(", ")
    return float(median), float(lower), float(upper)


def test_goal_calibration_estimates_the_ece_over_confidence_bins(tmp_path, capsys):
    rng = np.random.default_rng(0)  # the 90% interval covered the truth on 10 of 12 seeds
    conf = rng.uniform(0.5, 1.0, 400)
    correct = rng.random(400) < conf - 0.25  # overconfident by 0.25: the true ECE is about 0.25
    path = tmp_path / "items.csv"
    path.write_text("score,pred\n" + "\n".join(f"{c:.4f},{'ab'[i % 2]}" for i, c in enumerate(conf)) + "\n")
    pred = np.array(["ab"[i % 2] for i in range(400)])

    def ask(prompt):
        i = int(prompt.split()[1])
        return pred[i] if correct[i] else {"a": "b", "b": "a"}[pred[i]]
    args = build_parser().parse_args(["label", str(path), "--state", str(tmp_path / "s.json"), "--score-col", "score",
                                      "--pred-col", "pred", "--goal", "calibration", "--max", "80"])
    cmd_label(args, ask=ask)
    out = capsys.readouterr().out
    median, lower, upper = _ece_line(out)
    truth = np.mean(conf) - np.mean(correct)  # every bin overconfident: ECE = overall gap
    assert lower < truth < upper and abs(median - truth) < 0.1
    assert "conf [0.9, 1.0]: ECE" in out
    assert json.loads((tmp_path / "s.json").read_text())["strategy"] == "ts-estimate"


def test_goal_calibration_with_groups_names_the_least_calibrated(items, tmp_path, capsys):
    path, _ = items
    asked = _run(path, tmp_path / "s.json", "--goal", "calibration", "--group-col", "grp", "--top", "1",
                 "--max", "10", answers=("cat",))
    assert len(set(asked)) == 10
    out = capsys.readouterr().out
    assert "the 1 least calibrated group(s): " in out and "a: ECE" in out
    assert json.loads((tmp_path / "s.json").read_text())["strategy"] == "ts-least-calibrated"
    bad = tmp_path / "bad.csv"
    bad.write_text("score,pred\n1.5,cat\n0.2,dog\n")
    with pytest.raises(ValueError, match="confidence-col"):
        _run(bad, tmp_path / "t.json", "--goal", "calibration")
