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
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Mapping

from . import dsl
from .dsl import ContentError

DATA_PATH = Path(__file__).with_name("data") / "clandestine_content.json"

#: Component counts the content must have (rulebook "Components"; design rulings 1 and 8).
EXPECTED = {"relics": 108, "conjunctions": 24, "tiles": 50, "board_slots": 40,
            "secrets_per_society": 31, "secrets_per_level": (10, 8, 7, 6), "societies": 5,
            "num_actions": 401}
SOCIETY_IDS = ("mariners", "garden", "twilight", "serpent", "blue")
ACTION_NAMES = ("fundraise", "discover", "reveal", "ascend", "purge", "regroup", "revolt")
ALCHEMY_INPUTS = ("gold", "energy", "uf", "relic", "secret")
PANEL_TIMINGS = ("any", "own_turn")

__all__ = ["ContentError", "Content", "load_content", "DATA_PATH", "EXPECTED", "SOCIETY_IDS",
           "ACTION_NAMES"]


# ------------------------------------------------------------------------------------ records
# Frozen records; tuple fields keep order, ``(key, value)`` tuples stand for small maps.

Effect = dsl.Effect


@dataclass(frozen=True)
class Constants:
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
class Trade:
    """One alchemy trade: ``inputs`` ((input, n), ...) over gold/energy/uf/relic/secret; ``out``
    the effect. A ``uf`` input is consumed by the ``new_leader`` step (design §4)."""

    inputs: tuple[tuple[str, int], ...]
    out: Effect

    def cost(self, what: str) -> int:
        """How many of input ``what`` the trade takes (0 if none)."""
        return dict(self.inputs).get(what, 0)


@dataclass(frozen=True)
class Panel:
    """An alchemy panel: ``id`` (any_time, assign, regroup, leader, a society panel, or
    ``conjunction``), ``timing`` (``any`` or ``own_turn``), 1-3 ``trades``."""

    id: str
    name: str
    timing: str
    trades: tuple[Trade, ...]


@dataclass(frozen=True)
class Chamber:
    """A Chamber: ``id`` C1-C4, its Action (lower case), the Relic slots beside it."""

    id: str
    action: str
    relic_slots: tuple[int, ...]


@dataclass(frozen=True)
class RelicSlot:
    """Relic slot 1-6, its Chamber, and whether it takes Dark Relics (slots 3 and 4)."""

    slot: int
    chamber: str
    dark_allowed: bool


@dataclass(frozen=True)
class DialStep:
    """The Ascension dial at ``level``: cost of the next Level (None at V) and hand maxima."""

    level: int
    next_gold: int | None
    next_suits: int | None
    relic_max: int
    secret_max: int


@dataclass(frozen=True)
class ChaosMeter:
    """The Chaos meter: ``slots``, end ``penalty`` per highest filled slot (index 0 = slot 1),
    ``black_top`` black slots at the top (alchemy blocked when one is filled)."""

    slots: int
    penalty: tuple[int, ...]
    black_top: int


@dataclass(frozen=True)
class Tokens:
    """Alchemy tokens: ``total``, ``free`` at the start, ``locked`` ((token, cutout), ...)."""

    total: int
    free: int
    locked: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Cutout:
    """A tableau leader cutout 1-4: Level gate and the token its unlock icon frees (or None)."""

    cutout: int
    min_level: int
    unlocks_token: int | None


@dataclass(frozen=True)
class Leaders:
    """Society Leaders: 6 in all, 2 in the City at start, 4 in cutouts; Initiation trade cost;
    the reward once all cutouts are empty ((resource, n), ...)."""

    total: int
    in_city_at_start: int
    on_tableau: int
    cutouts: tuple[Cutout, ...]
    initiation_cost: tuple[tuple[str, int], ...]
    all_leaders_out_reward: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Society:
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
class Cost:
    """A Secret option's cost, paid first (design §4 "Option")."""

    energy: int = 0
    gold: int = 0


@dataclass(frozen=True)
class SecretOption:
    """Option ``label`` (A or B) of a Secret: its cost and effect."""

    label: str
    cost: Cost
    effect: Effect


@dataclass(frozen=True)
class Trap:
    """A Serpent Keepers trap (design §6.2): ``self`` when the Keepers trigger it, else
    ``rival`` for the acting player then ``reward`` for the Keepers."""

    self: Effect
    rival: Effect
    reward: Effect


@dataclass(frozen=True)
class SecretCard:
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
class Trigger:
    """An eye trigger: on ``on`` (an event), ``timing`` before/after, perform ``effect``."""

    on: str
    timing: str
    effect: Effect


@dataclass(frozen=True)
class Eye:
    """An eye header: ``mods`` ((mod, n), ...) active while held, and an optional trigger."""

    mods: tuple[tuple[str, int], ...]
    trigger: Trigger | None


@dataclass(frozen=True)
class Relic:
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
        return max(self.icons if self.suit == suit else 0, self.alt_icons if self.alt_suit == suit else 0)


