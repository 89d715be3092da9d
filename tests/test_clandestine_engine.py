"""Clandestine engine: spec validation, the 401-id action layout, setup values, the phase machine
and the implemented Actions through ``apply_action`` (rulebook examples from design §13), random
games (masks, pawn conservation, records, resampling)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from envs.clandestine import actions as A
from envs.clandestine import ascend as AS
from envs.clandestine import dsl as DSL
from envs.clandestine import ops as OPS
from envs.clandestine import pawns as P
from envs.clandestine import relic_map as RM
from envs.clandestine import scoring as SC
from envs.clandestine import spec as S
from envs.clandestine.city import load_content
from envs.clandestine.engine import END_REASONS, RELIC_IDS, ClandestineState, observation_layout
from envs.core.errors import ConfigError, IllegalActionError, RecordError

C = load_content()
EXAMPLE = ["mariners", "garden", "blue"]  # city.example_3p seats (design §2.5)


def new(seed=0, **kw):
    kw.setdefault("basic_preset", True)
    return ClandestineState(seed=seed, **kw)


def with_side(first_action, **kw):
    """A game whose First Player's path shows ``first_action`` on P0S1 (first seed that does)."""
    for seed in range(100):
        st = new(seed, **kw)
        if st.city.first_action == first_action:
            return st
    raise AssertionError("no seed found")  # pragma: no cover


def act(st, block, index):
    st.apply_action(A.encode(block, index))


def space(st, sid):
    """SPACE-block index of text space ``sid`` for the deciding seat."""
    return A.space_to_index(st.city.space(sid), st.decider, st.num_players)


def clear_pawns(st, *sids):
    for sid in sids:
        st.pawns.counts[st.city.space(sid)] = 0


def set_pawns(st, sid, **counts):
    s = st.city.space(sid)
    for code, k in counts.items():
        st.pawns.counts[s, P.pawn_type(code)] = k


def refresh(st):
    """Recompute the decision after a hand-made change of the position."""
    st._mask = None
    st.kind = None
    st._advance()


# ------------------------------------------------------------------------------ spec
def test_basic_preset_and_flag_defaults_come_from_the_json():
    sp = S.make_spec(3, basic_preset=True)
    assert dict(sp.flags) == C["variants"]["basic_preset"]
    assert sp.num_actions == 401 and sp.max_rounds == 250 and sp.margin_scale == 40.0
    sp2 = S.make_spec(4, basic_preset=True, chaos=False, hand_limits=False)
    assert sp2.flags["chaos"] is False and sp2.flags["hand_limits"] is False
    assert sp2.flags["first_to_level_effects"] is True
    assert pickle.loads(pickle.dumps(sp2)) == sp2 and copy.deepcopy(sp2) is sp2


@pytest.mark.parametrize("kwargs, msg", [
    ({"num_players": 1}, "num_players"),
    ({"num_players": 6}, "num_players"),
    ({"num_players": True}, "num_players"),
    ({"societies": ["mariners", "garden"]}, "expected 3"),
    ({"societies": ["mariners", "mariners", "blue"]}, "once"),
    ({"societies": ["mariners", "garden", "nobody"]}, "not a Society"),
    ({"max_rounds": 0}, "max_rounds"),
    ({"margin_weight": -1.0}, "margin_weight"),
    ({"margin_scale": 0}, "margin_scale"),
    ({"margin_weight": float("inf")}, "finite number >= 0"),
    ({"margin_scale": float("nan")}, "finite number > 0"),
    ({"nemesis": True}, "does not say which Nemesis"),
    ({"chaos": "yes"}, "True or False"),
    ({"nemesis": "most_holy"}, "difficulty"),
    ({"difficulty": 3}, "needs a Nemesis"),
    ({"nemesis": "most_holy", "difficulty": 3, "num_players": 5}, "human seats"),
    ({"nemesis": "most_holy", "difficulty": 3, "ascension_tiles": False}, "ascension_tiles"),

])
def test_config_errors_name_the_keyword(kwargs, msg):
    with pytest.raises(ConfigError, match=msg):
        new(**kwargs)


def test_unknown_keyword_refused_by_from_config():
    with pytest.raises(ConfigError, match="unknown"):
        ClandestineState.from_config(seed=0, basic_preset=True, colour="red")


# ------------------------------------------------------------------------------ actions
def test_action_layout_follows_the_json_blocks():
    assert A.ACTIONS.size == 401 == A.NUM_ACTIONS
    for b in C["decisions"]["action_blocks"]:
        f = A.ACTIONS[b["block"]]
        assert (f.start, f.size) == (b["offset"], b["size"])
    assert A.decode(0) == ("PASS", 0) and A.decode(9 + 45 - 1) == ("SPACE", 44)
    assert A.encode("RELIC", 107) == 211 and A.decode(400) == ("PANEL", 27)
    with pytest.raises(ValueError):
        A.encode("OPT", 8)
    with pytest.raises(ValueError):
        A.decode(401)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_space_ids_are_seat_relative_and_invertible(n):
    for decider in range(n):
        for s in range(9 * n):
            idx = A.space_to_index(s, decider, n)
            assert A.index_to_space(idx, decider, n) == s
            assert A.action_space(A.space_action(s, decider, n), decider, n) == s
        # every seat's own S1 is local 2 at offset 0
        assert A.space_to_index(9 * decider + 2, decider, n) == 2
    with pytest.raises(ValueError):
        A.index_to_space(9 * n, 0, n)


# ------------------------------------------------------------------------------ setup
@pytest.mark.parametrize("socs", [["mariners", "garden", "twilight"], ["serpent", "blue"],
                                  ["blue", "twilight", "serpent", "garden", "mariners"]])
def test_setup_takes_starts_with(socs):
    st = new(3, num_players=len(socs), societies=socs)
    given = 0
    for seat, sid in enumerate(socs):
        sw = C["societies"][sid]["starts_with"]
        assert st.gold[seat] == sw["gold"] and st.energy[seat] == sw.get("energy", 0)
        assert st.chaos[seat] == sw.get("chaos", 0)
        assert len(st.secret_hand[seat]) == sw["secrets"]
        assert len(st.secret_deck[seat]) == 10 - sw["secrets"]
        assert all(C["secrets"][sid][i]["level"] == 1
                   for i in st.secret_hand[seat] + st.secret_deck[seat])
        assert st.secret_draws[seat] == [sw["secrets"], 0, 0, 0]
        assert len(st.relic_hand[seat]) == sw["relics"] and st.relic_known[seat] == []
        given += sw["relics"]
        assert st.level[seat] == 1 and st.intrigue[seat] == 0
    # 13 Map cards, the rest in the deck; all 108 Relics accounted for
    on_map = [r for r in st.relic_map if r >= 0]
    assert len(on_map) == 13 and st.relic_map[13:] == [-1] * 4
    assert len(st.relic_deck) == 108 - 13 - given
    hands = [r for h in st.relic_hand for r in h]
    assert sorted(st.relic_deck + on_map + hands) == list(range(108))
    # pawns: design §2.3 per seat, Blue Army's extra UF on its S1
    n = len(socs)
    blue = int("blue" in socs)
    assert st.pawn_totals().tolist() == [n, 5 * n, 2 * n + blue, 6 * n]  # SL: 2 + 4 cutouts
    assert st.pawns.totals().tolist() == [n, 5 * n, 2 * n + blue, 2 * n] and st.cutouts == [4] * n
    for seat, sid in enumerate(socs):
        s1 = st.city.local_space(seat, "S1")
        assert st.pawns.count(s1, P.UF) == (1 if sid == "blue" else 0)
        assert st.pawns.society_leaders_of(st.city, seat) == 2
    assert st.turn == 0 and st.rounds_done == 0 and st.current_player == 0


def test_setup_chance_goes_through_the_logged_path():
    st = new(11)
    names = [e[0] for e in st.chance_log]
    assert names == ["relic_deck", "societies", "secret_deck", "secret_deck", "secret_deck",
                     "city_side"]
    assert len(set(st.societies)) == 3
    st2 = new(11, societies=list(st.societies))
    assert [e[0] for e in st2.chance_log] == ["relic_deck"] + names[2:]
    # the example's first seat position reproduces city.example_3p's pawns exactly
    ex = with_side("Fundraise", societies=EXAMPLE)
    assert {k: sorted(v) for k, v in ex.pawns.as_lists(ex.city).items()} == \
        {k: sorted(v) for k, v in C["city"]["example_3p"]["pawns"].items()}


def test_example_city_matches_design_when_its_side_is_drawn():
    st = with_side("Fundraise", societies=EXAMPLE)
    ex = C["city"]["example_3p"]
    assert [st.city.space_ids[s] for s in st.city.public_loop] == ex["public_loop"]
    for sp in ex["spaces"]:
        assert st.city.action(sp["id"]) == sp["action"]


# ------------------------------------------------------------------------------ worked examples
def test_mason_fundraise_through_the_engine():
    """Design §13 Mason: Garden Club (seat 1) on P1S2 with its SL, a PL, a PF and a UF."""
    st = with_side("Fundraise", societies=EXAMPLE)
    # play seat 0's turn with its Public Leader on P0S1 (no choices beyond the defaults)
    while st.turn == 0:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    assert st.turn == 1 and st.kind == "window_pre"
    clear_pawns(st, "P1S1", "P1S2", "P1S3", "P1C1", "P1C2", "K2a")
    set_pawns(st, "P1S2", sl=1, pl=1, pf=1, uf=1)
    gold, energy = st.gold[1], st.energy[1]
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    assert st.kind == "select_leader"
    act(st, "SPACE", space(st, "P1S2"))
    assert st.kind == "select_leader"  # both kinds on the space: then the type
    assert set(st.legal_actions()) == {A.encode("PAWN", P.PL), A.encode("PAWN", P.SL)}
    act(st, "PAWN", P.SL)
    assert st.kind == "placement_type" and st.acts[-1].strength == 6
    act(st, "PAWN", P.PF)
    assert st.kind == "uf_route"
    act(st, "OPT", P.UF_FOLLOW)  # the Leaders' paths have parted: their order is not asked
    lists = st.pawns.as_lists(st.city)
    assert lists["P1S3"] == ["pf"] and lists["P1C1"] == ["uf"] and lists["P1C2"] == ["sl1"]
    assert lists["K2a"] == ["pl"] and lists["P1S2"] == []
    assert st.gold[1] == gold + 6
    assert st.phase == "POST"
    act(st, "PASS", 0)  # POST window (Any Time trades are affordable now)
    assert st.energy[1] == energy + 1 and st.turn == 2


def natalie(society="twilight"):
    """Seat 0 in its PRE window with Twilight Masks (C1 = Purge)."""
    st = new(5, num_players=3, societies=[society, "garden", "blue"])
    assert st.turn == 0
    return st


