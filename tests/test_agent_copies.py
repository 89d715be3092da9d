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


def _torch_only_policy(obs_dim=7, n_actions=5, seed=0):
    """A MaskablePPO MLP policy with ELU activations: off PolicyAgent's numpy path (torch acts)."""
    import gymnasium as gym
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(seed)
    space = gym.spaces.Box(0.0, 1.0, (obs_dim,), np.float32)
    return MaskableActorCriticPolicy(space, gym.spaces.Discrete(n_actions), lambda _: 1e-3,
                                     net_arch=[16], activation_fn=torch.nn.ELU)


def _policy_views(obs_dim, n_actions, count, seed=0):
    """``count`` observation dicts with random features and random masks of 2+ legal actions."""
    rng = np.random.default_rng(seed)
    views = []
    for _ in range(count):
        mask = (rng.random(n_actions) < 0.7).astype(np.int8)
        mask[rng.choice(n_actions, 2, replace=False)] = 1
        views.append({"observation": rng.random(obs_dim).astype(np.float32),
                      "action_mask": mask})
    return views


def test_a_sampling_policy_off_the_numpy_path_draws_from_its_own_generator():
    """A sampling PolicyAgent whose policy torch runs (ELU activations) draws from its own
    generator: with seed 0 it plays the same 60 moves alone, interleaved with a second sampling
    agent (seed 1) acting between its moves, and after torch's global seed is moved; before,
    it sampled with torch's global generator, which the second agent's construction reseeded
    and its draws advanced."""
    import torch

    from agents.learned import PolicyAgent

    policy = _torch_only_policy()
    views = _policy_views(7, 5, 60)
    alone = PolicyAgent(policy, deterministic=False, seed=0)
    assert alone._layers is None and alone._residual is None
    ref = [alone.act(v, "player_0") for v in views]
    assert all(v["action_mask"][a] for v, a in zip(views, ref))
    assert len(set(ref)) >= 3                       # it samples: not one argmax move

    mine = PolicyAgent(policy, deterministic=False, seed=0)
    other = PolicyAgent(policy, deterministic=False, seed=1)
    played, theirs = [], []
    for v in views:
        theirs.append(other.act(v, "player_1"))
        torch.manual_seed(123)
        played.append(mine.act(v, "player_0"))
    assert played == ref
    assert theirs != ref                           # another seed, another stream


def test_a_policy_samples_alike_on_the_torch_and_numpy_paths():
    """The same tanh MLP policy and seed sampled through the numpy fast path and through torch
    (the numpy layers removed) plays the same 200 moves: both draw from the agent's generator
    with the softmax of the legal logits."""
    import gymnasium as gym
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.learned import PolicyAgent

    torch.manual_seed(2)
    policy = MaskableActorCriticPolicy(gym.spaces.Box(0.0, 1.0, (7,), np.float32),
                                       gym.spaces.Discrete(5), lambda _: 1e-3, net_arch=[16])
    fast = PolicyAgent(policy, deterministic=False, seed=4)
    slow = PolicyAgent(policy, deterministic=False, seed=4)
    assert fast._layers is not None
    slow._layers = None
    views = _policy_views(7, 5, 200, seed=1)
    a = [fast.act(v, "player_0") for v in views]
    assert a == [slow.act(v, "player_0") for v in views]
    assert len(set(a)) >= 3


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_copy_of_a_sampling_policy_off_the_numpy_path_plays_the_originals_moves(how):
    """A sampling torch-path PolicyAgent copied by ``how`` after 20 of 60 moves: the copy acts
    first at each later move, the original after it, and both play the moves of an agent made
    alike with no copy (before, both drew from torch's global generator, so the copy's draws
    moved the original's)."""
    from agents.learned import PolicyAgent

    copier = {"copy": copy.copy, "deepcopy": copy.deepcopy,
              "pickle": lambda a: pickle.loads(pickle.dumps(a))}[how]
    policy = _torch_only_policy(seed=5)
    views = _policy_views(7, 5, 60, seed=2)
    ref_agent = PolicyAgent(policy, deterministic=False, seed=3)
    ref = [ref_agent.act(v, "player_0") for v in views]
    agent = PolicyAgent(policy, deterministic=False, seed=3)
    mine = [agent.act(v, "player_0") for v in views[:20]]
    twin = copier(agent)
    twins = []
    for v in views[20:]:
        twins.append(twin.act(v, "player_0"))
        mine.append(agent.act(v, "player_0"))
    assert mine == ref
    assert twins == ref[20:]
    assert len(set(ref[20:])) >= 3


