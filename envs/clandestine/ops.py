"""Executing compiled Clandestine effects (design clandestine_content.md §4, JSON ``dsl``).

One function per op, registered in :data:`OPS` by the :func:`register` decorator, each run
against an :class:`EffectContext`: the abstract interface the engine implements (resources,
decks, pawns, Relic slots, Society powers, decisions). The ops hold the rules of the language:
how much of a step can be done (the design's "impossible steps"), variant flags, the order of
choices; the context holds the state and the City geometry.

"Impossible" semantics (``dsl.impossible``, ruling 25): apart from a Secret option's cost
(all-or-nothing, see :func:`option_allowed`), a step never fails: it does as much as it can and
skips the rest (drawing from a short deck draws fewer, losing more than you have loses all,
placing from a short supply places fewer, a step with no legal target does nothing). The
*strict* steps are skipped entirely unless their whole requirement is met: ``new_leader`` (needs
a Universal Follower on your Society path, and the cutout's Level gate unless ``ignore_level``)
and ``invest`` with ``src = own`` (needs n Gold and one object with room for all n).

============== ============================== =========================== ========================
op             asks (decision kind, §1.7)     does at most                flags / guards
============== ============================== =========================== ========================
gain           -                              n of res                    chaos (Chaos), tracks
lose           -                              min(n, what you hold)       tracks
strength       -                              add n (may be < 0)
draw_secret    -                              min(n, your deck)           tracks('secret')
draw_relic     -                              min(n, Relic deck)          tracks('relic')
act            (the Action's own)             one Action at no space      act revolt: society_powers
add_uf         target (Sidewalk, per pawn)    min(n, UF supply)
move           pawn_pick (PASS), distance     count pawns, 0..dist each
new_leader     pawn_pick (which UF)           strict                      (4 Intrigue if no cutout)
deep_alchemy   -                              min(n, box)                 deep_alchemy
assign         assign (relic, slot)           one, if any legal pair      Dark only slots 3-4
extra_secret   -                              grant 1
extra_action   (SELECT_LEADER, Action)        one extra Action
opponents      (theirs)                       each opponent clockwise
choose         choose (option index)          the chosen effect
spend_uf       pawn_pick (PASS)               up to max, 'each' per UF
military_sweep -                              the sweep
invest         target (space/Route)           own: strict; supply: fits   society_powers, garden
place_chaos    target / panel (per token)     while room and Chaos        society_powers, twilight
initiate       target (space, per space)      while targets               society_powers, serpent
prime          prime (secret, space) (PASS)   up to n                     society_powers, serpent
extend         target (E slot, per card)      while empty slot and deck   society_powers,
                                                                          map_extension, mariners
============== ============================== =========================== ========================

Decisions and pausing. An op asks through :meth:`OpState.ask`, which calls
``ctx.decide(request)``. A context may answer at once (a scripted or Nemesis choice, or a
single legal option: the ops never ask when there is exactly one option and no PASS), or raise
:class:`Suspend` to pause; the :class:`EffectRunner` then keeps its frames (plain picklable data)
and :meth:`EffectRunner.resume` re-enters the paused op with the answer. ``ctx.perform_action``
and ``ctx.extra_action`` may also raise :class:`Suspend` after scheduling the Action; the runner
is resumed with ``None`` once the Action has resolved. Ops record their progress in their frame
before each call that may pause, so re-entry never repeats a change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping, Protocol, Sequence

from . import dsl
from .dsl import Op, Per

#: Intrigue gained by new_leader when all four cutouts are empty (dsl.ops.new_leader;
#: societies.<id>.leaders.all_leaders_out_reward).
ALL_LEADERS_OUT_INTRIGUE = 4
#: Society whose power each society-only op is (design §5.2-5.6).
OP_SOCIETY = {
    "invest": "garden",
    "place_chaos": "twilight",
    "initiate": "serpent",
    "prime": "serpent",
    "extend": "mariners",
}


class Suspend(Exception):
    """Raised by a context method to pause the running effect (see the module docstring)."""


@dataclass(frozen=True)
class Request:
    """A decision an effect needs from ``seat``.

    Attributes:
        seat: the deciding seat (the effect's owner, or the opponent inside ``opponents``).
        kind: the §1.7 decision kind: ``target``, ``pawn_pick``, ``distance``, ``choose``,
            ``assign`` or ``prime``.
        options: the legal answers: space / object ids (``target``), ``(space, pawn type)``
            (``pawn_pick``), ``(direction, steps)`` with direction ``"forward"``/``"backward"``
            (``distance``), option indices (``choose``), ``(relic id, slot)`` (``assign``),
            ``(secret id, space)`` (``prime``).
        can_pass: whether ``None`` (PASS/STOP) is a legal answer ('up to' steps).
        op: the op asking (e.g. ``"invest"``), for the observation's decision context.
        info: ((key, value), ...) more context (e.g. ``("remaining", 2)``).
    """

    seat: int
    kind: str
    options: tuple
    can_pass: bool = False
    op: str = ""
    info: tuple = ()

    def check(self, answer: Any) -> None:
        """Raise ValueError unless ``answer`` is legal for this request."""
        if answer is None and self.can_pass:
            return
        if answer not in self.options:
            raise ValueError(
                f"{answer!r} is not a legal answer to {self.kind} ({self.op}) for seat "
                f"{self.seat}: options {list(self.options)}" + (" or None" if self.can_pass else "")
            )


class EffectContext(Protocol):
    """What the ops need from the engine. ``seat`` is always the seat the step applies to.

    Spaces, Routes, panels and slots are engine ids (hashable); ops pass them back unchanged.
    Methods marked *may pause* may raise :class:`Suspend`.
    """

    content: Any
    """The :class:`~envs.clandestine.content.Content` in play."""

    # ----- queries
    def flag(self, name: str) -> bool:
        """Value of a variant flag of ``variants.flags`` (e.g. ``"chaos"``)."""

    def tracks(self, seat: int, what: str) -> bool:
        """Whether the seat keeps ``what`` (gold, energy, intrigue, chaos, deep_alchemy, secret,
        relic): False for what a Nemesis ignores (design §10.1)."""

    def society(self, seat: int) -> str | None:
        """The seat's Society id, or None for a Nemesis."""

    def opponents(self, seat: int) -> Sequence[int]:
        """The other seats, clockwise starting left of ``seat``."""

    def count(self, seat: int, countable: str, suit: str | None) -> int:
        """A ``dsl.countables`` value (``suit`` only for ``assigned_icons``), >= 0."""

    def holding(self, seat: int, res: str) -> int:
        """Held gold / energy / intrigue / deep_alchemy; for ``chaos`` the Chaos a ``lose`` can
        remove (overflow + meter, never Masks' Chaos on panels)."""

    def supply(self, item: str) -> int | None:
        """What is left of a limited supply: ``"uf"`` (None when unlimited: finite_pawns off),
        ``"deep_alchemy"`` (the box of 12)."""

    def deck_size(self, seat: int, deck: str) -> int:
        """Cards left in the seat's Secret deck (``"secret"``) or the Relic deck (``"relic"``)."""

    def spaces(self, seat: int, zone: str) -> Sequence[Hashable]:
        """The seat's spaces of an ``add_uf`` zone: ``own_sidewalk`` (S1-S3) or ``own_S1``."""

    def pawns(self, seat: int, zone: str, types: Sequence[str]) -> Mapping[tuple, int]:
        """``{(space, type): count}`` of pawns of ``types`` in ``zone``: ``public`` (Public-path
        spaces, never Chambers, never other players' Society Leaders) or ``own_path`` (the
        seat's Society path)."""

    def path_length(self, zone: str) -> int:
        """Number of spaces of the ``public`` loop (5N)."""

    def is_sidewalk(self, seat: int, space: Hashable) -> bool:
        """Whether ``space`` is one of the seat's Sidewalks."""

    def next_cutout(self, seat: int) -> tuple[int, int] | None:
        """(cutout number, min Level) of the lowest-numbered occupied cutout, or None."""

    def relic_hand(self, seat: int) -> Sequence[str]:
        """Relic ids in the seat's hand."""

    def relic_slots(self, seat: int) -> Sequence[str | None]:
        """The seat's six Relic slots (slot 1 first): a Relic id or None."""

    def secret_hand(self, seat: int) -> Sequence[str]:
        """Secret ids in the seat's hand."""

    def invest_room(self, seat: int, target: str) -> Mapping[Hashable, int]:
        """``{object: room}`` of objects of ``target`` (space / route / any) that can take more
        invested Gold (caps: 4 per space, 2 per Route)."""

    def chaos_targets(self, seat: int, target: str) -> Sequence[Hashable]:
        """Objects of ``target`` (space_or_relic / alchemy_panel) holding fewer than 3 Masks'
        Chaos."""

    def initiate_targets(self, seat: int) -> Sequence[Hashable]:
        """Un-initiated Public-path spaces and the seat's own un-initiated Chambers."""

    def prime_spaces(self, seat: int) -> Sequence[Hashable]:
        """Initiated spaces holding fewer primed Secrets than the seat's Level."""

    def empty_extension_slots(self) -> Sequence[str]:
        """Empty Extension slots (E1-E4) when the Map has them."""

    # ----- changes
    def gain(self, seat: int, res: str, n: int) -> None:
        """Add n > 0 gold / energy / intrigue / chaos (meter then overflow) / deep_alchemy."""

    def lose(self, seat: int, res: str, n: int) -> None:
        """Remove n, 0 < n <= holding(seat, res) (Chaos: overflow, then meter top-down)."""

    def add_strength(self, seat: int, n: int) -> None:
        """A Strength modifier: pending, or on the Action being resolved (dsl.ops.strength)."""

    def draw(self, seat: int, deck: str, n: int) -> None:
        """Draw n <= deck_size cards from ``deck`` into the seat's hand."""

    def perform_action(self, seat: int, action: str, strength: int) -> None:
        """Resolve an ``act`` Action (no space) with the given Strength. *May pause.*"""

    def extra_action(self, seat: int) -> None:
        """Take an extra full Action with a Public Leader. *May pause.*"""

    def grant_extra_secret(self, seat: int) -> None:
        """Allow one more Secret this turn (void after the PRE window)."""

    def place_uf(self, seat: int, space: Hashable) -> None:
        """Put one Universal Follower from the supply on ``space``."""

    def move_pawn(
        self, seat: int, space: Hashable, pawn: str, steps: int, backward: bool
    ) -> Hashable:
        """Move one ``pawn`` from ``space`` ``steps`` along the Public path; return where it
        ends."""

    def return_uf(self, seat: int, space: Hashable) -> None:
        """Return one Universal Follower on ``space`` to the supply."""

    def initiate_leader(self, seat: int, space: Hashable) -> None:
        """Replace a UF on ``space`` by the leader of the lowest occupied cutout (unlock icon)."""

    def assign_relic(self, seat: int, relic: str, slot: int) -> None:
        """Assign ``relic`` from hand to ``slot`` (a Relic there returns to hand); Conjunction
        check."""

    def military_sweep(self) -> None:
        """Perform the Military sweep (design §4 ``military_sweep``)."""

    def invest(self, seat: int, obj: Hashable, n: int, src: str) -> None:
        """Put n Gold on ``obj``, from the seat's Gold (``own``) or the supply (``supply``)."""

    def put_chaos(self, seat: int, obj: Hashable) -> None:
        """Put one Masks' Chaos token on ``obj``."""

    def initiate_space(self, seat: int, space: Hashable) -> None:
        """Initiate ``space`` (an Intrigue token from the supply as a marker)."""

    def prime_secret(self, seat: int, secret: str, space: Hashable) -> None:
        """Place ``secret`` from hand face down by ``space``."""

    def extend(self, seat: int, slot: str) -> None:
        """Reveal the top Relic of the deck into Extension ``slot``."""

    def decide(self, request: Request) -> Any:
        """Answer ``request`` now, or raise :class:`Suspend`. *May pause.*"""


# --------------------------------------------------------------------------------------- runner


@dataclass(frozen=True)
class Push:
    """Returned by an op: run ``effect`` for ``seat`` now, then re-enter the op."""

    effect: dsl.Effect
    seat: int


@dataclass
class Frame:
    """One effect being run: its ops, the seat it applies to, the current op, its progress."""

    effect: dsl.Effect
    seat: int
    pc: int = 0
    state: dict = field(default_factory=dict)


_NO_ANSWER = "_answer"
#: Request kinds whose options depend on the asked seat's hidden hand (``assign``: which Relics
#: fit which slots; ``prime``: which Secrets): always asked, even with one option, so that whether
#: a seat decides never reveals its hand (issue 7 timing law; CONVENTIONS.md).
HIDDEN_KINDS = frozenset({"assign", "prime"})


class OpState:
    """An op's view of its frame: progress kept across pauses, and :meth:`ask`."""

    __slots__ = ("frame",)

    def __init__(self, frame: Frame):
        self.frame = frame

    @property
    def seat(self) -> int:
        """The seat the running effect applies to ('you')."""
        return self.frame.seat

    def get(self, key: str, default: Any = 0) -> Any:
        """A progress value of the op (``default`` if unset)."""
        return self.frame.state.get(key, default)

    def set(self, key: str, value: Any) -> None:
        """Record a progress value of the op (kept across pauses, dropped when the op ends)."""
        self.frame.state[key] = value

    def once(self, key: str, fn: Callable[[], Any]) -> Any:
        """``fn()`` computed on the op's first entry, then remembered."""
        st = self.frame.state
        if key not in st:
            st[key] = fn()
        return st[key]

    def first_time(self, key: str) -> bool:
        """True the first time it is called with ``key`` (marks it before a call that may pause)."""
        st = self.frame.state
        if st.get(key):
            return False
        st[key] = True
        return True

    def ask(self, ctx: EffectContext, request: Request) -> Any:
        """The answer to ``request``: the one given on resume, else ``ctx.decide(request)``.
        Never asks when there is one option and no PASS, except for :data:`HIDDEN_KINDS`."""
        st = self.frame.state
        if _NO_ANSWER in st:
            answer = st.pop(_NO_ANSWER)
            request.check(answer)
            return answer
        if len(request.options) == 1 and not request.can_pass \
                and request.kind not in HIDDEN_KINDS:
            return request.options[0]
        answer = ctx.decide(request)
        request.check(answer)
        return answer


OpFn = Callable[[Op, EffectContext, OpState], "Push | None"]
OPS: dict[str, OpFn] = {}


def register(name: str) -> Callable[[OpFn], OpFn]:
    """Register ``fn`` as the implementation of op ``name`` (a ``dsl.OP_CLASSES`` name)."""
    if name not in dsl.OP_CLASSES:
        raise KeyError(f"no op class for {name!r}")

    def deco(fn: OpFn) -> OpFn:
        OPS[name] = fn
        return fn

    return deco


class EffectRunner:
    """Runs one compiled effect for one seat, pausing for decisions (picklable, copyable).

    Usage: ``runner = EffectRunner(effect, seat); finished = runner.run(ctx)``; while not
    finished, answer ``runner.pending`` (a :class:`Request`, or None when a paused Action is
    being resolved) with ``finished = runner.resume(ctx, answer)``.
    """

    def __init__(self, effect: dsl.Effect, seat: int, source: str = ""):
        self.frames: list[Frame] = [Frame(tuple(effect), seat)]
        self.pending: Request | None = None
        self.source = source

    @property
    def done(self) -> bool:
        """Whether the effect has finished."""
        return not self.frames

    def run(self, ctx: EffectContext) -> bool:
        """Run until the effect finishes (True) or pauses (False)."""
        while self.frames:
            fr = self.frames[-1]
            if fr.pc >= len(fr.effect):
                self.frames.pop()
                continue
            op = fr.effect[fr.pc]
            try:
                out = OPS[op.name](op, ctx, OpState(fr))
            except Suspend as exc:
                self.pending = (
                    exc.args[0] if exc.args and isinstance(exc.args[0], Request) else None
                )
                return False
            if isinstance(out, Push):
                self.frames.append(Frame(out.effect, out.seat))
                continue
            fr.pc += 1
            fr.state = {}
        self.pending = None
        return True

    def resume(self, ctx: EffectContext, answer: Any = None) -> bool:
        """Give the answer to :attr:`pending` (``None`` after a paused Action) and run on.

        Raises:
            RuntimeError: the effect has finished.
            ValueError: ``answer`` is not legal for the pending request.
        """
        if not self.frames:
            raise RuntimeError("the effect has finished")
        if self.pending is not None:
            self.pending.check(answer)
            self.frames[-1].state[_NO_ANSWER] = answer
        elif answer is not None:
            raise ValueError(
                f"no decision is pending; resume a paused Action with None, got {answer!r}"
            )
        self.pending = None
        return self.run(ctx)


def run_effect(effect: dsl.Effect, seat: int, ctx: EffectContext, source: str = "") -> EffectRunner:
    """Start ``effect`` for ``seat``; returns the runner (``runner.done`` unless it paused)."""
    runner = EffectRunner(effect, seat, source)
    runner.run(ctx)
    return runner


def _ask_or_pause(st: OpState, ctx: EffectContext, request: Request) -> Any:
    try:
        return st.ask(ctx, request)
    except Suspend:
        raise Suspend(request) from None


def _pick_up_to(st: OpState, ctx: EffectContext, kind: str, options: tuple, n: int, op: str,
                can_pass: bool = False, count: bool = True) -> Any:
    """One pick of an op done up to ``n`` times (``add_uf``, ``move``, ``spend_uf``,
    ``place_chaos``, ``initiate``, ``prime``, ``extend``; design §4).

    Asks ``st.seat`` a ``kind`` :class:`Request` among ``options`` for op ``op``, with the picks
    still allowed (``n`` minus the op's ``"done"`` progress) as its ``("remaining", k)`` info;
    ``can_pass`` makes ``None`` (PASS: stop early) a legal answer. A pick is counted in
    ``"done"`` when ``count`` (``move`` counts a pawn only once its distance is chosen).

    Returns:
        The pick (one of ``options``), or ``None`` when the seat passed.

    Raises:
        Suspend: carrying the request, when the decision must be asked (the op is re-entered
            with the answer on resume).
    """
    pick = _ask_or_pause(st, ctx, Request(st.seat, kind, options, can_pass=can_pass, op=op,
                                          info=(("remaining", n - st.get("done")),)))
    if pick is not None and count:
        st.set("done", st.get("done") + 1)
    return pick


# -------------------------------------------------------------------------------------- amounts


def evaluate(amount: dsl.Amount, ctx: EffectContext, seat: int) -> int:
    """The value of an Amount for ``seat`` (design §4): an int as is, a :class:`~dsl.Per` as
    min(max, floor(count * mult / div) + add) with count = ``ctx.count``."""
    if isinstance(amount, Per):
        return amount.value(ctx.count(seat, amount.countable, amount.suit))
    return amount


def secret_option_cost(option: Any, mods: Mapping[str, int]) -> Any:
    """An option's cost after the eye mods ``no_secret_energy`` (Energy 0) and ``secret_energy``
    (Energy + n, min 0); ``mods`` sums the seat's active mods. Returns a ``content.Cost``."""
    energy = option.cost.energy
    if mods.get("no_secret_energy", 0) > 0:
        energy = 0
    else:
        energy = max(0, energy + mods.get("secret_energy", 0))
    return type(option.cost)(energy=energy, gold=option.cost.gold)


def option_allowed(
    card: Any, k: int, ctx: EffectContext, seat: int, mods: Mapping[str, int]
) -> bool:
    """Whether option ``k`` (0 = A, 1 = B) of Secret ``card`` may be chosen (design §4 "Option"):
    B needs ``secret_options_b``; with ``society_powers`` off an option made only of
    society-only steps cannot be chosen; its whole cost (after mods) must be payable."""
    if k == 1 and not ctx.flag("secret_options_b"):
        return False
    opt = card.options[k]
    if not ctx.flag("society_powers") and dsl.only_society_steps(opt.effect):
        return False
    cost = secret_option_cost(opt, mods)
    return ctx.holding(seat, "energy") >= cost.energy and ctx.holding(seat, "gold") >= cost.gold


def new_leader_possible(ctx: EffectContext, seat: int, ignore_level: bool) -> bool:
    """Whether a ``new_leader`` step would do something (its strict requirement, §4)."""
    if not ctx.pawns(seat, "own_path", ("uf",)):
        return False
    cut = ctx.next_cutout(seat)
    return cut is None or ignore_level or ctx.count(seat, "level", None) >= cut[1]


def trade_inputs_payable(trade: Any, ctx: EffectContext, seat: int, energy_change: int = 0) -> bool:
    """Whether the seat can pay a trade's inputs (``dsl.alchemy_inputs``): Gold, Energy (plus
    ``energy_change``, min 0, e.g. the ``leader_energy`` mod), Relics / Secrets in hand, and a
    ``uf`` input only when the trade's ``new_leader`` step can be done. Tokens, black Chaos slots
    and panel Chaos are the engine's checks."""
    for what, n in trade.inputs:
        if what == "energy":
            n = max(0, n + energy_change)
            if ctx.holding(seat, "energy") < n:
                return False
        elif what == "gold" and ctx.holding(seat, "gold") < n:
            return False
        elif what == "relic" and len(ctx.relic_hand(seat)) < n:
            return False
        elif what == "secret" and len(ctx.secret_hand(seat)) < n:
            return False
        elif what == "uf":
            steps = [op for op in trade.out if isinstance(op, dsl.NewLeader)]
            if not steps or not new_leader_possible(ctx, seat, steps[0].ignore_level):
                return False
    return True


def _society_power(op: Op, ctx: EffectContext, seat: int) -> bool:
    return ctx.flag("society_powers") and ctx.society(seat) == OP_SOCIETY[op.name]


def _gain(ctx: EffectContext, seat: int, res: str, n: int) -> None:
    if n <= 0 or not ctx.tracks(seat, res) or (res == "chaos" and not ctx.flag("chaos")):
        return
    ctx.gain(seat, res, n)


# -------------------------------------------------------------------------------------- the ops


@register("gain")
def op_gain(op: dsl.Gain, ctx: EffectContext, st: OpState) -> None:
    """Take n of res from the supply (nothing for Chaos with ``chaos`` off, or untracked res)."""
    _gain(ctx, st.seat, op.res, evaluate(op.n, ctx, st.seat))


@register("lose")
def op_lose(op: dsl.Lose, ctx: EffectContext, st: OpState) -> None:
    """Return min(n, what you hold) to the supply."""
    if not ctx.tracks(st.seat, op.res):
        return
    k = min(evaluate(op.n, ctx, st.seat), ctx.holding(st.seat, op.res))
    if k > 0:
        ctx.lose(st.seat, op.res, k)


@register("strength")
def op_strength(op: dsl.Strength, ctx: EffectContext, st: OpState) -> None:
    """A Strength modifier of n (negative allowed; floored at 0 only when the formula runs)."""
    n = evaluate(op.n, ctx, st.seat)
    if n:
        ctx.add_strength(st.seat, n)


def _draw(ctx: EffectContext, seat: int, deck: str, n: int) -> None:
    if not ctx.tracks(seat, deck):
        return
    k = min(n, ctx.deck_size(seat, deck))
    if k > 0:
        ctx.draw(seat, deck, k)


@register("draw_secret")
def op_draw_secret(op: dsl.DrawSecret, ctx: EffectContext, st: OpState) -> None:
    """Draw min(n, deck) Secrets from your own deck."""
    _draw(ctx, st.seat, "secret", evaluate(op.n, ctx, st.seat))


@register("draw_relic")
def op_draw_relic(op: dsl.DrawRelic, ctx: EffectContext, st: OpState) -> None:
    """Draw min(n, deck) Relics from the Relic deck."""
    _draw(ctx, st.seat, "relic", evaluate(op.n, ctx, st.seat))


@register("act")
def op_act(op: dsl.Act, ctx: EffectContext, st: OpState) -> None:
    """Perform an Action at no space with a fixed Strength (``act revolt`` needs society_powers)."""
    if op.action == "revolt" and not ctx.flag("society_powers"):
        return
    strength = st.once("strength", lambda: evaluate(op.strength, ctx, st.seat))
    if st.first_time("started"):
        try:
            ctx.perform_action(st.seat, op.action, strength)
        except Suspend:
            raise Suspend() from None  # resumed with None once the Action has resolved


@register("add_uf")
def op_add_uf(op: dsl.AddUf, ctx: EffectContext, st: OpState) -> None:
    """Place min(n, supply) Universal Followers, choosing a space of the zone per pawn."""
    n = st.once("n", lambda: evaluate(op.n, ctx, st.seat))
    while st.get("done") < n:
        left = ctx.supply("uf")
        spaces = tuple(ctx.spaces(st.seat, op.where))
        if (left is not None and left <= 0) or not spaces:
            return
        space = _pick_up_to(st, ctx, "target", spaces, n, "add_uf")
        ctx.place_uf(st.seat, space)


@register("move")
def op_move(op: dsl.Move, ctx: EffectContext, st: OpState) -> None:
    """Move up to count Public-path pawns 0..dist spaces each; a moved pawn is not picked again."""
    count = st.once("count", lambda: evaluate(op.count, ctx, st.seat))
    dist = st.once(
        "dist", lambda: max(0, min(evaluate(op.dist, ctx, st.seat), ctx.path_length("public") - 1))
    )
    moved: dict = st.once("moved", dict)  # (space, type) -> pawns that ended there this step
    while st.get("done") < count:
        pick = st.get("pick", None)
        if pick is None:
            here = ctx.pawns(st.seat, "public", op.pawns)
            eligible = tuple(k for k, c in here.items() if c - moved.get(k, 0) > 0)
            if not eligible:
                return
            pick = _pick_up_to(st, ctx, "pawn_pick", eligible, count, "move", can_pass=True,
                               count=False)
            if pick is None:
                return
            st.set("pick", pick)
        dirs = ("forward", "backward") if op.dir == "either" else ("forward",)
        opts = tuple(
            (d, k) for d in dirs for k in range(dist + 1) if not (d == "backward" and k == 0)
        )
        d, k = _ask_or_pause(
            st, ctx, Request(st.seat, "distance", opts, op="move", info=(("pawn", pick),))
        )
        st.set("pick", None)
        st.set("done", st.get("done") + 1)
        end = ctx.move_pawn(st.seat, pick[0], pick[1], k, d == "backward")
        moved[(end, pick[1])] = moved.get((end, pick[1]), 0) + 1


@register("new_leader")
def op_new_leader(op: dsl.NewLeader, ctx: EffectContext, st: OpState) -> None:
    """Replace a UF on your path by the next cutout's leader (+1 Chaos from a Sidewalk); with no
    cutout left, return the UF and gain 4 Intrigue. Strict: nothing without a UF on your path or
    below the cutout's Level gate."""
    if not new_leader_possible(ctx, st.seat, op.ignore_level):
        return
    spaces = tuple(dict.fromkeys(s for (s, _t) in ctx.pawns(st.seat, "own_path", ("uf",))))
    space = _ask_or_pause(
        st, ctx, Request(st.seat, "pawn_pick", tuple((s, "uf") for s in spaces), op="new_leader")
    )[0]
    if ctx.next_cutout(st.seat) is None:
        ctx.return_uf(st.seat, space)
        soc = ctx.society(st.seat)
        reward = (
            dict(ctx.content.societies[soc].leaders.all_leaders_out_reward).get("intrigue", 0)
            if soc is not None
            else ALL_LEADERS_OUT_INTRIGUE
        )
        _gain(ctx, st.seat, "intrigue", reward)
        return
    sidewalk = ctx.is_sidewalk(st.seat, space)
    ctx.initiate_leader(st.seat, space)
    if sidewalk:
        _gain(ctx, st.seat, "chaos", 1)


@register("deep_alchemy")
def op_deep_alchemy(op: dsl.DeepAlchemy, ctx: EffectContext, st: OpState) -> None:
    """Take min(n, box) Deep Alchemy tokens (nothing with ``deep_alchemy`` off)."""
    if not ctx.flag("deep_alchemy"):
        return
    left = ctx.supply("deep_alchemy")
    _gain(ctx, st.seat, "deep_alchemy", op.n if left is None else min(op.n, left))


@register("assign")
def op_assign(op: dsl.Assign, ctx: EffectContext, st: OpState) -> None:
    """Assign one Relic from hand to a slot of the kind asked (Dark Relics: slots 3-4 only).

    With Relics in hand but none fitting (which depends on the hidden part of the hand) the seat
    is still asked, with PASS as its only answer (timing law); an empty hand is public."""
    if not ctx.tracks(st.seat, "relic"):
        return
    slots = list(ctx.relic_slots(st.seat))
    dark_slots = ctx.content.constants.dark_slots
    opts = []
    for rid in dict.fromkeys(ctx.relic_hand(st.seat)):
        dark = ctx.content.relic(rid).dark
        for i, held in enumerate(slots, start=1):
            if (op.slot == "empty" and held is not None) or (op.slot == "filled" and held is None):
                continue
            if dark and i not in dark_slots:
                continue
            opts.append((rid, i))
    if not opts and not ctx.relic_hand(st.seat):
        return
    answer = _ask_or_pause(st, ctx, Request(st.seat, "assign", tuple(opts), can_pass=not opts,
                                            op="assign"))
    if answer is None:
        return
    rid, slot = answer
    ctx.assign_relic(st.seat, rid, slot)


@register("extra_secret")
def op_extra_secret(op: dsl.ExtraSecret, ctx: EffectContext, st: OpState) -> None:
    """Grant one more Secret play this turn."""
    ctx.grant_extra_secret(st.seat)


@register("extra_action")
def op_extra_action(op: dsl.ExtraAction, ctx: EffectContext, st: OpState) -> None:
    """Take one extra full Action with a Public Leader (the engine resolves it)."""
    if st.first_time("started"):
        try:
            ctx.extra_action(st.seat)
        except Suspend:
            raise Suspend() from None


@register("opponents")
def op_opponents(op: dsl.Opponents, ctx: EffectContext, st: OpState) -> Push | None:
    """Run the effect for each opponent in turn, clockwise from your left."""
    seats = st.once("seats", lambda: tuple(ctx.opponents(st.seat)))
    k = st.get("k")
    if k >= len(seats):
        return None
    st.set("k", k + 1)
    return Push(op.effect, seats[k])


@register("choose")
def op_choose(op: dsl.Choose, ctx: EffectContext, st: OpState) -> Push | None:
    """Choose one of the options (by index) and perform it."""
    if not st.first_time("chosen"):
        return None
    try:
        k = _ask_or_pause(
            st, ctx, Request(st.seat, "choose", tuple(range(len(op.options))), op="choose")
        )
    except Suspend:
        st.set("chosen", False)
        raise
    return Push(op.options[k], st.seat)


@register("spend_uf")
def op_spend_uf(op: dsl.SpendUf, ctx: EffectContext, st: OpState) -> Push | None:
    """Return up to max UF from your Society path, performing ``each`` after each one."""
    top = st.once("max", lambda: evaluate(op.max, ctx, st.seat))
    if st.get("done") >= top:
        return None
    here = tuple(ctx.pawns(st.seat, "own_path", ("uf",)))
    if not here:
        return None
    pick = _pick_up_to(st, ctx, "pawn_pick", here, top, "spend_uf", can_pass=True)
    if pick is None:
        st.set("done", top)
        return None
    ctx.return_uf(st.seat, pick[0])
    return Push(op.each, st.seat)


@register("military_sweep")
def op_military_sweep(op: dsl.MilitarySweep, ctx: EffectContext, st: OpState) -> None:
    """Followers on Public spaces without a Public Leader move on to the next one that has one."""
    ctx.military_sweep()


@register("invest")
def op_invest(op: dsl.Invest, ctx: EffectContext, st: OpState) -> None:
    """Garden Club: n Gold onto one space/Route. ``own`` is strict (n Gold and room for n);
    ``supply`` places as much as fits."""
    if not _society_power(op, ctx, st.seat):
        return
    n = st.once("n", lambda: evaluate(op.n, ctx, st.seat))
    if n <= 0 or (op.src == "own" and ctx.holding(st.seat, "gold") < n):
        return
    room = ctx.invest_room(st.seat, op.target)
    opts = tuple(o for o, r in room.items() if r >= (n if op.src == "own" else 1))
    if not opts:
        return
    obj = _ask_or_pause(st, ctx, Request(st.seat, "target", opts, op="invest", info=(("n", n),)))
    ctx.invest(st.seat, obj, n if op.src == "own" else min(n, room[obj]), op.src)


@register("place_chaos")
def op_place_chaos(op: dsl.PlaceChaos, ctx: EffectContext, st: OpState) -> None:
    """Twilight Masks: place n Chaos one at a time (from your tableau with ``src = own``, not a
    Purge); stops when no object has room (3 per object) or you have no Chaos left."""
    if not _society_power(op, ctx, st.seat):
        return
    n = st.once("n", lambda: evaluate(op.n, ctx, st.seat))
    while st.get("done") < n:
        if op.src == "own" and ctx.holding(st.seat, "chaos") <= 0:
            return
        targets = tuple(ctx.chaos_targets(st.seat, op.target))
        if not targets:
            return
        obj = _pick_up_to(st, ctx, "target", targets, n, "place_chaos")
        if op.src == "own":
            ctx.lose(st.seat, "chaos", 1)
        ctx.put_chaos(st.seat, obj)


@register("initiate")
def op_initiate(op: dsl.Initiate, ctx: EffectContext, st: OpState) -> None:
    """Serpent Keepers: Initiate n different spaces (fewer if fewer are left)."""
    if not _society_power(op, ctx, st.seat):
        return
    n = st.once("n", lambda: evaluate(op.n, ctx, st.seat))
    while st.get("done") < n:
        targets = tuple(ctx.initiate_targets(st.seat))
        if not targets:
            return
        space = _pick_up_to(st, ctx, "target", targets, n, "initiate")
        ctx.initiate_space(st.seat, space)


@register("prime")
def op_prime(op: dsl.Prime, ctx: EffectContext, st: OpState) -> None:
    """Serpent Keepers: prime up to n Secrets from hand by Initiated spaces with room."""
    if not _society_power(op, ctx, st.seat):
        return
    n = st.once("n", lambda: evaluate(op.n, ctx, st.seat))
    while st.get("done") < n:
        opts = tuple(
            (s, sp)
            for s in dict.fromkeys(ctx.secret_hand(st.seat))
            for sp in ctx.prime_spaces(st.seat)
        )
        if not opts:
            return
        pick = _pick_up_to(st, ctx, "prime", opts, n, "prime", can_pass=True)
        if pick is None:
            return
        ctx.prime_secret(st.seat, pick[0], pick[1])


@register("extend")
def op_extend(op: dsl.Extend, ctx: EffectContext, st: OpState) -> None:
    """Mariners' Union: n times, reveal the top Relic into an empty Extension slot (stops when
    none is empty or the deck is empty; nothing with ``map_extension`` off)."""
    if not _society_power(op, ctx, st.seat) or not ctx.flag("map_extension"):
        return
    n = st.once("n", lambda: evaluate(op.n, ctx, st.seat))
    while st.get("done") < n:
        slots = tuple(ctx.empty_extension_slots())
        if not slots or ctx.deck_size(st.seat, "relic") <= 0:
            return
        slot = _pick_up_to(st, ctx, "target", slots, n, "extend")
        ctx.extend(st.seat, slot)


_missing = sorted(set(dsl.OP_CLASSES) - set(OPS))
if _missing:  # pragma: no cover - a programming error, caught at import
    raise RuntimeError(f"ops without an implementation: {_missing}")
