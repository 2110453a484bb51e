import json
import subprocess
import sys

import numpy as np
import pytest

import spe

from spe.cli import build_parser, main
from spe.datasets import load_demo


def _scores_csv(folder):
    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.3).astype(int)
    s = np.where(y == 1, rng.normal(1.5, 0.7, 400), rng.normal(-1.0, 0.8, 400))
    lines = ["id,score,label"]
    for i, (si, yi) in enumerate(zip(s, y)):
        label = str(yi) if i < 15 else ("NA" if i % 2 else "")  # blank and NA = unlabeled
        lines.append(f"{i},{si:.5f},{label}")
    path = folder / "scores.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def csv_file(tmp_path):
    return _scores_csv(tmp_path)


@pytest.fixture(scope="module")
def fitted_csv(tmp_path_factory):
    """``spe fit`` of the csv_file data, run once for the tests that read its outputs:
    (exit code, output folder, printed text)."""
    import contextlib
    import io

    folder = tmp_path_factory.mktemp("fit")
    out, printed = folder / "out", io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["fit", str(_scores_csv(folder)), "--score-col", "score", "--label-col", "label",
                     "--out", str(out), "--n-draws", "200"])
    return code, out, printed.getvalue()


def test_fit_writes_summary_and_figures(fitted_csv):
    code, out, printed = fitted_csv
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_items"] == 400 and summary["n_labeled"] == 15
    assert len(summary["pr_curve"]["precision"]) == 101
    for name in ("fit.png", "pr.png", "roc.png", "reliability.png"):
        assert (out / name).stat().st_size > 1000
    assert "families: negative" in printed
    _check_report(out / "report.html", summary)


def _check_report(path, summary):
    """report.html parses, is offline (no external src/href, no scripts) and holds the numbers."""
    import base64
    from html.parser import HTMLParser

    class Collect(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags, self.images, self.text = [], [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            attrs = dict(attrs)
            assert not str(attrs.get("href", "")).startswith("http"), attrs
            if tag == "img":
                self.images.append(attrs["src"])

        def handle_data(self, data):
            self.text.append(data)

    page = Collect()
    page.feed(path.read_text(encoding="utf-8"))
    assert "script" not in page.tags and page.tags.count("table") == 2
    assert len(page.images) == 4
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    text = " ".join(page.text)
    ap = summary["metrics"]["average precision"]
    assert f"{ap['value']:.3f}" in text and f"{ap['lower']:.3f}" in text
    assert summary["score_models"]["mixture"]["misfit"]["verdict"] in text


def test_threshold_command_prints_decision(csv_file, tmp_path, capsys):
    code = main(["threshold", str(csv_file), "--score-col", "score", "--label-col", "label",
                 "--min-precision", "0.8", "--confidence", "0.8", "--n-draws", "200",
                 "--families", "truncnorm,truncnorm", "--out", str(tmp_path / "t")])  # the default search's pick
    text = capsys.readouterr().out
    assert "threshold" in text
    decision = json.loads((tmp_path / "t" / "threshold.json").read_text())
    assert code == (0 if decision["feasible"] else 1)
    assert (tmp_path / "t" / "conditions.png").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fit", "{csv}", "--score-col", "nope"], "column 'nope' not found"),
        (["fit", "{missing}", "--score-col", "score"], "file not found"),
        (["fit", "{csv}", "--score-col", "score", "--label-col", "id"], "row 4: '2' is not a label"),
        (["fit", "{csv}", "--score-col", "score", "--families", "gauss"], "unknown family"),
        (["fit", "{csv}", "--score-col", "score", "--level", "2"], "level"),
        (["fit", "{csv}", "--score-col", "score", "--classifier", "xgboost"], "no prior for classifier 'xgboost'"),
        (["fit", "{csv}", "--score-col", "score", "--classifier", "score=knn"], "COLUMN=FAMILY pairs with several"),
        (["fit", "{csv}", "--score-col", "score,score", "--classifier", "a=knn"], "not among the scores: ['a']"),
    ],
)
def test_errors_are_one_line_with_nonzero_exit(argv, message, csv_file, tmp_path, capsys):
    argv = [a.format(csv=csv_file, missing=tmp_path / "missing.csv") for a in argv]
    argv += ["--out", str(tmp_path / "o")] if argv[0] == "fit" else []
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("spe: error:") and message in err[0]


