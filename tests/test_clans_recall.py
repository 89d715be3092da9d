"""Clans perfect recall (issue 7): history-consistent resampling, no timing leaks, the public
history in the observation, finished games keep their outcome (docs/clans.md "Perfect recall",
"Public history", "Resampling"; rulebook "End of Game"; design/clans.md ruling 9).

Each law is a plain function taking a state (or a record). History consistency over random
positions (fast, and 2,000 per player count as ``slow``) and finished games keeping their
outcome at every player count are the shared contract suite's (tests/test_contract_laws.py).
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from envs.clans import NUM_MOVE_ACTIONS, PUBLIC_EVENTS, ClansState, observation_layout
from envs.clans import board as B

PLAYER_COUNTS = (2, 3, 4, 5)


def random_position(seed: int, num_players: int, steps: int | None = None) -> ClansState:
    """A position after a uniformly random number of random actions (0-70: some games end)."""
    rng = np.random.default_rng(seed)
    s = ClansState(seed=seed, num_players=num_players,
                   epoch_chart=("rulebook", "board_2002")[seed % 2])
    steps = int(rng.integers(0, 71)) if steps is None else steps
    for _ in range(steps):
        if s.is_terminal:
            break
        s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
    return s


def random_game(seed: int, num_players: int) -> ClansState:
    return random_position(seed, num_players, steps=10_000)


# --- laws ------------------------------------------------------------------------------------
def check_finished_game_keeps_outcome(state: ClansState, rng: np.random.Generator,
                                      draws: int = 10) -> None:
    """Resampling a finished game for any seat never changes the winners or the returns:
    the end reveals every colour (rulebook "End of Game")."""
    assert state.is_terminal
    for seat in range(state.num_players):
        for _ in range(draws):
            w = state.resample_from_infostate(seat, rng)
            assert w.winners() == state.winners()
            assert np.array_equal(w.returns(), state.returns())
            assert np.array_equal(w.final_scores(), state.final_scores())


def other_colours_record(record: dict, observer: int, rng: np.random.Generator) -> dict:
    """``record`` with the ``"colours"`` chance outcome changed for seats other than
    ``observer`` (its own colour, i.e. its set-up view, kept)."""
    n = record["config"]["num_players"]
    chance = [list(e) for e in record["chance"]]
    i = next(j for j, (name, _) in enumerate(chance) if name == "colours")
    perm = list(chance[i][1])
    rest = [j for j in range(B.NUM_COLOURS) if j != observer]
    while True:
        new = list(perm)
        for j, c in zip(rest, rng.permutation([perm[j] for j in rest])):
            new[j] = int(c)
        if new[:n] != perm[:n]:
            break
    chance[i] = ["colours", new]
    out = {k: v for k, v in record.items() if k not in ("returns", "truncated")}
    out["chance"] = chance
    return out


def check_timing(state: ClansState, observer: int, rng: np.random.Generator) -> Counter:
    """Timing law: replaying ``state``'s actions with other seats' colours changed asks the
    same seats the same decisions (``current_player``, mask) with the same observation for
    ``observer`` at every step; only the end differs, in the revealed colours alone.

    Returns the decisions compared, by kind (``"move"``, ``"order"``) and by whether the
    observer or another seat decided."""
    rec = state.to_record()
    alt = other_colours_record(rec, observer, rng)
    seen: Counter = Counter()
    rev = state.layout["revealed_colours"]
    steps = 0
    for i, (a, b) in enumerate(zip(ClansState.replay_steps(rec), ClansState.replay_steps(alt))):
        steps += 1
        assert a.colours[observer] == b.colours[observer]
        assert a.current_player == b.current_player, f"step {i}: another seat is asked"
        assert np.array_equal(a.legal_action_mask(), b.legal_action_mask()), f"step {i}: mask"
        oa, ob = a.observation_tensor(observer), b.observation_tensor(observer)
        if a.is_terminal:
            diff = np.flatnonzero(oa != ob)
            assert diff.size == 0 or (rev.start <= diff.min() and diff.max() < rev.stop)
            assert b.is_terminal
        else:
            assert np.array_equal(oa, ob), f"step {i}: observer {observer}'s observation"
            kind = "order" if a.pending else "move"
            seen[(kind, "own" if a.current_player == observer else "other")] += 1
    assert steps == len(rec["actions"]) + 1
    return seen


def check_public_history_in_observation(states: list[ClansState]) -> int:
    """Public-event law: states whose observations for a seat are equal have equal public
    histories (so histories that differ in any public event give different observations to
    every seat). Returns the number of groups of equal observations seen."""
    groups = 0
    for seat in range(states[0].num_players):
        by_obs: dict[bytes, list[tuple[int, ...]]] = {}
        for s in states:
            key = s.observation_tensor(seat).tobytes()
            ph = s.public_history()
            assert ph == s.public_history()
            if key in by_obs:
                assert by_obs[key] == ph, f"seat {seat}: equal observations, other histories"
            else:
                by_obs[key] = ph
        groups += len(by_obs)
    return groups


# --- handed inputs ---------------------------------------------------------------------------
def test_finished_game_resampled_keeps_winner_and_returns():
    s = random_game(7, 3)
    assert s.is_terminal and len(s.villages) == 12
    # seat colours, final scores and the single winner of this seeded game
    assert s.hidden_truth() == {"colours": ["blue", "yellow", "green"]}
    assert s.final_scores().tolist() == [45, 41, 43] and s.winners() == [0]
    assert s.returns().tolist() == [1.0, -1.0, -1.0]
    # the outcome depends on the colours: with seats 0 and 2 swapped, seats 0 and 2 would
    # share the win (44, 41, 44)
    swapped = s.scores[s.colours[[2, 1, 0]]] + s.chips
    assert swapped.tolist() == [44, 41, 44]
    check_finished_game_keeps_outcome(s, np.random.default_rng(0), draws=30)
    # the end reveals every colour to every seat
    lay = s.layout
    for seat in range(3):
        rev = lay.view(s.observation_tensor(seat), "revealed_colours")
        assert rev.sum() == 3
        assert [int(rev[r].argmax()) for r in range(3)] == \
            [int(s.colours[(seat + r) % 3]) for r in range(3)]
    # before the end nothing is revealed
    mid = random_position(7, 3, steps=len(s.history) - 1)
    assert not mid.is_terminal
    assert lay.view(mid.observation_tensor(0), "revealed_colours").sum() == 0


# Five moves on far-apart areas commute and form no village: seat 0 of a 2-player game makes
# moves X, Z (or Z, X) and W; seat 1 makes Y and V. The board, each seat's cumulative
# summaries and last moves are the same either way: only the order of seat 0's first two moves
# differs, which the summary fields alone could not show.
X, Y, Z, V, W = (B.EDGE_ID[e] for e in ((0, 1), (48, 45), (10, 8), (56, 34), (36, 24)))


def test_histories_differing_only_in_move_order_give_different_observations():
    a, b = ClansState(seed=0, num_players=2), ClansState(seed=0, num_players=2)
    assert a.turn == 0
    for x in (X, Y, Z, V, W):
        a.apply_action(x)
    for x in (Z, Y, X, V, W):
        b.apply_action(x)
    assert np.array_equal(a.huts, b.huts) and not a.villages and not b.villages
    old = observation_layout(2)["ordering_due"].stop    # the fields before the full history
    for seat in range(2):
        oa, ob = a.observation_tensor(seat), b.observation_tensor(seat)
        assert np.array_equal(oa[:old], ob[:old])
        assert not np.array_equal(oa, ob)
        lay = a.layout
        assert lay.view(oa, "move_source")[0].argmax() == 0
        assert lay.view(ob, "move_source")[0].argmax() == 10
        assert lay.view(oa, "move_seat")[:5].argmax(axis=1).tolist() == \
            [(m - seat) % 2 for m in (0, 1, 0, 1, 0)]
        assert lay.view(oa, "move_seat")[5:].sum() == 0
        # 1 is NEIGHBOURS[0][j]
        assert lay.view(oa, "move_direction")[0].argmax() == B.NEIGHBOURS[0].index(1)
    assert a.public_history()[60:] == [(1, 0), (2, 0, 0, 1), (2, 1, 48, 45), (2, 0, 10, 8),
                                       (2, 1, 56, 34), (2, 0, 36, 24)]
    assert b.public_history()[60:62] == [(1, 0), (2, 0, 10, 8)]


def test_public_history_vocabulary_and_contents():
    assert sorted(PUBLIC_EVENTS) == [0, 1, 2, 3, 4, 5]
    s = random_game(11, 3)
    ph = s.public_history()
    assert all(isinstance(x, int) for e in ph for x in e)
    assert ph[:60] == [(0, a, int(s.setup_colour[a])) for a in range(60)]
    assert ph[60] == (1, s.start_player)
    moves = [e for e in ph if e[0] == 2]
    assert [e[1:] for e in moves] == list(s.move_log)
    assert [B.EDGE_ID[(e[2], e[3])] for e in moves] == \
        [a for a in s.history if a < NUM_MOVE_ACTIONS]
    # the mover of the i-th move is the start player + i (turns pass clockwise)
    assert [e[1] for e in moves] == [(s.start_player + i) % 3 for i in range(len(moves))]
    vill = [e for e in ph if e[0] == 3]
    assert [e[2] for e in vill] == s.villages and [e[3] for e in vill] == list(range(12))
    assert [e[2] for e in ph if e[0] == 4] == s.unscored
    assert ph[-3:] == [(5, i, int(s.colours[i])) for i in range(3)]
    # the observation's scoring order matches
    o = s.observation_tensor(1)
    sa = s.layout.view(o, "scored_at")
    assert [int(np.flatnonzero(sa[:, k])[0]) for k in range(12)] == s.villages
    # the set-up board is the colour of each area's hut before any move
    fresh = ClansState(seed=11, num_players=3)
    assert np.array_equal(s.setup_colour, fresh.huts.argmax(axis=1))


def test_ordering_choice_shows_in_history_and_observation():
    from tests.test_clans_rules import TWO_VILLAGES, move, position
    seen = []
    for k in (0, 1):
        s = position(TWO_VILLAGES, villages_so_far=3, turn=1)
        s.apply_action(move(5, 1))
        assert s.pending == [9, 20]
        s.apply_action(NUM_MOVE_ACTIONS + k)
        ph = s.public_history()
        assert [e for e in ph if e[0] == 3] == [(3, 1, [9, 20][k], 3), (3, 1, [20, 9][k], 4)]
        sa = s.layout.view(s.observation_tensor(0), "scored_at")
        assert sa[[9, 20][k], 3] == 1 and sa[[20, 9][k], 4] == 1
        seen.append(s.observation_tensor(2))
    assert not np.array_equal(*seen)


# --- laws over random positions --------------------------------------------------------------
def _timing(games_per_count: int, seed0: int) -> Counter:
    rng = np.random.default_rng(seed0)
    total: Counter = Counter()
    for n in PLAYER_COUNTS:
        for g in range(games_per_count):
            s = random_game(seed0 + 104729 * n + g, n)
            total += check_timing(s, int(rng.integers(n)), rng)
    return total


def test_timing_law_fast():
    seen = _timing(50, 0)
    # every decision kind, asked of the observer and of the others, was compared
    assert set(seen) == {("move", "own"), ("move", "other"), ("order", "own"),
                         ("order", "other")}


@pytest.mark.slow
def test_timing_law_thousands_of_games():
    seen = _timing(1000, 20_000)
    assert min(seen.values()) >= 50, seen


def test_public_event_law_on_colliding_short_histories():
    # many short histories from one deal over a few commuting moves (and some random ones):
    # their boards collide often; the observations must still tell every history apart
    rng = np.random.default_rng(3)
    for n in (2, 3):
        states = []
        for _ in range(300):
            s = ClansState(seed=0, num_players=n)
            pool = [X, Y, Z, V, W]
            for a in rng.permutation(pool)[: int(rng.integers(0, 6))]:
                s.apply_action(int(a))
            for _ in range(int(rng.integers(0, 3))):
                s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
            states.append(s)
        check_public_history_in_observation(states)
        # the collisions were real: equal boards with different public histories
        boards: dict[bytes, set] = {}
        for s in states:
            boards.setdefault(s.huts.tobytes(), set()).add(tuple(s.public_history()))
        assert sum(len(v) > 1 for v in boards.values()) >= 10


def test_public_event_law_over_random_games_with_orderings():
    states = []
    for g in range(40):
        rng = np.random.default_rng(g)
        s = ClansState(seed=0, num_players=3)
        while not s.is_terminal:
            states.append(s.clone())
            s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
        states.append(s)
    assert any(s.pending for s in states)
    check_public_history_in_observation(states)


# --- the resampler's distribution ------------------------------------------------------------
def consistent_colour_outcomes(state: ClansState, seat: int) -> list[tuple[int, ...]]:
    """Every ``"colours"`` chance outcome (a permutation of the 5 colours) under which the
    real actions replay to the same observations for ``seat`` at every step (enumerated)."""
    rec = state.to_record()
    i = next(j for j, (name, _) in enumerate(rec["chance"]) if name == "colours")
    real = [s.observation_tensor(seat).tobytes() for s in
            (x.clone() for x in ClansState.replay_steps(rec))]
    out = []
    for perm in itertools.permutations(range(B.NUM_COLOURS)):
        chance = [list(e) for e in rec["chance"]]
        chance[i] = ["colours", list(perm)]
        alt = {**{k: v for k, v in rec.items() if k != "returns"}, "chance": chance}
        if all(w.observation_tensor(seat).tobytes() == o
               for w, o in zip(ClansState.replay_steps(alt), real)):
            out.append(perm)
    return out


@pytest.mark.parametrize("n,steps", [(2, 12), (3, 30), (3, 10_000), (5, 20)])
def test_resampler_draws_are_uniform_over_consistent_worlds(n, steps):
    s = random_position(40 + n, n, steps=steps)
    seat = 1
    worlds = consistent_colour_outcomes(s, seat)
    # before the end: every permutation keeping the seat's colour; at the end: the revealed
    # colours fixed, only the unused colours' order free
    expected = 2 if s.is_terminal else 24
    assert len(worlds) == expected
    idx = {w: j for j, w in enumerate(worlds)}
    rng = np.random.default_rng(n)
    draws = 100 * len(worlds)
    counts = np.zeros(len(worlds))
    for _ in range(draws):
        w = s.resample_from_infostate(seat, rng)
        perm = tuple(next(v for name, v in w.chance_log if name == "colours"))
        assert perm in idx, "the resampler drew a world the seat can rule out"
        counts[idx[perm]] += 1
    assert chisquare(counts).pvalue > 1e-3
