"""Helpers for Prowl tests (no tests here): build hand-worked positions by editing a state."""

from __future__ import annotations

import numpy as np

from envs.prowl.engine import K_CLAN, K_ORDER, K_TURN, ProwlState


def tid(s: ProwlState, name: str) -> int:
    """Card type index of the card called ``name``."""
    return s.type_names.index(name)


def cid(s: ProwlState, clan: str) -> int:
    """Clan index of ``clan``."""
    return s.clan_names.index(clan)


def position(num_players: int = 4, track=("Spring", "Summer", "Autumn", "Winter"),
             clans=None, hands=None, dominance: int = 0, turn: int = 0, seed: int = 0,
             **config) -> ProwlState:
    """A state after set-up with the given track (top first), clan cards (card names), hands
    (lists of card names) and Dominance holder, with ``turn``'s turn decision due."""
    s = ProwlState(seed=seed, num_players=num_players, **config)
    n = s.n
    s.track = [cid(s, c) for c in track]
    for i, c in enumerate(s.track):
        s.pos[c] = i
    s.hand[:] = 0
    s.box = []
    s.deck2p = []
    clans = clans or ["Seer", "Raider", "Captain", "Magistrate", "Hexer"][:n]
    hands = hands or [["Hexer", "Seer"] for _ in range(n)]
    for q in range(n):
        s.clan_card[q] = tid(s, clans[q])
        s.know[:, q] = -1
        s.know[q, q] = s.clan_card[q]
        for name in hands[q]:
            s.hand[q, tid(s, name)] += 1
    s.dominance = dominance
    s.setup_done = n
    s.turn_player = turn
    s.queue = [("dec", K_TURN, turn, None, (), {})]
    s._dec = s.queue[0]
    s._mask = None
    s._prot = None
    return s


def act(s: ProwlState, *actions: int) -> None:
    """Apply several actions in sequence."""
    for a in actions:
        s.apply_action(int(a))


def play(s: ProwlState, name: str, order: int = 0) -> None:
    """Current player plays card ``name`` with order 0 (effect first) or 1 (strengthen first)."""
    act(s, s.off["play"] + tid(s, name), s.off["order"] + order)


def opp(s: ProwlState, target: int) -> int:
    """Action id choosing absolute seat ``target`` as the opponent of the current player."""
    p = s.current_player
    return s.off["opp"] + (target - p - 1) % s.n


def clan(s: ProwlState, name: str) -> int:
    """Action id choosing clan ``name``."""
    return s.off["clan"] + cid(s, name)


def track_names(s: ProwlState) -> list[str]:
    return [s.clan_names[c] for c in s.track]


def card_totals(s: ProwlState) -> np.ndarray:
    """Count of every card type over all locations, computed independently of the engine's
    bookkeeping (hands, clan cards, discards, attachments, 2p deck and pile, box, in play)."""
    tot = s.hand.sum(axis=0) + s.discard.sum(axis=0) + s.attach.sum(axis=0) + s.pile
    tot = tot + np.bincount(s.clan_card[s.clan_card >= 0], minlength=s.T)
    tot = tot + np.bincount(np.array(s.deck2p + s.box, dtype=np.int64), minlength=s.T)
    for step in s.queue:   # a played card is in play until it is discarded or attached
        if step[0] == "fin":
            tot[step[2]] += 1
        elif step[0] == "dec" and step[1] == K_ORDER:
            tot[step[5]["card"]] += 1
    return tot


# ---------------------------------------------------------------- Expanding the Game
#: clans chosen by the made-up Tidecaller effect, in order (checked by the tests)
TIDE_CALLS: list[int] = []


def _tide(state, player, card_type):
    """Test effect: choose a clan other than this card's; raise it by 1."""
    own = state.type_clan[card_type]
    state.ask(K_CLAN, player, "test_tide_pick", tuple(c for c in range(state.C) if c != own),
              {"card": card_type})


def _tide_pick(state, player, ctx, c):
    TIDE_CALLS.append(c)
    state.raise_(c, 1, player, effect=True)


def register_equinox() -> None:
    """Register a made-up fifth clan, "Equinox" (8 cards: a new effect plus reused ones)."""
    from envs.prowl import CardSpec, register_clan, register_effect, register_handler

    register_effect("test_tide", _tide)
    register_handler("test_tide_pick", _tide_pick)
    register_clan("Equinox", [
        CardSpec("Tidecaller", 2, frozenset(), "test_tide"),
        CardSpec("Sage", 2, frozenset({"Peek"}), "seer"),
        CardSpec("Breaker", 2, frozenset(), "hexer"),
        CardSpec("Warden", 1, frozenset({"Attachment"}), "bodyguard"),
        CardSpec("Oracle", 1, frozenset({"Leader", "Attachment"}), "warlord"),
    ])
