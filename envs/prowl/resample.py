"""History-consistent resampling of a Prowl information state (CONVENTIONS.md, "Engine").

:func:`resample` draws a full state that one seat cannot tell from the real one, together with
a history that leads to it: the real public actions, the real choices of that seat, other
seats' hidden choices (the card placed face-down at set-up or by a Change) as they would have
been in the drawn world, and the deck shuffle that deals the drawn world (``chance_log``). The
state's ``to_record()`` therefore replays, step by step, to what the seat saw
(``tests/laws.py::assert_history_consistent``).

What the seat knows, and how it is kept
---------------------------------------
* its own hand and clan card, every clan card it knows (``know``: Peeks, cards received, face-up
  cards; a known card is tracked through swaps and passes), public cards (discards, attachments,
  the 2-player pile): never redealt;
* public exclusions (failed Accusations, Firebrand) of a face-down card: a drawn clan card must
  avoid them;
* every Whisperer peek it made at ``q``'s hand: ``q``'s hand then was seen, so ``q``'s current
  hand plus the clan cards ``q`` has placed since (wherever they are now, unless known) hold the
  same cards as in the real game. With several peeks at ``q`` the slots split into nested groups
  (hand + placements after the last peek, placements between two peeks), each with its cards.

Distribution (documented choice): uniform over assignments of the unseen *physical* cards to the
hidden places that satisfy these constraints. That is the exact posterior when the deck is
shuffled uniformly, a player places a uniformly drawn physical card of its hand at set-up and at
a Change, and the public actions' probabilities do not depend on hidden cards. Each group and
the remaining pool (clan cards not in a group, unpeeked hands, the 2-player deck, the box) are
dealt by rejection until no clan card contradicts an exclusion (exact); after ``REJECT_TRIES``
rejections a clan card at a time is drawn among the allowed cards (consistent, not exactly
uniform), and if that also fails the real cards are kept for that group.

Cost: one ``clone`` plus a few small numpy operations (docs/prowl.md gives the measured cost).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .engine import ProwlState

REJECT_TRIES = 500
_SORTED: dict = {}   # (n, copies) -> (the unshuffled deck, type of each hand-matrix entry)


def _sorted_deck(n: int, copies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    key = (n, copies.tobytes())
    out = _SORTED.get(key)
    if out is None:
        T = len(copies)
        out = _SORTED[key] = (np.repeat(np.arange(T), copies), np.tile(np.arange(T), n))
    return out


def hidden_slots(s: "ProwlState", seat: int) -> tuple[list[int], list[int]]:
    """Seats whose face-down clan card ``seat`` does not know, and seats whose hand it cannot
    see (every opponent: a Whisperer peek is handled as a group by :func:`resample`)."""
    clan_slots = [q for q in range(s.n)
                  if q != seat and s.clan_card[q] >= 0 and s.know[seat, q] < 0]
    hand_slots = [q for q in range(s.n) if q != seat]
    return clan_slots, hand_slots


def constrained_deal(s: "ProwlState", pool: np.ndarray, clan_slots: list[int],
                     rng: np.random.Generator) -> np.ndarray | None:
    """A permutation of ``pool`` whose first ``len(clan_slots)`` cards fit those seats' public
    exclusions, each clan slot drawing uniformly among the allowed cards left (consistent, not
    exactly uniform); None after 100 dead ends."""
    for _ in range(100):
        rest = list(rng.permutation(pool))
        head = []
        for q in clan_slots:
            allowed = [i for i, t in enumerate(rest) if not s.excl[q, s.type_clan[t]]]
            if not allowed:
                break
            head.append(rest.pop(allowed[int(rng.integers(len(allowed)))]))
        else:
            return np.array(head + rest, dtype=np.int64)
    return None


def _deal(s: "ProwlState", pool: np.ndarray, clan_slots: list[int],
          rng: np.random.Generator) -> np.ndarray:
    """A uniform permutation of ``pool`` (int64 card types) whose first cards fit
    ``clan_slots``' exclusions (rejection, then :func:`constrained_deal`); ``pool`` itself (the
    real cards, always consistent) if both fail."""
    # the pool in a canonical order, so the draw depends on the cards (the seat's information)
    # and not on where they really lie
    pool = np.sort(pool)
    if not clan_slots:
        return rng.permutation(pool)
    excl, type_clan = s.excl, s.type_clan_arr
    for _ in range(REJECT_TRIES):
        perm = rng.permutation(pool)
        if not excl[clan_slots, type_clan[perm[:len(clan_slots)]]].any():
            return perm
    perm = constrained_deal(s, pool, clan_slots, rng)
    return pool if perm is None else perm


def _groups(s: "ProwlState", seat: int, clan_slots: list[int]) -> tuple[list, list[int], list]:
    """Split the hidden places into Whisperer groups and the free pool.

    Returns ``(groups, free_clan_slots, free_hand_seats)``; a group is ``(clan_slots, hand_seat
    or -1)`` whose cards must stay the real ones as a multiset.
    """
    placements, origin = s._placements, s._origin
    peeks: dict[int, list[int]] = {}
    for w, q, c in s._peeks:
        if w == seat:
            peeks.setdefault(q, []).append(c)
    groups, grouped = [], set()
    for q, cs in peeks.items():
        cs = sorted(set(cs))
        # q's clan cards placed since a peek (q's hand then was seen), by the interval between
        # consecutive peeks; the last group also holds q's hand
        for k, lo in enumerate(cs):
            hi = cs[k + 1] if k + 1 < len(cs) else len(placements)
            slots = [r for r in clan_slots if origin[r] >= 0 and placements[origin[r]][0] == q
                     and lo <= origin[r] < hi]
            grouped.update(slots)
            last = k + 1 == len(cs)
            if slots or last:
                groups.append((slots, q if last else -1))
    free_clan = [r for r in clan_slots if r not in grouped]
    free_hands = [q for q in range(s.n) if q != seat and q not in peeks]
    return groups, free_clan, free_hands


def resample(s: "ProwlState", seat: int, rng: np.random.Generator) -> "ProwlState":
    """A state consistent with everything ``seat`` knows, with a history that replays to it
    (module docstring). ``rng`` draws the cards and the world's future generator seed.

    For a position not reached by actions from the set-up (built by hand in tests) the cards
    are redealt the same way but the record cannot be rebuilt: its history is left as is.
    """
    T = s.T
    w = s.clone()
    clan_slots, _ = hidden_slots(s, seat)
    groups, free_clan, free_hands = _groups(s, seat, clan_slots)

    def cards_of(slots: list[int], hand_seats: list[int]) -> list[int]:
        out = [int(s.clan_card[r]) for r in slots]
        for q in hand_seats:
            out += np.repeat(np.arange(T), s.hand[q].astype(np.int64)).tolist()
        return out

    def place(perm: np.ndarray, slots: list[int], hand_seats: list[int]) -> int:
        for i, r in enumerate(slots):
            w.clan_card[r] = perm[i]
        pos = len(slots)
        for q in hand_seats:
            h = int(s.hand[q].sum())
            w.hand[q] = np.bincount(perm[pos:pos + h], minlength=T)
            pos += h
        return pos

    for slots, q in groups:
        hs = [q] if q >= 0 else []
        pool = np.array(cards_of(slots, hs), dtype=np.int64)
        place(_deal(s, pool, slots, rng), slots, hs)
    pool = np.array(cards_of(free_clan, free_hands) + list(s.deck2p) + list(s.box),
                    dtype=np.int64)
    perm = _deal(s, pool, free_clan, rng)
    pos = place(perm, free_clan, free_hands)
    nd = len(s.deck2p)
    w.deck2p = [int(x) for x in perm[pos:pos + nd]]
    w.box = [int(x) for x in perm[pos + nd:]]
    # everyone's knowledge of the new cards, as the world's history would give it
    know = w.know
    np.copyto(know, np.broadcast_to(w.clan_card, know.shape), where=know >= 0)
    if w.wvalid.any():
        for q in range(s.n):
            wv = w.wvalid[:, q]
            w.whisper[wv, q] = w.hand[q]
            w.whisper[wv & w.wclan[:, q], q, w.clan_card[q]] += 1
    _set_history(s, w, rng)
    return w


def _set_history(s: "ProwlState", w: "ProwlState", rng: np.random.Generator) -> None:
    """Give world ``w`` (drawn from real state ``s``) the actions and the deck shuffle under
    which the game's set-up and ``s``'s actions lead to it."""
    n, T, cpp = s.n, s.T, s.cpp
    log = s.chance_log
    cards_real, cards_world = s.clan_card.tolist(), w.clan_card.tolist()
    if len(log) != 3 or log[1][0] != "deck" or any(
            t >= 0 and o < 0 for t, o in zip(cards_real, s._origin)):
        return   # not reached by actions from the set-up: no history to rebuild
    sorted_deck, types = _sorted_deck(n, s.copies)
    real_deck = sorted_deck[log[1][1]]
    # the world's initial hands: the real ones, with the redealt hand and clan cards swapped in
    init = np.bincount(np.repeat(np.arange(n), cpp) * T + real_deck[:n * cpp],
                       minlength=n * T).reshape(n, T)
    init += (w.hand - s.hand).astype(np.int64)
    actions = list(s.history)
    for r in range(n):
        j = s._origin[r]
        if j < 0:
            continue
        t_real, t_world = cards_real[r], cards_world[r]
        if t_real != t_world:
            q, at = s._placements[j]
            init[q, t_real] -= 1
            init[q, t_world] += 1
            actions[at] += t_world - t_real   # the same block (set-up or Change), new card
    seq = np.repeat(types, init.ravel())
    if n == 2:
        tail = np.concatenate([np.asarray(w.deck2p, dtype=np.int64),
                               real_deck[n * cpp + len(s.deck2p):]])
    else:
        tail = np.asarray(w.box, dtype=np.int64)
    seq = np.concatenate([seq, tail])
    # the shuffle dealing ``seq``: the k-th card of type t in ``seq`` is the k-th copy of t
    order = np.argsort(seq, kind="stable")
    assert np.array_equal(seq[order], sorted_deck), \
        "resample: the world's deal does not use the deck exactly"
    perm = np.empty(len(seq), dtype=np.int64)
    perm[order] = np.arange(len(seq))
    perm = perm.tolist()
    log = [list(e) for e in s.chance_log]
    log[1] = ["deck", perm]
    w.history = actions
    w.set_chance_log(log, int(rng.integers(2**62)))
