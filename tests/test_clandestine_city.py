"""Clandestine City and pawns: construction for 2-5 paths, the 3-player example, the rulebook's
worked examples (Mason's Fundraise, Natalie's Purge and Regroup), movement laws."""

from __future__ import annotations

import copy
import json
import pickle
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from envs.clandestine import city as C
from envs.clandestine import pawns as P
from envs.clandestine.city import build_city, city_data, load_content
from envs.clandestine.pawns import (FOLLOWERS, PF, PL, SL, UF, PawnStore, initial_pawns,
                                    move_all, start_movement)
from envs.core.errors import ConfigError

SOCIETIES = ("mariners", "garden", "twilight", "serpent", "blue")
EX = city_data()["example_3p"]


def example_city():
    seats = tuple(EX["seats"][str(i)] for i in range(3))
    return build_city(3, seats, first_action=EX["first_side_action"])


def store_with(city, pawns):
    """A store holding exactly ``pawns``: {space id: list of pawn codes}."""
    st = PawnStore.empty(city)
    for sid, codes in pawns.items():
        for code in codes:
            st.add(city, sid, code)
    return st


def placed(city, mv):
    return [(P.PAWN_CODES[t], city.space_ids[s]) for t, s in mv.placements]


# ------------------------------------------------------------------------------ content file
def test_shipped_json_is_the_design_file():
    design = Path("/work/shared/design/clandestine_content.json")
    if not design.exists():
        pytest.skip("design folder not present")
    assert design.read_bytes() == C.DATA_PATH.read_bytes()


