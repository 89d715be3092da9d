"""Clandestine information laws (issue 7; design §1.5): public history, history-consistent
resampling (hidden Secret Levels included), the timing law, the leak law, resampling of finished
games and perfect recall of sibling decisions."""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest

from envs.clandestine import ops as OPS
from envs.clandestine.engine import (
    _C,
    EV_DECISION,
    EV_MAP,
    EV_PRIME_PICK,
    EV_SOCIETIES,
    PUBLIC_EVENTS,
    SM_DRAW,
    SM_REVEAL,
    SM_SHUFFLE,
    ClandestineState,
)
from envs.clandestine.spec import SOCIETIES
from envs.core import RecordError
from tests.clandestine_hooks import clandestine_hidden_change
from tests.contract_helpers import random_action
from tests.laws import assert_history_consistent
from tests.test_clandestine_dsl import FakeContext, run, steps


def random_position(seed: int, n: int, max_steps: int, **kw) -> ClandestineState:
    rng = np.random.default_rng(seed)
    st = ClandestineState(seed=seed, num_players=n, basic_preset=bool(seed % 2), **kw)
    for _ in range(int(rng.integers(0, max_steps + 1))):
        if st.is_over:
            break
        st.apply_action(int(rng.choice(st.legal_actions())))
    return st


# ----------------------------------------------------------------------------- timing (ops)
def test_single_option_assign_is_asked():
    """ops.OpState.ask never answers an assign by itself: its options depend on the hidden
    hand (one fitting Relic here), so answering alone would show that to every seat."""
    ctx = FakeContext(script=[("R055", 3)])
    ctx.rhand[0] = ["R055"]
    ctx.slots[0][2] = "R001"
    run(ctx, steps({"op": "assign", "slot": "filled"}))
    assert len(ctx.requests) == 1 and ctx.requests[0].options == (("R055", 3),)
    assert not ctx.requests[0].can_pass and ctx.slots[0][2] == "R055"
    assert OPS.HIDDEN_KINDS == {"assign", "prime"}


def test_assign_with_relics_but_none_fitting_asks_pass_only():
    ctx = FakeContext(script=[None])
    ctx.rhand[0] = ["R027"]  # Goremaw Staff (Dark): slots 3-4 only, both filled
    ctx.slots[0][2], ctx.slots[0][3] = "R001", "R055"
    run(ctx, steps({"op": "assign", "slot": "empty"}))
    assert len(ctx.requests) == 1
    assert ctx.requests[0].options == () and ctx.requests[0].can_pass
    assert ctx.rhand[0] == ["R027"]


# ------------------------------------------------------------------------------ public history
def test_public_history_vocabulary_and_prime_shows_no_secret():
    st = ClandestineState(seed=4, num_players=5, societies=list(SOCIETIES))
    rng = np.random.default_rng(4)
    while not st.is_over and len(st.history) < 2500:
        st.apply_action(int(rng.choice(st.legal_actions())))
    ev = st.public_history()
    assert ev[0] == (EV_SOCIETIES, 0, 1, 2, 3, 4)
    assert {e[0] for e in ev} <= set(PUBLIC_EVENTS)
    assert sum(e[0] == EV_MAP for e in ev) >= 17  # at least the set-up Map
    decisions = [e for e in ev if e[0] in (EV_DECISION, EV_PRIME_PICK)]
    assert len(decisions) >= len(st.history)  # asked ones plus single-option ones
    primes = [e for e in ev if e[0] == EV_PRIME_PICK]  # (kind, seat): no Secret named
    assert len(primes) == len(st.prime_steps) > 0 and all(len(e) == 2 for e in primes)
    for i, e in enumerate(ev):  # then the space (or the stop), a decision of the same seat
        if e[0] == EV_PRIME_PICK:
            assert ev[i + 1][:2] == (EV_DECISION, e[1])


