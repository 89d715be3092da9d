"""Clandestine resampling: :func:`resample` (``ClandestineState.resample_from_infostate``;
design §1.5 Resampler), a state consistent with what a seat knows, with a record that replays
to it (history consistency, CONVENTIONS.md)."""

from __future__ import annotations

import numpy as np

from ..core.errors import RecordError
from .actions import OFFSET
from .engine import (
    _C,
    CONJ_SECRET,
    RELIC_INDEX,
    SM_DRAW,
    SM_FLIP,
    SM_PRIME,
    SM_REVEAL,
    SM_SHUFFLE,
    ClandestineState,
)


def _relabel(hidden_groups: list[list[int]], rng: np.random.Generator,
             where: dict[int, tuple[int, int]]) -> dict[int, int]:
    """A random bijection of card indices permuting each group uniformly within itself.

    The ``k``-th card of a group *in the order of* ``where`` (a public slot per card: where it
    first appears in the chance log) goes to the ``perm[k]``-th smallest card index of the group.
    Sorting by the slot, not by the card, makes the drawn world depend only on what the seat
    knows: two states it cannot tell apart differ by a relabelling ``tau`` of these groups with
    the same slots, and ``sigma_other(tau(c)) = sigma_real(c)`` for every card ``c``, so one seed
    gives the same world from both. The distribution is unchanged: this bijection is ``sigma o
    rho`` with ``sigma`` the uniform permutation of the sorted group that the card-sorted
    version drew and ``rho`` a fixed bijection of the group onto itself (slot order onto index
    order), so it is uniform over the group's permutations just the same.

    Raises:
        RuntimeError: a hidden card has no slot (it never appeared in a chance event).
    """
    sigma: dict[int, int] = {}
    for group in hidden_groups:
        missing = [a for a in group if a not in where]
        if missing:
            raise RuntimeError(f"resample: hidden cards {sorted(missing)} appear in no chance "
                               f"event of the record (no public slot to order them by)")
        targets = sorted(group)
        for a, j in zip(sorted(group, key=where.__getitem__), rng.permutation(len(group))):
            sigma[a] = targets[int(j)]
    return sigma


def _relic_slots(log: list[list]) -> dict[int, tuple[int, int]]:
    """Where each Relic first appears in the chance log, ``(event number, position)`` in the
    ``relic_deck`` permutation. The slots are public (every look-alike state has the same
    events; only which card fills a hidden slot differs)."""
    relics: dict[int, tuple[int, int]] = {}
    for k, e in enumerate(log):
        if e[0] == "relic_deck":
            for pos, c in enumerate(e[1]):
                relics.setdefault(c, (k, pos))
    return relics


#: chance events of the Silver Guard's set-up putting named Relics under the deck, in order
#: (``nemesis._under``): the reveal group, then the Vault search's other cards
BOTTOM_EVENTS = ("sg_reveal", "sg_vault")


def _bottom_groups(st: ClandestineState, log: list[list]) -> list[tuple[int, list[int]]]:
    """The Silver Guard's groups of Relics put under the deck at set-up (design §10.5 step 4):
    ``(event number in the chance log, the group's cards in the order they were shown)`` per
    :data:`BOTTOM_EVENTS` event; the event's permutation puts ``cards[perm[i]]`` ``i``-th from
    the bottom of the group (``nemesis._under``). Empty without the Silver Guard.

    Raises:
        RuntimeError: the events do not share out ``nem.revealed`` exactly (engine fault).
    """
    if st.nem is None:
        return []
    groups, start = [], 0
    for k, e in enumerate(log):
        if e[0] in BOTTOM_EVENTS:
            groups.append((k, list(st.nem.revealed[start:start + len(e[1])])))
            start += len(e[1])
    if start != len(st.nem.revealed):
        raise RuntimeError(f"resample: the set-up events put {start} Relics under the deck, "
                           f"{len(st.nem.revealed)} were revealed (engine fault)")
    return groups


