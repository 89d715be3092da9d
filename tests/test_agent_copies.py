"""Copies of agents (CONVENTIONS.md: copies behave exactly like the original; agents that
remember things within a game are one instance per seat and game).

``copy.copy`` of a scripted agent is a deep copy (:class:`agents.base.OwnCopy`): it shares no
memory of the game and no random generator with the original, so playing one never moves the
other.
"""

import copy
import pickle

import numpy as np
import pytest

from agents import make_agent
from agents.base import act_with_state
from envs import env_module

GAMES = {"prowl": 4, "badland_wolves": 4, "clans": 3, "clandestine": 3}
MUTABLE = (np.ndarray, np.random.Generator, list, dict, set)


def _shared_mutables(a, b):
    """Names of attributes holding the same mutable object in ``a`` and ``b``."""
    return sorted(k for k, v in vars(a).items()
                  if isinstance(v, MUTABLE) and vars(b).get(k) is v)


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_a_copy_made_mid_game_acts_as_the_original_and_apart_from_it(game, spec):
    """Seat 0's agent is copied (copy.copy) and deep-copied at its 4th decision; from there to
    the end of the game the copy acts first, then the original, then the deep copy, on the
    same observations: all three choose the same action every time (a shared generator or
    memory would let the copy's draws move the original away from the deep copy), and the copy
    holds none of the original's mutable attributes."""
    n = GAMES[game]
    cls = env_module(game).raw_env.state_class
    checked = 0
    for g in range(2):
        state = cls(seed=300 + g, num_players=n)
        config = dict(state.config)
        players = [make_agent(spec, game, config, seed=10 * g + p) for p in range(n)]
        for a in players:
            a.reset()
        twin = deep = None
        decisions = 0
        while not state.is_over:
            p = state.current_player
            view = {"observation": state.observation_tensor(p),
                    "action_mask": state.legal_action_mask()}
            name = f"player_{p}"
            if p == 0:
                decisions += 1
                if decisions == 4:
                    twin, deep = copy.copy(players[0]), copy.deepcopy(players[0])
                    assert twin is not players[0]
                    assert _shared_mutables(players[0], twin) == []
                if twin is not None:
                    b = twin.act(view, name)
                    a = players[0].act(view, name)
                    assert deep.act(view, name) == a == b
                    checked += 1
                    state.apply_action(a)
                    continue
            state.apply_action(players[p].act(view, name))
    assert checked > 10


def test_a_copy_of_a_search_agent_shares_no_generator_or_tree():
    """ismcts:4 in Prowl: copy.copy and the original choose the same move at a decision after
    a few moves, and share no mutable attribute."""
    cls = env_module("prowl").raw_env.state_class
    state = cls(seed=5, num_players=4)
    agent = make_agent("ismcts:4", "prowl", dict(state.config), seed=1)
    others = [make_agent("random", "prowl", dict(state.config), seed=p) for p in range(1, 4)]
    seat0 = 0
    while not state.is_over:
        p = state.current_player
        view = {"observation": state.observation_tensor(p),
                "action_mask": state.legal_action_mask()}
        if p == 0:
            seat0 += 1
            if seat0 == 3:
                twin = copy.copy(agent)
                assert _shared_mutables(agent, twin) == []
                b = act_with_state(twin, view, "player_0", state)
                assert act_with_state(agent, view, "player_0", state) == b
                return
            state.apply_action(act_with_state(agent, view, "player_0", state))
        else:
            state.apply_action(others[p - 1].act(view, f"player_{p}"))
    pytest.fail("the game ended before seat 0's third decision")