def test_an_advised_policy_and_its_advisor_draw_different_streams():
    """The shipped advised Badland Wolves policy made with seed 5 (and its spawn with seed 9):
    its sampling generator and its advisor's heuristic generator (which breaks the heuristic's
    fallbacks) are not one stream, as they were when both were ``default_rng(seed)``; the
    advisor's stays ``default_rng(seed)``, so deterministic play is unchanged; the same seed
    gives the same streams again."""
    def first(gen):
        return copy.deepcopy(gen).integers(2**32, size=4).tolist()

    cfg = {"num_players": 4}
    agent = make_agent("ppo:badland_wolves", "badland_wolves", cfg, seed=5)
    again = make_agent("ppo:badland_wolves", "badland_wolves", cfg, seed=5)
    spawned = agent.spawn(9)
    for a, seed in ((agent, 5), (spawned, 9)):
        assert first(a.rng) != first(a.advisor.agent.rng)
        assert first(a.advisor.agent.rng) == first(np.random.default_rng(seed))
    assert first(again.rng) == first(agent.rng)
    assert first(again.advisor.agent.rng) == first(agent.advisor.agent.rng)
    assert first(spawned.rng) != first(agent.rng)


def _two_seat_views(game, n, seed=2):
    """The live state and view of the first two decisions with a choice of different seats."""
    state = env_module(game).raw_env.state_class(seed=seed, num_players=n)
    found = {}
    while len(found) < 2:
        p = state.current_player
        mask = state.legal_action_mask()
        if p not in found and np.flatnonzero(mask).size > 1:
            found[p] = (state.clone(), {"observation": state.observation_tensor(p),
                                        "action_mask": mask})
        state.apply_action(int(np.flatnonzero(mask)[0]))
    return list(found.items())


def _remembering_agents():
    """Agents that remember the game (spec label -> maker of a fresh 3-player Clans one)."""
    from agents import shipped_policy_path
    from agents.advice import Advisor
    from agents.learned import PolicyAgent
    from agents.llm import LanguageModelAgent

    cfg = {"num_players": 3}
    path = shipped_policy_path("clans")
    return {
        "heuristic": lambda: make_agent("heuristic", "clans", cfg, seed=0),
        "heuristic:belief": lambda: make_agent("heuristic:belief", "clans", cfg, seed=0),
        "advisor": lambda: _AdvisorAsAgent(Advisor("heuristic", "clans", cfg, seed=0)),
        "advised ppo": lambda: PolicyAgent.load(path, seed=0, game="clans", config=cfg),
        "llm": lambda: LanguageModelAgent(lambda prompt: "0", fallback="first"),
    }


class _AdvisorAsAgent:
    """An advisor called through ``act`` (its advice's first id), to test it like an agent."""

    def __init__(self, advisor):
        self.advisor = advisor

    def reset(self):
        self.advisor.reset()

    def act(self, observation, agent):
        return int(np.flatnonzero(self.advisor(observation, agent))[0])


@pytest.mark.parametrize("label", ["heuristic", "heuristic:belief", "advisor", "advised ppo",
                                   "llm"])