def _bottom_slots(log: list[list], groups: list[tuple[int, list[int]]]
                  ) -> dict[int, tuple[int, int]]:
    """Where each card of the Silver Guard's bottom groups lies, ``(event number, position from
    the bottom of its group)``. Which positions hold a card still hidden from a seat is public
    (the deck size at each draw, the cards drawn face up), which card fills them is not."""
    return {cards[p]: (k, pos) for k, cards in groups for pos, p in enumerate(log[k][1])}


#: Markov-chain steps per item (draw slot or hidden card) of a seat's Secret history
CHAIN_STEPS = 40
#: steps allowed to reach a consistent Secret history from the public start
REPAIR_STEPS = 200_000


class _SecretHistory:
    """One seat's Secret history as another seat sees it (:func:`sample_secret_history`).

    Public: the draws in order (each with its epoch: the Levels shuffled in so far), the cards
    named when they left the hand (discarded face up, or primed and later flipped) with that
    moment, the moments of the primes still face down, the hand and deck sizes, the cards
    shown in hand (an Ascend payment being picked, the Secret whose option is being chosen).
    Hidden: which draw brought which card (a named card too: only that it came before it was
    named), which card each face-down prime took, which cards are in hand and the deck order.

    A history is ``fate_slot`` (the draw each *fate* came from: a named card, a face-down
    prime, a hidden hand card; a bijection onto the draws) and ``card`` (the hidden cards on
    the hidden fates and the deck positions). It is consistent when every card came from a draw
    of its Level's epoch or later and before the moment it left the hand (and, in a finished
    game, the hidden hand's Levels add up to what the final scores show).
    """

    def __init__(self, st: ClandestineState, j: int, shown: set[int]):
        soc = _C["secrets"][st.societies[j]]
        self.level = [c["level"] for c in soc] + [0]  # the Conjunction Secret: never drawn
        self.slots: list[tuple[int, int]] = []  # (time, epoch) of each draw
        fates: list[tuple[int, int]] = []  # (card or -1 if hidden, deadline)
        self.prime_fate: list[int] = []  # fate of each prime (-1: the Conjunction Secret)
        self.prime_real: list[int] = []  # the real card of each prime
        flipped = {c for code, s, c in st.secret_log if code == SM_FLIP and s == j}
        epoch = 1
        for t, (code, s, c) in enumerate(st.secret_log):
            if s != j:
                continue
            if code == SM_SHUFFLE:
                epoch += 1
            elif code == SM_DRAW:
                self.slots.append((t, epoch))
            elif code == SM_REVEAL and c != CONJ_SECRET:
                fates.append((c, t))
            elif code == SM_PRIME:
                self.prime_real.append(c)
                if c == CONJ_SECRET:
                    self.prime_fate.append(-1)
                    continue
                self.prime_fate.append(len(fates))
                fates.append((c if c in flipped else -1, t))
        self.stages = epoch
        never = 1 << 60
        hand = [c for c in st.secret_hand[j] if c != CONJ_SECRET]
        fates += [(c, never) for c in sorted(set(hand) & shown)]
        fates += [(-1, never)] * (len(hand) - len(set(hand) & shown))
        if len(fates) != len(self.slots):
            raise RuntimeError(f"resample: seat {j}'s Secret log has {len(self.slots)} draws "
                               f"for {len(fates)} cards drawn (engine fault)")
        self.fates = fates
        self.known = {c for c, _ in fates if c >= 0}
        self.hidden = sorted(c for c in range(len(soc)) if soc[c]["level"] <= min(epoch, 4)
                             and c not in self.known)
        self.deck_size = len(st.secret_deck[j])
        # hidden holders: the hidden fates, then the deck positions (top first)
        self.holders = [f for f, (c, _) in enumerate(fates) if c < 0]
        n_deck = len(self.hidden) - len(self.holders)
        if n_deck != self.deck_size:
            raise RuntimeError(f"resample: seat {j}'s hidden Secrets ({len(self.hidden)}) do not "
                               f"fill its hidden hand, primes and deck (engine fault)")
        self.hand_fates = {f for f, (c, d) in enumerate(fates) if c < 0 and d == never}
        self.target: int | None = None
        if st.is_over:  # the final scores show the Intrigue (= Level) of the hidden hand
            real_hand = [c for c in hand if c not in shown]
            self.target = sum(self.level[c] for c in real_hand)

    def _start(self) -> None:
        """A history from the public facts alone: each draw, in order, takes the fate due
        first among those that may come from it (earliest deadline; a named card only from a
        draw of its Level's epoch or later; named cards first at equal deadlines); the hidden
        cards go, lowest Levels first, to the hidden fates of the earliest draws, then to the
        deck."""
        free = set(range(len(self.fates)))
        self.fate_slot = [0] * len(self.fates)
        self.slot_fate = [0] * len(self.slots)
        for k, (t, e) in enumerate(self.slots):
            best = min((f for f in free if self.fates[f][1] > t
                        and (self.fates[f][0] < 0 or self.level[self.fates[f][0]] <= e)),
                       key=lambda f: (self.fates[f][1], self.fates[f][0] < 0, f), default=None)
            if best is None:
                raise RecordError("resample: no Secret history fits the public draws and "
                                  "reveals (a draw with no card it may have brought)")
            free.discard(best)
            self.fate_slot[best], self.slot_fate[k] = k, best
        order = sorted(range(len(self.holders)),
                       key=lambda h: self.slots[self.fate_slot[self.holders[h]]][0])
        self.card = [0] * len(self.hidden)
        cards = sorted(self.hidden, key=lambda c: (self.level[c], c))
        for pos, h in enumerate(order + list(range(len(self.holders), len(self.hidden)))):
            self.card[h] = cards[pos]

    def sample(self, rng: np.random.Generator) -> None:
        """A history drawn from the public start by a Markov chain whose moves swap the cards
        of two hidden holders or the draws of two fates (symmetric proposals, a move kept only
        while the history stays consistent: uniform over consistent histories at
        equilibrium). Moves that do not increase the inconsistency (cards drawn before their
        Level was shuffled in, and the distance to a finished game's hand Intrigue) lead the
        start to a consistent history first.

        Raises:
            RecordError: no consistent history reached in :data:`REPAIR_STEPS` steps.
        """
        self._start()
        n_h, n_s, n_f = len(self.hidden), len(self.slots), len(self.holders)
        if n_h + n_s == 0:
            return
        level, card, slots, fates = self.level, self.card, self.slots, self.fates
        fate_slot, slot_fate, holders = self.fate_slot, self.slot_fate, self.holders
        holder_of = {f: h for h, f in enumerate(holders)}
        in_hand = [h < n_f and holders[h] in self.hand_fates for h in range(n_h)]
        target = self.target

        def bad(h) -> bool:  # a hidden card drawn before its Level was shuffled in
            return h is not None and h < n_f and level[card[h]] > slots[fate_slot[holders[h]]][1]

        def off(x: int) -> int:
            return 0 if target is None else abs(x - target)

        hand = sum(level[card[h]] for h in range(n_h) if in_hand[h])
        energy = sum(bad(h) for h in range(n_f)) + off(hand)
        steps, repair, goal = 0, 0, CHAIN_STEPS * (n_h + n_s)
        while steps < goal:
            for kind, x, y in rng.random((1024, 3)):
                if energy:
                    repair += 1
                    if repair > REPAIR_STEPS:
                        raise RecordError(
                            "resample: no Secret history consistent with the public draws, "
                            f"reveals and scores found in {REPAIR_STEPS} steps")
                else:
                    steps += 1
                    if steps > goal:
                        break
                if kind < 0.5:
                    a, b = int(x * n_h), int(y * n_h)
                    if a == b:
                        continue
                    old = bad(a) + bad(b)
                    moved = hand + (in_hand[a] - in_hand[b]) * (level[card[b]] - level[card[a]])
                    card[a], card[b] = card[b], card[a]
                    new = energy - old - off(hand) + bad(a) + bad(b) + off(moved)
                    if new > energy or (not energy and new):
                        card[a], card[b] = card[b], card[a]
                    else:
                        energy, hand = new, moved
                else:
                    k1, k2 = int(x * n_s), int(y * n_s)
                    if k1 == k2:
                        continue
                    f1, f2 = slot_fate[k1], slot_fate[k2]
                    (t1, e1), (t2, e2) = slots[k1], slots[k2]
                    c1, c2 = fates[f1][0], fates[f2][0]
                    if t2 >= fates[f1][1] or t1 >= fates[f2][1] \
                            or c1 >= 0 and level[c1] > e2 or c2 >= 0 and level[c2] > e1:
                        continue  # drawn after leaving the hand, or a named card too early
                    h1, h2 = holder_of.get(f1), holder_of.get(f2)
                    old = bad(h1) + bad(h2)
                    fate_slot[f1], fate_slot[f2] = k2, k1
                    slot_fate[k1], slot_fate[k2] = f2, f1
                    new = energy - old + bad(h1) + bad(h2)
                    if new > energy or (not energy and new):
                        fate_slot[f1], fate_slot[f2] = k1, k2
                        slot_fate[k1], slot_fate[k2] = f1, f2
                    else:
                        energy = new

    def _fate_card(self) -> dict[int, int]:
        """The hidden card of each hidden fate (fate index -> card)."""
        return {f: self.card[h] for h, f in enumerate(self.holders)}

    def draws(self) -> list[int]:
        """The card of each draw, in order."""
        fate_card = self._fate_card()
        return [self.fates[f][0] if self.fates[f][0] >= 0 else fate_card[f]
                for f in self.slot_fate]

    def deck(self) -> list[int]:
        """The deck, top first."""
        return self.card[len(self.holders):]

    def pending_prime(self) -> int:
        """The card a prime picked and has not put face down yet (its space still to choose):
        one of the hidden hand cards, the first hidden hand fate's (the chain leaves every
        hidden hand card equally likely there)."""
        fate_card = self._fate_card()
        return fate_card[min(self.hand_fates)]

    def primes(self) -> list[int]:
        """The card each prime took, in order."""
        fate_card = self._fate_card()
        return [real if f < 0 else (self.fates[f][0] if self.fates[f][0] >= 0 else fate_card[f])
                for f, real in zip(self.prime_fate, self.prime_real)]