def test_natalie_purge_through_the_engine():
    """Design §13 Natalie's Purge: Strength 6 removes 3 Chaos, then the PF on her Sidewalk goes
    to the first Public space after her S3 and both UFs to her C1."""
    st = natalie()
    assert st.city.action("P0C1") == "Purge"
    clear_pawns(st, "P0S1", "P0S2", "P0S3", "P0C1", "P0C2", "P0C3", "P0C4")
    set_pawns(st, "P0C1", sl=3)
    set_pawns(st, "P0S1", pf=1)
    set_pawns(st, "P0S2", uf=1)
    set_pawns(st, "P0S3", uf=1)
    st.chaos[0] = 5
    k1a = st.pawns.count(st.city.space("K1a"), P.PF)
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    # Public Leader on P0S1 was cleared: only Leaders left are the SLs on C1 and other PLs
    act(st, "SPACE", space(st, "P0C1"))
    assert st.acts[-1].strength == 6 and st.chaos[0] == 2
    lists = st.pawns.as_lists(st.city)
    assert lists["P0C2"] == ["sl0"] and lists["P0C3"] == ["sl0"] and lists["P0C4"] == ["sl0"]
    assert st.kind == "pawn_pick" and st.acts[-1].picks_left == 3
    legal = set(st.legal_actions())
    assert legal == {A.PASS} | {A.encode("SPACE", space(st, s)) for s in ("P0S1", "P0S2", "P0S3")}
    act(st, "SPACE", space(st, "P0S1"))  # the PF: no destination choice
    assert st.pawns.count(st.city.space("K1a"), P.PF) == k1a + 1
    act(st, "SPACE", space(st, "P0S2"))
    assert st.kind == "purge_destination"
    act(st, "OPT", P.PURGE_TO_C1)
    act(st, "SPACE", space(st, "P0S3"))
    act(st, "OPT", P.PURGE_TO_C1)
    assert st.pawns.as_lists(st.city)["P0C1"] == ["uf", "uf"]
    assert st.pawns.counts[list(st.city.sidewalks(0))].sum() == 0
    assert st.phase in ("POST", "END", "PRE") and not st.acts


def test_natalie_regroup_strength_2():
    """Design §13 Natalie's Regroup: Strength 2, the UFs on S2 and S3 move 2 and 1 spaces and
    both end on C1 (an act Regroup started in the PRE window)."""
    st = natalie()
    clear_pawns(st, "P0S1", "P0S2", "P0S3", "P0C1", "P0C3")
    set_pawns(st, "P0S2", uf=1)
    set_pawns(st, "P0S3", uf=1)
    st.start_act("regroup", 2)
    refresh(st)
    assert st.kind == "pawn_pick" and st.acts[-1].picks_left == 2
    act(st, "SPACE", space(st, "P0S2"))
    assert st.kind == "distance"
    assert st.legal_actions() == [A.encode("DIST", d) for d in range(3)]
    act(st, "DIST", 2)
    # the moved pawn (now on C1) cannot be picked again; the S3 one can
    assert set(st.legal_actions()) == {A.PASS, A.encode("SPACE", space(st, "P0S3"))}
    act(st, "SPACE", space(st, "P0S3"))
    act(st, "DIST", 1)
    assert st.pawns.as_lists(st.city)["P0C1"] == ["uf", "uf"]
    assert not st.acts and st.kind == "window_pre"


def test_regroup_leader_ends_the_step_and_public_followers_stay_public():
    st = natalie()
    clear_pawns(st, "P0S1", "P0S2", "P0S3", "P0C1", "P0C2", "P0C3", "P0C4")
    set_pawns(st, "P0S3", pf=1, sl=1)
    set_pawns(st, "P0C2", sl=1)
    st.start_act("regroup", 3)
    refresh(st)
    act(st, "SPACE", space(st, "P0S3"))
    assert set(st.legal_actions()) == {A.encode("PAWN", P.PF), A.encode("PAWN", P.SL)}
    act(st, "PAWN", P.PF)
    act(st, "DIST", 2)  # along the Public path: S3 -> K1a -> K1b
    assert st.pawns.count(st.city.space("K1b"), P.PF) >= 1
    # after a Follower only Followers stay legal: no Follower left -> the step ends
    assert not st.acts
    st.start_act("regroup", 3)
    refresh(st)
    act(st, "SPACE", space(st, "P0C2"))
    act(st, "DIST", 3)  # C2 -> C3 -> C4 -> S1
    assert st.pawns.count(st.city.space("P0S1"), P.SL) == 1 and not st.acts


def test_regroup_trade_through_the_engine():
    """The Regroup panel: 3 Energy -> act Regroup with Strength 1 (design §13 Alchemy effects)."""
    st = natalie()
    st.energy[0] = 3
    refresh(st)
    panel = [p["id"] for p in st.society(0)["panels"]].index("regroup")
    trade = A.encode("TRADE", 3 * panel)
    assert trade in st.legal_actions()
    st.apply_action(trade)
    assert st.energy[0] == 0 and st.panel_tokens[0][panel] == 1
    assert st.kind == "pawn_pick" and st.acts[-1].strength == 1
    act(st, "PASS", 0)
    assert st.kind == "window_pre" and trade not in st.legal_actions()


def test_any_time_trade_and_black_chaos_slots():
    st = natalie()
    st.gold[0] = 6
    refresh(st)
    legal = st.legal_actions()
    assert [a - A.OFFSET["TRADE"] for a in legal if a >= A.OFFSET["TRADE"]] == [0, 1, 2]
    act(st, "TRADE", 2)  # 6 Gold -> 3 Energy
    assert st.gold[0] == 0 and st.energy[0] == 4
    ch = st.society(0)["chaos"]
    st.chaos[0] = ch["slots"] - ch["black_top"] + 1
    refresh(st)
    assert st.legal_trades(0) == []


def hand_relics(st, seat, ids):
    """Give ``seat`` exactly the Relics ``ids`` in hand (swapped with the deck: conserved)."""
    st.relic_deck += st.relic_hand[seat]
    st.relic_hand[seat] = []
    for rid in ids:
        r = RELIC_IDS.index(rid)
        for pile in [st.relic_deck, st.relic_map]:
            if r in pile:
                pile[pile.index(r)] = st.relic_deck.pop() if pile is st.relic_map else -2
        st.relic_deck = [x for x in st.relic_deck if x != -2]
        st.relic_hand[seat].append(r)
    assert st.all_relics() == list(range(108))


def test_assignment_trades_and_dark_slots():
    """Assignment panel (design §13 Alchemy effects): 2 Energy -> a Relic from hand to an empty
    slot, 3 Energy -> to a filled slot (the old Relic returns to hand, face up); Dark Relics only
    in slots 3 and 4 (rulebook "Bright and Dark Relics")."""
    st = new(2, num_players=2, societies=["mariners", "garden"])
    hand_relics(st, 0, ["R001", "R019"])  # R001 bright, R019 dark
    r001, r019 = RELIC_IDS.index("R001"), RELIC_IDS.index("R019")
    st.energy[0] = 5
    refresh(st)
    # a trade is legal when its inputs are payable (design §1.2), even the 'filled' one with no
    # slot filled yet (it would then do nothing: dsl 'assign' does at most one legal pair)
    assert (1, 0) in st.legal_trades(0) and (1, 1) in st.legal_trades(0)
    assert st.assign_pairs(0, "filled") == []
    act(st, "TRADE", 3)
    assert st.kind == "assign" and st.energy[0] == 3
    assert set(st.legal_actions()) == {A.encode("RELIC", r001), A.encode("RELIC", r019)}
    act(st, "RELIC", r019)
    assert st.legal_actions() == [A.encode("SLOT", 2), A.encode("SLOT", 3)]
    act(st, "SLOT", 3)
    assert st.slots[0] == [-1, -1, -1, r019, -1, -1] and st.relic_hand[0] == [r001]
    assert st.kind == "window_pre" and (1, 1) not in st.legal_trades(0)  # one token a panel
    st.panel_tokens[0][1] = 0  # next round's tokens (START retrieves them)
    refresh(st)
    assert (1, 1) in st.legal_trades(0)
    assert st.assign_pairs(0, "filled") == [(r001, 3)]
    act(st, "TRADE", 4)  # 3 Energy: a filled slot; asked even with a single legal pair
    assert st.energy[0] == 0 and st.legal_actions() == [A.encode("RELIC", r001)]
    act(st, "RELIC", r001)
    act(st, "SLOT", 3)
    assert st.kind == "window_pre"
    assert st.slots[0][3] == r001 and st.relic_hand[0] == [r019] == st.relic_known[0]
    assert st.all_relics() == list(range(108))


def test_assign_without_a_legal_pair_is_asked_with_pass_only():
    st = new(2, num_players=2, societies=["mariners", "garden"])
    hand_relics(st, 0, [])
    st.energy[0] = 2
    refresh(st)
    act(st, "TRADE", 3)
    assert st.kind == "assign" and st.legal_actions() == [A.PASS]
    act(st, "PASS", 0)
    assert st.kind == "window_pre" and st.energy[0] == 0 and st.slots[0] == [-1] * 6


def test_initiation_trade_puts_a_new_society_leader():
    """Initiation panel: a Universal Follower on your Society path + 4 Energy -> the leader of
    the lowest cutout replaces it (+1 Chaos on a Sidewalk, the cutout's unlock icon frees a
    token); the Garden Club's cutout 1 has Level gate I and unlocks token 2."""
    st = new(2, num_players=2, societies=["garden", "mariners"])
    st.energy[0] = 4
    refresh(st)
    assert st.tokens_free[0] == 1 and (3, 0) in st.legal_trades(0)
    tot = st.pawn_totals()
    act(st, "TRADE", 9)
    assert st.kind == "pawn_pick" and A.PASS not in st.legal_actions()  # strict
    assert set(st.legal_actions()) == {A.encode("SPACE", space(st, "P0S2")),
                                       A.encode("SPACE", space(st, "P0C3"))}
    chaos = st.chaos[0]
    act(st, "SPACE", space(st, "P0S2"))
    assert st.pawns.count(st.city.space("P0S2"), P.SL) == 1
    assert st.pawns.count(st.city.space("P0S2"), P.UF) == 0
    assert st.chaos[0] == chaos + 1 and st.cutouts[0] == 3 and st.tokens_free[0] == 2
    assert (st.pawn_totals() == tot).all() and st.energy[0] == 0
    # cutout 2 needs Level II: no Initiation at Level I even with Energy and a UF
    st.energy[0] = 4
    refresh(st)
    assert (3, 0) not in st.legal_trades(0)
    # every cutout empty: still offered, gated by the 4th cutout's Level (ruling 13), and the
    # Universal Follower returns to the supply for 4 Intrigue
    st.cutouts[0] = 0
    st.level[0] = 3
    st.panel_tokens[0] = [0] * 7
    assert not st.can_initiate(0)
    st.level[0] = 4
    refresh(st)
    assert st.can_initiate(0) and (3, 0) in st.legal_trades(0)
    intrigue, ufs = st.intrigue[0], st.pawns.totals()[P.UF]
    act(st, "TRADE", 9)  # the only Universal Follower left (on C3): picked at once
    assert st.intrigue[0] == intrigue + 4 and st.pawns.totals()[P.UF] == ufs - 1


def give_secrets(st, seat, ids):
    """``seat``'s Secret hand becomes ``ids`` (Level I, swapped with its deck: conserved)."""
    soc = st.societies[seat]
    idx = [st.secret_id(seat, i) for i in range(31)]
    want = [idx.index(i) for i in ids]
    pool = st.secret_hand[seat] + st.secret_deck[seat]
    st.secret_hand[seat] = list(want)
    st.secret_deck[seat] = [c for c in pool if c not in want]
    assert sorted(st.secret_hand[seat] + st.secret_deck[seat]) == list(range(10)), soc


