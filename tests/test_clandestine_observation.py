"""Clandestine observation: the City's random side and the First Player are read back, amounts are
encoded without loss (bounded ones / their proven bound, the others x / (x + s), exact up to
AMOUNT_LIMIT, an error beyond), the Conjunction row keeps its order, played Secrets keep their
option, and random games stay in [0, 1] without reaching the limit (design §1.5, CONVENTIONS.md
law 1)."""

import copy

import numpy as np
import pytest

from envs.clandestine.actions import OFFSET
from envs.clandestine.city import DISCOVER, FUNDRAISE
from envs.clandestine.engine import SECRET_IDS, ClandestineState
from envs.clandestine.observation import (
    AMOUNT_LIMIT,
    BOUNDS,
    REQUEST_OPS,
    SCALES,
    SPACE_ACTIONS,
    decode_amount,
    decode_pawns,
    encode_amount,
    observation_layout,
)


def _side_flipped(st: ClandestineState) -> ClandestineState:
    """The same game with the other side of the First Player's path (record replayed)."""
    rec = copy.deepcopy(st.to_record())
    for entry in rec["chance"]:
        if entry[0] == "city_side":
            entry[1] = 1 - entry[1]
    return ClandestineState.from_record(rec)


def test_city_side_is_read_back_for_every_observer():
    """3 players, seed 3: P0S1 is Fundraise on one side, Discover on the other; the Public path
    alternates from P0S1 clockwise and, with 3 paths, K0b repeats P0S1's Action (design §2.2).
    Seat 1 sees P0S1 at relative space 9 * ((0 - 1) mod 3) + 2 = 20 and K0b at 19."""
    st = ClandestineState(seed=3, num_players=3)
    other = _side_flipped(st)
    assert {st.city.first_action, other.city.first_action} == {FUNDRAISE, DISCOVER}
    lay = observation_layout(3)
    f, d = SPACE_ACTIONS.index(FUNDRAISE), SPACE_ACTIONS.index(DISCOVER)
    for state in (st, other):
        first = f if state.city.first_action == FUNDRAISE else d
        second = d + f - first
        sa = lay.view(state.observation_tensor(1), "space_action")
        assert sa[20, first] == 1 and sa[19, first] == 1  # P0S1 and the duplicated K0b
        assert sa[21, second] == 1 and sa[22, first] == 1  # P0S2, P0S3
        assert sa[0, second] == 1 and sa[1, first] == 1  # seat 1's own K1a, K1b
        assert sa[2, second] == 1  # P1S1
        for seat in range(3):  # every printed Action, Chambers included, for every observer
            sa = lay.view(state.observation_tensor(seat), "space_action")
            assert np.all(sa.sum(axis=1) == 1)
            for space, act in enumerate(state.city.actions):
                rel = 9 * ((space // 9 - seat) % 3) + space % 9
                assert SPACE_ACTIONS[int(sa[rel].argmax())] == act
    for seat in range(3):  # the side alone changes every seat's observation
        assert not np.array_equal(st.observation_tensor(seat), other.observation_tensor(seat))


def test_first_player_is_the_relative_seat_of_absolute_seat_0():
    for n in (2, 3, 4, 5):
        st = ClandestineState(seed=n, num_players=n)
        lay = observation_layout(n)
        for seat in range(n):
            fp = lay.view(st.observation_tensor(seat), "first_player")
            assert fp.sum() == 1 and fp[(0 - seat) % n] == 1


@pytest.mark.parametrize("scale", sorted(set(SCALES.values())))
def test_unbounded_amounts_are_read_back_exactly_in_float32(scale):
    x = np.arange(AMOUNT_LIMIT + 1)
    y = encode_amount(x, scale).astype(np.float32)
    assert y.min() >= 0 and y.max() < 1 and np.all(np.diff(y) > 0)
    assert np.array_equal(decode_amount(y, scale), x)


def test_amount_past_the_exact_range_is_encoded_in_order_not_clipped():
    """Above AMOUNT_LIMIT an amount is still encoded, larger than the limit's value (no
    clipping, no error: a long game must never crash its observation); a negative one is an
    engine fault and raises."""
    y = encode_amount([AMOUNT_LIMIT, AMOUNT_LIMIT + 1, 20 * AMOUNT_LIMIT], 50, "Gold")
    assert y[0] < y[1] < y[2] < 1
    with pytest.raises(ValueError, match="Gold = .* negative"):
        encode_amount([3, -1], 50, "Gold")
    with pytest.raises(ValueError, match="NaN"):
        encode_amount([2, float("nan")], 10)
    with pytest.raises(ValueError, match="not a whole number"):
        encode_amount([2.5], 10)
    st = ClandestineState(seed=0, num_players=3)
    st.gold[2] = 1008  # the largest Gold seen in an evaluation game (heuristic seats)
    seen = st.observation_tensor(0)
    lay = observation_layout(3)
    assert decode_amount(lay.view(seen, "resources")[2, 0], SCALES["gold"]) == 1008
    st.gold[2] = AMOUNT_LIMIT + 5
    past = lay.view(st.observation_tensor(0), "resources")[2, 0]
    assert lay.view(seen, "resources")[2, 0] < past < 1
    st.gold[2] = -1
    with pytest.raises(ValueError, match="Gold"):
        st.observation_tensor(0)


def test_amounts_above_the_old_caps_are_read_back_exactly():
    """Hand-set values beyond the former caps (Gold 50, Energy 20, Intrigue 50, Chaos 12, Relic
    hand 10, pawns 20, Deep placed 3, purged 30; primed 4, now proven the bound) come back exactly, for seat 1's own
    tableau seen by seat 0 (relative seat 1) and by seat 1 itself (relative seat 0)."""
    st = ClandestineState(seed=5, num_players=3)
    st.gold[1], st.energy[1], st.intrigue[1], st.chaos[1] = 137, 23, 75, 20
    st.relic_hand[1] = list(range(40, 52))  # 12 Relics
    st.purged[1] = 45
    st.panel_deep[1][2] = 5
    st.secret_deck[1] = st.secret_deck[1] + list(range(10, 31))  # a deck of 28+ cards
    space = st.city.local_space(1, "C2")
    st.pawns.counts[space] = (0, 0, 23, 6)
    p0s2 = st.city.local_space(0, "S2")
    st.pawns.counts[p0s2] = (5, 25, 0, 0)
    st.primed[space] = list(range(4))
    lay = observation_layout(3)
    for observer, rel in ((0, 1), (1, 0)):
        obs = st.observation_tensor(observer)
        assert obs.min() >= 0 and obs.max() <= 1
        res = lay.view(obs, "resources")[rel]
        assert decode_amount(res[0], SCALES["gold"]) == 137
        assert decode_amount(res[1], SCALES["energy"]) == 23
        assert decode_amount(res[2], SCALES["intrigue"]) == 75
        assert decode_amount(res[3], SCALES["chaos"]) == 20
        hands = lay.view(obs, "hands")[rel]
        assert decode_amount(hands[0], SCALES["relic_hand"]) == 12
        assert round(float(hands[1]) * BOUNDS["secret_hand"]) == len(st.secret_hand[1])
        assert round(float(hands[2]) * BOUNDS["secrets"]) == len(st.secret_deck[1])
        rel_space = 9 * rel + 6  # C2
        pawns = decode_pawns(lay.view(obs, "pawns"))
        assert pawns[rel_space].tolist() == [0, 0, 23, 6]
        assert pawns[9 * ((0 - observer) % 3) + 3].tolist() == [5, 25, 0, 0]
        assert round(float(lay.view(obs, "serpent")[rel_space, 1]) * BOUNDS["primed"]) == 4
        assert round(float(lay.view(obs, "deep_tokens")[rel, 3]) * BOUNDS["deep"]) == 5
        mc = lay.view(obs, "masks_chaos")
        assert decode_amount(mc[27 + 17 + 21 + rel], SCALES["purged"]) == 45


def test_conjunction_row_keeps_its_order():
    st = ClandestineState(seed=11, num_players=4)
    lay = observation_layout(4)
    row = lay.view(st.observation_tensor(2), "conjunction_row")
    assert len(st.conj_row) == 5
    assert [int(r.argmax()) for r in row[:5]] == st.conj_row and row[5].sum() == 0


def _play_to(st, rng, want, limit=3000):
    for _ in range(limit):
        if st.is_terminal or want(st):
            return st
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
    return st


def test_a_played_secret_shows_its_option_to_every_seat():
    """A Secret picked in the PRE window, then its option: every seat sees the Secret picked
    (``playing``) and, once played, the option at the player's relative seat."""
    n = 3
    lay = observation_layout(n)
    found = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        st = ClandestineState(seed=seed, num_players=n)
        st = _play_to(st, rng, lambda s: s.kind == "window_pre"
                      and s.legal_action_mask()[OFFSET["SECRET"]:OFFSET["SECRET"] + 32].any())
        if st.is_terminal:
            continue
        player = st.decider
        secrets = np.flatnonzero(st.legal_action_mask()[OFFSET["SECRET"]:OFFSET["SECRET"] + 32])
        idx = int(secrets[0])
        st.apply_action(OFFSET["SECRET"] + idx)
        if st.kind != "secret_option":
            continue
        for seat in range(n):
            assert lay.view(st.observation_tensor(seat), "playing")[idx] == 1
        opts = np.flatnonzero(st.legal_action_mask()[OFFSET["OPT"]:OFFSET["OPT"] + 2])
        opt = int(opts[-1])
        st.apply_action(OFFSET["OPT"] + opt)
        for seat in range(n):
            so = lay.view(st.observation_tensor(seat), "secret_options")
            assert so[(player - seat) % n, idx, opt] == 1
            assert so[(player - seat) % n, idx].sum() == 1
        found += 1
        if found >= 3:
            break
    assert found >= 3


@pytest.mark.parametrize("n,basic", [(2, False), (3, True), (4, False), (5, False)])
def test_random_games_stay_in_the_unit_interval_and_read_back(n, basic):
    """Whole random games: every seat's observation in [0, 1] at every decision (an amount past
    AMOUNT_LIMIT would no longer decode), and Gold / Intrigue / Chaos / hand sizes / pawns decode exactly."""
    lay = observation_layout(n)
    rng = np.random.default_rng(100 + n)
    st = ClandestineState(seed=100 + n, num_players=n, basic_preset=basic)
    steps, sources = 0, {"secret": 0}
    while not st.is_terminal:
        seat = steps % n
        obs = st.observation_tensor(seat)
        assert obs.min() >= 0 and obs.max() <= 1
        if steps % 7 == 0:
            order = [(seat + r) % n for r in range(n)]
            res = lay.view(obs, "resources")
            assert decode_amount(res[:, 0], SCALES["gold"]).tolist() == [st.gold[s] for s in order]
            assert decode_amount(res[:, 2], SCALES["intrigue"]).tolist() == \
                [st.intrigue[s] for s in order]
            assert decode_amount(res[:, 3], SCALES["chaos"]).tolist() == \
                [st.chaos[s] for s in order]
            assert decode_amount(lay.view(obs, "hands")[:, 0], SCALES["relic_hand"]).tolist() \
                == [len(st.relic_hand[s]) for s in order]
            pawns = decode_pawns(lay.view(obs, "pawns"))
            perm = [9 * ((sp // 9 - seat) % n) + sp % 9 for sp in range(9 * n)]
            assert np.array_equal(pawns[perm], st.pawns.counts)
        es = lay.view(obs, "effect_source")
        if st.runners:  # the innermost effect's owner and source card
            runner = st.runners[-1]["runner"]
            assert es[:n].sum() == 1 and es[(runner.frames[0].seat - seat) % n] == 1
            if runner.source in SECRET_IDS[st.societies[runner.frames[0].seat]]:
                k = SECRET_IDS[st.societies[runner.frames[0].seat]].index(runner.source)
                assert es[n + k] == 1 and es[n:].sum() == 1
                sources["secret"] += 1
            elif runner.source == "trade":
                assert es[-1] == 1 and es[n:].sum() == 1
        else:
            assert es.sum() == 0
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
        steps += 1
    for seat in range(n):
        obs = st.observation_tensor(seat)
        assert obs.min() >= 0 and obs.max() <= 1
    assert sources["secret"] > 0  # Secret effects were seen running


def test_the_pawn_an_effect_moves_is_shown_to_every_seat():
    """Seed 0, 4 players, random play (rng 0) reaches an effect 'move' asking the distance of a
    Public Follower on space 11 (P1S1): every seat sees the op, the pawn's type and its space
    in its own relative numbering (seat 2: 9 * ((1 - 2) mod 4) + 2 = 29)."""
    st = ClandestineState(seed=0, num_players=4)
    rng = np.random.default_rng(0)
    st = _play_to(st, rng, lambda s: s.kind == "effect"
                  and "pawn" in dict(s.runners[-1]["runner"].pending.info))
    assert dict(st.runners[-1]["runner"].pending.info)["pawn"] == (11, "pf")
    lay = observation_layout(4)
    k = len(REQUEST_OPS) + 3
    for seat, rel in enumerate((11, 2, 29, 20)):
        er = lay.view(st.observation_tensor(seat), "effect_request")
        assert np.flatnonzero(er[:len(REQUEST_OPS)]).tolist() == [REQUEST_OPS.index("move")]
        assert np.flatnonzero(er[k:k + 36]).tolist() == [rel]
        assert np.flatnonzero(er[k + 36:]).tolist() == [1]  # pf


def test_primed_secrets_keep_the_keepers_epoch_at_priming():
    """Random 3-player games with the Serpent Keepers at seat 0: at each prime the Keepers'
    epoch (Level, at most IV) is noted by hand; every seat reads, per space, the primed count
    of each epoch (a public bound on each hidden card's Level, design §1.5)."""
    lay = observation_layout(3)
    primes = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        st = ClandestineState(seed=seed, num_players=3, societies=["serpent", "blue", "garden"])
        expect: dict[int, list[int]] = {}
        while not st.is_terminal and primes < 6:
            before = {s: len(c) for s, c in st.primed.items()}
            level = min(st.level[0], 4)
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
            for s in list(expect):
                if s not in st.primed:  # flipped
                    del expect[s]
            for s, cards in st.primed.items():
                if len(cards) > before.get(s, 0):
                    expect.setdefault(s, []).append(level)
                    primes += 1
                    for seat in range(3):
                        pe = lay.view(st.observation_tensor(seat), "primed_epoch")
                        for sp, eps in expect.items():
                            rel = 9 * ((sp // 9 - seat) % 3) + sp % 9
                            got = np.rint(pe[rel] * BOUNDS["primed"]).astype(int).tolist()
                            assert got == [eps.count(e) for e in (1, 2, 3, 4)]
        if primes >= 6:
            break
    assert primes >= 6
