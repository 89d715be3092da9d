"""The trained policies shipped in the package: ``ppo:prowl``, ``ppo:badland_wolves``,
``ppo:clans``, ``ppo:clandestine`` (agents/checkpoints/)."""

from __future__ import annotations

import fnmatch
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import agents
from agents import CHECKPOINT_DIR, SHIPPED_POLICIES, make_agent, shipped_policy_path
from envs import make_raw_env

ROOT = Path(__file__).resolve().parents[1]


def _config(game: str, num_players: int | None = None) -> dict:
    n = SHIPPED_POLICIES[game] if num_players is None else num_players
    return dict(make_raw_env(game, num_players=n).game.config)


@pytest.mark.parametrize("game", sorted(SHIPPED_POLICIES))
def test_shipped_policy_is_packaged_small_and_documented(game):
    path = shipped_policy_path(game)
    assert path == CHECKPOINT_DIR / f"{game}.zip" and path.is_file()
    # a few MB at most (the 3-player Clandestine policy, on 8,811 inputs, is 5.2 MB)
    assert path.stat().st_size < 6_000_000
    note = (CHECKPOINT_DIR / f"{game}.md").read_text()
    assert f"python -m training.selfplay --game {game}" in note
    # the ship command reads the run folder the training command wrote (runs/GAME, or a fresh
    # folder for a later run)
    ship = re.search(rf"python -m training\.ship (runs/[\w.-]+) --game {game}\b", note)
    assert ship and f"--run-dir {ship.group(1)}\n" in note
    n = SHIPPED_POLICIES[game]
    assert f"| trained vs {n - 1} random |" in note and f"| trained vs {n - 1} heuristic |" in note


def test_pyproject_packages_the_shipped_policies():
    """pyproject's package data takes every shipped file into an installed package."""
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["agents"]
    for game in SHIPPED_POLICIES:
        for ext in ("zip", "md"):
            assert any(fnmatch.fnmatch(f"checkpoints/{game}.{ext}", p) for p in patterns)