def secret_action(st, seat, sid):
    return A.encode("SECRET", [st.secret_id(seat, i) for i in range(31)].index(sid))


def test_play_a_secret_once_per_turn():
    st = new(2, num_players=2, societies=["mariners", "garden"])
    give_secrets(st, 0, ["mariners-1-02", "mariners-1-04", "mariners-1-01"])
    refresh(st)
    legal = st.legal_actions()
    # option A of mariners-1-01 (extend) is a society power: not playable
    assert secret_action(st, 0, "mariners-1-01") not in legal
    assert secret_action(st, 0, "mariners-1-02") in legal
    gold = st.gold[0]
    st.apply_action(secret_action(st, 0, "mariners-1-02"))  # option A only: applied at once
    assert st.gold[0] == gold + 2 and st.kind == "window_pre"
    assert [st.secret_id(0, i) for i in st.secret_discard[0]] == ["mariners-1-02"]
    assert not any(A.OFFSET["SECRET"] <= a < A.OFFSET["TRADE"] for a in st.legal_actions())


def test_secret_strength_is_pending_for_the_next_leader_action():
    st = with_side("Fundraise", societies=EXAMPLE)  # P0S1 Fundraise: the Public Leader there
    give_secrets(st, 0, ["mariners-1-09"])
    refresh(st)
    st.apply_action(secret_action(st, 0, "mariners-1-09"))  # strength +2
    assert st.pending_strength[0] == 2
    act(st, "PASS", 0)
    gold = st.gold[0]
    pawn_strength = st.pawns.strength(st.city.space("P0S1"))
    act(st, "SPACE", space(st, "P0S1"))
    while st.kind in ("placement_type", "uf_route"):
        st.apply_action(st.legal_actions()[0])
    assert st.gold[0] == gold + pawn_strength + 2 and st.pending_strength[0] == 0


def test_secret_regroup_and_add_uf_decisions():
    st = new(3, num_players=2, societies=["blue", "garden"])
    give_secrets(st, 0, ["blue-1-02", "blue-1-05"])
    refresh(st)
    st.apply_action(secret_action(st, 0, "blue-1-05"))  # add 1 UF on one of your Sidewalks
    assert st.kind == "effect" and set(st.legal_actions()) == {
        A.encode("SPACE", k) for k in (2, 3, 4)}
    before = st.pawns.count(st.city.space("P0S3"), P.UF)
    act(st, "SPACE", 4)
    assert st.pawns.count(st.city.space("P0S3"), P.UF) == before + 1 and st.uf_added == 1
    assert st.kind == "window_pre" and not st.runners
    st.extra_secrets = 1  # a second Secret this turn (as an extra_secret grant would)
    refresh(st)
    st.apply_action(secret_action(st, 0, "blue-1-02"))  # act Regroup with Strength 2
    assert st.kind == "pawn_pick" and st.acts[-1].name == "regroup"
    assert st.acts[-1].strength == 2 and st.runners and st.runners[-1]["waiting"]
    act(st, "PASS", 0)
    assert not st.acts and not st.runners and st.kind == "window_pre"


def test_secret_move_with_either_direction():
    """blue-1-10 Rally: move a Public Leader 0..2 spaces forward or backward (``dir =
    either``): ``pawn_pick`` then the direction (OPT 0 forward / 1 backward) then DIST."""
    st = new(3, num_players=2, societies=["blue", "garden"])
    give_secrets(st, 0, ["blue-1-10"])
    refresh(st)
    st.apply_action(secret_action(st, 0, "blue-1-10"))
    assert st.kind == "effect" and A.PASS in st.legal_actions()
    src = st.city.space("P1S1")  # the other path's Public Leader (setup)
    assert st.pawns.count(src, P.PL) == 1
    act(st, "SPACE", space(st, "P1S1"))
    assert set(st.legal_actions()) == {A.encode("OPT", 0), A.encode("OPT", 1)}
    act(st, "OPT", 1)
    assert st.legal_actions() == [A.encode("DIST", 1), A.encode("DIST", 2)]
    act(st, "DIST", 2)
    assert st.pawns.count(st.city.space("K1a"), P.PL) == 1 and st.pawns.count(src, P.PL) == 0
    assert not st.runners


def test_extra_action_from_an_effect_uses_a_public_leader_and_resumes():
    """``extra_action`` (design §1.2 Secrets): SELECT_LEADER restricted to Public Leaders, the
    whole Action, then the rest of the effect; the turn stays in its PRE window."""
    st = with_side("Fundraise", societies=EXAMPLE)
    clear_pawns(st, "P0S1")
    set_pawns(st, "P0S1", pl=1, sl=0)
    eff = DSL.compile_effect([{"op": "extra_action", "leader": "public"},
                              {"op": "gain", "res": "gold", "n": 1}], st.cards.dsl, "test")
    entry = {"runner": OPS.EffectRunner(eff, 0, "test"), "base": 0, "waiting": False}
    st.runners.append(entry)
    st._run_effect(entry, None, first=True)
    refresh(st)
    assert st.kind == "select_leader" and st.extra_select
    pl_spaces = {A.encode("SPACE", space(st, st.city.space_ids[s]))
                 for s in np.flatnonzero(st.pawns.counts[:, P.PL])}
    assert set(st.legal_actions()) == pl_spaces  # no Society Leader for an extra Action
    gold = st.gold[0]
    act(st, "SPACE", space(st, "P0S1"))
    while st.kind in ("placement_type", "uf_route"):
        st.apply_action(st.legal_actions()[0])
    assert st.gold[0] == gold + 2 + 1  # Fundraise with the lone Public Leader, then +1 Gold
    assert st.phase == "PRE" and st.kind == "window_pre" and not st.runners


def test_secret_on_each_opponent():
    st = new(4, num_players=3, societies=["twilight", "garden", "blue"])
    give_secrets(st, 0, ["twilight-1-06"])  # each opponent loses 1 Gold
    refresh(st)
    gold = list(st.gold)
    st.apply_action(secret_action(st, 0, "twilight-1-06"))
    assert st.gold == [gold[0], gold[1] - 1, gold[2] - 1]


def test_deep_alchemy_token_repeats_a_trade():
    """Deep Alchemy (rulebook "Deep Alchemy"): a Deep token goes on a panel that already holds a
    token and repeats its trade; never the first trade of a panel; all come back at START."""
    st = new(2, num_players=2, societies=["garden", "mariners"], deep_alchemy=True)
    st.deep_held[0] = 1  # as a deep_alchemy effect would give (from the box of 12)
    assert st.deep_box == 11
    st.gold[0], st.energy[0] = 12, 0
    refresh(st)
    act(st, "TRADE", 0)  # Garden: its only free regular token on Any Time
    assert st.panel_tokens[0][0] == 1 and st.panel_deep[0][0] == 0
    assert [t for t in st.legal_trades(0) if t[0] == 0] == [(0, 0), (0, 1), (0, 2)]  # Deep
    assert all(p == 0 for p, _t in st.legal_trades(0))  # no Deep token on an empty panel
    act(st, "TRADE", 0)
    assert st.panel_deep[0][0] == 1 and st.gold[0] == 6 and st.energy[0] == 2
    assert st.legal_trades(0) == []
    while st.turn == 0:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    while st.turn == 1:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    assert st.panel_tokens[0] == [0] * 7 and st.panel_deep[0] == [0] * 7 and st.deep_held[0] == 1


def test_reveal_and_hand_limit_discards():
    st = new(2, num_players=2, societies=["mariners", "garden"])
    # seat 0 (Mariners) reveals with Strength 8 on its C2 (Reveal): draws 4 Secrets
    clear_pawns(st, "P0C2")
    set_pawns(st, "P0C2", sl=4)
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    act(st, "SPACE", space(st, "P0C2"))
    assert len(st.secret_hand[0]) == 5 and st.secret_draws[0][0] == 5
    if st.kind == "window_post":
        act(st, "PASS", 0)
    # END: Secret maximum 2 at Level I: discard one at a time, 3 times
    discarded = []
    while st.turn == 0:
        assert st.kind == "hand_discard"
        a = st.legal_actions()[0]
        discarded.append(a - A.OFFSET["SECRET"])
        st.apply_action(a)
    assert len(st.secret_hand[0]) == 2 and st.secret_discard[0] == discarded


def test_hand_limits_off_keeps_the_hand():
    st = new(2, num_players=2, societies=["mariners", "garden"], hand_limits=False)
    clear_pawns(st, "P0C2")
    set_pawns(st, "P0C2", sl=4)
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    act(st, "SPACE", space(st, "P0C2"))
    while st.turn == 0:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    assert len(st.secret_hand[0]) == 5


def test_illegal_actions_are_refused_with_reasons():
    st = new(0)
    with pytest.raises(IllegalActionError, match="out of range"):
        st.apply_action(401)
    bad = next(a for a in range(401) if not st.legal_action_mask()[a])
    with pytest.raises(IllegalActionError, match="illegal"):
        st.apply_action(bad)


def place_relic(st, relic_id, map_space):
    """Put Relic ``relic_id`` on ``map_space``, swapping it with the card there (conserved)."""
    r = RELIC_IDS.index(relic_id)
    slot = RM.MAP_INDEX[map_space]
    old = st.relic_map[slot]
    for pile in [st.relic_deck, st.relic_map] + st.relic_hand:
        if r in pile:
            pile[pile.index(r)] = old
            break
    st.relic_map[slot] = r


def discover_seat0(st, strength_pawns):
    """Seat 0 acts with its Public Leader on its Discover Sidewalk holding ``strength_pawns``."""
    sid = next(f"P0S{k}" for k in (1, 2, 3) if st.city.action(f"P0S{k}") == "Discover")
    clear_pawns(st, sid)
    set_pawns(st, sid, **strength_pawns)
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    act(st, "SPACE", space(st, sid))
    while st.kind in ("placement_type", "uf_route"):
        st.apply_action(st.legal_actions()[0])
    return sid


def test_joan_discover_through_the_engine():
    """Design §13 Joan's Discover: Strength 6 buys R055 at R1.0 (1), R088 at R1.1 (2 + 1) and
    R028 at R2.1 (1 + 1); two Routes -> 1 Chaos; the Relics go to hand face up."""
    st = new(3, num_players=3, societies=["garden", "mariners", "blue"])
    for rid, sp in (("R055", "R1.0"), ("R088", "R1.1"), ("R028", "R2.1")):
        place_relic(st, rid, sp)
    chaos, hand = st.chaos[0], list(st.relic_hand[0])
    discover_seat0(st, {"pl": 2, "pf": 2})
    assert st.kind == "discover_pick" and st.acts[-1].purchase.budget == 6
    mask = st.legal_action_mask()
    assert mask[A.PASS] == 1
    for k, c in enumerate(st.acts[-1].purchase.costs):
        assert mask[A.OFFSET["MAP"] + k] == (c is not None and c <= 6)
    for sp in ("R1.0", "R1.1", "R2.1"):
        act(st, "MAP", RM.MAP_INDEX[sp])
    # budget spent: the picks end by themselves
    assert not st.acts and st.chaos[0] == chaos + 1
    got = [RELIC_IDS[r] for r in st.relic_hand[0] if r not in hand]
    assert got == ["R055", "R088", "R028"] and st.relic_known[0] == [RELIC_IDS.index(r)
                                                                      for r in got]
    assert all(st.relic_map[RM.MAP_INDEX[sp]] == -1 for sp in ("R1.0", "R1.1", "R2.1"))
    deck = len(st.relic_deck)
    if st.kind == "window_post":
        act(st, "PASS", 0)
    # END step 1: the Map is full again (R1 and R2 slide down and refill from the deck)
    assert all(r >= 0 for r in st.relic_map[:13]) and len(st.relic_deck) == deck - 3


