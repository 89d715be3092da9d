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
random assignment of what is left of their deck's pool. The Hunt deck: drawn cards are public,
the order of the undrawn rest of the current Hunt deck is redrawn uniformly, and the insert
position of a Jackalope still in the deck is redrawn uniformly among the positions from which it
would not have been drawn yet.

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
31 of 100, at 140 to 330 ms per draw, now 40 to 60 ms). Also kept from the real game: the
positions of Jackalopes shuffled back and drawn again in the current Hunt deck, and which copy
of a Hunt card type each drawn Hunt card was.
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core import RecordError

from .cards import NUM_SCRAP_TYPES, SCRAP_COUNTS_ARR

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
#: random joint Jackalope insert positions tried before all valid ones are enumerated
JACKALOPE_TRIES = 200
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
    for attempt in range(TRIES):
        try:
            log, actions = _counterfactual_log(state, seat, rng,
                                               hint_steals=attempt >= HINT_FROM,
                                               backtrack=attempt >= BACKTRACK_FROM)
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
                        hint_steals: bool = False, backtrack: bool = False
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
    typ: list[int] = []           # type per card identity, -1 while open
    ep: list[int] = []            # Scrap deck (epoch) each identity was drawn from
    # cards seat drew itself are known from the start: reserved in their deck's pool
    reserve = [np.zeros(NUM_SCRAP_TYPES, dtype=np.int64)]
    for ev in state.card_log:
        if ev[0] == C_SRESH:
            reserve.append(np.zeros(NUM_SCRAP_TYPES, dtype=np.int64))
        elif (ev[0] == C_DRAW or ev[0] == C_SDRAW) and ev[1] == seat:
            reserve[-1][ev[2]] += 1
    comps = [SCRAP_COUNTS_ARR.copy()]        # composition of each Scrap deck
    pools = [SCRAP_COUNTS_ARR - reserve[0]]  # per deck: types not yet given to an identity
    slots: list[list[int]] = [[]]            # per deck: identities in draw order
    hands: list[list[int]] = [[] for _ in range(n)]
    drawn: list[int] = []
    discard = np.zeros(NUM_SCRAP_TYPES, dtype=np.int64)
    steals: list[tuple[list[int], int]] = []
    dealer = -1                   # the Lead Wolf who drew the cards being dealt
    deals: list[tuple[int, int]] = []   # per share deal: (hunter, identity; -1 seen by seat)
    # Hunt deck: tokens (epoch, position in its shuffled pile) or ("j", insert number)
    hunt_perms = _hunt_perms(state)
    hunt_epoch = 0
    hunt_deck: list[tuple[Any, int]] = [(0, i) for i in range(len(hunt_perms[0]))]
    inserts: list[tuple[int, int, int]] = []   # (epoch, deck length before, draws before)
    hunt_draws = 0

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
        # each open card weighted by the chance that it is a k: its deck's share of k's left
        w = np.array([pools[ep[c]][k] / pools[ep[c]].sum() for c in open_])
        c = open_[int(rng.choice(len(open_), p=w / w.sum()))] if len(open_) > 1 else open_[0]
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

    later_plays = _later_plays(state.card_log, {"play": C_PLAY, "steal": C_STEAL, "draw": C_DRAW,
                                                "give": C_GIVE, "keep": C_KEEP}) \
        if hint_steals else {}
    next_plays = _next_plays(state.card_log, {"play": C_PLAY, "steal": C_STEAL, "draw": C_DRAW,
                                              "give": C_GIVE, "keep": C_KEEP}) \
        if hint_steals else {}
    def _event(i: int, ev: tuple[Any, ...]) -> None:
        nonlocal dealer, hunt_epoch, hunt_draws
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
            pools.append(discard - reserve[len(pools)])
            slots.append([])
            discard[:] = 0
        elif code == C_HDRAW:
            hunt_deck.pop()
            hunt_draws += 1
        elif code == C_HRESH:
            hunt_epoch += 1
            hunt_deck[:] = [(hunt_epoch, j) for j in range(len(hunt_perms[hunt_epoch]))]
        elif code == C_JINS:
            pos, before = ev[1], ev[2]
            hunt_deck.insert(pos, ("j", len(inserts)))
            inserts.append((hunt_epoch, before, hunt_draws))
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
                                    len(deals), hunt_epoch, list(hunt_deck), len(inserts),
                                    hunt_draws)))
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
            (t_, n_ep, p_, n_comps, n_slots, h_, d_, disc_, n_steals, dealer, n_deals,
             hunt_epoch, hd_, n_ins, hunt_draws) = snap
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
            hunt_deck[:] = hd_
            del inserts[n_ins:]
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
    hunt_perm, jpos = _hunt_outcomes(state, hunt_perms, hunt_deck, inserts, hunt_draws, rng)
    # the real chance log with the counterfactual outcomes put in
    out: list[list[Any]] = []
    it = {"scrap": iter(scrap_perms), "steal": iter(steal_rs)}
    hunt_epoch = -1
    last_hunt_epoch = len(hunt_perms) - 1
    ins = -1
    for name, outcome in state.chance_log:
        if name in ("scrap_deck", "scrap_reshuffle"):
            outcome = next(it["scrap"])
        elif name == "steal":
            outcome = next(it["steal"])
        elif name in ("hunt_deck", "hunt_reshuffle"):
            hunt_epoch += 1
            if hunt_epoch == last_hunt_epoch:
                outcome = hunt_perm
        elif name == "jackalope_insert":
            ins += 1
            outcome = jpos.get(ins, outcome)
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
                ep: list[int], pools: list[np.ndarray], rng: np.random.Generator,
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