def test_bad_score_cell_is_named(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("score\n0.1\n0.2\nabc\n")
    assert main(["fit", str(path), "--score-col", "score", "--out", str(tmp_path / "o")]) == 2
    assert "row 4: 'abc' is not a number" in capsys.readouterr().err


def test_demo_runs_end_to_end(tmp_path, capsys):
    # the pair the default search picks: its numbers without the search (test_docs_blocks runs the default demo)
    assert main(["demo", "--out", str(tmp_path / "demo"), "--n-draws", "300", "--families", "truncnorm,truncnorm"]) == 0
    assert "area between estimated and true PR curve" in capsys.readouterr().out
    summary = json.loads((tmp_path / "demo" / "summary.json").read_text())
    assert 0 <= summary["demo_truth"]["pr_area_error_spe"] < 0.2


def test_python_dash_m_spe_cli_runs_the_command_and_returns_its_exit_status(tmp_path):
    """The process boundary (``python -m spe.cli``, its exit status and one-line error), checked
    with a command that stops before fitting; the commands themselves run in-process above."""
    proc = subprocess.run([sys.executable, "-m", "spe.cli", "fit", str(tmp_path / "missing.csv"), "--score-col",
                           "score", "--out", str(tmp_path / "o")], check=False, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"spe: error: file not found: {tmp_path / 'missing.csv'}"]


def test_bundled_demo_data_is_real_and_intact():
    scores, labels = load_demo()
    assert scores.size == 1797 and labels.sum() == 183


def test_label_session_survives_a_kill_between_answers(tmp_path, capsys):
    """Answers are saved one by one; killing the process loses none of them."""
    import os
    import signal
    import time

    from spe.cli._label import run as cmd_label

    items = tmp_path / "items.csv"
    items.write_text("id,score\n" + "".join(f"i{i},{i / 50:.3f}\n" for i in range(50)))
    state = tmp_path / "state.json"
    # a uniform prior: the saved answers are checked here, and the SPE-informed prior (a fit at every
    # start) has tests of its own below
    argv = ["label", str(items), "--state", str(state), "--score-col", "score", "--id-col", "id",
            "--threshold", "0.5", "--bins", "4", "--prior", "uniform"]
    # the session in a forked child reading its answers from a pipe: a process to kill, without starting
    # Python and importing spe again (python -m spe.cli's own boundary is checked above)
    answers_in, answers_out = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the command, then exit without running the parent's cleanup
        os.dup2(answers_in, 0)
        sys.stdin, sys.stdout = open(0, closefd=False), open(os.devnull, "w")  # noqa: SIM115
        try:
            main(argv)
        finally:
            os._exit(0)
    os.close(answers_in)
    os.write(answers_out, b"1\n0\n1\n")
    deadline = time.time() + 60
    while time.time() < deadline:
        if state.exists() and len(json.loads(state.read_text())["labels"]) == 3:
            break
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(answers_out)
    saved = json.loads(state.read_text())["labels"]
    assert len(saved) == 3
    answers = iter(["0", "q"])  # the resumed session runs in-process: the kill above is the process boundary
    cmd_label(build_parser().parse_args(argv), ask=lambda prompt: next(answers))
    out = capsys.readouterr().out
    assert "resuming" in out and "4 answers saved" in out
    final = {i: lab for i, lab in json.loads(state.read_text())["labels"]}
    assert all(final[i] == lab for i, lab in saved)


def test_fit_without_labels_writes_summary_and_every_figure(tmp_path, capsys):
    """Regression: the reliability plot needed labeled items and the command died after fitting."""
    rng = np.random.default_rng(1)
    s = np.r_[rng.normal(-1, 1, 300), rng.normal(1.5, 1, 100)]
    path = tmp_path / "nolabels.csv"
    path.write_text("score,label\n" + "".join(f"{v:.5f},\n" for v in s))
    out = tmp_path / "o"
    assert main(["fit", str(path), "--score-col", "score", "--label-col", "label", "--out", str(out),
                 "--n-draws", "200", "--families", "truncnorm,truncnorm"]) == 0  # the default search's pick
    summary = json.loads((out / "summary.json").read_text())
    prior = spe.learned.default_prior()
    w, weak = prior.prior_weight_of_mixture("margin"), prior.weak_ranker_prior().weight
    assert summary["n_labeled"] == 0 and summary["model_weights"] == pytest.approx(
        {"mixture": (1 - weak) * w, "spline": (1 - weak) * (1 - w), "weak": weak})
    for name in ("fit.png", "pr.png", "roc.png", "reliability.png"):
        assert (out / name).stat().st_size > 1000


@pytest.mark.parametrize("model", ["auto", "platt"])
def test_fit_without_a_mixture_writes_the_figures_it_has(tmp_path, capsys, model):
    """Regression: without a mixture (hard 0/1 predictions, or --model platt) the command
    died on the mixture's figure after fitting."""
    rng = np.random.default_rng(4)
    y = rng.random(400) < 0.3
    hard = np.where(y, rng.random(400) < 0.8, rng.random(400) < 0.1).astype(int)
    path = tmp_path / "hard.csv"
    path.write_text("score,label\n" + "".join(f"{s},{int(t) if i < 30 else ''}\n"
                                              for i, (s, t) in enumerate(zip(hard, y))))
    out = tmp_path / "o"
    assert main(["fit", str(path), "--score-col", "score", "--label-col", "label", "--out", str(out),
                 "--n-draws", "200", "--model", model]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["model_weights"]) == (["cells"] if model == "auto" else ["platt"])
    assert summary["figures"] == ["pr.png", "reliability.png", "roc.png"]
    for name in summary["figures"]:
        assert (out / name).stat().st_size > 1000
    assert not (out / "fit.png").exists()


def test_reversed_scores_are_refused_and_the_named_fix_works(tmp_path, capsys):
    rng = np.random.default_rng(2)
    y = (rng.random(600) < 0.3).astype(int)
    s = np.where(y == 1, rng.normal(-1, 0.8, 600), rng.normal(1, 0.8, 600))  # lower = positive
    path = tmp_path / "reversed.csv"
    path.write_text("score,label\n" + "".join(f"{v:.5f},{'yes' if t else 'no'}\n" if i < 30 else f"{v:.5f},\n"
                                              for i, (v, t) in enumerate(zip(s, y))))
    argv = ["fit", str(path), "--score-col", "score", "--label-col", "label", "--n-draws", "200",
            "--families", "truncnorm,truncnorm", "--out", str(tmp_path / "o")]  # the default search's pick
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "lower scores mean positive" in err and "--lower-is-positive" in err
    assert main(argv + ["--lower-is-positive"]) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["metrics"]["AUROC"]["lower"] > 0.8


def test_positive_label_names_the_positive_class(tmp_path, capsys):
    rng = np.random.default_rng(3)
    y = rng.random(300) < 0.3
    s = np.where(y, rng.normal(1.5, 1, 300), rng.normal(-1, 1, 300))
    path = tmp_path / "named.csv"
    path.write_text("score,label\n" + "".join(f"{v:.5f},{'toxic' if t else 'fine'}\n" if i < 40 else f"{v:.5f},NA\n"
                                              for i, (v, t) in enumerate(zip(s, y))))
    base = ["fit", str(path), "--score-col", "score", "--label-col", "label", "--n-draws", "200", "--model", "platt",
            "--out", str(tmp_path / "o")]  # the labels are checked, not the score models
    assert main(base) == 2 and "'toxic' is not a label" in capsys.readouterr().err
    assert main(base + ["--positive-label", "toxic"]) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["n_labeled_positive"] == int(y[:40].sum())


@pytest.mark.parametrize("flags, message", [
    (["--min-precision", "90"], "--min-precision must lie in [0, 1], got 90.0"),
    (["--min-precision", "0.9", "--confidence", "1"], "--confidence must be strictly between 0 and 1"),
    ([], "give at least one constraint: --min-precision, --min-recall or --max-fpr"),
])
def test_threshold_options_are_refused_before_fitting(flags, message, csv_file, capsys, monkeypatch):
    import spe.cli._common

    monkeypatch.setattr(spe.cli._common, "fit", lambda *a, **k: pytest.fail("fitted before validating"))
    assert main(["threshold", str(csv_file), "--score-col", "score", "--label-col", "label", *flags]) == 2
    assert message in capsys.readouterr().err


def _label_items(tmp_path, n=40, labels=None):
    rows = "".join(f"i{i},{i / n:.3f},{'' if labels is None else labels.get(i, '')}\n" for i in range(n))
    path = tmp_path / "items.csv"
    path.write_text("id,score,label\n" + rows)
    return path


def test_label_answers_y_and_n_mean_yes_and_no_and_blank_asks_again(tmp_path, capsys):
    """Regression: 'y' was compared as text with the prediction '1' and stored as a wrong answer;
    a blank answer silently skipped the item."""
    from spe.cli._label import run as cmd_label

    path = _label_items(tmp_path)
    state = tmp_path / "s.json"
    answers = iter(["", "maybe", "y", "N", "q"])
    prompts = []
    args = build_parser().parse_args(["label", str(path), "--state", str(state), "--score-col", "score",
                                      "--id-col", "id", "--threshold", "0.5"])
    cmd_label(args, ask=lambda p: prompts.append(p) or next(answers))
    out = capsys.readouterr().out
    assert "no answer: type 1/y = positive, 0/n = negative" in out and "'maybe' is not an answer" in out
    assert prompts[0] == prompts[1] == prompts[2]  # the same item until a valid answer
    assert "[1/y = positive, 0/n = negative; q = quit]" in prompts[0]
    saved = json.loads(state.read_text())["labels"]
    assert sorted(lab for _, lab in saved) == ["0", "1"]  # stored canonically, never as "y"/"N"
    assert not (tmp_path / "s.json.lock").exists()  # regression: the lock file was left behind


def test_label_loads_existing_labels_and_checks_class_answers(tmp_path, capsys):
    from spe.cli._label import run as cmd_label

    path = tmp_path / "cls.csv"
    path.write_text("score,pred,truth\n" + "".join(
        f"{i / 30:.3f},{'cat' if i % 2 else 'dog'},{('Cat' if i % 3 else 'dog') if i < 6 else 'NA'}\n"
        for i in range(30)))
    state = tmp_path / "s.json"
    answers = iter(["bird", "CAT", "q"])
    args = build_parser().parse_args(["label", str(path), "--state", str(state), "--score-col", "score",
                                      "--pred-col", "pred", "--label-col", "truth"])
    cmd_label(args, ask=lambda p: next(answers))
    out = capsys.readouterr().out
    assert "loaded 6 existing labels from column 'truth'" in out
    assert "'bird' is not an answer: type one of: cat, dog" in out
    saved = dict(json.loads(state.read_text())["labels"])
    assert len(saved) == 7 and saved[1] == "cat" and saved[0] == "dog" and "cat" in saved.values()


def test_blank_rows_are_reported_and_rows_keep_their_file_numbers(tmp_path, capsys):
    """Regression: a fully blank row was dropped silently and later rows were misnumbered."""
    path = tmp_path / "gaps.csv"
    path.write_text("score,label\n0.1,1\n,\n0.3,0\nabc,1\n")
    assert main(["fit", str(path), "--score-col", "score", "--label-col", "label"]) == 2
    err = capsys.readouterr().err
    assert "row 5: 'abc' is not a number" in err
    from spe.exceptions import InputWarning
    from spe.scores import load_scores

    path.write_text("score,label\n0.1,1\n,\n0.3,0\n0.5,\n\n")
    with pytest.warns(InputWarning, match=r"skipped 1 blank row\(s\) \(file row 3\)"):
        scores, labels = load_scores(path, "score", "label")
    np.testing.assert_array_equal(scores, [0.1, 0.3, 0.5])


def test_every_option_of_every_command_has_a_help_text():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, __import__("argparse")._SubParsersAction))
    for name, p in sub.choices.items():
        assert p.description, name
        missing = [a.dest for a in p._actions if not a.help]
        assert not missing, (name, missing)