# ------------------------------------------------------------------------ history consistency
def test_history_consistent_resampling_fast():
    """CONVENTIONS.md law over 100 random positions (2-5 players, default and basic_preset),
    one seat per position in rotation (every seat over the run)."""
    rng = np.random.default_rng(7)
    count = 0
    for k in range(100):
        n = 2 + k % 4
        st = random_position(k, n, 90)
        seat = (k // 4) % n
        world = st.resample_from_infostate(seat, rng)
        count += assert_history_consistent(st, seat, world)
    assert count > 100


@pytest.mark.slow
@pytest.mark.parametrize("positions", [
    pytest.param(500, marks=pytest.mark.exhaustive, id="500"), pytest.param(200, id="200")])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_history_consistent_resampling_long(n, positions):
    """500 positions per player count at depths up to 300 decisions, every seat in rotation
    (the release check; ~40-60 s per count on one core). The slow run checks the same law on
    the first 200 of them."""
    rng = np.random.default_rng(n)
    for k in range(positions):
        st = random_position(10_000 * n + k, n, 300)
        seat = k % n
        assert_history_consistent(st, seat, st.resample_from_infostate(seat, rng))


# ------------------------------------------------------------------------- timing and leaks
def _timing_and_leak(seed: int, n: int, depth: int, follow: int) -> int:
    """Change what one seat j alone knows (clandestine_hidden_change), then play both games on
    with the same actions: every other seat's observation, the current player and the decision
    kind stay identical (j decides from actions legal in both games), and so does j's once its
    Secret hand and its record of which card each draw brought are the same again."""
    rng = np.random.default_rng(seed)
    st = random_position(seed, n, depth)
    checked = 0
    for observer in range(n):
        if st.is_over:
            break
        changed = clandestine_hidden_change(st, observer, rng)
        if changed is None:
            continue
        a, b = st.clone(), changed[0]
        for _ in range(follow):
            if a.is_over or b.is_over:
                assert a.is_over == b.is_over
                break
            assert a.current_player == b.current_player and a.kind == b.kind
            for s in range(n):
                ha = a.hidden_truth()["secret_hands"][s] == b.hidden_truth()["secret_hands"][s] \
                    and np.array_equal(a.secret_drawn_at[s], b.secret_drawn_at[s])
                if s == observer or ha:
                    assert np.array_equal(a.observation_tensor(s), b.observation_tensor(s))
            both = np.flatnonzero(a.legal_action_mask() & b.legal_action_mask())
            if len(both) == 0:
                break
            act = int(rng.choice(both))
            a.apply_action(act)
            b.apply_action(act)
            checked += 1
    return checked


def test_timing_and_leak_laws():
    total = sum(_timing_and_leak(100 + k, 2 + k % 4, 250, 40) for k in range(24))
    assert total > 300


@pytest.mark.slow
@pytest.mark.parametrize("positions", [
    pytest.param(400, marks=pytest.mark.exhaustive, id="400"), pytest.param(100, id="100")])
def test_timing_and_leak_laws_long(positions):
    """The timing and leak laws of :func:`_timing_and_leak` from 400 random positions (2-5
    players, depths up to 1,500 decisions, 120 actions played on; the release check, ~3.5
    minutes on one core). The slow run checks the same laws from the first 100 of them."""
    for k in range(positions):
        _timing_and_leak(5000 + k, 2 + k % 4, 1500, 120)


def test_leak_law_over_many_positions():
    """Changing seat j's hidden Secret hand leaves every other seat's observation unchanged."""
    rng = np.random.default_rng(3)
    changed = 0
    for k in range(60):
        n = 2 + k % 4
        st = random_position(300 + k, n, 600)
        for observer in range(n):
            got = clandestine_hidden_change(st, observer, rng)
            if got is not None:
                alt, owner = got
                changed += 1
                assert alt.hidden_truth() != st.hidden_truth()
                assert np.array_equal(alt.observation_tensor(observer),
                                      st.observation_tensor(observer))
                assert not np.array_equal(alt.observation_tensor(owner),
                                          st.observation_tensor(owner))
    assert changed > 60


# ------------------------------------------------------------------------------ finished games
def test_resampling_a_finished_game_keeps_the_outcome():
    rng = np.random.default_rng(5)
    for k in range(4):
        n = 2 + k
        st = random_position(k, n, 10**6)
        assert st.is_terminal
        for seat in range(n):
            w = st.resample_from_infostate(seat, rng)
            assert w.is_terminal and w.winners() == st.winners()
            assert np.array_equal(w.final_scores(), st.final_scores())
            assert np.array_equal(w.returns(), st.returns())


def test_resample_says_every_attempt_failed(monkeypatch):
    """When no relabelling drawn replays, :func:`resample` tries ``MAX_ATTEMPTS`` draws, then
    raises a RecordError saying all of them failed, quoting the last draw's error and chained
    to it (``__cause__``)."""
    import envs.clandestine.resample as R
    from envs.core.errors import RecordError

    calls = []

    def failing(st, seat, rng):
        calls.append(seat)
        raise RecordError(f"action #{len(calls)} is illegal in the replay")

    monkeypatch.setattr(R, "resample_once", failing)
    monkeypatch.setattr(R, "MAX_ATTEMPTS", 7)
    st = random_position(3, 3, 40)
    with pytest.raises(RecordError, match="all 7 attempts") as info:
        st.resample_from_infostate(2, np.random.default_rng(0))
    assert calls == [2] * 7
    assert "last error: action #7 is illegal in the replay" in str(info.value)
    assert isinstance(info.value.__cause__, RecordError)
    assert str(info.value.__cause__) == "action #7 is illegal in the replay"


def _blind_relic_look_alike():
    """A random 3-seat game stopped where a seat holds a Relic drawn blind, and the same game
    with that Relic swapped, in the Relic deck's shuffle, for one of the other tone still in the
    deck: every other seat's observation and the public history are unchanged."""
    import json

    from envs.clandestine.engine import RELIC_DARK
    from envs.core.errors import RecordError

    rng = np.random.default_rng(3)
    while True:
        s = ClandestineState(seed=int(rng.integers(2**31)), num_players=3)
        for step in range(3000):
            if s.is_over:
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
            if s.current_player is None or step % 7:
                continue
            for j in range(3):
                blind = set(s.relic_hand[j]) - set(s.relic_known[j])
                if not blind:
                    continue
                rec = s.to_record()
                rec.pop("rng_state", None)
                k = next(i for i, e in enumerate(rec["chance"]) if e[0] == "relic_deck")
                perm = rec["chance"][k][1]
                for x in (i for i, r in enumerate(perm) if r in blind):
                    for y in (i for i, r in enumerate(perm) if r in set(s.relic_deck)):
                        if RELIC_DARK[perm[x]] == RELIC_DARK[perm[y]]:
                            continue
                        other = json.loads(json.dumps(rec))
                        other["chance"][k][1][x], other["chance"][k][1][y] = perm[y], perm[x]
                        try:
                            t = ClandestineState.from_record(other)
                        except RecordError:
                            continue
                        if t.public_history() == s.public_history() and all(
                                np.array_equal(t.observation_tensor(q), s.observation_tensor(q))
                                for q in range(3) if q != j):
                            return s, t, j


def test_blind_relics_are_resampled_whatever_their_tone():
    """A Relic's tone (Bright, Dark) is on its face: another seat cannot tell a blind Relic's
    tone. Worlds used to keep every hidden Relic's tone, so each world copied the real tones of
    the blind Relics in other hands (a search knew them), and two states a seat cannot tell
    apart gave, with one seed, different worlds. Now both give the same world, and the worlds
    drawn from one state give the blind Relic either tone."""
    from envs.clandestine.engine import RELIC_DARK

    a, b, j = _blind_relic_look_alike()
    for q in range(3):
        if q == j:
            continue
        for k in range(3):
            wa = a.resample_from_infostate(q, np.random.default_rng(k))
            wb = b.resample_from_infostate(q, np.random.default_rng(k))
            assert wa.hidden_truth() == wb.hidden_truth(), \
                f"seat {q}, seed {k}: the tone of seat {j}'s blind Relic decided the world"
        tones = set()
        rng = np.random.default_rng(5)
        for _ in range(30):
            w = a.resample_from_infostate(q, rng)
            tones |= {bool(RELIC_DARK[r]) for r in set(w.relic_hand[j]) - set(w.relic_known[j])}
        assert tones == {False, True}, f"seat {q}: seat {j}'s blind Relics keep their tone"
        assert_history_consistent(a, q, w)


# ------------------------------------------------------- perfect recall: sibling decisions
_ALL_OPTIONS = {flag: True for flag in (
    "conjunctions", "society_powers", "secret_options_b", "relic_effects", "deep_alchemy",
    "ascension_tiles", "first_to_level_effects", "chaos", "map_extension", "hand_limits",
    "offturn_alchemy", "finite_pawns")}


def _decision_kind(st: ClandestineState) -> str:
    """The decision due (phases.KINDS), an effect decision named by the op asking it."""
    if st.kind == "effect":
        return "effect:" + st.runners[-1]["runner"].pending.kind
    return st.kind


def check_sibling_law(st: ClandestineState, covered: collections.Counter,
                      broken: collections.Counter) -> None:
    """Perfect recall (CONVENTIONS.md: a seat's observation holds everything it knows with a
    perfect memory of the game): the decision due is branched on every legal action (clones
    sharing the generator state, so the same chance outcomes follow). Two children whose public
    histories differ, or, for the deciding seat, whose actions differ (it knows what it picked,
    a prime's hidden Secret too), leave every seat concerned different observations.

    ``covered`` counts the seats compared per decision kind, ``broken`` the seats (kind, whether
    the decider) for which two such children gave one observation."""
    legal = st.legal_actions()
    if len(legal) < 2:
        return
    kind, decider = _decision_kind(st), st.decider
    kids = {}
    for a in legal:
        kids[a] = st.probe_clone()
        kids[a].apply_action(a)
    public = {a: tuple(kids[a].public_history()) for a in legal}
    for v in st.agent_seats:
        same: dict[bytes, list[int]] = collections.defaultdict(list)
        for a in legal:
            same[kids[a].observation_tensor(v).tobytes()].append(a)
        if any(len({(public[a], a if v == decider else None) for a in g}) > 1
               for g in same.values()):
            broken[kind, v == decider] += 1
        covered[kind] += 1


def _mixed_game(seed: int, g: int) -> tuple[ClandestineState, np.random.Generator]:
    """Game ``g`` of a mixed run (engine seed and generator ``seed * 1000 + g``): 2-5 players,
    every other one with every option on, each fourth one a Nemesis game (the Most Holy and the
    Silver Guard in turn, solo or with 2-3 humans, difficulty 3)."""
    kw = dict(_ALL_OPTIONS) if g % 2 else {}
    n = 2 + g % 4
    if g % 4 == 3:
        kw.update(nemesis=("most_holy", "silver_guard")[g // 4 % 2], difficulty=3)
        n = 1 + g // 4 % 3
    st = ClandestineState(seed=seed * 1000 + g, num_players=n, **kw)
    return st, np.random.default_rng(seed * 1000 + g)


def _sibling_run(games: int, seed: int, max_steps: int, first: int = 0
                 ) -> tuple[collections.Counter, ...]:
    """Random games ``first`` .. ``first + games - 1`` (2-5 players; every other one with every
    option on; each fourth one a Nemesis game, the Most Holy and the Silver Guard in turn, solo
    or with 2-3 humans) checked at each decision of the first ``max_steps``."""
    covered: collections.Counter = collections.Counter()
    broken: collections.Counter = collections.Counter()
    for g in range(first, first + games):
        st, rng = _mixed_game(seed, g)
        for _ in range(max_steps):
            if st.is_over:
                break
            check_sibling_law(st, covered, broken)
            st.apply_action(int(rng.choice(st.legal_actions())))
    return covered, broken


def test_sibling_decisions_stay_apart_fast():
    """A few thousand branchings: no decision kind gives two children one observation."""
    covered, broken = _sibling_run(8, 1, 150)
    assert not broken, f"seats given one observation for two public histories: {dict(broken)}"
    assert sum(covered.values()) > 2000
    assert covered["select_leader"] > 200 and covered["window_pre"] > 200


@pytest.mark.slow
@pytest.mark.parametrize("part", range(4))
def test_sibling_decisions_stay_apart_every_decision_kind(part):
    """Whole games (up to 1,500 decisions; 24 games in four parts of six, 1.5-2 minutes each
    on one core, so that the parts share the workers): the kinds the leader record
    (select_leader), the 'either' timing record (either_timing), the board slot record
    (board_pick) and the Nemesis's Masks record (effect:target place_chaos) were added for are
    among those checked in every part."""
    covered, broken = _sibling_run(6, 2, 1500, first=6 * part)
    print("\nseats compared per decision kind:", dict(covered))
    assert not broken, f"seats given one observation for two public histories: {dict(broken)}"
    assert covered["either_timing"] > 0 and covered["effect:target"] > 0
    assert covered["board_pick"] > 0 and len(covered) >= 20


def _leader_record(st: ClandestineState, v: int) -> np.ndarray:
    """Seat ``v``'s ``leader_acts`` view decoded: counts per relative seat, relative space and
    Leader type."""
    from envs.clandestine.observation import SCALES, decode_amount

    n = st.num_players
    view = st.layout.view(st.observation_tensor(v), "leader_acts").reshape(n, 9 * n, 2)
    return decode_amount(view, SCALES["leader_acts"])


def test_the_leader_a_seat_acted_with_stays_in_the_observations():
    """2 players, every option on, engine seed 20, 342 random actions (generator seed 20): seat
    1 chooses between acting with the Public Leader (54) and the Society Leader (57) on one
    space; the Action resolves at once in both. The public histories differ, and every seat
    reads which Leader acted from ``leader_acts`` (one more Action with that Leader type on that
    space, in its own relative numbering)."""
    from envs.clandestine import phases as PH

    s = ClandestineState(seed=20, num_players=2, **_ALL_OPTIONS)
    rng = np.random.default_rng(20)
    for _ in range(342):
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert s.current_player == 1 and s.legal_actions() == [54, 57]
    space = s.leader_space
    x, y = s.probe_clone(), s.probe_clone()
    x.apply_action(54)
    y.apply_action(57)
    assert x.public_history() != y.public_history()
    for v in (1, 0):
        assert not np.array_equal(x.observation_tensor(v), y.observation_tensor(v))
        rel, sp = (1 - v) % 2, PH.space_to_index(space, v, 2)
        before = _leader_record(s, v)
        assert before[rel, sp].tolist() == s.leader_acts[1, space].tolist()
        assert (_leader_record(x, v) - before)[rel, sp].tolist() == [1, 0]
        assert (_leader_record(y, v) - before)[rel, sp].tolist() == [0, 1]
        assert (_leader_record(x, v) - before).sum() == 1


def test_leader_record_counts_every_leader_picked():
    """Law over random games (3 and 4 players, default and every option on): every seat's
    decoded ``leader_acts``, summed over the Leader types, equals per seat and space the
    select_leader picks of that space in the public history (a pick of a space with both Leader
    types is followed by the type's pick; either way one Action starts there)."""
    from envs.clandestine import phases as PH
    from envs.clandestine.actions import OFFSET, SIZE
    from envs.clandestine.engine import _KIND_IDS

    for seed in range(4):
        n = 3 + seed // 2
        st = random_position(seed, n, 400, **(_ALL_OPTIONS if seed % 2 else {}))
        picks = np.zeros((n, 9 * n), dtype=np.int64)
        for e in st.public_history():
            if e[0] == EV_DECISION and e[2] == _KIND_IDS["select_leader"] \
                    and OFFSET["SPACE"] <= e[3] < OFFSET["SPACE"] + SIZE["SPACE"]:
                seat = e[1]
                space = next(x for x in range(9 * n)
                             if PH.space_to_index(x, seat, n) == e[3] - OFFSET["SPACE"])
                picks[seat, space] += 1
        assert picks.sum() > 20
        for v in range(n):
            rec = _leader_record(st, v).sum(axis=2)
            for r in range(n):
                s = (v + r) % n
                assert rec[r].tolist() == [picks[s, x] for x in sorted(
                    range(9 * n), key=lambda x: PH.space_to_index(x, v, n))]


# ------------------------------------------------- resampled Secrets: Levels are hidden
def _levels(st, j):
    soc = _C["secrets"][st.societies[j]]
    return collections.Counter(soc[c]["level"] for c in st.secret_hand[j])


def _look_alike_pair():
    """A random 3-seat game stopped right after a seat gained a Level whose Secrets were
    shuffled into a deck still holding older ones (2 drawn), and the same game with two cards of
    that shuffle swapped so that the seat holds other Levels, every other seat's observation and
    the public history unchanged."""
    rng = np.random.default_rng(1)
    while True:
        seed = int(rng.integers(2**31))
        s = ClandestineState.from_config(seed, num_players=3)
        while not s.is_over:
            n_sh = len(s.shuffle_inputs)
            s.apply_action(random_action(s.legal_action_mask(), rng))
            if len(s.shuffle_inputs) > n_sh and s.current_player is not None:
                j, before, _ = s.shuffle_inputs[-1]
                soc = _C["secrets"][s.societies[j]]
                if len({soc[c]["level"] for c in before}) > 1:
                    break
        else:
            continue
        rec = s.to_record()
        rec.pop("rng_state", None)
        idx = [i for i, e in enumerate(rec["chance"]) if e[0] == "secret_shuffle"][-1]
        perm = rec["chance"][idx][1]
        for x in range(len(perm)):
            for y in range(x + 1, len(perm)):
                r2 = json.loads(json.dumps(rec))
                r2["chance"][idx][1][x], r2["chance"][idx][1][y] = perm[y], perm[x]
                try:
                    t = ClandestineState.from_record(r2)
                except RecordError:  # a swap the recorded actions do not fit
                    continue
                if _levels(t, j) != _levels(s, j) and t.public_history() == s.public_history() \
                        and all(np.array_equal(t.observation_tensor(q), s.observation_tensor(q))
                                for q in range(3) if q != j):
                    return s, t, j


def test_resampled_worlds_do_not_copy_the_levels_of_hidden_secrets():
    """A Secret's Level is printed on its face (rulebook "Secrets"): two states another seat
    cannot tell apart (two cards of the last Secret shuffle swapped, so that seat j holds other
    Levels) give, with one seed, the same worlds, and the worlds do not all give seat j its
    real Levels. (Worlds used to relabel hidden Secrets only within each Level, copying the
    Levels another seat drew into every world.)"""
    a, b, j = _look_alike_pair()
    for q in range(3):
        if q == j:
            continue
        wa = [a.resample_from_infostate(q, np.random.default_rng(k)) for k in range(4)]
        wb = [b.resample_from_infostate(q, np.random.default_rng(k)) for k in range(4)]
        assert [x.hidden_truth() for x in wa] == [x.hidden_truth() for x in wb], \
            f"seat {q}: one seed, two look-alike states, different worlds"
        seen = {tuple(sorted(_levels(a.resample_from_infostate(q, np.random.default_rng(k)),
                                     j).items())) for k in range(40)}
        assert len(seen) > 1, f"seat {q}: every world gives seat {j} the real Levels {seen}"


def _first_level_two_draws(seed: int) -> tuple[ClandestineState, int, int]:
    """A random 3-seat game stopped right after a seat's Level II shuffle and its 2 draws, its
    only Secret moves before: ``a`` <= 7 draws from the Level I deck and cards discarded face
    up. Returns the state, the seat and ``a``."""
    rng = np.random.default_rng(seed)
    while True:
        s = ClandestineState(seed=int(rng.integers(2**31)), num_players=3)
        while not s.is_over:
            shuffles = len(s.shuffle_inputs)
            s.apply_action(int(rng.choice(s.legal_actions())))
            if len(s.shuffle_inputs) > shuffles:
                j = s.shuffle_inputs[-1][0]
                codes = [c for c, x, _ in s.secret_log if x == j]
                k = codes.index(SM_SHUFFLE)
                a = codes[:k].count(SM_DRAW)
                if codes[k:] == [SM_SHUFFLE, SM_DRAW, SM_DRAW] and a <= 7 \
                        and set(codes[:k]) <= {SM_DRAW, SM_REVEAL} and s.current_player is not None:
                    return s, j, a
                break


def test_levels_of_hidden_draws_follow_the_posterior():
    """Hand-worked posterior: seat j drew ``a`` Secrets from its shuffled Level I deck (10
    cards), discarded some face up, then gained Level II: its 8 Level II Secrets were shuffled
    with the 10 - a Level I cards left, and it drew 2. Another seat cannot see those 2 cards'
    Levels: the number of Level II cards among them is hypergeometric (2 drawn from 18 - a
    holding 8 Level II), and the cards drawn before are all Level I. 300 worlds drawn for
    the next seat match these probabilities within 0.09 (3 standard deviations)."""
    from math import comb

    s, j, a = _first_level_two_draws(1)
    assert a == 2  # 2 drawn at set-up, then 16 cards in the Level II deck
    total = 18 - a
    want = [comb(8, k) * comb(total - 8, 2 - k) / comb(total, 2) for k in range(3)]
    assert want == pytest.approx([28 / 120, 64 / 120, 28 / 120])
    hand_size = len(s.secret_hand[j])
    for q in ((j + 1) % 3,):
        rng = np.random.default_rng(q)
        seen = np.zeros(3)
        for _ in range(300):
            w = s.resample_from_infostate(q, rng)
            levels = _levels(w, j)
            assert sum(levels.values()) == hand_size and set(levels) <= {1, 2}
            seen[levels[2]] += 1
        assert seen / 300 == pytest.approx(want, abs=0.09), f"seat {q}: {seen / 300} vs {want}"


def test_resampling_while_a_primed_secret_waits_for_its_space():
    """Every option on, 3 players: the Serpent Keepers picked the Secret to prime (a hidden
    pick) and its space is still to choose. Every seat's world replays the pick: the Keepers'
    own world keeps its card; another seat's world names one of the hand cards it drew for the
    Keepers, and stays history consistent. (The resampler used to stop with 'prime picks in
    the history, primes logged'.)"""
    from envs.clandestine.engine import RELIC_INDEX

    checked = 0
    for seed in range(60):
        st = ClandestineState(seed=seed, num_players=3, **_ALL_OPTIONS)
        rng = np.random.default_rng(seed)
        while not st.is_over:
            st.apply_action(int(rng.choice(st.legal_actions())))
            pick = st.effect_pick
            if isinstance(pick, str) and pick not in RELIC_INDEX \
                    and pick not in ("forward", "backward"):
                break
        else:
            continue
        keepers = st.decider
        card = st.secret_index(keepers, pick)
        for q in range(3):
            w = st.resample_from_infostate(q, np.random.default_rng(q))
            assert isinstance(w.effect_pick, str) and w.decider == keepers
            picked = w.secret_index(keepers, w.effect_pick)
            assert picked in w.secret_hand[keepers]
            if q == keepers:
                assert picked == card
            assert_history_consistent(st, q, w)
        checked += 1
        if checked == 2:
            break
    assert checked == 2


# --------------------------------------------------------------- perfect recall, played on
def _recall_forward(st: ClandestineState, rng: np.random.Generator, follow: int
                    ) -> tuple[int, int, list[str]]:
    """Perfect recall along branches played on (CONVENTIONS.md): a seat that could tell two
    branches apart once can tell them apart ever after, so once its observations of two games
    differ they never become equal again. Pairs from ``st``: the real game against a world
    resampled for each agent seat (the same observation for that seat at the start), and two
    children of the decision due (two different legal actions, clones sharing the generator
    state; every pair of up to 5 legal actions). Each pair is played on with actions legal in both (the same id, drawn at random),
    for up to ``follow`` actions. Returns (pairs, seat-steps compared, violations as text)."""
    pairs = []
    for v in st.agent_seats:
        pairs.append((f"resampled for seat {v}", st.clone(),
                      st.resample_from_infostate(v, rng)))
    legal = st.legal_actions()
    if len(legal) >= 2:
        picked = sorted(int(x) for x in rng.choice(legal, size=min(5, len(legal)),
                                                    replace=False))
        kids = {}
        for a in picked:
            kids[a] = st.probe_clone()
            kids[a].apply_action(a)
        for i, a in enumerate(picked):
            for b in picked[i + 1:]:
                pairs.append((f"children {a} and {b}", kids[a].clone(), kids[b].clone()))
    compared, bad = 0, []
    for name, x, y in pairs:
        apart = {v: False for v in st.agent_seats}
        for k in range(follow + 1):
            for v in st.agent_seats:
                same = np.array_equal(x.observation_tensor(v), y.observation_tensor(v))
                if apart[v] and same:
                    bad.append(f"{name}: seat {v} told the games apart, then not after "
                               f"{k} actions")
                apart[v] |= not same
                compared += 1
            if x.is_over or y.is_over or k == follow:
                break
            both = np.flatnonzero(x.legal_action_mask() & y.legal_action_mask())
            if len(both) == 0:
                break
            act = int(rng.choice(both))
            x.apply_action(act)
            y.apply_action(act)
    return len(pairs), compared, bad


def _recall_forward_run(games: int, seed: int, depth: int, follow: int) -> tuple[int, int]:
    """:func:`_recall_forward` at a random position of each of ``games`` games (2-5 players;
    every other one with every option on; each fourth one a Nemesis game, solo or with 2-3
    humans, as in :func:`_sibling_run`). Returns (pairs, seat-steps compared)."""
    pairs = compared = 0
    for g in range(games):
        st, rng = _mixed_game(seed, g)
        for _ in range(int(rng.integers(0, depth + 1))):
            if st.is_over:
                break
            st.apply_action(int(rng.choice(st.legal_actions())))
        if st.is_over:
            continue
        p, c, bad = _recall_forward(st, rng, follow)
        assert not bad, f"game {g} (seed {st.seed}, config {st.config}): {bad[:3]}"
        pairs += p
        compared += c
    return pairs, compared


def test_recall_holds_along_branches_played_on_fast():
    """Some 60 branch pairs from random positions, each played on for 40 actions."""
    pairs, compared = _recall_forward_run(16, 3, 400, 40)
    assert pairs >= 50 and compared > 4000, (pairs, compared)


_PRIME_GAP = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "a known perfect-recall gap (docs/clandestine.md, the recall law along branches played "
    "on): the space a Secret was primed on is forgotten once it has flipped (seed 10010, "
    "children 11 and 28 of a 4-player game, two prime picks, told apart, then not after 105 "
    "actions)"))


@pytest.mark.slow
@pytest.mark.parametrize("part", [pytest.param(0, marks=_PRIME_GAP), 1])
def test_recall_holds_along_branches_played_on_long(part):
    """Deeper positions (up to 1,500 decisions, where the Relic deck reaches the Silver Guard
    set-up groups and Intent decks are rebuilt) and 150 actions played on: 40 games a part.
    Part 0 is expected to fail until the prime gap is closed (strict: a pass is reported as a
    failure, so the mark goes once it is)."""
    pairs, compared = _recall_forward_run(40, 10 + part, 1500, 150)
    assert pairs >= 100, (pairs, compared)


def _scan_position(seed: int, num_players: int, **kw) -> tuple[ClandestineState,
                                                              np.random.Generator]:
    """The position of a recall scan: a game (keywords ``kw``) played at random for
    ``rng.integers(0, 1500)`` decisions with the generator seeded ``seed``."""
    st = ClandestineState(seed=seed, num_players=num_players, **kw)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 1500))):
        st.apply_action(int(rng.choice(st.legal_actions())))
    return st, rng


