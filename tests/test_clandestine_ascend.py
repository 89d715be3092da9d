"""Ascend cost and payment (rulebook "Ascend", "Ascending"; design §1.3, §1.7, rulings 23, 33):
Tam's Ascend, hand-worked minimal discard sets, masks, and a brute-force law for the card mask."""

import random

import numpy as np
import pytest

from envs.clandestine import ascend as asc
from envs.clandestine.ascend import (REDUCE_GOLD, REDUCE_SUIT, AscendCost, SuitCard, ascend_cost,
                                     card_choices, is_minimal_payment, minimal_payments,
                                     payable_reductions, payable_suits, reduce_cost)

SOCIETIES = ("mariners", "garden", "twilight", "serpent", "blue")


def tam_hand():
    """R037 Surveyor's Level (2 Sword) and two Level I Sword Secrets (1 each)."""
    return [asc.relic_card("R037"), asc.secret_card("mariners-1-04"),
            asc.secret_card("mariners-1-09")]


def ids(cards):
    return tuple(c.id for c in cards)


# ------------------------------------------------------------------ cards
def test_suit_cards_from_data():
    assert asc.relic_card("R037") == SuitCard("R037", "relic", (0, 2, 0, 0))
    # Dark Relic: 2 Rod or 1 Sword (alternate), never both in one payment
    r019 = asc.relic_card("R019")
    assert (r019.contribution("Rod"), r019.contribution("Sword")) == (2, 1)
    assert asc.relic_card("R026").icons == (3, 0, 1, 0)
    assert asc.secret_card("mariners-1-04").icons == (0, 1, 0, 0)
    assert asc.secret_card("mariners-conj").icons == (0, 0, 1, 1)
    with pytest.raises(ValueError, match="unknown Relic"):
        asc.relic_card("R200")
    with pytest.raises(ValueError, match="unknown Suit"):
        SuitCard.secret("x", ["Cup"])
    with pytest.raises(ValueError, match="kind"):
        SuitCard("x", "tile", (1, 0, 0, 0))


def test_suit_card_from_content_records():
    from types import SimpleNamespace as NS
    relic = NS(id="R106", suit="Chalice", icons=2, alt_suit="Rod", alt_icons=1, value=4)
    assert SuitCard.from_content(relic) == asc.relic_card("R106")
    secret = NS(id="blue-1-01", suits=("Rod",), level=1)
    assert SuitCard.from_content(secret) == asc.secret_card("blue-1-01")
    with pytest.raises(ValueError, match="cannot read"):
        SuitCard.from_content(NS(id="T-FTL-II"))


def test_secret_with_a_doubled_suit_gives_two_icons():
    doubled = [c for c in asc._data()["secrets"]["blue"] if len(c["suits"]) == 2
               and c["suits"][0] == c["suits"][1]]
    assert doubled
    c = asc.secret_card(doubled[0]["id"])
    assert c.contribution(doubled[0]["suits"][0]) == 2


# ------------------------------------------------------------------ cost
@pytest.mark.parametrize("society", SOCIETIES)
def test_every_dial_level_one_costs_8_gold_and_4_suits(society):
    dial = asc.society_dial(society)
    assert ascend_cost(dial, 1) == AscendCost(8, 4)
    assert ascend_cost(dial, 5) is None         # ruling 33: Level V does nothing


def test_eye_mods_and_floors():
    dial = asc.society_dial("mariners")
    assert ascend_cost(dial, 4) == (17, 7)
    # R079 Usurer's Ledger (-4 Gold) + R106 Witch's Cauldron (-1 Suit)
    assert ascend_cost(dial, 4, ascend_gold=-4, ascend_suit=-1) == (13, 6)
    assert ascend_cost(dial, 1, ascend_gold=-20, ascend_suit=-9) == (0, 1)   # Suit min 1
    with pytest.raises(ValueError, match="level"):
        ascend_cost(dial, 6)


def test_tam_reductions_either_gold_or_suit():
    """Tam, Strength 3: 8 Gold + 4 Sword becomes 5 Gold + 4, or 8 Gold + 3, never both."""
    cost = ascend_cost(asc.society_dial("garden"), 1)
    assert reduce_cost(cost, 3, REDUCE_GOLD) == (5, 4)
    assert reduce_cost(cost, 3, REDUCE_SUIT) == (8, 3)
    assert reduce_cost(cost, 10, REDUCE_GOLD) == (0, 4)
    assert reduce_cost(cost, 11, REDUCE_SUIT) == (8, 0)    # min 0, the Suit is still named
    assert reduce_cost(cost, -2, REDUCE_SUIT) == (8, 4)    # Strength floored at 0
    with pytest.raises(ValueError, match="reduction"):
        reduce_cost(cost, 3, 2)


def test_tam_full_cost_needs_all_three_cards():
    hand = tam_hand()
    assert minimal_payments(hand, "Sword", 4) == (ids(hand),)
    assert card_choices(hand, "Sword", 4) == ids(hand)
    assert card_choices(hand, "Sword", 4, ["mariners-1-04"]) == ("R037", "mariners-1-09")
    assert card_choices(hand, "Sword", 4, ids(hand)) == ()       # covered: the sequence ends
    assert is_minimal_payment(hand, "Sword", 4)


