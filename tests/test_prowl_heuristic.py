"""ProwlHeuristic: legal, observation-only decisions, and clearly stronger than random."""

import numpy as np

from agents import make_agent
from agents.base import RandomAgent
from agents.prowl_heuristic import ProwlHeuristic
from envs.prowl import ProwlState


def _play(n, games, seed0, **cfg):
    wins = 0
    for g in range(games):
        s = ProwlState(seed=seed0 + g, num_players=n, **cfg)
        hs = g % n                                   # seats rotated
        h = ProwlHeuristic(s.config, seed=g)
        r = RandomAgent(seed=g)
        while not s.is_terminal:
            p = s.current_player
            ob = {"observation": s.observation_tensor(p), "action_mask": s.legal_action_mask()}
            a = h.act(ob, f"player_{p}") if p == hs else r.act(ob, f"player_{p}")
            assert ob["action_mask"][a] == 1
            s.apply_action(a)
        wins += s.winner == hs
    return wins / games


def test_heuristic_beats_random_four_players():
    # measured 0.64 over 1,000 games (random baseline ~0.24); threshold set well below
    assert _play(4, 300, 5000) >= 0.45


def test_heuristic_beats_random_two_and_five_players():
    assert _play(2, 150, 6000) >= 0.65     # measured ~0.82
    assert _play(5, 150, 7000) >= 0.35     # measured ~0.54 (random ~0.19)


def test_heuristic_beginner_and_longer_hands_legal():
    assert _play(3, 60, 8000, beginner=True, cards_per_player=7) > 0.34


def test_heuristic_decides_from_observation_only():
    """Same observation (resampled hidden state) -> same action."""
    rng = np.random.default_rng(1)
    tested = 0
    for g in range(60):
        s = ProwlState(seed=g, num_players=4)
        for _ in range(int(rng.integers(0, 40))):
            if s.is_terminal:
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        if s.is_terminal:
            continue
        p = s.current_player
        r = s.resample_from_infostate(p, rng)
        a1 = ProwlHeuristic(s.config, seed=3).act(
            {"observation": s.observation_tensor(p), "action_mask": s.legal_action_mask()}, "")
        a2 = ProwlHeuristic(s.config, seed=3).act(
            {"observation": r.observation_tensor(p), "action_mask": r.legal_action_mask()}, "")
        assert a1 == a2
        tested += 1
    assert tested >= 50   # the positions skipped as terminal are few


def test_make_agent_builds_heuristic():
    s = ProwlState(seed=0, num_players=3)
    agent = make_agent("heuristic", "prowl", s.config, seed=1)
    assert isinstance(agent, ProwlHeuristic)
    agent.reset()
    a = agent.act({"observation": s.observation_tensor(s.current_player),
                   "action_mask": s.legal_action_mask()}, "player_0")
    assert s.legal_action_mask()[a] == 1


def test_heuristic_plays_with_a_swapped_in_clan():
    from tests.test_prowl_helpers import register_equinox
    register_equinox()
    # measured ~0.66 over 200 games
    assert _play(4, 80, 9000, clans=["Spring", "Equinox", "Autumn", "Winter"]) >= 0.40