def _apart_along(x: ClandestineState, y: ClandestineState, actions: list[int]) -> None:
    """Asserts every agent seat tells ``x`` and ``y`` apart now and after each of ``actions``
    (played in both)."""
    for k in range(len(actions) + 1):
        for v in x.agent_seats:
            assert not np.array_equal(x.observation_tensor(v), y.observation_tensor(v)), (k, v)
        if k < len(actions):
            x.apply_action(actions[k])
            y.apply_action(actions[k])


def test_a_pawn_moved_no_space_stays_in_the_observations():
    """A Regroup picks a Society Leader on P1S2 or on P1C2 (seed 7025, 2 humans and the Silver
    Guard) and moves it 0 spaces: the board is the same and the pick step ends, so only
    ``pawn_picks`` (one pick from each space, 0 spaces moved) keeps the choice told apart."""
    from envs.clandestine import phases as PH
    from envs.clandestine.observation import SCALES, decode_amount

    st, _ = _scan_position(7025, 2, nemesis="silver_guard", difficulty=3)
    assert st.kind == "pawn_pick" and st.current_player == 1
    x, y = st.probe_clone(), st.probe_clone()
    x.apply_action(12)
    y.apply_action(15)
    assert x.legal_actions() == y.legal_actions() == [58, 59]
    _apart_along(x, y, [58])  # "Move 0 spaces"
    picked = [next(zip(*np.nonzero(s.pawn_picks[1, :, :, 0] - st.pawn_picks[1, :, :, 0])))
              for s in (x, y)]
    assert picked[0] != picked[1]
    assert x.public_history() != y.public_history()
    assert np.array_equal(x.pawns.counts, y.pawns.counts)
    lay = x.layout
    for v in (0, 1):
        for s, (space, ptype) in zip((x, y), picked):
            rec = decode_amount(lay.view(s.observation_tensor(v), "pawn_picks"),
                                SCALES["pawn_picks"]).reshape(3, 27, 4, 3)
            rel = PH.space_to_index(int(space), v, 3)  # the Nemesis is the third seat
            assert rec[(1 - v) % 3, rel, ptype].tolist() == \
                s.pawn_picks[1, space, ptype].tolist()
            assert s.pawn_picks[1, space, ptype, 1] == st.pawn_picks[1, space, ptype, 1]


