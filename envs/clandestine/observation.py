"""Clandestine observation: :func:`observation_layout` and :func:`encode_observation` (design
§1.5 information partition; the table is in the engine module's docstring and
docs/clandestine.md).

Every entry is a public item, one of the observer's own private items, or public history; seats
and City spaces are relative to the observer. Values are float32 in [0, 1].

Amounts lose nothing (CONVENTIONS.md: the observation holds what the seat knows, exactly):

* an amount with an upper bound proven from the rules and content is divided by that bound
  (:data:`BOUNDS`, each with its source);
* an amount the rules leave unbounded (Gold, Energy, Intrigue, Chaos, Strength, ...) is encoded
  as ``x / (x + s)`` with the field's scale ``s`` (:data:`SCALES`): strictly increasing, so
  :func:`decode_amount` reads every integer back exactly in float32 up to :data:`AMOUNT_LIMIT`
  (5,000: checked for every scale); a larger amount is still encoded, never clipped, and stays
  ordered, but its float32 value may no longer single out the integer. Games stay far below the
  limit (the largest Gold seen in thousands of games is about 1,000). A negative amount is an
  engine fault and raises ``ValueError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import Layout
from . import ops as OPS
from . import phases as PH
from . import relic_map as RM
from .actions import OFFSET
from .engine import (
    _C,
    _KIND_IDS,
    BOARD_SLOTS,
    CARDS,
    DEEP_TOKENS,
    END_REASONS,
    EV_DECISION,
    MAP_ORDER,
    MASKS_CAP,
    NUM_CONJUNCTIONS,
    NUM_RELICS,
    NUM_TILES,
    PHASES,
    RELIC_INDEX,
    SECRET_IDS,
    SUIT_COLUMN,
)
from .pawns import PAWN_CODES
from .spec import SOCIETIES

if TYPE_CHECKING:
    from .engine import ClandestineState

DECISION_KINDS: tuple[str, ...] = tuple(k["kind"] for k in _C["decisions"]["kinds"])
_SECRETS_PER_SOCIETY = 32  # 31 + the Conjunction Secret (SECRET block)
_OBS_LAYOUTS: dict[tuple[int, bool], Layout] = {}

#: Largest amount :func:`decode_amount` reads back exactly from float32 for every scale in
#: :data:`SCALES` (the smallest scale, 2, is exact to 5,830; scale 10 to 12,982).
AMOUNT_LIMIT = 5000
_SL_PER_SEAT = int(_C["societies"][SOCIETIES[0]]["leaders"]["total"])
#: Proven upper bounds (amount / bound is exact and never above 1), with their source.
BOUNDS: dict[str, int] = {
    # constants.components: the game has 5 Public Leaders and 25 Public Followers
    "pl": int(_C["constants"]["components"]["public_leaders"]),
    "pf": int(_C["constants"]["components"]["public_followers"]),
    # societies.*.leaders.total = 6 per seat, and a Society Leader stands only on its owner's
    # Society path (rulebook "Pawns and Strength"), so a space holds at most its owner's 6
    "sl": _SL_PER_SEAT,
    # constants.components.secrets_per_society: a Secret deck only ever receives its own
    # Society's Level piles (never a discard), so hand, deck, draws per epoch and primed cards of
    # one Society are at most 31 (32 in hand with the Conjunction Secret)
    "secrets": int(_C["constants"]["components"]["secrets_per_society"]),
    "secret_hand": int(_C["constants"]["components"]["secrets_per_society"]) + 1,
    # a Secret is primed only on a space holding fewer than the Keepers' Level (phases
    # EngineContext.prime targets), and a Level is at most V: at most 4 per space
    "primed": 4,
    # the Deep Alchemy box holds 12 (ruling 32); placed Deep tokens come from held + granted ones
    "deep": DEEP_TOKENS,
    # the Twilight Masks place Chaos only where fewer than 3 lie (societies.twilight.abilities)
    "masks": MASKS_CAP,
    # the invest op's room: 4 Gold per space, 2 per Route (ops invest, EngineContext.invest_room)
    "invest_space": 4,
    "invest_route": 2,
    # societies.*.tokens.total: 3 alchemy tokens per Society; a regular token goes only on a
    # panel without one (engine _place_token), so a panel holds at most 1
    "tokens": int(_C["societies"][SOCIETIES[0]]["tokens"]["total"]),
    "panel_tokens": 1,
    # societies.*.leaders.on_tableau: 4 cutouts
    "cutouts": int(_C["societies"][SOCIETIES[0]]["leaders"]["on_tableau"]),
    "relics": NUM_RELICS,
    # ---- the Nemesis block (envs.clandestine.nemesis.encode; design §10)
    # nemesis.most_holy.tithe_tokens: 12 Tithe tokens, none added once all are in play and none
    # ever removed (tithe_placement), so a space holds at most 12
    "tithes": int(_C["nemesis"]["most_holy"]["tithe_tokens"]),
    # nemesis.most_holy.upper_choir_costs: the upper Choir has 7 slots (a UF is captured only
    # into an empty one)
    "upper_choir": len(_C["nemesis"]["most_holy"]["upper_choir_costs"]),
    # nemesis.silver_guard.agents: 16 Agents in all (none placed when the supply is empty)
    "agents": int(_C["nemesis"]["silver_guard"]["agents"]),
    # a Nemesis Level slot receives only the tiles of its own Level's board slots (ascension
    # .board_slots: 8 per Level, never refilled) and that Level's First-to-Level tile: 9
    "level_slot_tiles": max(sum(b["level"] == lv for b in BOARD_SLOTS)
                            for lv in {b["level"] for b in BOARD_SLOTS}) + 1,
}
#: Scales of the amounts without a bound in the rules: encoded ``x / (x + s)``.
SCALES: dict[str, float] = {
    "uf": 10.0, "strength": 10.0, "picks": 10.0, "gold": 50.0, "energy": 20.0,
    "intrigue": 50.0, "chaos": 12.0, "relic_hand": 10.0, "purged": 30.0, "secrets_turn": 2.0,
    "cost_gold": 20.0, "cost_suits": 10.0, "pending_strength": 10.0, "budget": 10.0,
    "effect_n": 5.0, "leader_acts": 10.0, "either_timings": 5.0, "board_picks": 5.0,
    "pawn_picks": 10.0, "masks_placed": 3.0, "panel_picks": 10.0, "relic_assigns": 5.0,
    "relic_draw_order": 10.0,
    # the Nemesis block: its scoring-card Intrigue (Gold counts in it), UFs converted into the
    # Lower Choir (the upper Choir refills by capture), the Masks' Chaos it swept away
    "nemesis_score": 50.0, "lower_choir_uf": 5.0, "nemesis_masks": 3.0,
}
#: The Actions printed on City spaces (Public paths and every Society's Chambers).
SPACE_ACTIONS: tuple[str, ...] = tuple(dict.fromkeys(
    ["Fundraise", "Discover"] + sorted({c["action"] for soc in _C["societies"].values()
                                        for c in soc["chambers"]})))
_SPACE_ACTION_INDEX = {a: i for i, a in enumerate(SPACE_ACTIONS)}
STAGES: tuple[str, ...] = (PH.TRAPS, PH.MOVE, PH.BEFORE, PH.FORMULA, PH.PICK, PH.PICK_MAP,
                           PH.ASCEND, PH.AFTER, PH.DONE)
COLUMNS: tuple[str, ...] = tuple(dict.fromkeys(SUIT_COLUMN.values()))
ASSIGN_MODES: tuple[str, ...] = ("empty", "filled", "any")
#: Effect ops (``ops.OPS``, sorted) for the one-hot of the op asking an effect decision.
REQUEST_OPS: tuple[str, ...] = tuple(sorted(OPS.OPS))
#: Secret text id -> its index in its Society's order; Conjunction id -> its index.
_SECRET_OF = {c: i for ids in SECRET_IDS.values() for i, c in enumerate(ids)}
_CONJ_OF = {c.id: i for i, c in enumerate(CARDS.conjunctions)}
MAX_ROW = 6  # Conjunctions in the row at set-up: humans + 1 <= 6 (rulebook set-up step 5)
_END_STEPS = 6
_PAWN_BOUND = np.array([BOUNDS["pl"], BOUNDS["pf"], 1.0, BOUNDS["sl"]])
_PERM: dict[tuple[int, int], np.ndarray] = {}
_FIELDS: dict[tuple[int, bool], list] = {}
_SPACE_ACTION: dict[tuple, np.ndarray] = {}
_WINDOW_KINDS = frozenset(_KIND_IDS[k] for k in ("window_pre", "window_post", "window_react"))
_OPTION_KIND = _KIND_IDS["secret_option"]


def encode_amount(x, scale: float, what: str = "amount") -> np.ndarray:
    """``x / (x + scale)`` (float64 array like ``x``): a strictly increasing map of the
    non-negative integers into [0, 1), read back exactly from float32 by
    :func:`decode_amount` up to :data:`AMOUNT_LIMIT` (larger amounts stay ordered, never
    clipped, but may no longer be told apart from their neighbours in float32).

    Raises:
        ValueError: an amount below 0, NaN or not a whole number (an engine fault: amounts
            are counts).
    """
    a = np.asarray(x, dtype=np.float64)
    if a.size and not np.all(a >= 0):  # NaN fails the comparison
        raise ValueError(f"observation: {what} = {a.tolist()} is negative or NaN; amounts are "
                         "counts")
    if a.size and not np.all(a == np.rint(a)):
        raise ValueError(f"observation: {what} = {a.tolist()} is not a whole number; "
                         "amounts are counts")
    return a / (a + scale)


def decode_amount(y, scale: float) -> np.ndarray:
    """The integer amounts encoded by :func:`encode_amount` with ``scale`` (int64 array)."""
    y = np.asarray(y, dtype=np.float64)
    return np.rint(scale * y / (1.0 - y)).astype(np.int64)


def decode_pawns(y) -> np.ndarray:
    """Pawn counts (int64, same shape) from a ``pawns`` or ``moved`` view (last axis pl, pf,
    uf, sl)."""
    y = np.asarray(y, dtype=np.float64)
    out = np.rint(y * _PAWN_BOUND).astype(np.int64)
    out[..., 2] = decode_amount(y[..., 2], SCALES["uf"])
    return out


def _encode_pawns(counts: np.ndarray) -> np.ndarray:
    out = counts / _PAWN_BOUND
    out[:, 2] = encode_amount(counts[:, 2], SCALES["uf"], "Universal Followers on a space")
    return out


def observation_layout(num_players: int, nemesis: bool = False) -> Layout:
    """The observation :class:`Layout` for ``num_players`` seats (design §1.5).

    Seats are relative to the observer (relative seat r = absolute seat (observer + r) mod N);
    City spaces use the SPACE block's relative numbering (the observer's own path first).
    Every entry is a public item, one of the observer's own private items, or public history
    (Secret draws per epoch, the options of played Secrets). "b" marks an amount divided by a
    proven bound (:data:`BOUNDS`), "x/(x+s)" one without a bound (:data:`SCALES`,
    :func:`decode_amount`).
    With ``nemesis`` (a Nemesis in the last seat) the Nemesis block of
    :func:`envs.clandestine.nemesis.add_layout` follows (its state is public).
    """
    key = (num_players, bool(nemesis))
    if key in _OBS_LAYOUTS:
        return _OBS_LAYOUTS[key]
    n, ns = num_players, 9 * num_players
    lay = Layout()
    lay.add("phase", len(PHASES), "one-hot phase (START, PRE, SELECT_LEADER, ACTION, POST, "
            "END, REACT, FINAL, OVER)")
    lay.add("decision", len(DECISION_KINDS), "one-hot decision kind due (design §1.7 order)")
    lay.add("action", len(PH.FRAME_NAMES), "one-hot Action being resolved (fundraise, discover, "
            "reveal, ascend, purge, regroup, revolt) or new_leader's pick")
    lay.add("action_context", 4, "Strength's positive part, its negative part, pawns still to "
            "pick (each x/(x+10)), 1 if the Action is an act (no space)")
    lay.add("action_space", ns, "one-hot relative space of the Action being resolved")
    lay.add("context_space", ns, "one-hot relative space picked at a decision's first stage "
            "(Leader space, pawn pick) or of the pawn waiting for its distance/destination")
    lay.add("context_pawn", 4, "one-hot type (pl, pf, uf, sl) of the pawn waiting for its "
            "distance or destination")
    lay.add("moved", (ns, 4), "pawns moved by the current pick step per relative space and type "
            "(they cannot be picked again), encoded as `pawns`")
    lay.add("round", 1, "complete rounds / max_rounds")
    lay.add("active", n, "one-hot relative seat whose turn it is")
    lay.add("decider", n, "one-hot relative seat whose decision is due")
    lay.add("end_trigger", n, "one-hot relative end-trigger seat (all 0 before a trigger)")
    lay.add("end_reason", len(END_REASONS), "one-hot end reason (level_v, relic_deck, "
            "round_limit)")
    lay.add("pawns", (ns, 4), "pawns per relative space and type: Public Leaders / 5, Public "
            "Followers / 25, Universal Followers x/(x+10), Society Leaders / 6 (b)")
    lay.add("society", (n, len(SOCIETIES)), "one-hot Society of each relative seat")
    lay.add("level", (n, 5), "one-hot Level I-V of each relative seat")
    lay.add("resources", (n, 4), "Gold x/(x+50), Energy x/(x+20), Intrigue tokens x/(x+50), "
            "Chaos (meter + overflow) x/(x+12) of each relative seat")
    lay.add("hands", (n, 3), "Relic hand size x/(x+10), Secret hand size / 32, Secret deck "
            "size / 31 (b) of each relative seat")
    lay.add("secret_draws", (n, 4), "Secret draws of each relative seat per epoch I-IV / 31 "
            "(b; public history)")
    lay.add("panel_tokens", (n, 7), "alchemy tokens on each panel (6 = the Conjunction's) this "
            "round, per relative seat (at most 1, b)")
    lay.add("deep_tokens", (n, 8), "Deep Alchemy tokens held / 12, then placed on each panel "
            "this round / 12 (b), per relative seat")
    lay.add("conjunction_row", (MAX_ROW, NUM_CONJUNCTIONS), "one-hot Conjunction at each "
            "position of the row (the conjunction_pick option index; all 0 past its end)")
    lay.add("masks_chaos", ns + len(MAP_ORDER) + 7 * n + n, "the Twilight Masks' Chaos on each "
            "relative space, on the Relic of each Map space, on each panel of each relative "
            "seat (/ 3, b), then Chaos purged by each relative seat x/(x+30)")
    lay.add("serpent", (ns, 2), "per relative space: 1 if Initiated, primed Secrets / 4 (b)")
    lay.add("primed_epoch", (ns, 4), "per relative space: primed Secrets whose Keepers were at "
            "epoch (Level) I, II, III, IV when priming them / 4 (b; public history: a bound on "
            "each hidden card's Level)")
    lay.add("own_primed", _SECRETS_PER_SOCIETY, "1 per Secret the observer primed (Keepers)")
    lay.add("investments", ns + 4, "the Garden Club's Gold invested on each relative space / 4, "
            "then on Routes R1-R4 / 2 (b)")
    lay.add("tiles_board", NUM_TILES, "1 per Ascension tile still on the board (its slot is "
            "its start slot)")
    lay.add("tiles_held", (n, NUM_TILES), "Ascension and Starting tiles held by each relative "
            "seat (1; 0.5 once a hood tile is flipped)")
    lay.add("conjunction", (n, NUM_CONJUNCTIONS + 1), "one-hot claimed Conjunction of each "
            "relative seat (last entry: none)")
    lay.add("conjunction_secret", n, "1 if the relative seat's Conjunction Secret entered its "
            "hand")
    lay.add("own_secrets", _SECRETS_PER_SOCIETY, "1 per Secret in the observer's hand (index in "
            "its Society's Secret order; 31 = Conjunction Secret)")
    lay.add("own_draw_order", _SECRETS_PER_SOCIETY, "per Secret the observer drew from its "
            "deck: when, its rank among the observer's draws / 31 (b: a Secret is drawn at most "
            "once; the observer's own history: which card a draw brought stays known)")
    lay.add("own_relics", NUM_RELICS, "1 per Relic in the observer's hand (blind draws included)")
    lay.add("own_relic_draws", NUM_RELICS, "per Relic the observer drew blind from the deck: "
            "when it last did, its count of blind draws then, x/(x+10) (the observer's own "
            "history: which Relic a draw brought stays known)")
    lay.add("known_relics", (n, NUM_RELICS), "publicly known Relics in each relative seat's hand")
    lay.add("relic_map", (len(MAP_ORDER), NUM_RELICS), "one-hot Relic on each Map space "
            "(relic_map.map_order)")
    lay.add("relic_discard", NUM_RELICS, "1 per Relic in the face-up Relic discard pile")
    lay.add("secret_discard", (n, _SECRETS_PER_SOCIETY), "1 per Secret in each relative seat's "
            "face-up Secret discard pile")
    lay.add("relic_deck", 1, "Relic deck size / 108 (b)")
    lay.add("tucked", (n, NUM_RELICS), "Relics tucked by Ascending, per relative seat (public)")
    lay.add("first_to_level", (n, 4), "First-to-Level tiles II-V held by each relative seat")
    lay.add("ascend", 8, "Ascend in progress: one-hot Suit (Rod, Sword, Disk, Chalice), "
            "one-hot reduction (Gold, Suit), cost Gold x/(x+20), cost Suits x/(x+10)")
    lay.add("ascend_paid", NUM_RELICS + _SECRETS_PER_SOCIETY, "cards picked so far for the "
            "Ascend payment: Relic ids, then the acting Society's Secret indices")
    lay.add("map_picks", len(MAP_ORDER), "Map spaces taken so far in the Discover in progress")
    lay.add("slots", (n, 6, NUM_RELICS), "one-hot Relic assigned to each slot 1-6 of each "
            "relative seat")
    lay.add("tableau", (n, 2), "Society Leaders left in cutouts / 4, unlocked alchemy tokens / "
            "3 (b), per relative seat")
    lay.add("assign_relic", NUM_RELICS, "Relic picked at the first stage of an assign")
    lay.add("secrets_turn", 3, "Secrets played this turn, extra Secret grants (each x/(x+2)), 1 "
            "while an extra Action's Leader is chosen")
    lay.add("pending_strength", (n, 2), "pending Strength from Secrets of each relative seat: "
            "its positive part, its negative part (each x/(x+10))")
    lay.add("effect_pick", ns + 2, "first-stage pick of an effect decision: relative space, "
            "or (last two) direction forward / backward")
    # --- set-up facts that vary by seed (design §2.2) and the rest of the public context
    lay.add("first_player", n, "one-hot relative seat of the First Player (turn order starts "
            "there; a round ends after the seat before it)")
    lay.add("space_action", (ns, len(SPACE_ACTIONS)), "one-hot Action printed on each relative "
            "space (" + ", ".join(SPACE_ACTIONS) + "): the City's random side (which Public "
            "spaces are Fundraise and which Discover, the duplicated space) and the Chambers")
    lay.add("uf_supply", 2, "Universal Followers left in the supply / 55 (finite_pawns), 1 if "
            "the supply is unlimited")
    lay.add("frame", 2 + len(STAGES) + 2 + 1, "Action being resolved: one-hot acting Leader "
            "(pl, sl), one-hot step (" + ", ".join(STAGES) + "), one-hot Regroup mode (leader, "
            "followers), Discover budget left x/(x+10)")
    lay.add("movement", 4 + 1 + 2 * ns, "pawns being placed (stage move): picked up and not yet "
            "placed per type (encoded as `pawns`), 1 if a Universal Follower waits for its "
            "route, one-hot relative space of the Public cursor, then of the Society cursor")
    lay.add("either_relic", NUM_RELICS, "the 'either' Relic whose timing is being chosen")
    lay.add("choice", len(COLUMNS) + len(ASSIGN_MODES) + 2, "one-hot column of the suit effect "
            "being chosen (" + ", ".join(COLUMNS) + "), one-hot mode of the assign in progress "
            "(" + ", ".join(ASSIGN_MODES) + "), one-hot kind of trade input to discard (Relic, "
            "Secret)")
    lay.add("end_context", _END_STEPS + 1, "one-hot END step 0-5 (during END), 1 once the turn "
            "that just ended was the last one")
    lay.add("react_queue", n, "1 per relative seat still to be offered the current REACT / "
            "FINAL window")
    lay.add("effect_request", len(REQUEST_OPS) + 3 + ns + 4, "effect decision due: one-hot op "
            "asking (ops.OPS, sorted), 1 if it may be passed, its n, its remaining count (each "
            "x/(x+5)), then the pawn a move's distance is asked for: one-hot relative space, "
            "one-hot type (pl, pf, uf, sl)")
    lay.add("effect_source", n + _SECRETS_PER_SOCIETY + NUM_CONJUNCTIONS + 1, "effect being "
            "run (the innermost): one-hot relative seat it belongs to, then one-hot source: a "
            "Secret (index in that seat's Society order), a Conjunction (claim), or 1 for any "
            "other (a trade, a Relic, a tile, a turn-start trigger)")
    lay.add("playing", _SECRETS_PER_SOCIETY, "one-hot Secret whose option the deciding seat is "
            "choosing (public once picked)")
    lay.add("secret_options", (n, _SECRETS_PER_SOCIETY, 2), "per relative seat and Secret: "
            "one-hot option (A, B) it was played with, face up (public history)")
    lay.add("leader_acts", (n, ns, 2), "per relative seat, relative space and Leader type "
            "(Public, Society): Actions it started there with that Leader this game, x/(x+10) "
            "(public history: which Leader acted stays known after the Action)")
    lay.add("either_timings", (n, 2), "per relative seat: 'either' Relic timings it chose this "
            "game, now (step 4) and after the formula (step 7), each x/(x+5) (public history)")
    lay.add("board_picks", (n, len(BOARD_SLOTS)), "per relative seat: Ascension board slots "
            "(ascension.board_slots order) it took this game, x/(x+5) (public history: two empty "
            "slots with one reward stay told apart)")
    lay.add("pawn_picks", (n, ns, 4, 3), "per relative seat, relative space and pawn type (pl, "
            "pf, uf, sl): pawns it picked there to move this game (Purge, Regroup, Revolt, "
            "new_leader, move effects), the spaces they were moved (distances chosen), the other "
            "destination chosen (a Purged UF to the Public space, a move backward), each x/(x+10) "
            "(public history: a pawn moved 0 spaces leaves the board as it was)")
    lay.add("masks_placed", ns + len(MAP_ORDER) + 7 * n, "the Twilight Masks' Chaos placed this "
            "game on each relative space, on the Relic of each Map space, on each panel of each "
            "relative seat, x/(x+3) (public history: placed Chaos leaves with an Action, a take "
            "or a Purge)")
    lay.add("panel_picks", (n, 7, 2), "per relative seat and panel (6 = the Conjunction's): "
            "regular and Deep alchemy tokens it placed there this game, each x/(x+10) (public "
            "history: the tokens come back at each turn start)")
    lay.add("relic_assigns", (n, NUM_RELICS + 6), "per relative seat: Relics it assigned to "
            "its slots this game, by Relic, then by slot 1-6, each x/(x+5) (public history: an "
            "assigned Relic lies face up, and one sent back to the hand leaves the slots as "
            "they were)")
    if nemesis:
        from .nemesis import add_layout
        add_layout(lay, ns)
    _OBS_LAYOUTS[key] = lay
    return lay


def _fields(n: int, nemesis: bool = False) -> list[tuple[str, int, int, tuple[int, ...]]]:
    """``(name, start, stop, shape)`` of every field of the ``n``-seat layout (cached)."""
    key = (n, bool(nemesis))
    f = _FIELDS.get(key)
    if f is None:
        f = [(x.name, x.start, x.stop, x.shape) for x in observation_layout(n, nemesis)]
        _FIELDS[key] = f
    return f


def _soft(xs, scale: float, what: str) -> list[float]:
    """:func:`encode_amount` for a short sequence of ints, in plain Python (the hot path)."""
    if min(xs) < 0:
        encode_amount(xs, scale, what)  # raises the error
    return [x / (x + scale) for x in xs]


def _perm(n: int, seat: int) -> np.ndarray:
    """Relative SPACE index of every absolute space for ``seat`` (cached)."""
    key = (n, seat)
    p = _PERM.get(key)
    if p is None:
        p = np.array([PH.space_to_index(s, seat, n) for s in range(9 * n)])
        p.setflags(write=False)
        _PERM[key] = p
    return p


def _space_actions(st: ClandestineState, seat: int) -> np.ndarray:
    """(9 N, len(SPACE_ACTIONS)) one-hot printed Action per relative space (cached per City)."""
    key = (st.city, seat)
    a = _SPACE_ACTION.get(key)
    if a is None:
        n = st.num_players
        a = np.zeros((9 * n, len(SPACE_ACTIONS)), dtype=np.float32)
        perm = _perm(n, seat)
        for s, act in enumerate(st.city.actions):
            # a Nemesis's Chamber Actions are given by its nemesis_id instead
            if act is not None and act in _SPACE_ACTION_INDEX:
                a[perm[s], _SPACE_ACTION_INDEX[act]] = 1
        a.setflags(write=False)
        _SPACE_ACTION[key] = a
    return a


def secret_options_played(st: ClandestineState) -> tuple[tuple[int, ...], ...]:
    """Per absolute seat and Secret index: the option (0 = A, 1 = B) it was played with, -1 if
    never played (public history: the window's Secret pick and the option decision).

    Read incrementally from the public events and cached on the state as an immutable tuple, so
    copies made at any time stay consistent.
    """
    n = st.num_players
    events = st._events
    cache = st.__dict__.get("_obs_secret_options")
    if cache is None or cache[0] > len(events):
        cache = (0, (-1,) * n, ((-1,) * _SECRETS_PER_SOCIETY,) * n)
    pos, picked, table = cache
    if pos == len(events):
        return table
    picked, rows = list(picked), [list(r) for r in table]
    sec, opt = OFFSET["SECRET"], OFFSET["OPT"]
    for ev in events[pos:]:
        if ev[0] != EV_DECISION:
            continue
        _, s, kind, action = ev
        if kind in _WINDOW_KINDS and sec <= action < sec + _SECRETS_PER_SOCIETY:
            picked[s] = action - sec
        elif kind == _OPTION_KIND and picked[s] >= 0:
            rows[s][picked[s]] = action - opt
            picked[s] = -1
    table = tuple(tuple(r) for r in rows)
    st.__dict__["_obs_secret_options"] = (len(events), tuple(picked), table)
    return table


def encode_observation(st: ClandestineState, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (see :func:`observation_layout`), float32 (size,).

    Raises:
        ValueError: a negative amount (an engine fault).
    """
    n = st.num_players
    lay = observation_layout(n, st.nem is not None)
    obs = lay.zeros()
    views = {name: obs[a:b].reshape(shape) for name, a, b, shape in _fields(n, st.nem is not None)}
    v = views.__getitem__
    rel_seat = lambda s: (s - seat) % n
    order = [(seat + r) % n for r in range(n)]  # absolute seat of each relative seat
    perm = _perm(n, seat)
    v("phase")[PHASES.index(st.phase)] = 1
    if st.kind is not None:
        kind = st.runners[-1]["runner"].pending.kind if st.kind == "effect" else st.kind
        v("decision")[DECISION_KINDS.index(kind)] = 1
    if st.acts:
        f = st.acts[-1]
        v("action")[PH.FRAME_NAMES.index(f.name)] = 1
        v("action_context")[:3] = _soft((max(f.strength, 0), max(-f.strength, 0), f.picks_left),
                                        SCALES["strength"], "Action Strength / picks")
        v("action_context")[3] = float(f.space < 0)
        if f.space >= 0:
            v("action_space")[perm[f.space]] = 1
        ctx = f.pending[0] if f.pending else f.pick_space
        if ctx >= 0:
            v("context_space")[perm[ctx]] = 1
        if f.pending:
            v("context_pawn")[f.pending[1]] = 1
        if f.moved is not None:
            v("moved")[perm] = _encode_pawns(f.moved)
        fr = v("frame")
        if f.leader >= 0:
            fr[0 if f.leader == 0 else 1] = 1  # pawns.PL = 0, pawns.SL = 3
        fr[2 + STAGES.index(f.stage)] = 1
        if f.mode is not None:
            fr[2 + len(STAGES) + ("leader", "followers").index(f.mode)] = 1
        if f.purchase is not None:
            fr[-1] = encode_amount(max(f.purchase.remaining, 0), SCALES["budget"],
                                   "Discover budget")
        mv = f.movement
        if mv is not None:
            m = v("movement")
            m[:4] = _encode_pawns(np.asarray(mv.in_hand, dtype=np.float64)[None, :])[0]
            m[4] = float(mv.uf_chosen)
            for k, cur in enumerate(mv.cursors):
                if cur is not None and cur >= 0:
                    m[5 + k * 9 * n + perm[cur]] = 1
        if f.asking >= 0:
            v("either_relic")[f.asking] = 1
    if st.leader_space >= 0:
        v("context_space")[perm[st.leader_space]] = 1
    v("round")[0] = st.rounds_done / st.spec.max_rounds
    v("active")[rel_seat(st.turn)] = 1
    if st.phase != "OVER":
        v("decider")[rel_seat(st.decider)] = 1
    if st.end_trigger is not None:
        v("end_trigger")[rel_seat(st.end_trigger)] = 1
    if st.end_reason is not None:
        v("end_reason")[END_REASONS.index(st.end_reason)] = 1
    v("pawns")[perm] = _encode_pawns(st.pawns.counts)
    res = v("resources")
    res[:, 0] = _soft([st.gold[s] for s in order], SCALES["gold"], "Gold")
    res[:, 1] = _soft([st.energy[s] for s in order], SCALES["energy"], "Energy")
    res[:, 2] = _soft([st.intrigue[s] for s in order], SCALES["intrigue"], "Intrigue")
    res[:, 3] = _soft([st.chaos[s] for s in order], SCALES["chaos"], "Chaos")
    hands = v("hands")
    hands[:, 0] = _soft([len(st.relic_hand[s]) for s in order], SCALES["relic_hand"],
                                "Relic hand size")
    hands[:, 1] = np.array([len(st.secret_hand[s]) for s in order]) / BOUNDS["secret_hand"]
    hands[:, 2] = np.array([len(st.secret_deck[s]) for s in order]) / BOUNDS["secrets"]
    v("secret_draws")[:] = np.array([st.secret_draws[s] for s in order]) / BOUNDS["secrets"]
    v("panel_tokens")[:] = np.array([st.panel_tokens[s] for s in order]) / BOUNDS["panel_tokens"]
    v("deep_tokens")[:, 0] = np.array([st.deep_held[s] for s in order]) / BOUNDS["deep"]
    v("deep_tokens")[:, 1:] = np.array([st.panel_deep[s] for s in order]) / BOUNDS["deep"]
    for r, s in enumerate(order):
        if st.societies[s] in SOCIETIES:  # a Nemesis seat has no Society
            v("society")[r, SOCIETIES.index(st.societies[s])] = 1
        v("level")[r, st.level[s] - 1] = 1
        v("conjunction")[r, st.conj[s]] = 1  # -1 = the last entry: none
        v("conjunction_secret")[r] = float(st.conj_secret[s])
        v("known_relics")[r, st.relic_known[s]] = 1
        v("secret_discard")[r, st.secret_discard[s]] = 1
    v("own_secrets")[st.secret_hand[seat]] = 1
    v("own_relics")[st.relic_hand[seat]] = 1
    v("own_draw_order")[:] = st.secret_drawn_at[seat] / BOUNDS["secrets"]
    v("own_relic_draws")[:] = encode_amount(st.relic_drawn_at[seat], SCALES["relic_draw_order"],
                                            "Relic draw order")
    for slot, r in enumerate(st.relic_map):
        if r >= 0:
            v("relic_map")[slot, r] = 1
    v("relic_discard")[st.relic_discard] = 1
    v("relic_deck")[0] = len(st.relic_deck) / BOUNDS["relics"]
    row = v("conjunction_row")
    for k, c in enumerate(st.conj_row):
        row[k, c] = 1
    mc = v("masks_chaos")
    mc[perm] = np.array(st.masks_space) / BOUNDS["masks"]
    for k, r in enumerate(st.relic_map):
        if r >= 0:
            mc[9 * n + k] = st.masks_relic.get(r, 0) / BOUNDS["masks"]
    base = 9 * n + len(MAP_ORDER)
    mc[base:base + 7 * n] = np.array([st.masks_panel[s] for s in order]).ravel() / BOUNDS["masks"]
    mc[base + 7 * n:] = _soft([st.purged[s] for s in order], SCALES["purged"],
                                      "Chaos purged")
    sp, pe = v("serpent"), v("primed_epoch")
    sp[perm, 0] = np.array(st.initiated, dtype=np.float32)
    for space_, cards in st.primed.items():
        sp[perm[space_], 1] = len(cards) / BOUNDS["primed"]
        for e in st.primed_epoch.get(space_, ()):
            pe[perm[space_], e - 1] += 1 / BOUNDS["primed"]
        if st.has_power(seat, "serpent"):
            v("own_primed")[cards] = 1
    v("investments")[perm] = np.array(st.invest_space) / BOUNDS["invest_space"]
    v("investments")[9 * n:] = np.array(st.invest_route) / BOUNDS["invest_route"]
    v("tiles_board")[[t for t in st.board_tile if t >= 0]] = 1
    for r, s in enumerate(order):
        v("tiles_held")[r, st.tiles[s]] = 1
        v("tiles_held")[r, st.tiles_spent[s]] = 0.5
    v("secrets_turn")[:2] = _soft((st.secrets_played, st.extra_secrets),
                                          SCALES["secrets_turn"], "Secrets this turn")
    v("secrets_turn")[2] = float(st.extra_select)
    ps = [st.pending_strength[s] for s in order]
    if any(ps):
        pst = v("pending_strength")
        pst[:, 0] = _soft([max(x, 0) for x in ps], SCALES["pending_strength"], "pending Strength")
        pst[:, 1] = _soft([max(-x, 0) for x in ps], SCALES["pending_strength"],
                          "pending Strength")
    ep = st.effect_pick
    if isinstance(ep, str) and ep in ("forward", "backward"):
        v("effect_pick")[9 * n + (ep == "backward")] = 1
    elif isinstance(ep, str) and ep in RELIC_INDEX:
        v("assign_relic")[RELIC_INDEX[ep]] = 1
    elif isinstance(ep, str):  # the Secret picked to prime: its owner's private item
        if seat == st.decider:
            v("own_primed")[st.secret_index(seat, ep)] = 0.5
    elif ep is not None:
        v("effect_pick")[perm[ep]] = 1
    if st.assigning is not None and st.assigning[1] >= 0:
        v("assign_relic")[st.assigning[1]] = 1
    for r, s in enumerate(order):
        for k, x in enumerate(st.slots[s]):
            if x >= 0:
                v("slots")[r, k, x] = 1
        v("tucked")[r, st.tucked[s]] = 1
        for lv in st.ftl[s]:
            v("first_to_level")[r, lv - 2] = 1
    v("tableau")[:, 0] = np.array([st.cutouts[s] for s in order]) / BOUNDS["cutouts"]
    v("tableau")[:, 1] = np.array([st.tokens_free[s] for s in order]) / BOUNDS["tokens"]
    if st.acts:
        f = st.acts[-1]
        if f.cost is not None:
            asc = v("ascend")
            if f.suit >= 0:
                asc[f.suit] = 1
            if f.reduction >= 0:
                asc[4 + f.reduction] = 1
            asc[6] = encode_amount(f.cost.gold, SCALES["cost_gold"], "Ascend Gold cost")
            asc[7] = encode_amount(f.cost.suits, SCALES["cost_suits"], "Ascend Suit cost")
        for cid in f.paid or ():
            block, index = st.card_action(f.actor, cid)
            v("ascend_paid")[index if block == "RELIC" else NUM_RELICS + index] = 1
        if f.purchase is not None:
            for sp_ in f.purchase.picks:
                v("map_picks")[RM.MAP_INDEX[sp_]] = 1
    # --- set-up facts and the rest of the public context
    v("first_player")[rel_seat(0)] = 1
    v("space_action")[:] = _space_actions(st, seat)
    supply = st.uf_supply()
    if supply is None:
        v("uf_supply")[1] = 1
    else:
        v("uf_supply")[0] = supply / 55
    ch = v("choice")
    if st.kind == "choose" and st.choosing is not None:
        ch[COLUMNS.index(st.choosing[1])] = 1
    if st.assigning is not None:
        ch[len(COLUMNS) + ASSIGN_MODES.index(st.assigning[0])] = 1
    if st.trade_input is not None:
        ch[len(COLUMNS) + len(ASSIGN_MODES) + (st.trade_input[1] == "secret")] = 1
    if st.phase == "END":
        v("end_context")[st.end_step] = 1
    v("end_context")[_END_STEPS] = float(st.ending)
    if st.phase in ("REACT", "FINAL"):
        for s in st.react_queue:
            v("react_queue")[rel_seat(s)] = 1
    if st.kind == "effect":
        req = st.runners[-1]["runner"].pending
        er = v("effect_request")
        if req.op:
            er[REQUEST_OPS.index(req.op)] = 1
        er[len(REQUEST_OPS)] = float(req.can_pass)
        info = dict(req.info)
        k = len(REQUEST_OPS) + 1
        er[k:k + 2] = _soft((max(int(info.get("n", 0)), 0), max(int(info.get("remaining", 0)), 0)),
                            SCALES["effect_n"], "effect count")
        if "pawn" in info:
            space, ptype = info["pawn"]
            er[k + 2 + perm[space]] = 1
            er[k + 2 + 9 * n + PAWN_CODES.index(ptype)] = 1
    if st.runners:
        runner = st.runners[-1]["runner"]
        es = v("effect_source")
        if runner.frames:
            es[rel_seat(runner.frames[0].seat)] = 1
        src = runner.source
        if src in _SECRET_OF:
            es[n + _SECRET_OF[src]] = 1
        elif src in _CONJ_OF:
            es[n + _SECRETS_PER_SOCIETY + _CONJ_OF[src]] = 1
        else:
            es[-1] = 1
    if st.kind == "secret_option" and st.playing >= 0:
        v("playing")[st.playing] = 1
    if any(st.secret_discard):
        so, table = v("secret_options"), secret_options_played(st)
        for r, s in enumerate(order):
            for k in st.secret_discard[s]:
                if table[s][k] >= 0:
                    so[r, k, table[s][k]] = 1
    la = st.leader_acts[order]
    if la.any():
        v("leader_acts")[:, perm] = encode_amount(la, SCALES["leader_acts"], "Actions started")
    et = st.either_timings[order]
    if et.any():
        v("either_timings")[:] = encode_amount(et, SCALES["either_timings"],
                                               "'either' Relic timings")
    bp = st.board_picks[order]
    if bp.any():
        v("board_picks")[:] = encode_amount(bp, SCALES["board_picks"], "board slots taken")
    pp = st.pawn_picks[order]
    if pp.any():
        v("pawn_picks")[:, perm] = encode_amount(pp, SCALES["pawn_picks"], "pawns picked")
    if st.masks_placed_space.any() or st.masks_placed_map.any() or st.masks_placed_panel.any():
        mp, k = v("masks_placed"), 9 * n + len(MAP_ORDER)
        mp[perm] = encode_amount(st.masks_placed_space, SCALES["masks_placed"], "Chaos placed")
        mp[9 * n:k] = encode_amount(st.masks_placed_map, SCALES["masks_placed"], "Chaos placed")
        mp[k:] = encode_amount(st.masks_placed_panel[order].ravel(), SCALES["masks_placed"],
                               "Chaos placed")
    pk = st.panel_picks[order]
    if pk.any():
        v("panel_picks")[:] = encode_amount(pk, SCALES["panel_picks"], "alchemy tokens placed")
    ra = st.relic_assigns[order]
    if ra.any():
        v("relic_assigns")[:] = encode_amount(ra, SCALES["relic_assigns"], "Relics assigned")
    if st.nem is not None:
        from .nemesis import encode
        encode(st, obs, lay, perm, order)
    return obs
