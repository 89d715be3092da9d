"""The single-agent Gymnasium env (``cunning/<Game>-v0``) on every registered game, and self-play
over worker processes (SB3 ``SubprocVecEnv``)."""

from __future__ import annotations

import argparse
import csv
import json
import warnings

import gymnasium
import numpy as np
import pytest

import envs
from envs.core import ConfigError, IllegalActionError
from envs.core.single_agent import (
    EpisodeOverError, SingleAgentEnv, gym_id, gym_name, register_gymnasium_envs,
)
from tests.contract_helpers import player_counts, random_action, state_class

GAMES = sorted(envs.GAMES)
register_gymnasium_envs()     # the toy game joins the registry too


def _n(game: str) -> int:
    """The largest player count of ``game`` (most opponents)."""
    return player_counts(game)[-1]


def _play(env: SingleAgentEnv, seed: int | None, rng: np.random.Generator):
    """One episode with uniform random legal learner actions: list of per-step tuples."""
    obs, info = env.reset(seed=seed)
    trace = [(obs.copy(), info["seat"], info["action_mask"].copy())]
    while True:
        assert env.state.current_player == env.seat
        np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
        obs, reward, term, trunc, info = env.step(random_action(info["action_mask"], rng))
        trace.append((obs.copy(), reward, term, trunc, info["action_mask"].copy()))
        if term or trunc:
            return trace, info


def test_ids_are_registered_for_every_game():
    assert gym_name("badland_wolves") == "BadlandWolves"
    ids = register_gymnasium_envs()
    assert {"cunning/Prowl-v0", "cunning/BadlandWolves-v0", "cunning/Clans-v0"} <= set(ids)
    assert ids == [gym_id(g) for g in envs.GAMES] + ["cunning/ClandestineSolo-v0"]
    solo = gymnasium.make("cunning/ClandestineSolo-v0")
    assert solo.unwrapped.game == "clandestine" and solo.unwrapped.n == 1  # one seat and the Nemesis


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_make_plays_a_game(game):
    env = gymnasium.make(gym_id(game), opponents=["heuristic"])
    assert env.unwrapped.game == game
    obs, info = env.reset(seed=3)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    masks = env.get_wrapper_attr("action_masks")    # how SB3 reaches it through wrappers
    rng = np.random.default_rng(0)
    done, steps = False, 0
    while not done:
        np.testing.assert_array_equal(masks(), info["action_mask"].astype(bool))
        obs, reward, term, trunc, info = env.step(random_action(info["action_mask"], rng))
        done, steps = term or trunc, steps + 1
    assert steps > 0 and term and reward in env.unwrapped.state.returns()
    assert not masks().any()


def test_the_documented_example():
    env = gymnasium.make("cunning/Prowl-v0", num_players=4, opponents=["heuristic"])
    env.reset(seed=0)
    u = env.unwrapped
    assert u.n == 4 and env.action_space.n == 112 and env.observation_space.shape == (u.state.observation_size,) == (1607,)
    assert sorted(u.opponents) == sorted(set(range(4)) - {u.seat})
    assert {kind for kind, _ in u.opponents.values()} == {"heuristic"}


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_and_sb3_checkers_pass(game):
    """Both checkers step ``action_space.sample()`` (unmasked), hence ``illegal_action="lose"``;
    the env made through ``gymnasium.make`` so the render check can re-make it."""
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")         # a checker's warning fails the test
        check_env(gymnasium.make(gym_id(game), illegal_action="lose").unwrapped)
        check_env(gymnasium.make(gym_id(game), illegal_action="lose",
                                 render_mode="ansi").unwrapped)
        sb3_check_env(gymnasium.make(gym_id(game), illegal_action="lose").unwrapped)