def test_chaos_placed_on_a_relic_stays_in_the_observations():
    """The Twilight Masks place Chaos on the Relic at Map space R1.1 or at R4.0 (seed 7059, 3
    humans and the Silver Guard); 22 actions later the Chaos is gone in both games, so only
    ``masks_placed`` (one Chaos placed on each Map space) keeps the choice told apart."""
    from envs.clandestine.engine import MAP_ORDER
    from envs.clandestine.observation import SCALES, decode_amount

    st, _ = _scan_position(7059, 3, nemesis="silver_guard", difficulty=3)
    assert st.kind == "effect" and st.current_player == 0
    x, y = st.probe_clone().clone(), st.probe_clone().clone()
    x.apply_action(85)
    y.apply_action(93)
    _apart_along(x, y, [19, 244, 256, 42, 0, 17, 256, 17, 244, 256, 102, 13, 1, 0, 28, 55,
                        55, 56, 94, 88, 84, 93])
    assert np.flatnonzero(x.masks_placed_map - st.masks_placed_map).tolist() == \
        [MAP_ORDER.index("R1.1")]
    assert np.flatnonzero(y.masks_placed_map - st.masks_placed_map).tolist() == \
        [MAP_ORDER.index("R4.0")]
    assert x.masks_relic == y.masks_relic
    for v in x.agent_seats:
        a, b = (decode_amount(x.layout.view(s.observation_tensor(v), "masks_placed"),
                              SCALES["masks_placed"]) for s in (x, y))
        k = 9 * 4 + MAP_ORDER.index("R1.1")
        assert (a - b)[k] == 1 and (a - b)[9 * 4 + MAP_ORDER.index("R4.0")] == -1