def test_an_agent_that_remembers_the_game_refuses_a_second_seat_until_reset(label):
    """An agent with memory of the game (Clans heuristic and its belief variant, a Clans
    advisor, the shipped advised Clans policy, the language-model agent), asked for player_A
    and then player_B of the same game, raises naming both and telling to use one instance
    per seat (it silently mixed the two seats' memories before); after reset() it plays
    player_B, and it keeps playing player_A as often as asked."""
    (pa, (sa, va)), (pb, (sb, vb)) = _two_seat_views("clans", 3)
    agent = _remembering_agents()[label]()
    agent.reset()
    first = act_with_state(agent, va, f"player_{pa}", sa)
    assert va["action_mask"][first] == 1
    assert act_with_state(agent, va, f"player_{pa}", sa) == first
    with pytest.raises(ValueError, match=(
            rf"acted for player_{pa} in this game and is now asked to act for player_{pb}: .*"
            r"one instance per seat \(or call reset\(\) between games\)")):
        act_with_state(agent, vb, f"player_{pb}", sb)
    agent.reset()
    assert vb["action_mask"][act_with_state(agent, vb, f"player_{pb}", sb)] == 1


@pytest.mark.parametrize("game,spec", [("prowl", "heuristic"), ("badland_wolves", "heuristic"),
                                       ("clandestine", "heuristic"), ("clans", "random"),
                                       ("prowl", "ppo:prowl")])
def test_a_memoryless_agent_may_act_for_several_seats(game, spec):
    """Agents that decide from the observation alone (the Prowl, Badland Wolves and
    Clandestine heuristics, random, a policy without advice) are not bound to a seat."""
    n = GAMES[game]
    (pa, (sa, va)), (pb, (sb, vb)) = _two_seat_views(game, n)
    agent = make_agent(spec, game, dict(sa.config), seed=0)
    agent.reset()
    assert not getattr(agent, "remembers_game", False)
    assert va["action_mask"][act_with_state(agent, va, f"player_{pa}", sa)] == 1
    assert vb["action_mask"][act_with_state(agent, vb, f"player_{pb}", sb)] == 1


def test_a_spawned_policy_is_not_bound_to_its_prototypes_seat():
    """PolicyAgent.spawn gives a new agent: not bound to the seat its prototype played."""
    (pa, (_, va)), (pb, (_, vb)) = _two_seat_views("clans", 3)
    proto = _remembering_agents()["advised ppo"]()
    assert proto.remembers_game
    proto.act(va, f"player_{pa}")
    child = proto.spawn(3)
    assert vb["action_mask"][child.act(vb, f"player_{pb}")] == 1
    with pytest.raises(ValueError, match=f"acted for player_{pb}"):
        child.act(va, f"player_{pa}")


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_copy_of_a_search_agent_with_a_heuristic_prior_plays_the_originals_moves(how):
    """ismcts with ``prior=heuristic`` in Clans (its prior is a Clans heuristic, which
    remembers the game's evidence and binds to its seat) at seat 0 against random players:
    copied by ``how`` at its 5th decision, the copy then acts first at each of seat 0's
    decisions and the original after it; both play, with the same prior moves and root
    statistics, exactly the moves the original plays in the same game with no copy made."""
    copier = {"copy": copy.copy, "deepcopy": copy.deepcopy,
              "pickle": lambda a: pickle.loads(pickle.dumps(a))}[how]
    cls = env_module("clans").raw_env.state_class

    def play(copy_at):
        state = cls(seed=5, num_players=3)
        agent = make_agent("ismcts:8:prior=heuristic:bias=2", "clans", dict(state.config),
                           seed=9)
        agent.reset()
        others = [make_agent("random", "clans", dict(state.config), seed=20 + p)
                  for p in range(3)]
        moves, twin, decisions = [], None, 0
        while not state.is_over and decisions < 14:
            p = state.current_player
            view = {"observation": state.observation_tensor(p),
                    "action_mask": state.legal_action_mask()}
            if p != 0:
                state.apply_action(others[p].act(view, f"player_{p}"))
                continue
            if decisions == copy_at:
                twin = copier(agent)
                assert twin._prior_agent is not agent._prior_agent
            b = None if twin is None else act_with_state(twin, view, "player_0", state)
            a = act_with_state(agent, view, "player_0", state)
            if twin is not None:
                assert (b, twin.last_prior_action, twin.last_stats) == (
                    a, agent.last_prior_action, agent.last_stats)
            moves.append((a, agent.last_prior_action))
            decisions += 1
            state.apply_action(a)
        return moves

    alone = play(copy_at=None)
    assert len(alone) == 14
    assert play(copy_at=4) == alone
