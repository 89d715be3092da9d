"""Cross-game laws every registered game obeys (CONVENTIONS.md), run over ``envs.GAMES``.

A game joins these tests by being registered. The engine laws (records, resampling, history
consistency, public history, leaks) are in ``tests/test_contract_laws.py``. Laws here:

* copies: ``copy.copy``, ``copy.deepcopy``, a pickle round-trip and ``clone()`` of an engine state
  and of an env (raw and wrapped) behave exactly like the original from then on: continued
  seeded random play gives identical observations of every seat, masks, returns (and, for envs,
  rewards, terminations, truncations, infos, and the next episodes drawn by ``reset()``), and
  playing a copy never moves the original (the copies are played first, the original last);
* freeing: created and dropped envs are freed (none alive by weak reference);
* opponents: every seat of every self-play env plays its own opponent instance, which decides
  exactly as a private instance fed the same observations.
"""

from __future__ import annotations

import copy
import gc
import pickle
import weakref

import numpy as np
import pytest

import envs
from agents import make_agent
from envs.core.aec import OrderEnforcingWrapper
from tests.contract_helpers import (
    assert_traces_equal, env_trace, player_counts, random_action, random_env_positions,
    random_positions, sized_params, state_class, state_trace,
)

GAMES = sorted(envs.GAMES)

#: every kind of copy the law covers
COPIES = {
    "copy.copy": copy.copy,
    "copy.deepcopy": copy.deepcopy,
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "clone": lambda x: x.clone(),
}

HORIZON = 24          # continued random actions after a copy (every 8th position: to the end)


def _check_state_copies(s, seed: int, horizon: int) -> None:
    copies = {name: make(s) for name, make in COPIES.items()}
    writeable = s.legal_action_mask().flags.writeable
    for name, c in copies.items():
        assert type(c) is type(s) and c is not s, name
        # a read-only cached mask stays read-only in the copy (editing it raises in both)
        assert c.legal_action_mask().flags.writeable == writeable, name
    traces = {name: state_trace(c, horizon, seed) for name, c in copies.items()}
    expected = state_trace(s, horizon, seed)     # the original last: copies must not move it
    for name, t in traces.items():
        assert_traces_equal(expected, t, f"{name} of {type(s).__name__} seed {s.seed} after "
                                         f"{len(s.history) - horizon}.. actions")


def _check_env_copies(e, seed: int, horizon: int) -> None:
    copies = {name: make(e) for name, make in COPIES.items()}
    for name, c in copies.items():
        assert type(c) is type(e) and c is not e and c.unwrapped is not e.unwrapped, name
        assert c.unwrapped.game is not e.unwrapped.game, name
    traces = {name: env_trace(c, horizon, seed) for name, c in copies.items()}
    expected = env_trace(e, horizon, seed)
    for name, t in traces.items():
        assert_traces_equal(expected, t, f"{name} of {type(e).__name__}")


def _state_law(game: str, n: int, seed: int) -> None:
    for i, s in enumerate(random_positions(game, n, seed)):
        _check_state_copies(s, seed + i, 10**6 if i % 8 == 0 else HORIZON)


def _env_law(game: str, n: int, seed: int) -> None:
    for wrapped in (True, False):
        for i, e in enumerate(random_env_positions(game, n, seed, wrapped=wrapped,
                                                   max_cycles=True)):
            _check_env_copies(e, seed + i, 2 * HORIZON)


@pytest.mark.parametrize("game,n", sized_params(64, 32))
def test_state_copies_behave_like_the_original(game, n):
    """Every kind of copy of 64 random states per game (all player counts) plays on alike
    (Clandestine's fast run: 32; ~45 s on one core at 64)."""
    _state_law(game, n, seed=11)


@pytest.mark.parametrize("game", GAMES)
def test_env_copies_behave_like_the_original(game):
    """Every kind of copy of 12 raw and 12 wrapped envs per game plays on alike (episode ends,
    dead steps, max_cycles truncation and the next reset() included)."""
    _env_law(game, 12, seed=12)