def test_the_panel_an_alchemy_token_went_to_stays_in_the_observations():
    """Seat 0 places an alchemy token on one panel or another (seed 8032, 2 players, no
    options); its tokens come back at its next turn start, so only ``panel_picks`` (one token
    placed on each panel) keeps the choice told apart."""
    from envs.clandestine.observation import SCALES, decode_amount

    st, _ = _scan_position(8032, 2)
    assert st.kind == "window_pre" and st.current_player == 0
    x, y = st.probe_clone().clone(), st.probe_clone().clone()
    x.apply_action(248)
    y.apply_action(250)
    dx, dy = x.panel_picks - st.panel_picks, y.panel_picks - st.panel_picks
    _apart_along(x, y, [0, 20, 88, 13, 88, 256])
    assert dx[0].sum() == dy[0].sum() == dx.sum() == dy.sum() == 1
    assert not np.array_equal(dx, dy)
    assert x.panel_tokens == y.panel_tokens
    for v in (0, 1):
        for s in (x, y):
            rec = decode_amount(s.layout.view(s.observation_tensor(v), "panel_picks"),
                                SCALES["panel_picks"]).reshape(2, 7, 2)
            assert rec[(0 - v) % 2].tolist() == s.panel_picks[0].tolist()


def test_which_secret_a_draw_brought_stays_in_the_drawers_observation():
    """A world resampled for seat 3 (seed 8006, 4 players, no options) gives seat 0 the hand
    {5, 2} and deck [0] where the game has the hand {2, 0} and deck [5]; seat 0 plays Secret 2
    and draws its last card, so both hands become {0, 5}. Seat 0 knows which card it drew:
    ``own_draw_order`` (its draws' order) keeps the two games told apart."""
    st, rng = _scan_position(8006, 4)
    worlds = [st.resample_from_infostate(v, rng) for v in st.agent_seats]
    x, y = st.clone(), worlds[3]
    assert sorted(x.secret_hand[0]) == [0, 2] and sorted(y.secret_hand[0]) == [2, 5]
    assert x.secret_deck[0] == [5] and y.secret_deck[0] == [0]
    for k, a in enumerate([58, 244, 214, 2]):  # the Secret played with option A: a draw
        assert not np.array_equal(x.observation_tensor(0), y.observation_tensor(0)), k
        x.apply_action(a)
        y.apply_action(a)
    assert sorted(x.secret_hand[0]) == sorted(y.secret_hand[0]) == [0, 5]
    assert not np.array_equal(x.observation_tensor(0), y.observation_tensor(0))
    for s, drawn_last in ((x, 5), (y, 0)):
        order = s.layout.view(s.observation_tensor(0), "own_draw_order") * 31
        assert np.rint(order[drawn_last]) == sum(s.secret_draws[0]) == order.max().round()


