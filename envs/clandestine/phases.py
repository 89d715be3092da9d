"""Clandestine decisions: one mask function and one apply function per decision kind (§1.7).

Rule sources: design ``clandestine_content.md`` §1.2 (phase machine), §1.3 (Action resolution:
Fundraise, Reveal, Purge, Regroup), §1.7 (decision kinds and their blocks), rulebook "Turns",
"Moving Pawns", "Actions", "Alchemy".

The engine (:mod:`envs.clandestine.engine`) keeps ``state.kind``, the decision kind due now, and
looks up :data:`KINDS` ``[kind] = (mask_fn, apply_fn)``:

* ``mask_fn(state, mask)`` sets the legal entries of the int8 ``mask`` (401,) for the deciding
  seat (``state.decider``);
* ``apply_fn(state, block, index)`` applies the decoded action and sets the next ``state.kind``
  (``None`` hands control back to the engine's automatic phase steps).

An Action being resolved is an :class:`ActionFrame` on ``state.acts`` (a stack, so that an Action
started by a trade inside a window returns to that window). Pawns chosen in a pick sequence are
counted in ``frame.moved`` so that a pawn moved by the current step cannot be picked again
(design §1.7 rules).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import ascend as AS
from . import ops as OPS
from . import pawns as P
from . import relic_map as RM
from .actions import OFFSET, index_to_space, space_to_index

MASKS_CAP = 3  # Masks' Chaos per object (``societies.twilight.abilities``)

#: Action names, index = the observation's action-kind one-hot (``actions`` keys of the JSON).
ACTION_NAMES: tuple[str, ...] = ("fundraise", "discover", "reveal", "ascend", "purge", "regroup",
                                 "revolt")
#: Frames that are not Actions: the ``new_leader`` op's pawn pick (observation one-hot index 7).
FRAME_NAMES: tuple[str, ...] = ACTION_NAMES + ("new_leader",)
#: Steps of an Action frame.
TRAPS, MOVE, BEFORE, FORMULA, PICK, PICK_MAP, ASCEND, AFTER, DONE = (
    "traps", "move", "before", "formula", "pick", "pick_map", "ascend", "after", "done")


@dataclass
class ActionFrame:
    """One Action being resolved (design §1.3).

    Attributes:
        name: one of :data:`ACTION_NAMES`. actor: acting seat.
        space: the used City space, or -1 for an ``act`` Action (no space, no pawns move).
        leader: ``P.PL``/``P.SL`` of the acting Leader (-1 for an ``act``).
        strength: Strength (step 1; floored at 0 when the formula is performed).
        stage: :data:`MOVE`, :data:`FORMULA`, :data:`PICK` (pawn picks), :data:`PICK_MAP`
            (Discover picks) or :data:`DONE`.
        movement: the pawns being placed (stage MOVE), else ``None``.
        picks_left: pawns that may still be picked (Purge, Regroup).
        mode: Regroup's EITHER/OR, fixed by the first pick: ``None``, ``"leader"``,
            ``"followers"``.
        pick_space: space chosen at the first stage of a ``pawn_pick`` (-1 = none).
        pending: ``(space, type)`` of the picked pawn waiting for its distance or destination.
        moved: int16 (9 N, 4) pawns moved by this step, per (space, type).
        purchase: Discover's ``relic_map.DiscoverPurchase`` (picks and remaining budget).
        cost: Ascend's cost (``ascend.AscendCost``): from the dial, then reduced once the
            reduction is chosen. suit: the Suit paid (-1 before the choice).
        reduction: ``ascend.REDUCE_GOLD``/``REDUCE_SUIT`` (-1 before the choice).
        paid: card ids discarded so far for the Suit cost.
        effects: Gaining a Level step 4c still to do: ``(seat, column)`` pairs, clockwise from
            the ascender's left (``None`` before the Level is gained).
        queue: Relic '+' effects and eye triggers still to run at step 4 (stage BEFORE) or 7
            (stage AFTER): ``("run", effect)`` or ``("ask", relic)`` (an 'either' Relic).
        later: 'either' Relics kept for step 7. asking: the Relic of ``either_timing``.
        after_done: step 7 has been scheduled.
    """

    name: str
    actor: int
    space: int
    leader: int
    strength: int
    stage: str = MOVE
    movement: Any = None
    picks_left: int = 0
    mode: str | None = None
    pick_space: int = -1
    pending: tuple | None = None
    moved: np.ndarray | None = None
    purchase: Any = None
    cost: Any = None
    suit: int = -1
    reduction: int = -1
    paid: list | None = None
    effects: list | None = None
    queue: list | None = None
    later: list | None = None
    asking: int = -1
    after_done: bool = False
    revolt_step: int = 0


def _on(mask: np.ndarray, block: str, index: int) -> None:
    mask[OFFSET[block] + index] = 1


def _rel(state, space: int) -> int:
    return space_to_index(space, state.decider, state.num_players)


def _abs(state, index: int) -> int:
    return index_to_space(index, state.decider, state.num_players)


# ----------------------------------------------------------------------------- windows (§1.2)
def mask_window(state, mask: np.ndarray) -> None:
    """PRE/POST window: every legal trade (TRADE block), in PRE every playable Secret (SECRET
    block), hood tiles (TILE), with a Silver Guard the Agent removals of the active seat's
    Chambers (AGENTS: bribe or kill), and DONE (PASS)."""
    mask[OFFSET["PASS"]] = 1
    for panel, trade in state.legal_trades(state.decider):
        _on(mask, "TRADE", 3 * panel + trade)
    for i in state.playable_secrets(state.decider):
        _on(mask, "SECRET", i)
    for t in state.flippable_tiles(state.decider):
        _on(mask, "TILE", t)
    if state.nem is not None and state.phase in ("PRE", "POST") and state.decider == state.turn:
        from .nemesis import removal_options
        for chamber, method in removal_options(state, state.decider):  # bribe / kill
            _on(mask, "AGENTS", 2 * chamber + method)


def apply_window(state, block: str, index: int) -> None:
    """DONE ends the window (PRE -> SELECT_LEADER, POST -> END); TRADE makes one trade."""
    if block == "PASS":
        state.kind = None
        if state.phase in ("REACT", "FINAL"):
            state.react_queue.pop(0)
            return
        state.phase = "SELECT_LEADER" if state.phase == "PRE" else "END"
        state.end_step = 0
        return
    if block == "SECRET":
        state.playing = index
        state.kind = "secret_option"
        return
    if block == "TILE":
        state.kind = None
        state.flip_tile(state.decider, index)
        return
    if block == "AGENTS":
        from .nemesis import remove_agents
        state.kind = None
        remove_agents(state, state.decider, *divmod(index, 2))
        return
    panel, trade = divmod(index, 3)
    state.kind = None  # back to the window, or into the Action a trade starts
    state.make_trade(state.decider, panel, trade)


# ----------------------------------------------------------------------------- SELECT_LEADER
def mask_select_leader(state, mask: np.ndarray) -> None:
    """SPACE of every Leader the active seat may act with; then PAWN (pl/sl) on a space with
    both kinds (design §1.2 SELECT_LEADER)."""
    choices = P.leader_choices(state.city, state.pawns, state.decider)
    if state.extra_select:  # extra Actions: Public Leaders only
        choices = [(s, t) for s, t in choices if t == P.PL]
    if state.leader_space >= 0:
        for s, t in choices:
            if s == state.leader_space:
                _on(mask, "PAWN", t)
        return
    for s, _t in choices:
        _on(mask, "SPACE", _rel(state, s))


def apply_select_leader(state, block: str, index: int) -> None:
    """Pick the space, then (if both kinds stand there) the Leader type; start the Action."""
    if block == "SPACE":
        space = _abs(state, index)
        types = [t for s, t in P.leader_choices(state.city, state.pawns, state.decider)
                 if s == space and not (state.extra_select and t != P.PL)]
        if len(types) > 1:
            state.leader_space = space
            return
        leader = types[0]
    else:
        space, leader = state.leader_space, index
    state.leader_space = -1
    state.kind = None
    state.start_space_action(space, leader)


# ----------------------------------------------------------------------------- movement (§2.4)
def mask_movement(state, mask: np.ndarray) -> None:
    """``placement_type`` (PAWN) or ``uf_route`` (OPT 0 follow / 1 stay)."""
    dec = state.acts[-1].movement.pending()
    for o in dec.options:
        _on(mask, "PAWN" if dec.kind == "placement_type" else "OPT", o)


def apply_movement(state, block: str, index: int) -> None:
    frame = state.acts[-1]
    frame.movement.choose(state.pawns, index)
    state.kind = None


# ----------------------------------------------------------------------------- pawn picks
def pick_candidates(state, frame: ActionFrame) -> list[tuple[int, int]]:
    """``(space, type)`` pawns the current pick step may choose (already moved ones excluded)."""
    city, store, seat = state.city, state.pawns, frame.actor
    if frame.picks_left <= 0:
        return []
    if frame.name == "purge":
        cands = P.purge_candidates(city, store, seat)
    elif frame.name == "new_leader":
        cands = [(s, t) for s, t in P.regroup_candidates(city, store, seat, leader=False)
                 if t == P.UF]
    elif frame.name in ("regroup", "revolt"):
        find = (P.regroup_candidates if frame.name == "regroup"
                else lambda c, s_, _seat, leader: P.revolt_candidates(c, s_, leader))
        cands = []
        if frame.mode in (None, "leader"):
            cands += find(city, store, seat, leader=True)
        if frame.mode in (None, "followers"):
            cands += find(city, store, seat, leader=False)
    else:  # pragma: no cover - guarded by the engine
        raise RuntimeError(f"no pawn picks in a {frame.name} Action")
    return [(s, t) for s, t in cands if store.counts[s, t] > frame.moved[s, t]]


def mask_pawn_pick(state, mask: np.ndarray) -> None:
    """SPACE of an eligible pawn, then PAWN if several eligible types there; PASS (STOP) at the
    first stage: Purge and Regroup pick 'up to' their count."""
    frame = state.acts[-1]
    cands = pick_candidates(state, frame)
    if frame.pick_space >= 0:
        for s, t in cands:
            if s == frame.pick_space:
                _on(mask, "PAWN", t)
        return
    if frame.name != "new_leader":  # new_leader is strict: it must pick a Universal Follower
        mask[OFFSET["PASS"]] = 1
    for s, _t in cands:
        _on(mask, "SPACE", _rel(state, s))


def apply_pawn_pick(state, block: str, index: int) -> None:
    frame = state.acts[-1]
    if block == "PASS":
        frame.picks_left = 0
        frame.stage = DONE
        state.kind = None
        return
    if block == "SPACE":
        space = _abs(state, index)
        types = [t for s, t in pick_candidates(state, frame) if s == space]
        if len(types) > 1:
            frame.pick_space = space
            return
        ptype = types[0]
    else:
        space, ptype = frame.pick_space, index
    frame.pick_space = -1
    frame.pending = (space, ptype)
    frame.picks_left -= 1
    state.pawn_picks[frame.actor, space, ptype, 0] += 1  # public record (perfect recall)
    if frame.name == "new_leader":
        state.initiate_leader(frame.actor, space)
        frame.pending, frame.stage = None, DONE
        state.kind = None
    elif frame.name in ("regroup", "revolt"):
        if frame.mode is None:
            frame.mode = "leader" if ptype in (P.SL, P.PL) else "followers"
        if frame.mode == "leader":
            frame.picks_left = 0  # one Society Leader, then the step ends
        state.kind = "distance"
    elif ptype == P.UF:
        state.kind = "purge_destination"
    else:
        _finish_purge_move(state, frame, None)


def _finish_purge_move(state, frame: ActionFrame, option: int | None) -> None:
    space, ptype = frame.pending
    dest = P.purge_move(state.city, state.pawns, frame.actor, space, ptype, option)
    if option == P.PURGE_TO_PUBLIC:
        state.pawn_picks[frame.actor, space, ptype, 2] += 1
    frame.moved[dest, ptype] += 1
    frame.pending = None
    state.kind = None


def mask_purge_destination(state, mask: np.ndarray) -> None:
    """OPT 0 = the actor's C1, 1 = the Public space after its S3 (design §1.7)."""
    _on(mask, "OPT", P.PURGE_TO_C1)
    _on(mask, "OPT", P.PURGE_TO_PUBLIC)


