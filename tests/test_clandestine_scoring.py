"""Final scoring, tie-breaks and returns (rulebook "The End"; design §1.6, ruling 27): Victor's 72,
hand-worked ties, the Chaos penalty with overflow, the Twilight purge score and the margin term."""

import json

import numpy as np
import pytest

from envs.clandestine import scoring as sc
from envs.clandestine.scoring import (Categories, ScoreSheet, SeatScore, final_returns,
                                      nemesis_score, returns, score, winners)

DATA = json.loads(sc.DATA_PATH.read_text(encoding="utf-8"))
RELIC = {r["id"]: r for r in DATA["relics"]}
SECRET = {c["id"]: c for cards in DATA["secrets"].values() for c in cards}


def victor_sheet():
    """Victor (Mariners, Level IV), design §13, built from the card data where it can be."""
    assert RELIC["R098"]["score"] == {"per": "assigned_relics"}    # Cracked Mirror
    assigned = 5
    tucked = ["R026", "R053", "R022", "R037", "R055"]               # 4 + 4 + 3 + 1 + 1 = 13
    hand = ["mariners-4-01", "mariners-4-02", "mariners-1-01"]      # two Level IV, one Level I
    return ScoreSheet.for_society(
        "mariners", level=4, conjunction_matches=2, flag_relics=assigned,
        tucked_relics=sum(RELIC[r]["intrigue"] for r in tucked),
        secrets_in_hand=sum(SECRET[s]["intrigue"] for s in hand),
        society_leaders=4, universal_followers=6, intrigue_tokens=8,
        flag_tiles=sc.ftl_intrigue(2), chaos=7, first_to_level=(2,))


def test_victor_72():
    s = score(victor_sheet())
    assert s.categories == Categories(16, 4, 5, 13, 9, 12, 6, 3 + 8, -4, 0)
    assert s.total == 72
    assert s.first_to_level == (2,) and not s.nemesis


# ------------------------------------------------------------------ categories one by one
def test_each_category():
    base = dict(level=1)
    assert score(ScoreSheet(**base)).total == 1
    assert score(ScoreSheet(level=3, conjunction_matches=6)).categories.conjunction == 12
    assert score(ScoreSheet(level=1, society_leaders=6)).categories.society_leaders == 18
    assert score(ScoreSheet(level=1, universal_followers=9)).categories.universal_followers == 9
    assert score(ScoreSheet(level=5, intrigue_tokens=4, flag_tiles=6)).total == 25 + 10
    with pytest.raises(ValueError, match="conjunction_matches"):
        ScoreSheet(level=1, conjunction_matches=7)
    with pytest.raises(ValueError, match="level"):
        ScoreSheet(level=0)
    with pytest.raises(ValueError, match="tucked_relics"):
        ScoreSheet(level=1, tucked_relics=-1)


def test_chaos_penalty_highest_slot_and_overflow():
    pen = sc.chaos_penalties("mariners")
    assert pen == (0, 0, 1, 1, 2, 3, 4, 5, 7, 9)
    assert [sc.chaos_penalty(c, pen) for c in (0, 1, 3, 7, 10, 14)] == [0, 0, 1, 4, 9, 9]
    serp = sc.chaos_penalties("serpent")
    assert sc.chaos_penalty(2, serp) == 1 and sc.chaos_penalty(30, serp) == 8
    s = score(ScoreSheet.for_society("twilight", level=2, chaos=12))
    assert s.categories.chaos == -9 and s.total == 4 - 9           # totals can be negative
    with pytest.raises(ValueError, match="chaos_penalties"):
        ScoreSheet(level=1, chaos=2)


def test_twilight_three_per_two_purged():
    pur = [score(ScoreSheet.for_society("twilight", level=1, purged_chaos=n))
           .categories.purged_chaos for n in (0, 1, 2, 5, 8)]
    assert pur == [0, 0, 3, 6, 12]
    with pytest.raises(ValueError, match="Twilight"):
        ScoreSheet.for_society("garden", level=1, purged_chaos=2)


