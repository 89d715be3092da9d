"""The solo Nemesis of Clandestine (rulebook "Solo Play"; design ``clandestine_content.md`` §10):
the rulebook's examples as hand-worked positions, the Nemesis's turn parts one at a time, and
seeded random games with a Nemesis seated (solo and beside 2 players) under the invariants."""

from __future__ import annotations

import numpy as np
import pytest

from envs.clandestine import nemesis as NEM
from envs.clandestine import pawns as P
from envs.clandestine.engine import (
    BOARD_INDEX, CARDS, EV_DECISION, EV_INTENT, EV_MAP, EV_NEMESIS_RELIC, EV_NEMESIS_TILE,
    MAP_ORDER, PUBLIC_EVENTS, RELIC_DARK, TILE_INDEX, ClandestineState, observation_layout,
)
from envs.clandestine.observation import BOUNDS, SCALES, _perm, decode_amount
from envs.clandestine.phases import ActionFrame, space_to_index
from envs.core import ConfigError


def solo(seed: int = 0, difficulty: int = 3, humans: int = 1, nemesis: str = "most_holy",
         **kw) -> ClandestineState:
    """A new game with the Most Holy seated last."""
    return ClandestineState(seed=seed, num_players=humans, nemesis=nemesis,
                            difficulty=difficulty, **kw)


def fundraise_first_solo(difficulty: int = 3) -> ClandestineState:
    """A solo game whose City starts with a Fundraise space (K0a; side A of design §2.2)."""
    for seed in range(50):
        st = solo(seed, difficulty)
        if st.city.action(st.city.space("K0a")) == "Fundraise":
            return st
    raise AssertionError("no seed gives side A")  # pragma: no cover


def sp(st: ClandestineState, name: str) -> int:
    return st.city.space(name)


# ------------------------------------------------------------------------------ configuration
def test_seat_and_agents():
    """The Nemesis takes the last seat; the env's agents are the human seats only, and the
    Nemesis is never the current player."""
    st = solo(humans=2)
    assert st.num_players == 3 and st.agent_seats == (0, 1) and st.nem.seat == 2
    assert st.rules_seats == (2,)
    assert st.societies[2] == "most_holy" and st.spec.humans == 2
    assert st.config["num_players"] == 2 and st.config["nemesis"] == "most_holy"
    assert st.config["difficulty"] == 3
    assert ClandestineState(seed=0, **st.config).societies == st.societies


@pytest.mark.parametrize("kw, msg", [
    ({"nemesis": True, "difficulty": 3}, "which Nemesis"),
    ({"nemesis": "pope", "difficulty": 3}, "nemesis must be"),
    ({"nemesis": "most_holy", "difficulty": 7}, "difficulty"),
    ({"nemesis": "most_holy", "difficulty": 2.0}, "difficulty"),
    ({"nemesis": "most_holy", "difficulty": 3, "num_players": 0}, "num_players"),
    ({"num_players": 1}, "num_players"),
])
def test_config_errors(kw, msg):
    with pytest.raises(ConfigError, match=msg):
        ClandestineState(seed=0, **kw)


@pytest.mark.parametrize("difficulty, counts", [(1, (2, 6, 4)), (3, (4, 4, 4)), (6, (8, 2, 7))])
def test_intent_deck_per_difficulty(difficulty, counts):
    """Design §10.5: the deck holds the Difficulty's Sun / Moon / Star counts; one card is
    flipped to the bottom slot at setup."""
    st = solo(difficulty=difficulty)
    cards = st.nem.deck + st.nem.pile
    assert len(st.nem.pile) == 1 and st.nem.top == -1
    got = tuple(sum(NEM.INTENTS[c]["type"] == t for c in cards) for t in NEM.INTENT_TYPES)
    assert got == counts and len(set(cards)) == len(cards)
    assert sum(st.nem.seen) == 1 and st.nem.seen[st.nem.pile[0]]


# ------------------------------------------------------------------------------ ascension
def test_nemesis_ascension_rulebook_example():
    """Rulebook "Nemesis Ascension" example (design §13): target Sword, Level III; both Sword
    tiles of Level III taken -> the First-to-Level tile of III on its III slot, every tile there
    face down; retarget Level IV: its Sword tile (the card's side) face up on the IV slot. Being
    first to III: a Universal Follower on every Sidewalk and the other seat's Political suit
    effect."""
    st = solo()
    nem = st.nem
    seat = nem.seat
    st.level[seat] = 2
    nem.level_slots[1] = [[TILE_INDEX["T-III-Rod-L"], True]]  # an earlier III tile, face up
    st.board_tile[BOARD_INDEX["AIII-Sword-L"]] = -1
    st.board_tile[BOARD_INDEX["AIII-Sword-R"]] = -1
    sidewalks = [s for j in range(2) for s in st.city.sidewalks(j)]
    uf = st.pawns.counts[sidewalks, P.UF].copy()
    effects = NEM.ascend(st, "Sword", "L")
    assert st.level[seat] == 3 and st.ftl[seat] == [3]
    assert nem.level_slots[1] == [[TILE_INDEX["T-III-Rod-L"], False],
                                  [TILE_INDEX["T-FTL-III"], False]]
    assert nem.level_slots[2] == [[TILE_INDEX["T-IV-Sword-L"], True]]
    assert st.board_tile[BOARD_INDEX["AIV-Sword-L"]] == -1
    assert st.board_tile[BOARD_INDEX["AIV-Sword-R"]] == TILE_INDEX["T-IV-Sword-R"]
    assert (st.pawns.counts[sidewalks, P.UF] == uf + 1).all()
    assert effects == [(0, "Political")]


def test_nemesis_ascension_takes_the_target_then_the_other_side():
    """A present target tile is taken face up; if taken, the other side's; no Level gained."""
    st = solo()
    nem = st.nem
    assert NEM.ascend(st, "Disk", "R") == []
    assert nem.level_slots[0] == [[TILE_INDEX["T-II-Disk-R"], True]]
    assert NEM.ascend(st, "Disk", "R") == []
    assert nem.level_slots[0][1] == [TILE_INDEX["T-II-Disk-L"], True]
    assert st.level[nem.seat] == 1
    # the third Disk attempt ascends: first to II
    effects = NEM.ascend(st, "Disk", "R")
    assert st.level[nem.seat] == 2 and effects == [(0, "Economic")]
    assert [t[1] for t in nem.level_slots[0]] == [False, False, False]
    assert nem.level_slots[1] == [[TILE_INDEX["T-III-Disk-R"], True]]


def test_nemesis_ascension_without_the_first_to_level_tile_and_at_level_v():
    """Another seat holds the First-to-Level tile: the top tile of the slot is flipped instead
    (no suit effects); at Level V the end is triggered."""
    st = solo()
    seat = st.nem.seat
    st.ftl[0] = [2, 3, 4, 5]
    st.level[seat] = 4
    st.nem.level_slots[3] = [[TILE_INDEX["T-V-Disk-L"], True]]  # from a Disk attempt
    for side in "LR":
        st.board_tile[BOARD_INDEX[f"AV-Rod-{side}"]] = -1
    assert NEM.ascend(st, "Rod", "L") == []
    assert st.level[seat] == 5 and st.nem.level_slots[3] == [[TILE_INDEX["T-V-Disk-L"], False]]
    assert st.end_trigger == st.turn and st.end_reason == "level_v"


# ------------------------------------------------------------------------------ leader search
def test_search_orders_solo():
    """Design §10.2 step 9 on the 2-path City (the Most Holy at seat 1)."""
    st = solo()
    names = lambda order: [st.city.space_ids[s] for s in order]
    ch = ["P1C1", "P1C2", "P1C3", "P1C4"]
    assert names(NEM.search_order(st, "nemesis_C1", "path")) == ch + [
        "P1S1", "P1S2", "P1S3", "K0a", "K0b", "P0S1", "P0S2", "P0S3", "K1a", "K1b"]
    assert names(NEM.search_order(st, "next_seat_S1", "cw")) == [
        "P0S1", "P0S2", "P0S3", "K1a", "K1b", "P1S1", "P1S2", "P1S3", "K0a", "K0b"] + ch
    assert names(NEM.search_order(st, "prev_seat_S3", "ccw")) == [
        "P0S3", "P0S2", "P0S1", "K0b", "K0a", "P1S3", "P1S2", "P1S1", "K1b", "K1a"] + ch
    assert names(NEM.search_order(st, "nemesis_S1", "cw"))[:3] == ["P1S1", "P1S2", "P1S3"]
    with pytest.raises(ValueError, match="leader selection"):
        NEM.search_order(st, "nowhere", "cw")


def _bare(st: ClandestineState) -> None:
    """Remove every Leader from the City (Followers stay)."""
    st.pawns.counts[:, P.PL] = 0
    st.pawns.counts[:, P.SL] = 0


def test_leader_properties_and_ranking():
    """N02 (next_seat_S1 / cw; public, fundraise, max_strength): the strongest Fundraise space
    with a Public Leader, ties to the earliest; rank 'first' takes the first found; with no
    match, 'on' then 'kind' are dropped."""
    st = fundraise_first_solo()
    _bare(st)
    c = st.pawns.counts
    c[:, P.PF] = 0
    c[:, P.UF] = 0
    c[sp(st, "P0S1"), P.PL] = 1                      # Fundraise, Strength 2
    c[sp(st, "K0a"), P.PL] = 1
    c[sp(st, "K0a"), P.PF] = 1                       # Fundraise, Strength 3
    c[sp(st, "K1b"), P.PL] = 1
    c[sp(st, "K1b"), P.PF] = 1                       # Fundraise, Strength 3 (found earlier)
    c[sp(st, "P0S2"), P.PL] = 1
    c[sp(st, "P0S2"), P.PF] = 3                      # Discover, Strength 5
    st.nem.pile.append(NEM.INTENT_IDS.index("N02"))
    assert st.city.action(sp(st, "K1b")) == "Fundraise"
    assert NEM.find_leader(st) == (sp(st, "K1b"), P.PL)
    st.nem.pile.append(NEM.INTENT_IDS.index("N05"))  # nemesis_S1 / cw; any, any, first
    assert NEM.find_leader(st) == (sp(st, "K0a"), P.PL)
    st.nem.pile.append(NEM.INTENT_IDS.index("N03"))  # nemesis_C1 / path; society, chamber
    assert NEM.find_leader(st) == (sp(st, "K0a"), P.PL)  # no Society Leader: any, first
    c[sp(st, "P1S2"), P.SL] = 1
    assert NEM.find_leader(st) == (sp(st, "P1S2"), P.SL)  # 'on' dropped: society, first found
    c[sp(st, "P1C3"), P.SL] = 1
    assert NEM.find_leader(st) == (sp(st, "P1C3"), P.SL)