def apply_purge_destination(state, block: str, index: int) -> None:
    _finish_purge_move(state, state.acts[-1], index)


def distance_route(ptype: int) -> int:
    """Route of a Regroup move: Public Followers along the Public path, others the Society
    path (design §1.3 Regroup)."""
    return P.PUBLIC if ptype == P.PF else P.SOCIETY


def mask_distance(state, mask: np.ndarray) -> None:
    """DIST 0..min(Strength, path length - 1) (design §1.7)."""
    frame = state.acts[-1]
    route = P.PUBLIC if frame.name == "revolt" else distance_route(frame.pending[1])
    top = P.distance_limit(state.city, route, frame.strength)
    mask[OFFSET["DIST"]:OFFSET["DIST"] + top + 1] = 1


def apply_distance(state, block: str, index: int) -> None:
    frame = state.acts[-1]
    space, ptype = frame.pending
    if frame.name == "revolt":
        dest = P.revolt_move(state.city, state.pawns, space, ptype, index, frame.strength)
    else:
        dest = P.regroup_move(state.city, state.pawns, frame.actor, space, ptype, index,
                              frame.strength)
    state.pawn_picks[frame.actor, space, ptype, 1] += index  # the distance chosen
    frame.moved[dest, ptype] += 1
    frame.pending = None
    state.kind = None


