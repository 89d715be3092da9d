"""The agent protocol shared by training opponents, evaluation and human play (CONVENTIONS.md)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(observation, agent) -> int``; ``reset()`` is called before each game.

    ``observation`` is the PettingZoo observation dict of the acting agent:
    ``{"observation": float32 (D,), "action_mask": int8 (A,)}``; ``agent`` its name
    (``player_<seat>``). The returned id must be legal under ``action_mask``.
    """

    name: str

    def act(self, observation: dict[str, np.ndarray], agent: str) -> int: ...

    def reset(self) -> None: ...


def legal_ids(observation: dict[str, np.ndarray]) -> np.ndarray:
    """Int64 array of the legal action ids in ``observation["action_mask"]``.

    Raises:
        ValueError: the mask has no legal action (no decision is due for this agent).
    """
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("the action mask has no legal action: no decision is due for this agent")
    return legal


class RandomAgent:
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
