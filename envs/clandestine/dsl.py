"""The Clandestine effect language (design clandestine_content.md §4, JSON ``dsl``), compiled.

Every card effect (Secrets, traps, Relics, Conjunctions, Ascension tiles, alchemy trades, suit
effects, empty-slot rewards) is a JSON list of steps ``{"op": NAME, ...params}``. This module
compiles each effect once into a tuple of frozen op objects, checking every step against the
op's declared parameters in the content's own ``dsl.ops`` table; :mod:`envs.clandestine.ops`
executes them. Bad content raises :class:`ContentError` naming the key path and the problem.

Op classes (field names = the JSON parameter names; ``A`` = :data:`Amount`, ``E`` = :data:`Effect`):

============== ============== ========================================== ==============
op             class          fields                                     society only
============== ============== ========================================== ==============
gain           Gain           res (gold/energy/intrigue/chaos), n: A
lose           Lose           res (gold/energy/chaos), n: A
strength       Strength       n: A (may be negative)
draw_secret    DrawSecret     n: A
draw_relic     DrawRelic      n: A
act            Act            action (fundraise ... revolt), strength: A  revolt only
add_uf         AddUf          n: A, where (own_sidewalk/own_S1)
move           Move           pawns: tuple of pf/uf/pl, count: A,
                              dist: A, zone (public), dir (forward/either)
new_leader     NewLeader      ignore_level: bool
deep_alchemy   DeepAlchemy    n: int
assign         Assign         slot (empty/filled/any)
extra_secret   ExtraSecret    (none)
extra_action   ExtraAction    leader (public)
opponents      Opponents      who (each), effect: E
choose         Choose         options: tuple of E
spend_uf       SpendUf        max: A, each: E
military_sweep MilitarySweep  (none)
invest         Invest         n: A, target (space/route/any), src         yes
                              (own/supply)
place_chaos    PlaceChaos     n: A, target (space_or_relic/alchemy_panel) yes
                              src (supply/own)
initiate       Initiate       n: A                                       yes
prime          Prime          n: A                                       yes
extend         Extend         n: A                                       yes
============== ============== ========================================== ==============

An :data:`Amount` is an ``int`` or a :class:`Per` (``{per: COUNTABLE, mult?, div?, add?, max?}``,
value ``min(max, floor(count * mult / div) + add)``); countables are the content's
``dsl.countables`` (``assigned_icons:<Suit>`` takes a suit). An :data:`Effect` is a tuple of ops.

Compiled objects are immutable, hashable, picklable, and shared by ``copy.deepcopy`` (an engine
state that holds a pending effect copies cheaply).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Iterator, Mapping, Union


class ContentError(ValueError):
    """Invalid Clandestine content: ``path`` is the JSON key path, ``problem`` what is wrong.

    ``str(error)`` is ``"<path>: <problem>"``, e.g. ``"relics[3].effect[0]: unknown op 'fly'"``.
    """

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class Immutable:
    """Base of immutable records: shared, not copied, by ``copy.copy`` / ``copy.deepcopy`` (an
    engine state holding compiled ops or content records copies cheaply)."""

    __slots__ = ()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


# -------------------------------------------------------------------------------------- amounts


@dataclass(frozen=True)
class Per(Immutable):
    """An Amount that counts something of the seat it applies to (design §4 "Amount").

    Attributes:
        countable: a name of ``dsl.countables`` without its suit (e.g. ``"assigned_icons"``).
        suit: the suit of ``assigned_icons:<Suit>``, else ``None``.
        mult, div, add: value = floor(count * mult / div) + add.
        max: upper bound of the value, or ``None``.
    """

    countable: str
    suit: str | None = None
    mult: int = 1
    div: int = 1
    add: int = 0
    max: int | None = None

    def value(self, count: int) -> int:
        """The Amount's value for ``count`` (an int >= 0): min(max, floor(count*mult/div) + add)."""
        v = (count * self.mult) // self.div + self.add
        return v if self.max is None else min(self.max, v)

    def __str__(self) -> str:
        name = self.countable + (f":{self.suit}" if self.suit else "")
        s = (
            (f"{self.mult}x " if self.mult != 1 else "")
            + name
            + (f"/{self.div}" if self.div != 1 else "")
        )
        s += f"+{self.add}" if self.add else ""
        return f"[{s}" + (f" (max {self.max})]" if self.max is not None else "]")


