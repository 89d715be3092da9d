"""Relic Map rules (rulebook "Acquiring Relics", "Discover"; design §3): Joan's Discover, costs,
route Chaos, the budget mask, setup and end-of-turn refill worked by hand, plus random laws."""

import random

import numpy as np
import pytest

from envs.clandestine import relic_map as rm
from envs.clandestine.relic_map import (DiscoverPurchase, MapState, map_costs, refill_end_of_turn,
                                        relic_cost, route_chaos, setup_map)

VALUES = rm.relic_values()


def full_map(prefix="X"):
    """A Map with every Harbor/Route space filled by ids like X.H, X.R1.0 (no Extension)."""
    return MapState.from_spaces({s: f"{prefix}{s}" for s in rm.SETUP_ORDER})


# ------------------------------------------------------------------ constants and data
def test_map_order_matches_design():
    assert rm.MAP_ORDER == ("H", "R1.0", "R1.1", "R1.2", "R2.0", "R2.1", "R2.2", "R3.0", "R3.1",
                            "R3.2", "R4.0", "R4.1", "R4.2", "E1", "E2", "E3", "E4")
    assert rm.NUM_SPACES == 17 and rm.CARDS_ON_MAP == 13
    assert [rm.space_route(s) for s in ("H", "R2.1", "E3")] == [None, "R2", "R3"]
    assert [rm.space_row(s) for s in ("H", "R4.2", "E1")] == [None, 2, 3]
    assert len(VALUES) == 108 and VALUES["R055"] == 1 and VALUES["R088"] == 2


# ------------------------------------------------------------------ Joan's Discover
def joan_map(toad_space="R1.0"):
    spaces = {"R1.1": "R088", "R2.1": "R028", toad_space: "R055"}
    return MapState.from_spaces(spaces)


def test_joan_discover_costs_total_and_one_chaos():
    """Rulebook: Strength 6, Ruby Toad (1) + Elaborate Orrery (2+1) + Bloodied Scales (1+1) = 6,
    two Routes -> 1 Chaos (design §13)."""
    m = joan_map()
    costs = map_costs(m, VALUES)
    assert costs[rm.MAP_INDEX["R1.0"]] == 1
    assert costs[rm.MAP_INDEX["R1.1"]] == 3
    assert costs[rm.MAP_INDEX["R2.1"]] == 2
    d = DiscoverPurchase(6, costs)
    assert set(d.legal_picks()) == {"R1.0", "R1.1", "R2.1"}
    for s in ("R1.0", "R1.1", "R2.1"):
        d = d.pick(s)
    assert d.spent == 6 and d.remaining == 0 and d.legal_picks() == ()
    assert d.routes() == ("R1", "R2")
    assert d.chaos() == 1
    new_map, hand = rm.acquire(m, d.picks)
    assert hand == ("R055", "R088", "R028") and len(new_map) == 0


@pytest.mark.parametrize("toad", ["H", "R1.0", "R2.0"])
def test_joan_toad_anywhere_in_bottom_gives_same_result(toad):
    """Design §13: the Toad at row 0 of either Route or in the Harbor: total 6, 1 Chaos."""
    m = joan_map(toad)
    d = DiscoverPurchase(6, map_costs(m, VALUES))
    for s in (toad, "R1.1", "R2.1"):
        d = d.pick(s)
    assert d.remaining == 0 and d.chaos() == 1


def test_joan_over_budget_pick_refused():
    d = DiscoverPurchase(5, map_costs(joan_map(), VALUES)).pick("R1.1").pick("R2.1")
    assert d.remaining == 0
    with pytest.raises(ValueError, match="costs 1, only 0"):
        d.pick("R1.0")