def _hunt_outcomes(state: BadlandWolvesState, perms: list[list[int]],
                   deck: list[tuple[Any, int]], inserts: list[tuple[int, int, int]],
                   draws_now: int, rng: np.random.Generator) -> tuple[list[int], dict[int, int]]:
    """The current Hunt deck's permutation with its undrawn cards reordered uniformly (drawn from
    their sorted order, so the result depends on what the seat knows and the generator only), and new
    insert positions for the Jackalopes still in the deck (uniform among the joint positions
    from which they would not have been drawn yet: by rejection, then, if
    :data:`JACKALOPE_TRIES` tries fail, exactly among all of them)."""
    epoch = len(perms) - 1
    perm = list(perms[epoch])
    undrawn = sorted(pos for tag, pos in deck if tag == epoch)
    m = len(undrawn)
    # undrawn cards of the current deck are the bottom m of its shuffled pile (draws take the top)
    assert undrawn == list(range(m)), "Hunt deck bookkeeping"
    # sorted first: the undrawn cards' real order is hidden, and a draw that started from it
    # would make the same seed give different worlds from two states the seat cannot tell apart
    head = sorted(perm[:m])
    rng.shuffle(head)
    perm[:m] = head
    jpos: dict[int, int] = {}
    # by insert number, not by the order the Jackalopes lie in the deck (their real order is
    # hidden: iterating in it would make one seed give different worlds from two states the
    # seat cannot tell apart)
    waiting = sorted(j for tag, j in deck if tag == "j")
    if waiting:
        real = _hunt_tokens_drawn(state, perms, {})
        # insert j had before - pos cards above it; each draw since took one of them and each
        # later insert may have put one more above it, so pos <= before - draws since + later
        # inserts holds in every valid world (a superset of the valid positions); the joint
        # positions must also leave every draw as it was
        highs = []
        for j in waiting:
            _, before, draws_then = inserts[j]
            later = len(inserts) - 1 - j
            highs.append(min(before, max(before - (draws_now - draws_then) + later, 0)))
        for _ in range(JACKALOPE_TRIES):
            trial = {j: int(rng.integers(h + 1)) for j, h in zip(waiting, highs)}
            if _hunt_tokens_drawn(state, perms, trial) == real:
                return perm, trial
        # rejection found none: draw uniformly among all valid joint positions (the same
        # distribution as rejection, uniform over the valid ones; at most two Jackalopes, so
        # at most 56 * 56 candidates), never falling back to the real, hidden positions
        valid = [trial for trial in (dict(zip(waiting, c)) for c in
                                     itertools.product(*(range(h + 1) for h in highs)))
                 if _hunt_tokens_drawn(state, perms, trial) == real]
        if not valid:  # pragma: no cover - the real positions are valid
            raise AssertionError("no valid Jackalope insert positions")
        jpos = valid[int(rng.integers(len(valid)))]
    return perm, jpos


def _hunt_tokens_drawn(state: BadlandWolvesState, perms: list[list[int]],
                       trial: dict[int, int]) -> list[tuple[Any, int]]:
    """The Hunt deck tokens drawn in order, with Jackalope insert ``j`` at ``trial[j]``."""
    from .engine import C_HDRAW, C_HRESH, C_JINS
    e, j = 0, -1
    deck: list[tuple[Any, int]] = [(0, i) for i in range(len(perms[0]))]
    out = []
    for ev in state.card_log:
        if ev[0] == C_HDRAW:
            out.append(deck.pop())
        elif ev[0] == C_HRESH:
            e += 1
            deck = [(e, i) for i in range(len(perms[e]))]
        elif ev[0] == C_JINS:
            j += 1
            deck.insert(trial.get(j, ev[1]), ("j", j))
    return out