@pytest.mark.slow
# Clandestine's 300 states take ~3 minutes on one core: a release check; its slow run checks
# every kind of copy of 80 states (every 8th played on to the end)
@pytest.mark.parametrize("game,n", sized_params(300, 80))
def test_state_copies_behave_like_the_original_many(game, n):
    """Every kind of copy of 300 random states per game (80 in Clandestine's slow run) plays
    on alike."""
    _state_law(game, n, seed=21)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_env_copies_behave_like_the_original_many(game):
    _env_law(game, 50, seed=22)


@pytest.mark.parametrize("game", GAMES)
def test_copies_of_a_fresh_state_and_env_match_at_once(game):
    """Right after copying, before any action: same observations, masks and spaces."""
    for k in player_counts(game):
        s = state_class(game).from_config(5, num_players=k)
        e = envs.make_env(game, num_players=k)
        e.reset(seed=5)
        for name, make in COPIES.items():
            c = make(s)
            for p in range(k):
                np.testing.assert_array_equal(c.observation_tensor(p), s.observation_tensor(p))
            np.testing.assert_array_equal(c.legal_action_mask(), s.legal_action_mask())
            ce = make(e)
            assert isinstance(ce, OrderEnforcingWrapper), name
            for a in e.possible_agents:
                for key in ("observation", "action_mask"):
                    np.testing.assert_array_equal(ce.observe(a)[key], e.observe(a)[key])
                assert ce.observation_space(a) == e.observation_space(a)
                assert ce.action_space(a) == e.action_space(a)


@pytest.mark.parametrize("game", GAMES)
def test_a_copy_has_its_own_config(game):
    """``config`` (what ``to_record()`` names as the game's keywords) is the copy's own: an
    entry written into a copy's config is not in the original's record (``copy.copy`` and
    ``clone()`` of a Prowl state shared the dict)."""
    s = state_class(game).from_config(3, num_players=player_counts(game)[0])
    before = s.to_record()["config"]
    for name, make in COPIES.items():
        c = make(s)
        c.config["probe"] = name
        assert s.to_record()["config"] == before, f"{game}: {name} shares config"


# ------------------------------------------------------------------------------------------
# the reported Prowl inputs


def test_prowl_deepcopied_env_observes_hand_sizes():
    """Issue input: ``copy.deepcopy`` of a reset 2-player Prowl env observes the 6-card hands
    (hand-size entries 6/6 = 1.0 for both seats), as the original does."""
    from envs import prowl_v0

    e = prowl_v0.env(num_players=2)
    e.reset(seed=0)
    c = copy.deepcopy(e)
    hs = e.unwrapped.game.layout["hand_size"]
    for a in ("player_0", "player_1"):
        got = c.observe(a)["observation"]
        np.testing.assert_array_equal(got, e.observe(a)["observation"])
        assert got[hs.start:hs.stop].tolist() == [1.0, 1.0]


def test_prowl_deepcopied_state_follows_the_setup_action():
    """Issue input: ``ProwlState(seed=0, num_players=2)`` and its deepcopy both apply 73 (seat 1
    places Hooded Figure face-down as its clan card, Set-up step 5): seat 1 then holds 5 cards,
    seat 0 still 6, in both observations of both states."""
    from envs.prowl.engine import ProwlState

    s = ProwlState(seed=0, num_players=2)
    t = copy.deepcopy(s)
    assert s.current_player == 1 and s.action_to_string(73) == "Choose clan card Hooded Figure " \
                                                                "(Spring)"
    s.apply_action(73)
    t.apply_action(73)
    hs = s.layout["hand_size"]
    for p, expected in ((0, [1.0, 5 / 6]), (1, [5 / 6, 1.0])):   # relative seats: self first
        np.testing.assert_array_equal(t.observation_tensor(p), s.observation_tensor(p))
        np.testing.assert_allclose(t.observation_tensor(p)[hs.start:hs.stop], expected)
    # the copy's count arrays are views into its own buffer, not the original's
    assert np.shares_memory(t.hand, t._src) and not np.shares_memory(t._src, s._src)