def test_harbor_choice_and_relic_deck_trigger():
    st = new(6, num_players=3, societies=["garden", "mariners", "blue"])
    harbor = st.relic_map[0]
    discover_seat0(st, {"pl": 1})  # Strength 2: take the Harbor card (cost = its value)
    costs = st.acts[-1].purchase.costs
    if costs[0] > 2:
        pytest.skip("the Harbor card costs more than 2 in this deal")
    act(st, "MAP", 0)
    if st.kind == "discover_pick":
        act(st, "PASS", 0)
    # leave 1 card in the deck: the refill empties it and triggers the end
    st.relic_discard.extend(st.relic_deck[:-1])
    del st.relic_deck[:-1]
    if st.kind == "window_post":
        act(st, "PASS", 0)
    assert st.kind == "target"
    assert st.legal_actions() == [A.encode("ROUTE", k) for k in range(4)]
    row0 = st.relic_map[RM.MAP_INDEX["R3.0"]]
    act(st, "ROUTE", 2)
    assert st.relic_map[0] == row0 != harbor and st.relic_deck == []
    assert st.end_trigger == 0 and st.end_reason == "relic_deck"
    rng = np.random.default_rng(0)
    seen = []
    while not st.is_over:
        if not seen or seen[-1] != st.turn:
            seen.append(st.turn)
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert seen[-2:] == [1, 2] and st.rounds_done == 1


def tam(gold=8, level=1, **kw):
    """Seat 0 (Mariners, C3 = Ascend) holding R037 (2 Sword) and two Level I Sword Secrets,
    acting with Strength 3 (Society Leader + Universal Follower) on its Ascend Chamber."""
    st = new(8, num_players=3, societies=["mariners", "garden", "blue"], **kw)
    place_relic(st, "R037", "R4.2")
    r037 = RELIC_IDS.index("R037")
    st.relic_map[RM.MAP_INDEX["R4.2"]], st.relic_deck[-1] = st.relic_deck[-1], r037
    st.relic_deck, st.relic_hand[0] = st.relic_hand[0] + st.relic_deck[:-1], [r037]
    ids = [c["id"] for c in C["secrets"]["mariners"]]
    sword = [ids.index("mariners-1-04"), ids.index("mariners-1-09")]
    pool = st.secret_hand[0] + st.secret_deck[0]
    st.secret_hand[0] = list(sword)
    st.secret_deck[0] = [c for c in pool if c not in sword]
    st.gold[0], st.level[0] = gold, level
    clear_pawns(st, "P0C3")
    set_pawns(st, "P0C3", sl=1, uf=1)
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    act(st, "SPACE", space(st, "P0C3"))
    return st, r037, sword


def test_tam_ascend_through_the_engine():
    """Design §13 Tam's Ascend: I -> II costs 8 Gold + 4 Suits; R037 (2 Sword) and two Level I
    Sword Secrets pay 4 Sword; with Strength 3 reduce the Gold by 3 OR the Suit cost by 1
    (then R037 + one Secret is the minimal set), not both."""
    st, r037, sword = tam()
    f = st.acts[-1]
    assert st.kind == "ascend_suit" and f.strength == 3 and tuple(f.cost) == (8, 4)
    assert set(st.legal_actions()) == {A.PASS, A.encode("SUIT", 1)}  # only Sword is payable
    act(st, "SUIT", 1)
    assert set(st.legal_actions()) == {A.encode("OPT", 0), A.encode("OPT", 1)}
    act(st, "OPT", 1)  # the Suit cost by floor(3 / 2) = 1
    assert tuple(st.acts[-1].cost) == (8, 3)
    assert set(st.legal_actions()) == {A.encode("RELIC", r037)} | {
        A.encode("SECRET", i) for i in sword}
    act(st, "SECRET", sword[0])
    # a second Secret would make 2 < 3 and then R037 would make the set non-minimal
    assert st.legal_actions() == [A.encode("RELIC", r037)]
    draws = st.secret_draws[0][1]
    act(st, "RELIC", r037)
    assert st.level[0] == 2 and st.gold[0] == 0 and st.tucked[0] == [r037]
    assert st.secret_discard[0] == [sword[0]] and sword[1] in st.secret_hand[0]
    assert st.secret_draws[0][1] == draws + 2 and len(st.secret_hand[0]) == 3
    assert st.ftl[0] == [2] and st.uf_added == 9
    for j in range(3):
        for sw in st.city.sidewalks(j):
            assert st.pawns.count(sw, P.UF) >= 1
    # step 4c, first to Level II with Sword: each other seat, clockwise, performs the Political
    # effect: choose Regroup with Strength = the ascender's Level, or lose 1 Chaos
    assert st.kind == "choose" and st.current_player == 1
    assert st.legal_actions() == [A.encode("OPT", 0), A.encode("OPT", 1)]
    st.chaos[1] = 2
    act(st, "OPT", 1)
    assert st.chaos[1] == 1 and st.kind == "choose" and st.current_player == 2
    act(st, "OPT", 0)
    assert st.acts[-1].name == "regroup" and st.acts[-1].actor == 2
    assert st.acts[-1].strength == 2 and st.current_player == 2 and st.kind == "pawn_pick"
    uf_on_s1 = st.pawns.count(st.city.space("P2S1"), P.UF)
    act(st, "SPACE", space(st, "P2S1"))  # seat-relative: seat 2's own S1
    if st.kind == "pawn_pick":
        act(st, "PAWN", P.UF)
    act(st, "DIST", 2)
    assert st.pawns.count(st.city.space("P2S1"), P.UF) == uf_on_s1 - 1
    if st.kind == "pawn_pick":
        act(st, "PASS", 0)
    # Gaining a Level step 5: a Sword slot of Level <= II, empty-slot resources
    assert st.kind == "board_pick"
    slots = [b["id"] for b in C["ascension"]["board_slots"]]
    legal = [slots[a - A.OFFSET["BOARD"]] for a in st.legal_actions()]
    assert legal == ["AI-Sword-L", "AI-Sword-R", "AII-Sword-L", "AII-Sword-R"]
    reward = C["ascension"]["board_slots"][slots.index("AII-Sword-L")]["empty_reward"]
    before = (st.gold[0], st.energy[0], st.intrigue[0], st.chaos[0])
    act(st, "BOARD", slots.index("AII-Sword-L"))
    after = [st.gold[0], st.energy[0], st.intrigue[0], st.chaos[0]]
    for op in reward:
        k = ("gold", "energy", "intrigue", "chaos").index(op["res"])
        after[k] -= op["n"] if op["op"] == "gain" else -min(op["n"], before[3])
    assert tuple(after) == before and not st.acts and st.current_player == 0
    assert SC.ftl_intrigue(2) in [st.score_categories(0)[7]]


def test_conjunction_claimed_at_level_ii_goal_and_secret():
    """Gaining a Level step 3 (design §1.2, ``procedures.gain_level``): at Level II take a
    Conjunction from the row (``conjunction_pick``), resolve its claim effect, its panel is the
    seat's panel 6; a complete goal puts the Conjunction Secret into the hand (public)."""
    st, r037, sword = tam(conjunctions=True)
    assert len(st.conj_row) == 4 and [e[0] for e in st.chance_log][-1] == "conjunctions"
    act(st, "SUIT", 1)
    act(st, "OPT", 1)
    act(st, "SECRET", sword[0])
    act(st, "RELIC", r037)
    assert st.kind == "conjunction_pick" and st.current_player == 0
    assert st.legal_actions() == [A.encode("OPT", k) for k in range(4)]
    row = list(st.conj_row)
    j = row[2]
    card = C["conjunctions"][j]
    before = (st.gold[0], st.energy[0], st.intrigue[0])
    act(st, "OPT", 2)
    assert st.conj[0] == j and st.conj_row == row[:2] + row[3:]
    claim = card["claim_effect"]
    if len(claim) == 1 and claim[0]["op"] == "gain" and claim[0]["res"] != "chaos":
        k = ("gold", "energy", "intrigue").index(claim[0]["res"])
        assert (st.gold[0], st.energy[0], st.intrigue[0])[k] == before[k] + claim[0]["n"]
    while st.acts:  # suit effects and the board pick
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    # fill the six slots with Relics showing the goal's suits: the Conjunction Secret arrives
    goal = card["goal"]
    bright = {}
    for r in C["relics"]:
        if r["tone"] == "bright":
            bright.setdefault(r["suit"], []).append(r["id"])
    ids = [bright[g].pop() for g in goal]
    assert st.conjunction_matches(0) == 0
    hand_relics(st, 0, ids)
    for k, rid in enumerate(ids[:5]):
        st.assign_relic(0, RELIC_IDS.index(rid), k)
    assert st.conjunction_matches(0) == 5 and 31 not in st.secret_hand[0]
    st.assign_relic(0, RELIC_IDS.index(ids[5]), 5)
    assert st.conjunction_matches(0) == 6 and st.conj_secret[0] and 31 in st.secret_hand[0]
    assert st.score_categories(0)[1] == 12
    assert st.all_relics() == list(range(108))


def test_conjunction_panel_trade_with_a_relic_input():
    """J15's panel (6): discard 1 Relic -> 2 Gold + 1 Energy; the Relic is chosen by the
    ``hand_discard`` decision, then the outputs run through the effect language."""
    st = new(2, num_players=2, societies=["mariners", "garden"], conjunctions=True)
    st.conj[0] = [j["id"] for j in C["conjunctions"]].index("J15")
    hand_relics(st, 0, ["R001", "R002"])
    refresh(st)
    assert (6, 0) in st.legal_trades(0)
    gold, energy = st.gold[0], st.energy[0]
    act(st, "TRADE", 18)
    assert st.kind == "hand_discard" and set(st.legal_actions()) == {
        A.encode("RELIC", RELIC_IDS.index("R001")), A.encode("RELIC", RELIC_IDS.index("R002"))}
    act(st, "RELIC", RELIC_IDS.index("R002"))
    assert st.relic_discard[-1] == RELIC_IDS.index("R002") and st.gold[0] == gold + 2
    assert st.energy[0] == energy + 1 and st.panel_tokens[0][6] == 1
    assert (6, 0) not in st.legal_trades(0) and st.kind == "window_pre"


def relic_game(**kw):
    """Garden Club (C1 Fundraise) at seat 0 with R055, R005, R017, R013 assigned to slots 1,
    2, 3 and 6 (``relic_effects``)."""
    st = new(2, num_players=2, societies=["garden", "mariners"], relic_effects=True, **kw)
    hand_relics(st, 0, ["R055", "R005", "R017", "R013"])
    for k, rid in zip((0, 1, 2, 5), ("R055", "R005", "R017", "R013")):
        st.assign_relic(0, RELIC_IDS.index(rid), k)
    refresh(st)
    return st


