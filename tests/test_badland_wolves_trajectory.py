"""Trajectory hashes of Badland Wolves: speed work on the engine (``envs/badland_wolves/engine.py``),
the resampler (``resample.py``) or the search must leave every value unchanged.

Three kinds of SHA-256 hash (first 16 hex digits), each over seeded play:

- ``game``: a whole game through the AEC env with random (a ``np.random.default_rng(seed)``
  choice among the mask's legal ids) or heuristic seats: for every agent turn of
  ``agent_iter()`` the agent, its reward, termination and truncation flags, the action mask,
  the action taken, and every seat's observation vector (float32 bytes) at that point; the
  final returns and the game's chance log.
- ``worlds``: at positions of a seeded random game, worlds drawn by
  ``resample_from_infostate(seat, np.random.default_rng(...))`` for every seat: every field of
  the world's state (hands, decks, discards, tokens, knowledge tables, logs, history, the
  generator's state...), every seat's observation, the mask and ``current_player``, and the
  world's next few random actions (its future chance included).
- ``ismcts``: every action and chance outcome of a short game (``max_turns=8``; 40 in the slow
  variant) that ``ismcts:50`` seats (the Badland Wolves defaults) play against each other.

A change of the rules, of the observation or of the resampler's draws changes these on purpose:
regenerate the tables with ``python -m tests.test_badland_wolves_trajectory`` and say in the
commit why the values moved.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

from envs import make_env, make_raw_env

#: (num_players, seats ("random" / "heuristic"), seed) -> game hash
GAMES: dict[tuple[int, str, int], str] = {
    (3, 'random', 1): '91c5e20645e8e042',
    (3, 'random', 2): '2c0946ea9dd10831',
    (3, 'random', 3): '99462bcb298ea327',
    (3, 'heuristic', 1): '9a52626467a37daa',
    (3, 'heuristic', 2): '47106c76fbead93c',
    (3, 'heuristic', 3): 'aafcb3925561d4d7',
    (4, 'random', 1): 'b8d13009dd91d955',
    (4, 'random', 2): 'e12c100faa959063',
    (4, 'random', 3): '5dbe5c9525c917d4',
    (4, 'heuristic', 1): 'b0969987a82c93bb',
    (4, 'heuristic', 2): 'db6dca9c8ed79826',
    (4, 'heuristic', 3): 'a7aea3c0ace301f5',
    (5, 'random', 1): 'e63a4fc0cd762113',
    (5, 'random', 2): 'a46ff389f8174897',
    (5, 'random', 3): '44efa4834ba51870',
    (5, 'heuristic', 1): '983913334182a22a',
    (5, 'heuristic', 2): '2f814dc35a858d9f',
    (5, 'heuristic', 3): 'c35134166e08107a',
}
#: worlds_hash arguments (num_players, seats, seed, first stop, stops) -> worlds hash; the last
#: fast entry resamples late in a long five-wolf game, where the resampler's hinted steals and
#: local backtracking are used
WORLDS: dict[tuple[int, str, int, int, int], str] = {
    (3, 'random', 1, 0, 20): 'dca4ae7ab8d2e244',
    (3, 'random', 2, 0, 20): '6818cc6dfccbd5f4',
    (4, 'random', 1, 0, 20): '9a292615553b7b2c',
    (4, 'random', 2, 0, 20): 'c15e88e7fefd1526',
    (5, 'random', 1, 0, 20): 'f1c6bbe0a91fa1f2',
    (5, 'random', 2, 0, 20): 'e436693439225f0c',
    (4, 'heuristic', 1, 0, 40): '9bb770cc4ec026ca',
    (4, 'heuristic', 3, 0, 40): '2fb0308eb0266908',
    (5, 'heuristic', 1, 33, 35): 'def594d916f87ee6',
}
WORLDS_SLOW: dict[tuple[int, str, int, int, int], str] = {
    (5, 'heuristic', 1, 0, 40): '8bac03d9d263e0d4',
    (5, 'heuristic', 3, 0, 40): '3cf149ce3504f103',
    (5, 'heuristic', 5, 0, 40): '43a0600eed151ed5',
    (4, 'heuristic', 4, 0, 40): 'eb8bb17d6027899f',
    (3, 'heuristic', 1, 0, 40): '376916410eeb52fa',
}
#: ismcts_hash arguments (num_players, seed, max_turns) -> ismcts hash
ISMCTS: dict[tuple[int, int, int], str] = {
    (3, 7, 8): 'e88f0a51115477f2',
    (4, 7, 8): 'c0a3444d74abb05d',
    (5, 7, 8): 'a8102b3bd33da8af',
}
ISMCTS_SLOW: dict[tuple[int, int, int], str] = {
    (4, 9, 40): '5637ac1e9a672484',
}

#: fields of the state left out of the worlds hash: constant per player count
_CONSTANT = ("ids", "layout")


def _update_value(h: Any, value: Any) -> None:
    """Feed ``value`` (array, generator, list, tuple, dict, scalar) into hash ``h`` with its
    type and shape, so that equal bytes of different structure hash differently."""
    if isinstance(value, np.ndarray):
        h.update(f"nd{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, np.random.Generator):
        h.update(b"rng")
        h.update(repr(value.bit_generator.state).encode())
    elif isinstance(value, (list, tuple)) or type(value).__name__ == "deque":
        h.update(f"{type(value).__name__}{len(value)}[".encode())
        for x in value:
            _update_value(h, x)
        h.update(b"]")
    elif isinstance(value, dict):
        h.update(f"dict{len(value)}{{".encode())
        for k in sorted(value, key=repr):
            _update_value(h, k)
            _update_value(h, value[k])
        h.update(b"}")
    elif isinstance(value, (bool, np.bool_, int, np.integer, float, np.floating, str,
                            type(None))):
        h.update(f"{type(value).__name__}:{value!r};".encode())
    else:
        raise TypeError(f"no hash rule for a {type(value).__name__}")


def state_hash_update(h: Any, state: Any) -> None:
    """Every field of a Badland Wolves ``state`` (but its constant layouts and its cached mask)
    and every seat's view of it."""
    for key in sorted(state.__dict__):
        if key in _CONSTANT or key == "_mask":
            continue
        h.update(key.encode())
        _update_value(h, state.__dict__[key])
    for s in range(state.num_players):
        h.update(state.observation_tensor(s).tobytes())
    h.update(np.asarray(state.legal_action_mask()).tobytes())
    _update_value(h, state.current_player)