# ----------------------------------------------------------------------------- assign
def mask_assign(state, mask: np.ndarray) -> None:
    """RELIC from hand with a legal slot, then SLOT (design §1.7 ``assign``); PASS only when no
    pair is legal (the decision is asked whatever the hidden hand holds, CONVENTIONS.md)."""
    mode, relic = state.assigning
    pairs = state.assign_pairs(state.decider, mode)
    if not pairs:
        mask[OFFSET["PASS"]] = 1
    elif relic < 0:
        for r, _slot in pairs:
            _on(mask, "RELIC", r)
    else:
        for r, slot in pairs:
            if r == relic:
                _on(mask, "SLOT", slot)


def apply_assign(state, block: str, index: int) -> None:
    mode, relic = state.assigning
    if block == "PASS":  # no legal pair: the assign does nothing
        state.assigning, state.kind = None, None
        return
    if block == "RELIC":
        state.assigning = (mode, index)
        return
    state.assigning = None
    state.kind = None
    state.assign_relic(state.decider, relic, index)


# ----------------------------------------------------------------------------- Discover
def mask_discover_pick(state, mask: np.ndarray) -> None:
    """MAP spaces whose cost fits the remaining Strength (``relic_map``), and PASS (stop)."""
    mask[OFFSET["PASS"]] = 1
    m = state.acts[-1].purchase.mask()
    mask[OFFSET["MAP"]:OFFSET["MAP"] + len(m)] = m


