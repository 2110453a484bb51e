"""``spe label`` offers Ji et al.'s estimands: confusion, least-accurate, compare.

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
