"""Prowl perfect recall (issue 7): public events reach every observation, no timing leaks, a
finished game's outcome is public, and resampled worlds come with a history the seat cannot tell
from the real one (close to the exact posterior: chi-square against an enumeration).

Each law is a plain function taking a state (or a record). History consistency over random
positions (fast, and 2,000 per player count as ``slow``) is the shared contract suite's
(tests/test_contract_laws.py).
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest
from scipy import stats

from envs.prowl.engine import EV_DECK, EV_FINAL, KIND_NAMES, PUBLIC_EVENTS, ProwlState
from tests.laws import assert_history_consistent

PLAYER_COUNTS = (2, 3, 4, 5)


def random_position(seed: int, n: int, rng: np.random.Generator, max_actions: int = 160,
                    **config) -> ProwlState:
    """Game ``seed`` with ``n`` players after up to ``max_actions`` uniformly random actions
    (a uniform number of them in 0..max_actions; a negative ``max_actions``: to the end)."""
    s = ProwlState(seed=seed, num_players=n, **config)
    k = int(rng.integers(0, max_actions + 1)) if max_actions >= 0 else -1   # -1: to the end
    while not s.is_terminal and k:
        s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
        k -= 1
    return s


# ------------------------------------------------------------------------------------- laws
def _replay(record: dict, actions_to: int = 0) -> ProwlState:
    rec = {k: v for k, v in record.items() if k not in ("returns", "truncated")}
    return ProwlState.from_record(dict(rec, actions=rec["actions"][:actions_to]))


def check_timing(state: ProwlState, seat: int, rng: np.random.Generator) -> Counter:
    """Timing law, independent of the resampler: change cards hidden from ``seat`` in the
    recorded chance outcomes (``seat``'s own deal unchanged) and, in one variant, another seat's
    hidden set-up choice; replay the same actions while they stay legal and the public history
    stays the same (a different public outcome, e.g. a correct Accusation, may legitimately
    change what follows). Until then ``current_player`` must be the same at every step, and
    ``seat``'s observation too while its private knowledge is the same.

    Returns the decisions compared, counted by kind (``kind:handler`` for sub-decisions).
    """
    rec = state.to_record()
    n, cpp, T = state.n, state.cpp, state.T
    sorted_deck = np.repeat(np.arange(T), state.copies)
    perm = list(rec["chance"][1][1])
    actions = list(rec["actions"])
    others = [i for i in range(len(perm)) if not seat * cpp <= i < (seat + 1) * cpp]
    mode = int(rng.integers(3))
    if mode == 0:      # swap cards never used by the record: other hands and the box / deck
        used = Counter()
        for q in range(n):
            used[q] = Counter(int(t) for t in np.flatnonzero(state.hand[q])
                              for _ in range(int(state.hand[q, t])))
        free = []
        for q in range(n):
            if q == seat:
                continue
            left = Counter(used[q])
            for i in range(q * cpp, (q + 1) * cpp):
                t = int(sorted_deck[perm[i]])
                if left[t] > 0:
                    left[t] -= 1
                    free.append(i)
        rest_start = n * cpp
        free += list(range(rest_start, rest_start + (len(state.box) if n > 2 else
                                                        len(state.deck2p))))
        pool = free
    else:
        pool = others
    if len(pool) >= 2:
        for _ in range(int(rng.integers(1, 4))):
            i, j = rng.choice(pool, 2, replace=False)
            perm[i], perm[j] = perm[j], perm[i]
    if mode == 2:      # another seat places another card of its hand at set-up
        q = int(rng.choice([x for x in range(n) if x != seat]))
        setups = [k for k in range(min(n, len(actions)))
                  if (state.start_player + k) % n == q]
        if setups:
            k = setups[0]
            hand = sorted(set(int(sorted_deck[perm[i]]) for i in range(q * cpp, (q + 1) * cpp)))
            actions[k] = state.off["setup"] + int(rng.choice(hand))
    chance = [list(e) for e in rec["chance"]]
    chance[1] = ["deck", perm]
    a = _replay(rec)
    b = _replay(dict(rec, chance=chance))
    covered: Counter = Counter()
    for x_real, x_alt in zip(rec["actions"], actions):
        if a.public_history() != b.public_history():
            break
        assert a.current_player == b.current_player, \
            f"seat {a.current_player} asked in one world, seat {b.current_player} in the other"
        dec = a._dec
        covered[KIND_NAMES[dec[1]] + ("" if dec[3] is None else f":{dec[3]}")] += 1
        if np.array_equal(a.know[seat], b.know[seat]) and \
                np.array_equal(a.whisper[seat], b.whisper[seat]):
            assert np.array_equal(a.observation_tensor(seat), b.observation_tensor(seat)), \
                f"seat {seat}'s observation differs with other hidden cards"
        if not b.legal_action_mask()[x_alt]:
            break
        a.apply_action(x_real)
        b.apply_action(x_alt)
    return covered


def public_projection(state: ProwlState) -> Counter:
    """The documented-relevant projection of the public history: the multiset of events, a
    2-player deck reveal kept as its card only (docs/prowl.md: the observation counts events,
    the order is left out)."""
    out = Counter()
    for e in state.public_history():
        out[(EV_DECK, e[2]) if e[0] == EV_DECK else e] += 1
    return out


def check_public_events(states: list[ProwlState]) -> int:
    """Public-event law over states of one deal: states that give a seat the same observation
    have the same projected public history. Returns the number of collisions checked."""
    checked = 0
    for seat in range(states[0].num_players):
        groups = defaultdict(list)
        for s in states:
            groups[s.observation_tensor(seat).tobytes()].append(s)
        for group in groups.values():
            first = public_projection(group[0])
            for other in group[1:]:
                assert public_projection(other) == first, \
                    f"seat {seat} cannot tell apart two different public histories:\n" \
                    f"{group[0].public_history()}\n{other.public_history()}"
                checked += 1
    return checked


# ------------------------------------------------------------------------------------- tests
def _handed(actions: list[int]) -> ProwlState:
    s = ProwlState(seed=0, num_players=4)
    for a in [72, 75, 74, 73] + actions:
        s.apply_action(a)
    return s


def test_handed_input_accusations_reach_every_observation():
    """Issue 7: seed 0, 4 players, two histories where different seats accused different seats
    (both wrong, naming Summer) must look different to every seat."""
    a = _handed([50, 99, 103, 53, 99, 103])
    b = _handed([50, 100, 103, 53, 98, 103])
    assert a.start_player == 2
    # seat 2 discards a Seer and accuses seat 0 of Summer (wrong); seat 3 discards the
    # Whisperer and accuses seat 1 of Summer (wrong)
    assert a.public_history()[4:] == [(4, 2, 2), (6, 2, 0, 0), (5, 2, 0, 1, 0, 0),
                                      (4, 3, 5), (6, 3, 0, 1), (5, 3, 1, 1, 0, 0)]
    assert b.public_history()[4:] == [(4, 2, 2), (6, 2, 0, 1), (5, 2, 1, 1, 0, 0),
                                      (4, 3, 5), (6, 3, 0, 0), (5, 3, 0, 1, 0, 0)]
    lay = a.layout
    for seat in range(4):
        oa, ob = a.observation_tensor(seat), b.observation_tensor(seat)
        assert not np.array_equal(oa, ob)
        acc_a, acc_b = lay.view(oa, "accusations"), lay.view(ob, "accusations")
        rel = lambda q: (q - seat) % 4   # noqa: E731
        # [accuser, accused, source (action), result (wrong), clan Summer] = 1 / 6
        assert acc_a[rel(2), rel(0), 0, 0, 1] == pytest.approx(1 / 6)
        assert acc_a[rel(3), rel(1), 0, 0, 1] == pytest.approx(1 / 6)
        assert acc_b[rel(2), rel(1), 0, 0, 1] == pytest.approx(1 / 6)
        assert acc_b[rel(3), rel(0), 0, 0, 1] == pytest.approx(1 / 6)
        assert acc_a.sum() == pytest.approx(2 / 6) and acc_b.sum() == pytest.approx(2 / 6)
        # the excluded clans are the same in both: they alone could not tell them apart
        assert np.array_equal(lay.view(oa, "excluded"), lay.view(ob, "excluded"))


def test_public_history_vocabulary_and_hidden_placements_left_out():
    rng = np.random.default_rng(0)
    for g in range(30):
        s = random_position(g, 2 + g % 4, rng, max_actions=400)
        for e in s.public_history():
            assert e[0] in PUBLIC_EVENTS and len(e) == 1 + len(PUBLIC_EVENTS[e[0]][1])
            assert all(isinstance(x, int) for x in e)
        assert ProwlState.from_record(s.to_record()).public_history() == s.public_history()
    # another card placed face-down at set-up: the same public history
    s1, s2 = ProwlState(seed=3), ProwlState(seed=3)
    h = s1.legal_actions()
    s1.apply_action(h[0])
    s2.apply_action(h[-1])
    assert s1.public_history() == s2.public_history() == [(0, s1.start_player)]


def test_finished_game_shows_every_clan_card():
    """The scoring shows every clan card to everyone (public EV_FINAL events), in games with and
    without a winner. (Resampling a finished game keeps its winner and returns: the shared
    contract suite.)"""
    rng = np.random.default_rng(1)
    winners = Counter()
    for g in range(40):
        n = PLAYER_COUNTS[g % 4]
        s = random_position(g, n, rng, max_actions=-1)
        assert s.is_terminal
        winners[s.winner is None] += 1
        for q in range(n):
            assert s.know[q].tolist() == s.clan_card.tolist()
            assert (EV_FINAL, q, int(s.clan_card[q])) in s.public_history()
    assert winners[False] > 0 and winners[True] > 0


def test_history_consistency_with_whisperer_knowledge_forgotten():
    """Seat 0 peeks at seat 1's hand, seat 1 Changes (known: hand plus clan card), then its
    clan card is swapped away, so the observation forgets the peek: the resampler must still
    keep seat 1's hand plus that card as seen."""
    rng = np.random.default_rng(4)
    found = 0
    for g in range(600):
        s = ProwlState(seed=g, num_players=3)
        r = np.random.default_rng(g)
        while not s.is_terminal:
            s.apply_action(int(r.choice(np.flatnonzero(s.legal_action_mask()))))
            lost = [w for w, q, _ in s._peeks if not s.wvalid[w, q]]
            if lost and not s.is_terminal:
                for _ in range(5):
                    assert_history_consistent(s, lost[0], s.resample_from_infostate(lost[0], rng))
                found += 1
                break
        if found >= 5:
            break
    assert found >= 1


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_timing_law_fast(n):
    rng = np.random.default_rng(10 + n)
    covered = Counter()
    for g in range(60):
        s = random_position(g, n, rng, max_actions=10_000 if g % 2 else 120)
        for seat in range(n):
            covered += check_timing(s, seat, rng)
    kinds = {k.split(":")[0] for k in covered}
    assert {"setup", "turn", "order", "opponent", "clan"} <= kinds, covered


@pytest.mark.slow
def test_timing_law_thousands_of_games():
    rng = np.random.default_rng(20)
    covered = Counter()
    for g in range(2000):
        n = PLAYER_COUNTS[g % 4]
        s = random_position(g, n, rng, max_actions=10_000)
        for seat in range(n):
            covered += check_timing(s, seat, rng)
    kinds = {k.split(":")[0] for k in covered}
    assert set(KIND_NAMES) <= kinds, covered


def _near_histories(n: int, bases: int, variants: int, seed: int,
                    max_len: int) -> list[ProwlState]:
    """Histories of one deal (game seed 0) that differ in few choices, so that observations
    collide unless the observation tells the choices apart: a random base history, and
    variants that take another legal action at one step and then follow the base while its
    actions stay legal (random actions after that)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(bases):
        base = []
        s = ProwlState(seed=0, num_players=n)
        for _ in range(int(rng.integers(n + 1, max_len + 1))):
            if s.is_terminal:
                break
            a = int(rng.choice(np.flatnonzero(s.legal_action_mask())))
            s.apply_action(a)
            base.append(a)
        out.append(s)
        for _ in range(variants):
            i = int(rng.integers(len(base)))
            v = ProwlState(seed=0, num_players=n)
            for a in base[:i]:
                v.apply_action(a)
            legal = np.flatnonzero(v.legal_action_mask())
            v.apply_action(int(rng.choice(legal)))
            for a in base[i + 1:]:
                if v.is_terminal:
                    break
                m = v.legal_action_mask()
                v.apply_action(a if m[a] else int(rng.choice(np.flatnonzero(m))))
            out.append(v)
    return out


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_public_event_law(n):
    checked = check_public_events(_near_histories(n, 150, 8, seed=n, max_len=6 * n + 10))
    assert checked > 100


# ------------------------------------------------------------------------------------- chi-square
def _enumerate_posterior(state: ProwlState, seat: int) -> dict:
    """Exact posterior of the other seat's (hand, clan card) for a 2-player position: every deal
    of its initial hand and every choice of the cards it placed face-down, weighted by the
    number of physical deals and physical card choices, replayed against what ``seat`` saw."""
    assert state.n == 2
    q = 1 - seat
    T, cpp = state.T, state.cpp
    rec = state.to_record()
    real_seq = np.repeat(np.arange(T), state.copies)[np.asarray(rec["chance"][1][1])]
    own = Counter(real_seq[seat * cpp:(seat + 1) * cpp].tolist())
    seen = []
    for st in ProwlState.replay_steps({k: v for k, v in rec.items() if k != "returns"}):
        seen.append((st.current_player, st.observation_tensor(seat).tobytes(),
                     tuple(st.public_history())))
    rest_real = real_seq[2 * cpp:].tolist()
    popped = rest_real[len(state.deck2p):]          # revealed deck cards (top = end)
    avail = Counter({t: int(state.copies[t]) for t in range(T)})
    avail.subtract(own)
    types = [t for t in range(T) if avail[t] > 0]
    post = Counter()
    hidden_idx = {i for i, a in enumerate(rec["actions"])
                  if seen[i][0] == q and (rec["actions"][i] >= state.off["setup"]
                                          and rec["actions"][i] < state.off["order"]
                                          or state.off["change"] <= rec["actions"][i]
                                          < state.off["accuse"])}

    def multisets(k, start):
        if k == 0:
            yield ()
            return
        for i in range(start, len(types)):
            for rest in multisets(k - 1, i):
                yield (types[i],) + rest

    from math import comb
    must = Counter(e[2] for e in state.public_history() if e[0] in (1, 4) and e[1] == q)
    for hand in multisets(cpp, 0):
        hc = Counter(hand)
        if any(hc[t] > avail[t] for t in hc) or any(hc[t] < k for t, k in must.items()):
            continue   # impossible, or without a card q has played from its hand
        w = 1
        for t, k in hc.items():
            w *= comb(avail[t], k)
        # deck: the remaining physical cards, the revealed ones on top (order fixed)
        left = Counter({t: int(state.copies[t]) for t in range(T)})
        left.subtract(own)
        left.subtract(hc)
        for t in popped:
            w *= left[t]
            left[t] -= 1
        if w == 0:
            continue
        others = [t for t in range(T) for _ in range(left[t])]
        seq = (real_seq[:2 * cpp].tolist())
        seq[q * cpp:(q + 1) * cpp] = list(hand)
        seq += others + popped          # the deck: hidden part, then the revealed cards
        start = np.concatenate([[0], np.cumsum(state.copies)[:-1]]).tolist()
        used = [0] * T
        perm = []
        for t in seq:
            perm.append(start[t] + used[t])
            used[t] += 1
        chance = [list(e) for e in rec["chance"]]
        chance[1] = ["deck", perm]
        root = _replay(dict(rec, chance=chance))
        stack = [(root, 0, w)]
        while stack:
            st, i, wt = stack.pop()
            if (st.current_player, st.observation_tensor(seat).tobytes(),
                    tuple(st.public_history())) != seen[i]:
                continue
            if i == len(rec["actions"]):
                key = (tuple(int(x) for x in st.hand[q]), int(st.clan_card[q]))
                post[key] += wt
                continue
            a = rec["actions"][i]
            if i in hidden_idx:
                block = state.off["setup"] if a >= state.off["setup"] else state.off["change"]
                for t in np.flatnonzero(st.hand[q]):
                    nxt = st.clone()
                    nxt.apply_action(block + int(t))
                    stack.append((nxt, i + 1, wt * int(st.hand[q, t])))
            else:
                if not st.legal_action_mask()[a]:
                    continue
                nxt = st.clone()
                nxt.apply_action(a)
                stack.append((nxt, i + 1, wt))
    return post


def _projections(s: ProwlState, key: tuple) -> dict:
    hand, card = key
    clans = [0] * s.C
    for t, k in enumerate(hand):
        clans[s.type_clan[t]] += k
    return {"clan card": card, "hand by clan": tuple(clans), "full": key}


def _p_value(post: Counter, got: Counter) -> float:
    """Chi-square p-value of counts ``got`` against weights ``post`` (bins with an expected
    count under 5 pooled); nan when fewer than 2 bins remain."""
    total, draws = sum(post.values()), sum(got.values())
    keys = sorted(post, key=lambda k: -post[k])
    exp = np.array([post[k] / total * draws for k in keys])
    obs = np.array([got[k] for k in keys], dtype=float)
    big = exp >= 5
    e, o = list(exp[big]), list(obs[big])
    if exp[~big].sum() >= 5:
        e.append(exp[~big].sum())
        o.append(obs[~big].sum())
    elif e:
        e[-1] += exp[~big].sum()
        o[-1] += obs[~big].sum()
    if len(e) < 2:
        return float("nan")
    return float(stats.chisquare(o, e).pvalue)


def _chi_square(state: ProwlState, seat: int, draws: int, seed: int) -> dict:
    """p-values of the resampler's draws of the other seat's (hand, clan card) against the
    enumerated posterior, per projection (clan card, hand by clan, full key)."""
    post = _enumerate_posterior(state, seat)
    rng = np.random.default_rng(seed)
    q = 1 - seat
    got = Counter()
    for _ in range(draws):
        w = state.resample_from_infostate(seat, rng)
        key = (tuple(int(x) for x in w.hand[q]), int(w.clan_card[q]))
        assert key in post, "the resampler drew a world the enumeration rules out"
        got[key] += 1
    out = {}
    for name in ("clan card", "hand by clan", "full"):
        pp, gg = Counter(), Counter()
        for k, v in post.items():
            pp[_projections(state, k)[name]] += v
        for k, v in got.items():
            gg[_projections(state, k)[name]] += v
        out[name] = _p_value(pp, gg)
    return out


def _two_player_position(seed: int, actions_after_setup: list[str]) -> ProwlState:
    """2 players, 3 cards each, played from a real set-up with named action kinds picked in
    order (first legal action of that block)."""
    s = ProwlState(seed=seed, num_players=2, cards_per_player=3)
    rng = np.random.default_rng(seed)
    while s.setup_done < 2:
        s.apply_action(int(rng.choice(s.legal_actions())))
    for want in actions_after_setup:
        legal = s.legal_actions()
        pick = [a for a in legal if s._decode(a)[0] == want] or legal
        s.apply_action(int(rng.choice(pick)))
    return s


@pytest.mark.parametrize("seed,acts", [
    (2, ["accuse", "opp", "clan", "play", "order"]),      # an Accusation, then a play
    (3, ["play", "order", "accuse", "opp", "clan", "change"]),
    pytest.param(5, ["play", "order", "change"], marks=pytest.mark.slow),
    pytest.param(0, [], marks=pytest.mark.slow),          # only the set-up
    pytest.param(1, ["change", "change"], marks=pytest.mark.slow),
])
def test_resampler_matches_the_enumerated_posterior(seed, acts):
    s = _two_player_position(seed, acts)
    tested = 0
    for seat in range(2):
        for name, p in _chi_square(s, seat, draws=1500, seed=seed * 10 + seat).items():
            if not np.isnan(p):
                tested += 1
                assert p > 1e-3, f"seat {seat}, {name}: chi-square p-value {p}"
    assert tested >= 4


@pytest.mark.slow
def test_resampler_matches_the_enumerated_posterior_after_a_whisperer_peek():
    """2 players, 4 cards: seat 1 plays the Whisperer at seat 0's hand, then seat 0 Changes:
    seat 1 knows seat 0's hand plus clan card as a multiset (the group of the resampler)."""
    s = ProwlState(seed=8, num_players=2, cards_per_player=4)
    rng = np.random.default_rng(8)
    while s.setup_done < 2:
        s.apply_action(int(rng.choice([a for a in s.legal_actions()
                                       if a != s.off["setup"] + 5])))
    assert s.current_player == 1 and s.hand[1, 5] == 1      # seat 1 holds the Whisperer
    for a in (s.off["play"] + 5, s.off["order"], s.off["opp"]):
        s.apply_action(a)
    s.apply_action(int(rng.choice([a for a in s.legal_actions() if s._decode(a)[0] == "change"])))
    assert s.wclan[1, 0] and s.public_history()[-2] == (3, 0, 9)
    p = _chi_square(s, 1, draws=1500, seed=8)["full"]
    assert p > 1e-3