Amount = Union[int, Per]


# ----------------------------------------------------------------------------------- op classes


@dataclass(frozen=True)
class Op(Immutable):
    """Base of the compiled steps; ``name`` is the JSON ``op`` and ``society_only`` marks the
    steps that do nothing with ``society_powers = False`` (design §11, ruling 36)."""

    name: ClassVar[str] = ""
    society_only: ClassVar[bool] = False


OP_CLASSES: dict[str, type[Op]] = {}


def _op(name: str, society_only: bool = False):
    def deco(cls):
        cls = dataclass(frozen=True)(cls)
        cls.name = name
        cls.society_only = society_only
        OP_CLASSES[name] = cls
        return cls

    return deco


@_op("gain")
class Gain(Op):
    """Take n of res from the supply (Chaos fills the meter, then overflow)."""

    res: str
    n: Amount


@_op("lose")
class Lose(Op):
    """Return up to n of res to the supply (Chaos: overflow, then meter top-down; not a Purge)."""

    res: str
    n: Amount


@_op("strength")
class Strength(Op):
    """Strength modifier n (may be negative): pending, or applied to the Action being resolved."""

    n: Amount


@_op("draw_secret")
class DrawSecret(Op):
    """Draw n Secrets from your own deck (fewer if it runs out)."""

    n: Amount


@_op("draw_relic")
class DrawRelic(Op):
    """Draw n Relics from the top of the Relic deck (fewer if it runs out)."""

    n: Amount


@_op("act")
class Act(Op):
    """Perform an Action's effect with a given Strength at no space."""

    action: str
    strength: Amount


@_op("add_uf")
class AddUf(Op):
    """Place n Universal Followers from the supply on your Sidewalks (chosen per pawn) or S1."""

    n: Amount
    where: str


@_op("move")
class Move(Op):
    """Move up to count Public-path pawns of the listed types 0..dist spaces each."""

    pawns: tuple[str, ...]
    count: Amount
    dist: Amount
    zone: str
    dir: str


@_op("new_leader")
class NewLeader(Op):
    """Initiate a new Society Leader in place of a UF on your path (strict)."""

    ignore_level: bool


@_op("deep_alchemy")
class DeepAlchemy(Op):
    """Take n Deep Alchemy tokens from the box (fewer if it has fewer)."""

    n: int


@_op("assign")
class Assign(Op):
    """Assign a Relic from hand to an empty / filled / any slot (Dark only in slots 3-4)."""

    slot: str


@_op("extra_secret")
class ExtraSecret(Op):
    """You may play one additional Secret this turn (PRE window only)."""


@_op("extra_action")
class ExtraAction(Op):
    """Take one additional full Action with a Public Leader now."""

    leader: str


@_op("opponents")
class Opponents(Op):
    """Apply ``effect`` to each opponent, clockwise from you, as that player's own effect."""

    who: str
    effect: tuple[Op, ...]


@_op("choose")
class Choose(Op):
    """Choose one of ``options`` (effects) and perform it."""

    options: tuple[tuple[Op, ...], ...]


@_op("spend_uf")
class SpendUf(Op):
    """Return up to max UF from your Society path; perform ``each`` once per returned UF."""

    max: Amount
    each: tuple[Op, ...]


@_op("military_sweep")
class MilitarySweep(Op):
    """Followers on Public spaces without a Public Leader move to the next one that has one."""


@_op("invest", society_only=True)
class Invest(Op):
    """Garden Club: put n Gold (own: strict; supply: as much as fits) on a space or Route."""

    n: Amount
    target: str
    src: str