def test_ftl_intrigue_and_bad_tiles():
    assert [sc.ftl_intrigue(lv) for lv in (2, 3, 4, 5)] == [3, 4, 5, 6]
    with pytest.raises(ValueError, match="first_to_level"):
        ScoreSheet(level=3, first_to_level=(1,))
    with pytest.raises(ValueError, match="first_to_level"):
        ScoreSheet(level=3, first_to_level=(2, 2))


# ------------------------------------------------------------------ tie-breaks
def human(total_cats, ftl=()):
    cats = Categories(*total_cats)
    return SeatScore(sum(cats), tuple(ftl), cats, False)


def test_unique_best_wins():
    a = human((16, 0, 0, 0, 0, 6, 0, 0, 0, 0))
    b = human((9, 0, 0, 0, 0, 6, 0, 0, 0, 0))
    assert winners([a, b]) == (0,)


def test_tie_highest_first_to_level_tile_wins_over_categories():
    a = human((16, 4, 0, 0, 0, 0, 0, 0, 0, 0), ftl=(2,))    # 20, better Level
    b = human((9, 0, 0, 0, 0, 0, 0, 11, 0, 0), ftl=(3,))    # 20, FTL III
    c = human((4, 0, 0, 0, 0, 0, 0, 16, 0, 0))              # 20, no tile
    assert winners([a, b, c]) == (1,)
    assert winners([a, c]) == (0,)
    assert winners([c, b]) == (1,)


def test_tie_without_tiles_compares_categories_in_order():
    a = human((9, 2, 0, 0, 0, 0, 0, 9, 0, 0))     # 20
    b = human((9, 4, 0, 0, 0, 0, 0, 7, 0, 0))     # 20: same Level, better Conjunction
    c = human((16, 0, 0, 0, 0, 0, 0, 4, 0, 0))    # 20: best Level
    assert winners([a, b]) == (1,)
    assert winners([a, b, c]) == (2,)


def test_tie_decided_by_the_chaos_category():
    a = human((9, 0, 0, 0, 0, 6, 0, 5, -2, 0))
    b = human((9, 0, 0, 0, 0, 6, 0, 7, -4, 0))
    assert winners([a, b]) == (1,)               # tokens_and_tiles comes before chaos
    a = human((9, 0, 0, 0, 0, 6, 0, 5, -2, 0))
    b = human((9, 0, 0, 0, 0, 6, 0, 5, -4, 2))
    assert winners([a, b]) == (0,)               # equal through tokens, less Chaos penalty


def test_full_tie_is_a_shared_win():
    a = human((9, 2, 0, 1, 0, 3, 0, 0, 0, 0))
    b = human((9, 2, 0, 1, 0, 3, 0, 0, 0, 0))
    c = human((9, 2, 0, 0, 0, 3, 0, 1, 0, 0))    # same total, loses at tucked_relics
    assert winners([a, c, b]) == (0, 2)
    assert np.array_equal(final_returns([a, c, b]), [1.0, -1.0, 1.0])


def test_nemesis_ties():
    h = human((9, 0, 0, 0, 0, 6, 0, 5, 0, 0))           # 20
    n = nemesis_score(20)
    assert winners([h, n]) == (1,)                       # no tile among them: the Nemesis
    assert winners([human(tuple(h.categories), ftl=(2,)), n]) == (0,)
    assert winners([human(tuple(h.categories), ftl=(2,)), nemesis_score(20, (4,))]) == (1,)
    with pytest.raises(ValueError, match="held by two seats"):
        winners([human(tuple(h.categories), ftl=(2,)), nemesis_score(20, (2,))])


