"""Badland Wolves: seeded random games with invariants, resampling at the decisions hidden
hands could change. The resample, leak, record and copy laws are the shared contract suite's
(tests/test_contract_laws.py, tests/test_contract.py); Badland Wolves' own facts in a resample
(cards conserved, own hand, Scrap deck from its pile) and its hidden change (a hand card swapped
with the Scrap deck, the Hunt deck reordered) are its hooks in tests/contract_hooks.py."""

import json
import random

import numpy as np
import pytest

from envs.badland_wolves import BadlandWolvesState
from envs.badland_wolves import engine as E
from envs.badland_wolves.cards import SCRAP_COUNTS

GAMES_PER_COUNT = {3: 3334, 4: 3333, 5: 3333}   # 10,000 games in all
CHECK_EVERY_STEP = 60                            # games per count checked after every action


def _check_full(s: BadlandWolvesState) -> None:
    n = s.num_players
    assert s.card_totals() == (60, 55, 5 * n)
    assert (s.hands >= 0).all() and (s.tokens >= 0).all() and (s.scrap_discard >= 0).all()
    assert (s.tokens.sum(axis=0) == 5).all()
    # knowledge is a true lower bound of the hands
    assert (s.known <= s.hands[None, :, :]).all()
    # at most one holder per Allegiance (ruling 2)
    al = s.tokens >= 3
    np.fill_diagonal(al, False)
    assert (al.sum(axis=0) <= 1).all()
    deck = np.bincount(s.scrap_deck, minlength=9) + s.hands.sum(axis=0) + s.scrap_discard \
        + s.drawn
    assert deck.tolist() == list(SCRAP_COUNTS)
    for seat in range(n):
        o = s.observation_tensor(seat)
        assert o.dtype == np.float32 and o.shape == (s.observation_size,)
        assert o.min() >= 0.0 and o.max() <= 1.0


@pytest.mark.parametrize("n", [3, 4, 5])
def test_ten_thousand_random_games(n):
    rng = random.Random(n)
    lengths, truncated, winners = [], 0, np.zeros(n)
    for g in range(GAMES_PER_COUNT[n]):
        s = BadlandWolvesState(seed=1000 * n + g, num_players=n)
        full = g < CHECK_EVERY_STEP
        while not s.is_over:
            legal = np.flatnonzero(s.legal_action_mask())
            assert legal.size > 0, "empty mask while a decision is due"
            assert s.current_player is not None
            s.apply_action(int(legal[rng.randrange(legal.size)]))
            if full:
                _check_full(s)
        assert s.card_totals() == (60, 55, 5 * n)
        assert not s.legal_action_mask().any() and s.current_player is None
        lengths.append(s.turns)
        truncated += s.is_truncated
        if s.is_terminal:
            assert s.wins(s.winner)
            r = s.returns()
            assert r[s.winner] == 1.0 and r.sum() == 1.0 - (n - 1)
            winners[s.winner] += 1
        else:
            assert s.turns == 300 and not s.returns().any()
    print(f"\n{n} wolves random play: mean length {np.mean(lengths):.1f} turns, "
          f"truncated {truncated / len(lengths):.3%}")
    assert truncated < 0.1 * len(lengths)
    assert winners.min() > 0.15 * winners.sum() / n  # every seat wins sometimes


def _random_positions(n, count, seed):
    rng = random.Random(seed)
    out = []
    g = 0
    while len(out) < count:
        s = BadlandWolvesState(seed=seed * 100 + g, num_players=n)
        g += 1
        stop = rng.randrange(5, 400)
        for _ in range(stop):
            if s.is_over:
                break
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
        if not s.is_over:
            out.append(s)
    return out


@pytest.mark.parametrize("n", [3, 5])
def test_resample_at_defend_and_crows_ally_decisions_is_history_consistent(n):
    """DEFEND / CA_FOLLOW decisions met in random play (at least 30 and 8), each resampled for
    another seat in turn: the decision is the same whatever the redrawn hand holds (a defender
    without a defence is asked too, with only DECLINE), and every fifth world replays to the
    same observations (history consistency)."""
    from tests.laws import assert_history_consistent
    rng = np.random.default_rng(40 + n)
    pick = random.Random(n)
    met = {E.DEFEND: 0, E.CA_FOLLOW: 0}
    only_decline = 0
    g = 0
    while met[E.DEFEND] < 30 or met[E.CA_FOLLOW] < 8:
        s = BadlandWolvesState(seed=500 + g, num_players=n)
        g += 1
        while not s.is_over:
            if s.phase in met:
                met[s.phase] += 1
                seat = (s.current_player + 1 + met[s.phase] % (n - 1)) % n
                r = s.resample_from_infostate(seat, rng)
                assert r.phase == s.phase and r.current_player == s.current_player
                only_decline += r.legal_actions() == [r.ids.DECLINE]
                if met[s.phase] % 5 == 0:
                    assert_history_consistent(s, seat, r)
            legal = s.legal_actions()
            s.apply_action(legal[pick.randrange(len(legal))])
    assert only_decline > 0


def test_resample_varies_hidden_hands():
    s = _random_positions(4, 1, seed=77)[0]
    rng = np.random.default_rng(0)
    assert s.hands[1:].sum() > s.known[0, 1:].sum()   # seat 0 does not know them all
    hands = {tuple(s.resample_from_infostate(0, rng).hands[1:].ravel()) for _ in range(30)}
    assert len(hands) > 1


def test_hidden_truth_is_hands():
    s = BadlandWolvesState(seed=1, num_players=3)
    h = s.hidden_truth()
    assert [sum(d.values()) for d in h["hands"]] == [2, 2, 2] and h["drawn"] == {}
    json.dumps(h)


def test_phase_coverage_in_random_play():
    rng = random.Random(1)
    seen = set()
    for g in range(200):
        s = BadlandWolvesState(seed=g, num_players=4)
        while not s.is_over:
            seen.add(s.phase)
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
    assert seen == set(range(E.NUM_PHASES))


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**40), n=st.sampled_from([3, 4, 5]),
       max_turns=st.integers(1, 120), pick=st.integers(0, 2**31))
def test_property_any_seed_and_limit_conserves_and_ends(seed, n, max_turns, pick):
    s = BadlandWolvesState(seed=seed, num_players=n, max_turns=max_turns)
    rng = random.Random(pick)
    while not s.is_over:
        legal = s.legal_actions()
        assert legal
        s.apply_action(legal[rng.randrange(len(legal))])
        assert s.card_totals() == (60, 55, 5 * n)
    assert s.turns <= max_turns
    assert s.is_terminal != s.is_truncated
