"""Clandestine content (``data/clandestine_content.json``) as frozen dataclasses, checked at load.

The JSON is the design's component data (design clandestine_content.md §0 maps its keys; §12 maps
the rulebook sections to them). :func:`load_content` reads it once (``functools.cache`` on the
module-level loader of the packaged file) and validates it: component counts, unique ids, every
cross-reference, enum values, and every effect compiled by :mod:`envs.clandestine.dsl`. Any
problem raises :class:`ContentError` (a ``ValueError``) naming the key path and the problem.

Entry points:

* :func:`load_content` ``(source=None) -> Content``: ``None`` = the packaged file (cached), or a
  path, or an already parsed dict (not cached; tests feed broken content this way).
* :class:`Content`: ``constants``, ``dsl`` (:class:`~envs.clandestine.dsl.DslSpec`),
  ``societies`` (id -> :class:`Society`), ``secrets`` (society -> 31 :class:`SecretCard`),
  ``conjunction_secrets``, ``relics`` (108 :class:`Relic`), ``conjunctions`` (24),
  ``ascension`` (:class:`Ascension`: 40 slots, 50 tiles, suit effects), ``relic_map``,
  ``actions``, ``procedures``, ``variants``, ``visibility``, ``decisions`` (the 401-action
  blocks of §1.7), ``scoring``, plus lookups (``relic(id)``, ``tile(id)``, ``secret(id)`` ...)
  and ``raw`` (the parsed JSON, for the sections read directly such as ``city`` and ``nemesis``;
  treat it as read-only).
* ``content.variants.config(basic=False, **overrides)``: every variant flag and parameter,
  checked; ``content.decisions.block("RELIC")`` / ``block_of(action)``: the action blocks.

Index orders used by the action space: ``Relic.index`` (R001 = 0), ``SecretCard.index`` (0..30,
31 = Conjunction Secret), ``Tile.index`` and ``BoardSlot.index`` (JSON order), ``Society.panels``
(TRADE block order), ``relic_map.map_order`` (MAP block order).

Records are frozen and shared by ``copy.deepcopy``; the packaged :class:`Content` pickles as a
reference to the file, so an engine state can hold it cheaply.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Mapping

from . import dsl
from .dsl import ContentError

DATA_PATH = Path(__file__).with_name("data") / "clandestine_content.json"

#: Component counts the content must have (rulebook "Components"; design rulings 1 and 8).
EXPECTED = {
    "relics": 108,
    "conjunctions": 24,
    "tiles": 50,
    "board_slots": 40,
    "secrets_per_society": 31,
    "secrets_per_level": (10, 8, 7, 6),
    "societies": 5,
    "num_actions": 401,
}
SOCIETY_IDS = ("mariners", "garden", "twilight", "serpent", "blue")
ACTION_NAMES = ("fundraise", "discover", "reveal", "ascend", "purge", "regroup", "revolt")
ALCHEMY_INPUTS = ("gold", "energy", "uf", "relic", "secret")
PANEL_TIMINGS = ("any", "own_turn")

__all__ = [
    "ContentError",
    "Content",
    "load_content",
    "DATA_PATH",
    "EXPECTED",
    "SOCIETY_IDS",
    "ACTION_NAMES",
]


# -------------------------------------------------------------------------------------- records
# Frozen records; tuple fields keep order, ``(key, value)`` tuples stand for small maps.

Effect = dsl.Effect


@dataclass(frozen=True)
class Constants(dsl.Immutable):
    """``constants``: component counts, suits, pawn Strength (Leaders 2, Followers 1), the
    end-of-turn Energy, the 6 Relic slots with Dark slots (3, 4), and the UF box count."""

    components: dict
    suits: tuple[str, ...]
    pawn_strength: dict
    end_of_turn_energy: int
    relic_slots_per_society: int
    dark_slots: tuple[int, ...]
    chambers_per_society: int
    uf_supply: int
    finite_pawns_default: bool
    resources_infinite: tuple[str, ...]


@dataclass(frozen=True)
class Trade(dsl.Immutable):
    """One alchemy trade: ``inputs`` ((input, n), ...) over gold/energy/uf/relic/secret; ``out``
    the effect. A ``uf`` input is consumed by the ``new_leader`` step (design §4)."""

    inputs: tuple[tuple[str, int], ...]
    out: Effect

    def cost(self, what: str) -> int:
        """How many of input ``what`` the trade takes (0 if none)."""
        return dict(self.inputs).get(what, 0)


@dataclass(frozen=True)
class Panel(dsl.Immutable):
    """An alchemy panel: ``id`` (any_time, assign, regroup, leader, a society panel, or
    ``conjunction``), ``timing`` (``any`` or ``own_turn``), 1-3 ``trades``."""

    id: str
    name: str
    timing: str
    trades: tuple[Trade, ...]


@dataclass(frozen=True)
class Chamber(dsl.Immutable):
    """A Chamber: ``id`` C1-C4, its Action (lower case), the Relic slots beside it."""

    id: str
    action: str
    relic_slots: tuple[int, ...]


@dataclass(frozen=True)
class RelicSlot(dsl.Immutable):
    """Relic slot 1-6, its Chamber, and whether it takes Dark Relics (slots 3 and 4)."""

    slot: int
    chamber: str
    dark_allowed: bool


@dataclass(frozen=True)
class DialStep(dsl.Immutable):
    """The Ascension dial at ``level``: cost of the next Level (None at V) and hand maxima."""

    level: int
    next_gold: int | None
    next_suits: int | None
    relic_max: int
    secret_max: int


@dataclass(frozen=True)
class ChaosMeter(dsl.Immutable):
    """The Chaos meter: ``slots``, end ``penalty`` per highest filled slot (index 0 = slot 1),
    ``black_top`` black slots at the top (alchemy blocked when one is filled)."""

    slots: int
    penalty: tuple[int, ...]
    black_top: int


@dataclass(frozen=True)
class Tokens(dsl.Immutable):
    """Alchemy tokens: ``total``, ``free`` at the start, ``locked`` ((token, cutout), ...)."""

    total: int
    free: int
    locked: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Cutout(dsl.Immutable):
    """A tableau leader cutout 1-4: Level gate and the token its unlock icon frees (or None)."""

    cutout: int
    min_level: int
    unlocks_token: int | None


@dataclass(frozen=True)
class Leaders(dsl.Immutable):
    """Society Leaders: 6 in all, 2 in the City at start, 4 in cutouts; Initiation trade cost;
    the reward once all cutouts are empty ((resource, n), ...)."""

    total: int
    in_city_at_start: int
    on_tableau: int
    cutouts: tuple[Cutout, ...]
    initiation_cost: tuple[tuple[str, int], ...]
    all_leaders_out_reward: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Society(dsl.Immutable):
    """One Society tableau (``societies.<id>``, design §5). ``panels`` are in the TRADE block
    order of §1.7 (0 Any Time, 1 Assignment, 2 Regroup, 3 Initiation, 4-5 society panels);
    ``abilities`` are ((id, text), ...); ``starts_with`` ((what, n), ...)."""

    id: str
    name: str
    colour: str
    mechanic: str
    starts_with: tuple[tuple[str, int], ...]
    chambers: tuple[Chamber, ...]
    relic_slots: tuple[RelicSlot, ...]
    dial: tuple[DialStep, ...]
    chaos: ChaosMeter
    tokens: Tokens
    leaders: Leaders
    panels: tuple[Panel, ...]
    abilities: tuple[tuple[str, str], ...]
    starting_tiles: tuple[str, ...]

    def panel(self, pid: str) -> Panel:
        """The panel with id ``pid``; KeyError if the Society has none."""
        for p in self.panels:
            if p.id == pid:
                return p
        raise KeyError(f"{self.id} has no panel {pid!r}")

    def ability_ids(self) -> tuple[str, ...]:
        """The ids of the Society's abilities (e.g. ``port_dues``)."""
        return tuple(a for a, _ in self.abilities)


