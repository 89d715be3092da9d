"""Clans PettingZoo environment, configuration, information at the end (ruling 9) and the
resampler's uniformity. The record, resample, leak and copy laws are the shared contract suite's
(tests/test_contract_laws.py, tests/test_contract.py); Clans' own facts in a resample and its
hidden change (another seat's colour) are its hooks in tests/contract_hooks.py."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import make_env
from envs.clans import NUM_ACTIONS, ClansState
from envs.clans import board as B
from envs.clans_v0 import env, raw_env
from envs.core import ConfigError, IllegalActionError


def random_position(seed: int, num_players: int = 3, steps: int | None = None) -> ClansState:
    rng = np.random.default_rng(seed)
    s = ClansState(seed=seed, num_players=num_players)
    steps = int(rng.integers(0, 60)) if steps is None else steps
    for _ in range(steps):
        if s.is_terminal:
            break
        s.apply_action(int(rng.choice(s.legal_actions())))
    return s


def test_pettingzoo_api_seed_render():
    api_test(env(num_players=3), num_cycles=300)
    api_test(env(num_players=2, epoch_chart="board_2002"), num_cycles=100)
    seed_test(lambda: env(num_players=4), num_cycles=100)
    render_test(lambda render_mode=None: env(render_mode=render_mode))


def test_spaces_registry_and_rgb_render():
    e = make_env("clans", num_players=4)
    e.reset(seed=1)
    obs, *_ = e.last()
    assert obs["observation"].shape == (ClansState(num_players=4).observation_size,)
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert e.action_space("player_0").n == NUM_ACTIONS == 276
    r = raw_env(render_mode="rgb_array")
    r.reset(seed=2)
    img = r.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] > 300
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10
    t = raw_env(render_mode="ansi")
    t.reset(seed=2)
    assert "villages 0/12" in t.render()


def test_bad_config_named_with_allowed_values():
    with pytest.raises(ConfigError, match=r"num_players must be one of \[2, 3, 4, 5\]"):
        env(num_players=6)
    with pytest.raises(ConfigError, match="num_players"):
        ClansState(num_players=1)
    with pytest.raises(ConfigError, match="num_players"):
        ClansState(num_players=True)
    with pytest.raises(ConfigError, match="num_players"):
        ClansState(num_players=3.0)
    with pytest.raises(ConfigError, match="epoch_chart"):
        ClansState(epoch_chart=["rulebook"])
    with pytest.raises(ConfigError, match=r"epoch_chart must be one of \['board_2002', 'rulebook'\]"):
        env(epoch_chart="2002")
    with pytest.raises(ConfigError, match=r"reward must be one of \['win_loss', 'score_margin'\]"):
        env(reward="margin")
    assert ClansState(seed=0).config == {"num_players": 3, "epoch_chart": "rulebook",
                                        "reward": "win_loss"}
    for bad in (np.float64(3), np.bool_(True), "3", None):
        with pytest.raises(ConfigError, match="num_players"):
            ClansState(num_players=bad)
    with pytest.raises(ConfigError, match="reward"):
        ClansState(reward=("win_loss",))
    s = ClansState(seed=0, num_players=np.int64(4))
    assert s.config["num_players"] == 4 and type(s.config["num_players"]) is int


def test_illegal_actions_raise_naming_action_and_reason():
    s = random_position(4, steps=5)                 # at the start every move is legal
    assert not s.pending
    legal = set(s.legal_actions())
    bad = next(a for a in range(270) if a not in legal)
    with pytest.raises(IllegalActionError, match=f"action {bad} "):
        s.apply_action(bad)
    with pytest.raises(IllegalActionError, match="out of range"):
        s.apply_action(NUM_ACTIONS)
    with pytest.raises(IllegalActionError, match="integer"):
        s.apply_action(1.0)
    with pytest.raises(IllegalActionError, match="no ordering decision"):
        s.apply_action(272)
    e = raw_env()
    e.reset(seed=0)
    with pytest.raises(IllegalActionError):
        e.step(275)
    s = random_position(3, steps=500)
    assert s.is_terminal
    with pytest.raises(IllegalActionError, match="over"):
        s.apply_action(0)


def test_env_episode_rewards_are_the_engine_returns():
    e = raw_env(num_players=3, reward="score_margin")
    e.reset(seed=9)
    rng = np.random.default_rng(9)
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        totals[agent] += rew
        if term or trunc:
            e.step(None)
            continue
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    ret = e.game.returns()
    assert [totals[a] for a in e.possible_agents] == pytest.approx(ret.tolist())
    assert np.all(np.abs(ret) <= 1)


def test_resample_is_uniform_over_the_other_colours():
    s = ClansState(seed=5, num_players=2)
    rng = np.random.default_rng(0)
    own = int(s.colours[0])
    counts = np.zeros(5)
    for _ in range(4000):
        counts[s.resample_from_infostate(0, rng).colours[1]] += 1
    assert counts[own] == 0
    others = np.delete(counts, own) / 4000
    assert np.all(np.abs(others - 0.25) < 0.03)


def test_the_end_reveals_colours_and_nothing_else():
    """At the end (rulebook "End of Game") another seat's colour changed shows to every seat,
    and only in the revealed colours. (Before the end, the shared contract suite's leak law:
    the change leaves every other seat's observation identical.)"""
    ended = 0
    for k in range(100):
        n = 2 + k % 4
        s = random_position(2000 + k, num_players=n, steps=500)
        assert s.is_terminal
        for j in range(n):
            for i in range(n):
                if i == j:
                    continue
                before = s.observation_tensor(i)
                t = s.clone()
                free = [c for c in range(5) if c not in t.colours.tolist()]
                if free:                          # give seat j an unused colour
                    t.colours[j] = free[k % len(free)]
                else:                             # 5 players: swap j with a third seat
                    m = next(x for x in range(n) if x not in (i, j))
                    t.colours[[j, m]] = t.colours[[m, j]]
                diff = np.flatnonzero(t.observation_tensor(i) != before)
                rev = s.layout["revealed_colours"]
                assert diff.size and rev.start <= diff.min() and diff.max() < rev.stop
                ended += 1
    assert ended > 300


def test_hidden_truth_and_observation_contents():
    s = ClansState(seed=8, num_players=4)
    assert s.hidden_truth() == {"colours": [B.COLOURS[c] for c in s.colours]}
    json.dumps(s.hidden_truth())
    o = s.observation_tensor(2)
    lay = s.layout
    assert lay.view(o, "own_colour").argmax() == s.colours[2]
    assert lay.view(o, "to_act").argmax() == (s.turn - 2) % 4
    assert np.allclose(lay.view(o, "huts") * 12, s.huts)
    assert lay.view(o, "villages_formed")[0] == 1 and lay.view(o, "epoch")[0] == 1
    assert lay.view(o, "chips_left")[0] == 1
    assert np.array_equal(lay.view(o, "terrain").argmax(axis=1), B.AREA_TERRAIN)
    a = s.legal_actions()[0]
    mover = s.turn
    s.apply_action(a)
    o = s.observation_tensor(2)
    src = lay.view(o, "last_move_src")[(mover - 2) % 4]
    assert src.argmax() == B.EDGE_SRC[a] and src.sum() == 1
    moved = lay.view(o, "seat_colour_moved")[(mover - 2) % 4] * 360
    assert np.allclose(moved, s.huts[B.EDGE_DST[a]]) and moved.sum() == 2
    with pytest.raises(ValueError, match="seat"):
        s.observation_tensor(4)