@_op("place_chaos", society_only=True)
class PlaceChaos(Op):
    """Twilight Masks: place n Chaos one at a time on spaces/Map Relics or opponents' panels."""

    n: Amount
    target: str
    src: str


@_op("initiate", society_only=True)
class Initiate(Op):
    """Serpent Keepers: Initiate n different un-initiated spaces."""

    n: Amount


@_op("prime", society_only=True)
class Prime(Op):
    """Serpent Keepers: prime up to n Secrets from hand next to Initiated spaces."""

    n: Amount


@_op("extend", society_only=True)
class Extend(Op):
    """Mariners' Union: n times, reveal the top Relic into an empty Extension slot."""

    n: Amount


Effect = tuple[Op, ...]
"""A compiled effect: the steps in order, for the owner ('you')."""


# ------------------------------------------------------------------------------------- the spec

_ENUM_RE = re.compile(r"[A-Za-z_0-9]+(\|[A-Za-z_0-9]+)*")


@dataclass(frozen=True)
class ParamSpec(Immutable):
    """One declared op parameter: ``kind`` is amount / int / bool / effect / effects / enum /
    enum_list; ``values`` the allowed words of an enum."""

    kind: str
    values: tuple[str, ...] = ()


def parse_param_decl(decl: str, path: str) -> ParamSpec:
    """Parse a ``dsl.ops.<op>.params`` declaration string (e.g. ``"gold|energy"``, ``"Amount"``,
    ``"list of Effect"``, ``"list of pf|uf|pl"``) into a :class:`ParamSpec`.

    Raises:
        ContentError: the declaration is none of the known forms.
    """
    if not isinstance(decl, str):
        raise ContentError(path, f"parameter declaration must be a string, got {decl!r}")
    d = decl.strip()
    if d.startswith("Amount"):
        return ParamSpec("amount")
    if d in ("int", "bool"):
        return ParamSpec(d)
    if d == "Effect":
        return ParamSpec("effect")
    if d == "list of Effect":
        return ParamSpec("effects")
    if d.startswith("list of ") and _ENUM_RE.fullmatch(d[8:]):
        return ParamSpec("enum_list", tuple(d[8:].split("|")))
    if _ENUM_RE.fullmatch(d):
        return ParamSpec("enum", tuple(d.split("|")))
    raise ContentError(path, f"unknown parameter declaration {decl!r}")


@dataclass(frozen=True)
class DslSpec(Immutable):
    """The effect language as declared by the content (JSON ``dsl``), used to compile effects.

    Attributes:
        ops: op name -> ((param name, :class:`ParamSpec`), ...), in declaration order.
        countables: plain countable names (``assigned_icons:<Suit>`` is stored as
            ``assigned_icons``).
        suited_countables: countables that take ``:<Suit>``.
        mods: eye mod names; events: trigger event names; suits: the four suits.
        semantics: op name -> the declared semantics text.
    """

    ops: tuple[tuple[str, tuple[tuple[str, ParamSpec], ...]], ...]
    countables: frozenset[str]
    suited_countables: frozenset[str]
    mods: frozenset[str]
    events: frozenset[str]
    suits: tuple[str, ...]
    semantics: tuple[tuple[str, str], ...] = ()

    def params(self, op: str) -> tuple[tuple[str, ParamSpec], ...] | None:
        """The declared parameters of ``op``, or ``None`` if the op is not declared."""
        for name, ps in self.ops:
            if name == op:
                return ps
        return None

    @classmethod
    def from_json(
        cls, dsl: Mapping[str, Any], suits: tuple[str, ...], path: str = "dsl"
    ) -> "DslSpec":
        """Build the spec from the content's ``dsl`` section.

        Raises:
            ContentError: a missing key, a bad declaration, or a declared op without an
                implementation (or whose parameters differ from the implemented class).
        """
        for key in ("ops", "countables", "mods", "events"):
            if not isinstance(dsl.get(key), dict):
                raise ContentError(f"{path}.{key}", "missing or not an object")
        ops = []
        for name, spec in dsl["ops"].items():
            p = f"{path}.ops.{name}"
            if not isinstance(spec, dict) or not isinstance(spec.get("params"), dict):
                raise ContentError(p, "needs a 'params' object")
            cls_ = OP_CLASSES.get(name)
            if cls_ is None:
                raise ContentError(
                    p,
                    f"declared op {name!r} has no implementation "
                    f"(known: {', '.join(sorted(OP_CLASSES))})",
                )
            declared = tuple(
                (k, parse_param_decl(v, f"{p}.params.{k}")) for k, v in spec["params"].items()
            )
            impl = [f.name for f in fields(cls_)]
            if sorted(impl) != sorted(k for k, _ in declared):
                raise ContentError(
                    p,
                    f"declared params {sorted(k for k, _ in declared)} differ from "
                    f"the implementation's {sorted(impl)}",
                )
            ops.append((name, declared))
        plain, suited = set(), set()
        for c in dsl["countables"]:
            if c.endswith(":<Suit>"):
                suited.add(c[: -len(":<Suit>")])
            else:
                plain.add(c)
        events = set()
        for e in dsl["events"]:
            events.update(e.split("|"))
        return cls(
            tuple(ops),
            frozenset(plain),
            frozenset(suited),
            frozenset(dsl["mods"]),
            frozenset(events),
            tuple(suits),
            tuple((n, s.get("semantics", "")) for n, s in dsl["ops"].items()),
        )