def _deck_orders(st: ClandestineState, j: int, draws: list[int], deck: list[int],
                 rng: np.random.Generator) -> list[tuple[list[int], int]]:
    """Seat ``j``'s deck, top first, and the number of draws from it, right after each of its shuffles (the first: the Level I
    deck at set-up) for a history with these ``draws`` (in order) and this ``deck`` (top first):
    each epoch's draws, then the cards still in the deck at the next shuffle in a uniformly
    random order (that shuffle mixes them again: nothing shows their order)."""
    soc = _C["secrets"][st.societies[j]]
    epochs, epoch = [], 1
    for code, s, _c in st.secret_log:
        if s == j and code == SM_SHUFFLE:
            epoch += 1
        elif s == j and code == SM_DRAW:
            epochs.append(epoch)
    orders = []
    for e in range(1, epoch + 1):
        drawn = [c for c, x in zip(draws, epochs) if x == e]
        if e == epoch:
            orders.append((drawn + list(deck), len(drawn)))
            continue
        earlier = {c for c, x in zip(draws, epochs) if x <= e}
        rest = sorted(c for c in range(len(soc)) if soc[c]["level"] <= e and c not in earlier)
        orders.append((drawn + [rest[int(p)] for p in rng.permutation(len(rest))], len(drawn)))
    return orders


