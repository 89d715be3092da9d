"""10,000 seeded random Clans games at engine level, checking invariants at every step.

Invariants: huts conserved (60 minus those removed in disputes), at most 12 chips taken and
chips = scored villages, colour scores never decrease, a non-empty mask whenever a decision is
due (empty when over), villages isolated, every occupied non-village area has an occupied
neighbour when a move is due, the mask equals a direct recomputation of rulebook "Movement",
and (in a subset of games) observations of shape (D,), float32, within [0, 1].
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.clans import NUM_MOVE_ACTIONS, ClansState
from envs.clans import board as B

# (num_players, epoch_chart, games, first seed): 10,000 games in all
BATCHES = [
    (2, "rulebook", 1500, 0), (2, "board_2002", 1000, 10_000),
    (3, "rulebook", 1500, 20_000), (3, "board_2002", 1000, 30_000),
    (4, "rulebook", 1500, 40_000), (4, "board_2002", 1000, 50_000),
    (5, "rulebook", 1500, 60_000), (3, "rulebook", 1000, 70_000),
]


def naive_moves(s: ClansState) -> set[int]:
    out = set()
    for a in range(NUM_MOVE_ACTIONS):
        src, dst = int(B.EDGE_SRC[a]), int(B.EDGE_DST[a])
        ts, td = s.area_total[src], s.area_total[dst]
        if s.village[src] or s.village[dst] or ts == 0 or td == 0:
            continue
        if ts >= 7 and td < ts:
            continue
        out.add(a)
    return out


def check_structure(s: ClansState) -> None:
    occupied = s.area_total > 0
    for a in range(60):
        has_occ_neighbour = any(occupied[x] for x in B.NEIGHBOURS[a])
        if s.village[a]:
            assert not has_occ_neighbour
        elif occupied[a] and not s.pending:
            assert has_occ_neighbour


@pytest.mark.parametrize("num_players,chart,games,seed0", BATCHES)
def test_random_games_keep_invariants(num_players, chart, games, seed0):
    rng = np.random.default_rng(seed0)
    lengths, early = [], 0
    ordering_decisions = 0
    for g in range(games):
        s = ClansState(seed=seed0 + g, num_players=num_players, epoch_chart=chart)
        full = g % 50 == 0                         # deep checks on a subset
        prev_scores = s.scores.copy()
        while not s.is_terminal:
            mask = s.legal_action_mask()
            legal = np.flatnonzero(mask)
            assert legal.size > 0 and s.current_player == s.turn
            if s.pending:
                assert legal.tolist() == list(range(NUM_MOVE_ACTIONS,
                                                    NUM_MOVE_ACTIONS + len(s.pending)))
                ordering_decisions += 1
            if full:
                if not s.pending:
                    assert set(legal.tolist()) == naive_moves(s)
                check_structure(s)
                fresh = s.clone()
                fresh._changed()                   # rebuild the incrementally kept block
                for seat in range(num_players):
                    o = s.observation_tensor(seat)
                    assert o.shape == (s.observation_size,) and o.dtype == np.float32
                    assert o.min() >= 0.0 and o.max() <= 1.0
                    assert np.array_equal(o, fresh.observation_tensor(seat))
            s.apply_action(int(rng.choice(legal)))
            assert s.huts.sum() == s.area_total.sum() == 60 - s.removed.sum()
            assert (s.huts >= 0).all()
            assert s.chips.sum() == len(s.villages) <= 12
            assert (s.scores >= prev_scores).all()
            prev_scores = s.scores.copy()
        assert s.legal_action_mask().sum() == 0 and s.current_player is None
        if len(s.villages) < 12:
            early += 1
            assert not naive_moves(s) and not s.unscored
        assert s.seat_moved.max() <= 360 and s.scores.max() <= 100   # observation bounds
        fs = s.final_scores()
        assert np.array_equal(fs, s.scores[s.colours] + s.chips)
        r = s.returns()
        # ruling 8: +1 each winner, -1 the others; 0 to all when every player shares the win
        expect = np.full(num_players, -1.0)
        expect[fs == fs.max()] = 1.0
        if len(s.winners()) == num_players:
            expect[:] = 0.0
        assert s.winners() == np.flatnonzero(fs == fs.max()).tolist()
        assert r.tolist() == expect.tolist()
        if full:
            check_structure(s)
            o = s.observation_tensor(0)
            assert o.min() >= 0.0 and o.max() <= 1.0
        lengths.append(len(s.history))
    # random play reaches the 12th village in most games; orderings do occur
    assert early < games * 0.5
    assert ordering_decisions > 0
    assert 30 < np.mean(lengths) < 60


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_incrementally_kept_observations_equal_a_rebuild_at_every_step(num_players):
    """The observation blocks updated move by move equal ones rebuilt from the fields, for every
    seat, at every step (moves, village scoring, ordering decisions, the end)."""
    rng = np.random.default_rng(num_players)
    for g in range(12):
        s = ClansState(seed=900 + 10 * num_players + g, num_players=num_players,
                       epoch_chart=("rulebook", "board_2002")[g % 2])
        while True:
            fresh = s.clone()
            fresh._changed()
            for seat in range(num_players):
                o = s.observation_tensor(seat)
                assert o.tobytes() == fresh.observation_tensor(seat).tobytes()
            assert s.legal_action_mask().tobytes() == fresh.legal_action_mask().tobytes()
            if s.is_terminal:
                break
            s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
