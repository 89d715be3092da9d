"""The scripts under examples/ run (tiny settings), each skipped where its library is missing."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAMES = ["prowl", "badland_wolves", "clans"]


def _main(script: str):
    """The ``main`` of ``examples/<script>`` (the script is loaded, not run)."""
    return runpy.run_path(str(EXAMPLES / script))["main"]


def test_sb3_single_agent_example(capsys):
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed")
    results = _main("sb3_single_agent.py")(["--steps", "64", "--eval-episodes", "1",
                                           "--opponents", "random"])
    assert sorted(results) == sorted(GAMES)
    # the mean return of a seat under the win_loss rewards
    assert all(-1.0 <= r <= 1.0 for r in results.values())
    out = capsys.readouterr().out
    assert all(f"{g}: mean return" in out for g in GAMES)


def test_openspiel_ismcts_example(capsys):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed "
                                          "(pip install -e '.[openspiel]')")
    main = _main("openspiel_ismcts.py")
    results = main(["--games", "prowl", "clans", "--episodes", "1", "--simulations", "2"])
    assert sorted(results) == ["clans", "prowl"]
    assert all(len(r) == 1 and -1.0 <= r[0] <= 1.0 for r in results.values())
    results = main(["--games", "badland_wolves", "--episodes", "1", "--simulations", "2",
                    "--param", "players=3", "--param", "max_turns=15"])
    assert len(results["badland_wolves"]) == 1
    assert "cunning_badland_wolves(" in capsys.readouterr().out
