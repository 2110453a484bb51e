"""``spe surface``: the table, the heatmap, suggestions, and where correctness comes from."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from spe.assessment import Assessor
from spe.cli import main


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """items.csv (read only) and each item's correctness and whether it is labeled."""
    rng = np.random.default_rng(0)
    n = 300
    sex = rng.choice(["F", "M"], n)
    age = rng.choice(["young", "mid", "old"], n)
    conf = rng.uniform(0.5, 1.0, n)
    p = np.clip(conf - 0.2 * (age == "young"), 0, 1)
    pred = rng.choice(["cat", "dog"], n)
    right = rng.random(n) < p
    label = np.where(right, pred, np.where(pred == "cat", "dog", "cat"))
    labeled = rng.random(n) < 0.3
    path = tmp_path_factory.mktemp("table") / "items.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sex", "age", "correct", "confidence", "pred", "label"])
        for i in range(n):
            w.writerow([sex[i], age[i], int(right[i]) if labeled[i] else "", f"{conf[i]:.4f}", pred[i],
                        label[i] if labeled[i] else ""])
    return path, right, labeled


@pytest.fixture(scope="module")
def surfaced(table, tmp_path_factory):
    """``spe surface`` of the table with its confidence column, run once for the tests that read
    its outputs: (exit code, output folder, printed text)."""
    import contextlib
    import io

    out, printed = tmp_path_factory.mktemp("surface") / "out", io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["surface", str(table[0]), "--attributes", "sex,age", "--correct", "correct", "--confidence",
                     "confidence", "--suggest", "4", "--out", str(out)])
    return code, out, printed.getvalue()


def test_writes_table_heatmap_suggestions_and_json(table, surfaced):
    path, right, labeled = table
    code, out, printed = surfaced
    assert code == 0
    assert "Accuracy surface" in printed and "label next (by 0-based row)" in printed
    rows = list(csv.DictReader((out / "surface.csv").open()))
    assert len(rows) == 6 and sum(float(r["n_items"]) for r in rows) == 300
    assert all(0 <= float(r["lower"]) <= float(r["accuracy"]) <= float(r["upper"]) <= 1 for r in rows)
    suggested = list(csv.DictReader((out / "suggested.csv").open()))
    assert len(suggested) == 4
    assert all(not labeled[int(r["row"])] for r in suggested)  # 0-based data rows
    summary = json.loads((out / "surface.json").read_text())
    assert summary["labeled"] == int(labeled.sum()) and summary["arms"] == 6
    assert (out / "surface.png").stat().st_size > 0


def test_predictions_and_labels_give_the_same_correctness_as_the_column(table, tmp_path):
    path, _, _ = table
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["surface", str(path), "--attributes", "sex,age", "--correct", "correct", "--out", str(a)]) == 0
    assert main(["surface", str(path), "--attributes", "sex,age", "--pred-col", "pred", "--label-col", "label",
                 "--out", str(b)]) == 0
    assert (a / "surface.csv").read_text() == (b / "surface.csv").read_text()


def test_column_options_also_take_the_col_spelling_of_the_other_commands(table, surfaced, tmp_path):
    path, _, _ = table
    code, a, _ = surfaced  # the same command spelled --correct, --confidence (and --suggest, which leaves the table)
    b = tmp_path / "b"
    assert main(["surface", str(path), "--attributes", "sex,age", "--correct-col", "correct", "--confidence-col",
                 "confidence", "--out", str(b)]) == 0
    assert code == 0 and (a / "surface.csv").read_text() == (b / "surface.csv").read_text()


def test_answers_of_a_label_session_count(table, tmp_path):
    path, right, labeled = table
    rows = list(csv.DictReader(path.open()))
    state = tmp_path / "state.json"
    session = Assessor(np.zeros(len(rows), dtype=int), np.array([r["pred"] for r in rows]))
    unlabeled = np.flatnonzero(~labeled)[:20]
    for i in unlabeled:
        session.update(int(i), rows[i]["pred"] if right[i] else ("dog" if rows[i]["pred"] == "cat" else "cat"))
    session.save(state)
    out = tmp_path / "out"
    assert main(["surface", str(path), "--attributes", "sex,age", "--pred-col", "pred", "--label-col", "label",
                 "--state", str(state), "--out", str(out)]) == 0
    summary = json.loads((out / "surface.json").read_text())
    assert summary["labeled"] == int(labeled.sum()) + 20


@pytest.mark.parametrize("argv, message", [
    (["--attributes", "sex,agex", "--correct", "correct"], "column 'agex' not found"),
    (["--attributes", "sex"], "say where correctness comes from"),
    (["--attributes", "sex", "--correct", "correct", "--pred-col", "pred"], "either --correct or --pred-col"),
    (["--attributes", "sex", "--correct", "pred"], "--correct column 'pred', row 2: '"),
    (["--attributes", "sex", "--correct", "correct", "--level", "1.5"], "--level must be strictly between"),
    (["--attributes", "sex", "--pred-col", "pred", "--state", "nowhere.json"], "file not found"),
])
def test_bad_options_are_one_line_errors(table, argv, message, capsys):
    path, _, _ = table
    assert main(["surface", str(path), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_items_are_named_by_the_id_column(table, tmp_path, capsys):
    path, _, labeled = table
    lines = path.read_text().splitlines()
    with_ids = tmp_path / "ids.csv"
    with_ids.write_text("\n".join([lines[0] + ",item"] + [f"{line},it{i:03d}" for i, line in enumerate(lines[1:])]))
    out = tmp_path / "out"
    assert main(["surface", str(with_ids), "--attributes", "sex,age", "--correct", "correct", "--suggest", "3",
                 "--id-col", "item", "--out", str(out)]) == 0
    assert "label next (by 'item'): it" in capsys.readouterr().out
    suggested = list(csv.DictReader((out / "suggested.csv").open()))
    assert all(not labeled[int(r["item"][2:])] for r in suggested)


def test_help_states_how_items_are_named(capsys):
    with pytest.raises(SystemExit):
        main(["surface", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0-based row index" in text and "--id-col" in text


def test_graded_correctness_and_blank_attributes_made_a_level(table, tmp_path, capsys):
    path, right, labeled = table
    rows = list(csv.DictReader(path.open()))
    graded = tmp_path / "graded.csv"
    with graded.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sex", "age", "bleu"])
        for i, r in enumerate(rows):
            w.writerow([r["sex"], "" if i == 5 else r["age"], f"{0.3 + 0.5 * right[i]:.2f}" if labeled[i] else ""])
    out = tmp_path / "out"
    assert main(["surface", str(graded), "--attributes", "sex,age", "--correct", "bleu", "--out", str(out)]) == 2
    assert "missing value" in capsys.readouterr().err
    assert main(["surface", str(graded), "--attributes", "sex,age", "--correct", "bleu", "--missing-as", "unknown",
                 "--out", str(out)]) == 0
    assert "1 blank value(s) made the level 'unknown'" in capsys.readouterr().err
    table_rows = list(csv.DictReader((out / "surface.csv").open()))
    assert any(r["age"] == "unknown" for r in table_rows)
    assert abs(sum(float(r["n_correct"]) for r in table_rows) - sum(0.3 + 0.5 * right[labeled])) < 0.05
