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


@pytest.mark.parametrize("game", GAMES)
def test_rllib_observation_keys_wrapper(game):
    """The key-renaming wrapper of examples/rllib_ppo.py (needs PettingZoo only, not Ray).

    Its float32 mask (RLlib's module takes ``log`` of it) is not PettingZoo's int8 mask, so
    PettingZoo's ``api_test`` (which samples with the mask) does not apply; a random game is
    played through it instead."""
    import numpy as np

    import envs

    wrapper = runpy.run_path(str(EXAMPLES / "rllib_ppo.py"))["RLlibObservationKeys"]
    env = wrapper(envs.make_env(game))
    env.reset(seed=3)
    agent = env.agent_selection
    obs = env.observe(agent)
    inner = env.env.observe(agent)
    assert set(obs) == {"observations", "action_mask"}
    np.testing.assert_array_equal(obs["observations"], inner["observation"])
    assert obs["action_mask"].dtype == np.float32
    np.testing.assert_array_equal(obs["action_mask"], inner["action_mask"])
    assert env.observation_space(agent).contains(obs)
    assert env.observation_space(agent) is env.observation_space(agent)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter(max_iter=3000):
        obs, _, term, trunc, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        steps += 1
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not env.agents and steps > 10  # the game ended


def test_rllib_ppo_example_one_iteration_per_game(capsys):
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed "
                                            "(pip install -e '.[rllib]')")
    results = _main("rllib_ppo.py")(["--iterations", "1", "--batch", "128"])
    assert sorted(results) == sorted(GAMES)
    for game, r in results.items():
        assert r["env_steps"] >= 128, game
        assert r["seconds_per_iteration"] > 0
    assert "PPO iteration(s)" in capsys.readouterr().out


def test_torchrl_rollout_example():
    pytest.importorskip("torchrl", reason="torchrl is not installed")
    results = _main("torchrl_rollout.py")([])
    assert sorted(results) == sorted(GAMES)
    for game, r in results.items():
        # whole games, every random action legal (the env raises on an illegal one)
        assert r["done"] and r["steps"] > 10, game
        values = sorted(r["returns"].values())
        assert set(values) <= {-1.0, 0.0, 1.0}
        assert values.count(1.0) <= 1 or game == "clans"  # Clans may share a win


def test_tianshou_play_example():
    pytest.importorskip("tianshou", reason="tianshou is not installed")
    results = _main("tianshou_play.py")(["--episodes", "2"])
    assert sorted(results) == sorted(GAMES)
    for game, episodes in results.items():
        assert len(episodes) == 2
        for e in episodes:
            # Tianshou's reward vector is every seat's return from the engine
            assert e["rewards"] == e["returns"], game
            assert e["steps"] > 10