@pytest.mark.parametrize("game", GAMES)
def test_seeded_episodes_are_reproducible(game):
    """Same seed, same learner actions: the same episode (opponents' choices included), in a
    fresh env and in the same env reset with the seed again; another seed deals otherwise."""
    def run(env, seed):
        return [_play(env, seed if i == 0 else None, np.random.default_rng(i))[0]
                for i in range(2)]

    def same(a, b):
        return all(len(x) == len(y) and all(
            all(np.array_equal(u, v) for u, v in zip(s, t)) for s, t in zip(x, y))
            for x, y in zip(a, b))

    specs = ["heuristic", "random"]
    env = SingleAgentEnv(game, opponents=specs[:1], num_players=_n(game))
    first = run(env, 11)
    assert same(first, run(SingleAgentEnv(game, opponents=specs[:1], num_players=_n(game)), 11))
    assert same(first, run(env, 11))
    assert not same(first, run(env, 12))
    assert [t[0][1] for t in first] == [0, 1]            # the rotation restarts with the seed


@pytest.mark.parametrize("game", GAMES)
def test_reward_is_the_games_return_for_the_learners_seat(game):
    """Over many episodes: reward 0 before the end, then the return the game (replayed from its
    record) gives the learner's seat; the observation is that seat's own."""
    env = SingleAgentEnv(game, opponents="random", num_players=_n(game), seed=5)
    cls = state_class(game)
    rng = np.random.default_rng(1)
    nonzero = 0
    for _ in range(12):
        trace, info = _play(env, None, rng)
        assert all(step[1] == 0.0 for step in trace[1:-1])
        replayed = cls.from_record(env.state.to_record())
        assert replayed.is_over
        expected = replayed.returns()[env.seat] if replayed.is_terminal else 0.0
        assert trace[-1][1] == expected
        np.testing.assert_array_equal(info["returns"], replayed.returns())
        np.testing.assert_array_equal(trace[-1][0], replayed.observation_tensor(env.seat))
        nonzero += expected != 0
    assert nonzero > 0


def _to_masked_decision(env: SingleAgentEnv) -> tuple[dict, int]:
    """Play the first legal action from ``reset(seed=0)``, then seeds 1, 2, ..., until the
    learner's decision masks an action out; returns ``(info, that action)``. Deterministic."""
    for seed in range(100):
        _, info = env.reset(seed=seed)
        while True:
            if not info["action_mask"].all():
                return info, int(np.flatnonzero(info["action_mask"] == 0)[0])
            _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            if term or trunc:
                break
    raise AssertionError("no learner decision with a masked-out action")


@pytest.mark.parametrize("game", GAMES)
def test_illegal_actions_raise_or_lose(game):
    env = SingleAgentEnv(game, num_players=_n(game))
    info, bad = _to_masked_decision(env)
    with pytest.raises(IllegalActionError, match=f"action {bad} "):
        env.step(bad)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(env.action_space.n)
    with pytest.raises(IllegalActionError, match="integer"):
        env.step(0.5)
    env.step(random_action(info["action_mask"], np.random.default_rng(0)))   # still playable

    lose = SingleAgentEnv(game, num_players=_n(game), illegal_action="lose")
    assert _to_masked_decision(lose)[1] == bad
    obs, reward, term, trunc, info = lose.step(bad)
    assert (reward, term, trunc) == (-1.0, True, False) and f"action {bad} " in \
        info["illegal_action"]
    assert info["returns"][lose.seat] == -1.0 and np.count_nonzero(info["returns"]) == 1
    assert not lose.action_masks().any()
    with pytest.raises(EpisodeOverError, match="reset"):
        lose.step(0)
    lose.reset()
    custom = SingleAgentEnv(game, num_players=_n(game), illegal_action="lose",
                            illegal_reward=-5.0)
    _to_masked_decision(custom)
    assert custom.step(bad)[1] == -5.0


@pytest.mark.parametrize("game", GAMES)
def test_rotating_seats_cover_every_seat_and_a_fixed_seat_stays(game):
    n = _n(game)
    env = SingleAgentEnv(game, num_players=n, seed=0)
    rng = np.random.default_rng(0)
    seats = [_play(env, None, rng)[1]["seat"] for _ in range(2 * n)]
    assert seats == [i % n for i in range(2 * n)]
    fixed = SingleAgentEnv(game, num_players=n, seat=n - 1, seed=0)
    assert {_play(fixed, None, rng)[1]["seat"] for _ in range(3)} == {n - 1}