# ------------------------------------------------------------------------------------- compiler

_AMOUNT_KEYS = {"per", "mult", "div", "add", "max"}


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def compile_amount(raw: Any, spec: DslSpec, path: str) -> Amount:
    """Compile an Amount: an int, or ``{per, mult?, div?, add?, max?}`` into a :class:`Per`.

    Raises:
        ContentError: not an int or object, unknown keys, unknown countable or suit, a
            non-integer field, or ``div`` < 1.
    """
    if _is_int(raw):
        return raw
    if not isinstance(raw, dict):
        raise ContentError(path, f"an Amount must be an int or an object, got {raw!r}")
    extra = set(raw) - _AMOUNT_KEYS
    if extra:
        raise ContentError(path, f"unknown Amount keys {sorted(extra)}")
    per = raw.get("per")
    if not isinstance(per, str):
        raise ContentError(path, f"an Amount object needs 'per' (a countable), got {raw!r}")
    base, _, suit = per.partition(":")
    if suit:
        if base not in spec.suited_countables:
            raise ContentError(path, f"unknown countable {per!r}")
        if suit not in spec.suits:
            raise ContentError(path, f"unknown suit {suit!r} in countable {per!r}")
    elif base not in spec.countables:
        raise ContentError(path, f"unknown countable {per!r}")
    for k in ("mult", "div", "add", "max"):
        if k in raw and not _is_int(raw[k]):
            raise ContentError(path, f"Amount {k} must be an int, got {raw[k]!r}")
    if raw.get("div", 1) < 1:
        raise ContentError(path, f"Amount div must be >= 1, got {raw['div']}")
    return Per(
        base, suit or None, raw.get("mult", 1), raw.get("div", 1), raw.get("add", 0), raw.get("max")
    )


