"""Cunning: PettingZoo AEC environments for hidden-role tabletop games.

Each game is a module ``envs.<game>_v0`` with ``env(**config)`` (PettingZoo's standard wrappers),
``raw_env`` and the engine's state class. This registry maps the short game names used on the
command line to those modules::

    from envs import make_env, GAMES
    e = make_env("prowl", num_players=4)     # same as envs.prowl_v0.env(num_players=4)

Importing ``envs`` also registers every game in PettingZoo's registry as ``cunning/<game>-v0``::

    import envs, pettingzoo
    e = pettingzoo.make("aec", "cunning/prowl-v0", num_players=4)

and with Gymnasium as the single-agent env ``cunning/<Game>-v0`` (one learning seat, the other
seats played by agents; :class:`envs.core.single_agent.SingleAgentEnv`)::

    import envs, gymnasium
    e = gymnasium.make("cunning/Prowl-v0", num_players=4, opponents=["heuristic"])

Solo play (Clandestine against its Nemesis, played by the rules) has ids of its own:
``cunning/clandestine_solo-v0`` (PettingZoo) and ``cunning/ClandestineSolo-v0`` (Gymnasium; one
human seat against the Most Holy at difficulty 3, keywords override).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

#: short game name -> environment module (imported on first use)
GAMES: dict[str, str] = {
    "prowl": "envs.prowl_v0",
    "badland_wolves": "envs.badland_wolves_v0",
    "clans": "envs.clans_v0",
    "clandestine": "envs.clandestine_v0",
}


#: solo-play ids (a game with a rules-driven Nemesis seat): PettingZoo id -> entry point. Their
#: Gymnasium single-agent ids are registered by ``envs.core.single_agent``.
SOLO_ENVS: dict[str, str] = {"cunning/clandestine_solo-v0": "envs.clandestine_v0:solo_env"}


def env_module(game: str) -> ModuleType:
    """The ``envs.<game>_v0`` module of ``game``.

    Raises:
        ValueError: unknown game (the message lists the known ones).
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(sorted(GAMES))}")
    return importlib.import_module(GAMES[game])


def make_env(game: str, **config: Any):
    """``env(**config)`` of ``game``: a wrapped PettingZoo AEC environment."""
    return env_module(game).env(**config)


def make_raw_env(game: str, **config: Any):
    """``raw_env(**config)`` of ``game``: the unwrapped environment."""
    return env_module(game).raw_env(**config)


def _register_with_pettingzoo() -> None:
    """Register each game as ``cunning/<game>-v0`` in PettingZoo's AEC registry (lazy import)."""
    import pettingzoo

    for game, module in GAMES.items():
        env_id = f"cunning/{game}-v0"
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
    for env_id, entry in SOLO_ENVS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=entry)


def _register_with_gymnasium() -> None:
    """Register each game as ``cunning/<Game>-v0`` in Gymnasium's registry (single-agent env)."""
    from envs.core.single_agent import register_gymnasium_envs

    register_gymnasium_envs()


_register_with_pettingzoo()
_register_with_gymnasium()