# ------------------------------------------------------------------ costs
def test_relic_cost_rows_agents_chaos_and_extension():
    assert [relic_cost(s, 2) for s in ("H", "R3.0", "R3.1", "R3.2", "E3")] == [2, 2, 3, 4, 5]
    # Extension: Mariners pay value - 1, min 0 (design §5.2)
    assert relic_cost("E1", 1, buyer_mariners=True) == 0
    assert relic_cost("E1", 4, buyer_mariners=True) == 3
    assert relic_cost("R1.2", 4, buyer_mariners=True) == 6  # normal rows: no Mariners discount
    # Silver Guard Agents: +1 each (design §10.7)
    assert relic_cost("R2.1", 1, agents=2) == 4
    # Twilight Chaos on a Relic: others pay more, the Masks less, min 0 (design §5.4)
    assert relic_cost("R2.0", 1, masks_chaos=2) == 3
    assert relic_cost("R2.0", 1, masks_chaos=2, buyer_masks=True) == 0
    assert relic_cost("R2.2", 3, masks_chaos=2, buyer_masks=True) == 3
    with pytest.raises(ValueError, match="agents"):
        relic_cost("H", 1, agents=-1)
    with pytest.raises(ValueError, match="unknown Relic Map space"):
        relic_cost("R5.0", 1)
    with pytest.raises(ValueError, match="both"):
        relic_cost("H", 1, buyer_masks=True, buyer_mariners=True)


def test_map_costs_tokens_follow_the_card():
    m = MapState.from_spaces({"R1.0": "R055", "E2": "R088"})
    costs = map_costs(m, VALUES, agents={"R055": 1}, masks_chaos={"R088": 1})
    assert costs[rm.MAP_INDEX["R1.0"]] == 2 and costs[rm.MAP_INDEX["E2"]] == 6
    assert sum(c is not None for c in costs) == 2
    with pytest.raises(ValueError, match="no value given"):
        map_costs(m, {"R055": 1})


# ------------------------------------------------------------------ route Chaos
@pytest.mark.parametrize("spaces,kw,chaos", [
    ((), {}, 0),
    (("R1.0", "R1.2"), {}, 0),
    (("H", "R3.1"), {}, 0),                       # the Harbor is no Route
    (("H", "R1.0", "R2.0", "R3.0"), {}, 2),        # rulebook: three Routes -> 2 Chaos
    (("R1.0", "R2.0", "R3.0", "R4.0"), {}, 3),
    (("R1.0", "R2.0"), {"buyer_mariners": True}, 0),   # chartered routes (§5.2)
    (("R1.0", "R2.0", "R3.0"), {"buyer_mariners": True}, 1),
    (("R1.0", "R2.0", "R3.0"), {"free_routes": 1}, 1),  # Clockwork Owl
    (("E1", "R1.1"), {}, 0),                       # an Extension slot is its Route
    (("E1", "R2.1"), {}, 1),
])
def test_route_chaos(spaces, kw, chaos):
    assert route_chaos(spaces, **kw) == chaos


# ------------------------------------------------------------------ budget mask
def test_budget_mask_shrinks_with_each_pick():
    m = MapState.from_spaces({"H": "R001", "R1.0": "R007", "R1.2": "R015", "R2.1": "R028",
                              "R4.0": "R073"})
    costs = map_costs(m, VALUES)   # H 1, R1.0 2, R1.2 5, R2.1 2, R4.0 3
    d = DiscoverPurchase(4, costs)
    want = np.zeros(17, bool)
    want[[rm.MAP_INDEX[s] for s in ("H", "R1.0", "R2.1", "R4.0")]] = True
    assert d.mask().dtype == bool and d.mask().shape == (17,)
    assert np.array_equal(d.mask(), want)
    d = d.pick("R4.0")              # 1 left
    assert d.legal_picks() == ("H",)
    d = d.pick("H")
    assert d.remaining == 0 and not d.mask().any()
    assert DiscoverPurchase(-3, costs).legal_picks() == ()  # Strength floored at 0
    with pytest.raises(ValueError, match="empty"):
        DiscoverPurchase(9, costs).pick("R3.0")
    with pytest.raises(ValueError, match="already taken"):
        DiscoverPurchase(9, costs).pick("H").pick("H")