@dataclass(frozen=True)
class Conjunction:
    """A Conjunction card (design §8): ``goal`` six suits in slot order, ``claim_effect`` at
    Level II, an optional alchemy ``panel`` (id ``conjunction``)."""

    id: str
    index: int
    name: str
    goal: tuple[str, ...]
    claim_effect: Effect
    panel: Panel | None


@dataclass(frozen=True)
class BoardSlot:
    """An Ascension board slot (``id`` e.g. ``AII-Rod-L``; ``index`` = BOARD block order)."""

    id: str
    index: int
    level: int
    suit: str
    side: str
    start_tile: str | None
    empty_reward: Effect


@dataclass(frozen=True)
class Tile:
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
class Ascension:
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
class RelicMap:
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
class Phase:
    """A phase of the turn machine (``procedures.phases``, design §1.2)."""

    phase: str
    who: str
    does: str
    next: str


@dataclass(frozen=True)
class Procedures:
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
class VariantFlag:
    """A variant flag (design §11): name, default, and what changes when switched."""

    flag: str
    default: bool
    text: str


@dataclass(frozen=True)
class Variants:
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


@dataclass(frozen=True)
class Visibility:
    """The information partition (design §1.5): (item, detail) pairs per class, hand model,
    public history and resampler texts."""

    public: tuple[tuple[str, str], ...]
    owner_private: tuple[tuple[str, str], ...]
    hidden_from_all: tuple[tuple[str, str], ...]
    hands: str
    public_history: tuple[str, ...]
    resampler: tuple[str, ...]


@dataclass(frozen=True)
class ActionBlock:
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
class DecisionKind:
    """A decision kind of §1.7 and the blocks it unmasks (text)."""

    kind: str
    blocks: str
    note: str


@dataclass(frozen=True)
class Decisions:
    """The ``Discrete(num_actions)`` factoring of §1.7: 16 contiguous ``blocks``, ``kinds``, rules."""

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
class Scoring:
    """``scoring``: the human categories in order, the Silver Guard pre-step, tie-break and
    returns texts ((key, text), ...)."""

    human: tuple[str, ...]
    silver_guard_pre_step: str
    tie_break: str
    returns: tuple[tuple[str, str], ...]


@dataclass(frozen=True, eq=False)
class Content:
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
                    out += [(f"{c.id}.trap.{k}", getattr(c.trap, k)) for k in ("self", "rival", "reward")]
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
        return build_content(json.load(fh))


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


# ------------------------------------------------------------------------------------ helpers

