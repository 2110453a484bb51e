"""``spe elicit`` at a terminal: questions, refusals, answers saved, a kill, a resume, JSON."""

import json
import os
import pty
import select
import signal
import sys
import time
import traceback

import numpy as np
import pytest

from spe.cli import build_parser, main
from spe.cli._elicit import run
from spe.elicitation import paper_probabilities

NAMES = ("cat", "dog", "bird")
OPTIONS = ["--prob-cols", "cat,dog,bird", "--tolerance", "0.25", "--seed", "0"]


@pytest.fixture
def predictions(tmp_path):
    probs = paper_probabilities((1, 3, 5), n=300)
    lines = [",".join(NAMES)] + [",".join(f"{v:.6f}" for v in row) for row in probs]
    path = tmp_path / "predictions.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _command(args) -> int:
    """``spe elicit ARGS`` in this forked child, on the terminal pty.fork() put at fds 0-2: what
    ``python -m spe`` runs, without starting Python and importing spe again (most of a
    session's time); the streams are reopened on the terminal, not the ones pytest captures."""
    os.environ["MPLBACKEND"] = "Agg"
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the terminal, for the child's life
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    try:
        code = main(["elicit", *args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - shown on the terminal, where the test reads it
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return code


class Terminal:
    """``spe elicit ...`` on a pseudo-terminal: read what it prints, type answers."""

    def __init__(self, args, cwd):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the command, then exit without running the parent's cleanup
            os.chdir(cwd)
            os._exit(_command(args))
        self.text = ""

    def expect(self, pattern, timeout: float = 60.0) -> str:
        """Read until ``pattern`` (or one of several) appears in what is not yet consumed;
        consume and return the text up to it."""
        patterns = [pattern] if isinstance(pattern, str) else list(pattern)
        deadline = time.monotonic() + timeout
        while not any(p in self.text for p in patterns):
            ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"timed out waiting for {pattern!r}; got:\n{self.text}")
            try:
                chunk = os.read(self.fd, 4096).decode(errors="replace")
            except OSError:  # the child closed the terminal
                chunk = ""
            if not chunk:
                raise AssertionError(f"the command ended before {pattern!r}; got:\n{self.text}")
            self.text += chunk
        at, found = min((self.text.index(p), p) for p in patterns if p in self.text)
        out, self.text = self.text[:at + len(found)], self.text[at + len(found):]
        return out

    def type(self, line: str):
        os.write(self.fd, (line + "\n").encode())

    def kill(self):
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)

    def wait(self) -> int:
        try:
            while os.read(self.fd, 4096):
                pass
        except OSError:
            pass
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def _answered_in_process(data, tmp_path, answer="1"):
    """The same session answered without interruption (in-process), for comparison."""
    args = build_parser().parse_args(["elicit", str(data), *OPTIONS, "--state", str(tmp_path / "once.json"),
                                      "--out", str(tmp_path / "once")])
    assert run(args, ask=lambda prompt: answer) == 0
    return json.loads((tmp_path / "once" / "elicitation.json").read_text())


def test_a_session_refuses_bad_answers_survives_a_kill_and_resumes(predictions, tmp_path):
    state, out = tmp_path / "answers.json", tmp_path / "out"
    args = [str(predictions), *OPTIONS, "--state", str(state), "--out", str(out)]
    term = Terminal(args, tmp_path)
    shown = term.expect("which is better?")
    assert "counts per 1,000 items" in shown and "outcome 1" in shown and "outcome 2" in shown
    assert all(name in shown for name in NAMES)
    term.type("maybe")
    assert "'maybe' is not an answer: type 1, 2 or s" in term.expect("which is better?")
    term.type("")
    assert "no answer" in term.expect("which is better?")
    for _ in range(3):
        term.type("1")
        term.expect("which is better?")
    term.kill()  # after 3 answers, mid-question: nothing may be lost or half-written
    saved = json.loads(state.read_text())
    assert len(saved["answers"]) == 3 and all(a["answer"] == "1" for a in saved["answers"])
    assert all(set(a["shown"]) == {"decimals", "first", "second", "difference"} for a in saved["answers"])

    term = Terminal(args, tmp_path)
    assert "resuming" in term.expect("3 answers so far")
    term.expect("question 4 ")
    while not term.expect(["which is better?", "elicitation.json"], timeout=120).endswith("elicitation.json"):
        term.type("1")  # answer 1 until it is done
    assert term.wait() == 0
    result = json.loads((out / "elicitation.json").read_text())
    assert set(result) == {"metric", "rule", "evaluation"}
    assert result["metric"]["classes"] == list(NAMES)
    ev = result["evaluation"]["rule"]
    assert ev["lower"] <= ev["value"] <= ev["upper"]
    once = _answered_in_process(predictions, tmp_path)
    assert once["metric"]["weights"] == result["metric"]["weights"]  # the resumed session is the same session