@pytest.mark.parametrize("game", ["prowl", "clans"])
@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_copy_of_a_belief_heuristic_made_mid_game_plays_the_originals_moves(game, how):
    """heuristic:belief (it declares needs_state and keeps a tracker of the game; the Clans one
    a copy of the game and an opponents' model with one heuristic per seat) at seat 0 against
    heuristics: copied by ``how`` at its 3rd decision, the copy then acts first at each of
    seat 0's decisions and the original after it, and both play exactly the moves the
    original plays in the same game with no copy made (the pickled Clans agent failed before:
    its opponents' model held a lambda)."""
    copier = {"copy": copy.copy, "deepcopy": copy.deepcopy,
              "pickle": lambda a: pickle.loads(pickle.dumps(a))}[how]
    n = GAMES[game]
    cls = env_module(game).raw_env.state_class

    def play(copy_at):
        state = cls(seed=11, num_players=n)
        config = dict(state.config)
        agent = make_agent("heuristic:belief", game, config, seed=7)
        others = [make_agent("heuristic", game, config, seed=100 + p) for p in range(1, n)]
        for a in [agent] + others:
            a.reset()
        twin, mine, twins, decisions = None, [], [], 0
        while not state.is_over:
            p = state.current_player
            view = {"observation": state.observation_tensor(p),
                    "action_mask": state.legal_action_mask()}
            if p != 0:
                state.apply_action(others[p - 1].act(view, f"player_{p}"))
                continue
            decisions += 1
            if decisions == copy_at:
                twin = copier(agent)
            if twin is not None:
                twins.append(act_with_state(twin, view, "player_0", state.clone()))
            mine.append(act_with_state(agent, view, "player_0", state))
            state.apply_action(mine[-1])
        return mine, twins

    ref, _ = play(None)
    mine, twins = play(3)
    assert len(ref) > 8
    assert mine == ref
    assert twins == ref[2:]


@pytest.mark.parametrize("game,built,used", [
    ("prowl", 4, 3), ("prowl", 4, 5), ("clans", 3, 4), ("clans", 4, 2),
    ("badland_wolves", 4, 5), ("badland_wolves", 4, 3), ("clandestine", 3, 2)])
def test_a_heuristic_refuses_the_observation_of_another_player_count(game, built, used):
    """A heuristic (or a copy of it) made for ``built`` players, asked at the first decision
    with a choice of a ``used``-player game, refuses it naming both shapes: the Clans one read
    a 4-player observation with its 3-player layout and played on silently, the Prowl and
    Badland Wolves ones failed with an IndexError or an empty min()/max()."""
    cls = env_module(game).raw_env.state_class
    agent = copy.copy(make_agent("heuristic", game, dict(cls(seed=0, num_players=built).config),
                                 seed=0))
    agent.reset()
    _, p, view = _first_choice(game, used)
    with pytest.raises(ValueError, match=_other_count_refusal(view, built)):
        agent.act(view, f"player_{p}")


def _first_choice(game, players):
    """A ``players``-player game (seed 1) at its first decision with a choice: the state, the
    seat to act and its view."""
    state = env_module(game).raw_env.state_class(seed=1, num_players=players)
    while np.flatnonzero(state.legal_action_mask()).size < 2:
        state.apply_action(int(np.flatnonzero(state.legal_action_mask())[0]))
    p = state.current_player
    view = {"observation": state.observation_tensor(p), "action_mask": state.legal_action_mask()}
    return state, p, view


def _other_count_refusal(view, built):
    """The message of an agent made for ``built`` players refusing ``view``'s observation."""
    return (rf"observation of shape \({view['observation'].size},\)"
            rf", expected \(\d+,\) for {built} players")


@pytest.mark.parametrize("game,built,used", [
    ("prowl", 4, 3), ("prowl", 4, 5), ("clans", 4, 2), ("clans", 3, 4), ("clans", 2, 3)])
def test_a_belief_heuristic_refuses_the_observation_of_another_player_count(game, built, used):
    """``heuristic:belief`` made for ``built`` players, asked with the live state of a
    ``used``-player game, refuses it naming both shapes (the Clans one failed with an
    IndexError from its tracker's belief rows)."""
    cls = env_module(game).raw_env.state_class
    agent = make_agent("heuristic:belief", game,
                       dict(cls(seed=0, num_players=built).config), seed=0)
    state, p, view = _first_choice(game, used)
    with pytest.raises(ValueError, match=_other_count_refusal(view, built)):
        act_with_state(agent, view, f"player_{p}", state)