# ------------------------------------------------------------------------------ Discover
def test_nemesis_discover_takes_every_target_relic_in_the_target_routes():
    """N01: Rod, routes R1, R4 and the Harbor: every Map Relic with Rod as primary or alternate
    suit there, nothing else; no Chaos, no cost; the hand keeps the order of the Map."""
    st = solo()
    st.relic_map = [-1] * len(MAP_ORDER)
    put = {"H": 27, "R1.0": 0, "R1.2": 18, "R2.0": 1, "R4.1": 28, "R4.2": 2}
    # 27, 28: Sword; 0, 1, 2: Rod; 18: Rod with alternate Sword
    for k, r in put.items():
        st.relic_map[MAP_ORDER.index(k)] = r
    st.nem.top = NEM.INTENT_IDS.index("N01")
    gold = st.gold[st.nem.seat]
    routes = NEM.discover(st)
    assert st.relic_hand[st.nem.seat] == [0, 18, 2] == st.relic_known[st.nem.seat]
    assert routes == ("R1", "R4") and st.gold[st.nem.seat] == gold
    left = {MAP_ORDER[k]: r for k, r in enumerate(st.relic_map) if r >= 0}
    assert left == {"H": 27, "R2.0": 1, "R4.1": 28}
    st.nem.top = NEM.INTENT_IDS.index("N02")  # Sword, R2 and R3: nothing there
    assert NEM.discover(st) == () and len(st.relic_hand[st.nem.seat]) == 3


# ------------------------------------------------------------------------------ alchemy
def test_alchemy_results():
    """assign: the oldest Relic of the Target Suit to a free slot of the method row's Chamber
    (Dark only where allowed); buy_intrigue: 6 Gold for 2 Intrigue."""
    st = solo()
    seat = st.nem.seat
    st.relic_hand[seat] = [27, 18, 0]        # Sword; Rod (Dark, alt Sword); Rod (Bright)
    st.relic_known[seat] = [27, 18, 0]
    st.nem.top = NEM.INTENT_IDS.index("N01")  # Rod
    st.nem.pile.append(NEM.INTENT_IDS.index("N01"))  # assign, C1 (slot 1: Bright only)
    NEM.alchemy(st)
    assert st.slots[seat] == [-1] * 6 and st.relic_hand[seat] == [27, 18, 0]  # 18 is Dark
    st.nem.pile.append(NEM.INTENT_IDS.index("N04"))  # assign, C2 (slots 2 Bright, 3 Dark)
    NEM.alchemy(st)
    assert st.slots[seat] == [-1, -1, 18, -1, -1, -1] and st.relic_hand[seat] == [27, 0]
    st.nem.pile.append(NEM.INTENT_IDS.index("N03"))  # buy_intrigue
    st.gold[seat] = 7
    NEM.alchemy(st)
    assert (st.gold[seat], st.intrigue[seat]) == (1, 2)
    NEM.alchemy(st)
    assert (st.gold[seat], st.intrigue[seat]) == (1, 2)


# ------------------------------------------------------------------------------ the Most Holy
def test_tithe_placement_order_at_setup():
    """Design §10.6 tithe_placement on the side-A solo City (Fundraise spaces K0a, P0S1, P0S3,
    K1b off the Most Holy's path): distances K0a 1 (clockwise from its S3), K1b 1
    (counterclockwise from its S1), P0S1 3, P0S3 3; ties first clockwise from S3. ★6 adds 5
    Tithes: K0a, K1b, P0S1, P0S3, then K0a again (fewest first)."""
    st = fundraise_first_solo(difficulty=6)
    names = [st.city.space_ids[s] for s in NEM.tithe_spaces(st)]
    assert names == ["K0a", "K1b", "P0S1", "P0S3"]
    got = {st.city.space_ids[s]: t for s, t in enumerate(st.nem.tithes) if t}
    assert got == {"K0a": 2, "K1b": 1, "P0S1": 1, "P0S3": 1}
    st.nem.tithes = [0] * len(st.nem.tithes)
    st.nem.tithes[sp(st, "K0a")] = NEM.TITHE_TOKENS
    assert NEM.add_tithe(st) == -1  # all 12 in play


@pytest.mark.parametrize("tithes, strength, human, most_holy", [
    (0, 4, 4, 0), (2, 4, 2, 2), (5, 3, 0, 3), (1, 0, 0, 0)])
def test_tithes_take_gold_from_a_fundraise(tithes, strength, human, most_holy):
    """Rulebook "Tithes": one of the Gold gained per Tithe token to the Most Holy, all of it
    when the Tithes ask for more (design §10.6 tithe_effect, at the formula step)."""
    st = fundraise_first_solo()
    space = sp(st, "K0a")
    st.nem.tithes = [0] * len(st.nem.tithes)
    st.nem.tithes[space] = tithes
    st.gold[0], st.gold[1] = 10, 0
    f = ActionFrame("fundraise", 0, space, P.PL, strength)
    st._formula(f)
    assert (st.gold[0], st.gold[1]) == (10 + human, most_holy)


def test_collect_gold_per_tithe():
    """C2 Nave: 1 Gold per Tithe token in play plus floor(Strength / 2)."""
    st = solo(difficulty=4)  # 3 Tithes
    seat = st.nem.seat
    c2 = st.city.chambers(seat)[1]
    st.pawns.counts[c2] = 0
    st.pawns.counts[c2, P.SL] = 1
    st.pawns.counts[c2, P.UF] = 2  # Strength 4
    NEM.perform(st, c2, P.SL)
    assert st.gold[seat] == 3 + 2


def test_converting_pawns_rulebook_example():
    """Rulebook "Converting Pawns" (design §13): ★6 starts with 4 upper-Choir UFs, so the
    leftmost open slot costs 5: pay 5, the rightmost upper UF to the Lower Choir, a Lower-Choir
    leader to the bottom space (C2). The next Convert costs 6; without the Gold, nothing."""
    st = solo(difficulty=6)
    seat, nem = st.nem.seat, st.nem
    c2 = st.city.chambers(seat)[1]
    assert nem.upper == 4 and NEM.convert_cost(st) == 5 and st.cutouts[seat] == 4
    sl = st.pawns.counts[c2, P.SL]
    totals = st.pawn_totals()
    st.gold[seat] = 5
    assert NEM.convert(st)
    assert (st.gold[seat], nem.upper, nem.lower_uf, st.cutouts[seat]) == (0, 3, 1, 3)
    assert st.pawns.counts[c2, P.SL] == sl + 1 and NEM.convert_cost(st) == 6
    assert (st.pawn_totals() == totals).all()
    assert not NEM.convert(st)
    # no leader left in the Lower Choir: 3 Intrigue instead
    st.cutouts[seat], st.gold[seat] = 0, 6
    assert NEM.convert(st) and st.intrigue[seat] == 3 and nem.upper == 2


def test_choir_captures_the_first_universal_follower_leaving_the_chambers():
    """Rulebook "The Choir": the Most Holy's Leader on C4 with 2 UFs acts; the first UF that
    would leave its Chambers goes to the upper Choir, once per turn."""
    st = solo(difficulty=1)
    seat, nem = st.nem.seat, st.nem
    c4 = st.city.chambers(seat)[3]
    st.pawns.counts[c4] = 0
    st.pawns.counts[c4, P.SL] = 1
    st.pawns.counts[c4, P.UF] = 2
    totals = st.pawn_totals()
    city_uf = st.pawns.counts[:, P.UF].sum()
    up = nem.upper
    NEM.perform(st, c4, P.SL)  # Confessional: a Tithe, then Convert (no Gold: nothing)
    assert nem.upper == up + 1 and nem.captured
    assert st.pawns.counts[:, P.UF].sum() == city_uf - 1
    assert (st.pawn_totals() == totals).all()
    st.pawns.counts[c4, P.SL] = 1
    st.pawns.counts[c4, P.UF] = 1
    NEM.perform(st, c4, P.SL)
    assert nem.upper == up + 1  # once per turn


def test_suit_effects_received_by_the_nemesis():
    """Design §10.1: Economic Gold = the ascender's Level; Political nothing; Occult a Relic
    drawn face up."""
    st = solo()
    seat = st.nem.seat
    st.level[0] = 3
    NEM.suit_effect(st, "Economic", 0)
    NEM.suit_effect(st, "Political", 0)
    assert st.gold[seat] == 3
    NEM.suit_effect(st, "Occult", 0)
    assert len(st.relic_hand[seat]) == 1 and st.relic_known[seat] == st.relic_hand[seat]


def test_scoring_card_at_setup():
    """Design §10.8 at ★3 on a new game: Level 1 (1) + 2 Society Leaders in the City (6) + 3
    Tithes (3) + flat 8 = 18; then a tile, a Relic, 5 Gold, a Lower-Choir UF and 2 Intrigue."""
    st = solo(difficulty=3)
    seat = st.nem.seat
    assert st.pawns.society_leaders_of(st.city, seat) == 2 and sum(st.nem.tithes) == 3
    assert NEM.score(st) == 18 == st.final_scores()[seat]
    st.nem.level_slots[0].append([0, True])
    st.slots[seat][0] = 5
    st.gold[seat] = 5
    st.nem.lower_uf = 1
    st.intrigue[seat] = 2
    assert NEM.score(st) == 18 + 2 + 2 + 1 + 3 + 2


# ------------------------------------------------------------------------------ the Silver Guard
def sg_solo(side_a: bool = True, difficulty: int = 1) -> ClandestineState:
    """A solo game against the Silver Guard; side A: P0S1 is a Discover space, so its path is
    Fundraise, Discover, Fundraise (design §13 Cells example)."""
    for seed in range(50):
        st = solo(seed, difficulty, nemesis="silver_guard")
        if (st.city.action(sp(st, "P0S1")) == "Discover") == side_a:
            return st
    raise AssertionError("no seed gives that side")  # pragma: no cover