def apply_discover_pick(state, block: str, index: int) -> None:
    frame = state.acts[-1]
    if block == "PASS":
        state.finish_discover(frame)
    else:
        state.take_from_map(frame, index)
    state.kind = None


# ----------------------------------------------------------------------------- Ascend
def mask_ascend_suit(state, mask: np.ndarray) -> None:
    """SUIT: suits payable under some reduction (``ascend.suit_mask``); PASS = decline."""
    f = state.acts[-1]
    mask[OFFSET["PASS"]] = 1
    m = AS.suit_mask(state.suit_cards(f.actor), state.gold[f.actor], f.cost, max(0, f.strength))
    mask[OFFSET["SUIT"]:OFFSET["SUIT"] + 4] = m


def apply_ascend_suit(state, block: str, index: int) -> None:
    f = state.acts[-1]
    state.kind = None
    if block == "PASS":
        f.stage = DONE  # declined: the Action does nothing (ruling 33)
        return
    f.suit = index
    state.kind = "ascend_reduction"


def mask_ascend_reduction(state, mask: np.ndarray) -> None:
    """OPT 0 = reduce the Gold by Strength, 1 = the Suit cost by floor(Strength / 2), where the
    cost stays payable (``ascend.payable_reductions``)."""
    f = state.acts[-1]
    ok = AS.payable_reductions(state.suit_cards(f.actor), state.gold[f.actor], f.cost,
                               max(0, f.strength), AS.SUITS[f.suit])
    for r, good in enumerate(ok):
        if good:
            _on(mask, "OPT", r)


def apply_ascend_reduction(state, block: str, index: int) -> None:
    f = state.acts[-1]
    f.reduction = index
    f.cost = AS.reduce_cost(f.cost, max(0, f.strength), index)
    f.paid = []
    state.kind = None
    state.continue_ascend(f)


def mask_ascend_card(state, mask: np.ndarray) -> None:
    """RELIC / SECRET: cards that keep a minimal payment reachable (``ascend.card_choices``)."""
    f = state.acts[-1]
    for cid in AS.card_choices(state.suit_cards(f.actor), AS.SUITS[f.suit], f.cost.suits,
                               f.paid):
        block, index = state.card_action(f.actor, cid)
        _on(mask, block, index)


def apply_ascend_card(state, block: str, index: int) -> None:
    f = state.acts[-1]
    f.paid.append(state.card_id(f.actor, block, index))
    state.kind = None
    state.continue_ascend(f)


def mask_board_pick(state, mask: np.ndarray) -> None:
    """BOARD: slots of Level <= the new Level in the paid Suit's column (``ascend``)."""
    for sid in AS.board_pick_slots(state.level[state.decider], AS.SUITS[state.acts[-1].suit]):
        _on(mask, "BOARD", state.board_slot_index(sid))


def apply_board_pick(state, block: str, index: int) -> None:
    state.kind = None
    state.take_board_slot(state.acts[-1], index)


def mask_choose(state, mask: np.ndarray) -> None:
    """OPT k: option k of the ``choose`` op (Economic / Political suit effects), both legal."""
    for k in range(len(state.choice_options())):
        _on(mask, "OPT", k)


def apply_choose(state, block: str, index: int) -> None:
    state.kind = None
    state.resolve_choice(index)


