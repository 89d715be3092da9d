"""Prowl card set as data, and the registries of effect functions (design/prowl.md, "The 32 cards").

The card set is one table: for each clan, rows ``(name, copies, keywords, effect_id)``. The engine
reads only this table and the two registries below, so a clan can be swapped for another one
("Expanding the Game") by calling :func:`register_clan` with its 8 cards and registering any new
effect ids with :func:`register_effect` / :func:`register_handler`.

* ``EFFECTS[effect_id](state, player, card_type)`` runs a card's effect when it is resolved; it
  may ask the acting seat for decisions with ``state.ask(kind, player, handler_id, options, ctx)``.
* ``HANDLERS[handler_id](state, player, ctx, value)`` resolves one such decision (``value`` is an
  absolute seat for opponent choices, a clan index for clan choices, 0/1 for yes/no, side, order
  and reward choices).

Keywords (rulebook, "Card Effects"): ``Leader``, ``Attachment``, ``Early``, ``Final``, ``Peek``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

KEYWORDS = frozenset({"Leader", "Attachment", "Early", "Final", "Peek"})


@dataclass(frozen=True)
class CardSpec:
    """One row of the card table: a card identity of a clan.

    Attributes:
        name: card name (rulebook / design table).
        copies: number of physical copies in the clan's 8 cards.
        keywords: subset of :data:`KEYWORDS`.
        effect_id: key into :data:`EFFECTS`.
    """

    name: str
    copies: int
    keywords: frozenset
    effect_id: str


def _c(name: str, copies: int, keywords: str, effect_id: str) -> CardSpec:
    kw = frozenset(k for k in keywords.split(",") if k)
    return CardSpec(name, copies, kw, effect_id)


#: clan name -> its card rows (design/prowl.md table, 8 cards per clan, 1 leader each)
CLANS: dict[str, list[CardSpec]] = {
    "Spring": [
        _c("High Mage", 1, "Leader,Attachment", "high_mage"),
        _c("Hooded Figure", 1, "", "hooded_figure"),
        _c("Seer", 2, "Peek", "seer"),
        _c("Hexer", 2, "", "hexer"),
        _c("Changeling", 1, "", "changeling"),
        _c("Whisperer", 1, "Early,Peek", "whisperer"),
    ],
    "Summer": [
        _c("Warmonger", 1, "Leader,Attachment", "warmonger"),
        _c("Wanderer", 2, "", "wanderer"),
        _c("Raider", 2, "", "raider"),
        _c("Berserker", 1, "", "berserker"),
        _c("Firebrand", 1, "", "firebrand"),
        _c("Last Stand", 1, "Final", "last_stand"),
    ],
    "Autumn": [
        _c("Warlord", 1, "Leader,Attachment", "warlord"),
        _c("Headstrong Scout", 2, "", "headstrong_scout"),
        _c("Captain", 2, "", "captain"),
        _c("Herald", 1, "Peek", "herald"),
        _c("Drillmaster", 1, "Early", "drillmaster"),
        _c("Marshal", 1, "", "marshal"),
    ],
    "Winter": [
        _c("Regent", 1, "Leader,Attachment", "regent"),
        _c("Bodyguard", 2, "Attachment", "bodyguard"),
        _c("Magistrate", 2, "", "magistrate"),
        _c("Glacier", 1, "Attachment", "glacier"),
        _c("Assassin", 1, "", "assassin"),
        _c("Usurper", 1, "Final", "usurper"),
    ],
}

DEFAULT_CLANS = ("Spring", "Summer", "Autumn", "Winter")

EffectFn = Callable[..., None]
EFFECTS: dict[str, EffectFn] = {}
HANDLERS: dict[str, EffectFn] = {}
#: leader effect id -> condition(state, seat, card_type) -> bool, checked at game end (ruling 8a)
LEADER_CONDITIONS: dict[str, Callable[..., bool]] = {}


def validate_clan(name: str, cards) -> None:
    """Check the card rows of clan ``name`` ("Expanding the Game"; design/prowl.md card table).

    A clan is 8 cards in rows of :class:`CardSpec`: each row a non-empty name (unique in the
    clan), ``copies`` an integer >= 1, ``keywords`` a set of names from :data:`KEYWORDS` and a
    non-empty ``effect_id``. At most one Leader card, and a Leader must also be an
    ``Attachment``: a played Leader stays in front of its owner to the end, where its win
    condition is checked (design rulings 2 and 8a); without the keyword it would go to the
    discard pile and never be checked. A card cannot be both ``Early`` and ``Final`` (its
    effect could never trigger).

    Raises:
        ValueError: naming the clan, the card and the problem.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"a clan name must be a non-empty string, got {name!r}")
    if isinstance(cards, (str, bytes, dict)) or not hasattr(cards, "__iter__"):
        raise ValueError(f"clan {name!r}: the cards must be a list of CardSpec rows, "
                         f"got {cards!r}")
    cards = list(cards)
    seen = set()
    for i, c in enumerate(cards):
        if not isinstance(c, CardSpec):
            raise ValueError(f"clan {name!r}: row {i} is not a CardSpec, got {c!r}")
        if not isinstance(c.name, str) or not c.name:
            raise ValueError(f"clan {name!r}: row {i} needs a non-empty card name, "
                             f"got {c.name!r}")
        if c.name in seen:
            raise ValueError(f"clan {name!r}: card {c.name!r} is listed twice "
                             f"(give one row with its copies)")
        seen.add(c.name)
        if isinstance(c.copies, bool) or not isinstance(c.copies, int) or c.copies < 1:
            raise ValueError(f"card {c.name!r} of clan {name!r} needs copies >= 1 "
                             f"(an integer), got {c.copies!r}")
        if isinstance(c.keywords, (str, bytes)) or not isinstance(c.keywords, (set, frozenset)) \
                or not all(isinstance(k, str) for k in c.keywords):
            raise ValueError(f"card {c.name!r} of clan {name!r}: keywords must be a set of "
                             f"keyword names from {sorted(KEYWORDS)}, got {c.keywords!r}")
        bad = set(c.keywords) - KEYWORDS
        if bad:
            raise ValueError(f"card {c.name!r} of clan {name!r}: unknown keywords "
                             f"{sorted(bad)}; known {sorted(KEYWORDS)}")
        if not isinstance(c.effect_id, str) or not c.effect_id:
            raise ValueError(f"card {c.name!r} of clan {name!r} needs a non-empty effect_id, "
                             f"got {c.effect_id!r}")
        if "Leader" in c.keywords and "Attachment" not in c.keywords:
            raise ValueError(f"card {c.name!r} of clan {name!r} is a Leader without the "
                             f"Attachment keyword: a played Leader must stay attached to the end "
                             f"for its win condition to be checked (design rulings 2, 8a)")
        if "Early" in c.keywords and "Final" in c.keywords:
            raise ValueError(f"card {c.name!r} of clan {name!r} is both Early and Final: its "
                             f"effect could never trigger")
    total = sum(c.copies for c in cards)
    if total != 8:
        raise ValueError(f"clan {name!r} must have 8 cards, its rows total {total}")
    if sum(c.copies for c in cards if "Leader" in c.keywords) > 1:
        raise ValueError(f"clan {name!r} may have at most one Leader card")


