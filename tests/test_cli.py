"""The ``python -m training.*`` command lines as a newcomer meets them (fast, toy game)."""

import subprocess
import sys
from pathlib import Path

import pytest

from training.selfplay import main as selfplay_main

ROOT = Path(__file__).resolve().parents[1]


def test_selfplay_mistakes_are_one_line_with_a_hint_to_help(tmp_path, capsys):
    for argv, message in [
        (["--game", "toy", "--n-envs", "0"], "--n-envs must be >= 1"),
        (["--game", "chess"], "argument --game: invalid choice: 'chess'"),
        (["--game", "toy", "--opponents", "friends=1"], "unknown opponent kinds ['friends']"),
        (["--game", "toy", "--timesteps", "x"], "invalid int value: 'x'"),
    ]:
        with pytest.raises(SystemExit) as exc:
            selfplay_main(argv + ["--run-dir", str(tmp_path / "run")])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert err.startswith("python -m training.selfplay: error: ") and message in err
        assert err.rstrip().endswith("(try --help)")
        assert "usage" not in err
    assert not (tmp_path / "run").exists()   # nothing written before the arguments are checked