@dataclass(frozen=True)
class Cost(dsl.Immutable):
    """A Secret option's cost, paid first (design §4 "Option")."""

    energy: int = 0
    gold: int = 0


@dataclass(frozen=True)
class SecretOption(dsl.Immutable):
    """Option ``label`` (A or B) of a Secret: its cost and effect."""

    label: str
    cost: Cost
    effect: Effect


@dataclass(frozen=True)
class Trap(dsl.Immutable):
    """A Serpent Keepers trap (design §6.2): ``self`` when the Keepers trigger it, else
    ``rival`` for the acting player then ``reward`` for the Keepers."""

    self: Effect
    rival: Effect
    reward: Effect


@dataclass(frozen=True)
class SecretCard(dsl.Immutable):
    """A Secret (``secrets.<society>[]`` or ``conjunction_secrets.<society>``). ``level`` 1-4, or
    5 for a Conjunction Secret (``conjunction`` True); ``index`` is the SECRET block index
    (0..30 in list order, 31 the Conjunction Secret); ``options`` (A, B)."""

    id: str
    name: str
    society: str
    level: int
    conjunction: bool
    index: int
    suits: tuple[str, ...]
    intrigue: int
    options: tuple[SecretOption, ...]
    templates: tuple[str, ...]
    trap: Trap | None
    trap_template: str | None

    def icons(self, suit: str) -> int:
        """Icons of ``suit`` on the card (what it pays towards an Ascend)."""
        return self.suits.count(suit)


@dataclass(frozen=True)
class Trigger(dsl.Immutable):
    """An eye trigger: on ``on`` (an event), ``timing`` before/after, perform ``effect``."""

    on: str
    timing: str
    effect: Effect


@dataclass(frozen=True)
class Eye(dsl.Immutable):
    """An eye header: ``mods`` ((mod, n), ...) active while held, and an optional trigger."""

    mods: tuple[tuple[str, int], ...]
    trigger: Trigger | None


@dataclass(frozen=True)
class Relic(dsl.Immutable):
    """A Relic (design §7). ``index`` 0..107 (RELIC block order); ``header`` plus/flag/eye with
    ``when`` + ``plus`` (effect), ``flag`` (an Amount scored at game end) or ``eye``."""

    id: str
    index: int
    name: str
    value: int
    tone: str
    suit: str
    icons: int
    alt_suit: str | None
    alt_icons: int
    intrigue: int
    header: str
    when: str | None
    plus: Effect | None
    flag: dsl.Amount | None
    eye: Eye | None

    @property
    def dark(self) -> bool:
        """Whether the Relic is Dark (slots 3 and 4 only; an alternate suit)."""
        return self.tone == "dark"

    def icons_of(self, suit: str) -> int:
        """Icons of ``suit``: a Dark Relic counts its primary or its alternate icons, whichever is
        larger for that suit (design §4 countable ``assigned_icons``)."""
        return max(
            self.icons if self.suit == suit else 0, self.alt_icons if self.alt_suit == suit else 0
        )


@dataclass(frozen=True)
class Conjunction(dsl.Immutable):
    """A Conjunction card (design §8): ``goal`` six suits in slot order, ``claim_effect`` at
    Level II, an optional alchemy ``panel`` (id ``conjunction``)."""

    id: str
    index: int
    name: str
    goal: tuple[str, ...]
    claim_effect: Effect
    panel: Panel | None


@dataclass(frozen=True)
class BoardSlot(dsl.Immutable):
    """An Ascension board slot (``id`` e.g. ``AII-Rod-L``; ``index`` = BOARD block order)."""

    id: str
    index: int
    level: int
    suit: str
    side: str
    start_tile: str | None
    empty_reward: Effect


@dataclass(frozen=True)
class Tile(dsl.Immutable):
    """An Ascension tile (design §9): ``kind`` board / first_to_level / starting, ``index`` =
    TILE block order; ``header`` flag (``flag`` Amount), eye (``eye``) or hood (``flip``)."""

    id: str
    index: int
    name: str
    kind: str
    level: int | None
    suit: str | None
    side: str | None
    society: str | None
    header: str
    flag: dsl.Amount | None
    eye: Eye | None
    flip: Effect | None


@dataclass(frozen=True)
class Ascension(dsl.Immutable):
    """The Ascension board: ``suit_map`` ((suit, effect name), ...), ``columns`` (suits left to
    right), ``suit_effects`` ((name, effect), ...), 40 ``board_slots``, 50 ``tiles``."""

    suit_map: tuple[tuple[str, str], ...]
    columns: tuple[str, ...]
    suit_effects: tuple[tuple[str, Effect], ...]
    board_slots: tuple[BoardSlot, ...]
    tiles: tuple[Tile, ...]

    def suit_effect(self, suit: str) -> Effect:
        """The effect others perform when someone is first to a Level paying ``suit``."""
        name = dict(self.suit_map)[suit]
        return dict(self.suit_effects)[name]