def test_report_renders_in_a_headless_browser(tmp_path, fitted_csv):
    """Where Chromium is installed, report.html renders offline to a non-empty page."""
    import shutil

    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if browser is None:
        pytest.skip("no headless Chromium on this machine")
    code, out, _ = fitted_csv
    assert code == 0
    shot = tmp_path / "page.png"
    subprocess.run([browser, "--headless", "--disable-gpu", "--no-sandbox", f"--screenshot={shot}",
                    "--window-size=1200,3000", (out / "report.html").as_uri()], check=True, timeout=120,
                   capture_output=True)
    assert shot.stat().st_size > 10_000


def test_fit_with_several_score_columns_compares_them(tmp_path, capsys):
    rng = np.random.default_rng(7)
    y = rng.random(300) < 0.3
    good = np.clip(np.where(y, 0.8, 0.2) + rng.normal(0, 0.15, 300), 0, 1)
    weak = np.clip(np.where(y, 0.6, 0.4) + rng.normal(0, 0.25, 300), 0, 1)
    path = tmp_path / "two.csv"
    path.write_text("good,weak,label\n" + "".join(f"{g:.4f},{w:.4f},{int(t) if i < 40 else ''}\n"
                                                  for i, (g, w, t) in enumerate(zip(good, weak, y))))
    assert main(["fit", str(path), "--score-col", "good,weak", "--label-col", "label", "--n-draws", "200",
                 "--out", str(tmp_path / "o")]) == 0
    assert "ranking by AUROC" in capsys.readouterr().out
    data = json.loads((tmp_path / "o" / "models.json").read_text())
    assert data["prob_best_auroc"]["good"] > 0.9 and [m["model"] for m in data["models"]] == ["good", "weak"]
    assert set(data["model_weights"]) == {"good", "weak", "good (calibrated)", "weak (calibrated)", "log-linear pool",
                                          "Gaussian copula"}
    assert sum(data["model_weights"].values()) == pytest.approx(1)
    assert data["prevalence"]["lower"] <= data["prevalence"]["value"] <= data["prevalence"]["upper"]
    assert (tmp_path / "o" / "models.png").stat().st_size > 5_000
    assert main(["fit", str(path), "--score-col", "good,weak", "--label-col", "label", "--n-draws", "200",
                 "--model", "uncalibrated", "--out", str(tmp_path / "c")]) == 0
    weights = json.loads((tmp_path / "c" / "models.json").read_text())["model_weights"]
    assert set(weights) == {"good", "weak", "log-linear pool", "Gaussian copula"}
    capsys.readouterr()
    assert main(["fit", str(path), "--score-col", "good,weak", "--label-col", "label", "--model", "mixture"]) == 2
    assert "--model takes 'auto' (each probability model's" in capsys.readouterr().err


