"""History-consistent resampling for Badland Wolves (CONVENTIONS.md "Engine", issue 7).

:func:`resample_from_infostate` draws a world ``seat`` cannot tell from the real game and returns
it *with its history*: the real actions (share deals ``seat`` did not see dealing the world's
cards, below) and counterfactual chance outcomes (deck permutations, reshuffles, steals,
Jackalope insert positions), set with :meth:`GameState.set_chance_log`. The world is the replay
of that record, so ``world.to_record()`` replays to it exactly, and every
step shows ``seat`` the same observation, ``current_player`` and (where ``seat`` decides) mask
as the real game.

How the counterfactual Scrap cards are drawn. Every Scrap card drawn so far is followed through
the engine's card log (``state.card_log``: draws, face-up plays, steals, share deals, Crow's
Ally looks) as an *identity* whose type is left open until the history forces it:

* cards ``seat`` sees (its own draws and hand, the cards it deals, cards given or stolen to or
  from it, a hand it looks at) get their real type;
* a card played face up by another wolf is one of its open cards turned into the played type (a
  card of that type it already holds in the world is used first: the exact choice when the play
  is the only constraint);
* a share deal between two other wolves (its card type is private to the Lead Wolf and the
  hunter: rulebook "Deer, Bighorn Ram, & Bison", rulings 6 and 12) deals a uniformly random one
  of the Lead Wolf's drawn cards in the world, its type left open like any hidden card; the
  world's action ``GIVE[t, k]`` then carries that card's type in the world, so the world's
  actions differ from the real ones there (and only there);
* a random steal between two other wolves takes a uniformly random card of the victim's world
  hand (the chance outcome itself).

Every Scrap deck (the initial 60 cards, then each reshuffled discard pile, whose composition is
public) keeps its own pool, so after a reshuffle the open cards drawn from it, and the deck
itself, hold only that pile's cards. When the history is replayed the open cards get a uniformly
random assignment of what is left of their deck's pool. The Hunt deck: drawn cards are public;
every Hunt deck's order and every Jackalope insert position are drawn together from the
exact posterior given the public Hunt facts (:func:`_hunt_outcomes`), the Jackalopes shuffled
back taken alike (which one a draw took is hidden).

The result is uniform over consistent worlds when each play is the only constraint on the
player's hidden cards (a share deal between two other wolves counts every way of dealing the
drawn cards alike, as if the Lead Wolf dealt at random: the seat has no model of its choice);
with several interacting constraints (plays of a type the wolf does not hold in the world,
looks, several decks) it is close to, not exactly, the uniform posterior (the chi-square tests
in ``tests/test_badland_wolves_recall.py`` measure it on small positions). A draw that runs into
a contradiction (a greedy choice leaves a later play impossible) is redone (from attempt
:data:`HINT_FROM` on, some steals between two other wolves, and which open card a face-up play
turns, are steered by public facts). From attempt :data:`BACKTRACK_FROM` on, a contradiction
first sends the pass back to a checkpoint a few card events earlier and redraws only the events
since (further back after repeated failures at the same place): 850 to 1,250 actions into a long
game of four wolves, 85 to 100% of the passes from the first card event failed, most at a
face-up play no card of the wolf's world hand could still be. The first :data:`BACKTRACK_FROM`
attempts restart from scratch, so a position where that succeeds soon keeps the distribution it
had (resuming from a checkpoint draws the events before it as they were, which may weigh worlds
otherwise than a restart). After :data:`TRIES` failures the real chance outcomes are kept (the
true world with a fresh future), counted in :data:`STATS`. That fallback makes the world depend
on the real hidden cards rather than only on what ``seat`` knows and the generator. Measured
over 2,000 random positions of ``tests.contract_helpers.random_positions`` (seeds 2026 and 99,
one random seat each), no draw fell back (before the local backtracking: 3 of 668 with three
wolves, 4 of 666 with four and 14 of 666 with five, all past 400 actions); in eight games of
four heuristic wolves (environment seeds 200 to 207, two draws every 15th decision) none of 604
draws fell back (before: 30 or 31, all past action 740, 27 to 35 ms per draw, now 12 to 19 ms,
on a loaded machine), and in eighteen games of five (seeds 200 to 217) none of 1,642 (before:
167 to 170, all past action 490, 48 ms per draw in the twelve longer games 206 to 217, now 21
ms); at the positions 850 to 1,250 actions into environment seed 205, none of 200 draws (before:
31 of 100, at 140 to 330 ms per draw, now 40 to 60 ms). These figures were measured before the
Hunt deck was drawn from its exact posterior (which changes no fallback: 6 before, 5 after at
the same positions). Every Hunt card drawn is one of its type's copies taken in pile order
(which copy is hidden and changes nothing).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core import RecordError

from .cards import HUNT_COUNTS_ARR, JACKALOPE, NUM_HUNT_TYPES, NUM_SCRAP_TYPES, SCRAP_COUNTS_ARR

if TYPE_CHECKING:  # pragma: no cover
    from .engine import BadlandWolvesState

#: attempts before the real chance outcomes are kept (see the module docstring)
TRIES = 100
#: attempts from which steals between two other wolves are hinted, and the share of those
#: steals that follow the hint (:func:`_steal_hint`); the rest stay uniformly random, so the
#: hinted attempts do not all repeat one dead end
HINT_FROM = 10
HINT_SHARE = 0.25
#: local backtracking in one pass (:func:`_counterfactual_log`), from attempt
#: ``BACKTRACK_FROM`` on: a checkpoint every ``CHECK_EVERY`` card events; after a
#: contradiction the pass resumes from the last checkpoint before the failed event, one
#: checkpoint further back after every ``BACK_STEP`` failures at the same place, and gives up
#: (a contradiction: the whole pass is redone) after ``BACKTRACKS`` of them (``BACK_STEP`` 4
#: and ``BACKTRACKS`` 80 rather than 2 and 40: 6 rather than 2 of 80 passes went through for
#: the hardest seat 1,310 actions into a five-wolf game, environment seed 215)
BACKTRACK_FROM = 5
CHECK_EVERY = 16
BACK_STEP = 4
BACKTRACKS = 80
#: counters: ``draws`` (worlds returned), ``retries`` (contradictions redone), ``fallbacks``
STATS = {"draws": 0, "retries": 0, "fallbacks": 0, "steal_hints": 0, "backtracks": 0}


class _Contradiction(Exception):
    """A greedy choice left the history impossible: draw again."""


def resample_from_infostate(state: BadlandWolvesState, seat: int,
                            rng: np.random.Generator) -> BadlandWolvesState:
    """A world consistent with everything ``seat`` has seen, with its counterfactual history.

    Args:
        state: a state reached by play (its ``card_log``, ``chance_log`` and ``history`` are
            the game's; a state edited by hand cannot be resampled consistently).
        seat: the observing wolf (checked by the engine's method).
        rng: source of the counterfactual outcomes and of the world's future generator seed.

    Returns:
        a new state (the replay of the real actions under the drawn chance outcomes) whose
        ``to_record()`` replays to it; its future chance comes from a fresh seed drawn from
        ``rng``.
    """
    cls = type(state)
    STATS["draws"] += 1
    facts: dict[str, Any] = {}   # what every attempt reads off the history, found once
    for attempt in range(TRIES):
        try:
            log, actions = _counterfactual_log(state, seat, rng,
                                               hint_steals=attempt >= HINT_FROM,
                                               backtrack=attempt >= BACKTRACK_FROM,
                                               facts=facts)
        except _Contradiction:
            STATS["retries"] += 1
            continue
        world = _replay(cls, state, log, int(rng.integers(2**62)), actions)
        if world is not None and np.array_equal(world.observation_tensor(seat),
                                                state.observation_tensor(seat)):
            return world
        STATS["retries"] += 1  # pragma: no cover - a contradiction the greedy pass missed
    STATS["fallbacks"] += 1
    world = _replay(cls, state, [list(e) for e in state.chance_log], int(rng.integers(2**62)))
    assert world is not None
    return world


def _replay(cls: Any, state: BadlandWolvesState, log: list[list[Any]], seed: int,
            actions: list[int] | None = None) -> BadlandWolvesState | None:
    """``actions`` (default: the real ones) replayed under ``log`` (None if they do not fit).

    The actions are the real ones, share deals whose card type ``seat`` did not see rewritten
    to the world's dealt card: the real ones were legal in the real game, a rewritten deal
    takes a card the Lead Wolf holds in the world, and the log keeps every other fact their
    legality depends on, so they are applied without recomputing masks (the final observation
    check of :func:`resample_from_infostate` and the history-consistency tests stand guard).
    """
    world = cls.__new__(cls)
    world._pending_chance = deque((name, outcome) for name, outcome in log)
    try:
        world.__init__(seed=seed, **state.config)
        for a in (state.history if actions is None else actions):
            world._apply_action(a)
            world.history.append(a)
    except (RecordError, IndexError, ValueError, AssertionError):
        return None
    if world._forced_chance:
        return None
    return world


def _counterfactual_log(state: BadlandWolvesState, seat: int, rng: np.random.Generator,
                        hint_steals: bool = False, backtrack: bool = False,
                        facts: dict[str, Any] | None = None
                        ) -> tuple[list[list[Any]], list[int]]:
    """The chance outcomes and the actions of one world (raises :class:`_Contradiction` on a
    dead end).

    The actions are the real ones except share deals ``seat`` neither made nor received: such a
    deal takes a uniformly random card of the Lead Wolf's drawn cards in the world (an open
    identity, its type left open until the history forces it), and its action id ``GIVE[t, k]``
    gets that card's type in the world.

    ``hint_steals``: a steal between two other wolves takes, with probability
    :data:`HINT_SHARE`, a card chosen from public facts (:func:`_steal_hint`: the thief's later
    plays, what the victim plays before it next gets a card) instead of a uniformly random card
    (later attempts only); a face-up play then turns none of the wolf's open cards it needs for
    its next plays (before it next gets a card), when another open card will do.

    ``backtrack``: a contradiction resumes the pass from a checkpoint (one every
    :data:`CHECK_EVERY` card events, one further back after every :data:`BACK_STEP` failures
    at the same place) instead of raising, up to :data:`BACKTRACKS` times. Every draw
    here depends on what ``seat`` knows and on ``rng`` only, never on a hidden type or order of
    the real game.

    ``facts``: a dict kept between the attempts of one draw (same ``state`` and ``seat``), where
    the pass keeps what it reads off the history alone (the cards ``seat`` drew per deck, the
    later plays of the hinted attempts, the Hunt decks' public events) instead of finding it
    again; ``None``: a fresh one.
    """
    from .engine import (
        C_DRAW,
        C_GIVE,
        C_HDRAW,
        C_HRESH,
        C_JINS,
        C_KEEP,
        C_LOOK,
        C_PLAY,
        C_SDRAW,
        C_SRESH,
        C_STEAL,
    )
    n = state.num_players
    if facts is None:
        facts = {}
    typ: list[int] = []           # type per card identity, -1 while open
    ep: list[int] = []            # Scrap deck (epoch) each identity was drawn from
    # cards seat drew itself are known from the start: reserved in their deck's pool (read
    # only from here on)
    if "reserve" not in facts:
        reserve = [np.zeros(NUM_SCRAP_TYPES, dtype=np.int64)]
        for ev in state.card_log:
            if ev[0] == C_SRESH:
                reserve.append(np.zeros(NUM_SCRAP_TYPES, dtype=np.int64))
            elif (ev[0] == C_DRAW or ev[0] == C_SDRAW) and ev[1] == seat:
                reserve[-1][ev[2]] += 1
        facts["reserve"] = reserve
    reserve = facts["reserve"]
    comps = [SCRAP_COUNTS_ARR.copy()]        # composition of each Scrap deck
    # per deck: types not yet given to an identity (counts per type, plain ints)
    pools: list[list[int]] = [(SCRAP_COUNTS_ARR - reserve[0]).tolist()]
    slots: list[list[int]] = [[]]            # per deck: identities in draw order
    hands: list[list[int]] = [[] for _ in range(n)]
    drawn: list[int] = []
    discard = np.zeros(NUM_SCRAP_TYPES, dtype=np.int64)
    steals: list[tuple[list[int], int]] = []
    dealer = -1                   # the Lead Wolf who drew the cards being dealt
    deals: list[tuple[int, int]] = []   # per share deal: (hunter, identity; -1 seen by seat)

    def new_card() -> int:
        c = len(typ)
        typ.append(-1)
        ep.append(len(comps) - 1)
        slots[-1].append(c)
        return c

    def determine(c: int, k: int) -> None:
        pool = pools[ep[c]]
        if pool[k] <= 0:
            raise _Contradiction
        pool[k] -= 1
        typ[c] = k

    def can_be(c: int, k: int) -> bool:
        return typ[c] == k or (typ[c] < 0 and pools[ep[c]][k] > 0)

    def pick(ids: list[int], k: int, later: list[int] | None = None) -> int:
        same = [c for c in ids if typ[c] == k]
        if same:
            return same[int(rng.integers(len(same)))]
        open_ = [c for c in ids if typ[c] < 0 and pools[ep[c]][k] > 0]
        if not open_:
            raise _Contradiction
        if later and len(open_) > 1:
            # hinted attempts: spare the open cards without which the player could not make
            # its next plays (public facts)
            need = np.bincount(later, minlength=NUM_SCRAP_TYPES)
            spare = [c for c in open_ if not any(
                can_be(c, k2) and sum(1 for x in ids if x != c and can_be(x, k2)) < need[k2]
                for k2 in set(later))]
            open_ = spare or open_
        if len(open_) == 1:
            c = open_[0]
        else:
            # each open card weighted by the chance that it is a k: its deck's share of k's
            # left (computed once per deck)
            share: dict[int, float] = {}
            w = []
            for c in open_:
                e = ep[c]
                x = share.get(e)
                if x is None:
                    pool = pools[e]
                    x = share[e] = pool[k] / sum(pool)
                w.append(x)
            c = open_[_choose_index(w, rng)]
        determine(c, k)
        return c

    def reveal(ids: list[int], comp: tuple[int, ...]) -> None:
        need = np.array(comp, dtype=np.int64)
        open_ = []
        for c in ids:
            if typ[c] >= 0:
                need[typ[c]] -= 1
            else:
                open_.append(c)
        if (need < 0).any():
            raise _Contradiction
        for _ in range(8):
            types = np.repeat(np.arange(NUM_SCRAP_TYPES), need)
            rng.shuffle(types)
            use = np.zeros((len(pools), NUM_SCRAP_TYPES), dtype=np.int64)
            ok = True
            for c, k in zip(open_, types.tolist()):
                use[ep[c], k] += 1
                if use[ep[c], k] > pools[ep[c]][k]:
                    ok = False
                    break
            if ok:
                for c, k in zip(open_, types.tolist()):
                    determine(c, k)
                return
        raise _Contradiction

    if hint_steals and "later_plays" not in facts:
        codes = {"play": C_PLAY, "steal": C_STEAL, "draw": C_DRAW, "give": C_GIVE,
                 "keep": C_KEEP}
        facts["later_plays"] = _later_plays(state.card_log, codes)
        facts["next_plays"] = _next_plays(state.card_log, codes)
    later_plays = facts["later_plays"] if hint_steals else {}
    next_plays = facts["next_plays"] if hint_steals else {}
    def _event(i: int, ev: tuple[Any, ...]) -> None:
        nonlocal dealer
        code = ev[0]
        if code == C_DRAW:
            c = new_card()
            if ev[1] == seat:
                typ[c] = ev[2]   # reserved
            hands[ev[1]].append(c)
        elif code == C_SDRAW:
            c = new_card()
            dealer = ev[1]
            if ev[1] == seat:
                typ[c] = ev[2]   # reserved
            drawn.append(c)
        elif code == C_PLAY:
            p, k = ev[1], ev[2]
            c = pick(hands[p], k, next_plays.get(i))
            hands[p].remove(c)
            discard[k] += 1
        elif code == C_STEAL:
            thief, victim, k = ev[1], ev[2], ev[3]
            h = hands[victim]
            if seat == thief or seat == victim:
                c = pick(h, k)
            elif hint_steals and rng.random() < HINT_SHARE:
                # guided by public facts only (the later face-up plays of both wolves), never
                # by the real stolen type k: that one is hidden from seat, and a world drawn
                # with it would lean towards the truth and differ between two states seat
                # cannot tell apart
                STATS["steal_hints"] += 1
                c = _steal_hint(later_plays[i], h, typ, ep, pools, rng, pick)
            else:
                c = h[int(rng.integers(len(h)))]
            steals.append((list(h), c))
            h.remove(c)
            hands[thief].append(c)
        elif code == C_LOOK:
            if ev[1] == seat:
                reveal(hands[ev[2]], ev[3])
        elif code == C_GIVE:
            if seat == dealer or seat == ev[1]:
                c = pick(drawn, ev[2])
                deals.append((ev[1], -1))
            else:
                # the type is private to dealer and receiver (rulings 6 and 12): any drawn card
                # may be the one dealt, never read from the real type ev[2]
                c = drawn[int(rng.integers(len(drawn)))]
                deals.append((ev[1], c))
            drawn.remove(c)
            hands[ev[1]].append(c)
        elif code == C_KEEP:
            hands[ev[1]].extend(drawn)
            drawn.clear()
        elif code == C_SRESH:
            comps.append(discard.copy())
            pools.append((discard - reserve[len(pools)]).tolist())
            slots.append([])
            discard[:] = 0
        elif code in (C_HDRAW, C_HRESH, C_JINS):
            pass   # the Hunt deck: :func:`_hunt_outcomes`
        else:  # pragma: no cover
            raise AssertionError(f"unknown card event {ev!r}")

    card_log = state.card_log
    checkpoints: list[tuple[int, tuple[Any, ...]]] = []
    backtracks = 0
    fails_here = 0        # contradictions since the pass last got past its furthest event
    furthest = 0
    i = 0
    while i < len(card_log):
        if backtrack and i % CHECK_EVERY == 0 and (not checkpoints or checkpoints[-1][0] < i):
            checkpoints.append((i, (list(typ), len(ep), [x.copy() for x in pools], len(comps),
                                    [len(x) for x in slots], [list(h) for h in hands],
                                    list(drawn), discard.copy(), len(steals), dealer,
                                    len(deals))))
        if i > furthest:
            furthest, fails_here = i, 0
        try:
            _event(i, card_log[i])
        except _Contradiction:
            # local backtracking: redo the last stretch of the pass from a checkpoint (further
            # back after each failure at the same place) rather than the whole pass
            backtracks += 1
            fails_here += 1
            if not backtrack or backtracks > BACKTRACKS:
                raise
            STATS["backtracks"] += 1
            while len(checkpoints) > 1 and checkpoints[-1][0] >= i:
                checkpoints.pop()      # never resume at the failed event itself
            back = min(len(checkpoints), 1 + (fails_here - 1) // BACK_STEP)
            del checkpoints[len(checkpoints) - back + 1:]
            i, snap = checkpoints[-1]
            (t_, n_ep, p_, n_comps, n_slots, h_, d_, disc_, n_steals, dealer, n_deals) = snap
            typ[:] = t_
            del ep[n_ep:]
            pools[:] = [x.copy() for x in p_]
            del comps[n_comps:]
            del slots[len(n_slots):]
            for x, m in zip(slots, n_slots):
                del x[m:]
            hands[:] = [list(h) for h in h_]
            drawn[:] = d_
            discard[:] = disc_
            del steals[n_steals:]
            del deals[n_deals:]
            continue
        i += 1

    # the rest of the current Scrap deck, then a uniform assignment of every open identity
    for _ in range(len(state.scrap_deck)):
        new_card()
    for e, ids in enumerate(slots):
        open_ = [c for c in ids if typ[c] < 0]
        types = np.repeat(np.arange(NUM_SCRAP_TYPES), pools[e])
        if len(types) != len(open_):  # pragma: no cover - bookkeeping error
            raise AssertionError("a Scrap deck's open cards and its pool differ in size")
        rng.shuffle(types)
        for c, k in zip(open_, types.tolist()):
            typ[c] = k
    scrap_perms = [_perm_for(comps[e], [typ[c] for c in slots[e]]) for e in range(len(slots))]
    steal_rs = []
    for snap, c in steals:
        counts = np.bincount([typ[x] for x in snap], minlength=NUM_SCRAP_TYPES)
        k = typ[c]
        steal_rs.append(int(counts[:k].sum()) + int(rng.integers(counts[k])))
    if "hunt_decks" not in facts:
        facts["hunt_decks"] = _hunt_decks(state, _hunt_perms(state))
    hunt_perms, jpos = _hunt_outcomes(facts["hunt_decks"], rng)
    # the real chance log with the counterfactual outcomes put in
    out: list[list[Any]] = []
    it = {"scrap": iter(scrap_perms), "steal": iter(steal_rs)}
    hunt_epoch = -1
    ins = -1
    for name, outcome in state.chance_log:
        if name in ("scrap_deck", "scrap_reshuffle"):
            outcome = next(it["scrap"])
        elif name == "steal":
            outcome = next(it["steal"])
        elif name in ("hunt_deck", "hunt_reshuffle"):
            hunt_epoch += 1
            outcome = hunt_perms[hunt_epoch]
        elif name == "jackalope_insert":
            ins += 1
            outcome = jpos[ins]
        out.append([name, outcome])
    # the actions, with each share deal seat did not see dealing its card's type in the world
    I = state.ids
    give_end = I.GIVE + NUM_SCRAP_TYPES * n
    actions = list(state.history)
    it_deals = iter(deals)
    for j, a in enumerate(actions):
        if I.GIVE <= a < give_end:
            t, c = next(it_deals)
            if c >= 0:
                actions[j] = I.GIVE + t * NUM_SCRAP_TYPES + typ[c]
    if next(it_deals, None) is not None:  # pragma: no cover - bookkeeping error
        raise AssertionError("share deals in the card log and in the history differ")
    return out, actions


def _later_plays(card_log: list[tuple[int, ...]], codes: dict[str, int]
                 ) -> dict[int, tuple[list[int], list[int]]]:
    """For each steal (by its index in ``card_log``): the types its thief plays face up later,
    and those its victim plays face up before it next gets a card (public facts)."""
    out: dict[int, tuple[list[int], list[int]]] = {}
    play, steal = codes["play"], codes["steal"]
    gets = (codes["draw"], codes["give"], codes["keep"])
    for i, ev in enumerate(card_log):
        if ev[0] != steal:
            continue
        thief, victim = ev[1], ev[2]
        t_plays, v_plays = [], []
        v_open = True
        for e in card_log[i + 1:]:
            if e[0] == play:
                if e[1] == thief:
                    t_plays.append(e[2])
                elif e[1] == victim and v_open:
                    v_plays.append(e[2])
            elif (e[0] in gets and e[1] == victim) or (e[0] == steal and e[1] == victim):
                v_open = False
        out[i] = (t_plays, v_plays)
    return out


def _next_plays(card_log: list[tuple[int, ...]], codes: dict[str, int]) -> dict[int, list[int]]:
    """For each face-up play (by its index in ``card_log``): the types the same wolf plays face
    up after it and before it next gets a card (public facts)."""
    out: dict[int, list[int]] = {}
    play, steal = codes["play"], codes["steal"]
    gets = (codes["draw"], codes["give"], codes["keep"], steal)
    for i, ev in enumerate(card_log):
        if ev[0] != play:
            continue
        p = ev[1]
        plays: list[int] = []
        for e in card_log[i + 1:]:
            if e[0] == play and e[1] == p:
                plays.append(e[2])
            elif e[0] in gets and e[1] == p:
                break
        out[i] = plays
    return out


def _steal_hint(plays: tuple[list[int], list[int]], hand: list[int], typ: list[int],
                ep: list[int], pools: list[list[int]], rng: np.random.Generator,
                pick: Any) -> int:
    """The card stolen from the victim's world ``hand`` in the hinted attempts, from public
    facts only (the later face-up plays of thief and victim, :func:`_later_plays`): a known
    card the victim holds more of than it plays before it next gets a card (one whose type the
    thief plays later first); else a card of the first type the thief plays later that the
    victim can spare; else an open card; else any card (each uniformly)."""
    thief_plays, victim_plays = plays
    need = np.bincount(victim_plays, minlength=NUM_SCRAP_TYPES) if victim_plays else \
        np.zeros(NUM_SCRAP_TYPES, dtype=np.int64)
    held = np.bincount([typ[x] for x in hand if typ[x] >= 0], minlength=NUM_SCRAP_TYPES)
    # a known card the victim does not need is a dead weight in its hand, and an open card
    # can still become whatever the victim plays later: the known idle cards go first
    idle = [x for x in hand if typ[x] >= 0 and held[typ[x]] > need[typ[x]]]
    wanted = set(thief_plays)
    ids = [x for x in idle if typ[x] in wanted] or idle
    if ids:
        return ids[int(rng.integers(len(ids)))]
    for k in dict.fromkeys(thief_plays):
        have = sum(1 for x in hand if typ[x] == k or (typ[x] < 0 and pools[ep[x]][k] > 0))
        if have > need[k]:
            return pick(hand, k)
    ids = [x for x in hand if typ[x] < 0] or hand
    return ids[int(rng.integers(len(ids)))]


def _hunt_perms(state: BadlandWolvesState) -> list[list[int]]:
    """The real Hunt deck permutations (initial deck, then each reshuffle), in order."""
    return [o for name, o in state.chance_log if name in ("hunt_deck", "hunt_reshuffle")]


def _perm_for(comp: np.ndarray, draw_types: list[int]) -> list[int]:
    """A permutation ``perm`` with ``pile[perm]`` drawing ``draw_types`` in order (pile sorted
    by type, drawn from its end), ``pile = repeat(arange(9), comp)``."""
    nxt = np.concatenate(([0], np.cumsum(comp)[:-1])).astype(np.int64)
    deck = list(reversed(draw_types))
    perm = []
    for k in deck:
        perm.append(int(nxt[k]))
        nxt[k] += 1
    return perm


def _hunt_outcomes(decks: list[tuple[list[tuple[str, int]], np.ndarray]],
                   rng: np.random.Generator) -> tuple[list[list[int]], list[int]]:
    """Every Hunt deck permutation (initial deck, then each reshuffle) and every Jackalope insert
    position of a world, drawn from the exact posterior given the public Hunt facts (each deck's
    composition and length, the type of every Hunt card drawn, the deck length at each insert)
    and ``rng`` only.

    Each deck is followed as its shuffled cards (exchangeable until drawn) with the Jackalope
    tokens shuffled back into it at their positions; the tokens are alike (which Jackalope a
    draw took is hidden: the real one must not decide the world), a draw is either the top
    token (a Jackalope) or the next shuffled card (probability: its deck's share of the drawn
    type left). Forward filtering over (token positions, Jackalopes drawn from the shuffled
    cards), then sampling backwards, gives the insert positions; the shuffled cards drawn get
    their drawn types (copies of a type taken in pile order: which copy is hidden and
    irrelevant) and the undrawn rest a uniform shuffle of what is left of the pile.

    ``decks``: the world's Hunt decks, public facts only (:func:`_hunt_decks`).
    """
    out_perms: list[list[int]] = []
    out_ins: list[int] = []
    for events, comp in decks:
        perm, ins = _hunt_epoch(events, comp, rng)
        out_perms.append(perm)
        out_ins += ins
    return out_perms, out_ins


def _hunt_decks(state: BadlandWolvesState, perms: list[list[int]]
                ) -> list[tuple[list[tuple[str, int]], np.ndarray]]:
    """Per Hunt deck (initial deck, then each reshuffle), its public events (``("draw",
    type)``, ``("ins", deck length)``) and its composition (public facts only); ``perms`` the
    real permutations (:func:`_hunt_perms`), for their sizes."""
    from .engine import C_HDRAW, C_HRESH, C_JINS
    # public events per deck
    epochs: list[list[tuple[str, int]]] = [[]]
    for ev in state.card_log:
        if ev[0] == C_HDRAW:
            epochs[-1].append(("draw", ev[1]))
        elif ev[0] == C_HRESH:
            epochs.append([])
        elif ev[0] == C_JINS:
            epochs[-1].append(("ins", ev[2]))
    comp = HUNT_COUNTS_ARR.copy()
    decks = []
    for e, events in enumerate(epochs):
        if e > 0:
            # the reshuffled pile: the cards discarded since the last reshuffle (every card
            # drawn there but the Jackalopes, which are kept or shuffled back, never discarded)
            comp = np.zeros(NUM_HUNT_TYPES, dtype=np.int64)
            for kind, x in epochs[e - 1]:
                if kind == "draw" and x != JACKALOPE:
                    comp[x] += 1
        size = len(perms[e])
        if int(comp.sum()) != size:  # pragma: no cover - bookkeeping error
            raise AssertionError("a Hunt deck's composition and its pile differ in size")
        decks.append((events, comp))
    return decks


def _hunt_epoch(events: list[tuple[str, int]], comp: np.ndarray,
                rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """One Hunt deck's permutation and its insert positions (see :func:`_hunt_outcomes`).

    The backward step from a given state at a given event depends on the public facts alone,
    so its candidates and their cumulative weights are kept (:func:`_hunt_backward`) for the
    next draw of the same deck; only the uniform draws among them are new."""
    key = (tuple(events), tuple(int(c) for c in comp))
    steps, alpha = _hunt_forward(*key)
    memo = _hunt_backward(*key)
    if "root" not in memo:
        keys = sorted(alpha)
        memo["root"] = (keys, _cdf([alpha[k] for k in keys]))
    keys, cdf = memo["root"]
    state = keys[_draw_index(cdf, rng)]
    from_pile = []                  # per draw of the deck, in order: drawn from the pile
    ins_pos = []
    for step in range(len(steps) - 1, -1, -1):
        got = memo.get((step, state))
        if got is None:
            got = memo[step, state] = _hunt_back_step(steps[step], state, comp)
        cands, info, cdf = got
        i = _draw_index(cdf, rng)
        state = cands[i]
        (ins_pos if steps[step][1] == "ins" else from_pile).append(info[i])
    ins_pos.reverse()
    from_pile.reverse()
    # the pile: drawn cards (top first) get their types, copies in pile order; the undrawn
    # rest a uniform shuffle of the pile indices left (sorted first: never the real order)
    start = np.concatenate(([0], np.cumsum(comp)[:-1])).astype(np.int64)
    used = np.zeros_like(comp)
    top: list[int] = []
    draws = [x for kind, x in events if kind == "draw"]
    for x, pile in zip(draws, from_pile):
        if pile:
            top.append(int(start[x] + used[x]))
            used[x] += 1
    left = [int(start[k] + j) for k in range(len(comp)) for j in range(int(used[k]), int(comp[k]))]
    rng.shuffle(left)
    return left + top[::-1], ins_pos


@lru_cache(maxsize=64)
def _hunt_backward(events: tuple[tuple[str, int], ...], comp: tuple[int, ...]) -> dict:
    """The backward steps of one Hunt deck found so far (:func:`_hunt_epoch`), by (event
    index, state after it): candidates, their information, cumulative weights (:func:`_cdf`);
    and under ``"root"`` the final states in order with theirs. Public facts only, so cached
    like :func:`_hunt_forward`."""
    return {}


def _hunt_back_step(step: tuple[dict, str, int, int, tuple[int, ...]], state: Any,
                    comp: np.ndarray) -> tuple[list[Any], list[Any], list[float] | None]:
    """The states before event ``step`` (of :func:`_hunt_forward`) that lead to ``state``,
    with what each says of the event (an insert: the position; a draw: whether the card came
    from the pile) and the cumulative weights to draw one (:func:`_cdf`)."""
    prev, kind, x, ln, drawn_before = step
    cands, weights, info = [], [], []
    if kind == "ins":
        # the token put in is one of the state's tokens: take it out again
        toks_after, kj = state
        for j, pos in enumerate(toks_after):
            rest = toks_after[:j] + toks_after[j + 1:]
            before = (tuple(t - 1 if t > pos else t for t in rest), kj)
            if before in prev:
                cands.append(before)
                weights.append(prev[before])
                info.append(pos)
    else:
        # the card drawn was the next shuffled card, or (a Jackalope) a token on top
        toks_after, kj = state
        options = [(toks_after, kj - (x == JACKALOPE))]
        if x == JACKALOPE:
            options.append((toks_after + (ln - 1,), kj))
        for before in options:
            if before in prev:
                key, f = _draw(*before, ln, x, comp, drawn_before)
                if f > 0 and key == state:
                    cands.append(before)
                    weights.append(prev[before] * f)
                    info.append((ln - 1) not in before[0])
    return cands, info, _cdf(weights)


@lru_cache(maxsize=64)
def _hunt_forward(events: tuple[tuple[str, int], ...], comp: tuple[int, ...]
                  ) -> tuple[list[tuple[dict, str, int, int, tuple[int, ...]]], dict]:
    """Forward filtering of one Hunt deck (public facts only, so cached: a search resamples
    one position many times): per event the state weights before it, the event, the deck
    length and the non-Jackalope types drawn before it; and the final weights. States: (sorted
    token positions from the bottom, Jackalopes drawn from the shuffled cards)."""
    drawn_other = [0] * len(comp)   # non-Jackalope types drawn so far (all from the pile)
    length = sum(comp)
    alpha: dict[tuple[tuple[int, ...], int], float] = {((), 0): 1.0}
    steps: list[tuple[dict, str, int, int, tuple[int, ...]]] = []
    for kind, x in events:
        steps.append((alpha, kind, x, length, tuple(drawn_other)))
        nxt: dict[tuple[tuple[int, ...], int], float] = {}
        if kind == "ins":
            for (toks, kj), w in alpha.items():
                for pos in range(length + 1):
                    key = (_insert(toks, pos), kj)
                    nxt[key] = nxt.get(key, 0.0) + w / (length + 1)
            length += 1
        else:
            for (toks, kj), w in alpha.items():
                key, f = _draw(toks, kj, length, x, comp, drawn_other)
                if f > 0:
                    nxt[key] = nxt.get(key, 0.0) + w * f
            if x != JACKALOPE:
                drawn_other[x] += 1
            length -= 1
        total = sum(nxt.values())
        if not nxt or total <= 0:  # pragma: no cover - the real history is possible
            raise AssertionError("no Hunt deck explains the draws")
        alpha = {k: v / total for k, v in nxt.items()}
    return steps, alpha


def _insert(toks: tuple[int, ...], pos: int) -> tuple[int, ...]:
    """Token positions after a Jackalope is put at ``pos`` (the cards from ``pos`` up move up)."""
    return tuple(sorted([t + 1 if t >= pos else t for t in toks] + [pos]))


def _draw(toks: tuple[int, ...], kj: int, length: int, x: int, comp: Any,
          drawn_other: Any) -> tuple[tuple[tuple[int, ...], int], float]:
    """The state after the top card of a deck of ``length`` is drawn as type ``x``, and the
    probability of that type (0 when impossible)."""
    if length - 1 in toks:
        return ((tuple(t for t in toks if t != length - 1), kj),
                1.0 if x == JACKALOPE else 0.0)
    pile_left = length - len(toks)
    if x == JACKALOPE:
        return (toks, kj + 1), max(int(comp[x]) - kj, 0) / pile_left
    return (toks, kj), max(int(comp[x] - drawn_other[x]), 0) / pile_left


def _choose_index(weights: list[float], rng: np.random.Generator) -> int:
    """An index drawn with probability proportional to ``weights`` (positive floats; no draw
    for a single one): the index ``rng.choice(len(w), p=w / w.sum())`` gives, by the same
    arithmetic on the same single uniform draw (cumulative sums normalised by the last, then
    the first entry above the draw), without the cost of choice's argument checks
    (``tests/test_badland_wolves_trajectory.py`` checks the two agree)."""
    return _draw_index(_cdf(weights), rng)


def _cdf(weights: list[float]) -> list[float] | None:
    """The normalised cumulative weights :func:`_choose_index` draws from (None for a single
    weight: nothing to draw), as ``rng.choice`` computes them: ``p = w / w.sum()``, its
    running sums, each divided by the last. Fewer than 8 weights in plain floats (numpy sums
    fewer than 8 numbers in order, as here), more with numpy itself (pairwise sums)."""
    m = len(weights)
    if m == 1:
        return None
    if m >= 8:
        w = np.array(weights, dtype=np.float64)
        cdf = (w / w.sum()).cumsum()
        cdf /= cdf[-1]
        return cdf.tolist()
    total = 0.0
    for x in weights:
        total += x
    out = []
    run = 0.0
    for x in weights:
        run += x / total
        out.append(run)
    last = out[-1]
    return [c / last for c in out]


def _draw_index(cdf: list[float] | None, rng: np.random.Generator) -> int:
    """An index drawn from cumulative weights :func:`_cdf` (0 without a draw for None): the
    first entry above one uniform draw."""
    if cdf is None:
        return 0
    return bisect_right(cdf, rng.random())
