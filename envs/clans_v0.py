"""Clans as a PettingZoo AEC environment (``clans_v0``; rules/clans.txt, design/clans.md).

Config keywords (validated at construction, :class:`envs.core.ConfigError` otherwise):

* ``num_players``: 2, 3, 4 or 5 (default 3; ruling 1). Always 5 clan colours, one per seat,
  secret; unused colours belong to nobody.
* ``epoch_chart``: ``"rulebook"`` (default; the rulebook's Player Reference table) or
  ``"board_2002"`` (the chart printed on the 2002 board) (ruling 2).
* ``reward``: ``"win_loss"`` (default; +1 each winner, -1 the others, 0 to all if every seat
  shares the win) or ``"score_margin"`` ((own score - best other score) / 20 clipped to
  [-1, 1]) (ruling 8).
* ``render_mode``: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``; ``max_cycles``.

Actions: ``Discrete(276)``: ids 0-269 move all huts along one directed adjacency, ids 270-275
order simultaneous villages (ruling 6). Observation: float32 vector described in
:mod:`envs.clans.engine` (docs/clans.md has the table).
"""

from __future__ import annotations

from .clans.engine import ClansState
from .core.aec import GameAECEnv, make_env_fn, make_parallel_env_fn


class raw_env(GameAECEnv):
    """Unwrapped Clans AEC environment; keywords as in the module docstring."""

    state_class = ClansState
    metadata = {"name": "clans_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}


env = make_env_fn(raw_env)
parallel_env = make_parallel_env_fn(raw_env)

__all__ = ["ClansState", "env", "parallel_env", "raw_env"]