# ------------------------------------------------------------------ setup and refill
def test_setup_fills_harbor_then_routes_bottom_to_top():
    deck = [f"D{i:02d}" for i in range(20)]
    res = setup_map(deck)
    assert res.relic_map["H"] == "D00"
    assert [res.relic_map[f"R1.{r}"] for r in range(3)] == ["D01", "D02", "D03"]
    assert res.relic_map["R4.2"] == "D12" and res.relic_map["E1"] is None
    assert res.deck == tuple(deck[13:]) and not res.deck_emptied
    with pytest.raises(ValueError, match="needs 13"):
        setup_map(deck[:12])


def test_refill_harbor_choice_slide_and_draw_order():
    """Harbor taken; R2.0, R4.1 taken. Choices: R1, R3, R4 (row 0 occupied). Choosing R3: its
    row-0 card enters the Harbor, every Route slides down, the deck fills R2.2, R3.2, R4.2."""
    m = full_map().with_cards({"H": None, "R2.0": None, "R4.1": None})
    assert rm.harbor_choices(m) == ("R1", "R3", "R4")
    res = refill_end_of_turn(m, ["N1", "N2", "N3", "N4"], harbor_route="R3")
    got = res.relic_map
    assert got["H"] == "XR3.0"
    assert [got[f"R3.{r}"] for r in range(3)] == ["XR3.1", "XR3.2", "N2"]
    assert [got[f"R2.{r}"] for r in range(3)] == ["XR2.1", "XR2.2", "N1"]
    assert [got[f"R4.{r}"] for r in range(3)] == ["XR4.0", "XR4.2", "N3"]
    assert [got[f"R1.{r}"] for r in range(3)] == ["XR1.0", "XR1.1", "XR1.2"]
    assert res.revealed == (("R2.2", "N1"), ("R3.2", "N2"), ("R4.2", "N3"))
    assert res.deck == ("N4",) and not res.deck_emptied


def test_refill_harbor_empty_without_row0_cards_is_drawn_first():
    m = MapState.from_spaces({"R1.1": "a", "R2.2": "b"})
    assert rm.harbor_choices(m) == ()
    res = refill_end_of_turn(m, [f"N{i}" for i in range(12)])
    got = res.relic_map
    assert got["H"] == "N0"                               # the Harbor first
    assert [got[f"R1.{r}"] for r in range(3)] == ["a", "N1", "N2"]
    assert [got[f"R2.{r}"] for r in range(3)] == ["b", "N3", "N4"]
    assert got["R4.2"] == "N10" and res.deck == ("N11",)


def test_refill_extension_card_slides_down_with_its_route():
    m = full_map().with_cards({"R1.0": None, "E1": "x", "E3": "y"})
    res = refill_end_of_turn(m, ["N1"])
    got = res.relic_map
    assert [got[f"R1.{r}"] for r in range(3)] == ["XR1.1", "XR1.2", "x"]
    assert got["E1"] is None and got["E3"] == "y"       # never refilled from the deck
    assert res.deck == ("N1",) and res.revealed == ()


def test_refill_deck_runs_out_signals_end_trigger():
    m = full_map().with_cards({"R1.0": None, "R2.0": None, "R3.0": None})
    res = refill_end_of_turn(m, ["N1", "N2"])
    assert res.deck == () and res.deck_emptied
    assert res.relic_map["R1.2"] == "N1" and res.relic_map["R2.2"] == "N2"
    assert res.relic_map["R3.2"] is None and len(res.relic_map) == 12
    again = refill_end_of_turn(res.relic_map, [])
    assert not again.deck_emptied and again.relic_map == res.relic_map