def game_hash(num_players: int, seats: str, seed: int) -> str:
    """The ``game`` hash (see the module docstring) of one seeded game."""
    from agents import make_agent
    from agents.base import act_with_state
    from envs.core.aec import seat_of

    env = make_env("badland_wolves", num_players=num_players)
    config = dict(env.unwrapped.game.config)
    rng = np.random.default_rng(seed)
    agents = [make_agent("heuristic", "badland_wolves", config, seed=seed + i)
              for i in range(num_players)] if seats == "heuristic" else None
    h = hashlib.sha256()
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        h.update(agent.encode())
        h.update(np.float64(reward).tobytes())
        h.update(bytes([bool(term), bool(trunc)]))
        if term or trunc:
            env.step(None)
            continue
        game = env.unwrapped.game
        for s in range(num_players):
            h.update(game.observation_tensor(s).tobytes())
        mask = obs["action_mask"]
        h.update(mask.tobytes())
        if agents is None:
            action = int(rng.choice(np.flatnonzero(mask)))
        else:
            action = int(act_with_state(agents[seat_of(agent)], obs, agent, game))
        h.update(action.to_bytes(2, "little"))
        env.step(action)
    game = env.unwrapped.game
    h.update(np.asarray(game.returns(), dtype=np.float64).tobytes())
    _update_value(h, game.chance_log)
    _update_value(h, game.history)
    return h.hexdigest()[:16]


def worlds_hash(num_players: int, seats: str, seed: int, first: int = 0, stops: int = 20,
                every: int = 40) -> str:
    """The ``worlds`` hash (see the module docstring): a game of seed ``seed`` (``seats``:
    "random" or "heuristic" play), stopped every ``every`` actions (``stops`` times, fewer if
    it ends), a world per seat at each stop from stop ``first`` on (resampler seed
    ``1000 * seed + 10 * stop + seat``) and six random actions in each world."""
    from agents import make_agent
    from envs.badland_wolves import BadlandWolvesState

    state = BadlandWolvesState(seed=seed, num_players=num_players)
    rng = np.random.default_rng(seed)
    agents = [make_agent("heuristic", "badland_wolves", dict(state.config), seed=seed + i)
              for i in range(num_players)] if seats == "heuristic" else None
    h = hashlib.sha256()
    for stop in range(stops):
        for _ in range(every):
            if state.is_over:
                break
            mask = state.legal_action_mask()
            if agents is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                p = state.current_player
                action = int(agents[p].act({"observation": state.observation_tensor(p),
                                            "action_mask": mask}, f"player_{p}"))
            state.apply_action(action)
        if state.is_over:
            break
        if stop < first:
            continue
        h.update(f"stop{stop}:{len(state.history)}".encode())
        for seat in range(num_players):
            world = state.resample_from_infostate(
                seat, np.random.default_rng(1000 * seed + 10 * stop + seat))
            state_hash_update(h, world)
            wrng = np.random.default_rng(seat)
            for _ in range(6):
                if world.is_over:
                    break
                world.apply_action(int(wrng.choice(np.flatnonzero(world.legal_action_mask()))))
            state_hash_update(h, world)
    return h.hexdigest()[:16]