@dataclass(frozen=True)
class RelicMap(dsl.Immutable):
    """The Relic Map (design §3): Routes, row extra cost, Harbor, Extension slots and pricing,
    ``map_order`` (the MAP block order), end-of-turn refill text."""

    routes: tuple[str, ...]
    row_extra: tuple[int, ...]
    harbor_extra: int
    extension_slots: tuple[str, ...]
    extension_extra_opponents: int
    extension_extra_mariners: int
    cards_on_map: int
    map_order: tuple[str, ...]
    refill_end_of_turn: tuple[str, ...]


@dataclass(frozen=True)
class Phase(dsl.Immutable):
    """A phase of the turn machine (``procedures.phases``, design §1.2)."""

    phase: str
    who: str
    does: str
    next: str


@dataclass(frozen=True)
class Procedures(dsl.Immutable):
    """``procedures``: rule texts by topic, the phases, the 10-step ``action_resolution``."""

    setup: tuple[str, ...]
    turn: tuple[str, ...]
    phases: tuple[Phase, ...]
    action_resolution: tuple[str, ...]
    movement: tuple[str, ...]
    gain_level: tuple[str, ...]
    hand_limit: str
    conjunction_check: str
    end: str
    max_rounds_default: int
    end_reasons: tuple[str, ...]


@dataclass(frozen=True)
class VariantFlag(dsl.Immutable):
    """A variant flag (design §11): name, default, and what changes when switched."""

    flag: str
    default: bool
    text: str


@dataclass(frozen=True)
class Variants(dsl.Immutable):
    """``variants``: ``flags``, ``basic_preset`` ((flag, value), ...), ``parameters``
    ((name, default), ...) with their ``allowed`` texts."""

    flags: tuple[VariantFlag, ...]
    basic_preset: tuple[tuple[str, bool], ...]
    parameters: tuple[tuple[str, Any], ...]
    allowed: tuple[tuple[str, str], ...]

    def defaults(self) -> dict[str, bool]:
        """Flag name -> default value."""
        return {f.flag: f.default for f in self.flags}

    def basic(self) -> dict[str, bool]:
        """Flag name -> value in ``basic_preset``."""
        return dict(self.basic_preset)

    def config(self, basic: bool = False, **overrides: Any) -> dict[str, Any]:
        """A full variant configuration: every flag and parameter (design §11, §1.6).

        Args:
            basic: start from ``basic_preset`` instead of the defaults.
            **overrides: flag or parameter values to change (``chaos=False``, ``max_rounds=20``).

        Raises:
            ValueError: an unknown name, a flag that is not a bool, ``max_rounds`` not an int
                >= 1, ``margin_weight`` not a number >= 0, or ``margin_scale`` not > 0.
        """
        cfg: dict[str, Any] = self.basic() if basic else self.defaults()
        cfg.update(dict(self.parameters))
        for name, value in overrides.items():
            if name not in cfg:
                raise ValueError(f"unknown Clandestine variant {name!r}; known: {sorted(cfg)}")
            if name in dict(self.basic_preset):
                if not isinstance(value, bool):
                    raise ValueError(f"variant flag {name} must be True or False, got {value!r}")
            elif name == "max_rounds":
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise ValueError(f"max_rounds must be an integer >= 1, got {value!r}")
            else:
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and math.isfinite(value)
                if not ok or (value < 0 if name == "margin_weight" else value <= 0):
                    bound = ">= 0" if name == "margin_weight" else "> 0"
                    raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
            cfg[name] = value
        return cfg


@dataclass(frozen=True)
class Visibility(dsl.Immutable):
    """The information partition (design §1.5): (item, detail) pairs per class, hand model,
    public history and resampler texts."""

    public: tuple[tuple[str, str], ...]
    owner_private: tuple[tuple[str, str], ...]
    hidden_from_all: tuple[tuple[str, str], ...]
    hands: str
    public_history: tuple[str, ...]
    resampler: tuple[str, ...]


@dataclass(frozen=True)
class ActionBlock(dsl.Immutable):
    """A block of the action space: ids ``offset`` .. ``offset + size - 1``."""

    name: str
    offset: int
    size: int
    meaning: str

    @property
    def stop(self) -> int:
        """One past the block's last action id."""
        return self.offset + self.size


@dataclass(frozen=True)
class DecisionKind(dsl.Immutable):
    """A decision kind of §1.7 and the blocks it unmasks (text)."""

    kind: str
    blocks: str
    note: str


@dataclass(frozen=True)
class Decisions(dsl.Immutable):
    """The ``Discrete(num_actions)`` factoring of §1.7: 16 contiguous ``blocks``, ``kinds``,
    ``rules``."""

    num_actions: int
    blocks: tuple[ActionBlock, ...]
    kinds: tuple[DecisionKind, ...]
    rules: tuple[str, ...]

    @property
    def block_names(self) -> tuple[str, ...]:
        """The block names in offset order."""
        return tuple(b.name for b in self.blocks)

    def block(self, name: str) -> ActionBlock:
        """The block called ``name`` (e.g. ``"RELIC"``); KeyError if none."""
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(f"no action block {name!r}")

    def block_of(self, action: int) -> tuple[ActionBlock, int]:
        """(block, index within it) of action id ``action``; ValueError if out of range."""
        for b in self.blocks:
            if b.offset <= action < b.stop:
                return b, action - b.offset
        raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")


@dataclass(frozen=True)
class Scoring(dsl.Immutable):
    """``scoring``: the human categories in order, the Silver Guard pre-step, tie-break and
    returns texts ((key, text), ...)."""

    human: tuple[str, ...]
    silver_guard_pre_step: str
    tie_break: str
    returns: tuple[tuple[str, str], ...]