def test_fit_with_probability_columns_is_multiclass(tmp_path, capsys):
    from scipy import special

    rng = np.random.default_rng(8)
    p = special.softmax(rng.normal(0, 2, (300, 3)), axis=1)
    y = (p.cumsum(1) > rng.random((300, 1))).argmax(1)
    names = ["cat", "dog", "eel"]
    path = tmp_path / "mc.csv"
    path.write_text("cat,dog,eel,truth\n" + "".join(
        ",".join(f"{v:.5f}" for v in row) + f",{names[t] if i < 30 else ''}\n" for i, (row, t) in enumerate(zip(p, y))))
    argv = ["fit", str(path), "--prob-cols", "cat,dog,eel", "--label-col", "truth", "--n-draws", "200",
            "--out", str(tmp_path / "o")]
    assert main(argv) == 0
    assert "SPE (multiclass)" in capsys.readouterr().out
    data = json.loads((tmp_path / "o" / "multiclass.json").read_text())
    assert [r["class"] for r in data["per_class"]] == names and 0 < data["accuracy"]["value"] < 1
    assert set(data["label_models"]) == {"temperature", "top-label", "vector"}
    assert np.isclose(sum(m["weight"] for m in data["label_models"].values()), 1.0)
    path.write_text(path.read_text().replace(",cat\n", ",lion\n", 1))
    assert main(argv) == 2 and "'lion' is neither a class index" in capsys.readouterr().err