@pytest.mark.parametrize("now", [True, False])
def test_relic_plus_either_now_or_after(now):
    """R055 Ruby Toad (design §13): '+ (either)': gain 2 Gold each time its Chamber is used,
    before the formula (step 4) or after it (step 7), the actor's ``either_timing`` choice."""
    st = relic_game()
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    gold = st.gold[0]
    act(st, "SPACE", space(st, "P0C1"))  # the Society Leader on C1 (Fundraise), Strength 2
    assert st.kind == "either_timing" and st.legal_actions() == [A.encode("OPT", 0),
                                                                 A.encode("OPT", 1)]
    act(st, "OPT", 0 if now else 1)
    assert st.gold[0] == gold + 2 + 2 and not st.acts


def test_relic_eye_trigger_flag_and_mod():
    st = relic_game()
    # R005: eye, before a Regroup: +1 Strength (an act Regroup of Strength 2 becomes 3)
    st.start_act("regroup", 2)
    refresh(st)
    assert st.acts[-1].strength == 3 and st.kind == "pawn_pick"
    act(st, "PASS", 0)
    # R017: flag, 4 Intrigue at the end (category 3)
    assert st.score_categories(0)[2] == 4 and st.flag_intrigue(0) == 4
    # R013: eye mod leader_energy -1: the Initiation trade costs 3 Energy
    st.energy[0] = 3
    refresh(st)
    assert st.relic_mods(0) == {"leader_energy": -1}
    assert (3, 0) in st.legal_trades(0)
    act(st, "TRADE", 9)
    act(st, "SPACE", space(st, "P0S2"))
    assert st.energy[0] == 0 and st.cutouts[0] == 3


def test_finite_universal_followers():
    """``finite_pawns``: 55 Universal Followers; a First-to-Level wave places as many as the
    supply allows, clockwise from the ascender's left (ruling 'Finite Universal Followers')."""
    st = new(2, num_players=3, societies=["garden", "mariners", "blue"], finite_pawns=True)
    in_play = int(st.pawns.totals()[P.UF])
    assert st.uf_supply() == 55 - in_play
    st.pawns.counts[st.city.space("P0C4"), P.UF] += st.uf_supply() - 2  # 2 left
    st.uf_added += 55 - in_play - 2
    assert st.uf_supply() == 2
    st.level[0] = 1
    st.gain_level(0)
    effects = st.gain_level_rest(0, "Rod")
    assert st.uf_supply() == 0 and [e[0] for e in effects] == [1, 2]
    assert st.pawns.count(st.city.space("P1S1"), P.UF) == 1
    assert st.pawns.count(st.city.space("P1S2"), P.UF) == 2  # its setup one + 1
    assert st.pawns.count(st.city.space("P1S3"), P.UF) == 0
    unlimited = new(2, num_players=3, societies=["garden", "mariners", "blue"])
    assert unlimited.uf_supply() is None


def test_resample_while_a_shown_secret_waits_for_its_option():
    """The SECRET action shows the card: a resample keeps it in the player's hand."""
    st = new(3, num_players=3, secret_options_b=True)
    rng = np.random.default_rng(3)
    seen = 0
    while not st.is_over and seen < 3:
        if st.kind == "secret_option":
            seen += 1
            other = (st.current_player + 1) % 3
            r = st.resample_from_infostate(other, rng)
            assert st.playing in r.secret_hand[st.current_player] and r.kind == "secret_option"
            assert np.array_equal(r.observation_tensor(other), st.observation_tensor(other))
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert seen == 3


def test_ascension_tiles_starting_flip_board_and_flag():
    """``ascension_tiles``: Starting tiles at setup, board tiles on their start slots; a hood
    tile flips once in the PRE window (its effect at once); Gaining a Level step 5 takes the
    slot's tile; flag tiles score (category 8), eye tiles' mods apply while held."""
    st, r037, sword = tam(ascension_tiles=True)
    tiles = C["ascension"]["tiles"]
    ids = [t["id"] for t in tiles]
    assert [ids[t] for t in st.tiles[0]] == ["T-START-mariners-1", "T-START-mariners-2"]
    assert sum(t >= 0 for t in st.board_tile) == 36
    assert st.relic_mods(0) == {"relic_hand": 1}  # Ship's Manifest: Relic hand +1
    act(st, "SUIT", 1)
    act(st, "OPT", 1)
    act(st, "SECRET", sword[0])
    act(st, "RELIC", r037)
    while st.kind == "choose":
        act(st, "OPT", 1)
    slots = [b["id"] for b in C["ascension"]["board_slots"]]
    k = slots.index("AI-Sword-L")
    tile = st.board_tile[k]
    assert ids[tile] == "T-I-Sword-L"  # Second Thoughts (hood: an extra Secret)
    act(st, "BOARD", k)
    assert tile in st.tiles[0] and st.board_tile[k] == -1
    # next turn of seat 0: flip it in the PRE window
    while not (st.turn == 0 and st.phase == "PRE" and st.kind == "window_pre"):
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    assert A.encode("TILE", tile) in st.legal_actions()
    act(st, "TILE", tile)
    assert st.extra_secrets == 1 and st.tiles_spent[0] == [tile]
    assert A.encode("TILE", tile) not in st.legal_actions()
    # a flag tile held scores
    minor = ids.index("T-I-Chalice-L")  # Minor Omen: 2 Intrigue
    before = st.score_categories(0)[7]
    st.tiles[0].append(minor)
    assert st.score_categories(0)[7] == before + 2


def powers_game(**kw):
    return new(4, num_players=2, societies=["blue", "mariners"], society_powers=True,
                map_extension=True, **kw)


def test_blue_army_revolt_and_extra_action():
    """Revolt (``societies.blue.abilities.revolt``): EITHER one Public Leader OR up to X
    Followers on Public-path spaces move 0..X forward; 1 Chaos; then an extra Action with a
    Public Leader (step 8), the phase staying ACTION."""
    st = powers_game()
    assert st.city.action("P0C1") == "Revolt"
    clear_pawns(st, "P0C1")
    set_pawns(st, "P0C1", sl=1)
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    chaos = st.chaos[0]
    act(st, "SPACE", space(st, "P0C1"))  # Strength 2
    f = st.acts[-1]
    assert f.name == "revolt" and st.kind == "pawn_pick" and f.picks_left == 2
    src = st.city.space("P1S1")
    act(st, "SPACE", space(st, "P1S1"))
    assert set(st.legal_actions()) == {A.encode("PAWN", P.PL), A.encode("PAWN", P.PF)}
    act(st, "PAWN", P.PL)
    assert st.legal_actions() == [A.encode("DIST", d) for d in range(3)]
    act(st, "DIST", 2)  # P1S1 -> P1S2 -> P1S3; a Leader ends the step
    assert st.pawns.count(st.city.space("P1S3"), P.PL) == 1 and st.pawns.count(src, P.PL) == 0
    assert st.chaos[0] == chaos + 1 and st.kind == "select_leader" and st.extra_select
    assert all(A.decode(a).block == "SPACE" for a in st.legal_actions())
    gold = st.gold[0]
    act(st, "SPACE", space(st, "P1S3"))  # Fundraise with that Public Leader (2) + the PF
    while st.kind in ("placement_type", "uf_route"):
        st.apply_action(st.legal_actions()[0])
    assert st.gold[0] == gold + 3 and not st.acts and st.phase == "POST"


def test_mariners_charter_extension_and_port_dues():
    """Mariners' Union: Charter (2 Energy -> extend: the deck's top Relic into an Extension
    slot), Extension pricing (value - 1 for the Mariners, + 3 for others), port dues (1 Gold
    whenever anybody Discovers, + 1 Energy when an Extension Relic was taken)."""
    st = powers_game()
    while st.turn != 1:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    st.energy[1] = 2
    refresh(st)
    panel = [p["id"] for p in st.society(1)["panels"]].index("charter")
    top = st.relic_deck[-1]
    act(st, "TRADE", 3 * panel)
    assert st.kind == "effect" and set(st.legal_actions()) == {
        A.encode("MAP", RM.MAP_INDEX[e]) for e in ("E1", "E2", "E3", "E4")}
    act(st, "MAP", RM.MAP_INDEX["E2"])
    assert st.relic_map[RM.MAP_INDEX["E2"]] == top and st.energy[1] == 0
    value = C["relics"][top]["value"]
    mine = RM.map_costs(st.map_state(), {r["id"]: r["value"] for r in C["relics"]},
                        buyer_mariners=True)[RM.MAP_INDEX["E2"]]
    theirs = RM.map_costs(st.map_state(), {r["id"]: r["value"] for r in C["relics"]}
                          )[RM.MAP_INDEX["E2"]]
    assert (mine, theirs) == (max(0, value - 1), value + 3)
    # seat 0 (Blue) Discovers: the Mariners collect port dues
    while st.turn != 0:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    gold = st.gold[1]
    discover_seat0(st, {"pl": 1})
    while st.acts:
        act(st, "PASS", 0)
    assert st.gold[1] == gold + 1


def test_garden_club_investments_and_payouts():
    """Garden Club (``societies.garden``): Endowment (1 Energy -> invest 1 of your Gold on a City
    space or a Route: ``target`` over SPACE and ROUTE), space payout when anybody acts there,
    Route payout once per Discover that takes a Relic from it (step 9)."""
    st = new(4, num_players=2, societies=["garden", "blue"], society_powers=True)
    st.energy[0], st.gold[0] = 2, 5
    refresh(st)
    panel = [p["id"] for p in st.society(0)["panels"]].index("endowment")
    act(st, "TRADE", 3 * panel)
    legal = set(st.legal_actions())
    assert {A.encode("ROUTE", k) for k in range(4)} <= legal
    assert A.encode("SPACE", space(st, "K1a")) in legal
    act(st, "SPACE", space(st, "K1a"))
    assert st.invest_space[st.city.space("K1a")] == 1 and st.gold[0] == 4
    # next round's token: invest on Route R1 too
    st.panel_tokens[0] = [0] * 7
    refresh(st)
    act(st, "TRADE", 3 * panel)
    act(st, "ROUTE", 0)
    assert st.invest_route == [1, 0, 0, 0]
    assert st.score_categories(0)[0] == 1
    # the Blue Army (seat 1) Discovers from R1: the Garden Club is paid 1 Gold
    while st.turn != 1:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    gold = st.gold[0]
    sid = next(f"P1S{k}" for k in (1, 2, 3) if st.city.action(f"P1S{k}") == "Discover")
    clear_pawns(st, sid)
    set_pawns(st, sid, pl=3)
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    act(st, "SPACE", space(st, sid))
    act(st, "MAP", RM.MAP_INDEX["R1.0"])
    while st.acts:
        act(st, "PASS", 0)
    assert st.gold[0] == gold + 1