@dataclass(frozen=True, eq=False)
class Content(dsl.Immutable):
    """All Clandestine content, validated (see :func:`load_content`). Read-only by convention."""

    raw: Mapping[str, Any]
    constants: Constants
    dsl: dsl.DslSpec
    societies: dict[str, Society]
    secrets: dict[str, tuple[SecretCard, ...]]
    conjunction_secrets: dict[str, SecretCard]
    secret_templates: dict
    trap_templates: dict
    relics: tuple[Relic, ...]
    conjunctions: tuple[Conjunction, ...]
    ascension: Ascension
    relic_map: RelicMap
    actions: tuple[tuple[str, str], ...]
    procedures: Procedures
    variants: Variants
    visibility: Visibility
    decisions: Decisions
    scoring: Scoring

    def __post_init__(self):
        idx = {r.id: r for r in self.relics}
        idx.update({t.id: t for t in self.ascension.tiles})
        idx.update({j.id: j for j in self.conjunctions})
        for sid, cards in self.secrets.items():
            idx.update({c.id: c for c in cards})
            idx[self.conjunction_secrets[sid].id] = self.conjunction_secrets[sid]
        idx.update({s.id: s for s in self.ascension.board_slots})
        object.__setattr__(self, "_by_id", idx)
        object.__setattr__(self, "_packaged", False)

    def __reduce__(self):
        # pickled by reference to its source: the packaged file, or the raw document
        return (load_content, ()) if self._packaged else (build_content, (self.raw,))

    def _find(self, cid: str, cls: type, what: str):
        x = self._by_id.get(cid)
        if not isinstance(x, cls):
            raise KeyError(f"unknown {what} {cid!r}")
        return x

    def relic(self, rid: str) -> Relic:
        """The Relic ``rid`` (e.g. ``"R055"``); KeyError if unknown."""
        return self._find(rid, Relic, "relic")

    def tile(self, tid: str) -> Tile:
        """The Ascension tile ``tid``; KeyError if unknown."""
        return self._find(tid, Tile, "tile")

    def secret(self, sid: str) -> SecretCard:
        """The Secret ``sid`` (e.g. ``"blue-1-01"``, ``"blue-conj"``); KeyError if unknown."""
        return self._find(sid, SecretCard, "secret")

    def conjunction(self, jid: str) -> Conjunction:
        """The Conjunction ``jid`` (e.g. ``"J01"``); KeyError if unknown."""
        return self._find(jid, Conjunction, "conjunction")

    def board_slot(self, bid: str) -> BoardSlot:
        """The Ascension board slot ``bid`` (e.g. ``"AII-Rod-L"``); KeyError if unknown."""
        return self._find(bid, BoardSlot, "board slot")

    def society_secrets(self, society: str) -> tuple[SecretCard, ...]:
        """The Society's 31 Secrets then its Conjunction Secret (SECRET block order, 32 cards)."""
        return self.secrets[society] + (self.conjunction_secrets[society],)

    def all_effects(self) -> list[tuple[str, Effect]]:
        """Every compiled effect with a label: Secret options and traps, Relic '+' and eye
        triggers, Conjunction claims and trades, suit effects, empty-slot rewards, tile flips and
        triggers, panel trades."""
        out: list[tuple[str, Effect]] = []
        for sid in self.secrets:
            for c in self.society_secrets(sid):
                out += [(f"{c.id}.{o.label}", o.effect) for o in c.options]
                if c.trap:
                    out += [
                        (f"{c.id}.trap.{k}", getattr(c.trap, k))
                        for k in ("self", "rival", "reward")
                    ]
        for r in self.relics:
            if r.plus is not None:
                out.append((f"{r.id}.plus", r.plus))
            if r.eye is not None and r.eye.trigger is not None:
                out.append((f"{r.id}.eye", r.eye.trigger.effect))
        for j in self.conjunctions:
            out.append((f"{j.id}.claim", j.claim_effect))
            if j.panel:
                out += [(f"{j.id}.trade{i}", t.out) for i, t in enumerate(j.panel.trades)]
        out += [(f"suit_effect.{k}", e) for k, e in self.ascension.suit_effects]
        out += [(f"{s.id}.empty_reward", s.empty_reward) for s in self.ascension.board_slots]
        for t in self.ascension.tiles:
            if t.flip is not None:
                out.append((f"{t.id}.flip", t.flip))
            if t.eye is not None and t.eye.trigger is not None:
                out.append((f"{t.id}.eye", t.eye.trigger.effect))
        for s in self.societies.values():
            for p in s.panels:
                out += [(f"{s.id}.{p.id}.trade{i}", t.out) for i, t in enumerate(p.trades)]
        return out


@functools.cache
def _load_packaged() -> Content:
    with open(DATA_PATH, encoding="utf-8") as fh:
        content = build_content(json.load(fh))
    object.__setattr__(content, "_packaged", True)
    return content


def load_content(source: str | Path | Mapping[str, Any] | None = None) -> Content:
    """Load and validate Clandestine content.

    Args:
        source: ``None`` for the packaged ``data/clandestine_content.json`` (loaded once and
            cached), a path to a JSON file, or a parsed JSON object (a dict).

    Returns:
        The validated :class:`Content`.

    Raises:
        ContentError: the content breaks a count, id, reference, enum or DSL rule (the message
            names the key path); also for a file that is not valid JSON.
        OSError: the file cannot be read.
    """
    if source is None:
        return _load_packaged()
    if isinstance(source, Mapping):
        return build_content(source)
    with open(source, encoding="utf-8") as fh:
        try:
            raw = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ContentError(str(source), f"not valid JSON ({exc})") from None
    return build_content(raw)


# -------------------------------------------------------------------------------------- reading


