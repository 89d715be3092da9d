"""Per-configuration facts of a Clandestine game, fixed at construction and shared (frozen).

Rule sources: design ``clandestine_content.md`` §11 and the JSON ``variants`` (flags,
``basic_preset``, ``parameters``), §1.1 (Societies chosen per seat), ruling 2 (2-5 paths).

A :class:`ClandestineSpec` is what OpenSpiel calls the Game: the state, the observer and the
agents read their tables from it and never from a state. Build one with :func:`make_spec`, which
validates every keyword and raises :class:`~envs.core.errors.ConfigError` naming the keyword and
its allowed values.

Variant flags (design §11; every flag is also a keyword of the engine):

* ``basic_preset=True`` starts from the JSON ``variants.basic_preset`` values instead of the
  defaults; a flag given explicitly overrides either.
* The engine refuses (``ConfigError``) any flag value whose rules are not implemented yet; the
  allowed values are :data:`SUPPORTED_FLAG_VALUES`.
* ``nemesis`` (design §10, rulebook "Solo Play") is not a bool in practice: ``False``/``None`` (no
  Nemesis) or a Nemesis id, ``"most_holy"`` or ``"silver_guard"``; ``nemesis=True`` is refused
  (it does not say which Nemesis). With a Nemesis, ``num_players`` counts the human seats (1..4:
  solo, or the Nemesis added to 2-4 players) and ``difficulty`` (1..6) is required; the Nemesis
  takes the last seat, so the City has ``num_players + 1`` paths (:attr:`ClandestineSpec.num_players`
  counts every seat, the Nemesis included; :attr:`ClandestineSpec.humans` the human ones).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from envs.core.errors import ConfigError

from .city import MAX_PATHS, MIN_PATHS, load_content

_CONTENT = load_content()
#: Society ids in the JSON's order (``societies`` keys): mariners, garden, twilight, serpent, blue.
SOCIETIES: tuple[str, ...] = tuple(_CONTENT["societies"])
#: Variant flags in the JSON's order, and their default values.
FLAG_NAMES: tuple[str, ...] = tuple(f["flag"] for f in _CONTENT["variants"]["flags"])
FLAG_DEFAULTS: Mapping[str, bool] = MappingProxyType(
    {f["flag"]: bool(f["default"]) for f in _CONTENT["variants"]["flags"]})
BASIC_PRESET: Mapping[str, bool] = MappingProxyType(dict(_CONTENT["variants"]["basic_preset"]))
_PARAMS = _CONTENT["variants"]["parameters"]
#: The design's round limit (``variants.parameters.max_rounds``, 40): random play reaches it in
#: almost every game, and the rulebook has no round limit, so the engine's default is
#: :data:`DEFAULT_MAX_ROUNDS`.
DESIGN_MAX_ROUNDS = int(_PARAMS["max_rounds"]["default"])
#: The engine's default round limit (an engine safeguard, design §1.6; the rulebook has none):
#: chosen so that under uniformly random play no more than 1% of games reach it. Measured with
#: the limit lifted (480 seeded games, 60 per player count 2-5 x default / ``basic_preset``):
#: the longest game took 192 rounds (2 players, ``basic_preset``; mean 155), 152 at 2 players
#: by default, 110 / 87 at 3, 84 / 61 at 4 and 62 / 50 at 5 (docs/clandestine.md).
DEFAULT_MAX_ROUNDS = 250
DEFAULT_MARGIN_WEIGHT = float(_PARAMS["margin_weight"]["default"])
DEFAULT_MARGIN_SCALE = float(_PARAMS["margin_scale"]["default"])
NUM_ACTIONS = int(_CONTENT["decisions"]["num_actions"])

#: Flag values the engine implements now (the others raise ConfigError at construction).
SUPPORTED_FLAG_VALUES: Mapping[str, tuple[bool, ...]] = MappingProxyType({
    "conjunctions": (False, True),
    "society_powers": (False, True),
    "secret_options_b": (False, True),   # only matters once Secrets are played
    "relic_effects": (False, True),
    "deep_alchemy": (False, True),
    "ascension_tiles": (False, True),
    "first_to_level_effects": (False, True),  # only matters once Ascend gains Levels
    "chaos": (False, True),
    "map_extension": (False, True),      # only the Mariners' extend (a society power) fills it
    "hand_limits": (False, True),
    "offturn_alchemy": (False, True),
    "finite_pawns": (False, True),
    "nemesis": (False, True),  # True only through a Nemesis id (make_spec)
})
#: Nemesis ids (the JSON ``nemesis`` entries with Chambers), in a fixed order.
NEMESES: tuple[str, ...] = ("most_holy", "silver_guard")
#: Nemeses whose rules the engine implements now (the others raise ConfigError).
SUPPORTED_NEMESES: tuple[str, ...] = ("most_holy", "silver_guard")
#: Difficulties printed on the Difficulty cards (design §10.5).
DIFFICULTIES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)

@dataclass(frozen=True)
class ClandestineSpec:
    """Frozen configuration of one game (shared by states, observers and agents).

    Attributes:
        num_players: N seats = N City paths (2..5; design ruling 2), the Nemesis included.
        societies: the Society of each seat (First Player first, clockwise), or ``None`` when
            they are drawn at setup from the seed (chance event ``"societies"``).
        flags: every variant flag's value (read-only mapping, JSON order).
        basic_preset: whether the flags started from ``variants.basic_preset``.
        max_rounds: round limit (design §1.6); margin_weight, margin_scale: returns' margin term.
        nemesis: ``None`` or the Nemesis id of the last seat (design §10); difficulty: 1..6 with a
            Nemesis, else ``None``.
    """

    num_players: int
    societies: tuple[str, ...] | None
    flags: Mapping[str, bool]
    basic_preset: bool
    max_rounds: int
    margin_weight: float
    margin_scale: float
    nemesis: str | None = None
    difficulty: int | None = None

    @property
    def humans(self) -> int:
        """Number of human seats (every seat but a Nemesis): seats ``0..humans-1``."""
        return self.num_players - (self.nemesis is not None)

    @property
    def num_actions(self) -> int:
        """Size of the action space (design §1.7): 401 for every configuration."""
        return NUM_ACTIONS

    @property
    def num_spaces(self) -> int:
        """City spaces, ``9 N``."""
        return 9 * self.num_players

    @property
    def public_length(self) -> int:
        """Length of the Public loop, ``5 N``."""
        return 5 * self.num_players

    def flag(self, name: str) -> bool:
        """Value of variant flag ``name``.

        Raises:
            ValueError: unknown flag.
        """
        if name not in self.flags:
            raise ValueError(f"unknown Clandestine variant flag {name!r}; flags: {FLAG_NAMES}")
        return self.flags[name]

    def __copy__(self) -> ClandestineSpec:
        return self

    def __deepcopy__(self, memo) -> ClandestineSpec:
        return self

    def __reduce__(self):
        # rebuilt from its keywords (a mapping proxy cannot be pickled)
        return _spec_from_config, (self.config(),)

    def config(self) -> dict[str, Any]:
        """The JSON-serialisable keywords that rebuild this spec (for game records)."""
        out: dict[str, Any] = {"num_players": self.humans,
                               "societies": list(self.societies) if self.societies else None,
                               "basic_preset": self.basic_preset}
        out.update(self.flags)
        if self.nemesis is not None:
            out.update(nemesis=self.nemesis, difficulty=self.difficulty)
        out.update(max_rounds=self.max_rounds, margin_weight=self.margin_weight,
                   margin_scale=self.margin_scale)
        return out


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def make_spec(num_players: int = 3, societies: Sequence[str] | None = None,
              basic_preset: bool = False, max_rounds: int = DEFAULT_MAX_ROUNDS,
              margin_weight: float = DEFAULT_MARGIN_WEIGHT,
              margin_scale: float = DEFAULT_MARGIN_SCALE, difficulty: int | None = None,
              **flags: Any) -> ClandestineSpec:
    """Validate a configuration and return its :class:`ClandestineSpec`.

    Args:
        num_players: 2..5 without a Nemesis; the number of human seats 1..4 with one.
        societies: ``None`` (drawn at setup) or one distinct Society id per human seat, from
            :data:`SOCIETIES`.
        difficulty: 1..6, required with a Nemesis (design §10.5), refused without one.
        basic_preset: start the flags from ``variants.basic_preset``.
        max_rounds: integer >= 1. margin_weight: finite float >= 0. margin_scale: finite number > 0.
        flags: variant flags (:data:`FLAG_NAMES`) as ``True``/``False``, or ``None`` for the
            preset's value; ``nemesis`` is ``False``/``None`` or a Nemesis id (:data:`NEMESES`).

    Raises:
        ConfigError: any keyword outside its allowed values (the message names both), a flag
            value the engine does not implement yet.
    """
    nemesis = flags.pop("nemesis", None)
    if nemesis is True or (isinstance(nemesis, np.bool_) and nemesis):
        raise ConfigError(f"nemesis=True does not say which Nemesis: give one of {list(NEMESES)}")
    if nemesis is False or (isinstance(nemesis, np.bool_) and not nemesis):
        nemesis = None
    if nemesis is not None:
        if nemesis not in NEMESES:
            raise ConfigError(f"nemesis must be False, None or one of {list(NEMESES)}, "
                              f"got {nemesis!r}")
        if nemesis not in SUPPORTED_NEMESES:
            raise ConfigError(f"nemesis={nemesis!r} is not implemented yet; allowed now: "
                              f"{list(SUPPORTED_NEMESES)}")
        if isinstance(difficulty, (bool, np.bool_)) or not isinstance(
                difficulty, (int, np.integer)) or difficulty not in DIFFICULTIES:
            raise ConfigError(f"difficulty must be an integer in 1..6 with a Nemesis, "
                              f"got {difficulty!r}")
        difficulty = int(difficulty)
        lo, hi = MIN_PATHS - 1, MAX_PATHS - 1
    else:
        if difficulty is not None:
            raise ConfigError(f"difficulty={difficulty!r} needs a Nemesis (nemesis="
                              f"{' or '.join(map(repr, NEMESES))}); the solo ids "
                              "(cunning/ClandestineSolo-v0) set difficulty 3 by default, so "
                              "nemesis=None there needs difficulty=None too")
        lo, hi = MIN_PATHS, MAX_PATHS
    if isinstance(num_players, (bool, np.bool_)) or not isinstance(num_players, (int, np.integer)) \
            or not lo <= num_players <= hi:
        raise ConfigError(f"num_players must be an integer in {lo}..{hi}"
                          f"{' (human seats beside the Nemesis)' if nemesis else ''}, "
                          f"got {num_players!r}")
    n = int(num_players)
    if societies is not None:
        if isinstance(societies, str) or not isinstance(societies, (list, tuple)):
            raise ConfigError(f"societies must be None or a list of {n} Society ids, "
                              f"got {societies!r}")
        societies = tuple(societies)
        if len(societies) != n:
            raise ConfigError(f"societies: expected {n} entries (one per seat), got "
                              f"{len(societies)}")
        for i, s in enumerate(societies):
            if s not in SOCIETIES:
                raise ConfigError(f"societies[{i}] = {s!r} is not a Society; allowed: "
                                  f"{', '.join(SOCIETIES)}")
        if len(set(societies)) != n:
            raise ConfigError(f"societies {list(societies)}: each Society can be chosen once")
    preset = _check_bool("basic_preset", basic_preset)
    unknown = sorted(set(flags) - set(FLAG_NAMES))
    if unknown:
        raise ConfigError(f"unknown Clandestine keyword(s) {unknown}; variant flags are "
                          f"{list(FLAG_NAMES)}")
    values = dict(BASIC_PRESET if preset else FLAG_DEFAULTS)
    for name, v in flags.items():
        if v is not None:
            values[name] = _check_bool(name, v)
    values["nemesis"] = nemesis is not None
    if nemesis is not None and not values["ascension_tiles"]:
        raise ConfigError("a Nemesis needs ascension_tiles=True (its Ascension takes the "
                          "board's tiles, design §10.3)")
    for name in FLAG_NAMES:
        if values[name] not in SUPPORTED_FLAG_VALUES[name]:
            raise ConfigError(
                f"{name}={values[name]} is not implemented yet; allowed now: "
                f"{list(SUPPORTED_FLAG_VALUES[name])} (basic_preset=True gives a playable set)")
    if isinstance(max_rounds, (bool, np.bool_)) or not isinstance(max_rounds, (int, np.integer)) \
            or max_rounds < 1:
        raise ConfigError(f"max_rounds must be an integer >= 1, got {max_rounds!r}")
    if isinstance(margin_weight, bool) or not isinstance(margin_weight, (int, float, np.number)) \
            or not 0 <= margin_weight < float("inf"):
        raise ConfigError(f"margin_weight must be a finite number >= 0, got {margin_weight!r}")
    if isinstance(margin_scale, bool) or not isinstance(margin_scale, (int, float, np.number)) \
            or not 0 < margin_scale < float("inf"):
        raise ConfigError(f"margin_scale must be a finite number > 0, got {margin_scale!r}")
    return ClandestineSpec(num_players=n + (nemesis is not None), societies=societies,
                           flags=MappingProxyType({k: values[k] for k in FLAG_NAMES}),
                           basic_preset=preset, max_rounds=int(max_rounds),
                           margin_weight=float(margin_weight), margin_scale=float(margin_scale),
                           nemesis=nemesis, difficulty=difficulty)


def _spec_from_config(config: dict[str, Any]) -> ClandestineSpec:
    """:func:`make_spec` from :meth:`ClandestineSpec.config` (used by pickling)."""
    return make_spec(**config)