def _oracle(y, n_questions, asked):
    """An ``ask`` that answers the true label of the item in each prompt, recording it in
    ``asked``, and quits after ``n_questions`` answers."""
    def ask(prompt):
        if len(asked) == n_questions:
            return "q"
        asked.append(int(prompt.split()[1]))
        return "1" if y[asked[-1]] else "0"

    return ask


def _spied_fits(monkeypatch):
    """The fits ``spe label`` runs, recorded as (scores, labels, options, result): a test
    checks what each fit was given instead of refitting it (spe.fit is deterministic)."""
    import spe.cli._label

    fits, real = [], spe.cli._label.fit
    assert real is spe.fit

    def spy(scores, labels, **options):
        fits.append((np.array(scores), np.array(labels), options, real(scores, labels, **options)))
        return fits[-1][-1]

    monkeypatch.setattr(spe.cli._label, "fit", spy)
    return fits


def _was_spe_fit(fit, scores, labels):
    """``fit`` (from _spied_fits) is spe.fit(scores, labels, seed=0, progress=False)."""
    given_scores, given_labels, options, _ = fit
    np.testing.assert_allclose(given_scores, scores, rtol=1e-12)  # parsed from the CSV's 5 decimals
    np.testing.assert_array_equal(given_labels, labels)
    assert options == {"seed": 0, "progress": False}


