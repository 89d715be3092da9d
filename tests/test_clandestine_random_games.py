"""Seeded random Clandestine games over 2-5 players, default configuration and ``basic_preset``,
with the conservation invariants checked after every decision (issue 9 "Must show")."""

from __future__ import annotations

import numpy as np
import pytest

from envs.clandestine.engine import CONJ_SECRET, END_REASONS, ClandestineState, observation_layout
from envs.clandestine.spec import SOCIETIES
from tests.test_clandestine_engine import C

UF_BOX = 55  # Universal Followers in the box (design §2.3, ruling 19: counted with finite_pawns)


def check_invariants(st: ClandestineState, start_totals: np.ndarray, size: int) -> None:
    """108 Relics; each seat's Society Secrets (hand, deck, discard, primed; Levels up to the
    seat's, 32 at Level IV+); Public Leaders = paths, Public Followers = 5 per path (design
    §2.3: 5 / 25 for five paths), pawn totals constant (Universal Followers net of the supply,
    55 in all with ``finite_pawns``); a non-empty int8 mask when a decision is due; the
    current seat's observation of the documented size, float32, within [0, 1]."""
    n = st.num_players
    assert sorted(st.all_relics()) == list(range(108))
    primed = [c for cards in st.primed.values() for c in cards]
    for j in range(n):
        held = sorted(c for c in st.secret_hand[j] + st.secret_deck[j] + st.secret_discard[j]
                      + (primed if st.societies[j] == "serpent" else []) if c != CONJ_SECRET)
        levels = [c["level"] for c in C["secrets"][st.societies[j]]]
        assert held == [i for i, lv in enumerate(levels) if lv <= min(st.level[j], 4)], j
    tot = st.pawn_totals()
    assert (tot == start_totals).all() and tot[0] == n and tot[1] == 5 * n
    supply = st.uf_supply()
    if supply is not None:
        assert st.pawns.totals()[2] + supply + sum(len(f.movement.in_hand) and
                                                   f.movement.in_hand[2] for f in st.acts
                                                   if f.movement is not None) == UF_BOX
    if not st.is_over:
        mask = st.legal_action_mask()
        assert mask.dtype == np.int8 and mask.shape == (401,) and mask.any()
        obs = st.observation_tensor(st.current_player)
        assert obs.shape == (size,) and obs.dtype == np.float32
        assert obs.min() >= 0.0 and obs.max() <= 1.0


def play_checked(seed: int, n: int, basic: bool, every: int = 1) -> tuple[int, int, str]:
    """One seeded random game: a non-empty mask at every decision and :func:`check_invariants`
    after every ``every``-th decision and at the end.

    Returns:
        (decisions, turns, end_reason): decisions asked of the seats, turns begun, and
        ``ClandestineState.end_reason``.
    """
    st = ClandestineState(seed=seed, num_players=n, basic_preset=basic)
    rng = np.random.default_rng(seed)
    size = observation_layout(n).size
    start = st.pawn_totals()
    decisions, turns, last = 0, 1, (st.rounds_done, st.turn)
    check_invariants(st, start, size)
    while not st.is_over:
        legal = np.flatnonzero(st.legal_action_mask())
        assert len(legal) > 0, (seed, st.phase, st.kind)
        st.apply_action(int(rng.choice(legal)))
        decisions += 1
        if (st.rounds_done, st.turn) != last:
            turns += 1
            last = (st.rounds_done, st.turn)
        if decisions % every == 0:
            check_invariants(st, start, size)
    check_invariants(st, start, size)
    assert st.end_reason in END_REASONS and st.is_terminal
    assert set(st.societies) <= set(SOCIETIES)
    return decisions, turns, st.end_reason


def _games(count: int, offset: int = 0):
    for g in range(offset, offset + count):
        yield g, 2 + g % 4, bool((g // 4) % 2)


def test_random_games_smoke():
    """12 seeded games (2-5 players, default and basic_preset) with every invariant after
    every decision, none reaching the round limit."""
    reasons = [play_checked(g, n, basic)[2] for g, n, basic in _games(12)]
    assert reasons.count("round_limit") == 0


@pytest.mark.exhaustive
@pytest.mark.parametrize("chunk", range(20))
def test_ten_thousand_random_games(chunk):
    """10,000 seeded random games in 20 chunks of 500 (2-5 players, default and basic_preset
    alternately): no error, a non-empty mask at every decision, every invariant after every
    10th decision and at the end; at most 1% end by the round limit."""
    reasons = [play_checked(g, n, basic, every=10)[2]
               for g, n, basic in _games(500, offset=500 * chunk)]
    assert reasons.count("round_limit") <= 5