def _get(obj: Any, key: str, path: str, typ: type | tuple = object) -> Any:
    if not isinstance(obj, Mapping):
        raise ContentError(path, f"expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise ContentError(f"{path}.{key}", "missing")
    v = obj[key]
    if typ is int and (not isinstance(v, int) or isinstance(v, bool)):
        raise ContentError(f"{path}.{key}", f"expected an int, got {v!r}")
    if typ is not object and typ is not int and not isinstance(v, typ):
        names = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise ContentError(f"{path}.{key}", f"expected {names}, got {type(v).__name__}")
    return v


def _enum(v: Any, allowed, path: str) -> Any:
    if v not in allowed:
        raise ContentError(path, f"{v!r} is not one of {list(allowed)}")
    return v


def _unique(ids, path: str, what: str) -> None:
    seen = set()
    for i in ids:
        if i in seen:
            raise ContentError(path, f"duplicate {what} id {i!r}")
        seen.add(i)


def _count(items, n: int, path: str, what: str) -> None:
    if len(items) != n:
        raise ContentError(path, f"expected {n} {what}, found {len(items)}")


class _Builder:
    """Turns the parsed JSON into dataclasses; one method per section."""

    def __init__(self, raw: Mapping[str, Any]):
        if not isinstance(raw, Mapping):
            raise ContentError("<root>", f"content must be a JSON object, got {type(raw).__name__}")
        self.raw = raw
        c = _get(raw, "constants", "<root>", dict)
        self.suits = tuple(_get(c, "suits", "constants", list))
        if sorted(self.suits) != sorted(["Rod", "Sword", "Disk", "Chalice"]):
            raise ContentError("constants.suits", f"expected Rod, Sword, Disk, Chalice, got {list(self.suits)}")
        self.spec = dsl.DslSpec.from_json(_get(raw, "dsl", "<root>", dict), self.suits)

    def effect(self, v: Any, path: str) -> dsl.Effect:
        return dsl.compile_effect(v, self.spec, path)

    def amount(self, v: Any, path: str) -> dsl.Amount:
        return dsl.compile_amount(v, self.spec, path)

    def suit(self, v: Any, path: str, optional: bool = False) -> str | None:
        if optional and v is None:
            return None
        return _enum(v, self.suits, path)

    # -- constants
    def constants(self) -> Constants:
        c = self.raw["constants"]
        comp = _get(c, "components", "constants", dict)
        for key, want in (("relics", EXPECTED["relics"]), ("conjunctions", EXPECTED["conjunctions"]),
                          ("ascension_tiles", EXPECTED["tiles"]), ("societies", EXPECTED["societies"]),
                          ("secrets_per_society", EXPECTED["secrets_per_society"])):
            if _get(comp, key, "constants.components", int) != want:
                raise ContentError(f"constants.components.{key}", f"expected {want}, got {comp[key]}")
        ps = _get(c, "pawn_strength", "constants", dict)
        dark = tuple(_get(c, "dark_slots", "constants", list))
        supply = _get(c, "pawn_supply", "constants", dict)
        return Constants(components=dict(comp), suits=self.suits, pawn_strength=dict(ps),
                         end_of_turn_energy=_get(c, "end_of_turn_energy", "constants", int),
                         relic_slots_per_society=_get(c, "relic_slots_per_society", "constants", int),
                         dark_slots=dark, chambers_per_society=_get(c, "chambers_per_society", "constants", int),
                         uf_supply=_get(supply, "universal_followers", "constants.pawn_supply", int),
                         finite_pawns_default=bool(_get(supply, "finite_by_default", "constants.pawn_supply")),
                         resources_infinite=tuple(_get(c, "resources_infinite", "constants", list)))

    # -- alchemy panels
    def trade(self, t: Any, path: str) -> Trade:
        ins = _get(t, "in", path, dict)
        for k, v in ins.items():
            _enum(k, ALCHEMY_INPUTS, f"{path}.in.{k}")
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ContentError(f"{path}.in.{k}", f"must be an int >= 1, got {v!r}")
        return Trade(inputs=tuple(ins.items()), out=self.effect(_get(t, "out", path), f"{path}.out"))

    def panel(self, p: Any, path: str, pid: str, name: str) -> Panel:
        timing = _enum(_get(p, "timing", path), PANEL_TIMINGS, f"{path}.timing")
        trades = _get(p, "trades", path, list)
        if not 1 <= len(trades) <= 3:
            raise ContentError(f"{path}.trades", f"a panel has 1-3 trades, found {len(trades)}")
        return Panel(pid, name, timing, tuple(self.trade(t, f"{path}.trades[{i}]") for i, t in enumerate(trades)))

    # -- societies
    def society(self, sid: str, s: Any, tiles: Mapping[str, Tile]) -> Society:
        path = f"societies.{sid}"
        if _get(s, "id", path) != sid:
            raise ContentError(f"{path}.id", f"{s['id']!r} differs from its key {sid!r}")
        chambers = []
        for i, ch in enumerate(_get(s, "chambers", path, list)):
            p = f"{path}.chambers[{i}]"
            chambers.append(Chamber(_enum(_get(ch, "id", p), ("C1", "C2", "C3", "C4"), f"{p}.id"),
                                    _enum(_get(ch, "action", p).lower(), ACTION_NAMES, f"{p}.action"),
                                    tuple(_get(ch, "relic_slots", p, list))))
        if [c.id for c in chambers] != ["C1", "C2", "C3", "C4"]:
            raise ContentError(f"{path}.chambers", "must be C1, C2, C3, C4 in order")
        slots = []
        for i, rs in enumerate(_get(s, "relic_slots", path, list)):
            p = f"{path}.relic_slots[{i}]"
            slots.append(RelicSlot(_get(rs, "slot", p, int), _get(rs, "chamber", p, str),
                                   bool(_get(rs, "dark_allowed", p))))
        if [r.slot for r in slots] != [1, 2, 3, 4, 5, 6]:
            raise ContentError(f"{path}.relic_slots", "must be slots 1-6 in order")
        by_chamber = {c.id: c for c in chambers}
        for r in slots:
            if r.chamber not in by_chamber or r.slot not in by_chamber[r.chamber].relic_slots:
                raise ContentError(f"{path}.relic_slots[{r.slot - 1}]", f"slot {r.slot} is not in chamber {r.chamber!r}")
        dark = tuple(r.slot for r in slots if r.dark_allowed)
        if dark != tuple(self.raw["constants"]["dark_slots"]):
            raise ContentError(f"{path}.relic_slots", f"Dark slots {list(dark)} differ from constants.dark_slots")
        dial = []
        for i, d in enumerate(_get(s, "dial", path, list)):
            p = f"{path}.dial[{i}]"
            dial.append(DialStep(_get(d, "level", p, int), d.get("next_gold"), d.get("next_suits"),
                                 _get(d, "relic_max", p, int), _get(d, "secret_max", p, int)))
        if [d.level for d in dial] != [1, 2, 3, 4, 5] or dial[4].next_gold is not None or \
                any(not isinstance(d.next_gold, int) or not isinstance(d.next_suits, int) for d in dial[:4]):
            raise ContentError(f"{path}.dial", "must be Levels 1-5 with Gold and suit costs for 1-4 and none at 5")
        ch = _get(s, "chaos", path, dict)
        meter = ChaosMeter(_get(ch, "slots", f"{path}.chaos", int), tuple(_get(ch, "penalty", f"{path}.chaos", list)),
                           _get(ch, "black_top", f"{path}.chaos", int))
        if len(meter.penalty) != meter.slots or not 0 <= meter.black_top <= meter.slots:
            raise ContentError(f"{path}.chaos", f"penalty has {len(meter.penalty)} entries for {meter.slots} slots")
        tk = _get(s, "tokens", path, dict)
        ld = _get(s, "leaders", path, dict)
        cutouts = tuple(Cutout(_get(c, "cutout", f"{path}.leaders.cutouts[{i}]", int),
                               _get(c, "min_level", f"{path}.leaders.cutouts[{i}]", int), c.get("unlocks_token"))
                        for i, c in enumerate(_get(ld, "cutouts", f"{path}.leaders", list)))
        if [c.cutout for c in cutouts] != [1, 2, 3, 4]:
            raise ContentError(f"{path}.leaders.cutouts", "must be cutouts 1-4 in order")
        locked = tuple((_get(x, "token", f"{path}.tokens.locked[{i}]", int),
                        _get(x, "unlocked_by_cutout", f"{path}.tokens.locked[{i}]", int))
                       for i, x in enumerate(_get(tk, "locked", f"{path}.tokens", list)))
        tokens = Tokens(_get(tk, "total", f"{path}.tokens", int), _get(tk, "free", f"{path}.tokens", int), locked)
        if tokens.free + len(locked) != tokens.total:
            raise ContentError(f"{path}.tokens", f"free {tokens.free} + locked {len(locked)} != total {tokens.total}")
        for tok, cut in locked:
            c = next((c for c in cutouts if c.cutout == cut), None)
            if c is None or c.unlocks_token != tok:
                raise ContentError(f"{path}.tokens.locked", f"token {tok} is not unlocked by cutout {cut}")
        leaders = Leaders(_get(ld, "total", f"{path}.leaders", int), _get(ld, "in_city_at_start", f"{path}.leaders", int),
                          _get(ld, "on_tableau", f"{path}.leaders", int), cutouts,
                          tuple(_get(ld, "initiation_cost", f"{path}.leaders", dict).items()),
                          tuple(_get(ld, "all_leaders_out_reward", f"{path}.leaders", dict).items()))
        panels = []
        for i, p in enumerate(_get(s, "panels", path, list)):
            pp = f"{path}.panels[{i}]"
            panels.append(self.panel(p, pp, _get(p, "id", pp, str), _get(p, "name", pp, str)))
        if not 5 <= len(panels) <= 6 or [p.id for p in panels[:4]] != ["any_time", "assign", "regroup", "leader"]:
            raise ContentError(f"{path}.panels", "must be any_time, assign, regroup, leader, then 1-2 society panels")
        _unique([p.id for p in panels], f"{path}.panels", "panel")
        starting = tuple(_get(s, "starting_tiles", path, list))
        for i, t in enumerate(starting):
            if t not in tiles or tiles[t].kind != "starting" or tiles[t].society != sid:
                raise ContentError(f"{path}.starting_tiles[{i}]", f"{t!r} is not a starting tile of {sid}")
        abilities = tuple((_get(a, "id", f"{path}.abilities[{i}]", str), _get(a, "text", f"{path}.abilities[{i}]", str))
                          for i, a in enumerate(_get(s, "abilities", path, list)))
        sw = _get(s, "starts_with", path, dict)
        return Society(id=sid, name=_get(s, "name", path, str), colour=s.get("colour", ""),
                       mechanic=_get(s, "mechanic", path, str), starts_with=tuple(sw.items()),
                       chambers=tuple(chambers), relic_slots=tuple(slots), dial=tuple(dial), chaos=meter,
                       tokens=tokens, leaders=leaders, panels=tuple(panels), abilities=abilities,
                       starting_tiles=starting)

    # -- secrets
    def option(self, o: Any, path: str) -> SecretOption:
        cost = _get(o, "cost", path, dict)
        for k, v in cost.items():
            _enum(k, ("energy", "gold"), f"{path}.cost.{k}")
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ContentError(f"{path}.cost.{k}", f"must be an int >= 0, got {v!r}")
        return SecretOption(_get(o, "label", path, str), Cost(cost.get("energy", 0), cost.get("gold", 0)),
                            self.effect(_get(o, "effect", path), f"{path}.effect"))

    def trap(self, t: Any, path: str) -> Trap:
        return Trap(self.effect(_get(t, "self", path), f"{path}.self"),
                    self.effect(_get(t, "rival", path), f"{path}.rival"),
                    self.effect(_get(t, "reward", path), f"{path}.reward"))

    def secret(self, x: Any, path: str, sid: str, index: int, conjunction: bool) -> SecretCard:
        if _get(x, "society", path) != sid:
            raise ContentError(f"{path}.society", f"{x['society']!r} differs from its list {sid!r}")
        level = _get(x, "level", path)
        if conjunction:
            if level != "conjunction":
                raise ContentError(f"{path}.level", f"a Conjunction Secret has level 'conjunction', got {level!r}")
            level = 5
        elif level not in (1, 2, 3, 4):
            raise ContentError(f"{path}.level", f"{level!r} is not one of [1, 2, 3, 4]")
        suits = tuple(self.suit(s, f"{path}.suits[{i}]") for i, s in enumerate(_get(x, "suits", path, list)))
        opts = _get(x, "effects", path, list)
        if [o.get("label") for o in opts if isinstance(o, dict)] != ["A", "B"]:
            raise ContentError(f"{path}.effects", "a Secret has options A and B")
        trap = self.trap(x["trap"], f"{path}.trap") if x.get("trap") is not None else None
        if sid == "serpent" and trap is None:
            raise ContentError(f"{path}.trap", "every Serpent Keepers Secret has a trap")
        return SecretCard(id=_get(x, "id", path, str), name=_get(x, "name", path, str), society=sid,
                          level=level, conjunction=conjunction, index=index, suits=suits,
                          intrigue=_get(x, "intrigue", path, int),
                          options=tuple(self.option(o, f"{path}.effects[{i}]") for i, o in enumerate(opts)),
                          templates=tuple(x.get("templates", ())), trap=trap,
                          trap_template=x.get("trap_template"))

    def templates(self) -> tuple[dict, dict]:
        st, tt = {}, {}
        for name, t in _get(self.raw, "secret_templates", "<root>", dict).items():
            p = f"secret_templates.{name}"
            lv = _get(t, "levels", p, list)
            _count(lv, 4, f"{p}.levels", "levels")
            st[name] = tuple((Cost(_get(x, "cost", f"{p}.levels[{i}]", dict).get("energy", 0), x["cost"].get("gold", 0)),
                              self.effect(_get(x, "effect", f"{p}.levels[{i}]"), f"{p}.levels[{i}].effect"))
                             for i, x in enumerate(lv))
        for name, t in _get(self.raw, "trap_templates", "<root>", dict).items():
            p = f"trap_templates.{name}"
            tt[name] = tuple(Trap(*(self.effect(_get(t, line, p, list)[i], f"{p}.{line}[{i}]")
                                    for line in ("self", "rival", "reward"))) for i in range(4))
        return st, tt

    # -- relics
    def eye(self, x: Any, path: str) -> Eye:
        mods = x.get("mods", {})
        if not isinstance(mods, dict):
            raise ContentError(f"{path}.mods", "must be an object")
        for m, v in mods.items():
            _enum(m, sorted(self.spec.mods), f"{path}.mods.{m}")
            if not isinstance(v, int) or isinstance(v, bool):
                raise ContentError(f"{path}.mods.{m}", f"must be an int, got {v!r}")
        trig = None
        if x.get("trigger") is not None:
            t, p = x["trigger"], f"{path}.trigger"
            trig = Trigger(_enum(_get(t, "on", p), sorted(self.spec.events), f"{p}.on"),
                           _enum(_get(t, "timing", p), ("before", "after"), f"{p}.timing"),
                           self.effect(_get(t, "effect", p), f"{p}.effect"))
        if not mods and trig is None:
            raise ContentError(path, "an eye header needs mods or a trigger")
        return Eye(tuple(mods.items()), trig)

    def relic(self, r: Any, path: str, index: int) -> Relic:
        rid = _get(r, "id", path, str)
        if rid != f"R{index + 1:03d}":
            raise ContentError(f"{path}.id", f"expected R{index + 1:03d} at position {index}, got {rid!r}")
        tone = _enum(_get(r, "tone", path), ("bright", "dark"), f"{path}.tone")
        alt = self.suit(r.get("alt_suit"), f"{path}.alt_suit", optional=True)
        if (tone == "dark") != (alt is not None):
            raise ContentError(f"{path}.alt_suit", "Dark Relics (and only they) have an alternate suit")
        header = _enum(_get(r, "header", path), ("plus", "flag", "eye"), f"{path}.header")
        value = _get(r, "value", path, int)
        if not 1 <= value <= 5:
            raise ContentError(f"{path}.value", f"must be 1-5, got {value}")
        plus = flag = eye = None
        when = None
        if header == "plus":
            when = _enum(_get(r, "when", path), ("before", "after", "either"), f"{path}.when")
            plus = self.effect(_get(r, "effect", path), f"{path}.effect")
        elif header == "flag":
            flag = self.amount(_get(r, "score", path), f"{path}.score")
        else:
            eye = self.eye(r, path)
        return Relic(id=rid, index=index, name=_get(r, "name", path, str), value=value, tone=tone,
                     suit=self.suit(_get(r, "suit", path), f"{path}.suit"), icons=_get(r, "icons", path, int),
                     alt_suit=alt, alt_icons=_get(r, "alt_icons", path, int), intrigue=_get(r, "intrigue", path, int),
                     header=header, when=when, plus=plus, flag=flag, eye=eye)

    # -- tiles and board
    def tile(self, t: Any, path: str, index: int) -> Tile:
        kind = _enum(_get(t, "kind", path), ("board", "first_to_level", "starting"), f"{path}.kind")
        header = _enum(_get(t, "header", path), ("flag", "eye", "hood"), f"{path}.header")
        flag = eye = flip = None
        if header == "flag":
            flag = self.amount(_get(t, "score", path), f"{path}.score")
        elif header == "eye":
            eye = self.eye(t, path)
        else:
            flip = self.effect(_get(t, "flip", path), f"{path}.flip")
        soc = t.get("society")
        if kind == "starting" and soc not in SOCIETY_IDS:
            raise ContentError(f"{path}.society", f"{soc!r} is not one of {list(SOCIETY_IDS)}")
        level = t.get("level")
        if kind != "starting" and level not in (1, 2, 3, 4, 5):
            raise ContentError(f"{path}.level", f"{level!r} is not one of [1, 2, 3, 4, 5]")
        return Tile(id=_get(t, "id", path, str), index=index, name=_get(t, "name", path, str), kind=kind,
                    level=level, suit=self.suit(t.get("suit"), f"{path}.suit", optional=True),
                    side=t.get("side"), society=soc, header=header, flag=flag, eye=eye, flip=flip)

    def ascension(self) -> Ascension:
        a = _get(self.raw, "ascension", "<root>", dict)
        tiles_raw = _get(a, "tiles", "ascension", list)
        _count(tiles_raw, EXPECTED["tiles"], "ascension.tiles", "tiles")
        tiles = tuple(self.tile(t, f"ascension.tiles[{i}]", i) for i, t in enumerate(tiles_raw))
        _unique([t.id for t in tiles], "ascension.tiles", "tile")
        by_id = {t.id: t for t in tiles}
        slots_raw = _get(a, "board_slots", "ascension", list)
        _count(slots_raw, EXPECTED["board_slots"], "ascension.board_slots", "board slots")
        slots = []
        for i, s in enumerate(slots_raw):
            p = f"ascension.board_slots[{i}]"
            st = s.get("start_tile")
            if st is not None and (st not in by_id or by_id[st].kind != "board"):
                raise ContentError(f"{p}.start_tile", f"unknown board tile {st!r}")
            slots.append(BoardSlot(_get(s, "id", p, str), i, _get(s, "level", p, int),
                                   self.suit(_get(s, "suit", p), f"{p}.suit"),
                                   _enum(_get(s, "side", p), ("L", "R"), f"{p}.side"), st,
                                   self.effect(_get(s, "empty_reward", p), f"{p}.empty_reward")))
        _unique([s.id for s in slots], "ascension.board_slots", "board slot")
        _unique([s.start_tile for s in slots if s.start_tile], "ascension.board_slots", "start tile")
        sm = _get(a, "suit_map", "ascension", dict)
        if sorted(sm) != sorted(self.suits):
            raise ContentError("ascension.suit_map", f"keys {sorted(sm)} must be the four suits")
        cols = tuple(_get(a, "columns", "ascension", list))
        if sorted(cols) != sorted(self.suits):
            raise ContentError("ascension.columns", f"{list(cols)} must be the four suits")
        se = _get(a, "suit_effects", "ascension", dict)
        if sorted(se) != sorted(sm.values()):
            raise ContentError("ascension.suit_effects", f"keys {sorted(se)} must be {sorted(sm.values())}")
        return Ascension(suit_map=tuple(sm.items()), columns=cols,
                         suit_effects=tuple((k, self.effect(v, f"ascension.suit_effects.{k}")) for k, v in se.items()),
                         board_slots=tuple(slots), tiles=tiles)

    # -- conjunctions
    def conjunction(self, j: Any, path: str, index: int) -> Conjunction:
        goal = tuple(self.suit(s, f"{path}.goal[{i}]") for i, s in enumerate(_get(j, "goal", path, list)))
        _count(goal, 6, f"{path}.goal", "goal suits")
        al = j.get("alchemy")
        panel = self.panel(al, f"{path}.alchemy", "conjunction", _get(j, "name", path, str)) if al is not None else None
        return Conjunction(_get(j, "id", path, str), index, _get(j, "name", path, str), goal,
                           self.effect(_get(j, "claim_effect", path), f"{path}.claim_effect"), panel)


def _build_misc(raw: Mapping[str, Any]) -> tuple:
    """Relic map, procedures, variants, visibility, decisions and scoring."""
    rm = _get(raw, "relic_map", "<root>", dict)
    ext = _get(rm, "extension", "relic_map", dict)
    rows = tuple(_get(r, "extra", f"relic_map.rows[{i}]", int) for i, r in enumerate(_get(rm, "rows", "relic_map", list)))
    order = tuple(_get(rm, "map_order", "relic_map", list))
    routes = tuple(_get(rm, "routes", "relic_map", list))
    want = ("H",) + tuple(f"{r}.{k}" for r in routes for k in range(len(rows))) + tuple(_get(ext, "slots", "relic_map.extension", list))
    if order != want:
        raise ContentError("relic_map.map_order", f"expected {list(want)}, got {list(order)}")
    relic_map = RelicMap(routes=routes, row_extra=rows, harbor_extra=_get(rm["harbor"], "extra", "relic_map.harbor", int),
                         extension_slots=tuple(ext["slots"]), extension_extra_opponents=_get(ext, "extra_opponents", "relic_map.extension", int),
                         extension_extra_mariners=_get(ext, "extra_mariners", "relic_map.extension", int),
                         cards_on_map=_get(rm, "cards_on_map", "relic_map", int), map_order=order,
                         refill_end_of_turn=tuple(_get(rm, "refill_end_of_turn", "relic_map", list)))
    if relic_map.cards_on_map != 1 + len(routes) * len(rows):
        raise ContentError("relic_map.cards_on_map", f"{relic_map.cards_on_map} != Harbor + routes x rows")
    acts = _get(raw, "actions", "<root>", dict)
    if tuple(acts) != ACTION_NAMES:
        raise ContentError("actions", f"expected {list(ACTION_NAMES)}, got {list(acts)}")
    pr = _get(raw, "procedures", "<root>", dict)
    phases = tuple(Phase(_get(p, "phase", f"procedures.phases[{i}]", str), p.get("who", ""),
                         p.get("does", "") or "; ".join(p.get("choices", ())), p.get("next", ""))
                   for i, p in enumerate(_get(pr, "phases", "procedures", list)))
    names = [p.phase for p in phases]
    for ph in ("START", "PRE", "SELECT_LEADER", "ACTION", "POST", "END", "REACT", "FINAL"):
        if ph not in names:
            raise ContentError("procedures.phases", f"missing phase {ph}")
    term = _get(pr, "termination", "procedures", dict)
    procedures = Procedures(setup=tuple(pr["setup"]), turn=tuple(pr["turn"]), phases=phases,
                            action_resolution=tuple(_get(pr, "action_resolution", "procedures", list)),
                            movement=tuple(pr["movement"]), gain_level=tuple(pr["gain_level"]),
                            hand_limit=pr["hand_limit"], conjunction_check=pr["conjunction_check"], end=pr["end"],
                            max_rounds_default=_get(term, "max_rounds_default", "procedures.termination", int),
                            end_reasons=tuple(_get(term, "end_reasons", "procedures.termination", dict)))
    va = _get(raw, "variants", "<root>", dict)
    flags = tuple(VariantFlag(_get(f, "flag", f"variants.flags[{i}]", str), bool(_get(f, "default", f"variants.flags[{i}]")),
                              f.get("off") or f.get("on", "")) for i, f in enumerate(_get(va, "flags", "variants", list)))
    _unique([f.flag for f in flags], "variants.flags", "flag")
    preset = _get(va, "basic_preset", "variants", dict)
    if sorted(preset) != sorted(f.flag for f in flags):
        raise ContentError("variants.basic_preset", f"keys {sorted(preset)} must be the flags {sorted(f.flag for f in flags)}")
    params = _get(va, "parameters", "variants", dict)
    for k in ("max_rounds", "margin_weight", "margin_scale"):
        _get(_get(params, k, "variants.parameters", dict), "default", f"variants.parameters.{k}")
    variants = Variants(flags, tuple(preset.items()), tuple((k, v["default"]) for k, v in params.items()),
                        tuple((k, v.get("allowed", "")) for k, v in params.items()))
    vi = _get(raw, "visibility", "<root>", dict)
    pairs = lambda key: tuple((_get(x, "item", f"visibility.{key}[{i}]", str), x.get("detail", ""))  # noqa: E731
                              for i, x in enumerate(_get(vi, key, "visibility", list)))
    visibility = Visibility(pairs("public"), pairs("owner_private"), pairs("hidden_from_all"),
                            _get(vi, "hands", "visibility", str), tuple(_get(vi, "public_history", "visibility", list)),
                            tuple(_get(vi, "resampler", "visibility", list)))
    de = _get(raw, "decisions", "<root>", dict)
    n = _get(de, "num_actions", "decisions", int)
    if n != EXPECTED["num_actions"]:
        raise ContentError("decisions.num_actions", f"expected {EXPECTED['num_actions']}, got {n}")
    blocks, off = [], 0
    for i, b in enumerate(_get(de, "action_blocks", "decisions", list)):
        p = f"decisions.action_blocks[{i}]"
        blk = ActionBlock(_get(b, "block", p, str), _get(b, "offset", p, int), _get(b, "size", p, int), b.get("meaning", ""))
        if blk.offset != off or blk.size < 1:
            raise ContentError(p, f"block {blk.name} starts at {blk.offset}, expected {off} (blocks must be contiguous)")
        off += blk.size
        blocks.append(blk)
    if off != n:
        raise ContentError("decisions.action_blocks", f"blocks cover {off} actions, num_actions is {n}")
    _unique([b.name for b in blocks], "decisions.action_blocks", "block")
    kinds = tuple(DecisionKind(_get(k, "kind", f"decisions.kinds[{i}]", str), k.get("blocks", ""), k.get("note", ""))
                  for i, k in enumerate(_get(de, "kinds", "decisions", list)))
    _unique([k.kind for k in kinds], "decisions.kinds", "decision kind")
    decisions = Decisions(n, tuple(blocks), kinds, tuple(de.get("rules", ())))
    sc = _get(raw, "scoring", "<root>", dict)
    scoring = Scoring(tuple(_get(sc, "human", "scoring", list)), sc.get("silver_guard_pre_step", ""),
                      _get(sc, "tie_break", "scoring", str), tuple(_get(sc, "returns", "scoring", dict).items()))
    return relic_map, tuple(acts.items()), procedures, variants, visibility, decisions, scoring


def build_content(raw: Mapping[str, Any]) -> Content:
    """Validate a parsed content document and build :class:`Content` (see :func:`load_content`).

    Raises:
        ContentError: the first problem found, naming its key path.
    """
    b = _Builder(raw)
    constants = b.constants()
    ascension = b.ascension()
    tiles = {t.id: t for t in ascension.tiles}
    soc_raw = _get(raw, "societies", "<root>", dict)
    if tuple(soc_raw) != SOCIETY_IDS:
        raise ContentError("societies", f"expected {list(SOCIETY_IDS)}, got {list(soc_raw)}")
    societies = {sid: b.society(sid, s, tiles) for sid, s in soc_raw.items()}
    sec_raw = _get(raw, "secrets", "<root>", dict)
    conj_raw = _get(raw, "conjunction_secrets", "<root>", dict)
    templates, trap_templates = b.templates()
    secrets, conj_secrets = {}, {}
    for sid in SOCIETY_IDS:
        lst = _get(sec_raw, sid, "secrets", list)
        _count(lst, EXPECTED["secrets_per_society"], f"secrets.{sid}", "Secrets")
        cards = tuple(b.secret(x, f"secrets.{sid}[{i}]", sid, i, False) for i, x in enumerate(lst))
        per_level = tuple(sum(1 for c in cards if c.level == lv) for lv in (1, 2, 3, 4))
        if per_level != EXPECTED["secrets_per_level"]:
            raise ContentError(f"secrets.{sid}", f"Secrets per Level I-IV {list(per_level)}, expected "
                                                 f"{list(EXPECTED['secrets_per_level'])}")
        for i, c in enumerate(cards):
            _check_templates(c, templates, trap_templates, f"secrets.{sid}[{i}]")
        secrets[sid] = cards
        conj_secrets[sid] = b.secret(_get(conj_raw, sid, "conjunction_secrets", dict), f"conjunction_secrets.{sid}",
                                     sid, EXPECTED["secrets_per_society"], True)
    _unique([c.id for sid in SOCIETY_IDS for c in secrets[sid] + (conj_secrets[sid],)], "secrets", "Secret")
    relics_raw = _get(raw, "relics", "<root>", list)
    _unique([r.get("id") for r in relics_raw if isinstance(r, dict)], "relics", "relic")
    _count(relics_raw, EXPECTED["relics"], "relics", "relics")
    relics = tuple(b.relic(r, f"relics[{i}]", i) for i, r in enumerate(relics_raw))
    conj_list = _get(raw, "conjunctions", "<root>", list)
    _unique([j.get("id") for j in conj_list if isinstance(j, dict)], "conjunctions", "conjunction")
    _count(conj_list, EXPECTED["conjunctions"], "conjunctions", "conjunctions")
    conjunctions = tuple(b.conjunction(j, f"conjunctions[{i}]", i) for i, j in enumerate(conj_list))
    misc = _build_misc(raw)
    dec = misc[5]
    for name, size in (("RELIC", len(relics)), ("TILE", len(ascension.tiles)), ("BOARD", len(ascension.board_slots)),
                       ("SECRET", EXPECTED["secrets_per_society"] + 1), ("MAP", len(misc[0].map_order)),
                       ("SUIT", len(constants.suits))):
        blk = dec.block(name) if name in dec.block_names else None
        if blk is None or blk.size != size:
            raise ContentError("decisions.action_blocks", f"block {name} must have size {size}")
    return Content(raw=raw, constants=constants, dsl=b.spec, societies=societies, secrets=secrets,
                   conjunction_secrets=conj_secrets, secret_templates=templates, trap_templates=trap_templates,
                   relics=relics, conjunctions=conjunctions, ascension=ascension, relic_map=misc[0],
                   actions=misc[1], procedures=misc[2], variants=misc[3], visibility=misc[4],
                   decisions=misc[5], scoring=misc[6])


def _check_templates(card: SecretCard, templates: Mapping, traps: Mapping, path: str) -> None:
    """A Secret's options equal its templates at its Level (design §6.1-6.2)."""
    if len(card.templates) != len(card.options):
        raise ContentError(f"{path}.templates", f"{len(card.templates)} templates for {len(card.options)} options")
    for k, (name, opt) in enumerate(zip(card.templates, card.options)):
        if name not in templates:
            raise ContentError(f"{path}.templates[{k}]", f"unknown template {name!r}")
        if templates[name][card.level - 1] != (opt.cost, opt.effect):
            raise ContentError(f"{path}.effects[{k}]", f"differs from template {name!r} at Level {card.level}")
    if card.trap_template is not None:
        if card.trap_template not in traps:
            raise ContentError(f"{path}.trap_template", f"unknown trap template {card.trap_template!r}")
        if traps[card.trap_template][card.level - 1] != card.trap:
            raise ContentError(f"{path}.trap", f"differs from trap template {card.trap_template!r}")