def _refuses_class_names(tmp_path, options, match):
    """``spe label`` with class-name predictions and ``options`` raises ``match``."""
    from spe.cli._label import run as cmd_label

    classes = tmp_path / "cls.csv"
    classes.write_text("score,pred\n0.1,cat\n0.9,dog\n0.5,cat\n")
    args = build_parser().parse_args(["label", str(classes), "--state", str(tmp_path / "c.json"),
                                      "--score-col", "score", "--pred-col", "pred", *options])
    with pytest.raises(ValueError, match=match):
        cmd_label(args, ask=lambda p: "q")


def test_label_with_goal_pr_asks_about_the_items_spe_suggests(tmp_path, capsys, monkeypatch):
    from spe.cli._label import run as cmd_label

    rng = np.random.default_rng(3)
    y = rng.random(300) < 0.3
    s = np.where(y, rng.normal(2, 1, 300), rng.normal(0, 1, 300))
    path = tmp_path / "items.csv"
    path.write_text("score,truth\n" + "".join(f"{v:.5f},{int(t) if i < 8 else ''}\n"
                                             for i, (v, t) in enumerate(zip(s, y))))
    state = tmp_path / "s.json"
    asked = []
    ask = _oracle(y, 3, asked)
    args = build_parser().parse_args(["label", str(path), "--state", str(state), "--score-col", "score",
                                      "--threshold", "1.0", "--label-col", "truth", "--goal", "pr"])
    fits = _spied_fits(monkeypatch)
    cmd_label(args, ask=ask)
    labels = np.where(np.arange(300) < 8, y, np.nan)
    assert len(asked) == 3 and len(fits) >= 3
    for item, fit in zip(asked, fits):  # each question is the item spe suggests given the answers before it
        _was_spe_fit(fit, s.round(5), labels)
        assert item == fit[-1].suggest_labels(1, target="pr")[0]
        labels[item] = y[item]
    assert len(json.loads(state.read_text())["labels"]) == 11
    _refuses_class_names(tmp_path, ["--goal", "ap"], "--goal ap needs binary labels")


def test_label_starts_from_the_spe_prior_and_never_counts_an_answer_twice(tmp_path, capsys, monkeypatch):
    """The SPE-informed prior holds the answers it was fitted on; the assessor counts only
    later answers, and a resumed session refits the prior on all of them."""
    from spe.assessment import Assessor, BetaGroups, spe_informed_prior
    from spe.cli._label import run as cmd_label

    rng = np.random.default_rng(5)
    y = rng.random(300) < 0.3
    s = np.where(y, rng.normal(2, 1, 300), rng.normal(0, 1, 300))
    path = tmp_path / "items.csv"
    path.write_text("score,truth\n" + "".join(f"{v:.5f},{int(t) if i < 10 else ''}\n"
                                             for i, (v, t) in enumerate(zip(s, y))))
    state = tmp_path / "s.json"
    argv = ["label", str(path), "--state", str(state), "--score-col", "score", "--threshold", "1.0",
            "--label-col", "truth", "--bins", "4"]
    answers = iter(["1", "q"])
    fits = _spied_fits(monkeypatch)
    cmd_label(build_parser().parse_args(argv), ask=lambda p: next(answers))
    out = capsys.readouterr().out
    assert "prior: SPE-informed from the scores and 10 answers" in out
    saved = json.loads(state.read_text())
    assert saved["prior_labels"] == list(range(10)) and len(saved["labels"]) == 11
    prior = BetaGroups(saved["prior"]["alpha"], saved["prior"]["beta"])
    # the prior is the SPE posterior given the 10 labels, with its strength earned
    _was_spe_fit(fits[0], s.round(5), np.where(np.arange(300) < 10, y, np.nan))
    res = fits[0][-1]
    from spe.assessment import bin_groups

    groups, _ = bin_groups(s.round(5), 4, "mass")
    expected = spe_informed_prior(res, groups, (s.round(5) >= 1.0).astype(float), max_strength="group size")
    np.testing.assert_allclose(prior.alpha, expected.alpha, rtol=1e-9)
    assert (prior.alpha + prior.beta).max() > 10  # not capped at a fixed 10 pseudo-labels
    # only the 11th answer is counted on top of the prior
    predicted = (s.round(5) >= 1.0).astype(int).astype(str)
    session = Assessor.load(state, groups, predicted)
    extra = (session.posterior.alpha + session.posterior.beta) - (prior.alpha + prior.beta)
    assert extra.sum() == pytest.approx(1.0)
    # resuming refits the prior on all 11 answers, which it then holds
    cmd_label(build_parser().parse_args(argv), ask=lambda p: "q")
    assert "prior: SPE-informed from the scores and 11 answers" in capsys.readouterr().out
    resumed = json.loads(state.read_text())
    assert resumed["prior_labels"] == sorted(int(i) for i, _ in resumed["labels"])
    with pytest.raises(ValueError, match="part of the prior"):
        session.update(0, "0" if saved["labels"][0][1] == "1" else "1")
    with pytest.raises(ValueError, match="never given"):
        session.set_prior(prior, included=[299])
    _refuses_class_names(tmp_path, ["--prior", "spe"], "--prior spe needs binary labels")


