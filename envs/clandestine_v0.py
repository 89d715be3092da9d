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
* ``nemesis``: ``None`` or ``"most_holy"`` (the solo Nemesis, seated last; rulebook "Solo
  Play") with ``difficulty`` 1..6; ``num_players`` then counts the human seats (1: solo, or 2-4)
  and the env's agents are those seats only (the Nemesis is played by the rules).
  :func:`solo_env` (registered as ``cunning/clandestine_solo-v0``; Gymnasium
  ``cunning/ClandestineSolo-v0``) is one human against the Most Holy at difficulty 3.
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

#: the solo configuration's defaults (rulebook "Solo Play"; design §10)
SOLO_DEFAULTS = {"num_players": 1, "nemesis": "most_holy", "difficulty": 3}


def solo_env(**config):
    """``env(**config)`` with the solo defaults :data:`SOLO_DEFAULTS` (one human seat against
    the Most Holy at difficulty 3); any of them may be given to override it."""
    return env(**{**SOLO_DEFAULTS, **config})


__all__ = ["ClandestineState", "SOLO_DEFAULTS", "env", "parallel_env", "raw_env", "solo_env"]