#: relabellings drawn before :func:`resample` gives up on a position
MAX_ATTEMPTS = 200


def resample(st: ClandestineState, seat: int, rng: np.random.Generator) -> ClandestineState:
    """:func:`resample_once` drawn again while its relabelled record cannot be replayed.

    Which cards an Ascend payment may take next (``ascend.card_choices``: those keeping a
    minimal payment reachable) depends on the Suit icons of the other cards in hand, and an
    assign's slots on a Relic's tone; a world's hand can then make a public pick of the real
    history illegal. Such draws are rejected (the accepted worlds are those under which the
    whole public history is legal).

    Raises:
        RecordError: no replayable relabelling in :data:`MAX_ATTEMPTS` draws; the message says
            that all the attempts failed and quotes the last draw's error (chained as its
            ``__cause__``).
    """
    last: RecordError | None = None
    for _ in range(MAX_ATTEMPTS):
        try:
            return resample_once(st, seat, rng)
        except RecordError as err:
            last = err
    raise RecordError(
        f"resample: all {MAX_ATTEMPTS} attempts to draw a world for seat {seat} whose record "
        f"replays failed (the public history is illegal under every relabelling drawn); "
        f"last error: {last}") from last


def resample_once(st: ClandestineState, seat: int, rng: np.random.Generator) -> ClandestineState:
    """A state consistent with what ``seat`` knows (design §1.5 Resampler, for the parts
    implemented), with a history that replays to it.

    Relics: the cards hidden from ``seat`` (the deck and other seats' blind hand parts) are
    relabelled by a uniformly random bijection among themselves (Bright and Dark alike: the tone
    is on the card's face). The Silver Guard's set-up cards under the deck are named when
    shown, but their order there is chance (``sg_reveal``, then the Vault search's ``sg_vault``
    below it): within each group, the cards still hidden from ``seat`` (in the deck, or drawn
    blind by another seat once the deck shrank into them) are relabelled among themselves in
    the group's permutation, so a blind draw from them is any of them; the group's cards named
    since (drawn face up, shown from a hand) and ``seat``'s own keep their places (a uniform
    redraw of the group's order kept only when it leaves them there: the same distribution,
    without rejections), and the order in which they were shown is untouched.

    Secrets: each other seat's whole Secret history is drawn again (:class:`_SecretHistory`):
    which draw brought which card, the cards named later included (only that they came before
    they were named is public), which card each face-down prime took, the hidden hand and the
    deck order, uniformly over the histories consistent with the public facts (a Level's cards
    come only from draws after that Level was shuffled in; the Levels are printed on the cards'
    faces, so the Levels another seat drew are hidden once a deck mixes two of them), drawn by
    a Markov chain from a start built from the public facts alone. ``seat``'s own draws and
    primes are kept and its deck order drawn uniformly. The deck orders between shuffles follow
    (the cards a shuffle mixes again in a uniformly random order) and every chance outcome is
    rewritten from them, then the record is replayed. Approximations (documented): the chain
    runs :data:`CHAIN_STEPS` steps per item, so the draw is uniform only up to its mixing; a
    Conjunction Secret primed face down stays where it really is. With a Nemesis, the Intent
    cards never seen face up are relabelled within their type (``nemesis.resample_intents``).
    Future chance comes from a generator seeded from ``rng``.

    Nothing here reads a real hidden card: the Relic relabellings take their cards in the order
    of their public slot in the chance log (:func:`_relic_slots`, :func:`_bottom_slots`), the
    Secret histories start from the public facts, so the world drawn depends only on what
    ``seat`` knows and on ``rng``: one seed gives one world from every state the seat cannot
    tell from ``st`` (contract law, tests/test_contract_laws.py).
    """
    n = st.num_players
    h = st.spec.humans  # seats with Secrets (a Nemesis has none)
    # cards picked for an Ascend payment in progress are public (the picks are public actions)
    picked = {st.card_action(f.actor, c) + (f.actor,) for f in st.acts if f.paid for c in f.paid}
    hidden_relics = set(st.relic_deck)
    for j in range(n):
        if j != seat:
            hidden_relics |= set(st.relic_hand[j]) - set(st.relic_known[j])
    hidden_relics -= {i for b, i, _j in picked if b == "RELIC"}
    # a Relic shown by the first stage of an assign (its slot not yet chosen) is public
    if st.assigning is not None and st.assigning[1] >= 0:
        hidden_relics.discard(st.assigning[1])
    if isinstance(st.effect_pick, str) and st.effect_pick in RELIC_INDEX:
        hidden_relics.discard(RELIC_INDEX[st.effect_pick])
    log = [list(e) for e in st.chance_log]
    # the Silver Guard's groups under the deck: their cards are named at set-up, their order
    # under the deck is hidden; the group cards still hidden from the seat change places
    # among themselves only (design §1.5 Resampler step 2), every other card of the group
    # (drawn face up, or named since) stays where it is
    bottom = _bottom_groups(st, log)
    hidden_bottom = [sorted(hidden_relics & set(cards)) for _k, cards in bottom]
    for _k, cards in bottom:
        hidden_relics -= set(cards)
    # one group, Bright and Dark together: a Relic's tone is on its face, so the tones of the
    # blind Relics are hidden too (keeping them copied the real ones into every world); a
    # relabelling under which a public decision is illegal (an assign's slots depend on the
    # tone) is rejected by :func:`resample`
    sig_r = _relabel([sorted(hidden_relics)], rng, _relic_slots(log))
    if any(hidden_bottom):
        sig_b = _relabel([g for g in hidden_bottom if g], rng, _bottom_slots(log, bottom))
        for k, cards in bottom:
            log[k][1] = [cards.index(sig_b.get(cards[p], cards[p])) for p in log[k][1]]
    orders, primes, pending = [], [], {}
    for j in range(h):
        draws = [c for code, s, c in st.secret_log if s == j and code == SM_DRAW]
        if j == seat:  # its own draws and primes are known; its deck order is not
            deck = sorted(st.secret_deck[j])
            deck = [deck[int(p)] for p in rng.permutation(len(deck))]
            primes.append([c for code, s, c in st.secret_log if s == j and code == SM_PRIME])
        else:
            shown = {i for b, i, jj in picked if b == "SECRET" and jj == j}
            if j == st.turn and st.kind == "secret_option":
                shown.add(st.playing)  # shown by the SECRET action, option not yet chosen
            hist = _SecretHistory(st, j, shown)
            hist.sample(rng)
            draws, deck = hist.draws(), hist.deck()
            primes.append(hist.primes())
            if isinstance(st.effect_pick, str) and st.effect_pick not in RELIC_INDEX \
                    and hist.hand_fates:
                pending[j] = hist.pending_prime()
        orders.append(_deck_orders(st, j, draws, deck, rng))
    deck_seats = iter(reversed(range(h)))  # initial Secret decks: reverse turn order
    shuffles = iter(st.shuffle_inputs)
    stage = [0] * h
    for e in log:
        if e[0] == "relic_deck":
            e[1] = [sig_r.get(x, x) for x in e[1]]
        elif e[0] == "secret_deck":
            j = next(deck_seats)
            level1 = [i for i, c in enumerate(_C["secrets"][st.societies[j]]) if c["level"] == 1]
            e[1] = [level1.index(c) for c in orders[j][0][0]]
        elif e[0] == "secret_shuffle":
            j = next(shuffles)[0]
            prev, drawn = orders[j][stage[j]]
            stage[j] += 1
            pile = [i for i, c in enumerate(_C["secrets"][st.societies[j]])
                    if c["level"] == stage[j] + 1]
            pos = {c: i for i, c in enumerate(prev[drawn:] + pile)}
            e[1] = [pos[c] for c in orders[j][stage[j]][0]]
    if st.nem is not None:  # which unseen Intent cards are face down (design §10.5)
        from .nemesis import resample_intents
        resample_intents(st, log, rng)
    record = st.to_record()
    record.pop("returns", None)
    record.pop("rng_state", None)  # the world's future chance is drawn afresh below
    record["chance"] = log
    keepers = [j for j in range(h) if st.has_power(j, "serpent")]
    if keepers:  # a prime pick names a hidden Secret: the one this history primed
        k = keepers[0]
        picks = primes[k]
        if len(st.prime_steps) == len(picks) + 1 and isinstance(st.effect_pick, str):
            # the last pick's space is still to choose: the card is in the hand
            picks = picks + [st.secret_index(k, st.effect_pick) if k == seat
                             else pending[k]]
        if len(picks) != len(st.prime_steps):
            raise RuntimeError(f"resample: {len(st.prime_steps)} prime picks in the history, "
                               f"{len(primes[k])} primes logged (engine fault)")
        for i, c in zip(st.prime_steps, picks):
            record["actions"][i] = OFFSET["SECRET"] + c
    new = ClandestineState.from_record(record)
    new.set_chance_log(new.chance_log, int(rng.integers(2**63)))
    return new