# ----------------------------------------------------------------------------- END (§1.2)
def mask_target(state, mask: np.ndarray) -> None:
    """END step 1: the Route whose row-0 card moves into the empty Harbor (ROUTE block)."""
    for r in state.harbor_choices():
        _on(mask, "ROUTE", int(r[1:]) - 1)


def apply_target(state, block: str, index: int) -> None:
    state.kind = None
    state.refill_map(f"R{index + 1}")



def mask_hand_discard(state, mask: np.ndarray) -> None:
    """RELIC (END step 3, Relics first) or SECRET: one card of the over-full hand; or the
    card a trade's Relic / Secret input discards."""
    seat = state.decider
    if state.trade_input is not None:
        if state.trade_input[1] == "relic":
            for r in state.relic_hand[seat]:
                _on(mask, "RELIC", r)
        else:
            for i in state.secret_hand[seat]:
                _on(mask, "SECRET", i)
        return
    if state.end_step == 3:
        for r in state.relic_hand[seat]:
            _on(mask, "RELIC", r)
    else:
        for s in state.secret_hand[seat]:
            _on(mask, "SECRET", s)


def apply_hand_discard(state, block: str, index: int) -> None:
    seat = state.decider
    if block == "RELIC":
        state.discard_relic(seat, index)
    else:
        state.discard_secret(seat, index)
    state.kind = None
    if state.trade_input is not None:  # the trade's input is paid: its outputs now
        _seat, _card, effect = state.trade_input
        state.trade_input = None
        state.run_trade_effect(seat, effect)


#: decision kind -> (mask function, apply function)
KINDS: dict[str, tuple[Callable, Callable]] = {
    "window_pre": (mask_window, apply_window),
    "window_post": (mask_window, apply_window),
    "window_react": (mask_window, apply_window),
    "select_leader": (mask_select_leader, apply_select_leader),
    "placement_type": (mask_movement, apply_movement),
    "uf_route": (mask_movement, apply_movement),
    "pawn_pick": (mask_pawn_pick, apply_pawn_pick),
    "purge_destination": (mask_purge_destination, apply_purge_destination),
    "distance": (mask_distance, apply_distance),
    "hand_discard": (mask_hand_discard, apply_hand_discard),
    "discover_pick": (mask_discover_pick, apply_discover_pick),
    "target": (mask_target, apply_target),
    "ascend_suit": (mask_ascend_suit, apply_ascend_suit),
    "ascend_reduction": (mask_ascend_reduction, apply_ascend_reduction),
    "ascend_card": (mask_ascend_card, apply_ascend_card),
    "board_pick": (mask_board_pick, apply_board_pick),
    "choose": (mask_choose, apply_choose),
    "assign": (mask_assign, apply_assign),
}


# ----------------------------------------------------------------------------- Secrets (effects)
def mask_secret_option(state, mask: np.ndarray) -> None:
    """OPT 0 = option A, 1 = option B of the Secret being played (legal options only,
    ``ops.option_allowed``)."""
    for k in state.secret_options(state.decider, state.playing):
        _on(mask, "OPT", k)


def apply_secret_option(state, block: str, index: int) -> None:
    state.kind = None
    state.play_secret(state.decider, state.playing, index)


def _request(state):
    return state.runners[-1]["runner"].pending


def _stage_one(req, pick) -> list:
    """Options of a two-stage request still open after the first-stage ``pick``."""
    return [o for o in req.options if pick is None or o[0] == pick]


