"""The solo Nemesis: a rules-driven last seat (rulebook "Solo Play"; design
``clandestine_content.md`` §10, JSON ``nemesis``).

No agent decides for the Nemesis: the engine resolves its whole turn itself when its turn comes
(:func:`step`, called from the START phase of its seat), so ``current_player`` is always a human
seat. Its chance events go through the state's chance API (``intent_<type>`` at setup: which
Intent cards of each type enter the deck; ``intent_flip``: which card of the face-down deck is
flipped), so a record replays exactly.

The Intent deck is kept as the *set* of its face-down cards and the card flipped is drawn
uniformly from it at each flip (``chance_integer("intent_flip", len(deck))``): the same
distribution as a shuffled deck, and no hidden order exists in the state (the resampler
relabels which unseen cards of each type are in the deck). Reshuffling (rulebook step 11) makes
the cards below the card just moved the new deck, so no chance event is needed there.

Implemented: the seat (Gold, Intrigue tokens, a Relic hand by age (public), Level, the four
Level slots of its Difficulty card), the Intent deck per difficulty and the two-slot reading,
Nemesis Ascension with target tiles and fallbacks (the First-to-Level tile, the retarget, the
end trigger at Level V, Gaining a Level steps 4a-4c for the other seats), the leader search
(start space, direction, properties, ranking, the relaxations), Fundraise, its Discover, the
alchemy results (assign, buy_intrigue, unique), Relic assignment, the suit effects it receives,
END (the lowest-numbered Route for the Harbor), the scoring card (§10.8);

* the Most Holy: Tithes (placement rule, payment on a human Fundraise), Gold per Tithe,
  Converting Pawns through the Choir, capturing the first Universal Follower leaving its
  Chambers each turn;
* the Silver Guard: setup (Agents per Society, Relic reveals, the Vault's Bright Relics; chance
  events ``sg_reveal`` / ``sg_vault`` put the revealed cards under the deck), seize (Agents on
  Map Relics, a second Agent vaults the Relic), deploy (the next open space), the Vault moving
  its leaders (into the City on C2 past the 4th slot) and unlocking Cells, Cells trapping
  Followers during placements (``pawns.Movement``) and counting for the connected space's
  Actions, Agents in human Chambers (-2 Strength each, moving along the Society path), Agents
  on Relics (+1 cost, returned when acquired), bribe / kill in the owner's PRE and POST windows
  (AGENTS block), the end-of-game discards.

Its public events are worded for the text views as they happen (``ClandestineState.say``,
read through ``rules_words``): the Intent card flipped with its intent row, the Ascension, the
Leader and Action with what it gave, the Alchemy result, a reshuffle, the suit effects it
performs; never a face-down Intent card. The public history (``ClandestineState.public_history``)
gets the cards as ints (``ClandestineState.note``): the Intent card flipped (``intent``), each
Relic drawn face up or shown at the Silver Guard's set-up and where it went (``nemesis_relic``),
each Ascension tile taken face up (``nemesis_tile``).

Simplifications (documented): Serpent traps primed on a space the Nemesis uses stay primed;
Twilight Masks' Chaos on such a space lowers its Strength and is removed (the Nemesis ignores
Chaos); a captured Universal Follower leaves its placed space after the movement (the pawns
after it keep the spacing they were placed with).

The Relics the Silver Guard put under the deck at setup are named, but their order there is
hidden: the resampler redraws it within each group for the cards still hidden from the seat
(``resample.resample_once``; design §1.5 Resampler step 2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import pawns as P
from . import phases as PH
from . import relic_map as RM
from .city import load_content
from .words import intent_words, relic_words, space_action_words, tile_words

if TYPE_CHECKING:  # pragma: no cover
    from .engine import ClandestineState

_C = load_content()
_N = _C["nemesis"]
#: The 24 Intent cards (JSON ``nemesis.intent_cards``), by index.
INTENTS: tuple[dict, ...] = tuple(_N["intent_cards"])
INTENT_IDS: tuple[str, ...] = tuple(c["id"] for c in INTENTS)
NUM_INTENTS = len(INTENTS)
INTENT_TYPES: tuple[str, ...] = ("sun", "moon", "star")
NEMESES: tuple[str, ...] = ("most_holy", "silver_guard")
#: Intent card indices of each type, in card order.
TYPE_CARDS: dict[str, tuple[int, ...]] = {
    t: tuple(i for i, c in enumerate(INTENTS) if c["type"] == t) for t in INTENT_TYPES}
#: Difficulty (1..6) -> its JSON entry (intent counts, Most Holy and Silver Guard setup).
DIFFICULTY: dict[int, dict] = {d["stars"]: d for card in _N["difficulty"]
                               for d in card["difficulties"]}
#: Most Intent cards face down at once: the largest deck a Difficulty builds (★6: 8 + 2 + 7);
#: the deck rebuilt at step 11 holds fewer. Intent cards of each type: 8.
DECK_MAX = max(sum(d["intent"].values()) for d in DIFFICULTY.values())
TYPE_SIZE = max(len(c) for c in TYPE_CARDS.values())
SCORING: dict[str, tuple[int, ...]] = {r["id"]: tuple(r["values"]) for r in _N["scoring"]["rows"]}
MH = _N["most_holy"]
UPPER_COSTS: tuple[int, ...] = tuple(MH["upper_choir_costs"])  # left -> right: 9 .. 3
UPPER_FULL_COST = int(MH["upper_choir_full_cost"])
TITHE_TOKENS = int(MH["tithe_tokens"])
CONVERT_NO_LEADER = int(MH["convert_without_leader_intrigue"])
#: What a Nemesis does not keep (design §10.1; ``ops.Context.tracks``).
UNTRACKED = frozenset({"energy", "chaos", "secret", "deep_alchemy"})
#: The Relic slots of a tableau (design §5.1: the same six for every Society; the Nemesis's
#: Chambers use them for ``assign``).
RELIC_SLOTS: tuple[dict, ...] = tuple(next(iter(_C["societies"].values()))["relic_slots"])
LEVEL_SLOTS = (2, 3, 4, 5)  # the Difficulty card's play face
SG = _N["silver_guard"]
AGENTS = int(SG["agents"])  # 16
AGENT_PENALTY = int(SG["agent_strength_penalty"])  # 2 per Agent in a Chamber
VAULT_SLOTS = int(SG["vault"]["slots_per_track"])  # 4 per suit
SUITS = ("Rod", "Sword", "Disk", "Chalice")


class NemesisSeat:
    """The Nemesis's own state beside the per-seat engine lists (which hold its Gold, Intrigue
    tokens, Level, Relic hand, assigned Relics and First-to-Level tiles).

    Attributes:
        seat: its seat (the last). nemesis: ``"most_holy"``. difficulty: 1..6.
        deck: Intent card indices face down (a set kept sorted). pile: the face-up pile of the
            bottom slot (top = last). top: the card in the top slot during its turn, else -1.
        seen: bool (24,) cards that have been face up (public).
        level_slots: per Level slot II..V, its tiles as ``[tile index, face_up]`` lists.
        stage: progress of its turn (0: not started; 1: Ascension done).
        tithes: Most Holy: Tithe tokens per City space. upper: UFs on the upper Choir (filling
            slots from the left). lower_uf: UFs in the Lower Choir (Lower-Choir leaders are the
            engine's ``cutouts`` of the seat). captured: the Choir captured a UF this turn.
    """

    def __init__(self, seat: int, nemesis: str, difficulty: int, num_spaces: int):
        self.seat, self.nemesis, self.difficulty = seat, nemesis, difficulty
        self.deck: list[int] = []
        self.pile: list[int] = []
        self.top = -1
        self.seen = [False] * NUM_INTENTS
        self.level_slots: list[list[list]] = [[] for _ in LEVEL_SLOTS]
        self.stage = 0
        self.tithes = [0] * num_spaces
        self.upper = 0
        self.lower_uf = 0
        self.captured = False
        # the Silver Guard
        self.agents_space = [0] * num_spaces
        self.agents_relic: dict[int, int] = {}
        self.vault_pos = {s: 0 for s in SUITS}  # its leader's slot per track; 4 = in the City
        self.vault_relics: list[int] = []
        self.cells: dict[int, list[int]] = {}
        self.revealed: list[int] = []  # Relics revealed at setup and put under the deck
        self.discarded = np.zeros(P.NUM_PAWN_TYPES, dtype=np.int64)  # end-of-game discards
        # the Twilight Masks' Chaos the Nemesis swept away (ignored on its Action's space, gone
        # with a Relic it took): public history kept for the observation (perfect recall)
        self.masks_ignored = [0] * num_spaces
        self.masks_taken: dict[int, int] = {}

    def intent(self) -> dict:
        """The intent row in force: the top slot's card (during its turn)."""
        return INTENTS[self.top]["intent_row"]

    def method(self) -> dict:
        """The method row in force: the bottom pile's face-up card."""
        return INTENTS[self.pile[-1]]["method_row"]


# ---------------------------------------------------------------------------- words
ROMAN = ("I", "II", "III", "IV", "V")


def space_words(st: ClandestineState, space: int) -> str:
    """``"P0S3 (Fundraise)"``: a space and its Action, as the text view names them."""
    action = space_action_words(st.city.action(space))
    return st.city.space_ids[space] + (f" ({action})" if action else "")


def intent_row_words(row: dict) -> str:
    """The intent row of an Intent card (design §10.4): ``"Ascension (L side); Target Suit
    Rod; Target Routes R1, R4, Harbor"`` or ``"no Ascension; ..."``."""
    routes = ", ".join("Harbor" if r == "H" else r for r in row["target_routes"])
    ascend = f"Ascension ({row['side']} side)" if row["ascend"] else "no Ascension"
    return f"{ascend}; Target Suit {row['target_suit']}; Target Routes {routes}"


def tithe_words(st: ClandestineState, space: int) -> str:
    """Where :func:`add_tithe` put a Tithe token (``space`` -1: none was left)."""
    return f"a Tithe token on {space_words(st, space)}" if space >= 0 else \
        "no Tithe token left"


def relics_words(relics: list[int]) -> str:
    """``"<name> [R###]; ..."`` of the Relics (all public: Map Relics, a Nemesis hand)."""
    return "; ".join(relic_words(r) for r in relics)


def seize_words(marked: list[int], vaulted: list[int]) -> str:
    """What :func:`seize` did: Agents put on Relics, Relics taken into the Vault."""
    parts = ([f"an Agent on each of {relics_words(marked)}"] if marked else []) + \
        ([f"into the Vault: {relics_words(vaulted)}"] if vaulted else [])
    return "; ".join(parts) or "no Relic of the Target Suit on the Map"


_KIND_WORDS = {"any": "any Leader", "public": "a Public Leader", "society": "a Society Leader"}
_ON_WORDS = {"any": "", "fundraise": " on a Fundraise space", "discover": " on a Discover space",
             "chamber": " on a Chamber"}
_ALCHEMY_WORDS = {"buy_intrigue": "6 Gold for 2 Intrigue", "unique": "its C1 Action at Strength 0",
                  "none": "none"}


def method_row_words(st: ClandestineState, row: dict) -> str:
    """The method row of the face-up Intent card (design §10.2 steps 9-10): where the leader
    search starts and goes, which Leader it takes, the Alchemy result."""
    sel, props = row["leader_selection"], row["leader_properties"]
    if sel["dir"] == "path":
        where = "along its path (C1-C4, S1-S3, then the Public loop clockwise)"
    else:
        seat, n = st.nem.seat, st.spec.num_players
        start = {"nemesis_S1": st.city.sidewalks(seat)[0], "nemesis_C1": st.city.sidewalks(seat)[0],
                 "next_seat_S1": st.city.sidewalks(0)[0],
                 "prev_seat_S3": st.city.sidewalks((seat - 1) % n)[2]}[sel["start"]]
        where = (f"from {st.city.space_ids[start]} "
                 f"{'clockwise' if sel['dir'] == 'cw' else 'counterclockwise'}")
    rank = "the first found" if props["rank"] == "first" else "the strongest"
    res = row["alchemy_result"]
    alchemy = (f"assign a Relic of the Target Suit to {row['assign_chamber']}"
               if res == "assign" else _ALCHEMY_WORDS.get(res, res))
    return (f"next Leader {where}, {_KIND_WORDS[props['kind']]}{_ON_WORDS[props['on']]}, "
            f"{rank}; Alchemy: {alchemy}")


def render_lines(st: ClandestineState) -> list[str]:
    """The Nemesis's public board for the text view (every seat sees it; design §1.5): the
    face-up Intent card with its method row, the face-down count, the Level slots (face-up
    tiles by name, face-down ones counted); the Most Holy's Tithes and Choir; the Silver
    Guard's Agents, Vault and Cells. Never a face-down Intent card."""
    from .engine import NEMESIS_NAMES
    nem = st.nem
    ids = st.city.space_ids
    lines = [(f"  Nemesis {NEMESIS_NAMES[nem.nemesis]} (seat {nem.seat}, difficulty "
              f"{nem.difficulty}):")]
    if nem.pile:
        lines.append(f"    face-up Intent {intent_words(nem.pile[-1])}: "
                     f"{method_row_words(st, nem.method())}")
    slots = []
    for level, slot in zip(LEVEL_SLOTS, nem.level_slots):
        up = [tile_words(t) for t, face_up in slot if face_up]
        down = sum(not face_up for _, face_up in slot)
        text = ", ".join(up + ([f"{down} face down"] if down else [])) or "-"
        slots.append(f"{ROMAN[level - 1]} {text}")
    lines.append(f"    Intent deck {len(nem.deck)} face down; Level slots {'; '.join(slots)}")
    if nem.nemesis == "most_holy":
        tithes = "; ".join(f"{ids[s]} {k}" for s, k in enumerate(nem.tithes) if k) or "none"
        lines.append(f"    Tithes {tithes} ({sum(nem.tithes)} of {TITHE_TOKENS})")
        lines.append(f"    upper Choir {nem.upper} Universal Followers (next Conversion "
                     f"{convert_cost(st)} Gold); Lower Choir {nem.lower_uf} Universal "
                     f"Followers, {st.cutouts[nem.seat]} Society Leaders")
    else:
        agents = "; ".join(f"{ids[s]} {k}" for s, k in enumerate(nem.agents_space) if k) \
            or "none"
        on_map = relics_words([r for r in st.relic_map if r >= 0 and nem.agents_relic.get(r)])
        lines.append(f"    Agents in Chambers {agents}; on Map Relics {on_map or 'none'}; "
                     f"{agent_supply(st)} in the supply")
        tracks = ", ".join(f"{s} {nem.vault_pos[s]}/{VAULT_SLOTS}" for s in SUITS)
        cells = "; ".join(f"{ids[s]} {len(c)} ({sum(t >= 0 for t in c)} trapped)"
                          for s, c in sorted(nem.cells.items())) or "none"
        lines.append(f"    Vault tracks {tracks}; Relics in the Vault "
                     f"{relics_words(nem.vault_relics) or 'none'}; Cells {cells}")
    return lines


# ---------------------------------------------------------------------------- setup
def setup(st: ClandestineState) -> None:
    """Nemesis setup (rulebook Solo Play steps 1-5, design §10.5 Setup 2-3): the Intent deck
    from the Difficulty's Sun/Moon/Star counts (chance events ``intent_sun``, ``intent_moon``,
    ``intent_star``: a permutation of the type's 8 cards, the first k enter the deck), one card
    flipped to the bottom slot, then the Most Holy's Choir and Tithes."""
    spec = st.spec
    nem = NemesisSeat(spec.num_players - 1, spec.nemesis, spec.difficulty, spec.num_spaces)
    st.nem = nem
    diff = DIFFICULTY[spec.difficulty]
    for t in INTENT_TYPES:
        cards = TYPE_CARDS[t]
        perm = st.chance_permutation(f"intent_{t}", len(cards))
        nem.deck += [cards[int(p)] for p in perm[:diff["intent"][t]]]
    nem.deck.sort()
    nem.pile.append(_flip(st))
    if nem.nemesis == "most_holy":
        # 4 Society Leaders on the Lower Choir: the seat's cutouts (4 from the engine's setup)
        nem.upper = int(diff["most_holy"]["upper_choir_uf"])
        st.uf_added += nem.upper  # from the supply
        for _ in range(int(diff["most_holy"]["tithes"])):
            add_tithe(st)
    else:
        setup_silver_guard(st, diff["silver_guard"])


def _flip(st: ClandestineState) -> int:
    """Flip a card of the face-down deck (uniformly, chance event ``intent_flip``); the card
    goes into the public history (``intent`` event)."""
    from .engine import EV_INTENT
    nem = st.nem
    k = st.chance_integer("intent_flip", len(nem.deck))
    card = nem.deck.pop(k)
    nem.seen[card] = True
    st.note(EV_INTENT, card)
    return card


# ---------------------------------------------------------------------------- its turn
def step(st: ClandestineState) -> None:
    """One automatic part of the Nemesis's turn (rulebook steps 7-11), run from START:

    * stage 0: step 7 (flip the top card) and step 8 (Ascension); when the Nemesis is first to
      a Level, the other seats' suit effects run in an Action frame (their choices are theirs),
      and the turn goes on when it is done;
    * stage 1: step 9 (leader search and its Action), step 10 (alchemy), step 11 (the card to
      the pile, reshuffling an empty deck); then END.
    """
    nem = st.nem
    if nem.stage == 0:
        nem.captured = False
        nem.top = _flip(st)
        nem.stage = 1
        row = nem.intent()
        st.say(f"flipped the Intent card {intent_words(nem.top)}: {intent_row_words(row)}")
        if row["ascend"]:
            effects = ascend(st, row["target_suit"], row["side"])
            if effects:
                f = PH.ActionFrame("ascend", nem.seat, -1, -1, 0, PH.ASCEND,
                                   moved=np.zeros_like(st.pawns.counts))
                f.effects, f.after_done = effects, True
                st.acts.append(f)
        return
    space, leader = find_leader(st)
    perform(st, space, leader)
    alchemy(st)
    nem.pile.append(nem.top)
    nem.top = -1
    if not nem.deck:  # step 11: the cards below the one just moved become the new deck
        nem.deck = sorted(nem.pile[:-1])
        nem.pile = nem.pile[-1:]
        k = len(nem.deck)
        st.say(f"Intent deck empty: the {k} card{'s' if k != 1 else ''} under "
               f"{intent_words(nem.pile[-1])} shuffled into a new deck")
    nem.stage = 0
    st.phase, st.end_step = "END", 0


# ---------------------------------------------------------------------------- ascension
def board_slot(level: int, suit: str, side: str) -> int:
    """Index of the Ascension board slot (Level, Suit column, side) in ``ascension.board_slots``."""
    from .engine import BOARD_INDEX
    roman = ("I", "II", "III", "IV", "V")[level - 1]
    return BOARD_INDEX[f"A{roman}-{suit}-{side}"]


def _take_target(st: ClandestineState, level: int, suit: str, side: str) -> int:
    """Take the target tile (or the other side's) of ``level`` onto its Level slot face up
    (public history: a ``nemesis_tile`` event); returns the tile, or -1 when both are gone."""
    from .engine import EV_NEMESIS_TILE
    nem = st.nem
    for sd in (side, "R" if side == "L" else "L"):
        idx = board_slot(level, suit, sd)
        tile = st.board_tile[idx]
        if tile >= 0:
            nem.level_slots[level - 2].append([tile, True])
            st.board_tile[idx] = -1
            st.note(EV_NEMESIS_TILE, tile, level)
            return tile
    return -1


def ascend(st: ClandestineState, suit: str, side: str) -> list[tuple[int, str]]:
    """Nemesis Ascension (rulebook "Nemesis Ascension"; design §10.3) with the top card's
    Target Suit and side. Returns the other seats' suit effects to perform (Gaining a Level
    step 4c when it is first to a Level), else ``[]``.

    Target Level = its Level + 1. The target tile, else the other tile of that Level and Suit,
    goes face up on the target Level's slot; if both are gone it ascends: the First-to-Level
    tile of that Level face down on the slot if nobody holds it, then every tile on the slot
    face down; its Level rises (Gaining a Level steps 4a-4c for a first arrival; no Conjunction
    at II); at Level V the end is triggered instead of retargeting; else the new target Level's
    tile is taken the same way (design: "same fallbacks", so a chain of ascensions can follow).
    """
    from .engine import TILE_INDEX
    nem = st.nem
    effects: list[tuple[int, str]] = []
    while st.level[nem.seat] < 5:
        target = st.level[nem.seat] + 1
        tile = _take_target(st, target, suit, side)
        if tile >= 0:
            st.say(f"Ascension: took the tile {tile_words(tile)} face up onto its Level "
                   f"{ROMAN[target - 1]} slot")
            break
        slot = nem.level_slots[target - 2]
        first = not any(target in t for t in st.ftl)
        if first:
            slot.append([TILE_INDEX["T-FTL-" + ("I", "II", "III", "IV", "V")[target - 1]], False])
        for tile in slot:
            tile[1] = False
        st.level[nem.seat] = target
        now = st.gain_level_rest(nem.seat, suit)  # ftl, UFs on Sidewalks, end at V
        effects += now
        st.say(f"Ascension: no {suit} tile left for Level {ROMAN[target - 1]}: rose to Level "
               f"{ROMAN[target - 1]}" + (", first to it" if first else "")
               + (f" (every other seat performs the {now[0][1]} suit effect)" if now else "")
               + (": the end of the game is triggered" if target == 5 else ""))
    return effects


# ---------------------------------------------------------------------------- leader search
def search_order(st: ClandestineState, start: str, direction: str) -> list[int]:
    """The spaces in search order (design §10.2 step 9): ``cw``/``ccw`` = the Public loop from
    the start space in that direction, then the Nemesis's Chambers C1-C4; ``path`` = its
    Chambers C1-C4, its Sidewalks S1-S3, then the rest of the Public loop clockwise.

    Raises:
        ValueError: unknown start or direction.
    """
    city, seat = st.city, st.nem.seat
    n = st.spec.num_players
    loop = [int(s) for s in city.public_loop]
    chambers = list(city.chambers(seat))
    if direction == "path":
        side = list(city.sidewalks(seat))
        i = loop.index(side[-1])
        rest = [loop[(i + k) % len(loop)] for k in range(1, len(loop))]
        return chambers + side + [s for s in rest if s not in side]
    starts = {"nemesis_S1": city.sidewalks(seat)[0], "next_seat_S1": city.sidewalks(0)[0],
              "prev_seat_S3": city.sidewalks((seat - 1) % n)[2],
              "nemesis_C1": city.sidewalks(seat)[0]}
    if start not in starts or direction not in ("cw", "ccw"):
        raise ValueError(f"leader selection {start!r}/{direction!r} is not a known start / "
                         "direction (design §10.2)")
    i = loop.index(int(starts[start]))
    d = 1 if direction == "cw" else -1
    return [loop[(i + d * k) % len(loop)] for k in range(len(loop))] + chambers


def cell_strength(st: ClandestineState, space: int) -> int:
    """Strength the leader ranking counts on ``space``: Leaders 2, Followers 1, Followers in
    the Silver Guard's Cells of the space included (design ruling 'Nemesis leader ranking'; no
    Chaos, Agents, traps or bonuses)."""
    return int(st.pawns.strength(space)) + sum(t >= 0 for t in st.nem.cells.get(space, ()))


def candidates(st: ClandestineState, order: list[int]) -> list[tuple[int, int]]:
    """``(space, leader type)`` the Nemesis may act with, in search order (a Public Leader
    before its Society Leader on the same space)."""
    c, out = st.pawns.counts, []
    for s in order:
        if c[s, P.PL] > 0:
            out.append((s, P.PL))
        if c[s, P.SL] > 0 and st.city.on_society_path(s, st.nem.seat):
            out.append((s, P.SL))
    return out


def find_leader(st: ClandestineState) -> tuple[int, int]:
    """Step 9a: the Leader the method row selects (design §10.2): candidates filtered by
    ``kind`` and ``on``, ranked ``first`` or ``max_strength`` (ties to the earliest); if none
    match, ``on`` is dropped, then ``kind``. Returns ``(space, leader type)``."""
    m = st.nem.method()
    sel, props = m["leader_selection"], m["leader_properties"]
    cands = candidates(st, search_order(st, sel["start"], sel["dir"]))
    chambers = set(st.city.chambers(st.nem.seat))

    def kind_ok(c, kind):
        return kind == "any" or (kind == "public") == (c[1] == P.PL)

    def on_ok(c, on):
        if on == "any":
            return True
        if on == "chamber":
            return c[0] in chambers
        return st.city.action(c[0]).lower() == on

    for kind, on in ((props["kind"], props["on"]), (props["kind"], "any"), ("any", "any")):
        ok = [c for c in cands if kind_ok(c, kind) and on_ok(c, on)]
        if ok:
            if props["rank"] == "first":
                return ok[0]
            best = max(cell_strength(st, s) for s, _ in ok)
            return next(c for c in ok if cell_strength(st, c[0]) == best)
    raise RuntimeError("no Leader for the Nemesis (a City always holds Public Leaders)")


# ---------------------------------------------------------------------------- its Actions
class _Taken:
    """What ``ClandestineState._payouts`` reads of a Discover: the Routes Relics came from."""

    def __init__(self, routes: tuple[str, ...]):
        self._routes = routes

    def routes(self) -> tuple[str, ...]:
        return self._routes

    def took_extension(self) -> bool:
        return False


def perform(st: ClandestineState, space: int, leader: int) -> None:
    """Step 9b: the Action of ``space`` with the found Leader (design §1.3 for the Nemesis):
    Strength, pawns moved in the Nemesis order (the Most Holy's Choir capturing the first
    Universal Follower leaving its Chambers this turn), the formula, step 9's payouts."""
    nem, seat = st.nem, st.nem.seat
    chambers = st.city.chambers(seat)
    name = st.city.action(space).lower()
    mv = P.start_movement(st.city, st.pawns, space, leader, seat, automatic=True,
                          cells=nem.cells)
    strength = mv.strength
    head = (f"Action with {'the Public' if leader == P.PL else 'its Society'} Leader on "
            f"{space_words(st, space)}")
    x = st.masks_space[space]
    if x:  # step 2: the Masks' Chaos on the space (the Nemesis ignores the Chaos itself)
        strength += -x
        st.masks_space[space] = 0
        nem.masks_ignored[space] += x
        head += f" (ignoring its {x} Chaos of the Twilight Masks: Strength -{x})"
    if nem.nemesis == "most_holy" and space in chambers:
        caught = capture(st, mv.placements)
        if caught >= 0:
            head += (f" (the Choir captured the Universal Follower placed on "
                     f"{st.city.space_ids[caught]})")
    s = max(0, strength)
    taken: tuple[str, ...] = ()
    if name == "fundraise":
        st.gold[seat] += s
        did = f"gained {s} Gold"
    elif name == "discover":
        had = len(st.relic_hand[seat])
        taken = discover(st)
        got = st.relic_hand[seat][had:]
        did = f"took {relics_words(got)}" if got else "no Relic of the Target Suit on the " \
            "Target Routes"
    elif name == "tithe":
        did = tithe_words(st, add_tithe(st))
        if s >= 5:
            did += ", " + tithe_words(st, add_tithe(st))
    elif name == "collect":
        gold = sum(nem.tithes) + s // 2
        st.gold[seat] += gold
        did = f"gained {gold} Gold"
    elif name == "convert":
        did = convert_words(st)
        if s >= 6:
            did += "; " + convert_words(st)
    elif name == "tithe_convert":
        did = tithe_words(st, add_tithe(st)) + "; " + convert_words(st)
    elif name == "seize":
        did = seize_words(*seize(st, nem.intent()["target_suit"]))
    elif name == "deploy":
        did = deploy_words(st)
        if s >= 6 and space == chambers[1]:
            did += ", " + deploy_words(st)
    else:  # pragma: no cover - the Public loop holds only Fundraise and Discover spaces
        raise RuntimeError(f"the Nemesis cannot perform {name!r}")
    st.say(f"{head}, Strength {s}: {did}")
    f = PH.ActionFrame(name, seat, space, leader, s)
    f.purchase = _Taken(taken) if name == "discover" else None
    st._payouts(f)


def relic_suits(relic: int) -> tuple[str, ...]:
    """A Relic's primary and alternate suits."""
    from .engine import CARDS
    r = CARDS.relics[relic]
    return (r.suit,) + ((r.alt_suit,) if r.alt_suit else ())


def discover(st: ClandestineState) -> tuple[str, ...]:
    """The Nemesis's Discover (rulebook "Discover Action"; design §10.2): every Map Relic whose
    primary or alternate suit is the Target Suit, in the Target Routes (``H`` = the Harbor), in
    Map order, to its hand (public); no Strength, no cost, no Chaos; Masks' Chaos on a taken
    Relic is discarded. Returns the Routes taken from (for payouts; the Harbor pays nothing)."""
    from .engine import MAP_ORDER
    row, seat = st.nem.intent(), st.nem.seat
    routes = set(row["target_routes"])
    used = []
    for k, sp in enumerate(MAP_ORDER):
        r = st.relic_map[k]
        if r < 0 or row["target_suit"] not in relic_suits(r):
            continue
        route = RM.space_route(sp)
        if ("H" if route is None and sp == "H" else route) not in routes:
            continue
        st.relic_map[k] = -1
        st.relic_hand[seat].append(r)
        st.relic_known[seat].append(r)
        x = st.masks_relic.pop(r, 0)
        if x:
            st.nem.masks_taken[r] = st.nem.masks_taken.get(r, 0) + x
        st.nem.agents_relic.pop(r, None)  # its Agents return to the supply
        if route is not None and route not in used:
            used.append(route)
    return tuple(used)


def alchemy(st: ClandestineState) -> None:
    """Step 10 (design §10.2): ``assign`` = the oldest Relic in hand of the Target Suit to a free
    slot of the method row's Chamber (Dark Relics only in slots allowing them); ``buy_intrigue``
    = pay 6 Gold for 2 Intrigue if it has 6; ``unique`` = its C1 Action with Strength 0."""
    from .engine import RELIC_DARK
    nem, seat = st.nem, st.nem.seat
    m = nem.method()
    res = m["alchemy_result"]
    if res == "assign":
        suit = nem.intent()["target_suit"]
        did = f"no {suit} Relic in hand to assign"
        for r in list(st.relic_hand[seat]):
            if suit not in relic_suits(r):
                continue
            free = [k for k, sl in enumerate(RELIC_SLOTS) if sl["chamber"] == m["assign_chamber"]
                    and st.slots[seat][k] < 0 and (sl["dark_allowed"] or not RELIC_DARK[r])]
            if free:
                st.relic_hand[seat].remove(r)
                st.relic_known[seat].remove(r)
                st.slots[seat][free[0]] = r
                did = f"assigned {relic_words(r)} to Relic slot {free[0] + 1}"
            else:
                did = f"no free slot of {m['assign_chamber']} for {relic_words(r)}"
            break  # only the oldest Relic of the suit is tried
    elif res == "buy_intrigue":
        did = "fewer than 6 Gold: no Intrigue bought"
        if st.gold[seat] >= 6:
            st.gold[seat] -= 6
            st.intrigue[seat] += 2
            did = "paid 6 Gold for 2 Intrigue"
    elif res == "unique":
        if nem.nemesis == "most_holy":  # C1 Collection Plate at Strength 0: one Tithe
            did = tithe_words(st, add_tithe(st))
        else:  # C1 Interrogation Room
            did = seize_words(*seize(st, nem.intent()["target_suit"]))
        did = f"its C1 Action at Strength 0: {did}"
    elif res != "none":  # pragma: no cover - the JSON's results are these four
        raise RuntimeError(f"unknown alchemy result {res!r}")
    else:
        return
    st.say(f"Alchemy, {did}" if res == "unique" else f"Alchemy: {did}")


# ---------------------------------------------------------------------------- the Most Holy
def tithe_spaces(st: ClandestineState) -> list[int]:
    """Public Fundraise spaces a Tithe may go to (ruling 'Tithe spaces': not the Most Holy's
    own Sidewalks), in the placement order of design §10.6 ``tithe_placement`` ignoring the
    Tithe counts: smallest distance min(clockwise steps from its S3, counterclockwise steps
    from its S1), then first clockwise from its S3."""
    city, seat = st.city, st.nem.seat
    loop = [int(s) for s in city.public_loop]
    s1, _s2, s3 = city.sidewalks(seat)
    i1, i3, L = loop.index(s1), loop.index(s3), len(loop)
    own = set(city.sidewalks(seat))
    cands = [s for s in loop if s not in own and city.action(s) == "Fundraise"]

    def key(s):
        j = loop.index(s)
        cw = (j - i3) % L
        return (min(cw, (i1 - j) % L), cw)
    return sorted(cands, key=key)


def add_tithe(st: ClandestineState) -> int:
    """Add a Tithe token (design §10.6 ``tithe_placement``): to the candidate space with the
    fewest Tithes, ties by :func:`tithe_spaces` order; nothing when all 12 are in play.
    Returns the space, or -1."""
    nem = st.nem
    if sum(nem.tithes) >= TITHE_TOKENS:
        return -1
    order = tithe_spaces(st)
    best = min(nem.tithes[s] for s in order)
    space = next(s for s in order if nem.tithes[s] == best)
    nem.tithes[space] += 1
    return space


def tithe_on_fundraise(st: ClandestineState, seat: int, space: int, gained: int) -> int:
    """Tithes (rulebook "Tithes"; design §10.6 ``tithe_effect``): a seat Fundraising on a space
    with T Tithes gives min(T, Gold the formula gave) to the Most Holy. Returns the Gold given."""
    nem = st.nem
    if nem is None or nem.nemesis != "most_holy" or space < 0 or seat == nem.seat:
        return 0
    pay = min(nem.tithes[space], gained)
    st.gold[seat] -= pay
    st.gold[nem.seat] += pay
    return pay


def convert_cost(st: ClandestineState) -> int:
    """Gold of the leftmost empty upper-Choir slot (2 when all 7 are full)."""
    u = st.nem.upper
    return UPPER_COSTS[u] if u < len(UPPER_COSTS) else UPPER_FULL_COST


def convert_words(st: ClandestineState) -> str:
    """:func:`convert` once, and what it did in words."""
    cost, leader = convert_cost(st), st.cutouts[st.nem.seat] > 0
    if not convert(st):
        return "no Conversion (it needs a Universal Follower on the upper Choir and " \
               f"{cost} Gold)"
    return (f"Converted for {cost} Gold: a Universal Follower to the Lower Choir, "
            + ("a Society Leader to its C2" if leader else f"{CONVERT_NO_LEADER} Intrigue"))


def convert(st: ClandestineState) -> bool:
    """Convert Pawns (rulebook "Most Holy's Unique Actions"; design §10.6 ``convert``): with a
    UF on the upper Choir and the Gold of the leftmost empty slot, pay it, move the rightmost
    upper UF to the Lower Choir (for the rest of the game), then a Lower-Choir leader to its
    bottom space (C2), or gain 3 Intrigue if none is left. Returns whether it converted."""
    nem, seat = st.nem, st.nem.seat
    cost = convert_cost(st)
    if nem.upper < 1 or st.gold[seat] < cost:
        return False
    st.gold[seat] -= cost
    nem.upper -= 1
    nem.lower_uf += 1
    if st.cutouts[seat] > 0:
        st.cutouts[seat] -= 1
        st.pawns.counts[st.city.chambers(seat)[1], P.SL] += 1
    else:
        st.intrigue[seat] += CONVERT_NO_LEADER
    return True


def capture(st: ClandestineState, placements) -> int:
    """The Choir (rulebook "The Choir"): the first Universal Follower each turn that leaves the
    Most Holy's Chambers goes to the leftmost empty upper-Choir slot instead (if any). Returns
    the space it was placed on, or -1."""
    nem = st.nem
    if nem.captured or nem.upper >= len(UPPER_COSTS):
        return -1
    chambers = set(st.city.chambers(nem.seat))
    for t, y in placements:
        if t == P.UF and y not in chambers:
            st.pawns.counts[y, P.UF] -= 1
            nem.upper += 1
            nem.captured = True
            return int(y)
    return -1


# ---------------------------------------------------------------------------- other seats
def suit_effect(st: ClandestineState, column: str, ascender: int) -> None:
    """Gaining a Level step 4c for the Nemesis when another seat is first to a Level (design
    §10.1): Military as normal, Economic Gold = the ascender's Level, Political nothing, Occult
    one Relic drawn face up."""
    seat = st.nem.seat
    if column == "Military":
        st.military_sweep()
    elif column == "Economic":
        st.gold[seat] += st.level[ascender]
        st.say(f"Economic suit effect: gained {st.level[ascender]} Gold")
    elif column == "Occult" and st.draw_relics(seat, 1):  # face up (ClandestineState.draw_relics)
        st.say(f"Occult suit effect: drew {relic_words(st.relic_hand[seat][-1])} face up")


# ---------------------------------------------------------------------------- scoring
def score(st: ClandestineState) -> int:
    """The Nemesis's Intrigue from the scoring card (design §10.8) at its difficulty."""
    nem, seat = st.nem, st.nem.seat
    col = nem.difficulty - 1
    row = {k: v[col] for k, v in SCORING.items()}
    total = row["level_sq"] * st.level[seat] ** 2
    total += row["per_ascension_tile"] * sum(len(s) for s in nem.level_slots)
    total += row["per_sl_in_city"] * st.pawns.society_leaders_of(st.city, seat)
    total += row["per_assigned_relic"] * sum(r >= 0 for r in st.slots[seat])
    total += st.gold[seat] // row["gold_div"]
    if nem.nemesis == "most_holy":
        total += row["mh_lower_choir_uf"] * nem.lower_uf + row["mh_tithe"] * sum(nem.tithes)
    else:
        total += row["sg_vault_relic"] * len(nem.vault_relics)
        total += row["sg_agent_in_chamber"] * sum(nem.agents_space)
    total += row["intrigue_tokens"] * st.intrigue[seat] + row["flat"]
    return int(total)


def off_city_pawns(st: ClandestineState) -> np.ndarray:
    """Int64 (4,) pawns off the City kept by the Nemesis: Universal Followers in the Choir,
    Followers in the Cells, pawns discarded by the end-of-game Agent rule."""
    nem = st.nem
    out = nem.discarded.copy()
    if nem.nemesis == "most_holy":
        out[P.UF] += nem.upper + nem.lower_uf
    for cell in nem.cells.values():
        for t in cell:
            if t >= 0:
                out[t] += 1
    return out


# ---------------------------------------------------------------------------- observation
def add_layout(lay: Any, num_spaces: int) -> None:
    """The Nemesis block of the observation (all public, design §1.5: a Nemesis's state is
    public): appended to the base layout. The Actions of the Nemesis's Chambers are fixed by
    which Nemesis it is (``nemesis.<id>.chambers``), so ``nemesis_id`` gives them."""
    lay.add("nemesis_id", len(NEMESES), "one-hot Nemesis (" + ", ".join(NEMESES) + ")")
    lay.add("nemesis_difficulty", 6, "one-hot difficulty 1-6")
    lay.add("nemesis_face_up", NUM_INTENTS, "one-hot the Nemesis's face-up Intent card (the "
            "bottom pile's top: its next method row)")
    lay.add("nemesis_seen", NUM_INTENTS, "Intent cards that have been face up")
    lay.add("nemesis_deck", 4, f"Intent cards face down / {DECK_MAX}; Sun, Moon, Star face down "
            f"never seen / {TYPE_SIZE}")
    from .observation import BOUNDS as B
    from .observation import SCALES as S
    lay.add("nemesis_slots", (4, 2), f"per Level slot II-V: tiles / {B['level_slot_tiles']}, "
            f"face-down tiles / {B['level_slot_tiles']} (b: the Level's board tiles and its "
            "First-to-Level tile)")
    lay.add("nemesis_tithes", num_spaces, f"Most Holy Tithe tokens per relative space / "
            f"{B['tithes']} (b: the Tithe tokens)")
    lay.add("nemesis_choir", 3, f"Most Holy: upper-Choir UFs / {B['upper_choir']} (b: its "
            f"slots), Lower-Choir UFs x/(x+{S['lower_choir_uf']:g}), Lower-Choir leaders / "
            f"{B['cutouts']}")
    lay.add("nemesis_score", 1, "the Nemesis's scoring-card Intrigue now, "
            f"x/(x+{S['nemesis_score']:g})")
    lay.add("sg_agents_space", num_spaces, f"Silver Guard Agents per relative space / "
            f"{B['agents']} (b: the Agents)")
    lay.add("sg_agents_map", 17, "Silver Guard Agents on the Relic of each Map space (map_order)")
    lay.add("sg_vault", 6, "Silver Guard: its leader's slot on the Rod, Sword, Disk, Chalice "
            f"tracks / {VAULT_SLOTS} (1 = in the City), Relics in the Vault / {B['relics']} (b: "
            f"the Relics), Agents in the supply / {AGENTS}")
    lay.add("sg_cells", num_spaces, "Silver Guard: unlocked Cells per relative space / 2, "
            "the Followers trapped in them counted in sg_cell_pawns")
    lay.add("sg_cell_pawns", num_spaces, "Followers trapped in the Cells of each relative space / 2")
    from .engine import NUM_RELICS
    lay.add("nemesis_masks", num_spaces + NUM_RELICS, "the Twilight Masks' Chaos the Nemesis swept "
            "away this game: ignored on each relative space it acted on, then taken with each "
            f"Relic (by id), each x/(x+{S['nemesis_masks']:g}) (public history)")
    # cards shown face up and remembered (perfect recall, design §1.5 "Public history": every
    # card that became public and where it went)
    from .engine import NUM_TILES
    lay.add("nemesis_tiles", NUM_TILES, "per tile on the Nemesis's Level slots: 1 face up "
            "(taken from the board), 0.5 face down (turned over when it reached that Level, or "
            "its First-to-Level tile)")
    lay.add("sg_vault_relics", NUM_RELICS, "Silver Guard: 1 per Relic in its Vault (each was "
            "face up when it went in)")
    lay.add("sg_under", (2, NUM_RELICS), "Silver Guard: 1 per Relic shown at set-up and put "
            "under the Relic deck: row 0 the revealed ones, row 1 those its Vault search showed "
            "and did not keep (their order under the deck is hidden)")
    lay.add("nemesis_pile", NUM_INTENTS, "1 per Intent card in the face-up pile of the bottom "
            "slot (flipped since the deck was last made from the pile: with nemesis_seen, which "
            "cards seen are face down in the deck)")
    lay.add("nemesis_hand_order", NUM_RELICS, "per Relic in the Nemesis's hand (face up): its "
            f"place from the oldest, 1, 2, ... / {B['relics']} (b: the Relics; its alchemy assigns "
            "the oldest of the Target Suit)")
    lay.add("sg_cell_uf", num_spaces, "Universal Followers among the Followers trapped in the "
            "Cells of each relative space / 2 (the others are Public Followers; each was seen "
            "going in)")
    lay.add("sg_blind", (num_spaces // 9, 2), "Silver Guard: per relative seat, the Relics of "
            "each sg_under row it drew face down from under the deck and has not shown since / "
            f"{B['relics']} (b: the Relics; public history: the deck size at each draw shows "
            "which group a blind draw came from)")


def encode(st: ClandestineState, obs: np.ndarray, lay: Any, perm: np.ndarray,
           order: list[int]) -> None:
    """Fill the Nemesis block of ``obs`` (``perm``: absolute space -> relative index;
    ``order``: the absolute seat of each relative seat)."""
    from .observation import BOUNDS, SCALES, encode_amount
    nem = st.nem
    v = lambda name: lay.view(obs, name)
    v("nemesis_id")[NEMESES.index(nem.nemesis)] = 1
    v("nemesis_difficulty")[nem.difficulty - 1] = 1
    if nem.pile:
        v("nemesis_face_up")[nem.pile[-1]] = 1
    v("nemesis_seen")[:] = nem.seen
    v("nemesis_pile")[nem.pile] = 1
    for k, r in enumerate(st.relic_hand[nem.seat]):  # in the order it took them (public)
        v("nemesis_hand_order")[r] = (k + 1) / BOUNDS["relics"]
    d = v("nemesis_deck")
    d[0] = len(nem.deck) / DECK_MAX
    for k, t in enumerate(INTENT_TYPES):
        d[1 + k] = sum(1 for c in nem.deck if INTENTS[c]["type"] == t and not nem.seen[c]) / TYPE_SIZE
    tiles = BOUNDS["level_slot_tiles"]
    for k, slot in enumerate(nem.level_slots):
        v("nemesis_slots")[k] = (len(slot) / tiles, sum(not t[1] for t in slot) / tiles)
        for t, face_up in slot:   # every one was seen: face up, or the First-to-Level tile
            v("nemesis_tiles")[t] = 1.0 if face_up else 0.5
    v("nemesis_tithes")[perm] = np.asarray(nem.tithes) / BOUNDS["tithes"]
    v("nemesis_choir")[:] = (nem.upper / BOUNDS["upper_choir"],
                             encode_amount(nem.lower_uf, SCALES["lower_choir_uf"],
                                           "Lower-Choir Universal Followers"),
                             st.cutouts[nem.seat] / BOUNDS["cutouts"])
    v("nemesis_score")[0] = encode_amount(score(st), SCALES["nemesis_score"], "Nemesis Intrigue")
    if any(nem.masks_ignored) or nem.masks_taken:
        m = v("nemesis_masks")
        m[perm] = encode_amount(nem.masks_ignored, SCALES["nemesis_masks"],
                                "Chaos ignored by the Nemesis")
        for r, x in nem.masks_taken.items():
            m[len(perm) + r] = encode_amount(x, SCALES["nemesis_masks"],
                                             "Chaos taken by the Nemesis")
    if nem.nemesis == "silver_guard":
        v("sg_agents_space")[perm] = np.asarray(nem.agents_space) / BOUNDS["agents"]
        for k, r in enumerate(st.relic_map):
            if r >= 0 and nem.agents_relic.get(r, 0):
                v("sg_agents_map")[k] = 1
        v("sg_vault")[:4] = [nem.vault_pos[s] / VAULT_SLOTS for s in SUITS]
        v("sg_vault")[4:] = (len(nem.vault_relics) / BOUNDS["relics"], agent_supply(st) / AGENTS)
        v("sg_vault_relics")[nem.vault_relics] = 1
        reveals = int(DIFFICULTY[nem.difficulty]["silver_guard"]["relic_reveals"])
        v("sg_under")[0, nem.revealed[:reveals]] = 1   # set-up puts the revealed ones first
        v("sg_under")[1, nem.revealed[reveals:]] = 1
        groups = (set(nem.revealed[:reveals]), set(nem.revealed[reveals:]))
        for r, s in enumerate(order):   # a hand's blind part only leaves it named (public)
            blind = set(st.relic_hand[s]) - set(st.relic_known[s])
            v("sg_blind")[r] = [len(blind & g) / BOUNDS["relics"] for g in groups]
        for space, cell in nem.cells.items():
            v("sg_cells")[perm[space]] = len(cell) / 2
            v("sg_cell_pawns")[perm[space]] = sum(t >= 0 for t in cell) / 2
            v("sg_cell_uf")[perm[space]] = sum(t == P.UF for t in cell) / 2


# ---------------------------------------------------------------------------- resampling
def resample_intents(st: ClandestineState, log: list, rng: np.random.Generator) -> None:
    """Rewrite the Intent chance events of ``log`` (in place) for a resampled state: the
    face-down cards never seen are relabelled uniformly among the unseen cards of their type
    (the deck's or the box's; the counts per type are public), so the deck's contents follow
    what the seats know; its order is never stored (:func:`_flip` draws from the set).

    The ``intent_<type>`` permutations are relabelled; each ``intent_flip`` index is recomputed
    from the relabelled deck at that moment (replayed here)."""
    nem = st.nem
    # each card's place in its type's setup permutation: a public slot (which card fills a
    # never-seen slot is what differs between states the seats cannot tell apart)
    where: dict[int, int] = {}
    for e in log:
        if e[0] in ("intent_sun", "intent_moon", "intent_star"):
            cards = TYPE_CARDS[e[0][len("intent_"):]]
            for pos, p in enumerate(e[1]):
                where.setdefault(cards[p], pos)
    sigma: dict[int, int] = {}
    for t in INTENT_TYPES:
        unseen = [c for c in TYPE_CARDS[t] if not nem.seen[c]]
        # the k-th unseen card in slot order (not card order) goes to the perm[k]-th unseen
        # card: the world then depends only on what the seats know (a look-alike state differs
        # by a relabelling tau keeping the slots, and sigma_other(tau(c)) = sigma_real(c)); the
        # map is a uniform permutation composed with a fixed one, uniform as before
        for a, j in zip(sorted(unseen, key=where.__getitem__), rng.permutation(len(unseen))):
            sigma[a] = unseen[int(j)]
    diff = DIFFICULTY[nem.difficulty]
    deck: list[int] = []  # the real face-down deck (sorted) while replaying the events
    pile: list[int] = []
    for e in log:
        name = e[0]
        if name in ("intent_sun", "intent_moon", "intent_star"):
            t = name[len("intent_"):]
            cards = TYPE_CARDS[t]
            real = [cards[p] for p in e[1]]
            e[1] = [cards.index(sigma.get(c, c)) for c in real]
            deck = sorted(deck + real[:diff["intent"][t]])
        elif name == "intent_flip":
            card = deck.pop(e[1])
            relabelled = sorted(sigma.get(c, c) for c in deck + [card])
            e[1] = relabelled.index(sigma.get(card, card))
            if pile and not deck:  # step 11 of this turn: the pile below it becomes the deck
                deck, pile = sorted(pile), [card]
            else:
                pile.append(card)


# ---------------------------------------------------------------------------- the Silver Guard
def agent_supply(st: ClandestineState) -> int:
    """Agents left in the supply (16 minus those in human Chambers and on Map Relics)."""
    nem = st.nem
    on_map = set(st.relic_map)  # Agents on a Relic that left the Map are back in the supply
    return AGENTS - sum(nem.agents_space) - sum(n for r, n in nem.agents_relic.items()
                                                 if r in on_map)


def cell_sidewalk(st: ClandestineState) -> int:
    """The Silver Guard's Discover Sidewalk directly after one of its Fundraise Sidewalks (S2 on
    side A, S3 on side B; design §10.7 ``cell_sidewalk``)."""
    side = st.city.sidewalks(st.nem.seat)
    for a, b in zip(side, side[1:]):
        if st.city.action(a) == "Fundraise" and st.city.action(b) == "Discover":
            return int(b)
    raise RuntimeError("no Fundraise-then-Discover Sidewalks on the Silver Guard's path")


def cell_space(st: ClandestineState, suit: str) -> int:
    """The space a suit's Cell is connected to: Rod and Sword the cell Sidewalk, Disk and
    Chalice its bottom space C2 (design §10.7 vault)."""
    where = SG["vault"]["cells"][suit]
    return cell_sidewalk(st) if where == "cell_sidewalk" else st.city.chambers(st.nem.seat)[1]


def vault(st: ClandestineState, relic: int) -> None:
    """A Relic enters the Vault (rulebook "The Vaults"; design §10.7 vault): the leader on its
    primary suit's track moves down by its Intrigue; past the last slot it enters the City on
    C2; a vacated top slot becomes an unlocked Cell."""
    from .engine import CARDS, RELIC_INTRIGUE
    nem = st.nem
    nem.vault_relics.append(relic)
    suit = CARDS.relics[relic].suit
    pos = nem.vault_pos[suit]
    if pos >= VAULT_SLOTS:
        return
    new = pos + int(RELIC_INTRIGUE[relic])
    if pos == 0 and new > 0:
        nem.cells.setdefault(cell_space(st, suit), []).append(-1)
    if new >= VAULT_SLOTS:
        new = VAULT_SLOTS
        st.cutouts[nem.seat] -= 1
        st.pawns.counts[st.city.chambers(nem.seat)[1], P.SL] += 1
    nem.vault_pos[suit] = new


def seize(st: ClandestineState, suit: str) -> tuple[list[int], list[int]]:
    """Place an Agent on each Map Relic of ``suit`` (primary or alternate), in Map order; a
    Relic that would get a 2nd Agent goes to the Vault instead, its Agent returning (design
    §10.7 seize; ruling 'Supply exhaustion'). Returns the Relics given an Agent and those
    vaulted."""
    nem = st.nem
    marked: list[int] = []
    vaulted: list[int] = []
    for k, r in enumerate(st.relic_map):
        if r < 0 or suit not in relic_suits(r):
            continue
        if nem.agents_relic.get(r, 0) >= 1:
            del nem.agents_relic[r]
            st.relic_map[k] = -1
            x = st.masks_relic.pop(r, 0)  # the Masks' Chaos leaves with it, as on a take
            if x:
                nem.masks_taken[r] = nem.masks_taken.get(r, 0) + x
            vault(st, r)
            vaulted.append(r)
        elif agent_supply(st) > 0:
            nem.agents_relic[r] = 1
            marked.append(r)
    return marked, vaulted


def deploy_words(st: ClandestineState) -> str:
    """:func:`deploy` once, and what it did in words."""
    space = deploy(st)
    return f"an Agent on {space_words(st, space)}" if space >= 0 else "no open space for an Agent"


def deploy(st: ClandestineState) -> int:
    """Place an Agent on the next open space (rulebook "Silver Guard's Unique Actions"; design
    §10.7 deploy): the human with the fewest Agents in their Society, then the highest Level,
    then the highest First-to-Level tile (none lowest), then the earliest clockwise from the
    Silver Guard; its lowest-numbered Chamber without an Agent. Returns the space, or -1."""
    nem = st.nem
    if agent_supply(st) <= 0:
        return -1
    best = None
    for seat in range(st.spec.humans):  # clockwise from the Silver Guard (the last seat)
        open_ = [c for c in st.city.chambers(seat) if nem.agents_space[c] == 0]
        if not open_:
            continue
        key = (-sum(nem.agents_space[c] for c in st.city.chambers(seat)), st.level[seat],
               max(st.ftl[seat], default=0))
        if best is None or key > best[0]:
            best = (key, open_[0])
    if best is None:
        return -1
    nem.agents_space[best[1]] += 1
    return best[1]


def agents_on_action(st: ClandestineState, seat: int, space: int) -> int:
    """A seat's Action on one of its Chambers holding Agents (rulebook "Agents on Chamber
    Spaces"; design §10.7 agents_in_chambers): returns the Strength change (-2 per Agent) and
    moves those Agents to the next space of the Society path (off C4: back to the supply)."""
    nem = st.nem
    k = nem.agents_space[space]
    if not k:
        return 0
    nem.agents_space[space] = 0
    ch = st.city.chambers(seat)
    i = ch.index(space)
    if i + 1 < len(ch):
        nem.agents_space[ch[i + 1]] += k
    return -AGENT_PENALTY * k


def removal_options(st: ClandestineState, seat: int) -> list[tuple[int, int]]:
    """``(chamber 0..3, method)`` the seat may use now: remove all Agents from one of its
    Chambers by bribe (0: pay 2 x the Silver Guard's Level in Gold, if it has it) or kill (1:
    gain Chaos = its Level)."""
    nem = st.nem
    if nem is None or nem.nemesis != "silver_guard":
        return []
    cost = 2 * st.level[nem.seat]
    out = []
    for i, c in enumerate(st.city.chambers(seat)):
        if nem.agents_space[c]:
            if st.gold[seat] >= cost:
                out.append((i, 0))
            out.append((i, 1))
    return out


def remove_agents(st: ClandestineState, seat: int, chamber: int, method: int) -> None:
    """Bribe (Gold to the Silver Guard) or kill (Chaos) the Agents of one Chamber.

    Raises:
        ValueError: not a legal removal now (:func:`removal_options`).
    """
    if (chamber, method) not in removal_options(st, seat):
        raise ValueError(f"seat {seat} cannot remove the Agents of C{chamber + 1} by "
                         f"{('bribe', 'kill')[method]}")
    nem = st.nem
    lv = st.level[nem.seat]
    if method == 0:
        st.gold[seat] -= 2 * lv
        st.gold[nem.seat] += 2 * lv
    else:
        st.gain_chaos(seat, lv)
    nem.agents_space[st.city.chambers(seat)[chamber]] = 0


def final_discards(st: ClandestineState) -> None:
    """End of the game (rulebook "Agents on Chamber Spaces"; ``scoring.silver_guard_pre_step``):
    each human Chamber holding an Agent loses its pawns and the Relics assigned to it."""
    from .scoring import silver_guard_pre_step
    nem = st.nem
    if nem is None or nem.nemesis != "silver_guard":
        return
    for seat in range(st.spec.humans):
        ch = st.city.chambers(seat)
        agents = {f"C{i + 1}": nem.agents_space[c] for i, c in enumerate(ch)}
        slots = tuple((sl["slot"], sl["chamber"]) for sl in RELIC_SLOTS)
        hit = silver_guard_pre_step(agents, slots)
        for cid in hit.chambers:
            c = ch[int(cid[1]) - 1]
            nem.discarded += st.pawns.counts[c]
            st.pawns.counts[c] = 0
        for slot in hit.slots:
            if st.slots[seat][slot - 1] >= 0:
                st.relic_discard.append(st.slots[seat][slot - 1])
                st.slots[seat][slot - 1] = -1


def setup_silver_guard(st: ClandestineState, diff: dict) -> None:
    """Silver Guard setup (rulebook; design §10.5 step 4): its 4 leaders lying on the Vault's
    top slots (the seat's cutouts); Agents into every human Society by the deploy rule;
    ``relic_reveals`` Relics revealed, each seizing its suit's Map Relics, then put under the
    deck in random order (chance ``sg_reveal``); Relics revealed until Bright ones of
    ``vault_unique_suits`` suits are found, the first of each suit into the Vault, the others
    under the deck in random order (chance ``sg_vault``). Every card shown goes into the public
    history as it is shown (``nemesis_relic`` events: where 1, 2 or 3)."""
    from .engine import CARDS, EV_NEMESIS_RELIC, RELIC_DARK
    nem = st.nem
    for _ in range(int(diff["agents_per_society"]) * st.spec.humans):
        deploy(st)
    shown = [st.relic_deck.pop() for _ in range(int(diff["relic_reveals"]))]
    for r in shown:
        st.note(EV_NEMESIS_RELIC, r, 1)
    for r in shown:
        seize(st, CARDS.relics[r].suit)
    _under(st, shown, "sg_reveal")
    need, suits, rest = int(diff["vault_unique_suits"]), [], []
    while len(suits) < need and st.relic_deck:
        r = st.relic_deck.pop()
        suit = CARDS.relics[r].suit
        if not RELIC_DARK[r] and suit not in suits:
            suits.append(suit)
            st.note(EV_NEMESIS_RELIC, r, 2)
            vault(st, r)
        else:
            st.note(EV_NEMESIS_RELIC, r, 3)
            rest.append(r)
    _under(st, rest, "sg_vault")


def _under(st: ClandestineState, cards: list[int], event: str) -> None:
    """Put revealed ``cards`` under the Relic deck in a random order (public identities, hidden
    order: the resampler redraws it, ``resample._bottom_groups``)."""
    if not cards:
        return
    perm = st.chance_permutation(event, len(cards))
    st.relic_deck[:0] = [cards[int(p)] for p in perm]
    st.nem.revealed += cards