def ismcts_hash(num_players: int, seed: int, max_turns: int = 8) -> str:
    """The ``ismcts`` hash: the actions (and chance outcomes) of a game of ``max_turns``
    Lead-Wolf turns at most, ``num_players`` ``ismcts:50`` seats."""
    from agents import make_agent
    from training.arena import play_game

    env = make_raw_env("badland_wolves", num_players=num_players, max_turns=max_turns)
    config = dict(env.game.config)
    agents = [make_agent("ismcts:50", "badland_wolves", config, seed=seed + i)
              for i in range(num_players)]
    _, _, _, record = play_game(env, agents, seed, keep_record=True)
    h = hashlib.sha256()
    _update_value(h, record["actions"])
    _update_value(h, record["chance"])
    return h.hexdigest()[:16]


@pytest.mark.parametrize("key", sorted(GAMES))
def test_game_hash(key: tuple[int, str, int]) -> None:
    assert game_hash(*key) == GAMES[key]


@pytest.mark.parametrize("key", sorted(WORLDS))
def test_worlds_hash(key: tuple[int, str, int, int, int]) -> None:
    assert worlds_hash(*key) == WORLDS[key]


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(WORLDS_SLOW))
def test_worlds_hash_slow(key: tuple[int, str, int, int, int]) -> None:
    assert worlds_hash(*key) == WORLDS_SLOW[key]


@pytest.mark.parametrize("key", sorted(ISMCTS))
def test_ismcts_hash(key: tuple[int, int, int]) -> None:
    assert ismcts_hash(*key) == ISMCTS[key]


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(ISMCTS_SLOW))
def test_ismcts_hash_slow(key: tuple[int, int, int]) -> None:
    assert ismcts_hash(*key) == ISMCTS_SLOW[key]


#: the keys of the tables (the hashes are computed on these)
GAME_KEYS = [(n, seats, seed) for n in (3, 4, 5) for seats in ("random", "heuristic")
             for seed in (1, 2, 3)]
WORLD_KEYS = [(3, "random", 1, 0, 20), (3, "random", 2, 0, 20), (4, "random", 1, 0, 20),
              (4, "random", 2, 0, 20), (5, "random", 1, 0, 20), (5, "random", 2, 0, 20),
              (4, "heuristic", 1, 0, 40), (4, "heuristic", 3, 0, 40),
              (5, "heuristic", 1, 33, 35)]
WORLD_SLOW_KEYS = [(5, "heuristic", seed, 0, 40) for seed in (1, 3, 5)] + [
    (4, "heuristic", 4, 0, 40), (3, "heuristic", 1, 0, 40)]
ISMCTS_KEYS = [(3, 7, 8), (4, 7, 8), (5, 7, 8)]
ISMCTS_SLOW_KEYS = [(4, 9, 40)]


def test_choose_index_is_rng_choice() -> None:
    """The resampler's weighted draw gives what ``rng.choice(n, p=w / w.sum())`` gives and
    leaves the generator in the same state, over many weight vectors (mostly 1 to 8 weights,
    summed in plain floats; up to 40, summed by numpy; equal, tiny and large ones)."""
    from envs.badland_wolves.resample import _choose_index

    src = np.random.default_rng(5)
    for case in range(12000):
        size = int(src.integers(1, 41)) if case % 4 == 0 else int(src.integers(1, 9))
        kind = case % 3
        w = (np.full(size, 0.25) if kind == 0 else src.random(size) + 1e-9 if kind == 1
             else src.integers(1, 7, size) / src.integers(1, 61))
        weights = [float(x) for x in w]
        a, b = np.random.default_rng(case), np.random.default_rng(case)
        got = _choose_index(weights, a)
        arr = np.array(weights)
        want = 0 if size == 1 else int(b.choice(size, p=arr / arr.sum()))
        assert got == want, (case, weights)
        assert a.bit_generator.state == b.bit_generator.state


def test_tables_hold_the_listed_keys() -> None:
    assert sorted(GAMES) == sorted(GAME_KEYS)
    assert sorted(WORLDS) == sorted(WORLD_KEYS)
    assert sorted(WORLDS_SLOW) == sorted(WORLD_SLOW_KEYS)
    assert sorted(ISMCTS) == sorted(ISMCTS_KEYS)
    assert sorted(ISMCTS_SLOW) == sorted(ISMCTS_SLOW_KEYS)


if __name__ == "__main__":  # print the tables
    import sys
    import time
    slow = "--slow" in sys.argv
    t = time.process_time()

    def took() -> str:
        global t
        dt, t = time.process_time() - t, time.process_time()
        return f"  # {dt:.1f} s"

    tables = [("GAMES", GAME_KEYS, game_hash), ("WORLDS", WORLD_KEYS, worlds_hash),
              ("ISMCTS", ISMCTS_KEYS, ismcts_hash)]
    if slow:
        tables += [("WORLDS_SLOW", WORLD_SLOW_KEYS, worlds_hash),
                   ("ISMCTS_SLOW", ISMCTS_SLOW_KEYS, ismcts_hash)]
    for name, keys, hash_of in tables:
        print(f"{name} = {{")
        for key in keys:
            print(f"    {key!r}: {hash_of(*key)!r},{took()}")
        print("}")