def mask_effect(state, mask: np.ndarray) -> None:
    """A decision asked by the effect language (``ops.Request``): ``target`` (SPACE),
    ``pawn_pick`` (SPACE, then PAWN if several types there; PASS if 'up to'), ``distance``
    (OPT direction when backward is possible, then DIST), ``choose`` (OPT), ``assign`` (RELIC,
    then SLOT)."""
    req, pick = _request(state), state.effect_pick
    if req.kind == "target":
        for s in req.options:
            if isinstance(s, tuple):  # an opponent's panel (place_chaos): PANEL block
                off = (s[0] - state.decider) % state.num_players
                _on(mask, "PANEL", 7 * (off - 1) + s[1])
            elif isinstance(s, str) and s[0] == "R" and "." not in s:  # a Route: ROUTE block
                _on(mask, "ROUTE", int(s[1:]) - 1)
            elif isinstance(s, str):  # an Extension slot (extend): MAP block
                _on(mask, "MAP", RM.MAP_INDEX[s])
            else:
                _on(mask, "SPACE", _rel(state, s))
    elif req.kind == "pawn_pick":
        if pick is None:
            if req.can_pass:
                mask[OFFSET["PASS"]] = 1
            for s, _t in req.options:
                _on(mask, "SPACE", _rel(state, s))
        else:
            for _s, t in _stage_one(req, pick):
                _on(mask, "PAWN", P.pawn_type(t))
    elif req.kind == "distance":
        dirs = {d for d, _k in req.options}
        if len(dirs) > 1 and pick is None:
            for d in dirs:
                _on(mask, "OPT", 0 if d == "forward" else 1)
        else:
            d = pick if pick is not None else next(iter(dirs))
            for dd, k in req.options:
                if dd == d:
                    _on(mask, "DIST", k)
    elif req.kind == "choose":
        for k in req.options:
            _on(mask, "OPT", k)
    elif req.kind == "prime":  # SECRET, then SPACE; PASS at the first stage ('up to')
        if pick is None:
            if req.can_pass:
                mask[OFFSET["PASS"]] = 1
            for sid, _sp in req.options:
                _on(mask, "SECRET", state.secret_index(req.seat, sid))
        else:
            for _sid, sp in _stage_one(req, pick):
                _on(mask, "SPACE", _rel(state, sp))
    elif req.kind == "assign":
        if pick is None:
            if req.can_pass:  # no Relic fits: asked anyway (ops.HIDDEN_KINDS)
                mask[OFFSET["PASS"]] = 1
            for rid, _slot in req.options:
                _on(mask, "RELIC", state.relic_index(rid))
        else:
            for _rid, slot in _stage_one(req, pick):
                _on(mask, "SLOT", slot - 1)
    else:  # pragma: no cover - society powers (prime, invest ...) are off
        raise RuntimeError(f"effect decision {req.kind!r} ({req.op}) is not implemented")


def apply_effect(state, block: str, index: int) -> None:
    req, pick = _request(state), state.effect_pick
    answer: Any
    if block == "PASS":
        answer = None
    elif req.kind == "target":
        if block == "PANEL":
            off, panel = divmod(index, 7)
            answer = ((state.decider + off + 1) % state.num_players, panel)
        else:
            answer = (RM.MAP_ORDER[index] if block == "MAP" else f"R{index + 1}"
                      if block == "ROUTE" else _abs(state, index))
    elif req.kind == "pawn_pick":
        if block == "SPACE":
            space = _abs(state, index)
            types = [t for s, t in req.options if s == space]
            if len(types) > 1:
                state.effect_pick = space
                return
            answer = (space, types[0])
        else:
            answer = (pick, P.PAWN_CODES[index])
    elif req.kind == "distance":
        if block == "OPT":
            state.effect_pick = "forward" if index == 0 else "backward"
            return
        dirs = {d for d, _k in req.options}
        answer = (pick if pick is not None else next(iter(dirs)), index)
    elif req.kind == "choose":
        answer = index
    elif req.kind == "prime":
        if block == "SECRET":
            state.effect_pick = state.secret_id(req.seat, index)
            return
        answer = (pick, _abs(state, index))
    else:  # assign
        if block == "RELIC":
            state.effect_pick = state.relic_id(index)
            return
        answer = (pick, index + 1)
    state.effect_pick = None
    state.kind = None
    state.resume_effect(answer)


def mask_conjunction_pick(state, mask: np.ndarray) -> None:
    """OPT k: the k-th Conjunction of the row (Gaining a Level step 3)."""
    for k in range(len(state.conj_row)):
        _on(mask, "OPT", k)


def apply_conjunction_pick(state, block: str, index: int) -> None:
    state.kind = None
    state.claim_conjunction(state.decider, index)


def mask_either_timing(state, mask: np.ndarray) -> None:
    """OPT 0 = resolve this 'either' Relic now (step 4), 1 = after the formula (step 7)."""
    _on(mask, "OPT", 0)
    _on(mask, "OPT", 1)


def apply_either_timing(state, block: str, index: int) -> None:
    f = state.acts[-1]
    state.either_timings[state.decider, index] += 1
    relic, f.asking = f.asking, -1
    if index == 0:
        f.queue.insert(0, ("run", state.cards.relics[relic].plus))
    else:
        f.later.append(relic)
    state.kind = None


KINDS["either_timing"] = (mask_either_timing, apply_either_timing)
KINDS["conjunction_pick"] = (mask_conjunction_pick, apply_conjunction_pick)
KINDS["secret_option"] = (mask_secret_option, apply_secret_option)
KINDS["effect"] = (mask_effect, apply_effect)