def test_tam_suit_reduction_r037_and_one_secret_is_minimal():
    hand = tam_hand()
    assert minimal_payments(hand, "Sword", 3) == (("R037", "mariners-1-04"),
                                                  ("R037", "mariners-1-09"))
    assert not is_minimal_payment(hand, "Sword", 3)       # a Secret would be removable
    assert card_choices(hand, "Sword", 3) == ids(hand)
    # after a Secret, only R037 completes a minimal set (the other Secret would overpay)
    assert card_choices(hand, "Sword", 3, ["mariners-1-09"]) == ("R037",)
    assert card_choices(hand, "Sword", 3, ["R037"]) == ("mariners-1-04", "mariners-1-09")


def test_tam_payable_suits_and_reductions():
    hand = tam_hand()
    cost = ascend_cost(asc.society_dial("blue"), 1)
    assert payable_suits(hand, 8, cost, 3) == ("Sword",)
    assert payable_reductions(hand, 8, cost, 3, "Sword") == (True, True)
    assert payable_reductions(hand, 7, cost, 3, "Sword") == (True, False)   # 5 Gold only
    assert payable_reductions(hand, 4, cost, 3, "Sword") == (False, False)
    assert payable_suits(hand, 4, cost, 3) == ()
    # without the Relic: 2 Sword; Strength 4 halves to 2 -> payable only by the Suit reduction
    assert payable_reductions(hand[1:], 8, cost, 4, "Sword") == (False, True)
    assert np.array_equal(asc.suit_mask(hand, 8, cost, 3), [False, True, False, False])
    assert payable_suits(hand, 99, None, 9) == ()          # Level V
    assert not asc.suit_mask(hand, 99, None, 9).any()


# ------------------------------------------------------------------ hand-worked minimality
def cards(contribs, suit="Rod"):
    return [SuitCard(f"c{i}", "relic", tuple(v if s == suit else 0 for s in asc.SUITS))
            for i, v in enumerate(contribs)]


def test_minimal_sets_with_a_three_icon_card():
    """Contributions 3, 1, 1, 2 against 4: {3,1}, {3,1'}, {3,2} and {2,1,1'} are minimal;
    {3,1,1'} is not (a 1 is removable)."""
    h = cards([3, 1, 1, 2])
    assert set(minimal_payments(h, "Rod", 4)) == {("c0", "c1"), ("c0", "c2"), ("c0", "c3"),
                                                  ("c1", "c2", "c3")}
    assert card_choices(h, "Rod", 4) == ("c0", "c1", "c2", "c3")
    assert card_choices(h, "Rod", 4, ["c3"]) == ("c0", "c1", "c2")
    assert card_choices(h, "Rod", 4, ["c3", "c1"]) == ("c2",)
    assert card_choices(h, "Rod", 4, ["c1"]) == ("c0", "c2", "c3")
    assert card_choices(h, "Rod", 4, ["c1", "c0"]) == ()
    assert not is_minimal_payment([h[0], h[1], h[2]], "Rod", 4)


def test_cards_without_the_suit_and_overshoot():
    h = cards([2, 0, 2])
    assert card_choices(h, "Rod", 3) == ("c0", "c2")      # c1 carries no Rod
    assert card_choices(h, "Sword", 1) == ()               # nothing pays Sword
    assert card_choices(h, "Rod", 0) == ()                 # nothing to discard
    assert is_minimal_payment([], "Rod", 0) and not is_minimal_payment([h[1]], "Rod", 0)
    assert is_minimal_payment([h[0], h[2]], "Rod", 3)      # 4 >= 3, dropping either leaves 2
    with pytest.raises(ValueError, match="not in the hand"):
        card_choices(h, "Rod", 3, ["zz"])
    with pytest.raises(ValueError, match="without Rod"):
        card_choices(h, "Rod", 3, ["c1"])


def test_dark_relic_pays_its_alternate_suit():
    hand = [asc.relic_card("R019"), asc.relic_card("R037")]     # 1 Sword (alt) + 2 Sword
    assert minimal_payments(hand, "Sword", 3) == (("R019", "R037"),)
    assert minimal_payments(hand, "Rod", 2) == (("R019",),)


def test_board_pick_slots():
    assert asc.board_pick_slots(2, "Sword") == ("AI-Sword-L", "AI-Sword-R", "AII-Sword-L",
                                                "AII-Sword-R")
    assert len(asc.board_pick_slots(5, "Chalice")) == 10
    with pytest.raises(ValueError, match="new_level"):
        asc.board_pick_slots(1, "Rod")


# ------------------------------------------------------------------ law: mask = brute force
def test_card_mask_equals_union_of_minimal_payments_containing_picks():
    rng = random.Random(3)
    for _ in range(400):
        h = cards([rng.choice([0, 1, 1, 1, 2, 2, 3]) for _ in range(rng.randint(0, 8))])
        need = rng.randint(0, 8)
        mins = [set(p) for p in minimal_payments(h, "Rod", need)]
        if asc.suit_total(h, "Rod") >= need:
            assert mins                                   # payable -> some minimal set
        picked: list[str] = []
        while True:
            offered = card_choices(h, "Rod", need, picked)
            expect = {c for p in mins if set(picked) <= p for c in p} - set(picked)
            if asc.covered([c for c in h if c.id in picked], "Rod", need):
                assert offered == ()
                break
            assert set(offered) == expect
            if not offered:
                assert not mins
                break
            picked.append(rng.choice(offered))
        if mins:
            assert is_minimal_payment([c for c in h if c.id in picked], "Rod", need)