def compile_step(raw: Any, spec: DslSpec, path: str) -> Op:
    """Compile one step ``{"op": NAME, ...}`` against its declaration in ``spec``.

    Raises:
        ContentError: not an object, unknown op, missing or unexpected parameters, an enum value
            out of range, a bad Amount / int / bool, or a bad nested effect.
    """
    if not isinstance(raw, dict):
        raise ContentError(path, f"a step must be an object, got {raw!r}")
    name = raw.get("op")
    declared = spec.params(name) if isinstance(name, str) else None
    if declared is None:
        raise ContentError(path, f"unknown op {name!r}")
    names = {k for k, _ in declared}
    have = set(raw) - {"op"}
    if have != names:
        missing, extra = sorted(names - have), sorted(have - names)
        raise ContentError(
            path,
            f"op {name!r}: "
            + "; ".join(
                ([f"missing params {missing}"] if missing else [])
                + ([f"unexpected params {extra}"] if extra else [])
            ),
        )
    kw = {}
    for key, ps in declared:
        v, p = raw[key], f"{path}.{key}"
        if ps.kind == "amount":
            kw[key] = compile_amount(v, spec, p)
        elif ps.kind == "int":
            if not _is_int(v) or v < 0:
                raise ContentError(p, f"must be an int >= 0, got {v!r}")
            kw[key] = v
        elif ps.kind == "bool":
            if not isinstance(v, bool):
                raise ContentError(p, f"must be true or false, got {v!r}")
            kw[key] = v
        elif ps.kind == "effect":
            kw[key] = compile_effect(v, spec, p)
        elif ps.kind == "effects":
            if not isinstance(v, list) or not v:
                raise ContentError(p, f"must be a non-empty list of effects, got {v!r}")
            kw[key] = tuple(compile_effect(x, spec, f"{p}[{i}]") for i, x in enumerate(v))
        elif ps.kind == "enum":
            if v not in ps.values:
                raise ContentError(p, f"{v!r} is not one of {list(ps.values)}")
            kw[key] = v
        else:  # enum_list
            if not isinstance(v, list) or not v:
                raise ContentError(p, f"must be a non-empty list of {list(ps.values)}, got {v!r}")
            for x in v:
                if x not in ps.values:
                    raise ContentError(p, f"{x!r} is not one of {list(ps.values)}")
            kw[key] = tuple(v)
    return OP_CLASSES[name](**kw)


def compile_effect(raw: Any, spec: DslSpec, path: str) -> Effect:
    """Compile an effect (a JSON list of steps) into a tuple of ops.

    Raises:
        ContentError: not a list, or a bad step (see :func:`compile_step`).
    """
    if not isinstance(raw, list):
        raise ContentError(path, f"an effect must be a list of steps, got {raw!r}")
    return tuple(compile_step(s, spec, f"{path}[{i}]") for i, s in enumerate(raw))


# -------------------------------------------------------------------------------------- helpers


def walk(effect: Effect) -> Iterator[Op]:
    """Every op of ``effect``, nested ones included (depth first, in order)."""
    for op in effect:
        yield op
        if isinstance(op, Opponents):
            yield from walk(op.effect)
        elif isinstance(op, Choose):
            for o in op.options:
                yield from walk(o)
        elif isinstance(op, SpendUf):
            yield from walk(op.each)


def is_society_only(op: Op) -> bool:
    """Whether ``op`` does nothing with ``society_powers = False`` (ruling 36): invest,
    place_chaos, initiate, prime, extend and ``act revolt``."""
    return op.society_only or (isinstance(op, Act) and op.action == "revolt")


def only_society_steps(effect: Effect) -> bool:
    """Whether a (non-empty) effect is made only of society-only steps: such a Secret option
    cannot be chosen with ``society_powers = False`` (design §4 "Option")."""
    return bool(effect) and all(is_society_only(op) for op in effect)


def only_extra_secret(effect: Effect) -> bool:
    """Whether an effect is made only of ``extra_secret`` steps: such a hood tile may be flipped
    only in the PRE window (design §4 card field ``hood``)."""
    return bool(effect) and all(isinstance(op, ExtraSecret) for op in effect)


def describe(effect: Effect) -> str:
    """A compact one-line text of an effect, for rendering and error messages."""
    parts = []
    for op in effect:
        if isinstance(op, Opponents):
            parts.append(f"each opponent: ({describe(op.effect)})")
        elif isinstance(op, Choose):
            parts.append("choose: " + " OR ".join(f"({describe(o)})" for o in op.options))
        elif isinstance(op, SpendUf):
            parts.append(f"spend_uf up to {op.max}: each ({describe(op.each)})")
        else:
            args = ", ".join(f"{f.name}={getattr(op, f.name)}" for f in fields(op))
            parts.append(f"{op.name}({args})" if args else op.name)
    return "; ".join(parts) if parts else "(nothing)"