class EngineContext:
    """The engine side of the effect language (``ops.EffectContext``) for one state.

    Spaces are City space numbers, pawns type codes (``"pl"``...), Relics and Secrets text ids,
    Relic slots 1..6. Society-only steps never reach it (``society_powers=False``).
    """

    def __init__(self, state):
        self.st = state
        self.content = state.cards

    # ----- queries
    def flag(self, name: str) -> bool:
        return self.st.spec.flags[name]

    def tracks(self, seat: int, what: str) -> bool:
        nem = self.st.nem  # a Nemesis ignores Energy, Chaos, Secrets, Deep Alchemy (§10.1)
        return nem is None or seat != nem.seat or what not in ("energy", "chaos", "secret",
                                                               "deep_alchemy")

    def society(self, seat: int) -> str | None:
        nem = self.st.nem
        return None if nem is not None and seat == nem.seat else self.st.societies[seat]

    def opponents(self, seat: int) -> list[int]:
        n = self.st.num_players
        return [(seat + k) % n for k in range(1, n)]

    def count(self, seat: int, countable: str, suit: str | None) -> int:
        st = self.st
        path = list(st.city.society_path(seat))
        relics = [r for r in st.slots[seat] if r >= 0]
        table = {
            "level": lambda: st.level[seat],
            "ascender_level": lambda: st.level[st.acts[-1].actor] if st.acts else st.level[seat],
            "gold": lambda: st.gold[seat],
            "chaos": lambda: st.chaos[seat],
            "uf_on_path": lambda: int(st.pawns.counts[path, P.UF].sum()),
            "sl_in_city": lambda: st.pawns.society_leaders_of(st.city, seat),
            "assigned_relics": lambda: len(relics),
            "assigned_icons": lambda: sum(AS.relic_card(st.relic_id(r)).contribution(suit)
                                          for r in relics),
            "relics_in_hand": lambda: len(st.relic_hand[seat]),
            "secrets_in_hand": lambda: len(st.secret_hand[seat]),
            "ascend_relics": lambda: len(st.tucked[seat]),
            "invested_objects": lambda: sum(1 for g in st.invest_space + st.invest_route if g),
            "invested_gold": lambda: sum(st.invest_space) + sum(st.invest_route),
            "initiated_spaces": lambda: 0, "deep_alchemy_tokens": lambda: st.deep_held[seat],
        }
        return int(table[countable]())

    def holding(self, seat: int, res: str) -> int:
        if res == "deep_alchemy":
            return self.st.deep_held[seat]
        return int(getattr(self.st, res)[seat])

    def supply(self, item: str) -> int | None:
        return self.st.uf_supply() if item == "uf" else self.st.deep_box

    def deck_size(self, seat: int, deck: str) -> int:
        return len(self.st.secret_deck[seat] if deck == "secret" else self.st.relic_deck)

    def spaces(self, seat: int, zone: str) -> tuple:
        sw = self.st.city.sidewalks(seat)
        return sw if zone == "own_sidewalk" else sw[:1]

    def pawns(self, seat: int, zone: str, types) -> dict:
        city, c = self.st.city, self.st.pawns.counts
        spaces = city.public_loop if zone == "public" else city.society_path(seat)
        codes = [t for t in types if not (zone == "public" and t == "sl")]
        return {(int(s), t): int(c[s, P.pawn_type(t)]) for s in spaces for t in codes
                if c[s, P.pawn_type(t)]}

    def path_length(self, zone: str) -> int:
        return self.st.city.public_length

    def is_sidewalk(self, seat: int, space) -> bool:
        return space in self.st.city.sidewalks(seat)

    def next_cutout(self, seat: int):
        k = self.st.cutouts[seat]
        if k == 0:
            return None
        cut = self.st.society(seat)["leaders"]["cutouts"][4 - k]
        return cut["cutout"], cut["min_level"]

    def relic_hand(self, seat: int) -> list[str]:
        return [self.st.relic_id(r) for r in self.st.relic_hand[seat]]

    def relic_slots(self, seat: int) -> list:
        return [self.st.relic_id(r) if r >= 0 else None for r in self.st.slots[seat]]

    def secret_hand(self, seat: int) -> list[str]:
        return [self.st.secret_id(seat, i) for i in self.st.secret_hand[seat]]

    def invest_room(self, seat, target):
        st, out = self.st, {}
        if target in ("space", "any"):
            out.update({s: 4 - g for s, g in enumerate(st.invest_space)})
        if target in ("route", "any"):
            out.update({f"R{k + 1}": 2 - g for k, g in enumerate(st.invest_route)})
        return out

    def chaos_targets(self, seat, target):
        st = self.st
        if target == "alchemy_panel":  # an opponent's panels (0-5 and its Conjunction's)
            return tuple((j, p) for j in self.opponents(seat) for p in range(7)
                         if st.masks_panel[j][p] < MASKS_CAP)
        spaces = tuple(s for s, x in enumerate(st.masks_space) if x < MASKS_CAP)
        relics = tuple(RM.MAP_ORDER[k] for k, r in enumerate(st.relic_map)
                       if r >= 0 and st.masks_relic.get(r, 0) < MASKS_CAP)
        return spaces + relics

    def initiate_targets(self, seat):
        st = self.st
        cands = [int(s) for s in st.city.public_loop] + list(st.city.chambers(seat))
        return tuple(s for s in cands if not st.initiated[s])

    def prime_spaces(self, seat):
        st = self.st
        return tuple(s for s in range(9 * st.num_players)
                     if st.initiated[s] and len(st.primed.get(s, ())) < st.level[seat])

    def empty_extension_slots(self):
        if not self.st.spec.flags["map_extension"]:
            return ()
        return RM.extension_targets(self.st.map_state())

    # ----- changes
    def gain(self, seat: int, res: str, n: int) -> None:
        if res == "chaos":
            self.st.gain_chaos(seat, n)
        elif res == "deep_alchemy":  # permanently, while the box has some (ops caps n)
            self.st.deep_held[seat] += min(n, self.st.deep_box)
        else:
            getattr(self.st, res)[seat] += n

    def lose(self, seat: int, res: str, n: int) -> None:
        getattr(self.st, "deep_held" if res == "deep_alchemy" else res)[seat] -= n

    def add_strength(self, seat: int, n: int) -> None:
        self.st.add_strength(seat, n)

    def draw(self, seat: int, deck: str, n: int) -> None:
        if deck == "secret":
            self.st.draw_secrets(seat, n)
        else:
            self.st.draw_relics(seat, n)

    def perform_action(self, seat: int, action: str, strength: int) -> None:
        self.st.runners[-1]["base"] = len(self.st.acts)
        self.st.start_act(action, strength, actor=seat)
        raise OPS.Suspend()

    def extra_action(self, seat: int) -> None:
        self.st.runners[-1]["base"] = len(self.st.acts)
        self.st.extra_select = True
        raise OPS.Suspend()

    def grant_extra_secret(self, seat: int) -> None:
        self.st.extra_secrets += 1

    def place_uf(self, seat: int, space) -> None:
        self.st.pawns.counts[space, P.UF] += 1
        self.st.uf_added += 1

    def move_pawn(self, seat: int, space, pawn: str, steps: int, backward: bool):
        st = self.st
        rec = st.pawn_picks[seat, space, P.pawn_type(pawn)]
        rec += (1, steps, int(backward))  # public record (perfect recall)
        return P.public_move(st.city, st.pawns, space, pawn, steps, steps, backward)

    def return_uf(self, seat: int, space) -> None:
        self.st.pawns.counts[space, P.UF] -= 1
        self.st.uf_added -= 1

    def initiate_leader(self, seat: int, space) -> None:
        self.st.place_cutout_leader(seat, space)

    def assign_relic(self, seat: int, relic: str, slot: int) -> None:
        self.st.assign_relic(seat, self.st.relic_index(relic), slot - 1)

    def military_sweep(self) -> None:
        self.st.military_sweep()

    def _power(self, *args):  # pragma: no cover - society_powers=False never calls these
        raise RuntimeError("society powers are not implemented (society_powers=False)")

    def initiate_space(self, seat: int, space) -> None:
        self.st.initiated[space] = True

    def prime_secret(self, seat: int, secret: str, space) -> None:
        idx = [self.st.secret_id(seat, i) for i in range(32)].index(secret)
        self.st.secret_hand[seat].remove(idx)
        self.st.primed.setdefault(space, []).append(idx)
        self.st.primed_epoch.setdefault(space, []).append(min(self.st.level[seat], 4))
        self.st.secret_log.append((2, seat, idx))  # engine.SM_PRIME

    def put_chaos(self, seat: int, obj) -> None:
        st = self.st
        if isinstance(obj, tuple):
            st.masks_panel[obj[0]][obj[1]] += 1
            st.masks_placed_panel[obj[0], obj[1]] += 1
        elif isinstance(obj, str):
            r = st.relic_map[RM.MAP_INDEX[obj]]
            st.masks_relic[r] = st.masks_relic.get(r, 0) + 1
            st.masks_placed_map[RM.MAP_INDEX[obj]] += 1
        else:
            st.masks_space[obj] += 1
            st.masks_placed_space[obj] += 1

    def invest(self, seat: int, obj, n: int, src: str) -> None:
        if src == "own":
            self.st.gold[seat] -= n
        if isinstance(obj, str):
            self.st.invest_route[int(obj[1:]) - 1] += n
        else:
            self.st.invest_space[obj] += n

    def extend(self, seat: int, slot: str) -> None:
        self.st.extend_map(slot)

    def decide(self, request) -> Any:
        raise OPS.Suspend()
