"""Clandestine through PettingZoo: API, seeding, rendering, parallel API, truncation, registry."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

import envs
from envs.clandestine.engine import ClandestineState
from envs.clandestine_v0 import env, parallel_env, raw_env
from envs.core import ConfigError


def test_pettingzoo_api_seed_render():
    api_test(env(num_players=3), num_cycles=200)
    api_test(env(num_players=2, basic_preset=True), num_cycles=100)
    seed_test(lambda: env(num_players=4), num_cycles=100)
    render_test(lambda render_mode=None: env(render_mode=render_mode))


def test_parallel_api():
    parallel_api_test(parallel_env(num_players=3), num_cycles=200)


def test_registry_and_spaces():
    assert envs.GAMES["clandestine"] == "envs.clandestine_v0"
    assert "cunning/clandestine-v0" in pettingzoo.aec_registry
    e = envs.make_env("clandestine", num_players=4)
    e.reset(seed=1)
    obs, *_ = e.last()
    size = ClandestineState(seed=0, num_players=4).observation_size
    assert obs["observation"].shape == (size,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()
    assert e.action_space("player_0").n == 401
    t = raw_env(render_mode="ansi")
    t.reset(seed=2)
    assert isinstance(t.render(), str) and t.render()
    pic = raw_env(render_mode="rgb_array")
    pic.reset(seed=2)
    img = pic.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    with pytest.raises(ConfigError, match="render_mode"):
        raw_env(render_mode="svg")
    with pytest.raises(ConfigError, match="num_players"):
        env(num_players=6)


def _play(e, rng):
    last = {}
    for a in e.agent_iter():
        o, r, te, tr, _ = e.last()
        if te or tr:
            last[a] = (r, te, tr)
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return last


def test_max_cycles_truncates_every_agent_with_zero_reward():
    e = env(num_players=4, max_cycles=30)
    e.reset(seed=1)
    last = _play(e, np.random.default_rng(0))
    assert set(last) == {f"player_{i}" for i in range(4)}
    assert all(tr and not te and r == 0.0 for r, te, tr in last.values())
    assert e.unwrapped.num_steps == 30