def test_label_with_goal_threshold_asks_what_settles_precision_and_recall_there(tmp_path, capsys, monkeypatch):
    from spe.cli._label import run as cmd_label

    rng = np.random.default_rng(4)
    y = rng.random(200) < 0.3
    s = np.where(y, rng.normal(2, 1, 200), rng.normal(0, 1, 200))
    path = tmp_path / "items.csv"
    path.write_text("score,truth,pred\n" + "".join(f"{v:.5f},{int(t) if i < 8 else ''},{int(v >= 1)}\n"
                                                  for i, (v, t) in enumerate(zip(s, y))))
    asked = []
    ask = _oracle(y, 2, asked)
    argv = ["label", str(path), "--state", str(tmp_path / "s.json"), "--score-col", "score",
            "--label-col", "truth", "--goal", "threshold"]
    fits = _spied_fits(monkeypatch)
    cmd_label(build_parser().parse_args(argv + ["--threshold", "1.0"]), ask=ask)
    assert "at threshold 1 (spe.fit): precision" in capsys.readouterr().out
    _was_spe_fit(fits[0], s.round(5), np.where(np.arange(200) < 8, y, np.nan))
    assert asked[0] == fits[0][-1].suggest_labels(1, target="threshold", threshold=1.0)[0]
    with pytest.raises(ValueError, match="--goal threshold needs --threshold"):
        cmd_label(build_parser().parse_args(argv[:3] + ["x.json"] + argv[4:] + ["--pred-col", "pred"]),
                  ask=lambda p: "q")


def test_fit_compares_multiclass_models_by_column_prefix(tmp_path, capsys):
    from scipy import special

    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 200)
    names = ["cat", "dog", "eel"]
    good = special.softmax(2.5 * np.eye(3)[y] + rng.normal(0, 1, (200, 3)), axis=1)
    weak = special.softmax(0.8 * np.eye(3)[y] + rng.normal(0, 1, (200, 3)), axis=1)
    header = ",".join([f"good_{n}" for n in names] + [f"weak_{n}" for n in names] + ["truth"])
    rows = [",".join(f"{v:.5f}" for v in np.r_[g, w]) + f",{names[t] if i < 20 else ''}"
            for i, (g, w, t) in enumerate(zip(good, weak, y))]
    path = tmp_path / "two.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    argv = ["fit", str(path), "--prob-prefix", "good_,weak_", "--label-col", "truth", "--n-draws", "200",
            "--out", str(tmp_path / "o")]
    assert main(argv) == 0
    assert "SPE (several multiclass models)" in capsys.readouterr().out
    data = json.loads((tmp_path / "o" / "models.json").read_text())
    assert data["classes"] == names and [m["model"] for m in data["models"]] == ["good", "weak"]
    assert data["prob_best_accuracy"]["good"] > 0.9
    assert set(data["per_model"]) == {"good", "weak"} and (tmp_path / "o" / "models.png").exists()
    assert main(argv[:3] + ["good_", "--out", str(tmp_path / "p")]) == 0  # one prefix: one multiclass model
    assert "SPE (multiclass)" in capsys.readouterr().out
    assert main(argv[:3] + ["good_,nope_"]) == 2
    assert "'nope_': 0 column(s) start with it" in capsys.readouterr().err
    assert main(argv + ["--prob-cols", "good_cat,good_dog"]) == 2
    assert "not both" in capsys.readouterr().err