def test_q_stops_and_keeps_the_answers(predictions, tmp_path, capsys):
    state = tmp_path / "s.json"
    args = build_parser().parse_args(["elicit", str(predictions), *OPTIONS, "--state", str(state)])
    replies = iter(["2", "1", "q"])
    assert run(args, ask=lambda prompt: next(replies)) == 0
    assert "stopped: 2 answers saved" in capsys.readouterr().out
    assert [a["answer"] for a in json.loads(state.read_text())["answers"]] == ["2", "1"]


def test_a_state_file_of_other_data_or_options_is_refused(predictions, tmp_path, capsys):
    state = tmp_path / "s.json"
    args = build_parser().parse_args(["elicit", str(predictions), *OPTIONS, "--state", str(state)])
    replies = iter(["1", "q"])
    run(args, ask=lambda prompt: next(replies))
    code = main(["elicit", str(predictions), "--prob-cols", "cat,dog,bird", "--tolerance", "0.1",
                 "--state", str(state)])
    assert code == 2 and "other data or options" in capsys.readouterr().err
    state.write_text("{not json")
    assert main(["elicit", str(predictions), *OPTIONS, "--state", str(state)]) == 2
    assert "not an spe elicit state file" in capsys.readouterr().err


@pytest.mark.parametrize("cols, message", [("cat", "one column per class"), ("cat,dog,cow", "cow")])
def test_bad_columns_are_one_line_errors(predictions, tmp_path, capsys, cols, message):
    code = main(["elicit", str(predictions), "--prob-cols", cols, "--state", str(tmp_path / "s.json")])
    assert code == 2 and message in capsys.readouterr().err


def test_labels_recalibrate_the_questions_and_binary_prints_a_threshold(tmp_path, capsys):
    probs = paper_probabilities((1, 4), n=300)
    rng = np.random.default_rng(0)
    y = (rng.random(300) < probs[:, 1]).astype(int)
    lines = ["no,yes,truth"] + [f"{p0:.6f},{p1:.6f},{['no', 'yes'][t] if i < 20 else ''}"
                                for i, ((p0, p1), t) in enumerate(zip(probs, y))]
    data = tmp_path / "binary.csv"
    data.write_text("\n".join(lines) + "\n")
    args = build_parser().parse_args(["elicit", str(data), "--prob-cols", "no,yes", "--label-col", "truth",
                                      "--state", str(tmp_path / "s.json"), "--out", str(tmp_path / "out"),
                                      "--tolerance", "0.1"])

    def person(prompt):  # weighs the displayed "1 minus 2" diagonal: a right "yes" is worth 0.7, a right "no" 0.3
        rows = {w[0]: w[5:] for w in (line.split() for line in capsys.readouterr().out.splitlines())
                if len(w) == 7 and w[0] in ("no", "yes")}
        return "1" if 0.3 * float(rows["no"][0]) + 0.7 * float(rows["yes"][1]) > 0 else "2"

    assert run(args, ask=person) == 0
    out = capsys.readouterr().out
    assert "SPE-recalibrated" in out and "predict yes when P(yes) >=" in out
    result = json.loads((tmp_path / "out" / "elicitation.json").read_text())
    assert 0 <= result["metric"]["threshold"] <= 1 and result["metric"]["recalibrated"]