def test_refill_harbor_route_errors():
    m = full_map().with_cards({"H": None})
    with pytest.raises(ValueError, match="harbor_route must be one of"):
        refill_end_of_turn(m, [])
    with pytest.raises(ValueError, match="harbor_route must be one of"):
        refill_end_of_turn(m.with_cards({"R2.0": None}), [], harbor_route="R2")
    with pytest.raises(ValueError, match="occupied"):
        refill_end_of_turn(full_map(), [], harbor_route="R1")
    with pytest.raises(ValueError, match="more than one Map space"):
        MapState.from_spaces({"H": "a", "R1.0": "a"})


def test_extension_reveal():
    m = full_map()
    assert rm.extension_targets(m) == rm.EXTENSION_SLOTS
    res = rm.reveal_to_extension(m, ["t1"], "E2")
    assert res.relic_map["E2"] == "t1" and res.deck_emptied
    assert rm.extension_targets(res.relic_map) == ("E1", "E3", "E4")
    with pytest.raises(ValueError, match="already holds"):
        rm.reveal_to_extension(res.relic_map, ["t2"], "E2")
    assert rm.reveal_to_extension(m, [], "E1").relic_map == m


def test_draw_from_deck_signals_the_last_card():
    assert rm.draw_from_deck(["a", "b", "c"], 2) == (("a", "b"), ("c",), False)
    assert rm.draw_from_deck(["a", "b"], 3) == (("a", "b"), (), True)
    assert rm.draw_from_deck([], 1) == ((), (), False)
    assert rm.draw_from_deck(["a"], 0) == ((), ("a",), False)


def test_extension_pick_is_reported_for_port_dues():
    m = MapState.from_spaces({"E4": "R055", "R4.0": "R001"})
    d = DiscoverPurchase(9, map_costs(m, VALUES, buyer_mariners=True))
    assert d.costs[rm.MAP_INDEX["E4"]] == 0
    d = d.pick("R4.0")
    assert not d.took_extension()
    d = d.pick("E4")
    assert d.took_extension() and d.routes() == ("R4",) and d.chaos() == 0


# ------------------------------------------------------------------ laws over random positions
def random_map(rng, ids):
    spaces = [s for s in rm.MAP_ORDER if rng.random() < 0.7]
    return MapState.from_spaces(dict(zip(spaces, rng.sample(ids, len(spaces)))))


def test_laws_random_discover_and_refill():
    rng = random.Random(7)
    ids = sorted(VALUES)
    for _ in range(300):
        m = random_map(rng, ids)
        costs = map_costs(m, VALUES, buyer_mariners=rng.random() < 0.3)
        d = DiscoverPurchase(rng.randint(0, 14), costs)
        while d.legal_picks():
            d = d.pick(rng.choice(d.legal_picks()))
        # stopped: every untaken Relic is beyond the remaining budget
        left = [c for s, c in zip(rm.MAP_ORDER, costs) if c is not None and s not in d.picks]
        assert all(c > d.remaining for c in left) and d.spent <= d.budget
        m2, taken = rm.acquire(m, d.picks)
        on_map = set(m2.as_dict().values())
        deck = [c for c in ids if c not in on_map and c not in taken][:rng.randint(0, 15)]
        choices = rm.harbor_choices(m2)
        res = refill_end_of_turn(m2, deck, rng.choice(choices) if choices else None)
        # conservation: nothing lost or duplicated
        before = sorted(list(on_map) + deck)
        after = sorted(list(res.relic_map.as_dict().values()) + list(res.deck))
        assert before == after
        # rows are packed from row 0, and full whenever cards were left in the deck
        for r in rm.ROUTES:
            col = [res.relic_map[f"{r}.{k}"] for k in range(3)]
            assert col == sorted(col, key=lambda c: c is None)
        if res.deck:
            assert all(res.relic_map[s] is not None for s in rm.SETUP_ORDER)
        assert res.deck_emptied == (bool(deck) and not res.deck)
