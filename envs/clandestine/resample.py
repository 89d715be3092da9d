"""Clandestine resampling: :func:`resample` (``ClandestineState.resample_from_infostate``;
design §1.5 Resampler), a state consistent with what a seat knows, with a record that replays
to it (history consistency, CONVENTIONS.md)."""

from __future__ import annotations

import numpy as np

from ..core.errors import RecordError
from .actions import OFFSET
from .engine import _C, CONJ_SECRET, RELIC_INDEX, ClandestineState


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


def _slots(st: ClandestineState, log: list[list]) -> tuple[dict, list[dict]]:
    """Where each card first appears in the chance log, ``(event number, position)``: for the
    Relics in the ``relic_deck`` permutation; for each human seat's Secrets in its
    ``secret_deck`` permutation and the decks its ``secret_shuffle`` events leave. The slots are
    public (every look-alike state has the same events; only which card fills a hidden slot
    differs)."""
    h = st.spec.humans
    relics: dict[int, tuple[int, int]] = {}
    secrets: list[dict[int, tuple[int, int]]] = [{} for _ in range(h)]
    deck_seats = iter(reversed(range(h)))  # initial Secret decks: reverse turn order
    shuffles = iter(st.shuffle_inputs)
    for k, e in enumerate(log):
        if e[0] == "relic_deck":
            cards, into = e[1], relics
        elif e[0] == "secret_deck":
            j = next(deck_seats)
            level1 = [i for i, c in enumerate(_C["secrets"][st.societies[j]]) if c["level"] == 1]
            cards, into = [level1[p] for p in e[1]], secrets[j]
        elif e[0] == "secret_shuffle":
            j, before, _start = next(shuffles)
            cards, into = [before[p] for p in e[1]], secrets[j]
        else:
            continue
        for pos, c in enumerate(cards):
            into.setdefault(c, (k, pos))
    return relics, secrets


#: relabellings drawn before :func:`resample` gives up on a position
MAX_ATTEMPTS = 200


def resample(st: ClandestineState, seat: int, rng: np.random.Generator) -> ClandestineState:
    """:func:`resample_once` drawn again while its relabelled record cannot be replayed.

    The relabelling keeps each hidden Secret's Level, not its Suit icons, but which cards
    an Ascend payment may take next (``ascend.card_choices``: those keeping a minimal payment
    reachable) depends on the icons of the other cards in hand; a relabelled hand can then make
    a public pick of the real history illegal. Such draws are rejected (the accepted worlds are
    the relabellings under which the whole public history is legal).

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

    The cards hidden from ``seat`` are relabelled by a random bijection: the Relics in the deck
    and in other seats' blind hand parts uniformly among themselves (Bright and Dark alike: the
    tone is on the card's face); each other seat's hidden Secrets (hand and deck), and
    ``seat``'s own deck, uniformly within each Level. Every chance outcome is rewritten so that
    each pile is the relabelled real pile at every moment (draws from the top then give the
    relabelled cards), and the record is replayed. Approximation (documented): keeping each
    hidden Secret's Level is narrower than the design's sampler, which mixes Levels subject to
    the epoch condition (after a Level's Secrets are shuffled into a deck still holding older
    ones, the Levels another seat drew are hidden, yet every world copies them). With a Nemesis, the Intent cards never seen face up are relabelled within their
    type (``nemesis.resample_intents``). Future chance comes from a
    generator seeded from ``rng``.

    The relabellings take each group's cards in the order of their public slot in the chance
    log (:func:`_slots`), never in an order of the real hidden cards, so the world drawn depends
    only on what ``seat`` knows and on ``rng``: one seed gives one world from every state the
    seat cannot tell from ``st`` (contract law, tests/test_contract_laws.py).
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
    if st.nem is not None:  # Relics the Silver Guard revealed at setup are known cards
        hidden_relics -= set(st.nem.revealed)
    # a Relic shown by the first stage of an assign (its slot not yet chosen) is public
    if st.assigning is not None and st.assigning[1] >= 0:
        hidden_relics.discard(st.assigning[1])
    if isinstance(st.effect_pick, str) and st.effect_pick in RELIC_INDEX:
        hidden_relics.discard(RELIC_INDEX[st.effect_pick])
    # one group, Bright and Dark together: a Relic's tone is on its face, so the tones of the
    # blind Relics are hidden too (keeping them copied the real ones into every world); a
    # relabelling under which a public decision is illegal (an assign's slots depend on the
    # tone) is rejected by :func:`resample`
    log = [list(e) for e in st.chance_log]
    relic_slots, secret_slots = _slots(st, log)
    sig_r = _relabel([sorted(hidden_relics)], rng, relic_slots)
    sig_s = []
    for j in range(h):
        soc = _C["secrets"][st.societies[j]]
        hidden = set(st.secret_deck[j]) | (set(st.secret_hand[j]) if j != seat else set())
        if j != seat:  # primed Secrets: location public, identity the Keepers' own
            hidden |= {c for cards in st.primed.values() for c in cards} \
                if st.has_power(j, "serpent") else set()
        hidden.discard(CONJ_SECRET)  # public once in hand
        if j == st.turn and st.kind == "secret_option":
            hidden.discard(st.playing)  # shown by the SECRET action, option not yet chosen
        hidden -= {i for b, i, jj in picked if b == "SECRET" and jj == j}
        sig_s.append(_relabel([[c for c in hidden if soc[c]["level"] == lv]
                               for lv in (1, 2, 3, 4)], rng, secret_slots[j]))
    deck_seats = iter(reversed(range(h)))  # initial Secret decks: reverse turn order
    shuffles = iter(st.shuffle_inputs)
    for e in log:
        if e[0] == "relic_deck":
            e[1] = [sig_r.get(x, x) for x in e[1]]
        elif e[0] == "secret_deck":
            j = next(deck_seats)
            level1 = [i for i, c in enumerate(_C["secrets"][st.societies[j]]) if c["level"] == 1]
            real = [level1[p] for p in e[1]]
            e[1] = [level1.index(sig_s[j].get(c, c)) for c in real]
        elif e[0] == "secret_shuffle":
            j, before, pile_start = next(shuffles)
            real = [before[p] for p in e[1]]
            cf_before = [sig_s[j].get(c, c) for c in before[:pile_start]] + before[pile_start:]
            pos = {c: i for i, c in enumerate(cf_before)}
            e[1] = [pos[sig_s[j].get(c, c)] for c in real]
    if st.nem is not None:  # which unseen Intent cards are face down (design §10.5)
        from .nemesis import resample_intents
        resample_intents(st, log, rng)
    record = st.to_record()
    record.pop("returns", None)
    record.pop("rng_state", None)  # the world's future chance is drawn afresh below
    record["chance"] = log
    keepers = [j for j in range(h) if j != seat and st.has_power(j, "serpent")]
    for i in st.prime_steps:  # a prime pick names a hidden Secret: relabel it too
        if keepers:
            k = record["actions"][i] - OFFSET["SECRET"]
            record["actions"][i] = OFFSET["SECRET"] + sig_s[keepers[0]].get(k, k)
    new = ClandestineState.from_record(record)
    new.set_chance_log(new.chance_log, int(rng.integers(2**63)))
    return new