def test_twilight_masks_chaos_on_spaces_relics_and_panels():
    """Twilight Masks (``societies.twilight``): Terror places supply Chaos on a space or a Map
    Relic (``target``: SPACE / MAP); a space's Chaos gives the Masks +X Strength and others -X,
    then moves to the actor's meter; a Relic's Chaos changes its cost by X and goes to the
    acquirer; panel Chaos (PANEL block) blocks that panel until its owner's Purge removes it
    first; the Masks score 3 Intrigue per 2 Chaos they purge."""
    st = new(5, num_players=2, societies=["twilight", "garden"], society_powers=True)
    st.energy[0] = 1
    refresh(st)
    panel = [p["id"] for p in st.society(0)["panels"]].index("terror")
    act(st, "TRADE", 3 * panel)
    legal = set(st.legal_actions())
    assert A.encode("SPACE", space(st, "P1S1")) in legal and A.encode("MAP", 0) in legal
    act(st, "SPACE", space(st, "P1S1"))
    assert st.masks_space[st.city.space("P1S1")] == 1
    # Garden (seat 1) acts on P1S1 with its Public Leader: Strength -1, 1 Chaos to it
    while st.turn != 1:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    pawn_strength = st.pawns.strength(st.city.space("P1S1"))
    chaos, gold = st.chaos[1], st.gold[1]
    act(st, "SPACE", space(st, "P1S1"))
    if st.acts:  # a Discover waits for its picks
        assert st.acts[-1].strength == pawn_strength - 1
    else:
        assert st.city.action("P1S1") == "Fundraise"
        assert st.gold[1] == gold + pawn_strength - 1
    assert st.chaos[1] == chaos + 1
    assert st.masks_space[st.city.space("P1S1")] == 0
    # a panel of the Garden Club blocked by Masks' Chaos, removed first by its Purge
    st.masks_panel[1][0] = 1
    assert all(p != 0 for p, _t in st.legal_trades(1))
    st.chaos[1] = 2
    st.lose_chaos_purge(1, 2)
    assert st.masks_panel[1][0] == 0 and st.chaos[1] == 1 and st.purged[1] == 0
    st.chaos[0] = 5
    st.lose_chaos_purge(0, 4)
    assert st.purged[0] == 4 and st.score_categories(0)[9] == 6
    # Relic Chaos: costs the Masks X less, others X more; the acquirer takes the Chaos
    r = st.relic_map[0]
    st.masks_relic[r] = 2
    values = {x["id"]: x["value"] for x in C["relics"]}
    chaos_map = {RELIC_IDS[r]: 2}
    base = RM.map_costs(st.map_state(), values)[0]
    assert RM.map_costs(st.map_state(), values, masks_chaos=chaos_map, buyer_masks=True)[0] \
        == max(0, base - 2)
    assert RM.map_costs(st.map_state(), values, masks_chaos=chaos_map)[0] == base + 2


def test_serpent_keepers_initiate_prime_and_trap():
    """Serpent Keepers (``societies.serpent``): Cult panel: Initiate a space (Intrigue marker,
    ``target``), prime a Secret face down by an Initiated space (``prime``: SECRET then SPACE;
    at most Level Secrets per space); when another player uses the space, step 2 flips it:
    'rival' for the actor, then 'reward' for the Keepers; the card goes face up."""
    st = new(6, num_players=2, societies=["serpent", "garden"], society_powers=True)
    give_secrets(st, 0, ["serpent-1-10"])  # trap_* line of a Level I Secret
    st.energy[0] = 3
    refresh(st)
    panel = [p["id"] for p in st.society(0)["panels"]].index("cult")
    act(st, "TRADE", 3 * panel)  # 1 Energy: Initiate
    target = st.city.space("P1S1")
    assert A.encode("SPACE", space(st, "P1S1")) in st.legal_actions()
    assert A.encode("SPACE", space(st, "P1C1")) not in st.legal_actions()  # others' Chambers
    act(st, "SPACE", space(st, "P1S1"))
    assert st.initiated[target]
    st.panel_tokens[0][panel] = 0  # the next round's token
    refresh(st)
    act(st, "TRADE", 3 * panel + 1)  # 2 Energy: prime
    card = st.secret_index(0, "serpent-1-10")
    assert A.encode("SECRET", card) in st.legal_actions() and A.PASS in st.legal_actions()
    act(st, "SECRET", card)
    if st.kind == "effect":
        act(st, "SPACE", space(st, "P1S1"))
    assert st.primed == {target: [card]} and card not in st.secret_hand[0]
    trap = st.cards.secrets["serpent"][card].trap
    # the Garden Club (seat 1) acts with the Public Leader on P1S1: the trap flips
    while st.turn != 1:
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    refresh(st)
    if st.kind == "window_pre":
        act(st, "PASS", 0)
    before = (st.gold[:], st.chaos[:], st.intrigue[:])
    act(st, "SPACE", space(st, "P1S1"))
    while st.kind == "effect" or st.kind in ("placement_type", "uf_route"):
        st.apply_action(st.legal_actions()[0])
    assert st.primed == {} and card in st.secret_discard[0]
    ops = [op.name for op in trap.rival] + [op.name for op in trap.reward]
    assert ops  # the trap's lines ran (their effects are the op tests' business)
    assert (st.gold[:], st.chaos[:], st.intrigue[:]) != before or "strength" in ops


def test_resample_hides_primed_identities_and_shown_assign_relics():
    primed_seen = assign_seen = 0
    for seed in range(12):
        if primed_seen >= 3 and assign_seen >= 3:
            break
        st = new(seed, num_players=3, societies=["serpent", "mariners", "garden"],
                 society_powers=True, offturn_alchemy=True)
        rng = np.random.default_rng(seed)
        while not st.is_over:
            if st.primed and st.current_player != 0 and primed_seen < 3:
                primed_seen += 1
                r = st.resample_from_infostate(st.current_player, rng)
                assert {k: len(v) for k, v in r.primed.items()} == \
                    {k: len(v) for k, v in st.primed.items()}
                assert np.array_equal(r.observation_tensor(st.current_player),
                                      st.observation_tensor(st.current_player))
            if st.assigning is not None and st.assigning[1] >= 0 and assign_seen < 3 \
                    and st.assigning[1] not in st.relic_known[st.current_player]:  # blind
                assign_seen += 1
                other = (st.current_player + 1) % 3
                r = st.resample_from_infostate(other, rng)
                assert st.assigning[1] in r.relic_hand[st.current_player]
            st.apply_action(int(rng.choice(st.legal_actions())))
    assert primed_seen and assign_seen


def test_military_sweep():
    """``military_sweep``: Followers on Public spaces without a Public Leader move forward to the
    next Public space holding one; Chambers and Society Leaders stay."""
    st = new(1, num_players=2, societies=["garden", "blue"])
    st.pawns.counts[:] = 0
    set_pawns(st, "K0a", pf=1, uf=2)
    set_pawns(st, "P0S2", pl=1, pf=1)
    set_pawns(st, "P0S3", uf=1, sl=1)
    set_pawns(st, "P0C1", uf=1)
    set_pawns(st, "K1b", pl=1)
    set_pawns(st, "P1S3", pf=2)
    st.military_sweep()
    lists = {k: sorted(v) for k, v in st.pawns.as_lists(st.city).items() if v}
    # the loop is K0a K0b P0S1 P0S2 P0S3 K1a K1b P1S1 P1S2 P1S3: P1S3's and K0a's Followers
    # go round to P0S2, P0S3's Universal Follower to K1b
    assert lists == {"P0S2": ["pf"] * 4 + ["pl", "uf", "uf"], "P0S3": ["sl0"],
                     "P0C1": ["uf"], "K1b": ["pl", "uf"]}
    before = st.pawns.counts.copy()
    st.military_sweep()
    assert np.array_equal(st.pawns.counts, before)


def test_ascend_reducing_gold_needs_all_three_cards():
    st, r037, sword = tam()
    act(st, "SUIT", 1)
    act(st, "OPT", 0)  # Gold 8 - 3 = 5, Suits 4: R037 + both Secrets
    act(st, "RELIC", r037)
    act(st, "SECRET", sword[0])
    assert st.legal_actions() == [A.encode("SECRET", sword[1])]  # asked though single
    act(st, "SECRET", sword[1])
    assert st.gold[0] == 3 and st.level[0] == 2


def test_ascend_decline_and_unpayable_are_still_asked():
    st, r037, _sword = tam(gold=4)  # 4 Gold < 8 - 3: only the Suit reduction... not payable
    assert st.kind == "ascend_suit" and st.legal_actions() == [A.PASS]
    act(st, "PASS", 0)
    assert st.level[0] == 1 and not st.acts and st.relic_hand[0] == [r037]


def test_reaching_level_v_triggers_the_end():
    st, _r037, _sword = tam(gold=30, level=4)
    f = st.acts[-1]
    dial = C["societies"]["mariners"]["dial"][3]
    assert tuple(f.cost) == (dial["next_gold"], dial["next_suits"]) == (17, 7)
    assert st.legal_actions() == [A.PASS]  # 4 Sword icons cannot pay 7 - 1
    f.cost = AS.AscendCost(17, 4)  # hand-made: an eye mod of -3 Suits (not in play yet)
    st._mask = None
    act(st, "SUIT", 1)
    act(st, "OPT", 1)
    while st.kind == "ascend_card":
        st.apply_action(st.legal_actions()[0])
    assert st.level[0] == 5 and st.end_trigger == 0 and st.end_reason == "level_v"
    assert sum(st.secret_draws[0][1:]) == 0  # no Secrets at Level V


def test_react_and_final_windows():
    """``offturn_alchemy`` (design §1.2, ruling 37): after every END each seat clockwise from
    the left of the seat whose turn ended (that seat last) gets a REACT window if it has a legal
    any-timing trade; before scoring every such seat gets one FINAL window."""
    st = new(5, num_players=2, societies=["mariners", "garden"], offturn_alchemy=True,
             max_rounds=1)
    while st.phase != "POST":
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    st.gold[:] = [3, 3]
    st.energy[:] = [0, 0]
    refresh(st)
    act(st, "PASS", 0)  # POST done: END, then REACT from seat 1
    assert st.phase == "REACT" and st.current_player == 1 and st.kind == "window_react"
    assert set(st.legal_actions()) == {A.PASS, A.encode("TRADE", 0)}
    act(st, "TRADE", 0)  # 3 Gold -> 1 Energy on seat 1's Any Time panel
    assert st.gold[1] == 0 and st.energy[1] == 1 and st.panel_tokens[1][0] == 1
    # no legal trade left for seat 1: its window closes; seat 0 (energy 1 after END) is last
    assert st.current_player == 0 and st.kind == "window_react"
    act(st, "PASS", 0)
    assert st.turn == 1 and st.phase == "PRE" and st.panel_tokens[1] == [0] * 7  # START
    while st.phase != "POST":
        legal = st.legal_actions()
        st.apply_action(A.PASS if A.PASS in legal else legal[0])
    # the round limit (1 round): REACT (both seats pass), then FINAL (both trade), then scoring
    st.gold[:] = [3, 3]
    st.energy[:] = [0, 0]
    refresh(st)
    act(st, "PASS", 0)  # seat 1's POST
    order = []
    while not st.is_over:
        order.append((st.phase, st.current_player))
        legal = st.legal_actions()
        if st.phase == "FINAL" and A.encode("TRADE", 0) in legal:
            act(st, "TRADE", 0)
        else:
            act(st, "PASS", 0)
    assert order == [("REACT", 0), ("REACT", 1), ("FINAL", 0), ("FINAL", 1)]
    assert st.end_reason == "round_limit" and st.energy == [1, 2]  # seat 1: +1 at its END


