"""The progress bar of long fits."""

import numpy as np
import pytest

import spe
from spe._util import progress


def test_progress_bar_names_the_stages_when_asked_and_is_silent_otherwise(monkeypatch, capsys):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    rng = np.random.default_rng(0)
    s = np.r_[rng.normal(0, 1, 300), rng.normal(3, 1, 100)]
    y = np.full(s.size, np.nan)
    y[[0, 1, 2, 300, 301, 302]] = [0, 0, 0, 1, 1, 1]
    spe.fit(s, y, n_draws=100, seed=0, progress=True)
    shown = capsys.readouterr().err
    # 9 stages: 4 family pairs, refit, sampling, the map, the weak ranker, pooling (tqdm
    # throttles the counts, not the stage names)
    assert "spe.fit" in shown and "/9 [" in shown
    assert "mixture: fitting family pairs" in shown and "pooling the score models" in shown
    spe.fit(s, y, n_draws=100, seed=0, progress=False, families=("truncnorm", "truncnorm"))  # silent from the start
    # None: not a terminal under pytest (decided before any stage, so one family pair is enough)
    spe.fit(s, y, n_draws=100, seed=0, families=("truncnorm", "truncnorm"))
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress must be"):
        spe.fit(s, y, progress="yes")
