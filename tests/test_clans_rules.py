"""Clans rules on the board data and on hand-worked positions (rules/clans.txt, design/clans.md)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.clans import NUM_MOVE_ACTIONS, ClansState
from envs.clans import board as B
from envs.clans.engine import REWARDS
from envs.core import IllegalActionError

RED, YELLOW, GREEN, BLUE, BLACK = range(5)


def move(s: int, d: int) -> int:
    return B.EDGE_ID[(s, d)]


def position(huts: dict[int, dict[int, int]], *, villages_so_far: int = 0, turn: int = 0,
             num_players: int = 3, epoch_chart: str = "rulebook", reward: str = "win_loss",
             colours=(RED, YELLOW, GREEN, BLUE, BLACK)) -> ClansState:
    """A state with exactly ``huts`` ({area: {colour: count}}) on the board."""
    s = ClansState(seed=0, num_players=num_players, epoch_chart=epoch_chart, reward=reward)
    s.huts[:] = 0
    for area, cols in huts.items():
        for c, k in cols.items():
            s.huts[area, c] = k
    s.area_total = s.huts.sum(axis=1)
    s.villages = [-1] * villages_so_far          # earlier villages, off this picture
    s.colours = np.array(colours[:num_players])
    s.turn = turn
    s._changed()
    return s


# --- the board ------------------------------------------------------------------------------
def test_board_has_60_areas_12_regions_of_5_15_per_terrain_135_symmetric_adjacencies():
    assert B.NUM_AREAS == 60
    assert len(B.REGIONS) == 12 and all(len(r) == 5 for r in B.REGIONS)
    assert np.bincount(B.AREA_TERRAIN).tolist() == [15, 15, 15, 15]
    pairs = {frozenset((s, d)) for s in range(60) for d in B.NEIGHBOURS[s]}
    assert len(pairs) == 135 and B.NUM_EDGES == 270 == NUM_MOVE_ACTIONS
    for s in range(60):
        assert s not in B.NEIGHBOURS[s]
        for d in B.NEIGHBOURS[s]:
            assert s in B.NEIGHBOURS[d]
    # lake-separated areas are not adjacent (data note); e.g. area 5 borders lake 1 with 22
    assert 22 not in B.NEIGHBOURS[5]
    assert B.EPOCH_CHARTS["rulebook"].villages_per_epoch == (4, 3, 2, 1, 2)
    assert B.EPOCH_CHARTS["board_2002"].villages_per_epoch == (4, 3, 2, 2, 1)


def test_setup_one_hut_per_area_one_colour_group_per_region_secret_distinct_colours():
    for seed in range(20):
        s = ClansState(seed=seed, num_players=4)
        assert s.area_total.tolist() == [1] * 60
        for region in B.REGIONS:
            assert sorted(s.huts[list(region)].argmax(axis=1).tolist()) == [0, 1, 2, 3, 4]
        assert len(set(s.colours.tolist())) == 4
        assert s.current_player == s.turn and 0 <= s.turn < 4
    # the start player and the deal vary with the seed
    assert len({ClansState(seed=k).turn for k in range(30)}) == 3
    assert len({tuple(ClansState(seed=k).colours) for k in range(30)}) > 10


# --- moves ------------------------------------------------------------------------------------
def test_move_all_huts_only_onto_adjacent_occupied_areas():
    s = position({0: {RED: 1}, 1: {YELLOW: 2}, 3: {GREEN: 1}, 2: {}})
    legal = set(s.legal_actions())
    assert legal == {move(0, 1), move(1, 0), move(0, 3), move(3, 0)}
    with pytest.raises(IllegalActionError, match="destination area 2 is empty"):
        s.apply_action(move(0, 2))
    with pytest.raises(IllegalActionError, match="source area 2 is empty"):
        s.apply_action(move(2, 0))
    with pytest.raises(IllegalActionError, match="no ordering decision"):
        s.apply_action(NUM_MOVE_ACTIONS)
    s.apply_action(move(1, 0))
    assert s.huts[0].tolist() == [1, 2, 0, 0, 0] and s.area_total[1] == 0
    assert s.turn == 1 and not s.villages


def test_group_of_7_or_more_only_moves_onto_a_group_at_least_as_large():
    # area 1 (7 huts) between 0 (3 huts), 4 (8 huts), 5 (7 huts); 2 empty
    s = position({0: {RED: 3}, 1: {RED: 4, BLUE: 3}, 4: {GREEN: 8}, 5: {BLACK: 7}})
    with pytest.raises(IllegalActionError, match="7\\+"):
        s.apply_action(move(1, 0))
    legal = set(s.legal_actions())
    assert move(0, 1) in legal                      # a small group joins the big one
    assert move(1, 4) in legal and move(4, 1) not in legal   # smaller onto larger
    assert move(1, 5) in legal and move(5, 1) in legal       # equal: mover's choice
    assert move(1, 0) not in legal


# --- villages and scoring -----------------------------------------------------------------
def test_village_forms_when_its_last_occupied_neighbour_empties():
    # chain 9 - 5 - 1 - 0: moving 5 onto 1 leaves 9 with no occupied neighbour
    s = position({9: {RED: 2, YELLOW: 1}, 5: {GREEN: 1}, 1: {BLACK: 1}, 0: {BLACK: 1}})
    assert set(s.legal_actions()) == {move(9, 5), move(5, 9), move(5, 1), move(1, 5),
                                      move(1, 0), move(0, 1)}
    s.apply_action(move(5, 1))
    assert s.villages == [9] and s.village[9] and not s.village[1]
    # epoch I, forest favourable +1: 3 huts + 1 to red and yellow; chip to the mover (seat 0)
    assert s.scores.tolist() == [4, 4, 0, 0, 0]
    assert s.chips.tolist() == [1, 0, 0]
    assert s.seat_points[0].tolist() == [4, 4, 0, 0, 0]
    assert not s.is_terminal and s.turn == 1
    assert move(9, 5) not in s.legal_actions()


RULEBOOK_3_HUTS = {  # epoch: (first village index, {terrain: points of a 3-hut village})
    0: (0, {"forest": 4, "mountain": 0, "steppe": 3, "grassland": 3}),
    1: (4, {"steppe": 5, "grassland": 0, "forest": 3, "mountain": 3}),
    2: (7, {"mountain": 6, "steppe": 0, "forest": 3, "grassland": 3}),
    3: (9, {"grassland": 7, "forest": 0, "mountain": 3, "steppe": 3}),
    4: (10, {"grassland": 8, "forest": 8, "mountain": 8, "steppe": 8}),
}
BOARD_2002_3_HUTS = {
    0: (0, {"forest": 4, "mountain": 0, "steppe": 3, "grassland": 3}),
    1: (4, {"mountain": 5, "grassland": 0, "forest": 3, "steppe": 3}),
    2: (7, {"steppe": 6, "forest": 0, "mountain": 3, "grassland": 3}),
    3: (9, {"grassland": 7, "steppe": 0, "mountain": 3, "forest": 3}),
    4: (11, {"grassland": 8, "forest": 8, "mountain": 8, "steppe": 8}),
}


@pytest.mark.parametrize("chart,table", [("rulebook", RULEBOOK_3_HUTS),
                                         ("board_2002", BOARD_2002_3_HUTS)])
@pytest.mark.parametrize("epoch", range(5))
@pytest.mark.parametrize("terrain", B.TERRAINS)
def test_village_scoring_by_epoch_and_terrain(chart, table, epoch, terrain):
    k, points = table[epoch]
    b = [a for a in range(60) if B.TERRAINS[B.AREA_TERRAIN[a]] == terrain][0]
    a = B.NEIGHBOURS[b][0]
    s = position({a: {RED: 1, BLUE: 1}, b: {BLUE: 1}}, villages_so_far=k, turn=2,
                 epoch_chart=chart)
    assert s.epoch == epoch
    s.apply_action(move(a, b))
    assert s.villages[-1] == b
    assert s.scores.tolist() == [points[terrain], 0, 0, points[terrain], 0]
    assert s.chips.tolist() == [0, 0, 1]            # the chip is taken even on hostile terrain
    assert s.is_terminal                            # nothing left to move: the game ends


def test_dispute_removes_single_hut_colours_before_scoring():
    # 8 huts, all 5 colours: yellow, green, blue have one hut each and are removed
    s = position({0: {RED: 2, BLACK: 3}, 1: {YELLOW: 1, GREEN: 1, BLUE: 1},
                  30: {RED: 1}, 31: {RED: 1}}, villages_so_far=4)  # epoch II: steppe +2
    s.apply_action(move(1, 0))
    assert s.villages == [-1] * 4 + [0]
    assert s.huts[0].tolist() == [2, 0, 0, 0, 3] and s.area_total[0] == 5
    assert s.removed.tolist() == [0, 1, 1, 1, 0]
    assert s.scores.tolist() == [7, 0, 0, 0, 7]      # 5 huts + 2 (steppe, epoch II)
    assert s.area_total.sum() == 5 + 2             # the village + areas 30, 31
    # four colours only: no dispute, the single huts stay and score
    s = position({0: {RED: 2, BLACK: 3}, 1: {YELLOW: 1, GREEN: 1}, 30: {RED: 1}, 31: {RED: 1}},
                 villages_so_far=4)
    s.apply_action(move(1, 0))
    assert s.scores.tolist() == [9, 9, 9, 0, 9] and s.removed.sum() == 0


TWO_VILLAGES = {9: {RED: 2, YELLOW: 1}, 20: {RED: 1, BLUE: 1}, 5: {GREEN: 1},
                1: {BLACK: 1}, 0: {BLACK: 1}}


@pytest.mark.parametrize("first,expected", [
    # 9 (forest) in epoch I: 3+1 to red, yellow; 20 (steppe) in epoch II: 2+2 to red, blue
    (9, [8, 4, 0, 4, 0]),
    # 20 (steppe) in epoch I: neutral, 2 each; 9 (forest) in epoch II: neutral, 3 each
    (20, [5, 3, 0, 2, 0]),
])
def test_two_villages_at_an_epoch_boundary_are_ordered_by_the_mover(first, expected):
    s = position(TWO_VILLAGES, villages_so_far=3, turn=1)
    s.apply_action(move(5, 1))
    assert s.pending == [9, 20] and s.current_player == 1
    mask = s.legal_action_mask()
    assert mask[:NUM_MOVE_ACTIONS].sum() == 0
    assert mask[NUM_MOVE_ACTIONS:].tolist() == [1, 1, 0, 0, 0, 0]
    with pytest.raises(IllegalActionError, match="order the pending villages"):
        s.apply_action(move(1, 0))
    with pytest.raises(IllegalActionError, match="only 2 villages are pending"):
        s.apply_action(NUM_MOVE_ACTIONS + 2)
    obs = s.observation_tensor(1)
    assert s.layout.view(obs, "pending")[[9, 20]].tolist() == [1, 1]
    assert s.layout.view(obs, "ordering_due")[0] == 1
    s.apply_action(NUM_MOVE_ACTIONS + [9, 20].index(first))
    assert s.villages[3:] == [first, 29 - first]
    assert s.scores.tolist() == expected
    assert s.chips.tolist() == [0, 2, 0]
    assert s.turn == 2 and not s.pending and not s.is_terminal


def test_two_villages_in_one_epoch_need_no_ordering_decision():
    s = position(TWO_VILLAGES, villages_so_far=0, turn=1)
    s.apply_action(move(5, 1))
    assert s.villages == [9, 20] and not s.pending and s.turn == 2
    assert s.scores.tolist() == [4 + 2, 4, 0, 2, 0]   # forest +1 (epoch I), steppe neutral


def test_villages_at_an_epoch_boundary_that_score_alike_in_any_order_are_not_ordered():
    # positions 6 (epoch II: steppe +2, grassland 0) and 7 (epoch III: mountain +3, steppe 0):
    # 9 is forest, neutral in both (3 huts each time); 20 holds 5 single huts, all removed by
    # its dispute, so it scores nothing in either position: no order can change any colour's
    # points, so the mover is not asked (area-id order), although the signatures of positions
    # 6 and 7 differ (the epoch-boundary criterion alone would ask)
    huts = dict(TWO_VILLAGES)
    huts[20] = {c: 1 for c in range(5)}
    s = position(huts, villages_so_far=6, turn=1)
    assert not s._needs_order()
    s.apply_action(move(5, 1))
    assert s.villages[6:] == [9, 20] and not s.pending and s.turn == 2
    assert s.scores.tolist() == [3, 3, 0, 0, 0] and s.removed.tolist() == [1, 1, 1, 1, 1]
    assert s.chips.tolist() == [0, 2, 0]
    # the same picture with 20 holding red + blue: 20 on steppe scores 2 + 2 at position 6 and
    # 0 at position 7, so now the order matters and the mover is asked
    s = position(TWO_VILLAGES, villages_so_far=6, turn=1)
    s.apply_action(move(5, 1))
    assert s.pending == [9, 20] and s.current_player == 1
    s.apply_action(NUM_MOVE_ACTIONS + 1)           # 20 first: red 4 + 3, yellow 3, blue 4
    assert s.scores.tolist() == [7, 3, 0, 4, 0] and s.villages[6:] == [20, 9]


@pytest.mark.parametrize("twelfth,expected", [(9, [8, 8, 0, 0, 0]), (20, [7, 0, 0, 7, 0])])
def test_twelfth_and_thirteenth_village_mover_picks_the_twelfth(twelfth, expected):
    s = position(TWO_VILLAGES, villages_so_far=11, turn=0)
    s.apply_action(move(5, 1))
    assert s.pending == [9, 20] and s.current_player == 0
    s.apply_action(NUM_MOVE_ACTIONS + [9, 20].index(twelfth))
    assert s.is_terminal and s.current_player is None
    assert s.villages[-1] == twelfth and s.unscored == [29 - twelfth]
    assert s.scores.tolist() == expected             # the 12th: huts + 5; the 13th: nothing
    assert s.chips.tolist() == [1, 0, 0]
    assert s.legal_action_mask().sum() == 0


def test_early_end_when_no_legal_move_and_final_score_is_colour_points_plus_chips():
    # two occupied areas: moving 0 onto 1 (mountain, hostile in epoch I) leaves no move
    s = position({0: {RED: 1}, 1: {RED: 1, YELLOW: 1}}, turn=1,
                 colours=(YELLOW, RED, GREEN, BLUE, BLACK))
    s.scores[:] = [10, 12, 3, 0, 0]
    s.chips[:] = [0, 1, 2]
    s.villages = [-1] * 2                              # still epoch I: mountain hostile
    s.apply_action(move(0, 1))
    assert s.is_terminal and len(s.villages) == 3
    assert s.scores.tolist() == [10, 12, 3, 0, 0]      # hostile: no points
    assert s.chips.tolist() == [0, 2, 2]               # the chip is still taken
    # seat 0 yellow 12 + 0, seat 1 red 10 + 2, seat 2 green 3 + 2
    assert s.final_scores().tolist() == [12, 12, 5]
    assert s.winners() == [0, 1]
    assert s.returns().tolist() == [1.0, 1.0, -1.0]


def test_rewards_win_loss_shared_and_score_margin():
    s = position({}, colours=(RED, YELLOW, GREEN))
    s.terminal = True
    s.scores[:] = [30, 20, 20, 0, 0]
    s.chips[:] = [2, 1, 1]
    assert s.final_scores().tolist() == [32, 21, 21]
    assert s.returns().tolist() == [1.0, -1.0, -1.0]
    s.chips[:] = [0, 10, 3]                           # 30, 30, 23
    assert s.returns().tolist() == [1.0, 1.0, -1.0]
    s.scores[:] = [20, 20, 20, 0, 0]
    s.chips[:] = [1, 1, 1]                            # everyone shares the win
    assert s.returns().tolist() == [0.0, 0.0, 0.0]
    m = position({}, reward="score_margin", colours=(RED, YELLOW, GREEN))
    m.terminal = True
    m.scores[:] = [30, 20, 45, 0, 0]
    m.chips[:] = [2, 1, 0]                            # 32, 21, 45
    assert m.returns().tolist() == pytest.approx([-13 / 20, -1.0, 13 / 20])
    assert ClansState(seed=1).returns().tolist() == [0.0, 0.0, 0.0]


def test_provisional_returns_from_the_current_scores():
    """Mid-game (not over): the returns the game would give if it ended now, from colour points
    so far plus chips; ``returns()`` stays zeros until the end."""
    s = position({}, colours=(RED, YELLOW, GREEN))
    s.scores[:] = [14, 9, 3, 0, 0]                    # red 14, yellow 9, green 3
    s.chips[:] = [0, 2, 1]                            # seats: 14, 11, 4
    assert not s.is_terminal and s.returns().tolist() == [0.0, 0.0, 0.0]
    assert s.provisional_returns().tolist() == [1.0, -1.0, -1.0]           # configured win_loss
    assert s.provisional_returns("win_loss").tolist() == [1.0, -1.0, -1.0]
    assert s.provisional_returns("score_margin").tolist() == pytest.approx(
        [3 / 20, -3 / 20, -10 / 20])
    s.chips[:] = [0, 5, 1]                            # 14, 14, 4: shared lead
    assert s.provisional_returns().tolist() == [1.0, 1.0, -1.0]
    assert s.provisional_returns("score_margin").tolist() == pytest.approx([0.0, 0.0, -0.5])
    m = position({}, reward="score_margin", colours=(BLUE, RED, BLACK))
    m.scores[:] = [12, 0, 0, 5, 1]                    # blue 5, red 12, black 1
    m.chips[:] = [1, 0, 0]                            # seats: 6, 12, 1
    assert m.provisional_returns().tolist() == pytest.approx([-6 / 20, 6 / 20, -11 / 20])
    m.scores[:] = [40, 0, 0, 5, 1]                    # seats: 6, 40, 1: margins clipped
    assert m.provisional_returns().tolist() == [-1.0, 1.0, -1.0]
    assert ClansState(seed=1).provisional_returns().tolist() == [0.0, 0.0, 0.0]   # all tie at 0
    for bad in ("margin", "", 3):
        with pytest.raises(ValueError, match=repr(bad)):
            s.provisional_returns(bad)


def test_provisional_returns_equal_returns_at_the_end_of_real_games():
    rng = np.random.default_rng(4)
    for seed in range(5):
        for reward in REWARDS:
            s = ClansState(seed=seed, reward=reward)
            while not s.is_terminal:
                s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
            assert s.provisional_returns().tolist() == s.returns().tolist()


def test_village_never_moves_nor_receives_huts():
    s = position({9: {RED: 2}, 5: {GREEN: 1}, 1: {BLACK: 1}, 0: {BLACK: 1}})
    s.apply_action(move(5, 1))
    assert s.village[9]
    s.huts[5, RED] = 1                                # not reachable in play: probe the reason
    s.area_total[5] = 1
    s._changed()
    assert move(9, 5) not in s.legal_actions()
    assert "village" in s.illegal_reason(move(9, 5))


def test_mask_is_read_only_so_callers_cannot_change_what_is_legal():
    s = position({9: {RED: 2}, 5: {GREEN: 1}, 1: {BLACK: 1}, 0: {BLACK: 1}})
    m = s.legal_action_mask()
    legal = s.legal_actions()
    assert m.sum() == len(legal) and m[NUM_MOVE_ACTIONS:].sum() == 0
    with pytest.raises(ValueError):
        m[:] = 1
    with pytest.raises(IllegalActionError, match="no ordering decision is due"):
        s.apply_action(NUM_MOVE_ACTIONS + 5)
    with pytest.raises(IllegalActionError, match="empty"):
        s.apply_action(move(2, 1))
    assert s.legal_actions() == legal
    s.apply_action(move(5, 1))                         # masks of later states are read-only too
    assert not s.legal_action_mask().flags.writeable