def _clear(st: ClandestineState, *names: str) -> None:
    for name in names:
        st.pawns.counts[sp(st, name)] = 0


def test_cells_rulebook_example_side_a():
    """Rulebook "The Vaults" Cells example (design §13, side A): the Rod and Sword Cells are
    unlocked on P1S2. The Silver Guard's Leader on P1S1 with 3 Universal Followers Fundraises
    (Strength 5, +5 Gold): one UF to P1S2, the next two trapped in its Cells, the Leader to
    P1S3. A Public Leader then on P1S2 counts the Cell Followers (Strength 2 + 1 + 2 = 5, "a
    Leader and 3 Followers"); its Discover moves all four on (UFs to P1S3, K0a, K0b; the Leader
    to P0S1) and the Cells are empty again."""
    st = sg_solo()
    seat, nem = st.nem.seat, st.nem
    assert NEM.cell_sidewalk(st) == sp(st, "P1S2")
    nem.cells = {sp(st, "P1S2"): [-1, -1]}
    nem.vault_pos["Rod"] = nem.vault_pos["Sword"] = 1
    _clear(st, "P1S1", "P1S2", "P1S3", "K0a", "K0b", "P0S1")
    st.pawns.counts[sp(st, "P1S1"), P.SL] = 1
    st.pawns.counts[sp(st, "P1S1"), P.UF] = 3
    totals = st.pawn_totals()
    gold = st.gold[seat]
    NEM.perform(st, sp(st, "P1S1"), P.SL)
    assert st.gold[seat] == gold + 5
    assert nem.cells[sp(st, "P1S2")] == [P.UF, P.UF]
    assert st.pawns.counts[sp(st, "P1S2")].tolist() == [0, 0, 1, 0]
    assert st.pawns.counts[sp(st, "P1S3"), P.SL] == 1
    assert (st.pawn_totals() == totals).all()
    st.pawns.counts[sp(st, "P1S2"), P.PL] = 1  # the human's Discover brought it there
    assert NEM.cell_strength(st, sp(st, "P1S2")) == 5
    st.nem.top = NEM.INTENT_IDS.index("N01")
    NEM.perform(st, sp(st, "P1S2"), P.PL)
    assert nem.cells[sp(st, "P1S2")] == [-1, -1]
    assert [st.pawns.counts[sp(st, x), P.UF] for x in ("P1S3", "K0a", "K0b")] == [1, 1, 1]
    assert st.pawns.counts[sp(st, "P0S1"), P.PL] == 1
    assert st.pawns.counts[sp(st, "P1S2")].sum() == 0


def test_cells_side_b_and_a_human_action_uses_them():
    """Side B (its path Discover, Fundraise, Discover): the Cell Sidewalk is S3; a human's
    Public Leader acting there picks the trapped Followers up (engine movement)."""
    st = sg_solo(side_a=False)
    assert NEM.cell_sidewalk(st) == sp(st, "P1S3")
    cell = sp(st, "P1S3")
    st.nem.cells = {cell: [P.UF, P.PF]}
    _clear(st, "P1S3")
    st.pawns.counts[cell, P.PL] = 1
    totals = st.pawn_totals()
    st.start_space_action(cell, P.PL)
    f = st.acts[-1]
    assert f.strength >= 4 and st.nem.cells[cell] == [-1, -1]
    assert sum(f.movement.in_hand) + len(f.movement.placements) == 3
    assert (st.pawn_totals() == totals).all()


def test_the_observation_recalls_the_order_of_the_nemesis_hand():
    """Perfect recall (design §1.5, §10.2 step 10): the Nemesis's alchemy assigns the oldest
    Relic in hand of the Target Suit, and every Relic it took was seen, in order. Seed 0, solo,
    ★1, 22 random actions: its hand is [27, 37], both Rods; ``nemesis_hand_order`` gives 27 the
    place 1 and 37 the place 2 (/ 108). With the two exchanged the observation differs, and
    played on with the same actions the two games part where the Nemesis assigns 27 in one
    and 37 in the other. The observation held the hand as a set (``known_relics``)."""
    st = solo(0, 1)
    rng = np.random.default_rng(0)
    for _ in range(22):
        st.apply_action(int(rng.choice(st.legal_actions())))
    seat = st.nem.seat
    assert st.relic_hand[seat] == st.relic_known[seat] == [27, 37]
    assert set(NEM.relic_suits(27)) & set(NEM.relic_suits(37))
    swapped = st.clone()
    swapped.relic_hand[seat][:] = swapped.relic_known[seat][:] = [37, 27]
    assert not np.array_equal(swapped.observation_tensor(0), st.observation_tensor(0))
    order = _obs_field(st, 0, "nemesis_hand_order") * 108
    assert np.flatnonzero(order).tolist() == [27, 37] and order[[27, 37]].tolist() == [1, 2]
    for _ in range(300):
        if st.slots[seat] != swapped.slots[seat]:
            break
        a = int(rng.choice(st.legal_actions()))
        st.apply_action(a)
        swapped.apply_action(a)
    assert 27 in st.slots[seat] and 37 in swapped.slots[seat]


def test_the_observation_recalls_the_type_of_each_trapped_follower():
    """Perfect recall (design §1.5): a Follower trapped in a Cell was seen going in, and its
    type decides what the next Action there moves (a Universal Follower asks for its route).
    Seed 2, solo, ★3, 262 random actions: the Cells hold a Public and a Universal Follower on
    one space, two Universal Followers on the other; ``sg_cell_uf`` counts the Universal ones
    per space, and exchanging the Public Follower with a Universal one of the other space (the
    totals kept) changes the observation. It did not: ``sg_cell_pawns`` counts them only."""
    st = solo(2, 3, nemesis="silver_guard")
    rng = np.random.default_rng(2)
    for _ in range(262):
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert st.nem.cells == {15: [P.UF, P.UF], 13: [P.PF, P.UF]}
    swapped = st.clone()
    swapped.nem.cells = {15: [P.PF, P.UF], 13: [P.UF, P.UF]}
    assert not np.array_equal(swapped.observation_tensor(0), st.observation_tensor(0))
    perm = _perm(st.num_players, 0)
    uf = _obs_field(st, 0, "sg_cell_uf")
    assert uf[perm[15]] == 1.0 and uf[perm[13]] == 0.5 and uf.sum() == 1.5
    assert _obs_field(st, 0, "sg_cell_pawns")[[perm[15], perm[13]]].tolist() == [1.0, 1.0]


def test_vault_moves_its_leader_and_unlocks_cells():
    """A Relic entering the Vault moves the leader of its primary suit down by its Intrigue;
    leaving the top slot unlocks a Cell; past the 4th slot the leader enters the City on C2."""
    from envs.clandestine.engine import RELIC_INTRIGUE
    st = sg_solo(difficulty=1)
    nem, seat = st.nem, st.nem.seat
    nem.vault_pos = {s: 0 for s in NEM.SUITS}
    nem.cells, nem.vault_relics = {}, []
    rod = next(r for r in range(27) if RELIC_INTRIGUE[r] == 2)
    c2 = st.city.chambers(seat)[1]
    sl = st.pawns.counts[c2, P.SL]
    cut = st.cutouts[seat]
    NEM.vault(st, rod)
    assert nem.vault_pos["Rod"] == 2 and nem.cells == {NEM.cell_sidewalk(st): [-1]}
    NEM.vault(st, next(r for r in range(27) if RELIC_INTRIGUE[r] >= 2 and r != rod))
    assert nem.vault_pos["Rod"] == 4 and st.cutouts[seat] == cut - 1
    assert st.pawns.counts[c2, P.SL] == sl + 1 and len(nem.vault_relics) == 2


def test_agents_on_relics_seize_and_cost():
    """Seize (C1/C3): an Agent on each Map Relic of the suit; a Relic getting a 2nd goes to the
    Vault and its Agent returns. A human's Discover pays 1 more per Agent; taking the Relic
    returns its Agent."""
    st = sg_solo(difficulty=1)
    nem = st.nem
    nem.agents_relic = {}
    st.relic_map = [-1] * len(MAP_ORDER)
    st.relic_map[MAP_ORDER.index("R1.0")] = 0    # Rod, Bright
    st.relic_map[MAP_ORDER.index("R2.0")] = 27   # Sword
    supply = NEM.agent_supply(st)
    NEM.seize(st, "Rod")
    assert nem.agents_relic == {0: 1} and NEM.agent_supply(st) == supply - 1
    f = ActionFrame("discover", 0, -1, -1, 10)
    st._formula(f)
    base = ActionFrame("discover", 0, -1, -1, 10)
    nem.agents_relic = {}
    st._formula(base)
    k = MAP_ORDER.index("R1.0")
    assert f.purchase.costs[k] == base.purchase.costs[k] + 1
    nem.agents_relic = {0: 1}
    st.take_from_map(f, k)
    assert nem.agents_relic == {} and 0 in st.relic_hand[0]
    st.relic_map[MAP_ORDER.index("R3.0")] = 1    # Rod
    NEM.seize(st, "Rod")
    NEM.seize(st, "Rod")
    assert st.relic_map[MAP_ORDER.index("R3.0")] == -1 and nem.vault_relics[-1] == 1
    assert nem.agents_relic == {} and NEM.agent_supply(st) == supply


def test_agent_in_a_chamber_costs_two_strength_and_moves_along():
    """Rulebook "Agents on Chamber Spaces": an Action on a Chamber with an Agent has Strength
    -2 per Agent (stacking), then the Agents move to the next space of the Society path; off
    C4 they return to the supply."""
    st = sg_solo(difficulty=1)
    nem = st.nem
    c1, c2, _c3, c4 = st.city.chambers(0)
    _clear(st, "P0C1", "P0C4")
    st.pawns.counts[c1, P.SL] = 1
    st.pawns.counts[c1, P.UF] = 2
    nem.agents_space = [0] * len(nem.agents_space)
    nem.agents_space[c1] = 2
    st.start_space_action(c1, P.SL)
    assert st.acts[-1].strength == 4 - 4 + st.pending_strength[0]
    assert nem.agents_space[c1] == 0 and nem.agents_space[c2] == 2
    st.acts.pop()
    nem.agents_space[c4] = 1
    assert NEM.agents_on_action(st, 0, c4) == -2 and nem.agents_space[c4] == 0