def test_load_content_errors(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_content(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_content(str(bad))
    part = tmp_path / "part.json"
    part.write_text(json.dumps({"city": {}}))
    with pytest.raises(ConfigError, match="no 'societies' section"):
        load_content(str(part))


# ------------------------------------------------------------------------------ construction
def test_example_3p_graph_exactly():
    city = example_city()
    assert [city.space_ids[s] for s in city.public_loop] == EX["public_loop"]
    assert len(EX["spaces"]) == city.num_spaces == 27
    for sp in EX["spaces"]:
        s = city.space(sp["id"])
        assert (city.kind(s), int(city.seat_of[s]), city.action(s)) == \
            (sp["kind"], sp["seat"], sp["action"]), sp["id"]
    assert city.public_next_map() == EX["public_next"]
    for seat in range(3):
        assert city.society_next_map(seat) == EX["society_next"][str(seat)]
    assert {str(i): side for i, side in enumerate(city.path_side)} == EX["path_side"]
    assert list(city.duplicate_pair) == EX["duplicate_pair"]
    # Chambers have no Public next, connectors no Society next
    assert all(city.public_next[city.space(f"P{i}C{k}")] == -1
               for i in range(3) for k in range(1, 5))
    assert all(city.society_next[city.space(f"K{i}{x}")] == -1 for i in range(3) for x in "ab")


def test_example_3p_pawns_exactly():
    city = example_city()
    st = initial_pawns(city)
    got = st.as_lists(city)
    assert set(got) == set(EX["pawns"])
    for sid, codes in EX["pawns"].items():
        assert Counter(got[sid]) == Counter(codes), sid
    # the Blue Army's Starts With UF is the third pawn on P2S1
    assert got["P2S1"] == ["pl", "pf", "uf"]
    np.testing.assert_array_equal(st.totals(), [3, 15, 7, 6])
    assert st.violations(city) == []


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("first", ["Fundraise", "Discover"])
def test_paths_and_alternation(n, first):
    city = build_city(n, first_action=first)
    assert city.num_spaces == 9 * n and city.public_length == 5 * n
    # the Public path is one loop through every connector and Sidewalk, exactly once
    s, seen = int(city.public_loop[0]), []
    for _ in range(5 * n):
        seen.append(s)
        s = int(city.public_next[s])
    assert s == city.public_loop[0] and len(set(seen)) == 5 * n
    assert sorted(seen) == sorted(k for k in range(9 * n) if city.kind_code[k] != C.CHAMBER)
    for k in seen:
        assert city.public_prev[city.public_next[k]] == k
    # each Society path: 7 spaces, S1 S2 S3 C1 C2 C3 C4 and back to S1
    for seat in range(n):
        path = city.society_path(seat)
        ids = [city.space_ids[k] for k in path]
        assert ids == [f"P{seat}{x}" for x in ("S1", "S2", "S3", "C1", "C2", "C3", "C4")]
        for a, b in zip(path, path[1:] + path[:1]):
            assert city.society_next[a] == b and city.society_prev[b] == a
        # Sidewalks: both paths run the same way; the Chamber door is S3 -> C1
        s1, s2, s3 = city.sidewalks(seat)
        assert city.public_next[s1] == city.society_next[s1] == s2
        assert city.public_next[s2] == city.society_next[s2] == s3
        assert city.chamber_door(seat) == (s3, city.chambers(seat)[0])
        assert city.after_sidewalks(seat) == city.space(f"K{(seat + 1) % n}a")
        sides = tuple(city.action(k) for k in (s1, s2, s3))
        assert sides == (("Fundraise", "Discover", "Fundraise") if city.path_side[seat] == "A"
                         else ("Discover", "Fundraise", "Discover"))
    # alternation around the loop; the duplicate only for odd counts, on K0b / P0S1
    acts = [city.action(k) for k in city.public_loop]
    ids = [city.space_ids[k] for k in city.public_loop]
    same = [(ids[j], ids[(j + 1) % (5 * n)]) for j in range(5 * n)
            if acts[j] == acts[(j + 1) % (5 * n)]]
    if n % 2:
        assert same == [("K0b", "P0S1")] and city.duplicate_pair == ("K0b", "P0S1")
    else:
        assert same == [] and city.duplicate_pair is None
    assert city.action("P0S1") == first
    other = "Discover" if first == "Fundraise" else "Fundraise"
    assert Counter(acts) == {first: (5 * n + 1) // 2, other: 5 * n // 2}


def test_odd_duplicate_3_and_5_is_on_first_players_right_connector():
    for n in (3, 5):
        for first in ("Fundraise", "Discover"):
            city = build_city(n, first_action=first)
            # K0b is the connector to the right of the First Player, touching its S1
            assert city.public_next[city.space("K0b")] == city.space("P0S1")
            assert city.action("K0b") == city.action("P0S1") == first
            assert city.connector_side[0] == ("B" if first == "Fundraise" else "A")


def test_chamber_actions_from_society_and_nemesis_data():
    city = build_city(2, ("twilight", "silver_guard"), first_action="Discover")
    assert [city.action(f"P0C{k}") for k in range(1, 5)] == \
        ["Purge", "Reveal", "Ascend", "Discover"]
    assert [city.action(f"P1C{k}") for k in range(1, 5)] == ["seize", "deploy", "seize", "deploy"]
    assert build_city(2, first_action="Fundraise").action("P0C1") is None


def test_seeded_side_choice():
    a = [build_city(4, rng=s).first_action for s in range(20)]
    assert a == [build_city(4, rng=np.random.default_rng(s)).first_action for s in range(20)]
    assert set(a) == {"Fundraise", "Discover"}
    assert build_city(4, first_action="Discover", rng=0).first_action == "Discover"


@pytest.mark.parametrize("kwargs,msg", [
    ({"num_paths": 1, "first_action": "Fundraise"}, "num_paths"),
    ({"num_paths": 6, "first_action": "Fundraise"}, "num_paths"),
    ({"num_paths": True, "first_action": "Fundraise"}, "num_paths"),
    ({"num_paths": 3}, "first_action .* or rng"),
    ({"num_paths": 3, "first_action": "Reveal"}, "first_action"),
    ({"num_paths": 3, "societies": ("garden", "blue"), "first_action": "Fundraise"}, "3 entries"),
    ({"num_paths": 3, "societies": ("garden", "most_holy", "blue"), "first_action": "Fundraise"},
     "last seat"),
    ({"num_paths": 2, "societies": ("garden", "garden"), "first_action": "Fundraise"}, "once"),
    ({"num_paths": 2, "societies": ("garden", "pirates"), "first_action": "Fundraise"}, "pirates"),
])
def test_build_errors(kwargs, msg):
    with pytest.raises(ConfigError, match=msg):
        build_city(**kwargs)


def test_space_lookup_errors():
    city = example_city()
    assert city.space("P1S2") == 9 + C.S2 == city.local_space(1, "S2")
    for bad in ("P3S1", "X", 27, -1, 2.0, True):
        with pytest.raises(ValueError):
            city.space(bad)
    with pytest.raises(ValueError, match="seat"):
        city.sidewalks(3)
    with pytest.raises(ValueError, match="local space"):
        city.local_space(0, "C5")
    with pytest.raises(ValueError):
        city.public_next[0] = 5  # read-only arrays
    with pytest.raises(AttributeError):
        city.num_paths = 4


# ------------------------------------------------------------------------------ pawns, Strength
def test_strength_and_store_basics():
    city = example_city()
    st = initial_pawns(city)
    assert P.PAWN_STRENGTH.tolist() == [2, 1, 1, 2]
    assert st.strength(city.space("P2S1")) == 2 + 1 + 1
    assert st.strength(city.space("P0C3")) == 2 + 1
    assert st.strength(city.space("P0C2")) == 0
    cp = st.copy()
    cp.add(city, "K0a", "uf")
    assert cp != st and st.count(city.space("K0a"), UF) == 0
    with pytest.raises(ValueError, match="may not stand"):
        st.add(city, "P0C2", "pl")
    with pytest.raises(ValueError, match="may not stand"):
        st.add(city, "K0a", "sl")
    with pytest.raises(ValueError, match="cannot remove"):
        st.remove(city, "P0C2", "uf")
    with pytest.raises(ValueError, match="pawn type"):
        st.add(city, "K0a", "xx")
    assert st.society_leaders_of(city, 1) == 2
    assert sorted(P.leader_choices(city, st, 0)) == sorted(
        [(city.space(f"P{i}S1"), PL) for i in range(3)]
        + [(city.space("P0C1"), SL), (city.space("P0C3"), SL)])


def test_nemesis_initial_pawns():
    city = build_city(2, ("blue", "most_holy"), first_action="Fundraise")
    got = initial_pawns(city).as_lists(city)
    assert got["P0S1"] == ["pl", "pf", "uf"]            # Blue Army's Starts With UF
    assert got["P1S2"] == ["pf", "uf"] and got["P1S1"] == ["pl", "pf"]
    assert got["P1C1"] == ["sl1"] and got["P1C2"] == [] and got["P1C3"] == ["sl1"]
    city = build_city(2, ("garden", "silver_guard"), first_action="Fundraise")
    got = initial_pawns(city).as_lists(city)
    assert (got["P1C1"], got["P1C2"], got["P1C3"]) == (["sl1"], ["uf"], ["sl1"])


# ------------------------------------------------------------------------------ Mason's example
def mason():
    city = example_city()  # seat 1 = Garden Club, side B: S1 D, S2 F, S3 D
    st = store_with(city, {"P1S2": ["sl", "pl", "pf", "uf"]})
    return city, st


def test_mason_fundraise():
    city, st = mason()
    assert city.action("P1S2") == "Fundraise" and city.path_side[1] == "B"
    mv = start_movement(city, st, "P1S2", "sl", actor=1)
    assert mv.strength == 6
    assert mv.pending() == P.Decision("placement_type", (PF, UF))
    mv.choose(st, PF)
    assert placed(city, mv) == [("pf", "P1S3")]
    assert mv.pending() == P.Decision("uf_route", (P.UF_FOLLOW, P.UF_STAY))
    mv.choose(st, P.UF_FOLLOW)
    # the Leaders' paths have parted (K2a next on the Public path, P1C2 on his Society path):
    # their order changes nothing, so it is not asked (the rulebook: "He places the Society
    # Leader ... The Public Leader ... the next space it could go into")
    assert mv.pending() is None and mv.done
    assert placed(city, mv) == [("pf", "P1S3"), ("uf", "P1C1"), ("sl", "P1C2"), ("pl", "K2a")]
    got = st.as_lists(city)
    assert (got["P1S2"], got["P1S3"], got["P1C1"], got["P1C2"], got["K2a"]) == \
        ([], ["pf"], ["uf"], ["sl1"], ["pl"])


def test_mason_variants():
    # the UF stays on the Public path: it takes K2a and the Public Leader goes one space further
    city, st = mason()
    mv = move_all(city, st, "P1S2", "sl", 1, [PF, P.UF_STAY])  # Leaders parted: no order asked
    assert placed(city, mv) == [("pf", "P1S3"), ("uf", "K2a"), ("sl", "P1C1"), ("pl", "K2b")]
    # UF first: S3 is next on both routes, so no route is asked; then the PF passes the door
    city, st = mason()
    mv = move_all(city, st, "P1S2", "sl", 1, [UF])
    assert placed(city, mv) == [("uf", "P1S3"), ("pf", "K2a"), ("sl", "P1C1"), ("pl", "K2b")]


def test_leader_order_is_asked_only_where_it_changes_the_end_spaces():
    """Rulebook "Moving Pawns" (the order within Leaders is the actor's choice), design §2.4
    steps 3-4. On P1S1 the Public and the Society path share the next Sidewalks: the first Leader
    takes P1S2 for both cursors, so the order is asked and the two answers differ. After the
    routes have parted the order changes nothing and is not asked, also with two Public
    Leaders and two Society Leaders."""
    city = example_city()
    ends = set()
    for first in (PL, SL):
        st = store_with(city, {"P1S1": ["sl", "pl"]})
        mv = start_movement(city, st, "P1S1", "sl", 1)
        assert mv.pending() == P.Decision("placement_type", (PL, SL))
        mv.choose(st, first)
        assert mv.done
        ends.add(tuple(placed(city, mv)))
    assert ends == {(("pl", "P1S2"), ("sl", "P1S3")), (("sl", "P1S2"), ("pl", "P1S3"))}
    # on P1S3 the next spaces are K2a (Public) and P1C1 (Society): nothing to choose
    st = store_with(city, {"P1S3": ["sl", "sl", "pl", "pl"]})
    mv = start_movement(city, st, "P1S3", "sl", 1)
    assert mv.pending() is None and mv.done
    assert sorted(placed(city, mv)) == [("pl", "K2a"), ("pl", "K2b"), ("sl", "P1C1"),
                                        ("sl", "P1C2")]
    # the parted routes of Mason's example after his Followers: no Leader order asked
    city, st = mason()
    mv = move_all(city, st, "P1S2", "sl", 1, [PF, P.UF_FOLLOW])
    assert placed(city, mv)[2:] == [("sl", "P1C2"), ("pl", "K2a")]


def _leader_ends(mv, store, first):
    """End stores (bytes) reachable when ``first`` is the next Leader placed, then every order of
    the rest: placed directly (``Movement._place``), whatever the engine would ask."""
    out = set()

    def walk(mv, store, t):
        mv, store = mv.copy(), store.copy()
        mv._place(store, t, P.SOCIETY if t == SL else P.PUBLIC)
        if not mv.in_hand[PL] and not mv.in_hand[SL]:
            out.add(store.counts.tobytes())
        for u in (PL, SL):
            if mv.in_hand[u]:
                walk(mv, store, u)

    walk(mv, store, first)
    return out


def test_leader_order_is_never_left_out_where_it_changes_the_end_spaces(monkeypatch):
    """The converse of the law above, by brute force over every placement: on every space of
    the 2- and 3-path Cities (both sides), for every acting seat and Leader kind and up to two
    pawns of each type, with every earlier decision answered every way, wherever both Leader
    types remain to be placed the order is asked exactly when placing a Public Leader next and
    placing a Society Leader next reach different sets of end spaces."""
    seen = {"asked": 0, "skipped": 0}
    stores = []
    advance, due = P.Movement._advance, P.Movement._type_choice_due

    def checked_advance(mv, store):
        stores.append(store)
        try:
            advance(mv, store)
        finally:
            stores.pop()

    def checked_due(mv, group):
        asked = due(mv, group)
        if group == P.LEADERS and stores:
            matters = _leader_ends(mv, stores[-1], PL) != _leader_ends(mv, stores[-1], SL)
            assert asked == matters, (mv.space, mv.actor, mv.in_hand, mv.cursors)
            seen["asked" if asked else "skipped"] += 1
        return asked

    monkeypatch.setattr(P.Movement, "_advance", checked_advance)
    monkeypatch.setattr(P.Movement, "_type_choice_due", checked_due)

    def explore(mv, store):
        dec = mv.pending()
        for o in (dec.options if dec else ()):
            m2, s2 = mv.copy(), store.copy()
            m2.choose(s2, o)
            explore(m2, s2)

    for n in (2, 3):
        for first_action in ("Fundraise", "Discover"):
            city = build_city(n, first_action=first_action)
            for space in range(city.num_spaces):
                for actor in range(n):
                    own, public = city.on_society_path(space, actor), city.is_public(space)
                    for counts in np.ndindex(3, 3, 3, 3):
                        pl, pf, uf, sl = counts
                        if (pl or pf) and not public or sl and not own:
                            continue
                        for leader in (PL, SL):
                            if not (pl if leader == PL else sl):
                                continue
                            store = PawnStore.empty(city)
                            store.counts[space, [PL, PF, UF, SL]] = counts
                            explore(P.start_movement(city, store, space, leader, actor), store)
    assert seen["asked"] >= 400 and seen["skipped"] >= 10_000, seen


def test_public_follower_drops_off_at_chamber_door():
    city = example_city()
    st = store_with(city, {"P0S1": ["sl", "pf", "pf", "pf"]})
    mv = move_all(city, st, "P0S1", "sl", 0)   # one type per group: no choice asked
    assert placed(city, mv) == [("pf", "P0S2"), ("pf", "P0S3"), ("pf", "K1a"), ("sl", "P0C1")]
    # with Universal Followers following into the Chambers after the PFs passed the door
    st = store_with(city, {"P0S2": ["sl", "pf", "pf", "uf", "uf"]})
    mv = move_all(city, st, "P0S2", "sl", 0, [PF, PF, P.UF_FOLLOW, P.UF_STAY])
    assert placed(city, mv) == [("pf", "P0S3"), ("pf", "K1a"), ("uf", "P0C1"), ("uf", "K1b"),
                                ("sl", "P0C2")]


def test_public_leader_with_own_and_other_society_leaders():
    city = example_city()
    # a Public Leader on your own Sidewalk: your Society Leader uses the Society path
    st = store_with(city, {"P1S3": ["pl", "sl", "pf", "uf"]})
    mv = move_all(city, st, "P1S3", "pl", 1, [UF])
    assert placed(city, mv) == [("uf", "K2a"), ("pf", "K2b"), ("sl", "P1C1"), ("pl", "P2S1")]
    # another player's Society Leader adds Strength but stays
    st = store_with(city, {"P1S3": ["pl", "sl", "pf"]})
    mv = move_all(city, st, "P1S3", "pl", 0)
    assert mv.strength == 5
    assert placed(city, mv) == [("pf", "K2a"), ("pl", "K2b")]
    assert st.as_lists(city)["P1S3"] == ["sl1"]


def test_full_circle_public_path():
    city = build_city(2, first_action="Fundraise")   # Public loop of 10
    st = store_with(city, {"K0a": ["pl"] + ["pf"] * 11})
    mv = move_all(city, st, "K0a", "pl", 0)
    loop = [city.space_ids[k] for k in city.public_loop]
    assert placed(city, mv) == [("pf", s) for s in loop[1:] + loop[:2]] + [("pl", loop[2])]
    assert st.as_lists(city)["K0b"] == ["pf", "pf"] and st.as_lists(city)["K0a"] == ["pf"]
    assert st.as_lists(city)["P0S1"] == ["pl", "pf"]


def test_full_circle_society_path_rejoins_public_cursor():
    city = example_city()
    st = store_with(city, {"P0C1": ["sl"] + ["uf"] * 7})
    mv = start_movement(city, st, "P0C1", "sl", 0)
    # C2, C3, C4, S1, S2, S3 need no choice; at S3 the routes part (C1 or K1a)
    assert placed(city, mv) == [("uf", s) for s in ("P0C2", "P0C3", "P0C4", "P0S1", "P0S2", "P0S3")]
    assert mv.pending().kind == "uf_route"
    mv.choose(st, P.UF_FOLLOW)
    assert mv.done and placed(city, mv)[-2:] == [("uf", "P0C1"), ("sl", "P0C2")]
    st = store_with(city, {"P0C1": ["sl"] + ["uf"] * 7})
    mv = move_all(city, st, "P0C1", "sl", 0, [P.UF_STAY])
    assert placed(city, mv)[-2:] == [("uf", "K1a"), ("sl", "P0C1")]


def test_nemesis_order_is_automatic():
    city = build_city(2, ("garden", "most_holy"), first_action="Fundraise")
    st = store_with(city, {"P1S2": ["sl", "pl", "uf", "pf"]})
    mv = start_movement(city, st, "P1S2", "sl", 1, automatic=True)
    assert mv.done
    assert placed(city, mv) == [("pf", "P1S3"), ("uf", "P1C1"), ("pl", "K0a"), ("sl", "P1C2")]


def test_movement_errors_and_copies():
    city, st = mason()
    with pytest.raises(ValueError, match="belongs to seat 1"):
        start_movement(city, st.copy(), "P1S2", "sl", 0)
    with pytest.raises(ValueError, match="no sl on K0a"):
        start_movement(city, st.copy(), "K0a", "sl", 0)
    with pytest.raises(ValueError, match="Leader"):
        start_movement(city, st.copy(), "P1S2", "pf", 1)
    mv = start_movement(city, st, "P1S2", "sl", 1)
    with pytest.raises(ValueError, match="not legal"):
        mv.choose(st, SL)
    with pytest.raises(ValueError, match="not legal"):
        mv.choose(st, True)
    # copies and pickles taken mid-movement finish independently and identically
    st2, mv2 = st.copy(), mv.copy()
    st3, mv3 = pickle.loads(pickle.dumps((st, mv)))
    st4, mv4 = copy.deepcopy((st, mv))
    assert mv3.city == city and mv4.city is city
    for m, s in ((mv, st), (mv2, st2), (mv3, st3), (mv4, st4)):
        m.choose(s, PF)
        m.choose(s, P.UF_FOLLOW)
    assert st == st2 == st3 == st4
    assert mv.placements == mv2.placements == mv3.placements == mv4.placements
    with pytest.raises(ValueError, match="complete"):
        mv.choose(st, PF)
    city, st = mason()
    with pytest.raises(ValueError, match="unused choices"):
        move_all(city, st, "P1S2", "sl", 1, [PF, 0, SL, PL])


# ------------------------------------------------------------------------------ Natalie
def test_natalie_purge():
    city = example_city()
    seat = 1
    st = store_with(city, {"P1S1": ["pf"], "P1S2": ["uf"], "P1S3": ["uf"]})
    assert P.purge_destinations(city, seat, "P1S1", "pf") == (city.space("K2a"),)
    assert P.purge_destinations(city, seat, "P1S3", "uf") == (city.space("P1C1"), city.space("K2a"))
    strength = 6
    picks = [("P1S1", "pf", None), ("P1S2", "uf", P.PURGE_TO_C1), ("P1S3", "uf", P.PURGE_TO_C1)]
    assert len(picks) == strength // 2
    dests = [city.space_ids[P.purge_move(city, st, seat, s, t, o)] for s, t, o in picks]
    assert dests == ["K2a", "P1C1", "P1C1"]
    assert st.as_lists(city)["P1C1"] == ["uf", "uf"] and st.as_lists(city)["K2a"] == ["pf"]
    with pytest.raises(ValueError, match="Sidewalks"):
        P.purge_destinations(city, seat, "P0S1", "pf")
    with pytest.raises(ValueError, match="Followers"):
        P.purge_destinations(city, seat, "P1S1", "pl")
    st = store_with(city, {"P1S2": ["uf", "pf"]})
    with pytest.raises(ValueError, match="needs purge_destination"):
        P.purge_move(city, st, seat, "P1S2", "uf")
    with pytest.raises(ValueError, match="only go"):
        P.purge_move(city, st, seat, "P1S2", "pf", P.PURGE_TO_C1)
    with pytest.raises(ValueError, match="no uf on P1S1"):
        P.purge_move(city, st, seat, "P1S1", "uf", 1)
    assert city.space_ids[P.purge_move(city, st, seat, "P1S2", "uf", P.PURGE_TO_PUBLIC)] == "K2a"


def test_natalie_regroup():
    city = example_city()
    seat, strength = 1, 2
    st = store_with(city, {"P1S2": ["uf"], "P1S3": ["uf"]})
    assert city.space_ids[P.regroup_move(city, st, seat, "P1S2", "uf", 2, strength)] == "P1C1"
    assert city.space_ids[P.regroup_move(city, st, seat, "P1S3", "uf", 1, strength)] == "P1C1"
    assert st.as_lists(city)["P1C1"] == ["uf", "uf"]
    st = store_with(city, {"P1S3": ["pf", "uf"], "P1C4": ["sl"], "K0a": ["pf"]})
    with pytest.raises(ValueError, match=r"out of range 0\.\.2"):
        P.regroup_move(city, st, seat, "P1S3", "uf", 3, strength)
    with pytest.raises(ValueError, match="not on seat 1's Society path"):
        P.regroup_move(city, st, seat, "K0a", "pf", 1, strength)
    # a Public Follower never enters the Chambers: it leaves along the Public path
    assert city.space_ids[P.regroup_move(city, st, seat, "P1S3", "pf", 2, strength)] == "K2b"
    assert city.space_ids[P.regroup_move(city, st, seat, "P1C4", "sl", 2, 5)] == "P1S2"
    # distance is capped by the path length - 1 (Society path 7 spaces)
    st = store_with(city, {"P1C1": ["uf"]})
    with pytest.raises(ValueError, match=r"0\.\.6"):
        P.regroup_move(city, st, seat, "P1C1", "uf", 7, 10)
    assert city.space_ids[P.regroup_move(city, st, seat, "P1C1", "uf", 6, 10)] == "P1S3"


def test_step_candidates_and_distance_limits():
    city = example_city()
    st = initial_pawns(city)
    sp = city.space
    assert P.regroup_candidates(city, st, 1, leader=True) == [(sp("P1C1"), SL), (sp("P1C3"), SL)]
    assert P.regroup_candidates(city, st, 1, leader=False) == [
        (sp("P1S1"), PF), (sp("P1S2"), PF), (sp("P1S2"), UF), (sp("P1S3"), PF), (sp("P1C3"), UF)]
    assert P.purge_candidates(city, st, 2) == [
        (sp("P2S1"), PF), (sp("P2S1"), UF), (sp("P2S2"), PF), (sp("P2S2"), UF), (sp("P2S3"), PF)]
    assert P.revolt_candidates(city, st, leader=True) == [(sp(f"P{i}S1"), PL) for i in range(3)]
    assert len(P.revolt_candidates(city, st, leader=False)) == 15 + 4   # PF everywhere, 4 with UF
    assert P.distance_limit(city, P.PUBLIC, 30) == 14 and P.distance_limit(city, P.PUBLIC, 3) == 3
    assert P.distance_limit(city, P.SOCIETY, 9) == 6
    with pytest.raises(ValueError, match=">= 0"):
        P.distance_limit(city, P.SOCIETY, -1)


def test_revolt_and_public_move():
    city = example_city()
    st = store_with(city, {"P2S3": ["pl", "uf"], "P2C1": ["uf", "sl"], "P2S2": ["sl"]})
    assert city.space_ids[P.revolt_move(city, st, "P2S3", "pl", 3, 4)] == "P0S1"
    assert city.space_ids[P.revolt_move(city, st, "P2S3", "uf", 0, 4)] == "P2S3"
    with pytest.raises(ValueError, match="Chamber"):
        P.revolt_move(city, st, "P2C1", "uf", 1, 4)
    with pytest.raises(ValueError, match="not a Society Leader"):
        P.revolt_move(city, st, "P2S2", "sl", 1, 4)
    with pytest.raises(ValueError, match=r"0\.\.4"):
        P.revolt_move(city, st, "P2S3", "uf", 5, 4)
    assert city.space_ids[P.public_move(city, st, "P0S1", "pl", 2, 2, backward=True)] == "K0a"
    assert city.space_ids[P.walk(city, city.space("K0a"), P.PUBLIC, 14)] == "P2S3"
    with pytest.raises(ValueError, match=r"0\.\.14"):
        P.walk(city, city.space("K0a"), P.PUBLIC, 15)
    with pytest.raises(ValueError, match="only along the Public path"):
        P.move_pawn(city, store_with(city, {"P0S1": ["pf"]}), "P0S1", "pf", 1, P.SOCIETY, 0)
    with pytest.raises(ValueError, match="own Society path"):
        P.move_pawn(city, st, "P2C1", "sl", 1, P.PUBLIC)


# ------------------------------------------------------------------------------ laws
def reference_place(city, space, seat, sequence):
    """Two-cursor placement re-typed from design §2.4 step 4 (as in the design checker):
    ``sequence`` = [(type, route)] in placement order; returns the spaces."""
    cur = {"public": space, "society": space}

    def nxt(route, x):
        if route == "public":
            return int(city.public_next[x])
        return int(city.society_next[x]) if city.on_society_path(x, seat) else -1

    out = []
    for _, route in sequence:
        other = "society" if route == "public" else "public"
        y = nxt(route, cur[route])
        cur[route] = y
        if nxt(other, cur[other]) == y:
            cur[other] = y
        out.append(y)
    return out


def test_movement_matches_reference_two_cursor_placement():
    """Random piles on Public-path spaces, random placement choices: the spaces agree with the
    reference, Followers come before Leaders, and each type keeps its route's rules."""
    rng = np.random.default_rng(7)
    checked = Counter()
    for _ in range(400):
        n = int(rng.integers(2, 6))
        city = build_city(n, first_action="Fundraise")
        seat = int(rng.integers(n))
        space = int(rng.choice(city.public_loop))
        own = city.on_society_path(space, seat)
        leader = SL if own and rng.random() < 0.6 else PL
        pile = {PL: int(rng.integers(0, 2)), PF: int(rng.integers(0, 4)),
                UF: int(rng.integers(0, 5)), SL: int(rng.integers(0, 2)) if own else 0}
        pile[leader] += 1
        st = store_with(city, {city.space_ids[space]: [P.PAWN_CODES[t] for t in pile
                                                        for _ in range(pile[t])]})
        mv = start_movement(city, st, space, leader, seat)
        while (dec := mv.pending()) is not None:
            checked[dec.kind] += 1
            mv.choose(st, int(rng.choice(dec.options)))
        types = [t for t, _ in mv.placements]
        assert Counter(types) == {t: c for t, c in pile.items() if c}
        assert all(t in FOLLOWERS for t in types[:pile[PF] + pile[UF]])
        seq = []
        for t, y in mv.placements:
            route = ("society" if t == SL or (t == UF and city.kind_code[y] == C.CHAMBER)
                     else "public")
            seq.append((t, route))
            if t == UF and leader == PL:
                assert city.is_public(y)
        assert [y for _, y in mv.placements] == reference_place(city, space, seat, seq)
    assert checked["placement_type"] > 100 and checked["uf_route"] > 20, checked


def random_step(rng, city, st, seen):
    """One random legal pawn operation on ``st``; counts what it exercised in ``seen``."""
    n = city.num_paths
    seat = int(rng.integers(n))
    kind = str(rng.choice(["action", "action", "regroup", "revolt", "purge", "move"]))
    seen[kind] += 1
    if kind == "action":
        choices = P.leader_choices(city, st, seat)
        space, leader = choices[int(rng.integers(len(choices)))]
        before = st.totals()
        own_sl = city.on_society_path(space, seat) and st.count(space, SL) > 0
        mv = start_movement(city, st, space, leader, seat, automatic=bool(rng.random() < 0.1))
        k = sum(mv.in_hand) + len(mv.placements)
        while (dec := mv.pending()) is not None:
            np.testing.assert_array_equal(st.totals() + np.array(mv.in_hand), before)
            seen[dec.kind] += 1
            mv.choose(st, int(rng.choice(dec.options)))
        if leader == PL and not own_sl:
            # without a Society Leader every pawn takes the Public path: one per space ahead
            assert [s for _, s in mv.placements] == [P.walk(city, space, P.PUBLIC, d % (5 * n))
                                                     for d in range(1, k + 1)]
            seen["full circle"] += k > 5 * n
        return
    if kind == "regroup":
        pool = [(s, t) for s in city.society_path(seat) for t in (PF, UF, SL) if st.count(s, t)]
        if pool:
            s, t = pool[int(rng.integers(len(pool)))]
            strength = int(rng.integers(0, 9))
            P.regroup_move(city, st, seat, s, t, int(rng.integers(0, min(strength, 6) + 1)),
                           strength)
        return
    if kind in ("revolt", "move"):
        pool = [(s, t) for s in city.public_loop for t in (PL, PF, UF) if st.count(int(s), t)]
        s, t = pool[int(rng.integers(len(pool)))]
        if kind == "revolt":
            P.revolt_move(city, st, int(s), t, int(rng.integers(0, 5)), 4)
        else:
            P.public_move(city, st, int(s), t, int(rng.integers(0, 3)), 2,
                          backward=bool(rng.random() < 0.5))
        return
    pool = [(s, t) for s in city.sidewalks(seat) for t in (PF, UF) if st.count(s, t)]
    if pool:
        s, t = pool[int(rng.integers(len(pool)))]
        P.purge_move(city, st, seat, s, t, int(rng.integers(2)) if t == UF else None)


def run_random(seed, steps, seen):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    socs = list(rng.permutation(SOCIETIES)[:n])
    city = build_city(n, socs, rng=rng)
    st = initial_pawns(city)
    start = st.totals()
    per_seat_sl = [st.society_leaders_of(city, i) for i in range(n)]
    for _ in range(steps):
        random_step(rng, city, st, seen)
        np.testing.assert_array_equal(st.totals(), start)
        assert st.violations(city) == []
    assert [st.society_leaders_of(city, i) for i in range(n)] == per_seat_sl
    seen[f"{n} paths"] += 1


def test_random_moves_conserve_pawns():
    """Law over random positions at 2-5 paths: counts by type never change, every pawn stands
    where its type may, each seat keeps its Society Leaders."""
    seen = Counter()
    for seed in range(24):
        run_random(seed, 60, seen)
    for key in ("2 paths", "3 paths", "4 paths", "5 paths", "action", "regroup", "revolt",
                "purge", "move", "placement_type", "uf_route"):
        assert seen[key] > 0, (key, seen)


@pytest.mark.slow
def test_random_moves_conserve_pawns_long():
    seen = Counter()
    for seed in range(100, 300):
        run_random(seed, 300, seen)
    assert seen["full circle"] > 0, seen
