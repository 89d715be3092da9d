"""The agent protocol shared by training opponents, evaluation and human play (CONVENTIONS.md)."""

from __future__ import annotations

import copy
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(observation, agent) -> int``; ``reset()`` is called before each game.

    ``observation`` is the PettingZoo observation dict of the acting agent:
    ``{"observation": float32 (D,), "action_mask": int8 (A,)}``; ``agent`` its name
    (``player_<seat>``). The returned id must be legal under ``action_mask``.

    Search agents extend this: a class attribute ``needs_state = True`` asks callers for the
    live game, given as ``act(observation, agent, state=<GameState>)`` (callers use
    :func:`act_with_state`).
    """

    name: str

    def act(self, observation: dict[str, np.ndarray], agent: str) -> int: ...

    def reset(self) -> None: ...


def act_with_state(agent: Agent, observation: dict[str, np.ndarray], name: str, state: Any) -> int:
    """``agent.act(observation, name)``, adding ``state=state`` for agents that search.

    An agent declaring ``needs_state = True`` (e.g. :class:`agents.ismcts.ISMCTSAgent`) is given
    the live game state as the keyword ``state``; it promises to learn about hidden information
    only through ``state.resample_from_infostate(<its seat>, rng)`` (CONVENTIONS.md, "Agents").
    Every other agent sees the observation only, as before.
    """
    if getattr(agent, "needs_state", False):
        return agent.act(observation, name, state=state)
    return agent.act(observation, name)


def seat_of_state(state: Any, agent: str, why: str) -> int:
    """The seat of ``agent`` (``player_<seat>``) in the live game ``state`` given to an agent
    declaring ``needs_state = True``.

    ``why`` opens the error for a missing ``state`` (what the agent uses the game for).

    Raises:
        ValueError: ``state`` is None (the caller did not use :func:`act_with_state`), or
            ``state`` is not at ``agent``'s decision.
    """
    if state is None:
        raise ValueError(f"{why}: call act(observation, agent, state=<GameState>) (see "
                         "agents.base.act_with_state)")
    seat = state.current_player
    if agent != f"player_{seat}":
        raise ValueError(f"state is at the decision of player_{seat}, not of {agent}")
    return seat


def legal_ids(observation: dict[str, np.ndarray]) -> np.ndarray:
    """Int64 array of the legal action ids in ``observation["action_mask"]``.

    Raises:
        ValueError: the mask has no legal action (no decision is due for this agent).
    """
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("the action mask has no legal action: no decision is due for this agent")
    return legal


def is_real_number(value: Any) -> bool:
    """Whether ``value`` is a real number (a Python or numpy int or float) and not a bool: the
    type check of the agents' numeric options before their range checks (a string or None
    would make a range check raise TypeError, and True would pass as 1)."""
    return isinstance(value, (int, float, np.integer, np.floating)) \
        and not isinstance(value, (bool, np.bool_))


class OwnCopy:
    """Mixin: ``copy.copy`` of an agent is a deep copy.

    A shallow copy would share the agent's memory of the game and its random generator with
    the original, so playing the copy (at another seat, or in a search) would move the
    original. With this mixin a copy behaves exactly like the original and independently of it
    (CONVENTIONS.md: copies behave like the original; agents that remember things within a
    game are one instance per seat and game).
    """

    def __copy__(self) -> Any:
        return copy.deepcopy(self)


class SeatBound:
    """Mixin for agents that remember things within a game: one instance per seat and game.

    Such an agent binds to the first agent name it acts for after construction or
    :meth:`unbind_seat` (its ``reset()`` calls it); being asked for another name before then
    raises, instead of silently mixing two seats' memories (CONVENTIONS.md, "Agents"). The
    check is :meth:`bind_seat`, called by the agent's ``act`` (and any other method that reads
    or updates its memory of the game) before anything else.

    Attributes:
        remembers_game: True for these agents (a wrapper such as an advisor reads it to know
            whether the agent it holds is bound to a seat).
        bound_agent: the agent name this instance acts for in the current game, None before
            its first call.
    """

    remembers_game = True
    bound_agent: str | None = None

    def bind_seat(self, agent: str) -> None:
        """Bind to ``agent`` on the first call of a game; later calls must name the same agent.

        Raises:
            ValueError: the instance already acted for another agent in this game (the message
                names both).
        """
        bound = self.bound_agent
        if bound is None:
            self.bound_agent = agent
        elif agent != bound:
            label = getattr(self, "name", type(self).__name__)
            raise ValueError(
                f"{label} acted for {bound} in this game and is now asked to act for {agent}: it "
                f"remembers the game, so use one instance per seat (or call reset() between "
                f"games)")

    def unbind_seat(self) -> None:
        """Forget the bound agent name (a new game starts)."""
        self.bound_agent = None


class RandomAgent(OwnCopy):
    """Uniform random choice over the legal actions.

    Args:
        seed: seed of the agent's own ``numpy.random.Generator``.
    """

    name = "random"

    def __init__(self, seed: int | None = None, **_: Any) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, observation: dict[str, np.ndarray], agent: str) -> int:
        """A legal action id drawn uniformly. Raises ValueError if none is legal."""
        return int(self.rng.choice(legal_ids(observation)))