# ------------------------------------------------------------------ returns
def test_returns_win_loss_and_margin():
    totals = [72, 60, 72, 40]
    assert np.array_equal(returns(totals, [0]), [1, -1, -1, -1])
    got = returns(totals, [0], margin_weight=0.5, margin_scale=40)
    assert np.allclose(got, [1.0, -1.0 - 0.5 * 0.3, -1.0, -1.0 - 0.5 * 0.8])
    got = returns([100, 20], [0], margin_weight=0.25)          # default scale 40, clipped
    assert np.allclose(got, [1.25, -1.25])
    got = returns([30, 25, 10], [0], margin_weight=1.0, margin_scale=10)
    assert np.allclose(got, [1.5, -1.5, -2.0])
    assert got.dtype == np.float64 and got.shape == (3,)
    assert sc.DEFAULT_MARGIN_WEIGHT == 0.0 and sc.DEFAULT_MARGIN_SCALE == 40


def test_returns_bad_parameters():
    with pytest.raises(ValueError, match="margin_weight"):
        returns([1, 2], [1], margin_weight=-0.1)
    with pytest.raises(ValueError, match="margin_scale"):
        returns([1, 2], [1], margin_weight=1.0, margin_scale=0)
    with pytest.raises(ValueError, match="winner_seats"):
        returns([1, 2], [2])
    with pytest.raises(ValueError, match="at least 2"):
        returns([1], [0])


# ------------------------------------------------------------------ Conjunction goal matches
def test_goal_groups_are_every_societys_chamber_slots():
    for soc in sc.SOCIETIES:
        slots = sc.society_relic_slots(soc)
        groups = [tuple(s - 1 for s, c in slots if c == ch) for ch in ("C1", "C2", "C3", "C4")]
        assert tuple(groups) == sc.GOAL_GROUPS


def test_conjunction_matches_chamber_rule_and_dark_suits():
    goal = ("Rod", "Sword", "Disk", "Chalice", "Rod", "Sword")        # J01 Alignment of Tides
    assert tuple(DATA["conjunctions"][0]["goal"]) == goal
    exact = [("Rod",), ("Sword",), ("Disk",), ("Chalice",), ("Rod",), ("Sword",)]
    assert sc.conjunction_matches(goal, exact) == 6
    swapped = [("Rod",), ("Disk",), ("Sword",), ("Rod",), ("Chalice",), ("Sword",)]
    assert sc.conjunction_matches(goal, swapped) == 6      # either order within C2 and C3
    across = [("Sword",), ("Rod",), ("Disk",), ("Chalice",), ("Rod",), ("Sword",)]
    assert sc.conjunction_matches(goal, across) == 4       # no swapping between Chambers
    # R019 Bone Scepter: Rod, or Sword by its alternate suit; it cannot fill two goal places
    dark = [None, ("Rod", "Sword"), ("Sword",), None, None, None]
    assert sc.conjunction_matches(goal, dark) == 1
    dark = [None, ("Rod", "Sword"), ("Disk",), None, None, ("Sword",)]
    assert sc.conjunction_matches(goal, dark) == 3
    assert sc.conjunction_matches(goal, [None] * 6) == 0
    # Victor: 2 matches -> 4 Intrigue
    two = [("Rod",), ("Chalice",), None, ("Chalice",), ("Disk",), ("Disk",)]
    assert score(ScoreSheet(level=1, conjunction_matches=sc.conjunction_matches(goal, two))
                 ).categories.conjunction == 4
    with pytest.raises(ValueError, match="6 entries"):
        sc.conjunction_matches(goal, [None] * 5)


# ------------------------------------------------------------------ Silver Guard hook
def test_silver_guard_pre_step():
    slots = sc.society_relic_slots("mariners")     # C1:1, C2:2,3, C3:4,5, C4:6
    assert sc.silver_guard_pre_step({}, slots) == ((), ())
    got = sc.silver_guard_pre_step({"C2": 1, "C4": 2, "C1": 0}, slots)
    assert got.chambers == ("C2", "C4") and got.slots == (2, 3, 6)
    with pytest.raises(ValueError, match="Chamber"):
        sc.silver_guard_pre_step({"C9": 1}, slots)
