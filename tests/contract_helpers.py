"""Helpers for the cross-game law tests: positions reached by seeded random play, traces.

Every helper takes a registered game name (``envs.GAMES``) and works from the game's state
class and env module only, so a new game is covered by registering it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import envs
from envs.core import ConfigError, GameState

#: player counts probed by :func:`player_counts`
_PROBE_COUNTS = range(1, 9)


def state_class(game: str) -> type[GameState]:
    """The engine state class of ``game``."""
    return envs.env_module(game).raw_env.state_class


def player_counts(game: str) -> list[int]:
    """The ``num_players`` values ``game`` accepts (probed in 1..8 through ``from_config``)."""
    cls = state_class(game)
    counts = []
    for k in _PROBE_COUNTS:
        try:
            cls.from_config(0, num_players=k)
        except ConfigError:
            continue
        counts.append(k)
    if not counts:
        raise ValueError(f"{game}: no player count in {list(_PROBE_COUNTS)} is accepted")
    return counts


def configs(game: str) -> list[dict[str, Any]]:
    """The configurations (besides ``num_players``) the random positions of ``game`` cycle
    through: ``tests.contract_hooks.CONFIGS`` or the defaults."""
    from tests.contract_hooks import CONFIGS

    return [dict(c) for c in CONFIGS.get(game, [{}])]


def random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A legal id drawn uniformly from ``mask`` (int8 (A,)). Raises ValueError if none is legal."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("no legal action in the mask")
    return int(legal[int(rng.integers(legal.size))])


def random_positions(game: str, n: int, seed: int) -> list[GameState]:
    """``n`` engine states of ``game`` reached by seeded uniform random play.

    Position ``i`` is played with ``num_players`` cycling over :func:`player_counts` (and, once
    per round of counts, the next of :func:`configs`): a whole
    random game is played from a fresh seed, then a depth is drawn uniformly from 0 to the
    game's length (both ends included: the start and the final state occur) and a fresh state
    with the same seed replays that many of the game's actions. Same ``(game, n, seed)``, same
    positions.
    """
    cls = state_class(game)
    counts = player_counts(game)
    variants = configs(game)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        game_seed = int(rng.integers(2**62))
        config = {"num_players": counts[i % len(counts)],
                  **variants[(i // len(counts)) % len(variants)]}
        s = cls.from_config(game_seed, **config)
        while not s.is_over:
            s.apply_action(random_action(s.legal_action_mask(), rng))
        actions = list(s.history)
        depth = int(rng.integers(len(actions) + 1))
        s = cls.from_config(game_seed, **config)
        for a in actions[:depth]:
            s.apply_action(a)
        out.append(s)
    return out


def random_env_positions(game: str, n: int, seed: int, wrapped: bool = True,
                         max_cycles: bool = False) -> list[Any]:
    """``n`` AEC envs of ``game`` (``envs.make_env``, or ``make_raw_env`` when not ``wrapped``)
    advanced by seeded random play through the AEC API from ``reset(seed=...)``.

    ``num_players`` cycles over :func:`player_counts`. The number of env steps is drawn
    uniformly from 0 to the length of a random game from that start, plus up to ``n_agents``
    dead steps, so envs in the start, middle, and the after-the-end phase (agents stepping
    ``None`` to leave) occur. With ``max_cycles`` every other env gets a ``max_cycles`` limit
    a few actions ahead, so continued play meets truncation by the env.
    """
    counts = player_counts(game)
    rng = np.random.default_rng(seed)
    make = envs.make_env if wrapped else envs.make_raw_env
    out = []
    for i in range(n):
        k = counts[i % len(counts)]
        config: dict[str, Any] = {"num_players": k}
        env = make(game, **config)
        env.reset(seed=int(rng.integers(2**31)))
        probe = env.unwrapped.game.clone()
        while not probe.is_over:
            probe.apply_action(random_action(probe.legal_action_mask(), rng))
        steps = int(rng.integers(len(probe.history) + k + 1))
        if max_cycles and i % 2 == 1:
            env = make(game, max_cycles=max(1, steps + int(rng.integers(1, 12))), **config)
            env.reset(seed=int(rng.integers(2**31)))
        for _ in range(steps):
            if not env.agents:
                break
            _, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else random_action(
                env.observe(env.agent_selection)["action_mask"], rng))
        out.append(env)
    return out


def state_trace(s: GameState, horizon: int, seed: int) -> list[tuple]:
    """Play ``s`` on by seeded random actions for at most ``horizon`` actions (stopping at the
    end) and record, before each action and at the end: the current player, whether the game
    is over, the returns, the mask and every seat's observation; then the action history. The
    chance outcomes drawn on the way show in the observations. Two states that behave alike
    give equal traces (see :func:`assert_traces_equal`)."""
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(horizon + 1):
        mask = s.legal_action_mask()
        trace.append((s.current_player, s.is_terminal, s.is_over, s.returns().tolist(),
                      mask.copy(), [s.observation_tensor(p) for p in range(s.num_players)]))
        if s.is_over or len(trace) > horizon:
            break
        s.apply_action(random_action(mask, rng))
    trace.append(("history", list(s.history)))
    return trace


def env_trace(env: Any, horizon: int, seed: int) -> list[tuple]:
    """Play an AEC env on by seeded random actions for ``horizon`` env steps (``None`` for done
    agents; once every agent has left, ``reset()`` *without* a seed starts the next episode from
    the env's own seed stream) and record at every step: the agent selected, the live agents,
    every seat's observation and mask, rewards, cumulative rewards, terminations, truncations
    and the mask in ``infos``."""
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(horizon):
        if not env.agents:
            env.reset()
            trace.append(("reset",))
        u = env.unwrapped
        sel = env.agent_selection
        obs = [env.observe(a) for a in env.possible_agents]
        trace.append((sel, list(env.agents), [o["observation"] for o in obs],
                      [o["action_mask"] for o in obs], dict(env.rewards),
                      dict(u._cumulative_rewards), dict(env.terminations),
                      dict(env.truncations),
                      {a: env.infos[a].get("action_mask") for a in env.agents}))
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else random_action(obs[env.possible_agents.index(sel)]
                                                          ["action_mask"], rng))
    return trace


def assert_traces_equal(expected: list, got: list, what: str) -> None:
    """Assert two traces (from :func:`state_trace` / :func:`env_trace`) are identical, naming
    the first step that differs."""
    assert len(got) == len(expected), f"{what}: trace lengths {len(got)} != {len(expected)}"
    for i, (a, b) in enumerate(zip(expected, got)):
        assert _equal(a, b), f"{what}: step {i} differs:\nexpected {a!r}\ngot      {b!r}"


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and bool(np.array_equal(a, b)))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_equal(x, y)
                                                               for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def sized_params(full: int, clandestine_fast: int) -> list:
    """``(game, size)`` parameters: every game at ``full``; Clandestine (games of ~1,400
    decisions, where the full size takes over a minute on one core) at ``clandestine_fast``,
    its full size a release check (marked exhaustive). The smaller run checks the same law."""
    out = []
    for g in sorted(envs.GAMES):
        if g == "clandestine":
            out += [pytest.param(g, full, marks=pytest.mark.exhaustive, id=f"{g}-{full}"),
                    pytest.param(g, clandestine_fast, id=f"{g}-{clandestine_fast}")]
        else:
            out.append(pytest.param(g, full, id=f"{g}-{full}"))
    return out