@pytest.mark.parametrize("game", sorted(SHIPPED_POLICIES))
def test_shipped_policy_plays_legal_moves(game):
    """Two games with the shipped policy in seat 0 (then seat 1) against random agents: every
    action it takes is legal and the games end."""
    n = SHIPPED_POLICIES[game]
    config = _config(game)
    policy = make_agent(f"ppo:{game}", game, config, seed=0)
    assert policy.name == f"ppo:{game}"
    decisions = 0
    for g in range(2):
        env = make_raw_env(game, num_players=n)
        env.reset(seed=100 + g)
        policy.reset()      # a new game (the Clans policy's advisor remembers the last one)
        others = {a: make_agent("random", game, config, seed=10 * g + i)
                  for i, a in enumerate(env.possible_agents)}
        learner = env.possible_agents[g % n]
        for a in env.agent_iter(max_iter=200_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if a == learner:
                action = policy.act(obs, a)
                assert obs["action_mask"][action] == 1
                decisions += 1
            else:
                action = others[a].act(obs, a)
            env.step(action)
        assert not env.agents
    assert decisions > 4


def test_shipped_spec_errors_are_clear(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"shipped for clans; it cannot play prowl"):
        make_agent("ppo:clans", "prowl", _config("prowl"))
    with pytest.raises(ValueError, match=r"shape \(1168,\).*plays 4-player games: use it in a "
                                         r"4-player game \(num_players=4; in training.evaluate, "
                                         r"4 agents\)"):
        make_agent("ppo:prowl", "prowl", _config("prowl", 3))
    with pytest.raises(ValueError, match=r"ppo:PATH .* or a game with a shipped policy: ppo:prowl"):
        make_agent("ppo:", "prowl", _config("prowl"))
    with pytest.raises(FileNotFoundError, match="no saved policy file at 'chess'"):
        make_agent("ppo:chess", "prowl", _config("prowl"))
    # a path wins over the shipped name: a missing file named like a game is not shadowed
    monkeypatch.chdir(tmp_path)
    shutil.copy(CHECKPOINT_DIR / "badland_wolves.zip", tmp_path / "prowl.zip")
    with pytest.raises(ValueError, match=r"'ppo:prowl' expects observations of shape \(576,\)"
                                         r".*trained for another game"):
        make_agent("ppo:prowl", "prowl", _config("prowl"))


def test_the_shipped_clandestine_policy_refused_beside_a_nemesis_says_why():
    """The shipped Clandestine policy plays 3 players without a Nemesis. Beside a Nemesis the
    config's ``num_players`` counts the human seats only, so with 3 humans it matched the
    policy's count and the error said the observation layout had changed since training and
    to train it again; solo it said to use 3 agents, which beside the Nemesis fails alike.
    The error names the Nemesis now."""
    from envs.clandestine.engine import ClandestineState

    for humans in (3, 1):
        config = dict(ClandestineState(seed=0, num_players=humans, nemesis="most_holy",
                                       difficulty=2).config)
        with pytest.raises(ValueError) as exc:
            make_agent("ppo:clandestine", "clandestine", config)
        msg = str(exc.value)
        size = {3: 12158, 1: 7470}[humans]
        assert (f"clandestine with num_players={humans} and nemesis='most_holy' has observations "
                f"of shape ({size},)") in msg
        assert msg.endswith("the shipped policy plays 3-player games without a Nemesis: use it "
                            "in a 3-player game without one (num_players=3, no nemesis; in "
                            "training.evaluate, 3 agents)")
        assert "has changed since" not in msg


def test_a_folder_named_like_a_game_does_not_shadow_its_shipped_policy(tmp_path, monkeypatch):
    """Run from a folder holding a folder ``clans`` (e.g. ``runs/``, whose run folders are
    named after the games), ``ppo:clans`` is still the shipped policy: only a file wins over the
    shipped name (it failed before with "no saved policy file at 'clans'")."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clans").mkdir()
    agent = make_agent("ppo:clans", "clans", _config("clans", 3))
    assert agent.name == "ppo:clans"


def test_stale_shipped_policy_names_the_shape_mismatch(tmp_path, monkeypatch):
    """A shipped policy whose game's observation layout changed after training (simulated: the
    Badland Wolves policy in Prowl's place) is refused when built, naming both shapes and the
    note that gives the command to train it again."""
    shutil.copy(CHECKPOINT_DIR / "badland_wolves.zip", tmp_path / "prowl.zip")
    monkeypatch.setattr(agents, "CHECKPOINT_DIR", tmp_path)
    with pytest.raises(ValueError) as exc:
        make_agent("ppo:prowl", "prowl", _config("prowl"))
    msg = str(exc.value)
    assert "expects observations of shape (576,) and 88 actions" in msg
    assert "prowl with num_players=4 has observations of shape (1607,) and 112 actions" in msg
    assert "has changed since this policy was trained" in msg
    assert str(tmp_path / "prowl.md") in msg


def test_ship_command_keeps_the_policy_and_drops_optimizer_state(tmp_path):
    """training.ship's copy acts exactly as the model it was made from."""
    from sb3_contrib import MaskablePPO

    from agents.learned import PolicyAgent
    from training.ship import slim_copy

    src = CHECKPOINT_DIR / "badland_wolves.zip"
    dst = slim_copy(src, tmp_path / "copy")
    assert dst == tmp_path / "copy.zip"
    model = MaskablePPO.load(str(dst), device="cpu")
    assert model.policy.optimizer.state_dict()["state"] == {}
    assert getattr(model, "advice", None) == "heuristic"     # the advice kind travels with it
    from envs.badland_wolves import BadlandWolvesState

    cfg = {"num_players": 4}
    a = PolicyAgent.load(src, game="badland_wolves", config=cfg)
    b = PolicyAgent.load(dst, game="badland_wolves", config=cfg)
    rng = np.random.default_rng(0)
    decisions = 0
    for g in range(2):      # real positions: the advisor reads them as the heuristic would
        state = BadlandWolvesState(seed=g, num_players=4)
        a.reset()
        b.reset()
        while not state.is_over and decisions < 400:
            p = state.current_player
            obs = {"observation": state.observation_tensor(p),
                   "action_mask": state.legal_action_mask()}
            act = a.act(obs, f"player_{p}")
            assert act == b.act(obs, f"player_{p}")
            decisions += 1
            state.apply_action(act if rng.random() < 0.5
                               else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert decisions >= 300
