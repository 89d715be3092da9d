"""PettingZoo AEC environment of Badland Wolves (``cunning/badland_wolves-v0``).

Config keywords (validated at construction, :class:`envs.core.ConfigError` otherwise):

* ``num_players``: 3, 4 or 5 (default 4);
* ``max_turns``: positive int, Lead-Wolf turns before truncation (default 300);
* ``reward``: ``"win_loss"`` (default: +1 winner, -1 others) or ``"win_only"`` (+1 winner, 0
  others); truncated games give 0 to everyone;
* wrapper keywords: ``render_mode`` (``"ansi"``, ``"human"`` or ``None``), ``max_cycles``
  (``None`` or a positive int: actions per episode before every agent is truncated).

Observation: ``{"observation": float32 (D,), "action_mask": int8 (A,)}`` with D and A from
:func:`envs.badland_wolves.observation_layout` / :func:`envs.badland_wolves.action_layout`
(D = 96 + 51·P + 5·P², A = 20 + 17·P for P players). See ``docs/badland_wolves.md``.
"""

from envs.badland_wolves import BadlandWolvesState
from envs.core.aec import GameAECEnv, make_env_fn, make_parallel_env_fn


class raw_env(GameAECEnv):
    """Unwrapped Badland Wolves AEC environment (keywords as in the module docstring)."""

    state_class = BadlandWolvesState
    metadata = {"name": "badland_wolves_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 1}


env = make_env_fn(raw_env)
parallel_env = make_parallel_env_fn(raw_env)

__all__ = ["BadlandWolvesState", "env", "parallel_env", "raw_env"]
