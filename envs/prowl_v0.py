"""Prowl: Clans & Cunning as a PettingZoo AEC environment (``cunning/prowl-v0``).

Config keywords (validated at construction, :class:`envs.core.ConfigError` names the parameter):

* ``num_players``: 2, 3, 4 or 5 (default 4).
* ``cards_per_player``: hand size dealt, integer >= 2 with ``num_players × cards_per_player``
  <= 32 (28 with ``beginner``); default 6 (5 rounds).
* ``beginner``: ``False`` (default) or ``True`` (Leader cards removed, 28 cards).
* ``clans``: list of 4 distinct registered clan names (default
  ``["Spring", "Summer", "Autumn", "Winter"]``).
* ``reward``: ``"win_loss"`` (default: +1 winner, −1 others, 0 to all with no winner) or
  ``"zero_sum"`` (winner +1, others −1/(n−1)).
* ``render_mode``: ``None``, ``"ansi"`` or ``"human"``; ``max_cycles``: ``None`` or int >= 1.

Observation and action tables: docs/prowl.md and :mod:`envs.prowl.engine`.
"""

from envs.core.aec import GameAECEnv, make_env_fn, make_parallel_env_fn
from envs.prowl.engine import ProwlState


class raw_env(GameAECEnv):
    """Unwrapped Prowl AEC environment (keywords: see the module docstring)."""

    state_class = ProwlState
    metadata = {"name": "prowl_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 1}


env = make_env_fn(raw_env)
parallel_env = make_parallel_env_fn(raw_env)

__all__ = ["ProwlState", "env", "parallel_env", "raw_env"]