class Person:
    """Someone at the terminal with a planted weighted accuracy: reads the question's
    "1 minus 2" table off the screen, weighs its diagonal, answers ``s`` when the difference
    is at most ``indifference`` counts per 1,000, else the better outcome."""

    def __init__(self, weights, indifference):
        self.weights, self.indifference = np.asarray(weights, float), indifference
        self.answers = []

    def read(self, screen: str) -> np.ndarray:
        """The displayed difference (outcome 1 minus outcome 2) of the question on ``screen``."""
        rows = {}
        for line in screen.replace("\r", "").splitlines():
            words = line.split()
            if len(words) == 1 + 3 * len(NAMES) and words[0] in NAMES:
                rows[words[0]] = [float(w) for w in words[1:]]
        assert list(rows) == list(NAMES), f"no question on the screen:\n{screen}"
        return np.array([rows[n][2 * len(NAMES):] for n in NAMES])

    def answer(self, screen: str) -> str:
        value = float(np.diagonal(self.read(screen)) @ self.weights)
        said = "s" if abs(value) <= self.indifference else ("1" if value > 0 else "2")
        self.answers.append(said)
        return said


def _session(person, data, tmp_path, seed, tolerance="0.1"):
    """One ``spe elicit`` session on a pseudo-terminal answered by ``person``; the JSON it writes."""
    out = tmp_path / f"out{seed}"
    term = Terminal([str(data), "--prob-cols", ",".join(NAMES), "--tolerance", tolerance, "--seed", str(seed),
                     "--state", str(tmp_path / f"s{seed}.json"), "--out", str(out)], tmp_path)
    while True:
        screen = term.expect(["which is better?", "elicitation.json"], timeout=120)
        if screen.endswith("elicitation.json"):
            break
        term.type(person.answer(screen))
    assert term.wait() == 0
    return json.loads((out / "elicitation.json").read_text())


def test_a_person_answering_from_the_screen_is_recorded_and_can_say_about_the_same(predictions, tmp_path):
    person = Person([0.2, 0.3, 0.5], indifference=1.0)
    result = _session(person, predictions, tmp_path, 0)
    metric = result["metric"]
    assert "s" in person.answers and metric["about_the_same"] == person.answers.count("s")
    assert metric["n_queries"] == len(person.answers) <= metric["max_queries"]
    saved = json.loads((tmp_path / "s0.json").read_text())["answers"]
    assert [a["answer"] for a in saved] == person.answers
    for a in saved:  # what was displayed is what the person read, at a precision that shows the difference
        shown = np.array(a["shown"]["difference"])
        assert np.max(np.abs(shown)) >= 10 ** (2 - a["shown"]["decimals"]) - 1e-9
        assert np.max(np.abs(np.array(a["first"]) - np.array(a["second"])) * 1000) > 1.0  # the resolution


@pytest.mark.statistical
def test_a_person_answering_from_the_screen_gets_intervals_that_cover_the_planted_weights(tmp_path):
    """Over 40 people (weights drawn from the prior, indifference 0.2-3 per 1,000, random
    items), each answering a pty session from what it shows, the 90% intervals of the
    weights cover the planted ones at about their level, within the paper's question count."""
    covered, asked, skipped = [], [], []
    for seed in range(40):
        rng = np.random.default_rng([46, seed])
        probs = paper_probabilities(rng.uniform(0.5, 6.0, 3), n=300)
        data = tmp_path / f"p{seed}.csv"
        data.write_text(",".join(NAMES) + "\n" + "\n".join(",".join(f"{v:.6f}" for v in r) for r in probs) + "\n")
        weights = rng.dirichlet(np.ones(3))
        person = Person(weights, indifference=float(np.exp(rng.uniform(np.log(0.2), np.log(3.0)))))
        metric = _session(person, data, tmp_path, seed)["metric"]
        lower = np.array([metric["interval"]["lower"][n] for n in NAMES])
        upper = np.array([metric["interval"]["upper"][n] for n in NAMES])
        covered.extend((lower <= weights) & (weights <= upper))
        assert metric["n_queries"] <= metric["max_queries"]
        asked.append(metric["n_queries"])
        skipped.append(metric["skipped"])
    print(f"coverage {np.mean(covered):.3f}, questions {np.mean(asked):.1f} (max {max(asked)}), "
          f"skipped {np.mean(skipped):.1f} (max {max(skipped)})")
    assert np.mean(covered) >= 0.85


def test_the_tolerance_default_is_elicit_metrics(tmp_path):
    import inspect

    import spe

    args = build_parser().parse_args(["elicit", "x.csv", "--prob-cols", "a,b", "--state", str(tmp_path / "s")])
    assert args.tolerance == inspect.signature(spe.elicit_metric).parameters["tolerance"].default == 0.01