def register_clan(name: str, cards: list[CardSpec]) -> None:
    """Add (or replace) clan ``name`` with its card rows ("Expanding the Game").

    The rows are checked by :func:`validate_clan` before anything is registered. The effect ids
    (and a Leader's win condition in :data:`LEADER_CONDITIONS`) may be registered before or
    after the clan; a state using the clan refuses to start without them (``ConfigError``).

    Raises:
        ValueError: the rows are not a valid clan (see :func:`validate_clan`); the message
            names the clan, the card and the problem.
    """
    validate_clan(name, cards)
    CLANS[name] = [replace(c, keywords=frozenset(c.keywords)) for c in cards]


def register_effect(effect_id: str, fn: EffectFn) -> None:
    """Register ``fn(state, player, card_type)`` as the effect ``effect_id``."""
    EFFECTS[effect_id] = fn


def register_handler(handler_id: str, fn: EffectFn) -> None:
    """Register ``fn(state, player, ctx, value)`` resolving decisions asked as ``handler_id``."""
    HANDLERS[handler_id] = fn


def register_leader_condition(effect_id: str, fn: Callable[..., bool]) -> None:
    """Register the game-end win condition ``fn(state, seat, card_type) -> bool`` of a leader."""
    LEADER_CONDITIONS[effect_id] = fn