def test_a_relic_assigned_then_sent_back_stays_in_the_observations():
    """Seat 3 assigns Relic 1 or Relic 33 to its slot 1, sending Relic 81 back to its hand
    (seed 9018, 4 players, no options); 45 actions later it assigns Relic 68 there, sending the
    first back, so slots and hands are the same in both games. Only ``relic_assigns`` (which
    Relic went on which slot) keeps the choice told apart."""
    from envs.clandestine.observation import SCALES, decode_amount

    st, _ = _scan_position(9018, 4)
    assert st.kind == "assign" and st.current_player == 3 and st.slots[3][0] == 81
    x, y = st.probe_clone().clone(), st.probe_clone().clone()
    x.apply_action(105)  # RELIC 1
    y.apply_action(137)  # RELIC 33
    _apart_along(x, y, [323, 31, 256, 17, 27, 244, 0, 16, 1, 13, 12, 0, 256, 98, 245, 10, 91,
                        247, 148, 327, 0, 21, 89, 256, 41, 176, 247, 0, 0, 29, 0, 0, 244, 250,
                        0, 27, 56, 56, 85, 0, 245, 29, 248, 172, 323])
    assert x.slots[3] == y.slots[3] and x.slots[3][0] == 68
    assert sorted(x.relic_hand[3]) == sorted(y.relic_hand[3]) == [1, 33, 81]
    for v in range(4):
        a, b = (decode_amount(s.layout.view(s.observation_tensor(v), "relic_assigns"),
                              SCALES["relic_assigns"]).reshape(4, 114) for s in (x, y))
        r = (3 - v) % 4
        assert (a - b)[r].tolist() == [int(k == 1) - int(k == 33) for k in range(114)]
        assert a[r, 108] == x.relic_assigns[3, 108] >= 2  # slot 1: the first Relic, then 68


