"""Clandestine's hooks for the shared contract laws (tests/contract_hooks.py registry)."""

from __future__ import annotations

import numpy as np

from envs.clandestine.engine import CONJ_SECRET, SECRET_IDS, ClandestineState


def clandestine_hidden_change(state: ClandestineState, observer: int,
                              rng: np.random.Generator) -> tuple[ClandestineState, int] | None:
    """``(copy of state, owner)``: something only seat ``owner`` knows differs; or ``None``.

    Leak law (issue 7/9; design §1.5): seat j's Secret hand is j's own private item, so swapping
    one of its hidden Secrets with a card of j's Secret deck (seat j != ``observer``, chosen by
    ``rng``) must leave ``observer``'s observation unchanged (j's record of its draws,
    ``secret_drawn_at``, follows: the card put in the hand was drawn when the other was). Cards that are public are never
    moved: the Conjunction Secret, a Secret shown by a SECRET action awaiting its option, cards
    picked for an Ascend payment in progress. Nor is a Secret named by the effect request being
    asked (its options, e.g. the Secrets a Prime may put face down, were built from the hand)
    or picked by its first stage (the card a Prime puts face down, awaiting its space): a copy
    that moves it out of the hand is no state of the game. ``None`` when no other seat has
    both a movable hand Secret and a deck card.
    """
    n = state.num_players
    shown = {state.playing} if state.kind == "secret_option" else set()
    named = set()  # card ids named by the effect request being asked, or picked by its stage 1
    if state.kind == "effect" and state.runners:
        pending = state.runners[-1]["runner"].pending
        for o in (pending.options if pending is not None else ()):
            named.update(x for x in (o if isinstance(o, tuple) else (o,)) if isinstance(x, str))
        if isinstance(state.effect_pick, str):
            named.add(state.effect_pick)
    busy = any(f.paid for f in state.acts)
    choices = []
    for j in range(n):
        if j == observer or busy:
            continue
        ids = SECRET_IDS.get(state.societies[j], ())  # a Nemesis holds no Secrets
        hand = [c for c in state.secret_hand[j]
                if c != CONJ_SECRET and c not in shown and ids[c] not in named]
        if hand and state.secret_deck[j]:
            choices.append((j, hand))
    if not choices:
        return None
    j, hand = choices[int(rng.integers(len(choices)))]
    card = hand[int(rng.integers(len(hand)))]
    new = state.clone()
    k = int(rng.integers(len(new.secret_deck[j])))
    i = new.secret_hand[j].index(card)
    new.secret_hand[j][i], new.secret_deck[j][k] = new.secret_deck[j][k], card
    # j drew the card now in its hand when it drew the one now back in its deck
    drawn = new.secret_drawn_at[j]
    drawn[new.secret_hand[j][i]], drawn[card] = drawn[card], 0
    new._mask = None
    return new, j