# ------------------------------------------------------------------------------ the end
def test_round_limit_ends_and_scores():
    st = new(4, num_players=3, max_rounds=2)
    rng = np.random.default_rng(0)
    turns = []
    while not st.is_over:
        if not turns or turns[-1] != st.turn:
            turns.append(st.turn)
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert turns == [0, 1, 2, 0, 1, 2] and st.rounds_done == 2
    assert st.end_reason == "round_limit" and st.current_player is None
    assert st.legal_action_mask().sum() == 0
    r = st.returns()
    w = st.winners()
    assert all(r[s] == (1.0 if s in w else -1.0) for s in range(3))
    for s in range(3):
        cats = st.score_categories(s)
        assert cats[0] == 1 and cats[5] == 3 * st.pawns.society_leaders_of(st.city, s)
        assert sum(cats) == st.final_scores()[s]
    with pytest.raises(IllegalActionError, match="over"):
        st.apply_action(0)


def test_end_trigger_gives_every_other_seat_a_final_turn():
    st = new(4, num_players=3, max_rounds=40)
    rng = np.random.default_rng(1)
    while st.turn != 1:
        st.apply_action(int(rng.choice(st.legal_actions())))
    st.record_trigger("relic_deck")
    seen = []
    while not st.is_over:
        if not seen or seen[-1] != st.turn:
            seen.append(st.turn)
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert seen == [1, 2, 0] and st.end_reason == "relic_deck"


def test_margin_term_in_returns():
    st = new(4, num_players=2, max_rounds=1, margin_weight=0.5, margin_scale=10)
    rng = np.random.default_rng(2)
    while not st.is_over:
        st.apply_action(int(rng.choice(st.legal_actions())))
    sc = st.final_scores()
    w = st.winners()
    for s in range(2):
        m = np.clip((sc[s] - sc[1 - s]) / 10, -1, 1)
        assert st.returns()[s] == pytest.approx((1 if s in w else -1) + 0.5 * m)


# ------------------------------------------------------------------------------ random games
def play_random(seed, n, check_every=0, **kw):
    st = new(seed, num_players=n, **kw)
    tot = st.pawn_totals()
    rng = np.random.default_rng(seed)
    size = observation_layout(n).size
    k = 0
    while not st.is_over:
        mask = st.legal_action_mask()
        assert mask.dtype == np.int8 and mask.sum() > 0, (st.phase, st.kind)
        if st.current_player != st.turn:  # suit effects, off-turn windows: the seat concerned
            assert st.kind == "choose" or st.phase in ("REACT", "FINAL") or \
                st.acts[-1].actor == st.current_player != st.turn
        st.apply_action(int(rng.choice(np.flatnonzero(mask))))
        k += 1
        assert (st.pawn_totals() == tot).all()
        assert not st.pawns.violations(st.city)
        if check_every and k % check_every == 0:
            obs = st.observation_tensor(k % n)
            assert obs.shape == (size,) and obs.dtype == np.float32
    assert st.end_reason in ("round_limit", "relic_deck", "level_v")
    if st.end_reason == "round_limit":
        assert st.rounds_done == st.spec.max_rounds
    elif st.end_reason == "relic_deck":
        assert st.relic_deck == []
    else:
        assert max(st.level) == 5
    assert st.all_relics() == list(range(108))
    primed = [c for cards in st.primed.values() for c in cards]
    soc_total = [sorted(c for c in st.secret_hand[j] + st.secret_deck[j] + st.secret_discard[j]
                        + (primed if st.societies[j] == "serpent" else []) if c != 31)
                 for j in range(n)]
    for j in range(n):
        levels = [c["level"] for c in C["secrets"][st.societies[j]]]
        assert soc_total[j] == [i for i, lv in enumerate(levels) if lv <= min(st.level[j], 4)]
    return st


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_play_to_the_end(n):
    for seed in range(3):
        play_random(100 * n + seed, n, check_every=37)


@pytest.mark.parametrize("kw", [{"secret_options_b": True}, {"chaos": False, "hand_limits": False},
                                {"offturn_alchemy": True},
                                {"conjunctions": True, "offturn_alchemy": True,
                                     "deep_alchemy": True, "secret_options_b": True,
                                     "relic_effects": True, "finite_pawns": True,
                                     "map_extension": True, "ascension_tiles": True}])
def test_random_games_with_other_flags(kw):
    for n in (2, 3, 4, 5):
        play_random(500 + n, n, check_every=53, **kw)


def test_default_configuration_plays_the_full_game():
    """With every flag at its default (all but the Nemesis) random games reach the end."""
    for n in (2, 3, 4, 5):
        st = ClandestineState(seed=70 + n, num_players=n)
        assert st.spec.flags["society_powers"] and st.spec.flags["offturn_alchemy"]
        rng = np.random.default_rng(n)
        tot = st.pawn_totals()
        while not st.is_over:
            mask = st.legal_action_mask()
            assert mask.sum() > 0
            st.apply_action(int(rng.choice(np.flatnonzero(mask))))
            assert (st.pawn_totals() == tot).all()
        assert st.all_relics() == list(range(108)) and st.end_reason in END_REASONS


def test_random_games_with_society_powers():
    for seed, socs in ((1, ["mariners", "blue"]), (2, ["blue", "twilight", "garden"]),
                       (3, ["garden", "mariners", "twilight", "blue"]),
                       (4, ["serpent", "twilight", "garden", "blue", "mariners"])):
        play_random(seed, len(socs), check_every=41, societies=socs, society_powers=True,
                    map_extension=True, relic_effects=True, offturn_alchemy=True)


def check_placement_choices_matter(st, rng, steps):
    """Play ``steps`` random legal actions on ``st``; at every ``placement_type`` decision each
    option, applied to a clone, gives the decider another observation (a question whose
    answers leave the game alike is not asked). Returns how many decisions were checked."""
    checked = 0
    for _ in range(steps):
        if st.is_over:
            break
        legal = st.legal_actions()
        if st.kind == "placement_type":
            seat, seen = st.current_player, []
            for a in legal:
                c = st.clone()
                c.apply_action(a)
                seen.append(c.observation_tensor(seat).tobytes())
            assert len(set(seen)) == len(legal), \
                [st.action_to_string(a) for a in legal]
            checked += 1
        st.apply_action(int(rng.choice(legal)))
    return checked


def test_placement_type_is_asked_only_where_the_order_matters():
    """Reported position: 3 players, ``reset(seed=100)``, random legal moves from
    ``default_rng(0)``; after 188 of them seat 2 Discovers with a Public Leader on P2S1, its
    Followers take P2S2 and P2S3, and it was asked ``pl`` or ``sl`` for its Leaders although
    either order puts the Public Leader on K0a and the Society Leader on P2C1. Now every
    ``placement_type`` question of that game and of 6 more (2-5 players, default and
    ``basic_preset``) has answers the decider tells apart."""
    import envs

    e = envs.make_raw_env("clandestine", num_players=3)
    e.reset(seed=100)
    assert check_placement_choices_matter(e.unwrapped.game, np.random.default_rng(0), 240) > 5
    checked = 0
    for g in range(6):
        st = new(g, num_players=2 + g % 4, basic_preset=bool(g % 2))
        checked += check_placement_choices_matter(st, np.random.default_rng(g), 600)
    assert checked > 20


@pytest.mark.slow
def test_200_random_games_without_error():
    """200 seeded random games, 2-5 players, ``basic_preset`` and the default configuration
    alternately: no error, masks never empty, pawns and Relics conserved."""
    for g in range(200):
        play_random(g, 2 + g % 4, basic_preset=bool(g % 2))


def test_records_replay_exactly_and_copies_behave_alike():
    for n in (2, 5):
        st = new(n, num_players=n)
        rng = np.random.default_rng(n)
        mid = None
        while not st.is_over:
            st.apply_action(int(rng.choice(st.legal_actions())))
            if len(st.history) == 150:
                mid = st.to_record()
                twin = pickle.loads(pickle.dumps(st))
                clone = st.clone()
        rec = st.to_record()
        again = ClandestineState.from_record(rec)
        assert again.history == st.history and again.chance_log == st.chance_log
        assert np.array_equal(again.final_scores(), st.final_scores())
        no_chance = ClandestineState.from_record({k: v for k, v in rec.items() if k != "chance"})
        for s in range(n):
            assert np.array_equal(no_chance.observation_tensor(s), st.observation_tensor(s))
        half = ClandestineState.from_record(mid)
        for other in (twin, clone):
            for s in range(n):
                assert np.array_equal(other.observation_tensor(s), half.observation_tensor(s))
            for a in rec["actions"][150:]:
                other.apply_action(a)
            assert other.is_over and np.array_equal(other.returns(), st.returns())
    bad = dict(rec, returns=[9.0] * len(rec["returns"]))
    with pytest.raises(RecordError):
        ClandestineState.from_record(bad)


def test_copies_mid_effect_behave_alike():
    """Pickles and deep copies taken while an effect or an Action is paused continue exactly
    like the original (all supported flags on)."""
    st = new(12, num_players=3, conjunctions=True, relic_effects=True, deep_alchemy=True,
             ascension_tiles=True, secret_options_b=True, offturn_alchemy=True)
    rng = np.random.default_rng(12)
    checked = 0
    while not st.is_over and checked < 8:
        if st.runners or st.kind in ("either_timing", "ascend_suit", "effect"):
            checked += 1
            twins = [pickle.loads(pickle.dumps(st)), copy.deepcopy(st), st.clone()]
            script = []
            probe = st.clone()
            for _ in range(6):
                if probe.is_over:
                    break
                a = int(rng.choice(probe.legal_actions()))
                probe.apply_action(a)
                script.append(a)
            for tw in twins:
                for a in script:
                    tw.apply_action(a)
                assert np.array_equal(tw.observation_tensor(0), probe.observation_tensor(0))
                assert tw.current_player == probe.current_player
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert checked == 8


def test_resample_keeps_the_observation_and_replays():
    for n in (2, 4):
        st = new(7 + n, num_players=n)
        rng = np.random.default_rng(n)
        for step in range(260):
            if st.is_over:
                break
            st.apply_action(int(rng.choice(st.legal_actions())))
            if step % 65 == 64:
                for seat in range(n):
                    r = st.resample_from_infostate(seat, rng)
                    assert np.array_equal(r.observation_tensor(seat), st.observation_tensor(seat))
                    assert r.current_player == st.current_player
                    assert r.secret_hand[seat] == st.secret_hand[seat]
                    assert r.relic_hand[seat] == st.relic_hand[seat]
                    again = ClandestineState.from_record(r.to_record())
                    assert np.array_equal(again.observation_tensor(seat),
                                          r.observation_tensor(seat))
                    assert again.hidden_truth() == r.hidden_truth()