def test_which_relic_a_blind_draw_brought_stays_in_the_drawers_observation():
    """A world resampled for seat 3 (seed 10015, 5 players, every option) gives seat 1 the
    hidden Relic 3 where the game has Relic 89, and the deck the other one; seat 1 draws it
    blind, so both hands become the same. Seat 1 knows which Relic the draw brought:
    ``own_relic_draws`` keeps the two games told apart."""
    from envs.clandestine.observation import SCALES, decode_amount

    st, rng = _scan_position(10015, 5, **_ALL_OPTIONS)
    worlds = [st.resample_from_infostate(v, rng) for v in st.agent_seats]
    x, y = st.clone(), worlds[3]
    assert sorted(x.relic_hand[1]) == [2, 4, 25, 42, 89]
    assert sorted(y.relic_hand[1]) == [2, 3, 4, 25, 42]
    for k, a in enumerate([37, 244, 22, 56, 56, 55, 257]):
        assert not np.array_equal(x.observation_tensor(1), y.observation_tensor(1)), k
        x.apply_action(a)
        y.apply_action(a)
    assert sorted(x.relic_hand[1]) == sorted(y.relic_hand[1]) == [2, 3, 4, 25, 42, 89]
    assert not np.array_equal(x.observation_tensor(1), y.observation_tensor(1))
    for s, drawn_last in ((x, 3), (y, 89)):
        order = decode_amount(s.layout.view(s.observation_tensor(1), "own_relic_draws"),
                              SCALES["relic_draw_order"])
        assert order[drawn_last] == s.relic_draws[1] == order.max() > 0