@pytest.mark.parametrize("game", GAMES)
def test_opponents_sit_after_the_learner_each_with_its_own_instance(game):
    n = _n(game)
    specs = ["heuristic"] + ["random"] * (n - 2)
    env = SingleAgentEnv(game, opponents=specs, num_players=n, seed=0)
    instances = set()
    for _ in range(n):
        env.reset()
        assert [env.opponents[(env.seat + 1 + i) % n][0] for i in range(n - 1)] == specs
        agents = [a for _, a in env.opponents.values()]
        assert len({id(a) for a in agents}) == n - 1
        instances |= {id(a) for a in agents}
    assert len(instances) == n * len(set(specs))     # one per (seat, opponent spec)


def test_max_cycles_truncates_with_zero_reward():
    env = SingleAgentEnv("prowl", num_players=4, seat=0, max_cycles=6, seed=0)
    _, info = env.reset()
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, reward, term, trunc, info = env.step(random_action(info["action_mask"], rng))
        done = term or trunc
    assert (reward, term, trunc) == (0.0, False, True)
    assert env.num_steps == 6 and not env.state.is_over


@pytest.mark.parametrize("kwargs, message", [
    ({"seat": 4}, "seat must be"), ({"seat": "left"}, "seat must be"),
    ({"first_seat": -1}, "first_seat"), ({"illegal_action": "ignore"}, "illegal_action"),
    ({"max_cycles": 0}, "max_cycles"), ({"render_mode": "rgb_array"}, "render_mode"),
    ({"opponents": ["random", "random"]}, "list of 3"), ({"opponents": []}, "list of 3"),
    ({"opponents": 5}, r"list of 3 \(one per opponent seat\), got 5"),
    ({"num_players": 9}, "num_players"),
])
def test_bad_arguments_name_the_parameter(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        SingleAgentEnv("prowl", **{"num_players": 4, **kwargs})


def test_unknown_game_and_agent_spec_are_refused():
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("chess")
    with pytest.raises(ValueError, match="unknown agent spec"):
        SingleAgentEnv("prowl", opponents="grandmaster")


def test_pool_follows_saved_snapshots(tmp_path):
    """``set_snapshots`` loads new files only, drops the unlisted ones, keeps the newest."""
    from sb3_contrib import MaskablePPO

    from tests.toy_game import ToyState
    from training.selfplay import LearnerEnv, OpponentPool

    cfg = {"num_players": 2, "target": 10}
    pool = OpponentPool("toy", cfg, {"snapshot": 1.0}, max_snapshots=2)
    env = LearnerEnv(ToyState, cfg, pool)
    model = MaskablePPO("MlpPolicy", env, device="cpu", policy_kwargs={"net_arch": [8]})
    paths = []
    for i in range(3):
        model.save(tmp_path / f"snap_{i}")
        paths.append(tmp_path / f"snap_{i}.zip")
    assert env.set_snapshots(paths[:2]) == ["snap_0", "snap_1"]
    kept = pool.snapshots[1][1]
    assert env.set_snapshots(paths) == ["snap_1", "snap_2"]
    assert pool.snapshots[0][1] is kept                   # not loaded again
    env.reset()
    assert {kind for kind, _ in env.opponents.values()} == {"snapshot"}
    with pytest.raises(FileNotFoundError, match="no saved snapshot"):
        env.set_snapshots([tmp_path / "missing.zip"])
    with pytest.raises(ValueError, match="state class"):
        LearnerEnv(state_class("prowl"), cfg, pool)


def test_selfplay_over_two_worker_processes(tmp_path):
    """``--vec-env subproc``: two workers train a few hundred MaskablePPO steps; their pools
    start empty, so snapshot opponents in the episode log show the snapshots reached them, and
    the workers draw their own opponents (different pool seeds)."""
    from training.selfplay import main as selfplay_main

    args = ["--game", "prowl", "--run-dir", str(tmp_path), "--n-envs", "2", "--vec-env",
            "subproc", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
            "--net", "16", "--snapshot-every", "128", "--checkpoint-every", "10000",
            "--eval-games", "0", "--no-progress", "--imitation-games", "0",
            "--timesteps", "384", "--opponents", "snapshot=0.8,random=0.2"]
    assert selfplay_main(args) == 0
    state = json.loads((tmp_path / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] == 384 and len(state["snapshots"]) == 4
    with (tmp_path / "episodes.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) >= 10 and any("snapshot" in r["opponents"] for r in rows)


def test_worker_envs_have_pools_of_their_own():
    """The factories run in the workers: each env gets its own pool with its own generator."""
    from training.selfplay import worker_env_fns

    cfg = dict(state_class("prowl").from_config(0).config)
    args = argparse.Namespace(game="prowl", n_envs=2, pool_size=2, seed=0)
    pair = [fn() for fn in worker_env_fns(args, cfg, {"random": 1.0, "heuristic": 1.0})]
    assert pair[0].pool is not pair[1].pool
    assert [e._first_seat for e in pair] == [0, 1]
    draws = [[e.pool.sample() for _ in range(20)] for e in pair]
    assert draws[0] != draws[1]


def test_readme_example_runs(capsys):
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme.split("### Single-agent Gymnasium env", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})
    seat, reward, *returns = capsys.readouterr().out.replace("[", " ").replace("]", " ").split()
    assert float(reward) == float(returns[int(seat)]) and len(returns) == 4


def test_masks_read_from_infos_equal_the_envs_own():
    """The mask cache of ``--vec-env subproc`` answers ``action_masks`` as the envs would,
    across episode ends (auto-reset), for every env."""
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tests.toy_game import ToyState
    from training.selfplay import LearnerEnv, OpponentPool, masks_from_infos

    cfg = {"num_players": 3, "target": 10}
    pool = OpponentPool("toy", cfg, {"random": 1.0, "heuristic": 1.0})
    inner = DummyVecEnv([lambda i=i: LearnerEnv(ToyState, cfg, pool, seed=i, first_seat=i)
                         for i in range(3)])
    vec = masks_from_infos(inner)
    vec.reset()
    rng = np.random.default_rng(0)
    dones = partial = 0
    for _ in range(150):
        masks = get_action_masks(vec)
        partial += int((~masks.all(axis=1)).sum())
        np.testing.assert_array_equal(masks, np.stack(inner.env_method("action_masks")))
        actions = np.array([random_action(m, rng) for m in masks])
        dones += int(vec.step(actions)[2].sum())
    assert dones > 20 and partial > 10


@pytest.mark.parametrize("game", GAMES)
def test_copies_play_on_alike_and_never_move_the_original(game):
    """README "Copies": ``copy.copy`` (like ``copy.deepcopy`` and pickling) of the single-agent
    env mid-episode gives an env that plays on exactly like the original, and stepping it
    leaves the original's game where it was (``copy.copy`` shared the game and the opponents,
    so stepping the copy moved the original)."""
    import copy
    import pickle

    def play(env, info, horizon=30):
        rng = np.random.default_rng(1)
        out = []
        for _ in range(horizon):
            obs, reward, term, trunc, info = env.step(random_action(info["action_mask"], rng))
            out.append((obs.tobytes(), reward, term, trunc, info["action_mask"].tobytes()))
            if term or trunc:
                break
        return out

    for name, make in (("copy.copy", copy.copy), ("copy.deepcopy", copy.deepcopy),
                       ("pickle", lambda e: pickle.loads(pickle.dumps(e)))):
        env = SingleAgentEnv(game, num_players=_n(game), opponents="random", seat=0)
        obs, info = env.reset(seed=4)
        play(env, info, 1)
        info = {"action_mask": env.action_masks().astype(np.int8)}
        assert info["action_mask"].any(), f"{game}: the episode ended at once"
        history = list(env.state.history)
        copied = play(make(env), info)
        assert env.state.history == history, f"{game}: stepping a {name} moved the original"
        assert copied == play(env, info), f"{game}: a {name} plays on unlike the original"
