"""The turn-based parallel view of every game (``envs.<game>_v0.parallel_env``)."""

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

import envs

GAMES = {"prowl": 4, "badland_wolves": 3, "clans": 3, "clandestine": 3}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_parallel_api_and_active_agent_known_from_reset(game):
    mod = envs.env_module(game)
    parallel_api_test(mod.parallel_env(num_players=GAMES[game]), num_cycles=300)
    p = mod.parallel_env(num_players=GAMES[game])
    obs, infos = p.reset(seed=3)
    aec = envs.make_raw_env(game, num_players=GAMES[game])
    aec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        active = infos[p.agents[0]]["active_agent"]
        assert active == aec.agent_selection
        assert all(info["active_agent"] == active for info in infos.values())
        mask = obs[active]["action_mask"]
        assert mask.any()
        # only the acting agent's mask is non-zero
        assert not any(obs[a]["action_mask"].any() for a in obs if a != active)
        a = int(rng.choice(np.flatnonzero(mask)))
        obs, rewards, terms, truncs, infos = p.step({x: (a if x == active else None)
                                                     for x in p.agents})
        aec.step(a)
        assert np.array_equal(obs[active]["observation"], aec.observe(active)["observation"])
        if not p.agents or any(terms.values()) or any(truncs.values()):
            break
