"""Clandestine as a PettingZoo AEC environment (``clandestine_v0``; rules/clandestine.txt,
design/clandestine_content.md).

Config keywords (validated at construction, :class:`envs.core.ConfigError` otherwise; the full
list with allowed values is in docs/clandestine.md and :func:`envs.clandestine.spec.make_spec`):

* ``num_players``: 2, 3, 4 or 5 (default 3); ``societies``: ``None`` (drawn at set-up) or one
  distinct Society id per seat.
* ``basic_preset`` and the variant flags of design §11 (``conjunctions``, ``society_powers``,
  ``chaos``, ...).
* ``max_rounds``: the engine's round limit (an engine safeguard; the rulebook has none);
  ``margin_weight``, ``margin_scale``: the returns' score-margin term.
* ``render_mode``: ``None``, ``"ansi"`` or ``"human"``; ``max_cycles``.

Actions: ``Discrete(401)`` (design §1.7; docs/clandestine.md has the layout table). Observation:
float32 vector in [0, 1] described by :func:`envs.clandestine.engine.observation_layout`.
"""

from __future__ import annotations

from .clandestine.engine import ClandestineState
from .core.aec import GameAECEnv, make_env_fn, make_parallel_env_fn


class raw_env(GameAECEnv):
    """Unwrapped Clandestine AEC environment; keywords as in the module docstring."""

    state_class = ClandestineState
    metadata = {"name": "clandestine_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}


env = make_env_fn(raw_env)
parallel_env = make_parallel_env_fn(raw_env)

__all__ = ["ClandestineState", "env", "parallel_env", "raw_env"]