def test_resample_from_look_alike_states_with_one_seed_gives_one_world():
    """The resampler depends only on what the seat knows (tests/test_contract_laws.py): from
    the real state and from a world drawn from it for seat 0 (every variant on), which has
    another Relic deck order, other blind Relics and hidden Secrets in seats 1-2 and another
    order of seat 0's own Secret deck, generators of one seed draw the same world. The
    relabelling used to take the hidden cards in card order, so its draw followed the real
    order and identities (the Relic deck started [7, 77, 89, ...] from one state and
    [64, 77, 89, ...] from the other)."""
    st = ClandestineState(seed=9, num_players=3)
    rng = np.random.default_rng(9)
    for _ in range(700):
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert set(st.relic_hand[1]) - set(st.relic_known[1]) == {25, 81, 102}  # blind Relics
    assert st.secret_hand == [[6], [6], [0]]
    other = st.resample_from_infostate(0, np.random.default_rng(50))
    assert np.array_equal(other.observation_tensor(0), st.observation_tensor(0))
    assert other.relic_deck != st.relic_deck
    assert other.relic_hand[1] != st.relic_hand[1]
    assert other.secret_hand[1:] != st.secret_hand[1:]
    assert other.secret_deck[0] != st.secret_deck[0]
    for k in range(4):
        a = st.resample_from_infostate(0, np.random.default_rng(k))
        b = other.resample_from_infostate(0, np.random.default_rng(k))
        assert a.hidden_truth() == b.hidden_truth()
        assert a.chance_log == b.chance_log
        assert a.history == b.history
        for p in range(3):
            assert np.array_equal(a.observation_tensor(p), b.observation_tensor(p))
        assert a.hidden_truth() != st.hidden_truth()  # a new world, not the real one


def check_history_consistency(n, seed, steps):
    st = new(seed, num_players=n)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if st.is_over:
            break
        st.apply_action(int(rng.choice(st.legal_actions())))
    for seat in range(n):
        r = st.resample_from_infostate(seat, rng)
        real = ClandestineState.replay_steps(st.to_record())
        alt = ClandestineState.replay_steps(r.to_record())
        for a, b in zip(real, alt):
            assert np.array_equal(a.observation_tensor(seat), b.observation_tensor(seat))
            assert a.current_player == b.current_player
            if a.current_player == seat:
                assert np.array_equal(a.legal_action_mask(), b.legal_action_mask())


def test_resampled_history_is_consistent_step_by_step():
    """CONVENTIONS.md history consistency: the resampled record replays, step by step, to the
    same observation, current player and (where the seat decides) mask for that seat."""
    check_history_consistency(3, 21, 200)


@pytest.mark.slow
def test_resampled_history_is_consistent_long():
    for n in (2, 3, 4, 5):
        check_history_consistency(n, 30 + n, 700)


def test_observation_hides_other_hands():
    st = new(3, num_players=3, societies=["mariners", "garden", "twilight"])
    base = st.observation_tensor(1)
    other = st.clone()
    other.relic_hand[0] = [r for r in other.relic_deck[:1]]
    other.secret_hand[0] = list(other.secret_deck[0][:1])
    assert np.array_equal(other.observation_tensor(1), base)
    assert not np.array_equal(other.observation_tensor(0), st.observation_tensor(0))
    lay = observation_layout(3)
    assert lay.view(st.observation_tensor(0), "own_relics").sum() == 1  # Mariners: 1 Relic
    assert "own_relics" in lay.table()


def test_what_one_seat_alone_knows_leaves_other_observations_unchanged():
    """Leak law: changing seat j's private items (hand identities, Secret deck order; the Relic
    deck order is hidden from all) changes no other seat's observation."""
    st = new(9, num_players=4, relic_effects=True, conjunctions=True, ascension_tiles=True)
    rng = np.random.default_rng(9)
    for _ in range(150):
        st.apply_action(int(rng.choice(st.legal_actions())))
    for j in range(4):
        other = st.clone()
        other.secret_deck[j] = other.secret_deck[j][::-1]
        other.relic_deck = other.relic_deck[::-1]
        hidden = [r for r in other.relic_hand[j] if r not in other.relic_known[j]]
        if hidden and other.relic_deck:  # swap a blind hand Relic with a deck card
            r = hidden[0]
            i = other.relic_hand[j].index(r)
            other.relic_hand[j][i], other.relic_deck[0] = other.relic_deck[0], r
        if other.secret_hand[j] and other.secret_deck[j]:
            other.secret_hand[j][0], other.secret_deck[j][0] = \
                other.secret_deck[j][0], other.secret_hand[j][0]
        for s in range(4):
            if s != j:
                assert np.array_equal(other.observation_tensor(s), st.observation_tensor(s))


def test_render_and_action_strings():
    st = new(3)
    txt = st.render_text()
    assert "seat 0" in txt and "P0S1" in txt and "hand R" in txt
    assert st.render_text(1).count("hand R") == 1
    words = {a: st.action_to_string(a) for a in st.legal_actions()}
    assert words[0] == "Done (end Alchemy before the Action)"
    assert len(set(words.values())) == len(words)  # one text per choice
    assert all(st.kind not in w for w in words.values())  # rulebook words, not engine codes


def test_serpent_conjunction_secret_primed_flips_its_own_trap():
    """The Keepers' Conjunction Secret (SECRET index 31, ``conjunction_secrets.serpent``, "The
    Coiled Crown") may be primed like any Secret in hand; when a rival uses the space it flips
    with its own trap: 'rival' (Strength -3, 1 Chaos) for the actor, 'reward' (3 Intrigue) for
    the Keepers, and goes to the Keepers' discard pile (found by the 10,000-game run, seed 4521)."""
    st = new(6, num_players=2, societies=["serpent", "garden"], society_powers=True)
    target = st.city.space("P1S1")
    st.primed[target] = [31]
    items = st._flip_traps(target, 1)
    assert [(kind, seat) for kind, _, seat in items] == [("run_for", 1), ("run_for", 0)]
    rival, reward = items[0][1], items[1][1]
    assert [(op.name, op.n) for op in rival] == [("strength", -3), ("gain", 1)]
    assert [(op.name, op.res, op.n) for op in reward] == [("gain", "intrigue", 3)]
    assert st.primed == {} and st.secret_discard[0][-1] == 31
    st.primed[target] = [31]  # the Keepers themselves: 'self', 5 Intrigue
    [(_, own, seat)] = st._flip_traps(target, 0)
    assert seat == 0 and [(op.name, op.res, op.n) for op in own] == [("gain", "intrigue", 5)]


def _mutable_ids(obj, seen=None) -> set[int]:
    """Ids of every mutable container reachable from ``obj`` (lists, dicts, sets, bytearrays,
    numpy arrays and generators, and instances' ``__dict__``), skipping the objects a deep copy
    keeps (``DSL.Immutable``, the City, the spec: their ``__deepcopy__`` returns them)."""
    from envs.clandestine.city import City

    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (DSL.Immutable, City, S.ClandestineSpec, str, bytes,
                                           int, float, bool, type(None), np.generic)):
        return seen
    if isinstance(obj, (list, dict, set, bytearray, np.ndarray, np.random.Generator)):
        seen.add(id(obj))
    if isinstance(obj, dict):
        for k, v in obj.items():
            _mutable_ids(k, seen)
            _mutable_ids(v, seen)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            _mutable_ids(v, seen)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        seen.add(id(obj.__dict__))
        _mutable_ids(vars(obj), seen)
    elif hasattr(obj, "__slots__"):
        for name in obj.__slots__:
            if hasattr(obj, name):
                _mutable_ids(getattr(obj, name), seen)
    return seen


@pytest.mark.parametrize("humans,seed", [(3, 3), (4, 8), (2, 21)])
def test_clone_shares_no_mutable_object_and_plays_on_like_a_deep_copy(humans, seed):
    """``ClandestineState.clone`` copies the append-only logs as new lists sharing their tuple
    entries (not a whole deep copy): no list, dict, set, array or generator reachable from the
    clone may be the original's (but the chance outcomes), and the clone plays on exactly as a deep copy does (every
    seat's observation, mask and returns) while the original is left as it was."""
    st = ClandestineState(seed=seed, num_players=humans)
    rng = np.random.default_rng(seed)
    for _ in range(150 + 40 * humans):
        if st.is_over:
            break
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
    assert st._events and st.secret_log, "the position has logged events and Secret moves"
    c, d = st.clone(), copy.deepcopy(st)
    # chance outcomes are shared (never changed in place; to_record shares them too)
    outcomes = {id(e[1]) for e in st.chance_log}
    shared = (_mutable_ids(st) & _mutable_ids(c)) - outcomes
    assert not shared, f"{len(shared)} mutable objects shared by clone()"
    before = [st.observation_tensor(s).copy() for s in range(st.num_players)]
    events, log, hist = list(st._events), list(st.secret_log), list(st.history)
    for _ in range(120):
        if c.is_over:
            break
        a = int(rng.choice(np.flatnonzero(c.legal_action_mask())))
        c.apply_action(a)
        d.apply_action(a)
        for s in range(c.num_players):
            assert np.array_equal(c.observation_tensor(s), d.observation_tensor(s))
        assert np.array_equal(c.legal_action_mask(), d.legal_action_mask())
    assert c.returns().tolist() == d.returns().tolist()
    assert (st._events, st.secret_log, st.history) == (events, log, hist)
    for s in range(st.num_players):
        assert np.array_equal(st.observation_tensor(s), before[s])


def _view(st):
    """Everything a copy must agree on: every seat's observation, the mask, returns, record,
    hidden truth and public history."""
    return ([st.observation_tensor(s).tobytes() for s in range(st.num_players)],
            st.legal_action_mask().tobytes(), st.returns().tolist(), st.to_record(),
            st.hidden_truth(), st.public_history())


@pytest.mark.parametrize("config,seed", [
    ({"num_players": 2, "nemesis": "most_holy", "difficulty": 1}, 1),
    ({"num_players": 1, "nemesis": "silver_guard", "difficulty": 3}, 4),
    ({"num_players": 4}, 2),
])
def test_clone_of_a_replayed_or_resampled_state_plays_on_like_a_deep_copy(config, seed):
    """``clone`` of a state part-way through :meth:`replay_steps` (its remaining chance
    outcomes, a Nemesis's Intent flips, are a new deque sharing its entries) and of a
    resampled world: the clone, a clone of it, its pickle and ``probe_clone`` play on as a
    deep copy does (a probe drawing from the generator, not the record), and the original is
    left as it was: its remaining outcomes are not used up by the copies' play."""
    st = ClandestineState(seed=seed, **config)
    rng = np.random.default_rng(seed)
    for _ in range(70):
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
    rec = st.to_record()
    for i, mid in enumerate(ClandestineState.replay_steps(rec)):
        if i == 30:
            break
    if "nemesis" in config:
        assert mid._forced_chance, "the replayed state still has outcomes to draw"
    for orig in (mid, st.resample_from_infostate(0, rng)):
        before = _view(orig)
        pending = list(orig._forced_chance or ())
        c = orig.clone()
        copies = [copy.deepcopy(orig), c, c.clone(), pickle.loads(pickle.dumps(c))]
        probes = [copy.deepcopy(orig), orig.probe_clone()]
        probes[0]._forced_chance = None
        for group in (copies, probes):
            for _ in range(60):
                if group[0].is_over:
                    break
                a = int(rng.choice(np.flatnonzero(group[0].legal_action_mask())))
                for q in group:
                    q.apply_action(a)
                want = _view(group[0])
                assert all(_view(q) == want for q in group[1:])
        assert _view(orig) == before
        assert list(orig._forced_chance or ()) == pending