@pytest.mark.parametrize("sg_level, gold, options", [
    (1, 2, [(1, 0), (1, 1)]), (1, 1, [(1, 1)]), (3, 6, [(1, 0), (1, 1)]), (3, 5, [(1, 1)])])
def test_bribe_and_kill_costs(sg_level, gold, options):
    """Bribe: pay twice the Silver Guard's Level in Gold to it; kill: gain Chaos equal to its
    Level; both remove every Agent of that Chamber, offered in the seat's PRE window (AGENTS
    block: 2 x (chamber - 1) + method)."""
    from envs.clandestine.actions import OFFSET
    st = sg_solo(difficulty=1)
    nem, seat = st.nem, st.nem.seat
    c2 = st.city.chambers(0)[1]
    nem.agents_space = [0] * len(nem.agents_space)
    nem.agents_space[c2] = 2
    st.level[seat], st.gold[0], st.gold[seat], st.chaos[0] = sg_level, gold, 0, 0
    st._mask = None
    assert st.phase == "PRE" and st.current_player == 0
    assert NEM.removal_options(st, 0) == options
    mask = st.legal_action_mask()
    assert [i for i in range(8) if mask[OFFSET["AGENTS"] + i]] == [2 * c + m for c, m in options]
    if (1, 0) in options:
        t = st.clone()
        t.apply_action(OFFSET["AGENTS"] + 2)
        assert (t.gold[0], t.gold[seat], t.nem.agents_space[c2]) == (gold - 2 * sg_level,
                                                                     2 * sg_level, 0)
    st.apply_action(OFFSET["AGENTS"] + 3)
    assert (st.chaos[0], st.gold[0], st.nem.agents_space[c2]) == (sg_level, gold, 0)
    with pytest.raises(ValueError, match="cannot remove"):
        NEM.remove_agents(st, 0, 1, 1)


def test_deploy_next_open_space():
    """Deploy: fewest Agents in the Society, then the highest Level, then the highest
    First-to-Level tile, then the earliest clockwise from the Silver Guard; the lowest Chamber
    without an Agent."""
    st = solo(difficulty=1, humans=2, nemesis="silver_guard")
    nem = st.nem
    nem.agents_space = [0] * len(nem.agents_space)
    ch = [st.city.chambers(j) for j in range(2)]
    assert NEM.deploy(st) == ch[0][0]
    assert NEM.deploy(st) == ch[1][0]
    st.level[1] = 2
    assert NEM.deploy(st) == ch[1][1]
    assert NEM.deploy(st) == ch[0][1]
    st.level[0], st.ftl[0] = 2, [2]  # Levels tied: the First-to-Level tile decides
    assert NEM.deploy(st) == ch[0][2]


def test_end_of_game_discards_for_agents():
    """Agents left on a human Chamber at the end: its pawns and the Relics assigned to it are
    discarded before scoring."""
    st = sg_solo(difficulty=1)
    nem = st.nem
    c2 = st.city.chambers(0)[1]
    nem.agents_space = [0] * len(nem.agents_space)
    nem.agents_space[c2] = 1
    st.pawns.counts[c2, P.UF] = 2
    st.slots[0] = [-1, 40, 41, -1, -1, -1]  # slots 2 and 3 are C2's
    st.relic_hand[0] = [r for r in st.relic_hand[0] if r not in (40, 41)]
    NEM.final_discards(st)
    assert st.pawns.counts[c2].sum() == 0 and st.slots[0] == [-1] * 6
    assert st.relic_discard[-2:] == [40, 41] and nem.discarded[P.UF] >= 2


def test_scoring_card_silver_guard():
    """Design §10.8 ★6 Silver Guard rows: 3 per Relic in the Vault, 3 per Agent in a human
    Chamber."""
    st = sg_solo(difficulty=1)
    base = NEM.score(st) - len(st.nem.vault_relics) - sum(st.nem.agents_space)
    st.nem.vault_relics.append(99)
    st.nem.agents_space[st.city.chambers(0)[0]] += 1
    assert NEM.score(st) == base + len(st.nem.vault_relics) + sum(st.nem.agents_space)


@pytest.mark.parametrize("difficulty", [1, 6])
def test_silver_guard_setup(difficulty):
    """Design §10.5 step 4: Agents per Society, Relic reveals seizing their suit, Bright Relics
    of distinct suits into the Vault (the leaders moving), revealed cards under the deck."""
    from envs.clandestine.engine import CARDS, RELIC_DARK
    st = sg_solo(difficulty=difficulty)
    d = NEM.DIFFICULTY[difficulty]["silver_guard"]
    nem = st.nem
    assert sum(nem.agents_space) == d["agents_per_society"]
    vault_suits = [CARDS.relics[r].suit for r in nem.vault_relics]
    assert len(vault_suits) >= d["vault_unique_suits"] and not any(
        RELIC_DARK[r] for r in nem.vault_relics[-d["vault_unique_suits"]:])
    assert set(nem.revealed) <= set(st.relic_deck[:len(nem.revealed)])
    assert sorted(st.all_relics()) == list(range(108))


# ------------------------------------------------------------------------------ random games
def check(st: ClandestineState, start: np.ndarray, size: int) -> None:
    """Invariants with a Nemesis: 108 Relics; pawn totals constant (the Choir's UFs and the
    Lower-Choir leaders included); Tithes 0..12; upper Choir 0..7; the Intent cards are the
    Difficulty's (deck + pile + top); the current player a human seat with a non-empty mask
    and an observation of the documented size in [0, 1]."""
    nem = st.nem
    assert sorted(st.all_relics()) == list(range(108))
    assert (st.pawn_totals() == start).all()
    assert 0 <= sum(nem.tithes) <= NEM.TITHE_TOKENS and 0 <= nem.upper <= 7
    assert 0 <= NEM.agent_supply(st) <= NEM.AGENTS
    assert all(len(c) <= 2 for c in nem.cells.values())
    cards = nem.deck + nem.pile + ([nem.top] if nem.top >= 0 else [])
    assert len(set(cards)) == len(cards) == sum(NEM.DIFFICULTY[nem.difficulty]["intent"].values())
    assert all(nem.seen[c] for c in nem.pile)
    assert st.chaos[nem.seat] == 0 and st.energy[nem.seat] == 0
    if not st.is_over:
        assert st.current_player in st.agent_seats
        assert st.legal_action_mask().any()
        obs = st.observation_tensor(st.current_player)
        assert obs.shape == (size,) and obs.dtype == np.float32
        assert obs.min() >= 0.0 and obs.max() <= 1.0


def play(seed: int, humans: int, difficulty: int, every: int = 1,
         nemesis: str = "most_holy") -> ClandestineState:
    st = solo(seed, difficulty, humans, nemesis)
    rng = np.random.default_rng(seed)
    size = observation_layout(st.num_players, True).size
    start = st.pawn_totals()
    k = 0
    while not st.is_over:
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
        k += 1
        if k % every == 0:
            check(st, start, size)
    check(st, start, size)
    ret = st.returns()
    assert set(ret[list(st.agent_seats)]) <= {-1.0, 1.0}
    assert ret[st.nem.seat] == (1.0 if st.nem.seat in st.winners() else -1.0)
    return st