def _items_csv(tmp_path, with_id=True, n=120):
    rng = np.random.default_rng(7)
    y = (rng.random(n) < 0.35).astype(int)
    s = np.where(y == 1, rng.normal(1.2, 0.8, n), rng.normal(-0.8, 0.8, n))
    head = "id,score,label" if with_id else "score,label"
    rows = [(f"u{i:03d}," if with_id else "") + f"{si:.5f},{yi if i % 8 == 0 else ''}"
            for i, (si, yi) in enumerate(zip(s, y))]
    path = tmp_path / "items_in.csv"
    path.write_text(head + "\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("with_id", [True, False])
def test_fit_names_items_by_id_column_or_zero_based_row(with_id, tmp_path, capsys):
    path = _items_csv(tmp_path, with_id)
    out = tmp_path / "o"
    assert main(["fit", str(path), "--score-col", "score", "--label-col", "label", "--model", "platt",
                 "--n-draws", "200", "--suggest", "4", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    name = "id" if with_id else "row"
    assert f"label next (items by {'column ' + repr(name) if with_id else '0-based row index'}):" in printed
    import csv

    items = list(csv.DictReader((out / "items.csv").open()))
    suggested = list(csv.DictReader((out / "suggested.csv").open()))
    assert len(items) == 120 and list(items[0]) == [name, "score", "label", "prob_positive"]
    assert items[5][name] == ("u005" if with_id else "5")
    by_id = {row[name]: row for row in items}
    assert len(suggested) == 4
    for row in suggested:  # suggestions are unlabeled items, named as in items.csv
        assert by_id[row[name]]["label"] == "" and by_id[row[name]]["score"] == row["score"]
    labeled = [row for row in items if row["label"]]
    assert all(row["prob_positive"] == row["label"] for row in labeled)


def test_threshold_writes_each_items_prediction_by_id(tmp_path, capsys):
    import csv

    path = _items_csv(tmp_path)
    out = tmp_path / "t"
    main(["threshold", str(path), "--score-col", "score", "--label-col", "label", "--model", "platt",
          "--n-draws", "200", "--min-precision", "0.7", "--out", str(out)])
    decision = json.loads((out / "threshold.json").read_text())
    rows = list(csv.DictReader((out / "predictions.csv").open()))
    assert rows[0]["id"] == "u000" and len(rows) == 120
    for row in rows:
        assert row["predicted_positive"] == str(int(float(row["score"]) >= decision["threshold"]))


def test_duplicated_ids_are_refused(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("key,score\na,0.1\nb,0.5\na,0.9\nc,0.3\n")
    assert main(["fit", str(path), "--score-col", "score", "--id-col", "key", "--out", str(tmp_path / "o")]) == 2
    assert "id column 'key' names 1 item(s) more than once (e.g. 'a')" in capsys.readouterr().err


def test_item_references_are_stated_in_help():
    for command in ("fit", "threshold"):
        text = build_parser()._subparsers._group_actions[0].choices[command].format_help()
        assert "0-based row index" in " ".join(text.split())


def test_demo_and_readme_share_one_seed():
    """spe demo's defaults: 10 labels picked and the fit seeded by one --seed, as the README's
    Python example does (np.random.default_rng(1) picks, spe.fit(..., seed=1))."""
    args = build_parser().parse_args(["demo"])
    assert args.seed == 1 and args.labels == 10
    help_text = build_parser()._subparsers._group_actions[0].choices["demo"].format_help()
    assert "random seed (default: 1)" in " ".join(help_text.split())


def test_classifier_names_the_family_whose_prior_the_map_starts_from(csv_file, tmp_path, capsys):
    # the map alone: the prior it starts from is checked, not the mixture pooled with it
    assert main(["fit", str(csv_file), "--score-col", "score", "--label-col", "label", "--n-draws", "200",
                 "--model", "spline", "--classifier", "GaussianNB", "--out", str(tmp_path / "o")]) == 0
    assert "naive Bayes classifiers" in capsys.readouterr().out
    assert "naive Bayes" in json.loads((tmp_path / "o" / "summary.json").read_text())["prior"]