class _Node:
    """A JSON value and its key path; every read checks type and range and names the path."""

    __slots__ = ("v", "path")

    def __init__(self, v: Any, path: str = ""):
        self.v, self.path = v, path

    def fail(self, problem: str):
        raise ContentError(self.path or "<root>", problem)

    def _child(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else key

    def __getitem__(self, key: str | int) -> "_Node":
        if isinstance(key, str):
            if not isinstance(self.v, Mapping):
                self.fail(f"expected an object, got {type(self.v).__name__}")
            if key not in self.v:
                raise ContentError(self._child(key), "missing")
        return _Node(self.v[key], self._child(key))

    def get(self, key: str, default: Any = None) -> "_Node":
        if not isinstance(self.v, Mapping):
            self.fail(f"expected an object, got {type(self.v).__name__}")
        return _Node(self.v.get(key, default), self._child(key))

    def int(self, lo: int | None = None, hi: int | None = None) -> int:
        v = self.v
        if not isinstance(v, int) or isinstance(v, bool):
            self.fail(f"expected an int, got {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(f"{v} is outside {lo}..{'' if hi is None else hi}")
        return v

    def str(self) -> str:
        if not isinstance(self.v, str):
            self.fail(f"expected a string, got {self.v!r}")
        return self.v

    def opt_str(self) -> str | None:
        return None if self.v is None else self.str()

    def list(self, n: int | None = None, what: str = "entries") -> list["_Node"]:
        if not isinstance(self.v, list):
            self.fail(f"expected a list, got {type(self.v).__name__}")
        if n is not None and len(self.v) != n:
            self.fail(f"expected {n} {what}, found {len(self.v)}")
        return [_Node(x, self._child(i)) for i, x in enumerate(self.v)]

    def items(self) -> list[tuple[str, "_Node"]]:
        if not isinstance(self.v, Mapping):
            self.fail(f"expected an object, got {type(self.v).__name__}")
        return [(k, _Node(x, self._child(k))) for k, x in self.v.items()]

    def enum(self, allowed) -> Any:
        if self.v not in allowed:
            self.fail(f"{self.v!r} is not one of {list(allowed)}")
        return self.v

    def strings(self) -> tuple[str, ...]:
        return tuple(x.str() for x in self.list())


def _unique(ids, node: _Node, what: str) -> None:
    seen = set()
    for i in ids:
        if i in seen:
            node.fail(f"duplicate {what} id {i!r}")
        seen.add(i)


def _counts(node: _Node, keys) -> tuple[tuple[str, int], ...]:
    """An object of key -> int >= 0 with keys from ``keys``, as ((key, n), ...)."""
    return tuple((k, x.int(0)) for k, x in node.items() if _Node(k, x.path).enum(keys))


class _Builder:
    """Turns the parsed JSON into records; one method per section (design §0 key map)."""

    def __init__(self, raw: Mapping[str, Any]):
        if not isinstance(raw, Mapping):
            raise ContentError("<root>", f"content must be a JSON object, got {type(raw).__name__}")
        self.root = _Node(raw)
        self.suits = self.root["constants"]["suits"].strings()
        if sorted(self.suits) != sorted(SUITS):
            self.root["constants"]["suits"].fail(f"expected the suits {list(SUITS)}")
        dsl_node = self.root["dsl"]
        if not isinstance(dsl_node.v, Mapping):
            dsl_node.fail("expected an object")
        self.spec = dsl.DslSpec.from_json(dsl_node.v, self.suits)

    def effect(self, n: _Node) -> dsl.Effect:
        return dsl.compile_effect(n.v, self.spec, n.path)

    def amount(self, n: _Node) -> dsl.Amount:
        return dsl.compile_amount(n.v, self.spec, n.path)

    def suit(self, n: _Node) -> str:
        return n.enum(self.suits)

    def constants(self) -> Constants:
        c = self.root["constants"]
        comp = c["components"]
        for key, want in (
            ("relics", "relics"),
            ("conjunctions", "conjunctions"),
            ("ascension_tiles", "tiles"),
            ("societies", "societies"),
            ("secrets_per_society", "secrets_per_society"),
        ):
            if comp[key].int() != EXPECTED[want]:
                comp[key].fail(f"expected {EXPECTED[want]}, got {comp[key].v}")
        supply = c["pawn_supply"]
        return Constants(
            components=dict(comp.v),
            suits=self.suits,
            pawn_strength={k: x.int(0) for k, x in c["pawn_strength"].items()},
            end_of_turn_energy=c["end_of_turn_energy"].int(0),
            relic_slots_per_society=c["relic_slots_per_society"].int(6, 6),
            dark_slots=tuple(x.int(1, 6) for x in c["dark_slots"].list()),
            chambers_per_society=c["chambers_per_society"].int(4, 4),
            uf_supply=supply["universal_followers"].int(0),
            finite_pawns_default=bool(supply["finite_by_default"].v),
            resources_infinite=c["resources_infinite"].strings(),
        )

    def panel(self, p: _Node, pid: str, name: str) -> Panel:
        trades = []
        for t in p["trades"].list():
            ins = tuple(
                (k, x.int(1)) for k, x in t["in"].items() if _Node(k, x.path).enum(ALCHEMY_INPUTS)
            )
            trades.append(Trade(ins, self.effect(t["out"])))
        if not 1 <= len(trades) <= 3:
            p["trades"].fail(f"a panel has 1-3 trades, found {len(trades)}")
        return Panel(pid, name, p["timing"].enum(PANEL_TIMINGS), tuple(trades))

    def society(self, sid: str, s: _Node, tiles: Mapping[str, Tile]) -> Society:
        if s["id"].v != sid:
            s["id"].fail(f"{s['id'].v!r} differs from its key {sid!r}")
        chambers = tuple(
            Chamber(
                c["id"].enum(CHAMBERS),
                _Node(c["action"].str().lower(), c["action"].path).enum(ACTION_NAMES),
                tuple(x.int(1, 6) for x in c["relic_slots"].list()),
            )
            for c in s["chambers"].list(4, "chambers")
        )
        if tuple(c.id for c in chambers) != CHAMBERS:
            s["chambers"].fail("must be C1, C2, C3, C4 in order")
        by_chamber = {c.id: c for c in chambers}
        slots = []
        for k, r in enumerate(s["relic_slots"].list(6, "relic slots"), start=1):
            slot = RelicSlot(
                r["slot"].int(), r["chamber"].enum(CHAMBERS), bool(r["dark_allowed"].v)
            )
            if slot.slot != k or k not in by_chamber[slot.chamber].relic_slots:
                r.fail(f"slot {slot.slot} at position {k} in chamber {slot.chamber}")
            slots.append(slot)
        if tuple(r.slot for r in slots if r.dark_allowed) != tuple(
            self.root.v["constants"]["dark_slots"]
        ):
            s["relic_slots"].fail("the Dark slots differ from constants.dark_slots")
        dial = tuple(
            DialStep(
                d["level"].int(1, 5),
                d.get("next_gold").v,
                d.get("next_suits").v,
                d["relic_max"].int(0),
                d["secret_max"].int(0),
            )
            for d in s["dial"].list(5, "dial steps")
        )
        if (
            [d.level for d in dial] != [1, 2, 3, 4, 5]
            or dial[4].next_gold is not None
            or any(
                not isinstance(d.next_gold, int) or not isinstance(d.next_suits, int)
                for d in dial[:4]
            )
        ):
            s["dial"].fail("must be Levels 1-5 with Gold and suit costs for 1-4 and none at 5")
        ch = s["chaos"]
        meter = ChaosMeter(
            ch["slots"].int(1),
            tuple(x.int(0) for x in ch["penalty"].list()),
            ch["black_top"].int(0),
        )
        if len(meter.penalty) != meter.slots or meter.black_top > meter.slots:
            ch.fail(f"penalty has {len(meter.penalty)} entries for {meter.slots} slots")
        ld = s["leaders"]
        cutouts = tuple(
            Cutout(c["cutout"].int(1, 4), c["min_level"].int(1, 5), c.get("unlocks_token").v)
            for c in ld["cutouts"].list(4, "cutouts")
        )
        if [c.cutout for c in cutouts] != [1, 2, 3, 4]:
            ld["cutouts"].fail("must be cutouts 1-4 in order")
        tk = s["tokens"]
        locked = tuple(
            (x["token"].int(1), x["unlocked_by_cutout"].int(1, 4)) for x in tk["locked"].list()
        )
        tokens = Tokens(tk["total"].int(1), tk["free"].int(0), locked)
        if tokens.free + len(locked) != tokens.total:
            tk.fail(f"free {tokens.free} + locked {len(locked)} != total {tokens.total}")
        for tok, cut in locked:
            if cutouts[cut - 1].unlocks_token != tok:
                tk["locked"].fail(f"token {tok} is not unlocked by cutout {cut}")
        leaders = Leaders(
            ld["total"].int(1),
            ld["in_city_at_start"].int(0),
            ld["on_tableau"].int(0),
            cutouts,
            _counts(ld["initiation_cost"], ALCHEMY_INPUTS),
            _counts(ld["all_leaders_out_reward"], ("intrigue", "gold", "energy")),
        )
        panels = tuple(self.panel(p, p["id"].str(), p["name"].str()) for p in s["panels"].list())
        if not 5 <= len(panels) <= 6 or tuple(p.id for p in panels[:4]) != COMMON_PANELS:
            s["panels"].fail(f"must be {list(COMMON_PANELS)}, then 1-2 society panels")
        _unique([p.id for p in panels], s["panels"], "panel")
        for t in s["starting_tiles"].list(2, "starting tiles"):
            tile = tiles.get(t.str())
            if tile is None or tile.kind != "starting" or tile.society != sid:
                t.fail(f"{t.v!r} is not a starting tile of {sid}")
        return Society(
            id=sid,
            name=s["name"].str(),
            colour=s.get("colour", "").str(),
            mechanic=s["mechanic"].str(),
            starts_with=tuple((k, x.int(0)) for k, x in s["starts_with"].items()),
            chambers=chambers,
            relic_slots=tuple(slots),
            dial=dial,
            chaos=meter,
            tokens=tokens,
            leaders=leaders,
            panels=panels,
            abilities=tuple((a["id"].str(), a["text"].str()) for a in s["abilities"].list()),
            starting_tiles=s["starting_tiles"].strings(),
        )

    def option(self, o: _Node) -> SecretOption:
        cost = dict(_counts(o["cost"], ("energy", "gold")))
        return SecretOption(
            o["label"].str(),
            Cost(cost.get("energy", 0), cost.get("gold", 0)),
            self.effect(o["effect"]),
        )

    def trap(self, t: _Node) -> Trap:
        return Trap(self.effect(t["self"]), self.effect(t["rival"]), self.effect(t["reward"]))

    def secret(self, x: _Node, sid: str, index: int, conjunction: bool) -> SecretCard:
        if x["society"].v != sid:
            x["society"].fail(f"{x['society'].v!r} differs from its list {sid!r}")
        if conjunction:
            level = x["level"].enum(("conjunction",)) and 5
        else:
            level = x["level"].enum((1, 2, 3, 4))
        opts = tuple(self.option(o) for o in x["effects"].list(2, "options"))
        if [o.label for o in opts] != ["A", "B"]:
            x["effects"].fail("a Secret has options A and B")
        trap = self.trap(x["trap"]) if x.get("trap").v is not None else None
        if sid == "serpent" and trap is None:
            x.fail("every Serpent Keepers Secret has a trap")
        return SecretCard(
            id=x["id"].str(),
            name=x["name"].str(),
            society=sid,
            level=level,
            conjunction=conjunction,
            index=index,
            suits=tuple(self.suit(s) for s in x["suits"].list()),
            intrigue=x["intrigue"].int(0),
            options=opts,
            templates=x.get("templates", []).strings(),
            trap=trap,
            trap_template=x.get("trap_template").opt_str(),
        )

    def templates(self) -> tuple[dict, dict]:
        st = {
            name: tuple(
                (
                    self.option(_Node({"label": "A", **lv.v}, lv.path)).cost,
                    self.effect(lv["effect"]),
                )
                for lv in t["levels"].list(4, "levels")
            )
            for name, t in self.root["secret_templates"].items()
        }
        tt = {
            name: tuple(
                Trap(
                    *(
                        self.effect(t[line].list(4, "levels")[i])
                        for line in ("self", "rival", "reward")
                    )
                )
                for i in range(4)
            )
            for name, t in self.root["trap_templates"].items()
        }
        return st, tt

    def eye(self, x: _Node) -> Eye:
        mods = tuple(
            (k, m.int())
            for k, m in x.get("mods", {}).items()
            if _Node(k, m.path).enum(sorted(self.spec.mods))
        )
        trig = None
        if x.get("trigger").v is not None:
            t = x["trigger"]
            trig = Trigger(
                t["on"].enum(sorted(self.spec.events)),
                t["timing"].enum(("before", "after")),
                self.effect(t["effect"]),
            )
        if not mods and trig is None:
            x.fail("an eye header needs mods or a trigger")
        return Eye(mods, trig)

    def relic(self, r: _Node, index: int) -> Relic:
        rid = r["id"].str()
        if rid != f"R{index + 1:03d}":
            r["id"].fail(f"expected R{index + 1:03d} at position {index}, got {rid!r}")
        tone = r["tone"].enum(("bright", "dark"))
        alt = None if r.get("alt_suit").v is None else self.suit(r["alt_suit"])
        if (tone == "dark") != (alt is not None):
            r["alt_suit"].fail("Dark Relics (and only they) have an alternate suit")
        header = r["header"].enum(("plus", "flag", "eye"))
        return Relic(
            id=rid,
            index=index,
            name=r["name"].str(),
            value=r["value"].int(1, 5),
            tone=tone,
            suit=self.suit(r["suit"]),
            icons=r["icons"].int(1),
            alt_suit=alt,
            alt_icons=r["alt_icons"].int(0),
            intrigue=r["intrigue"].int(0),
            header=header,
            when=r["when"].enum(("before", "after", "either")) if header == "plus" else None,
            plus=self.effect(r["effect"]) if header == "plus" else None,
            flag=self.amount(r["score"]) if header == "flag" else None,
            eye=self.eye(r) if header == "eye" else None,
        )

    def tile(self, t: _Node, index: int) -> Tile:
        kind = t["kind"].enum(("board", "first_to_level", "starting"))
        header = t["header"].enum(("flag", "eye", "hood"))
        society = t["society"].enum(SOCIETY_IDS) if kind == "starting" else None
        level = t["level"].enum((1, 2, 3, 4, 5)) if kind != "starting" else None
        suit = self.suit(t["suit"]) if kind == "board" else None
        return Tile(
            id=t["id"].str(),
            index=index,
            name=t["name"].str(),
            kind=kind,
            level=level,
            suit=suit,
            side=t["side"].enum(("L", "R")) if kind == "board" else None,
            society=society,
            header=header,
            flag=self.amount(t["score"]) if header == "flag" else None,
            eye=self.eye(t) if header == "eye" else None,
            flip=self.effect(t["flip"]) if header == "hood" else None,
        )

    def ascension(self) -> Ascension:
        a = self.root["ascension"]
        tiles = tuple(
            self.tile(t, i) for i, t in enumerate(a["tiles"].list(EXPECTED["tiles"], "tiles"))
        )
        _unique([t.id for t in tiles], a["tiles"], "tile")
        by_id = {t.id: t for t in tiles}
        slots = []
        for i, s in enumerate(a["board_slots"].list(EXPECTED["board_slots"], "board slots")):
            st = s["start_tile"].opt_str()
            if st is not None and (st not in by_id or by_id[st].kind != "board"):
                s["start_tile"].fail(f"unknown board tile {st!r}")
            slots.append(
                BoardSlot(
                    s["id"].str(),
                    i,
                    s["level"].int(1, 5),
                    self.suit(s["suit"]),
                    s["side"].enum(("L", "R")),
                    st,
                    self.effect(s["empty_reward"]),
                )
            )
        _unique([s.id for s in slots], a["board_slots"], "board slot")
        _unique([s.start_tile for s in slots if s.start_tile], a["board_slots"], "start tile")
        sm = tuple((self.suit(_Node(k, v.path)), v.str()) for k, v in a["suit_map"].items())
        if sorted(k for k, _ in sm) != sorted(self.suits):
            a["suit_map"].fail("keys must be the four suits")
        cols = tuple(self.suit(x) for x in a["columns"].list(4, "columns"))
        if sorted(cols) != sorted(self.suits):
            a["columns"].fail("must be the four suits")
        se = tuple((k, self.effect(v)) for k, v in a["suit_effects"].items())
        if sorted(k for k, _ in se) != sorted(v for _, v in sm):
            a["suit_effects"].fail(f"keys must be {sorted(v for _, v in sm)}")
        return Ascension(sm, cols, se, tuple(slots), tiles)

    def conjunction(self, j: _Node, index: int) -> Conjunction:
        al = j.get("alchemy")
        panel = None if al.v is None else self.panel(al, "conjunction", j["name"].str())
        return Conjunction(
            j["id"].str(),
            index,
            j["name"].str(),
            tuple(self.suit(s) for s in j["goal"].list(6, "goal suits")),
            self.effect(j["claim_effect"]),
            panel,
        )

    def relic_map(self) -> RelicMap:
        rm = self.root["relic_map"]
        ext = rm["extension"]
        routes = rm["routes"].strings()
        rows = tuple(r["extra"].int(0) for r in rm["rows"].list())
        order = rm["map_order"].strings()
        want = (
            ("H",)
            + tuple(f"{r}.{k}" for r in routes for k in range(len(rows)))
            + ext["slots"].strings()
        )
        if order != want:
            rm["map_order"].fail(f"expected {list(want)}")
        out = RelicMap(
            routes=routes,
            row_extra=rows,
            harbor_extra=rm["harbor"]["extra"].int(0),
            extension_slots=ext["slots"].strings(),
            extension_extra_opponents=ext["extra_opponents"].int(),
            extension_extra_mariners=ext["extra_mariners"].int(),
            cards_on_map=rm["cards_on_map"].int(),
            map_order=order,
            refill_end_of_turn=rm["refill_end_of_turn"].strings(),
        )
        if out.cards_on_map != 1 + len(routes) * len(rows):
            rm["cards_on_map"].fail("must be the Harbor plus routes x rows")
        return out

    def procedures(self) -> Procedures:
        pr = self.root["procedures"]
        phases = tuple(
            Phase(
                p["phase"].str(),
                p.get("who", "").str(),
                p.get("does").v or "; ".join(p.get("choices", []).strings()),
                p.get("next", "").str(),
            )
            for p in pr["phases"].list()
        )
        for ph in PHASES:
            if ph not in [p.phase for p in phases]:
                pr["phases"].fail(f"missing phase {ph}")
        term = pr["termination"]
        return Procedures(
            setup=pr["setup"].strings(),
            turn=pr["turn"].strings(),
            phases=phases,
            action_resolution=pr["action_resolution"].strings(),
            movement=pr["movement"].strings(),
            gain_level=pr["gain_level"].strings(),
            hand_limit=pr["hand_limit"].str(),
            conjunction_check=pr["conjunction_check"].str(),
            end=pr["end"].str(),
            max_rounds_default=term["max_rounds_default"].int(1),
            end_reasons=tuple(k for k, _ in term["end_reasons"].items()),
        )

    def variants(self) -> Variants:
        va = self.root["variants"]
        flags = tuple(
            VariantFlag(
                f["flag"].str(), bool(f["default"].v), f.get("off").v or f.get("on", "").str()
            )
            for f in va["flags"].list()
        )
        _unique([f.flag for f in flags], va["flags"], "flag")
        preset = va["basic_preset"]
        if sorted(k for k, _ in preset.items()) != sorted(f.flag for f in flags):
            preset.fail(f"keys must be the flags {sorted(f.flag for f in flags)}")
        params = va["parameters"]
        for k in ("max_rounds", "margin_weight", "margin_scale"):
            params[k]["default"]
        return Variants(
            flags,
            tuple((k, bool(x.v)) for k, x in preset.items()),
            tuple((k, x["default"].v) for k, x in params.items()),
            tuple((k, x.get("allowed", "").str()) for k, x in params.items()),
        )

    def visibility(self) -> Visibility:
        vi = self.root["visibility"]

        def pairs(key):
            return tuple((x["item"].str(), x.get("detail", "").str()) for x in vi[key].list())

        return Visibility(
            pairs("public"),
            pairs("owner_private"),
            pairs("hidden_from_all"),
            vi["hands"].str(),
            vi["public_history"].strings(),
            vi["resampler"].strings(),
        )

    def decisions(self, sizes: Mapping[str, int]) -> Decisions:
        de = self.root["decisions"]
        n = de["num_actions"].int()
        if n != EXPECTED["num_actions"]:
            de["num_actions"].fail(f"expected {EXPECTED['num_actions']}, got {n}")
        blocks, off = [], 0
        for b in de["action_blocks"].list():
            blk = ActionBlock(
                b["block"].str(), b["offset"].int(0), b["size"].int(1), b.get("meaning", "").str()
            )
            if blk.offset != off:
                b.fail(
                    f"block {blk.name} starts at {blk.offset}, expected {off} "
                    "(blocks are contiguous)"
                )
            off += blk.size
            blocks.append(blk)
        if off != n:
            de["action_blocks"].fail(f"blocks cover {off} actions, num_actions is {n}")
        _unique([b.name for b in blocks], de["action_blocks"], "block")
        for name, size in sizes.items():
            if [b.size for b in blocks if b.name == name] != [size]:
                de["action_blocks"].fail(f"block {name} must have size {size}")
        kinds = tuple(
            DecisionKind(k["kind"].str(), k.get("blocks", "").str(), k.get("note", "").str())
            for k in de["kinds"].list()
        )
        _unique([k.kind for k in kinds], de["kinds"], "decision kind")
        return Decisions(n, tuple(blocks), kinds, de.get("rules", []).strings())

    def scoring(self) -> Scoring:
        sc = self.root["scoring"]
        return Scoring(
            sc["human"].strings(),
            sc.get("silver_guard_pre_step", "").str(),
            sc["tie_break"].str(),
            tuple((k, x.str()) for k, x in sc["returns"].items()),
        )


SUITS = ("Rod", "Sword", "Disk", "Chalice")
CHAMBERS = ("C1", "C2", "C3", "C4")
COMMON_PANELS = ("any_time", "assign", "regroup", "leader")
PHASES = ("START", "PRE", "SELECT_LEADER", "ACTION", "POST", "END", "REACT", "FINAL")


def build_content(raw: Mapping[str, Any]) -> Content:
    """Validate a parsed content document and build :class:`Content` (see :func:`load_content`).

    Raises:
        ContentError: the first problem found, naming its key path.
    """
    b = _Builder(raw)
    root = b.root
    constants = b.constants()
    ascension = b.ascension()
    tiles = {t.id: t for t in ascension.tiles}
    soc = root["societies"]
    if tuple(k for k, _ in soc.items()) != SOCIETY_IDS:
        soc.fail(f"expected {list(SOCIETY_IDS)}")
    societies = {sid: b.society(sid, s, tiles) for sid, s in soc.items()}
    templates, trap_templates = b.templates()
    secrets, conj_secrets = {}, {}
    for sid in SOCIETY_IDS:
        node = root["secrets"][sid]
        cards = tuple(
            b.secret(x, sid, i, False)
            for i, x in enumerate(node.list(EXPECTED["secrets_per_society"], "Secrets"))
        )
        per_level = tuple(sum(1 for c in cards if c.level == lv) for lv in (1, 2, 3, 4))
        if per_level != EXPECTED["secrets_per_level"]:
            node.fail(
                f"Secrets per Level I-IV {list(per_level)}, "
                f"expected {list(EXPECTED['secrets_per_level'])}"
            )
        for c, x in zip(cards, node.list()):
            _check_templates(c, templates, trap_templates, x)
        secrets[sid] = cards
        conj_secrets[sid] = b.secret(
            root["conjunction_secrets"][sid], sid, EXPECTED["secrets_per_society"], True
        )
    _unique(
        [c.id for sid in SOCIETY_IDS for c in secrets[sid] + (conj_secrets[sid],)],
        root["secrets"],
        "Secret",
    )
    rel = root["relics"]
    _unique([r.get("id").v for r in rel.list()], rel, "relic")
    relics = tuple(b.relic(r, i) for i, r in enumerate(rel.list(EXPECTED["relics"], "relics")))
    cj = root["conjunctions"]
    _unique([j.get("id").v for j in cj.list()], cj, "conjunction")
    conjunctions = tuple(
        b.conjunction(j, i) for i, j in enumerate(cj.list(EXPECTED["conjunctions"], "conjunctions"))
    )
    relic_map = b.relic_map()
    actions = tuple((k, x.str()) for k, x in root["actions"].items())
    if tuple(k for k, _ in actions) != ACTION_NAMES:
        root["actions"].fail(f"expected {list(ACTION_NAMES)}")
    sizes = {
        "RELIC": len(relics),
        "TILE": len(tiles),
        "BOARD": len(ascension.board_slots),
        "SECRET": EXPECTED["secrets_per_society"] + 1,
        "MAP": len(relic_map.map_order),
        "SUIT": len(constants.suits),
    }
    return Content(
        raw=raw,
        constants=constants,
        dsl=b.spec,
        societies=societies,
        secrets=secrets,
        conjunction_secrets=conj_secrets,
        secret_templates=templates,
        trap_templates=trap_templates,
        relics=relics,
        conjunctions=conjunctions,
        ascension=ascension,
        relic_map=relic_map,
        actions=actions,
        procedures=b.procedures(),
        variants=b.variants(),
        visibility=b.visibility(),
        decisions=b.decisions(sizes),
        scoring=b.scoring(),
    )


def _check_templates(card: SecretCard, templates: Mapping, traps: Mapping, node: _Node) -> None:
    """A Secret's options equal its templates at its Level (design §6.1-6.2)."""
    if len(card.templates) != len(card.options):
        node["templates"].fail(f"{len(card.templates)} templates for {len(card.options)} options")
    for k, (name, opt) in enumerate(zip(card.templates, card.options)):
        if name not in templates:
            node["templates"][k].fail(f"unknown template {name!r}")
        if templates[name][card.level - 1] != (opt.cost, opt.effect):
            node["effects"][k].fail(f"differs from template {name!r} at Level {card.level}")
    if card.trap_template is not None:
        if card.trap_template not in traps:
            node["trap_template"].fail(f"unknown trap template {card.trap_template!r}")
        if traps[card.trap_template][card.level - 1] != card.trap:
            node["trap"].fail(f"differs from trap template {card.trap_template!r}")
