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


@pytest.mark.parametrize("game", sorted(GAMES))
def test_copies_play_on_alike_and_never_move_the_original(game):
    """README "Copies": ``copy.copy`` (like ``copy.deepcopy`` and pickling) of the parallel
    view gives an env that plays on exactly like the original, and stepping it leaves the
    original's game where it was (``copy.copy`` shared the AEC env inside)."""
    import copy
    import pickle

    def play(p, infos):
        rng = np.random.default_rng(2)
        out = []
        while p.agents and len(out) < 30:
            acts = {a: (int(rng.choice(np.flatnonzero(infos[a]["action_mask"])))
                        if infos[a]["action_mask"].any() else None) for a in p.agents}
            obs, rewards, terms, truncs, infos = p.step(acts)
            out.append((sorted((a, o["observation"].tobytes()) for a, o in obs.items()),
                        rewards, terms, truncs))
        return out

    for name, make in (("copy.copy", copy.copy), ("copy.deepcopy", copy.deepcopy),
                       ("pickle", lambda e: pickle.loads(pickle.dumps(e)))):
        p = envs.env_module(game).parallel_env(num_players=GAMES[game])
        obs, infos = p.reset(seed=5)
        history = list(p.aec_env.unwrapped.game.history)
        copied = play(make(p), infos)
        assert p.aec_env.unwrapped.game.history == history, \
            f"{game}: stepping a {name} moved the original"
        assert copied == play(p, infos), f"{game}: a {name} plays on unlike the original"