# ------------------------------------------------------------------------------------------
# freeing


def test_env_freed_after_observation_space():
    """Issue input: asking for a space must not keep the env alive."""
    e = envs.make_env("prowl", num_players=4)
    e.observation_space("player_0")
    r = weakref.ref(e.unwrapped)
    del e
    gc.collect()
    assert r() is None


@pytest.mark.parametrize("game", GAMES)
def test_thousand_created_and_dropped_envs_are_freed(game):
    """1,000 envs per game, each reset, observed, asked for its spaces and stepped a little,
    then dropped: none is alive afterwards (raw env and wrapper)."""
    rng = np.random.default_rng(0)
    refs = []
    for i in range(1000):
        e = envs.make_env(game)
        e.reset(seed=i)
        for a in e.possible_agents:
            e.observation_space(a)
            e.action_space(a)
            e.observe(a)
        for _ in range(3):
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else random_action(obs["action_mask"], rng))
        refs.append((weakref.ref(e), weakref.ref(e.unwrapped)))
        del e, obs
    gc.collect()
    alive = sum(w() is not None or u() is not None for w, u in refs)
    assert alive == 0


@pytest.mark.parametrize("game", GAMES)
def test_copied_envs_are_freed_too(game):
    e = envs.make_env(game)
    e.reset(seed=3)
    refs = [weakref.ref(make(e).unwrapped) for make in COPIES.values()]
    gc.collect()
    assert all(r() is None for r in refs)


# ------------------------------------------------------------------------------------------
# opponents never share memory


class _Stream:
    """What one seat of one env asked of its opponent: every reset and decision, in order."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.events: list[tuple] = []

    def reset(self) -> None:
        self.events.append(("reset",))
        self.agent.reset()

    def act(self, observation, agent):
        a = self.agent.act(observation, agent)
        self.events.append(("act", {k: v.copy() for k, v in observation.items()}, agent, a))
        return a


def _private_twin(pool, game, config, label, seed):
    """A fresh private instance of opponent ``label`` with ``seed``, built without the pool."""
    from agents.learned import PolicyAgent

    if label in ("random", "heuristic"):
        return make_agent(label, game, config, seed=seed)
    return PolicyAgent(dict(pool.snapshots)[label].policy, deterministic=False, name=label,
                       seed=seed)


def _mismatches(pool, game, config, streams, made) -> int:
    """Decisions where a private twin (same label and seed as the instance that played the
    stream), fed only that stream's resets and observations, decides otherwise."""
    bad = 0
    for (_, _, label), st in streams.items():
        twin = _private_twin(pool, game, config, label, made[id(st.agent)])
        for ev in st.events:
            if ev[0] == "reset":
                twin.reset()
            elif twin.act(ev[1], ev[2]) != ev[3]:
                bad += 1
    return bad


