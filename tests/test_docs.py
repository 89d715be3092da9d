"""The documentation states what the code does: tables from the layouts, README in sync, CI."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from envs import GAMES, make_raw_env

ROOT = Path(__file__).resolve().parent.parent
REAL_GAMES = [g for g in GAMES if g != "toy"]


@pytest.mark.parametrize("game", REAL_GAMES)
def test_game_reference_holds_the_observation_table_of_the_code(game):
    layout = make_raw_env(game).game.layout
    doc = (ROOT / "docs" / f"{game}.md").read_text()
    assert layout.table() in doc, f"docs/{game}.md's observation table differs from the code"


def test_readme_games_section_is_in_sync_with_docs():
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "build_readme.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line.strip() for line in quick.strip().splitlines()]
    assert len(commands) == 2
    assert "training.selfplay --game prowl" in commands[0]
    test_cmd = commands[1].split("&&")[-1].strip()
    assert test_cmd.startswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd in ci and re.search(r"-c constraints\.txt", ci)