def _configs(count: int, offset: int = 0):
    for g in range(offset, offset + count):
        yield g, (1, 2)[g % 2], 1 + (g // 2) % 6, NEM.NEMESES[(g // 12) % 2]


def test_random_games_with_the_nemesis():
    """24 seeded random games (solo and 2 players, every difficulty, both Nemeses) with the
    invariants after every 4th decision and at the end."""
    reasons = [play(g, h, d, 4, nem).end_reason for g, h, d, nem in _configs(24)]
    assert reasons.count("round_limit") == 0


@pytest.mark.slow
def test_random_games_with_the_nemesis_slow():
    """120 more seeded games, invariants after every 5th decision."""
    for g, h, d, nem in _configs(120, offset=24):
        play(g, h, d, 5, nem)


@pytest.mark.exhaustive
@pytest.mark.parametrize("nemesis", ["most_holy", "silver_guard"])
@pytest.mark.parametrize("humans", [1, 2])
@pytest.mark.parametrize("difficulty", range(1, 7))
def test_thousand_random_games_per_configuration(nemesis, humans, difficulty):
    """1,000 seeded random games per Nemesis, difficulty and human count, invariants after
    every 20th decision and at the end."""
    for g in range(1000):
        play(10_000 * difficulty + 1_000 * humans + g, humans, difficulty, 20, nemesis)


# ------------------------------------------------------------------------------ laws
_LAW_CONFIGS = [(1, 1, "most_holy"), (2, 3, "silver_guard"), (1, 6, "silver_guard"),
                (2, 6, "most_holy"), (1, 2, "silver_guard"), (2, 1, "most_holy")]


def positions(n: int, seed: int) -> list[ClandestineState]:
    """``n`` positions with the Most Holy seated, reached by seeded random play to a depth drawn
    uniformly over a whole game (set-up and the end included)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        humans, difficulty, nem = _LAW_CONFIGS[i % len(_LAW_CONFIGS)]
        game_seed = int(rng.integers(2**62))
        s = solo(game_seed, difficulty, humans, nem)
        while not s.is_over:
            s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
        actions, depth = list(s.history), int(rng.integers(len(s.history) + 1))
        s = solo(game_seed, difficulty, humans, nem)
        for a in actions[:depth]:
            s.apply_action(a)
        out.append(s)
    return out


def test_laws_with_the_nemesis_seated():
    """The contract laws with a Nemesis (tests/test_contract_laws.py): 24 random positions;
    the JSON record replays exactly; for every human seat, the resampled world keeps the seat's
    observation, mask, current player (never the Nemesis) and returns, leaves the original
    untouched, plays on, and its history replays to what the seat saw. The resampler does
    draw other face-down Intent cards where unseen cards remain."""
    from tests.laws import assert_history_consistent
    from tests.test_contract_laws import _check_record, _check_resample

    rng = np.random.default_rng(71)
    other = 0
    for i, s in enumerate(positions(24, seed=70)):
        _check_record(s)
        for seat in s.agent_seats:
            world = _check_resample(s, seat, rng, play_on=i % 6 == 0)
            if i % 6:
                other += sorted(world.nem.deck) != sorted(s.nem.deck)
                assert_history_consistent(s, seat, world)
                assert sorted(NEM.INTENTS[c]["type"] for c in world.nem.deck) == \
                    sorted(NEM.INTENTS[c]["type"] for c in s.nem.deck)
                assert world.nem.pile == s.nem.pile
    assert other > 0


def test_resample_from_look_alike_states_with_one_seed_gives_one_intent_deck():
    """The resampler depends only on what the seats know (tests/test_contract_laws.py): from a
    position with a Nemesis and from a world drawn from it for a human seat (other never-seen
    Intent cards face down in some of them), generators of one seed draw the same world,
    Intent deck and chance log included. The Intent relabelling used to take the unseen cards
    in card order, so its draw followed which of them were really in the deck."""
    rng = np.random.default_rng(81)
    other_deck = 0
    for i, s in enumerate(positions(12, seed=80)):
        for seat in s.agent_seats:
            other = s.resample_from_infostate(seat, rng)
            other_deck += sorted(other.nem.deck) != sorted(s.nem.deck)
            a = s.resample_from_infostate(seat, np.random.default_rng(i))
            b = other.resample_from_infostate(seat, np.random.default_rng(i))
            assert a.nem.deck == b.nem.deck
            assert a.hidden_truth() == b.hidden_truth()
            assert a.chance_log == b.chance_log
            for p in s.agent_seats:
                assert np.array_equal(a.observation_tensor(p), b.observation_tensor(p))
    assert other_deck >= 3


def test_the_intent_deck_is_hidden():
    """Leak law for the Intent deck (rulebook Solo Play step 3: shuffled face down): exchanging
    a face-down card never seen with a never-seen card of its type left in the box changes no
    human seat's observation."""
    changed = 0
    rng = np.random.default_rng(72)
    for s in positions(24, seed=73):
        nem = s.nem
        for t in NEM.INTENT_TYPES:
            deck = [c for c in nem.deck if NEM.INTENTS[c]["type"] == t and not nem.seen[c]]
            used = set(nem.deck) | set(nem.pile) | {nem.top}
            box = [c for c in NEM.TYPE_CARDS[t] if c not in used]
            if deck and box:
                t2 = s.clone()
                t2.nem.deck.remove(deck[int(rng.integers(len(deck)))])
                t2.nem.deck = sorted(t2.nem.deck + [box[int(rng.integers(len(box)))]])
                for seat in s.agent_seats:
                    assert np.array_equal(t2.observation_tensor(seat), s.observation_tensor(seat))
                changed += 1
                break
    assert changed >= 5


def test_the_observation_recalls_which_seen_intent_cards_are_in_the_deck():
    """Perfect recall (design §1.5; rulebook Solo Play step 11): once the Intent deck runs out,
    the face-up pile under the card just moved becomes the deck, every card of it seen, and the
    order of the flips shows which are still face down. Seed 0, solo, ★1, 91 random actions: the
    deck holds 10 cards, all seen, the pile [10, 21]; ``nemesis_pile`` names the pile, and
    exchanging a deck card with the pile's lower card changes the observation. It did not: the
    observation held the cards ever seen and the pile's top only, so the next Intent card's
    candidates were lost."""
    st = solo(0, 1)
    rng = np.random.default_rng(0)
    for _ in range(91):
        st.apply_action(int(rng.choice(st.legal_actions())))
    nem = st.nem
    assert nem.deck == [5, 7, 9, 11, 12, 13, 14, 20, 22, 23] and nem.pile == [10, 21]
    assert all(nem.seen[c] for c in nem.deck)
    swapped = st.clone()
    swapped.nem.deck = sorted(nem.deck[1:] + [10])
    swapped.nem.pile = [5, 21]
    assert not np.array_equal(swapped.observation_tensor(0), st.observation_tensor(0))
    assert np.flatnonzero(_obs_field(st, 0, "nemesis_pile")).tolist() == [10, 21]
    assert np.flatnonzero(_obs_field(st, 0, "nemesis_face_up")).tolist() == [21]
    world = st.resample_from_infostate(0, rng)
    assert world.nem.deck == nem.deck and world.nem.pile == nem.pile


# ------------------------------------------------------------------------------ env, agents, CLI
def test_solo_ids_and_env_agents():
    """``cunning/ClandestineSolo-v0`` plays one learning seat against the Most Holy to the end
    (+1 or -1); ``cunning/clandestine_solo-v0`` has one agent; with 2 humans the AEC env has
    two agents and the Nemesis acts inside ``step``."""
    import gymnasium
    import pettingzoo

    import envs  # noqa: F401  (registers the ids)
    import envs.clandestine_v0 as CV

    e = gymnasium.make("cunning/ClandestineSolo-v0", difficulty=1)
    obs, _ = e.reset(seed=3)
    rng = np.random.default_rng(3)
    done, reward, steps = False, 0.0, 0
    while not done:
        a = int(rng.choice(np.flatnonzero(e.unwrapped.action_masks())))
        obs, reward, term, trunc, _ = e.step(a)
        done, steps = term or trunc, steps + 1
    assert term and reward in (-1.0, 1.0) and steps > 10
    assert obs.shape == (observation_layout(2, True).size,)
    p = pettingzoo.make("aec", "cunning/clandestine_solo-v0")
    p.reset(seed=1)
    assert p.possible_agents == ["player_0"] and p.unwrapped.game.spec.nemesis == "most_holy"
    raw = CV.raw_env(num_players=2, nemesis="silver_guard", difficulty=2)
    raw.reset(seed=2)
    assert raw.possible_agents == ["player_0", "player_1"]
    while raw.agents:
        _, _, term, trunc, _ = raw.last()
        mask = raw.observe(raw.agent_selection)["action_mask"]
        raw.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
    assert set(raw.rewards.values()) <= {-1.0, 1.0}

def test_the_solo_gymnasium_env_refuses_opponents_it_has_no_seat_for():
    """Solo (one human seat against the Nemesis) a Gymnasium env has no opponent seat: an
    ``opponents`` given, even ``"random"``, is refused naming the parameter (before, it was
    silently dropped); left out or ``None`` it plays. With two human seats the default is still
    one random opponent."""
    import gymnasium

    import envs  # noqa: F401  (registers the ids)
    from envs.core.errors import ConfigError
    from envs.core.single_agent import SingleAgentEnv

    for opponents in ("heuristic", "random", ["random"]):
        with pytest.raises(ConfigError, match=r"opponents=.* given, but this game has no "
                                              r"opponent seat for an agent"):
            gymnasium.make("cunning/ClandestineSolo-v0", opponents=opponents)
    for kw in ({}, {"opponents": None}):
        e = SingleAgentEnv("clandestine", num_players=1, nemesis="most_holy", difficulty=1, **kw)
        e.reset(seed=1)
        assert e.specs == [] and e.opponents == {}
    two = SingleAgentEnv("clandestine", num_players=2, nemesis="most_holy", difficulty=1, seat=0)
    two.reset(seed=1)
    assert two.specs == ["random"] and type(two.specs[0]) is str
    assert list(two.opponents) == [1] and two.opponents[1][0] == "random"


def test_heuristic_and_arena_against_the_nemesis():
    """The scripted heuristic plays a human seat against each Nemesis (solo and beside a random
    seat); the arena scores the agent seats only."""
    from training.arena import evaluate

    for nem, lineup in (("most_holy", ["heuristic"]), ("silver_guard", ["heuristic", "random"])):
        rep = evaluate("clandestine", lineup, 1, seed=5,
                       config={"nemesis": nem, "difficulty": 3, "num_players": len(lineup)})
        assert len(rep.results[0].returns) == len(lineup)
        assert set(rep.results[0].returns) <= {-1.0, 1.0}


def test_selfplay_nemesis_flags(capsys):
    """``--nemesis`` / ``--difficulty`` set the solo configuration; misuse is one clear error."""
    import argparse

    from training.selfplay import _validated, build_parser

    parser = build_parser()
    args = parser.parse_args(["--game", "clandestine", "--nemesis", "silver_guard",
                              "--difficulty", "6"])
    _cls, config, _net, _w = _validated(parser, args)
    assert (config["nemesis"], config["difficulty"], config["num_players"]) == \
        ("silver_guard", 6, 1)
    for argv, msg in ((["--game", "prowl", "--nemesis", "most_holy"], "for --game clandestine"),
                      (["--game", "clandestine", "--difficulty", "2"], "needs --nemesis"),
                      (["--game", "clandestine", "--nemesis", "most_holy", "--difficulty", "9"],
                       "difficulty")):
        with pytest.raises(SystemExit):
            _validated(parser, parser.parse_args(argv))
        assert msg in capsys.readouterr().err
    assert isinstance(args, argparse.Namespace)


# ------------------------------------------------------------------------------ observation
def nemesis_block(st: ClandestineState, seat: int) -> dict[str, np.ndarray]:
    """The Nemesis block of ``seat``'s observation, field by field."""
    lay = observation_layout(st.num_players, True)
    obs = st.observation_tensor(seat)
    return {f.name: lay.view(obs, f.name) for f in lay
            if f.name.startswith(("nemesis_", "sg_"))}


def read_back(st: ClandestineState, seat: int) -> dict[str, object]:
    """The Nemesis amounts decoded from ``seat``'s observation (bounded ones times their bound,
    the others by ``decode_amount``), in absolute spaces."""
    b = nemesis_block(st, seat)
    n = st.num_players
    rel = [space_to_index(s, seat, n) for s in range(9 * n)]
    out: dict[str, object] = {
        "score": int(decode_amount(b["nemesis_score"][0], SCALES["nemesis_score"])),
        "lower_uf": int(decode_amount(b["nemesis_choir"][1], SCALES["lower_choir_uf"])),
        "upper": round(float(b["nemesis_choir"][0]) * BOUNDS["upper_choir"]),
        "slots": np.rint(b["nemesis_slots"].astype(np.float64)
                         * BOUNDS["level_slot_tiles"]).astype(int).tolist(),
        "tithes": [round(float(b["nemesis_tithes"][r]) * BOUNDS["tithes"]) for r in rel],
        "masks_ignored": decode_amount(b["nemesis_masks"][rel],
                                       SCALES["nemesis_masks"]).tolist(),
        "masks_taken": {r: int(x) for r, x in enumerate(decode_amount(
            b["nemesis_masks"][9 * n:], SCALES["nemesis_masks"])) if x},
    }
    if st.nem.nemesis == "silver_guard":
        out["agents_space"] = [round(float(b["sg_agents_space"][r]) * BOUNDS["agents"])
                               for r in rel]
        out["vault"] = round(float(b["sg_vault"][4]) * BOUNDS["relics"])
    return out


def engine_values(st: ClandestineState) -> dict[str, object]:
    nem = st.nem
    out: dict[str, object] = {
        "score": NEM.score(st), "lower_uf": nem.lower_uf, "upper": nem.upper,
        "slots": [[len(s), sum(not t[1] for t in s)] for s in nem.level_slots],
        "tithes": list(nem.tithes), "masks_ignored": list(nem.masks_ignored),
        "masks_taken": {r: x for r, x in nem.masks_taken.items() if x},
    }
    if nem.nemesis == "silver_guard":
        out["agents_space"] = list(nem.agents_space)
        out["vault"] = len(nem.vault_relics)
    return out


def test_nemesis_amounts_past_the_old_caps_are_read_back_exactly():
    """The Nemesis block clipped its amounts (Intrigue / 100 capped, Lower-Choir UFs / 7,
    Tithes per space / 5, tiles per Level slot / 4, Agents per space / 4, Vault Relics / 40);
    now a hand-made position past every old cap reads back exactly."""
    st = solo(0, 3)
    nem, seat = st.nem, st.nem.seat
    st.gold[seat] = 400
    nem.lower_uf = 12
    space = next(s for s in range(len(nem.tithes)) if nem.tithes[s])
    nem.tithes = [0] * len(nem.tithes)
    nem.tithes[space] = NEM.TITHE_TOKENS  # all 12 Tithes on one space
    for level, slot in zip((2, 3), nem.level_slots):
        for suit in NEM.SUITS:
            for side in "LR":
                idx = NEM.board_slot(level, suit, side)
                if st.board_tile[idx] >= 0:
                    slot.append([st.board_tile[idx], level == 2])
                    st.board_tile[idx] = -1
    nem.level_slots[0].append([TILE_INDEX["T-FTL-II"], False])
    want = engine_values(st)
    assert want["score"] > 100 and want["tithes"][space] == 12
    assert want["slots"][0][0] > 4 and want["slots"][1][1] > 4
    assert read_back(st, 0) == want
    b = nemesis_block(st, 0)
    assert b["nemesis_tithes"].max() == 1.0 and b["nemesis_score"][0] < 1.0

    sg = solo(0, 6, nemesis="silver_guard")
    nem = sg.nem
    chamber = sg.city.chambers(0)[0]
    nem.agents_space[chamber] += 6
    nem.vault_relics += [sg.relic_deck.pop() for _ in range(45)]
    want = engine_values(sg)
    assert want["agents_space"][chamber] > 4 and want["vault"] > 40
    assert read_back(sg, 0) == want


@pytest.mark.parametrize("nemesis", NEM.NEMESES)
def test_nemesis_block_law_in_random_solo_games(nemesis):
    """Law over 6 seeded random solo games per Nemesis (every difficulty once; about 200
    positions each): every entry of the Nemesis block is in [0, 1] and every amount, the
    x/(x+s) ones included, reads back to the engine's value."""
    seen = 0
    for g in range(6):
        st = solo(100 + g, 1 + g, 1, nemesis)
        rng = np.random.default_rng(g)
        k = 0
        while True:
            if k % 9 == 0 or st.is_over:
                for b in nemesis_block(st, 0).values():
                    assert b.min() >= 0.0 and b.max() <= 1.0
                assert read_back(st, 0) == engine_values(st)
                seen += 1
            if st.is_over:
                break
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
            k += 1
    assert seen >= 180


@pytest.mark.parametrize("nemesis", ["most_holy", "silver_guard"])
def test_views_with_a_nemesis(nemesis):
    """The text views name the Nemesis seat (by its name: they showed its id); the City
    picture draws it (uint8 RGB)."""
    from envs.clandestine.engine import NEMESIS_NAMES

    st = solo(1, 3, 2, nemesis)
    for view in (st.render_text(), st.render_text(0)):
        assert f"  seat {st.nem.seat} the Nemesis {NEMESIS_NAMES[nemesis]} " in view
        assert nemesis not in view
    img = st.render_rgb()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


def test_a_person_plays_solo_through_the_play_command():
    """``training.play`` with no opponents seats one person against the Nemesis (here always
    answering the first option) to the end; the labels and the returns name the person's seat
    and the Nemesis's, played by the rules."""
    import io

    from rich.console import Console

    from training.play import play

    con = Console(file=io.StringIO(), width=120)
    st, labels, finished = play("clandestine", 0, [], seed=3, console=con,
                                config={"nemesis": "silver_guard", "difficulty": 1},
                                read=lambda prompt: "1")
    from training.seatview import RULES_LABEL

    assert finished and labels == ["you", RULES_LABEL] and st.is_over
    out = con.file.getvalue()
    assert st.returns()[0] in (-1.0, 1.0) and "Returns" in out and RULES_LABEL in out


def test_resample_keeps_an_ascend_payment_replayable():
    """Regression: seat 1's resample of a Silver Guard game (2 humans, difficulty 3) relabelled
    seat 0's hidden Relics within their tone, which changed the cards an Ascend payment may take
    (``ascend.card_choices`` reads the other cards' Suit icons): seat 0's public picks could not
    be replayed (RecordError). Worlds under which the public history is illegal are drawn
    again; the accepted world agrees with seat 1's observations all along. The position: game
    seed 46 played by ``default_rng(46)`` for 369 actions, in a payment of seat 0's after its
    pick of Relic R043; 3 of the single draws from ``default_rng(0..3)`` cannot be replayed."""
    import envs.clandestine.resample as R
    from envs.core.errors import RecordError
    from tests.laws import assert_history_consistent

    s = solo(46, 3, 2, "silver_guard")
    rng = np.random.default_rng(46)
    for _ in range(369):
        s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
    assert s.kind == "ascend_card"
    assert s.action_to_string(s.history[-1]) == "Pay with Relic Steel Quill [R043]"
    failed = 0
    for r in range(4):
        try:
            R.resample_once(s, 1, np.random.default_rng(r))
        except RecordError as err:
            assert "cannot be replayed" in str(err)
            failed += 1
    assert failed == 3
    for r in range(4):
        world = s.resample_from_infostate(1, np.random.default_rng(r))
        assert assert_history_consistent(s, 1, world) > 0


def blind_bottom_draw(seed: int, difficulty: int = 6) -> ClandestineState:
    """A Silver Guard game with 2 humans played by ``default_rng(seed)`` up to the first blind
    draw of a Relic the Silver Guard put under the deck at set-up."""
    st = solo(seed, difficulty, 2, "silver_guard")
    rng = np.random.default_rng(seed)
    under = set(st.nem.revealed)
    while not any((set(st.relic_hand[j]) - set(st.relic_known[j])) & under for j in (0, 1)):
        st.apply_action(int(rng.choice(st.legal_actions())))
    return st


def _bottom(st: ClandestineState) -> list[list[int]]:
    """The Silver Guard's groups under the deck as put there, bottom card first (its chance
    events ``sg_reveal``, ``sg_vault`` over ``nem.revealed``)."""
    out, start = [], 0
    for name, perm in st.chance_log:
        if name in ("sg_reveal", "sg_vault"):
            cards = st.nem.revealed[start:start + len(perm)]
            out.append([cards[p] for p in perm])
            start += len(perm)
    return out


@pytest.mark.parametrize("seed, steps, group, public, drawn, candidates, others", [
    # the 3 set-up reveals went under the deck as [59, 45, 94] (bottom first) above the Vault
    # search's 9 others; once the deck shrank into them, seat 1 drew 94 blind; 59, 45 and the
    # 9 others are still in the deck
    (2, 426, 0, {}, 94, (45, 59, 94), "hidden"),
    # the Vault search's other cards went under as [46, 103, 53, 18, 49, 106, 77, 0]: the top
    # four were drawn face up to the Map, then seat 1 drew 18 blind; the deck is [46, 103, 53];
    # the 3 reveals above them went to the Map face up
    (3, 453, 1, {4: 49, 5: 106, 6: 77, 7: 0}, 18, (18, 46, 53, 103), "public"),
])
def test_a_blind_draw_from_the_silver_guard_bottom_cards_is_resampled(
        seed, steps, group, public, drawn, candidates, others):
    """Design §1.5 Resampler step 2: a hidden Relic drawn after the deck shrank into the Silver
    Guard's set-up cards is one of that group's cards still hidden. From seat 0, seat 1's blind
    card of the group is each candidate in about a third (a quarter) of 180 worlds; the group's
    cards the seat saw (drawn face up) stay in their places, the other group's order is redrawn
    when its cards are hidden and kept when they are public, and seat 0's hand, observation and the public history are the real ones. The resampler
    used to keep every set-up card where it really was: seat 1 held the real card in every
    world. From seat 1, its own card stays and the others of the group change places."""
    st = blind_bottom_draw(seed)
    assert len(st.history) == steps
    real = _bottom(st)
    blind = set(st.relic_hand[1]) - set(st.relic_known[1])
    assert blind & set(st.nem.revealed) == {drawn}
    assert sorted(set(real[group]) & (set(st.relic_deck) | {drawn})) == list(candidates)
    assert all(real[group][i] == r for i, r in public.items())
    obs, events = st.observation_tensor(0), st.public_history()
    rng = np.random.default_rng(seed)
    held = dict.fromkeys(candidates, 0)
    orders = set()
    for _ in range(180):
        w = st.resample_from_infostate(0, rng)
        assert np.array_equal(w.observation_tensor(0), obs)
        assert w.public_history() == events
        assert w.relic_hand[0] == st.relic_hand[0] and w.relic_map == st.relic_map
        assert w.relic_discard == st.relic_discard and len(w.relic_deck) == len(st.relic_deck)
        got = (set(w.relic_hand[1]) - set(w.relic_known[1])) & set(st.nem.revealed)
        assert len(got) == 1 and got <= set(candidates)
        held[got.pop()] += 1
        groups = _bottom(w)
        assert [sorted(g) for g in groups] == [sorted(g) for g in real]
        assert all(groups[group][i] == r for i, r in public.items())
        orders.add(tuple(groups[1 - group]))
    expected = 180 / len(candidates)
    assert all(0.6 * expected < k < 1.4 * expected for k in held.values()), held
    if others == "hidden":
        assert len(orders) > 20
    else:
        assert orders == {tuple(real[1 - group])}
    decks = set()
    for _ in range(20):
        w = st.resample_from_infostate(1, rng)
        assert w.relic_hand[1] == st.relic_hand[1]
        assert np.array_equal(w.observation_tensor(1), st.observation_tensor(1))
        decks.add(tuple(w.relic_deck))
    assert len(decks) > 1 and {tuple(sorted(d)) for d in decks} == {tuple(sorted(st.relic_deck))}


def test_resample_of_the_silver_guard_bottom_cards_reads_no_real_card():
    """The world drawn depends only on what the seat knows (contract law): from the position of
    seed 2 above and from a world drawn from it for seat 0 in which seat 1 holds another card
    of the reveal group, generators of one seed draw the same world for seat 0."""
    st = blind_bottom_draw(2)
    rng = np.random.default_rng(5)
    other = next((w for w in (st.resample_from_infostate(0, rng) for _ in range(20))
                  if set(w.relic_hand[1]) != set(st.relic_hand[1])), None)
    assert other is not None, "seat 1 held its real hand in 20 worlds"
    assert np.array_equal(other.observation_tensor(0), st.observation_tensor(0))
    for k in range(3):
        a = st.resample_from_infostate(0, np.random.default_rng(k))
        b = other.resample_from_infostate(0, np.random.default_rng(k))
        assert a.chance_log == b.chance_log and a.hidden_truth() == b.hidden_truth()
        assert a.relic_deck == b.relic_deck and a.relic_hand == b.relic_hand


def test_the_observation_recalls_who_drew_the_silver_guard_set_up_cards_blind():
    """Perfect recall (design §1.5): a blind draw made once the deck had shrunk into the Silver
    Guard's set-up cards is one of them, and every seat saw the deck size at the draw. Seed 36,
    3 humans, ★6, 466 random actions: the Vault search's 9 others went under the deck; seat 0
    drew 32 of them blind, seat 1 23, seat 2 42 (beside 9 and 77 from above them). Every world
    resampled for seat 0 has seat 1 holding a card of that group, and ``sg_blind`` says so (row
    1: relative seats 0, 1, 2 one card each / 108, the Nemesis none). Exchanging seat 1's card
    with seat 2's 9 changes seat 0's observation. It did not: the observation held the group's
    cards and the hand sizes only, so seat 0 could not tell which of the others held one."""
    st = ClandestineState(seed=36, num_players=3, nemesis="silver_guard", difficulty=6)
    rng = np.random.default_rng(36)
    for _ in range(466):
        st.apply_action(int(rng.choice(st.legal_actions())))
    blind = [set(st.relic_hand[j]) - set(st.relic_known[j]) for j in range(4)]
    assert blind == [{32}, {23}, {9, 42, 77}, set()]
    group = set(st.nem.revealed[3:])
    assert {32, 23, 42} <= group and not {9, 77} & group and len(st.relic_deck) == 3
    for _ in range(5):
        w = st.resample_from_infostate(0, rng)
        assert len((set(w.relic_hand[1]) - set(w.relic_known[1])) & group) == 1
    swapped = st.clone()
    swapped.relic_hand[1][swapped.relic_hand[1].index(23)] = 9
    swapped.relic_hand[2][swapped.relic_hand[2].index(9)] = 23
    assert not np.array_equal(swapped.observation_tensor(0), st.observation_tensor(0))
    assert (_obs_field(st, 0, "sg_blind") * 108).tolist() == [[0, 1], [0, 1], [0, 1], [0, 0]]
    assert (_obs_field(st, 2, "sg_blind") * 108).tolist() == [[0, 1], [0, 0], [0, 1], [0, 1]]
    assert (_obs_field(swapped, 0, "sg_blind") * 108).tolist() == [[0, 1], [0, 0], [0, 2],
                                                                    [0, 0]]
    most_holy = solo(36, 6, 3)
    assert not _obs_field(most_holy, 0, "sg_blind").any()


def test_nemesis_benchmark_refuses_bad_arguments_before_any_game(capsys):
    """``python -m benchmarks.clandestine_nemesis`` ended a bad ``--games``, difficulty,
    Nemesis or agent spec in a traceback, and a bad difficulty after the games of the good
    ones before it; each is now a one-line usage error (exit 2) before any game is played. A
    good run prints one JSON line per configuration, the agent's seat scored alone."""
    import json

    from benchmarks.clandestine_nemesis import main

    for argv, message in ((["--games", "0"], "--games must be at least 1, got 0"),
                          (["--difficulties", "1", "9"],
                           "--difficulties: difficulty must be an integer in 1..6"),
                          (["--nemeses", "foo"], ("--nemeses: nemesis must be False, None or "
                                                  "one of ['most_holy', 'silver_guard'], got "
                                                  "'foo'")),
                          (["--agent", "bogus"], "--agent: unknown agent spec 'bogus'")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err
    assert main(["--agent", "random", "--games", "1", "--difficulties", "2",
                 "--nemeses", "silver_guard"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    row = json.loads(line)
    assert (row["nemesis"], row["difficulty"], row["games"], row["wins"]) == \
        ("silver_guard", 2, 1, 0)


def test_the_solo_env_observes_its_agents_only():
    """The solo AEC env's agents are the human seats; ``observe("player_1")`` gave the Nemesis
    seat's observation and ``resample_from_infostate("player_1", rng)`` a world for it, though
    ``player_1`` is no agent of the env, and ``observe("player_2")`` named the seats 0..1. Each
    refuses now, naming the env's agents and the seat the rules play; the agent's own calls are
    unchanged."""
    import envs.clandestine_v0 as CV

    e = CV.raw_env(num_players=1, nemesis="most_holy", difficulty=1)
    e.reset(seed=0)
    for agent in ("player_1", "player_2"):
        with pytest.raises(ValueError, match=rf"{agent!r} is not an agent of this env: its "
                                             r"agents are \['player_0'\] \(seat 1 is played by "
                                             r"the rules\)"):
            e.observe(agent)
        with pytest.raises(ValueError, match=rf"{agent!r} is not an agent of this env"):
            e.resample_from_infostate(agent, np.random.default_rng(0))
    obs = e.observe("player_0")
    assert np.array_equal(obs["observation"], e.game.observation_tensor(0))
    assert obs["action_mask"].sum() >= 1
    world = e.resample_from_infostate("player_0", np.random.default_rng(0))
    assert np.array_equal(world.observation_tensor(0), e.game.observation_tensor(0))


def test_solo_final_evaluation_plays_each_agent_once_against_the_nemesis(tmp_path, capsys):
    """Solo (one agent seat), the final evaluation's match-ups "trained vs random" and "trained
    vs heuristic" were the same lineup, the trained agent alone, playing the same games twice
    under the names of opponents that never sat; "heuristic vs random" was the heuristic alone.
    Solo there are two match-ups now, each agent alone against the Nemesis; with two agent
    seats the usual three stay."""
    import json

    from training.selfplay import main as selfplay_main

    base = ["--game", "clandestine", "--nemesis", "most_holy", "--difficulty", "1",
            "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy", "--n-steps", "64",
            "--batch-size", "64", "--n-epochs", "1", "--net", "8", "--imitation-games", "0",
            "--eval-games", "1", "--no-progress"]
    assert selfplay_main(base + ["--run-dir", str(tmp_path / "solo")]) == 0
    summary = json.loads((tmp_path / "solo" / "evaluation.json").read_text())
    assert [s["matchup"] for s in summary] == ["trained_vs_nemesis", "heuristic_vs_nemesis"]
    assert [s["entry"] for s in summary] == ["trained", "heuristic"]
    assert all(s["games"] == 1 for s in summary)
    assert not list((tmp_path / "solo").glob("evaluation_*_vs_random*"))
    capsys.readouterr()


# ------------------------------------------------------------------------------ public history
def _obs_field(st: ClandestineState, seat: int, name: str) -> np.ndarray:
    """One field of ``seat``'s observation, shaped as in the layout."""
    return observation_layout(st.num_players, True).view(st.observation_tensor(seat), name)


def test_public_history_names_the_intent_card_and_the_tile_of_a_nemesis_turn():
    """A forced position (solo, ★3, the Most Holy): the face-down Intent deck holds a single
    Ascension card, and the human plays its first turn. The Nemesis's turn adds, after the
    human's decisions and its END refill, exactly (intent, that card) then (nemesis_tile, the
    Level II tile of the card's Target Suit and side, 2): the card and the tile ``rules_words``
    names. The reshuffle of the emptied deck adds no event (the cards under it are public), and
    after them come only Map refills and the human's next decisions. Before this change the
    Nemesis's turn added nothing."""
    st = solo(seed=5, difficulty=3)
    nem = st.nem
    card = next(c for c in range(NEM.NUM_INTENTS) if NEM.INTENTS[c]["intent_row"]["ascend"]
                and c != nem.pile[-1])
    nem.deck = [card]
    row = NEM.INTENTS[card]["intent_row"]
    other = "R" if row["side"] == "L" else "L"
    tile = next(t for t in (st.board_tile[NEM.board_slot(2, row["target_suit"], sd)]
                            for sd in (row["side"], other)) if t >= 0)
    start = len(st.public_history())
    rng = np.random.default_rng(5)
    while not st.rules_words():
        st.apply_action(int(rng.choice(st.legal_actions())))
    new = st.public_history()[start:]
    assert [e for e in new if e[0] >= EV_INTENT] == [(EV_INTENT, card), (EV_NEMESIS_TILE, tile, 2)]
    i = new.index((EV_INTENT, card))
    assert new[i + 1] == (EV_NEMESIS_TILE, tile, 2)
    assert all(e[0] == EV_MAP or (e[0] == EV_DECISION and e[1] == 0)
               for e in new[:i] + new[i + 2:])
    words = [w for _, w in st.rules_words()]
    assert words[0] == (f"flipped the Intent card {NEM.intent_words(card)}: "
                        f"{NEM.intent_row_words(row)}")
    assert words[1] == (f"Ascension: took the tile {NEM.tile_words(tile)} face up onto its "
                        "Level II slot")
    assert any(w.startswith("Intent deck empty") for w in words)
    assert nem.pile[-1] == card and nem.level_slots[0] == [[tile, True]]
    assert _obs_field(st, 0, "nemesis_seen")[card] == 1
    assert _obs_field(st, 0, "tiles_board")[tile] == 0


def test_public_history_names_the_relic_the_nemesis_draws_face_up():
    """Design §10.1: the Occult suit effect the Nemesis receives draws the deck's top Relic
    face up into its hand: one (nemesis_relic, that Relic, 0) event, the card ``rules_words``
    names and the observation shows in its known hand. A human's blind draw adds no event."""
    st = solo(seed=2)
    seat = st.nem.seat
    top = st.relic_deck[-1]
    start = len(st.public_history())
    NEM.suit_effect(st, "Occult", 0)
    assert st.public_history()[start:] == [(EV_NEMESIS_RELIC, top, 0)]
    said = f"Occult suit effect: drew {NEM.relic_words(top)} face up"
    assert st.rules_words()[-1] == (seat, said)
    assert _obs_field(st, 0, "known_relics")[seat, top] == 1
    st.draw_relics(0, 1)
    assert len(st.public_history()) == start + 1


def test_note_refuses_other_kinds_and_wrong_arguments():
    """``ClandestineState.note`` takes only the Nemesis's event kinds, each with its number of
    arguments, and names the problem; nothing is added on a refusal."""
    st = solo()
    start = st.public_history()
    with pytest.raises(ValueError, match=r"event kind 3 is not one of the Nemesis's"):
        st.note(EV_MAP, 0, 1)
    with pytest.raises(ValueError, match=r"the nemesis_tile event takes 2 arguments, got 1"):
        st.note(EV_NEMESIS_TILE, 4)
    assert st.public_history() == start


@pytest.mark.parametrize("difficulty", [1, 6])
def test_public_history_names_the_relics_the_silver_guard_shows_at_setup(difficulty):
    """Silver Guard set-up (design §10.5 step 4): right after the set-up Intent card come the
    ``relic_reveals`` Relics shown (where 1), then the Vault search in order: each Bright Relic
    of a suit not yet found goes into the Vault (where 2), every other card shown goes under
    the deck (where 3). The cards shown and put under the deck are the bottom of the deck, in
    the order of ``nem.revealed``."""
    diff = NEM.DIFFICULTY[difficulty]["silver_guard"]
    for seed in range(3):
        st = solo(seed, difficulty, nemesis="silver_guard")
        nem = st.nem
        ev = st.public_history()
        i = ev.index((EV_INTENT, nem.pile[0]))
        shown = [e for e in ev if e[0] == EV_NEMESIS_RELIC]
        assert ev[i + 1:i + 1 + len(shown)] == shown and ev[i + 1 + len(shown):] == []
        k = int(diff["relic_reveals"])
        assert [w for _, _, w in shown[:k]] == [1] * k
        found: list[str] = []
        for _, r, w in shown[k:]:
            suit = CARDS.relics[r].suit
            assert w == (2 if not RELIC_DARK[r] and suit not in found else 3)
            found += [suit] if w == 2 else []
        assert len(found) == int(diff["vault_unique_suits"])
        assert [r for _, r, w in shown if w == 2] == [r for r in nem.vault_relics
                                                        if r in {x for _, x, _ in shown}]
        assert [r for _, r, w in shown if w != 2] == nem.revealed
        assert sorted(st.relic_deck[:len(nem.revealed)]) == sorted(nem.revealed)


def _public_place(st: ClandestineState, e: tuple[int, ...]) -> bool:
    """Whether the card a Nemesis event names is where the event says, face up where it stays
    on the table: an Intent card in its top slot or on its pile and seen in every agent seat's
    observation; a tile on its Level slot (face down only once the Nemesis reached that Level)
    and off the board in the observation; a Relic drawn in its known hand, a slot, the discard,
    a tuck or the Vault (the observation shows the first four), one shown at set-up under the
    deck or in the Vault."""
    nem = st.nem
    if e[0] == EV_INTENT:
        return e[1] in (nem.top, nem.pile[-1]) and all(
            _obs_field(st, s, "nemesis_seen")[e[1]] == 1 for s in st.agent_seats)
    if e[0] == EV_NEMESIS_TILE:
        slot = {t: up for t, up in nem.level_slots[e[2] - 2]}
        return e[1] in slot and (slot[e[1]] or st.level[nem.seat] >= e[2]) and all(
            _obs_field(st, s, "tiles_board")[e[1]] == 0 for s in st.agent_seats)
    r, where = e[1], e[2]
    if where == 0:
        shown = [_obs_field(st, s, "known_relics")[nem.seat - s, r]
                 + _obs_field(st, s, "slots")[nem.seat - s, :, r].sum()
                 + _obs_field(st, s, "relic_discard")[r]
                 + _obs_field(st, s, "tucked")[nem.seat - s, r] for s in st.agent_seats]
        return all(x > 0 for x in shown) or r in nem.vault_relics
    return r in nem.revealed if where in (1, 3) else r in nem.vault_relics


def _assert_observation_recalls_the_shown_cards(st: ClandestineState,
                                                events: list[tuple[int, ...]]) -> None:
    """Perfect recall of the cards the Nemesis showed (design §1.5 "Public history": every card
    that became public and where it went), read from every agent seat's observation against the
    public history: ``sg_under`` row 0 the Relics shown at set-up (where 1), row 1 those the
    Vault search showed and did not keep (where 3); ``sg_vault_relics`` the Vault (the set-up
    search's finds, where 2, and the Relics vaulted since); ``nemesis_tiles`` every tile the
    Nemesis took face up (1 while face up, 0.5 once turned over) and its First-to-Level tiles
    (0.5)."""
    nem = st.nem
    shown = {w: [ev[1] for ev in events if ev[0] == EV_NEMESIS_RELIC and ev[2] == w]
             for w in (1, 2, 3)}
    taken = [ev[1] for ev in events if ev[0] == EV_NEMESIS_TILE]
    on_slots = {t: up for slot in nem.level_slots for t, up in slot}
    for s in st.agent_seats:
        under = _obs_field(st, s, "sg_under")
        assert np.flatnonzero(under[0]).tolist() == sorted(shown[1])
        assert np.flatnonzero(under[1]).tolist() == sorted(shown[3])
        vault = np.flatnonzero(_obs_field(st, s, "sg_vault_relics")).tolist()
        assert vault == sorted(nem.vault_relics) and set(shown[2]) <= set(vault)
        tiles = _obs_field(st, s, "nemesis_tiles")
        assert set(taken) <= set(np.flatnonzero(tiles).tolist()) == set(on_slots)
        assert all(tiles[t] == (1.0 if up else 0.5) for t, up in on_slots.items())


@pytest.mark.parametrize("humans", [1, 2])
@pytest.mark.parametrize("nemesis", NEM.NEMESES)
def test_public_history_law_in_random_solo_games(nemesis, humans):
    """Law over 2 random games per Nemesis and human count, through the AEC env with
    ``public_history=True``: after every step every agent's ``infos`` history is the game's
    ``public_history()``, which only grows; each Nemesis event (kinds 4-6, one per Intent card
    flipped, every Intent card seen is named) names a card where the event says, face up where
    it stays (:func:`_public_place`); the last ``map`` event of each Map space names the Relic
    on it (the Nemesis's END refills included). Every 25 steps, ``clone()``, ``copy.deepcopy``, a
    pickle round trip, the replayed record and a resampled world for every agent seat have the
    same public history."""
    import copy
    import pickle

    import envs.clandestine_v0 as CV

    rng = np.random.default_rng(40 + humans)
    kinds = set()
    for g in range(2):
        difficulty = 1 + (3 * g + humans) % 6
        e = CV.raw_env(num_players=humans, nemesis=nemesis, difficulty=difficulty,
                       public_history=True)
        e.reset(seed=int(rng.integers(2**31)))
        st, prev, steps = e.game, [], 0
        while True:
            now = st.public_history()
            assert all(e.infos[a]["public_history"] == now for a in e.agents)
            assert now[:len(prev)] == prev
            for ev in now[len(prev):]:
                assert ev[0] in PUBLIC_EVENTS
                if ev[0] >= EV_INTENT:
                    kinds.add(ev[0])
                    assert _public_place(st, ev), ev
            last = {ev[1]: ev[2] for ev in now if ev[0] == EV_MAP}
            assert all(last[k] == r for k, r in enumerate(st.relic_map) if r >= 0)
            intents = [ev[1] for ev in now if ev[0] == EV_INTENT]
            assert sorted(set(intents)) == [c for c in range(NEM.NUM_INTENTS) if st.nem.seen[c]]
            _assert_observation_recalls_the_shown_cards(st, now)
            if steps % 25 == 0:
                copies = [st.clone(), copy.deepcopy(st), pickle.loads(pickle.dumps(st)),
                          ClandestineState.from_record(st.to_record())]
                copies += [st.resample_from_infostate(s, rng) for s in st.agent_seats]
                for c in copies:
                    assert c.public_history() == now
            _, _, term, trunc, _ = e.last()
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
            if not e.agents:
                break
            prev, steps = now, steps + 1
        assert steps > 50
    assert EV_INTENT in kinds and EV_NEMESIS_TILE in kinds
    if nemesis == "silver_guard":  # its set-up shows Relics
        assert EV_NEMESIS_RELIC in kinds