def _play_interleaved(game, weights, with_snapshot, shared=False, learner_steps=60):
    """Two self-play envs sharing one opponent pool, stepped alternately with random learner
    actions. Returns ``(pool, config, streams, made)``: ``streams[(env, seat, label)]`` logs
    what that seat of that env asked of its opponent; ``made[id(agent)]`` is the seed each
    instance was built with. ``shared=True`` rebuilds the reported fault: the pool hands out
    one instance per opponent label for every seat and env; ``shared="unchecked"`` does so with
    the instances' check of their seat (``agents.base.SeatBound.bind_seat``) switched off."""
    from training.selfplay import LearnerEnv, OpponentPool

    cls = state_class(game)
    # the most seats the game takes, so that every opponent kind is drawn within a few games
    config = dict(cls.from_config(0, num_players=max(player_counts(game))).config)
    pool = OpponentPool(game, config, weights, seed=4)
    if with_snapshot:
        from sb3_contrib import MaskablePPO

        model = MaskablePPO("MlpPolicy", LearnerEnv(cls, config, pool), n_steps=64,
                            device="cpu", seed=0, policy_kwargs={"net_arch": [16]})
        pool.add_snapshot(model.policy, "snap")
    made: dict[int, int | None] = {}
    cache: dict[str, object] = {}
    pool_make = pool.make

    def make(label, seed=None):
        if shared and label in cache:
            return cache[label]
        agent = cache[label] = pool_make(label, seed)
        made[id(agent)] = seed
        if shared == "unchecked" and hasattr(agent, "bind_seat"):
            agent.bind_seat = lambda name: None
        return agent

    pool.make = make
    streams: dict[tuple, _Stream] = {}
    pair = [LearnerEnv(cls, config, pool, seed=s, first_seat=s) for s in (1, 2)]
    for i, env in enumerate(pair):
        def logged(seat, label, env=env, i=i, get=type(env).opponent_instance):
            key = (i, seat, label)
            if key not in streams:
                streams[key] = _Stream(get(env, seat, label))
            assert streams[key].agent is get(env, seat, label)
            return streams[key]

        env.opponent_instance = logged
    rng = np.random.default_rng(9)
    for env in pair:
        env.reset()
    for _ in range(learner_steps):
        for env in pair:
            _, _, term, trunc, _ = env.step(random_action(env.action_masks(), rng))
            if term or trunc:
                env.reset()
    return pool, config, streams, made


@pytest.mark.parametrize("game", GAMES)
def test_shared_pool_opponents_decide_as_private_ones(game):
    """Two envs interleaved with one pool: every (env, seat, opponent) has an instance of its
    own, and a private fresh instance with the same seed, fed only that seat's resets and
    observations, makes exactly the same decisions (random, heuristic and snapshot opponents)."""
    pool, config, streams, made = _play_interleaved(
        game, {"snapshot": 1.0, "random": 1.0, "heuristic": 2.0}, with_snapshot=True)
    assert {label for _, _, label in streams} == {"random", "heuristic", "snap"}
    assert {env for env, _, _ in streams} == {0, 1}
    assert sum(ev[0] == "act" for st in streams.values() for ev in st.events) > 50
    assert len({id(st.agent) for st in streams.values()}) == len(streams), \
        "an opponent instance plays two seats or two envs"
    assert _mismatches(pool, game, config, streams, made) == 0


def test_shared_clans_heuristic_is_refused_and_would_decide_otherwise():
    """One Clans heuristic playing every seat of both envs (the reported fault) is refused at
    its second seat (it remembers the game: agents.base.SeatBound); and the check above has
    teeth: with that refusal switched off, the shared heuristic decides otherwise than private
    instances fed the same observations."""
    with pytest.raises(ValueError, match=r"clans_heuristic acted for player_\d in this game and "
                                         r"is now asked to act for player_\d: .*one instance "
                                         r"per seat"):
        _play_interleaved("clans", {"heuristic": 1.0}, with_snapshot=False, shared=True)
    pool, config, streams, made = _play_interleaved(
        "clans", {"heuristic": 1.0}, with_snapshot=False, shared="unchecked")
    assert len({id(st.agent) for st in streams.values()}) == 1 and len(streams) >= 4
    assert _mismatches(pool, "clans", config, streams, made) > 0


@pytest.mark.parametrize("game", GAMES)
def test_evaluation_refuses_one_agent_at_two_seats(game):
    from training.arena import evaluate

    n = player_counts(game)[0]
    config = {"num_players": n}
    resolved = dict(state_class(game).from_config(0, **config).config)
    h = make_agent("heuristic", game, resolved, seed=0)
    with pytest.raises(ValueError, match="one instance per seat"):
        evaluate(game, ["heuristic"] * n, 1, config=config, agents=[h] * n)
