"""Per-game hooks of the shared contract suite (``tests/test_contract_laws.py``).

The laws are written once; what only a game can say is registered here under its ``envs.GAMES``
name:

* :data:`HIDDEN_CHANGE` (required for every registered game): ``fn(state, observer, rng)`` ->
  ``(changed, owner)`` or ``None``. ``changed`` is a copy of ``state`` in which a fact hidden
  from seat ``observer`` and known to seat ``owner`` (``owner != observer``) is different;
  ``None`` when the position has no such fact to change. The leak law then asks that
  ``observer``'s observation is identical in both and ``owner``'s differs (so the change is
  real). A registered game without a hook fails the leak test.
* :data:`RESAMPLE_CHECKS` (optional): ``fn(real, seat, world)`` raising ``AssertionError`` when
  a world drawn by ``real.resample_from_infostate(seat, ...)`` breaks a game-specific fact that
  the generic laws cannot express (cards conserved, public exclusions, ...). Run on every world
  the resample laws draw.
* :data:`CONFIGS` (optional): the configurations (keywords besides ``num_players``) that the
  random positions cycle through, so that variants are covered by every law; ``[{}]`` (the
  defaults) for a game not listed. Each must be valid at every player count.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tests.clandestine_hooks import clandestine_hidden_change

#: game -> configurations cycled by the random positions (each valid at every player count)
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "prowl": [{}, {"reward": "zero_sum"}, {"beginner": True, "cards_per_player": 5}],
    "clans": [{}, {"epoch_chart": "board_2002", "reward": "score_margin"}],
    "badland_wolves": [{}, {"max_turns": 60}],      # a short limit: truncated games occur
}

# ------------------------------------------------------------------------------------ leaks


def _prowl_change(s, observer: int, rng: np.random.Generator):
    """Swap another seat's face-down clan card (unknown to ``observer``: not seen, not peeked
    by a Whisperer) with a card of a different type from its hand (Prowl "Set-up" step 5)."""
    cands = [q for q in range(s.n) if q != observer and s.clan_card[q] >= 0
             and s.know[observer, q] < 0 and not s.wvalid[observer, q] and s.hand[q].any()]
    if not cands:
        return None
    q = cands[int(rng.integers(len(cands)))]
    others = [int(t) for t in np.flatnonzero(s.hand[q]) if t != s.clan_card[q]]
    if not others:
        return None
    t = others[int(rng.integers(len(others)))]
    mod = s.clone()
    old = int(mod.clan_card[q])
    mod.clan_card[q] = t
    mod.hand[q, t] -= 1
    mod.hand[q, old] += 1
    mod.know[q, q] = t
    return mod, q


def _clans_change(s, observer: int, rng: np.random.Generator):
    """Give another seat another secret colour (an unused one; with all five in play, swap
    with a third seat's). Not at the end: the end reveals every colour ("End of Game")."""
    if s.is_terminal:
        return None
    n = s.num_players
    j = int(rng.choice([q for q in range(n) if q != observer]))
    t = s.clone()
    free = [c for c in range(5) if c not in t.colours.tolist()]
    if free:
        t.colours[j] = free[int(rng.integers(len(free)))]
    else:
        m = int(rng.choice([x for x in range(n) if x not in (observer, j)]))
        t.colours[[j, m]] = t.colours[[m, j]]
    return t, j


def _badland_wolves_change(s, observer: int, rng: np.random.Generator):
    """Swap a card of another wolf's hand that ``observer`` does not know about with a
    different card of the Scrap deck, and reorder the Hunt deck."""
    t = s.clone()
    for p in rng.permutation(s.num_players):
        p = int(p)
        if p == observer:
            continue
        for k in np.flatnonzero(s.hands[p] > s.known[observer, p]):
            for j, kk in enumerate(t.scrap_deck):
                if kk != k:
                    t.scrap_deck[j] = int(k)
                    t.hands[p, k] -= 1
                    t.hands[p, kk] += 1
                    for o in range(s.num_players):      # others' knowledge stays a lower bound
                        np.minimum(t.known[o], t.hands, out=t.known[o])
                    t.hunt_deck = rng.permutation(t.hunt_deck).tolist()
                    t._mask = None
                    return t, p
    return None


def _toy_change(s, observer: int, rng: np.random.Generator):
    """Flip another seat's private coin."""
    q = int(rng.choice([x for x in range(s.num_players) if x != observer]))
    t = s.clone()
    t.coins[q] = 1 - t.coins[q]
    return t, q


#: game -> fn(state, observer, rng) -> (changed state, owner seat) or None
HIDDEN_CHANGE: dict[str, Callable[[Any, int, np.random.Generator], Any]] = {
    "prowl": _prowl_change,
    "clans": _clans_change,
    "badland_wolves": _badland_wolves_change,
    "toy": _toy_change,
    "clandestine": clandestine_hidden_change,
}

# ------------------------------------------------------------------- resample, game facts


def _prowl_resample(real, seat: int, world) -> None:
    """Cards conserved; the public exclusions (Accuse, Assassin, ...) still hold for every
    face-down clan card; a finished game keeps its winner."""
    from tests.test_prowl_helpers import card_totals

    assert np.array_equal(card_totals(world), real.copies), "a card is lost or duplicated"
    for q in range(world.n):
        if not world.face_up[q] and world.clan_card[q] >= 0:
            assert not world.excl[q, world.type_clan[world.clan_card[q]]], \
                f"seat {q}'s resampled clan card is publicly excluded"
    if real.is_terminal:
        assert world.winner == real.winner


def _clans_resample(real, seat: int, world) -> None:
    """The seat keeps its colour, colours stay distinct, the board is the same; a finished game
    keeps every colour, its winners and final scores (the end reveals all)."""
    assert world.colours[seat] == real.colours[seat]
    assert len(set(world.colours.tolist())) == real.num_players
    assert np.array_equal(world.huts, real.huts) and world.turn == real.turn
    if real.is_terminal:
        assert world.hidden_truth() == real.hidden_truth()
        assert world.winners() == real.winners()
        assert np.array_equal(world.final_scores(), real.final_scores())


def _badland_wolves_resample(real, seat: int, world) -> None:
    """Cards conserved; the seat's hand and the phase kept; knowledge stays a lower bound; the
    Scrap deck holds only cards of the pile it was shuffled from; a finished game keeps its
    winner."""
    from envs.badland_wolves.cards import NUM_SCRAP_TYPES

    assert world.card_totals() == real.card_totals()
    assert np.array_equal(world.hands[seat], real.hands[seat])
    assert (world.known <= world.hands[None]).all()
    assert world.phase == real.phase
    assert (np.bincount(world.scrap_deck, minlength=NUM_SCRAP_TYPES)
            <= world.deck_source).all(), "the resampled Scrap deck holds a card its pile lacked"
    assert np.array_equal(world.deck_source, real.deck_source)
    if real.is_over:
        assert world.winner == real.winner


def _toy_resample(real, seat: int, world) -> None:
    """The seat keeps its coin; the running total is public."""
    assert world.coins[seat] == real.coins[seat] and world.total == real.total


#: game -> fn(real, seat, world) raising AssertionError (optional per game)
RESAMPLE_CHECKS: dict[str, Callable[[Any, int, Any], None]] = {
    "prowl": _prowl_resample,
    "clans": _clans_resample,
    "badland_wolves": _badland_wolves_resample,
    "toy": _toy_resample,
}
