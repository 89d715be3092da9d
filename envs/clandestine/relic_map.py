"""Clandestine Relic Map: spaces, costs, Discover picks, route Chaos, end-of-turn refill.

Pure rules logic over plain values (Relic ids, ints); no engine state, no PettingZoo.

Sources: rulebook "Relics / Acquiring Relics" and "Actions / Discover"; design
``clandestine_content.md`` §3 (``relic_map`` in the JSON), ruling 7 (the Harbor), ruling 18
(deck-empty trigger), §5.2 (the Mariners' Extension slots, chartered routes), §5.4 (Twilight Chaos
on Relics), §10.7 (Silver Guard Agents on Relics) and §1.7 (``discover_pick`` = MAP block in
``map_order``; the Harbor refill is a ``target`` decision over the ROUTE block).

Layout (design §3): four Routes R1..R4 (left to right) of three rows each, row 0 nearest the City
(+0 Strength), row 1 (+1), row 2 (+2); one shared bottom space, the Harbor ``H`` (+0), which
belongs to no Route; with the Mariners' Union in the game four Extension slots ``E1..E4`` above
row 2 (cost value + 3, the Mariners value - 1, min 0), filled only by the Mariners' ``extend``.

The face-up cards are a :class:`MapState` (named apart from the content module's ``RelicMap``
spec record): one entry per space in :data:`MAP_ORDER` (``H, R1.0, R1.1, R1.2,
R2.0, ..., R4.2, E1..E4``), a Relic id or ``None``. A deck is a sequence of Relic ids whose **top
is index 0**. Tokens on Map Relics (Silver Guard Agents, Twilight Chaos) are keyed by Relic id,
because they stay on their card when it slides down (design §3 refill step 2).

Reading used here (design §3 does not say it in so many words): an Extension slot ``E{r}`` counts
as Route ``R{r}`` for route Chaos, exactly as it does for Route payouts and Nemesis target routes
("R1..R4 include that Route's Extension slot"); the Harbor never counts.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

import numpy as np

DATA_PATH = Path(__file__).with_name("data") / "clandestine_content.json"

#: Routes, left to right (design §3).
ROUTES: tuple[str, ...] = ("R1", "R2", "R3", "R4")
#: Extra Strength cost of rows 0, 1, 2 of a Route (design §3, ``relic_map.rows``).
ROW_EXTRA: tuple[int, ...] = (0, 1, 2)
#: The shared bottom space (ruling 7); extra cost 0, no Route.
HARBOR = "H"
#: Extension slots above row 2 (design §5.2); ``E{r}`` sits on Route ``R{r}``.
EXTENSION_SLOTS: tuple[str, ...] = ("E1", "E2", "E3", "E4")
#: Extension extra cost for everyone but the Mariners, and for the Mariners (design §5.2).
EXTENSION_EXTRA = 3
EXTENSION_EXTRA_MARINERS = -1
#: Map spaces in canonical order (design §3 ``relic_map.map_order``; the MAP action block).
MAP_ORDER: tuple[str, ...] = (HARBOR,) + tuple(
    f"{r}.{row}" for r in ROUTES for row in range(len(ROW_EXTRA))) + EXTENSION_SLOTS
#: Space -> index in :data:`MAP_ORDER`.
MAP_INDEX: dict[str, int] = {s: i for i, s in enumerate(MAP_ORDER)}
NUM_SPACES = len(MAP_ORDER)  # 17
#: Spaces filled at setup and refilled from the deck: H then R1..R4 bottom to top (13 cards).
SETUP_ORDER: tuple[str, ...] = MAP_ORDER[:1 + len(ROUTES) * len(ROW_EXTRA)]
CARDS_ON_MAP = len(SETUP_ORDER)  # 13

__all__ = [
    "ROUTES", "ROW_EXTRA", "HARBOR", "EXTENSION_SLOTS", "EXTENSION_EXTRA",
    "EXTENSION_EXTRA_MARINERS", "MAP_ORDER", "MAP_INDEX", "NUM_SPACES", "SETUP_ORDER",
    "CARDS_ON_MAP", "MapState", "RefillResult", "DiscoverPurchase", "space_route", "space_row",
    "space_extra", "relic_cost", "map_costs", "routes_used", "route_chaos", "setup_map",
    "acquire", "harbor_choices", "refill_end_of_turn", "extension_targets",
    "reveal_to_extension", "relic_values", "draw_from_deck",
]


# ------------------------------------------------------------------------------ data check
@functools.cache
def _data() -> dict:
    with open(DATA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


@functools.cache
def _map_section() -> dict:
    """The JSON ``relic_map`` section, checked against this module's constants (ValueError)."""
    m = _data().get("relic_map")
    if not isinstance(m, dict):
        raise ValueError(f"{DATA_PATH.name}: key 'relic_map' missing or not an object")
    checks = {
        "relic_map.routes": (tuple(m.get("routes", ())), ROUTES),
        "relic_map.rows[].extra": (tuple(r.get("extra") for r in m.get("rows", ())), ROW_EXTRA),
        "relic_map.harbor.id": (m.get("harbor", {}).get("id"), HARBOR),
        "relic_map.harbor.extra": (m.get("harbor", {}).get("extra"), 0),
        "relic_map.extension.slots": (tuple(m.get("extension", {}).get("slots", ())),
                                      EXTENSION_SLOTS),
        "relic_map.extension.extra_opponents": (m.get("extension", {}).get("extra_opponents"),
                                                EXTENSION_EXTRA),
        "relic_map.extension.extra_mariners": (m.get("extension", {}).get("extra_mariners"),
                                               EXTENSION_EXTRA_MARINERS),
        "relic_map.map_order": (tuple(m.get("map_order", ())), MAP_ORDER),
        "relic_map.cards_on_map": (m.get("cards_on_map"), CARDS_ON_MAP),
    }
    for key, (got, want) in checks.items():
        if got != want:
            raise ValueError(f"{DATA_PATH.name}: {key} is {got!r}, the Relic Map rules expect "
                             f"{want!r}")
    return m


_map_section()  # fail at import if the packaged data and the rules disagree


@functools.cache
def relic_values() -> dict[str, int]:
    """Relic id -> printed value (Strength needed to acquire), from the packaged JSON ``relics``
    (design §7). A convenience for callers and tests; the rules functions take values as input."""
    return {r["id"]: int(r["value"]) for r in _data()["relics"]}


# ------------------------------------------------------------------------------ spaces
def _check_space(space: str) -> None:
    if space not in MAP_INDEX:
        raise ValueError(f"unknown Relic Map space {space!r}; spaces are {', '.join(MAP_ORDER)}")


def space_route(space: str) -> str | None:
    """The Route of a Map space: ``'R2.1' -> 'R2'``, ``'E3' -> 'R3'``, the Harbor -> ``None``
    (ruling 7: the Harbor belongs to no Route). Raises ValueError for an unknown space."""
    _check_space(space)
    if space == HARBOR:
        return None
    if space in EXTENSION_SLOTS:
        return "R" + space[1:]
    return space.split(".")[0]


def space_row(space: str) -> int | None:
    """Row of a Map space: 0..2 for Route rows, 3 for an Extension slot, ``None`` for the Harbor
    (design §3). Raises ValueError for an unknown space."""
    _check_space(space)
    if space == HARBOR:
        return None
    if space in EXTENSION_SLOTS:
        return 3
    return int(space.split(".")[1])


def space_extra(space: str, *, buyer_mariners: bool = False) -> int:
    """Extra Strength a Relic on ``space`` costs on top of its value (design §3): Harbor 0, row
    0/1/2 -> 0/1/2, Extension slot +3, or -1 when the Mariners' Union acquires (§5.2)."""
    _check_space(space)
    if space == HARBOR:
        return 0
    if space in EXTENSION_SLOTS:
        return EXTENSION_EXTRA_MARINERS if buyer_mariners else EXTENSION_EXTRA
    return ROW_EXTRA[int(space.split(".")[1])]


def _nonneg_int(name: str, x) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {x!r}")
    return int(x)


def relic_cost(space: str, value: int, *, agents: int = 0, masks_chaos: int = 0,
               buyer_masks: bool = False, buyer_mariners: bool = False) -> int:
    """Strength needed to acquire a Relic of printed ``value`` on Map ``space`` (design §3).

    cost = value + :func:`space_extra` + 1 per Silver Guard Agent on the card (§10.7) + the
    Twilight Chaos on the card, which the Twilight Masks subtract instead (§5.4); the result is
    at least 0 (only the Masks' discount and the Mariners' Extension price can reach 0).
    ``buyer_masks``/``buyer_mariners`` say whether the acquiring Society is the Twilight Masks or
    the Mariners' Union (at most one of them). Returns an int >= 0; ValueError on bad input.
    """
    value = _nonneg_int("value", value)
    agents = _nonneg_int("agents", agents)
    masks_chaos = _nonneg_int("masks_chaos", masks_chaos)
    if buyer_masks and buyer_mariners:
        raise ValueError("a buyer cannot be both the Twilight Masks and the Mariners' Union")
    cost = value + space_extra(space, buyer_mariners=buyer_mariners) + agents
    cost += -masks_chaos if buyer_masks else masks_chaos
    return max(0, cost)


# ------------------------------------------------------------------------------ the Map
@dataclass(frozen=True)
class MapState:
    """The face-up Relics on the Map: ``cards[i]`` is the Relic id on space ``MAP_ORDER[i]`` or
    ``None`` (empty). Immutable; operations return new maps. Raises ValueError if the tuple does
    not have 17 entries or a Relic id appears twice."""

    cards: tuple[str | None, ...] = (None,) * NUM_SPACES

    def __post_init__(self):
        if not isinstance(self.cards, tuple) or len(self.cards) != NUM_SPACES:
            raise ValueError(f"MapState.cards must be a tuple of {NUM_SPACES} entries (one per "
                             f"space of MAP_ORDER), got {self.cards!r}")
        ids = [c for c in self.cards if c is not None]
        if len(ids) != len(set(ids)):
            dup = sorted({c for c in ids if ids.count(c) > 1})
            raise ValueError(f"Relic(s) {dup} on more than one Map space")

    @classmethod
    def from_spaces(cls, spaces: Mapping[str, str | None]) -> "MapState":
        """Build a Map from ``{space: relic_id}`` (missing spaces are empty)."""
        for s in spaces:
            _check_space(s)
        return cls(tuple(spaces.get(s) for s in MAP_ORDER))

    def __getitem__(self, space: str) -> str | None:
        _check_space(space)
        return self.cards[MAP_INDEX[space]]

    def with_cards(self, changes: Mapping[str, str | None]) -> "MapState":
        """A copy with the given spaces set (a Relic id, or ``None`` to empty the space)."""
        cards = list(self.cards)
        for s, c in changes.items():
            _check_space(s)
            cards[MAP_INDEX[s]] = c
        return MapState(tuple(cards))

    def as_dict(self) -> dict[str, str]:
        """``{space: relic_id}`` for the occupied spaces, in :data:`MAP_ORDER`."""
        return {s: c for s, c in zip(MAP_ORDER, self.cards) if c is not None}

    def occupied(self) -> tuple[str, ...]:
        """Occupied spaces in :data:`MAP_ORDER`."""
        return tuple(s for s, c in zip(MAP_ORDER, self.cards) if c is not None)

    def __len__(self) -> int:
        """Number of face-up Relics on the Map."""
        return sum(c is not None for c in self.cards)


def map_costs(relic_map: MapState, values: Mapping[str, int], *,
              agents: Mapping[str, int] | None = None,
              masks_chaos: Mapping[str, int] | None = None,
              buyer_masks: bool = False, buyer_mariners: bool = False) -> tuple[int | None, ...]:
    """Cost of every Map space for one buyer, in :data:`MAP_ORDER` (``None`` = empty space).

    ``values``: Relic id -> printed value (e.g. :func:`relic_values`); ``agents`` and
    ``masks_chaos``: Relic id -> tokens on that card (default none). See :func:`relic_cost`.
    ValueError if a Relic on the Map has no value.
    """
    agents = agents or {}
    masks_chaos = masks_chaos or {}
    out: list[int | None] = []
    for space, card in zip(MAP_ORDER, relic_map.cards):
        if card is None:
            out.append(None)
            continue
        if card not in values:
            raise ValueError(f"no value given for Relic {card!r} on Map space {space}")
        out.append(relic_cost(space, values[card], agents=agents.get(card, 0),
                              masks_chaos=masks_chaos.get(card, 0), buyer_masks=buyer_masks,
                              buyer_mariners=buyer_mariners))
    return tuple(out)


def routes_used(spaces: Sequence[str]) -> tuple[str, ...]:
    """Distinct Routes (in R1..R4 order) of the given Map spaces; the Harbor adds none
    (ruling 7), an Extension slot counts as its Route (module docstring)."""
    rs = {space_route(s) for s in spaces}
    return tuple(r for r in ROUTES if r in rs)


def route_chaos(spaces: Sequence[str], *, buyer_mariners: bool = False,
                free_routes: int = 0) -> int:
    """Chaos gained for the Routes acquired from in one Discover Action (rulebook "Acquiring
    Relics": 1 Chaos per Route beyond the first; design §3).

    The first Route is free; the Mariners' Union's first two (chartered routes, §5.2); each
    ``free_routes`` eye mod adds one more free Route (R040 Clockwork Owl, ``dsl.mods``). The
    Harbor is no Route. Returns ``max(0, routes - free)``.
    """
    free_routes = _nonneg_int("free_routes", free_routes)
    free = 1 + (1 if buyer_mariners else 0) + free_routes
    return max(0, len(routes_used(spaces)) - free)


# ------------------------------------------------------------------------------ Discover
@dataclass(frozen=True)
class DiscoverPurchase:
    """One Discover Action's acquisition, a sequence of Map picks within a Strength budget
    (rulebook "Discover": Relics with total value up to your Strength; design §1.3 step 5,
    §1.7 ``discover_pick``: MAP picks masked by the remaining budget, PASS stops).

    ``strength``: the Action's Strength (negative is floored at 0: design §1.3 step 5 floors
    Strength once, at the formula). ``costs``: :func:`map_costs` for this buyer, fixed for the
    whole Action (nothing on the Map changes between picks). ``picks``: spaces taken so far.
    Immutable; :meth:`pick` returns the next state.
    """

    strength: int
    costs: tuple[int | None, ...]
    picks: tuple[str, ...] = ()

    def __post_init__(self):
        if isinstance(self.strength, bool) or not isinstance(self.strength, (int, np.integer)):
            raise ValueError(f"strength must be an integer, got {self.strength!r}")
        if len(self.costs) != NUM_SPACES:
            raise ValueError(f"costs must have {NUM_SPACES} entries (MAP_ORDER), got "
                             f"{len(self.costs)}")
        for s in self.picks:
            _check_space(s)
            if self.costs[MAP_INDEX[s]] is None:
                raise ValueError(f"pick {s} is an empty Map space")
        if len(set(self.picks)) != len(self.picks):
            raise ValueError(f"a Map space was picked twice: {self.picks}")
        if self.spent > self.budget:
            raise ValueError(f"picks {self.picks} cost {self.spent} > Strength {self.budget}")

    @property
    def budget(self) -> int:
        """Strength available for the whole Action (floored at 0)."""
        return max(0, int(self.strength))

    @property
    def spent(self) -> int:
        """Total cost of the picks so far."""
        return sum(self.costs[MAP_INDEX[s]] for s in self.picks)

    @property
    def remaining(self) -> int:
        """Strength left for further picks."""
        return self.budget - self.spent

    def legal_picks(self) -> tuple[str, ...]:
        """Spaces that can be picked now: occupied, not yet picked, cost <= remaining budget
        (in :data:`MAP_ORDER`). Empty when the purchase must stop."""
        rem = self.remaining
        return tuple(s for s, c in zip(MAP_ORDER, self.costs)
                     if c is not None and c <= rem and s not in self.picks)

    def mask(self) -> np.ndarray:
        """bool array of shape (17,), True at the :data:`MAP_ORDER` index of each legal pick
        (the MAP block of the ``discover_pick`` decision; PASS is always legal besides)."""
        m = np.zeros(NUM_SPACES, dtype=bool)
        for s in self.legal_picks():
            m[MAP_INDEX[s]] = True
        return m

    def pick(self, space: str) -> "DiscoverPurchase":
        """Take the Relic on ``space``. ValueError naming the reason if it is empty, already
        taken, or costs more than the remaining budget."""
        _check_space(space)
        cost = self.costs[MAP_INDEX[space]]
        if cost is None:
            raise ValueError(f"cannot pick {space}: the Map space is empty")
        if space in self.picks:
            raise ValueError(f"cannot pick {space}: already taken in this Discover")
        if cost > self.remaining:
            raise ValueError(f"cannot pick {space}: costs {cost}, only {self.remaining} "
                             f"Strength left")
        return DiscoverPurchase(self.strength, self.costs, self.picks + (space,))

    def routes(self) -> tuple[str, ...]:
        """Routes acquired from so far (:func:`routes_used`)."""
        return routes_used(self.picks)

    def chaos(self, *, buyer_mariners: bool = False, free_routes: int = 0) -> int:
        """Route Chaos for the picks (:func:`route_chaos`)."""
        return route_chaos(self.picks, buyer_mariners=buyer_mariners, free_routes=free_routes)

    def took_extension(self) -> bool:
        """Whether a Relic was taken from an Extension slot (the Mariners' port dues then add
        1 Energy, design §5.2)."""
        return any(s in EXTENSION_SLOTS for s in self.picks)


def acquire(relic_map: MapState, spaces: Sequence[str]) -> tuple[MapState, tuple[str, ...]]:
    """Remove the Relics on ``spaces`` from the Map; returns ``(new_map, relic_ids)`` in the
    given order (they go to the acquirer's hand). ValueError for an empty or repeated space."""
    if len(set(spaces)) != len(spaces):
        raise ValueError(f"a Map space is listed twice: {tuple(spaces)}")
    cards = []
    for s in spaces:
        c = relic_map[s]
        if c is None:
            raise ValueError(f"cannot acquire from {s}: the Map space is empty")
        cards.append(c)
    return relic_map.with_cards({s: None for s in spaces}), tuple(cards)


# ------------------------------------------------------------------------------ setup / refill
class RefillResult(NamedTuple):
    """Outcome of a Map fill from the deck.

    ``relic_map``: the new Map; ``deck``: the rest of the deck (top = index 0); ``revealed``:
    ``(space, relic_id)`` pairs in the order the cards were drawn; ``deck_emptied``: True when
    this fill took the last card of the deck (the end of the game is triggered at that moment:
    rulebook "The End", design §3 refill step 4, ruling 18).
    """

    relic_map: MapState
    deck: tuple[str, ...]
    revealed: tuple[tuple[str, str], ...]
    deck_emptied: bool


def _deck(deck: Sequence[str]) -> tuple[str, ...]:
    deck = tuple(deck)
    if len(set(deck)) != len(deck):
        raise ValueError("the Relic deck holds a Relic id twice")
    return deck


def setup_map(deck: Sequence[str]) -> RefillResult:
    """Fill an empty Map at setup (design §1.1 step 5, §3 Setup): the Harbor, then R1..R4 bottom
    to top, 13 cards from the top of ``deck``. ValueError if the deck holds fewer than 13."""
    deck = _deck(deck)
    if len(deck) < CARDS_ON_MAP:
        raise ValueError(f"setting up the Relic Map needs {CARDS_ON_MAP} Relics, the deck holds "
                         f"{len(deck)}")
    revealed = tuple(zip(SETUP_ORDER, deck[:CARDS_ON_MAP]))
    rest = deck[CARDS_ON_MAP:]
    return RefillResult(MapState.from_spaces(dict(revealed)), rest, revealed, len(rest) == 0)


def harbor_choices(relic_map: MapState) -> tuple[str, ...]:
    """Routes the current player may move into an empty Harbor (design §3 refill step 1, ruling
    7): those whose row 0 holds a card, in R1..R4 order. Empty when the Harbor is occupied or no
    row 0 holds a card. A Nemesis takes the first (lowest-numbered) one."""
    if relic_map[HARBOR] is not None:
        return ()
    return tuple(r for r in ROUTES if relic_map[f"{r}.0"] is not None)


def refill_end_of_turn(relic_map: MapState, deck: Sequence[str],
                       harbor_route: str | None = None) -> RefillResult:
    """End-of-turn refill of the Relic Map (rulebook "Acquiring Relics"; design §3 refill, §1.2
    END step 1).

    1. If the Harbor is empty and some Route's row 0 holds a card, ``harbor_route`` (the current
       player's choice, one of :func:`harbor_choices`) moves that card into the Harbor.
    2. In every Route the cards slide down, keeping their order, to fill empty rows 0-2; an
       Extension card slides down with its Route (and then costs the normal row price, §5.2).
    3. From the top of the deck: the Harbor first if still empty, then R1..R4, bottom to top,
       rows 0-2 only (Extension slots are never refilled from the deck).
    4. ``deck_emptied`` reports that the last card left the deck (end trigger). With an empty
       deck the remaining spaces stay empty.

    ``harbor_route`` must be given exactly when :func:`harbor_choices` is non-empty; otherwise
    ValueError names the legal choices.
    """
    deck = _deck(deck)
    choices = harbor_choices(relic_map)
    if choices:
        if harbor_route not in choices:
            raise ValueError(f"the Harbor is empty: harbor_route must be one of {choices}, got "
                             f"{harbor_route!r}")
    elif harbor_route is not None:
        why = "occupied" if relic_map[HARBOR] is not None else "empty but no row 0 holds a card"
        raise ValueError(f"harbor_route must be None: the Harbor is {why}")
    spaces = relic_map.as_dict()
    if harbor_route is not None:
        spaces[HARBOR] = spaces.pop(f"{harbor_route}.0")
    # step 2: slide down within each Route (rows 0..2, then its Extension slot on top)
    for i, r in enumerate(ROUTES):
        column = [f"{r}.{row}" for row in range(len(ROW_EXTRA))] + [EXTENSION_SLOTS[i]]
        stack = [spaces.pop(s) for s in column if s in spaces]
        for s, c in zip(column, stack):
            spaces[s] = c
    # step 3: refill from the deck
    revealed: list[tuple[str, str]] = []
    pos = 0
    for s in SETUP_ORDER:
        if s not in spaces and pos < len(deck):
            spaces[s] = deck[pos]
            revealed.append((s, deck[pos]))
            pos += 1
    rest = deck[pos:]
    return RefillResult(MapState.from_spaces(spaces), rest, tuple(revealed),
                        pos > 0 and len(rest) == 0)


def draw_from_deck(deck: Sequence[str], n: int) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """Blind draw of up to ``n`` Relics from the top of the deck (``draw_relic`` effects, Starts
    With): returns ``(drawn, rest, deck_emptied)``. With too few cards, draws what is left (ruling
    25); ``deck_emptied`` is True when this draw took the last card (end trigger, ruling 18)."""
    deck = _deck(deck)
    n = _nonneg_int("n", n)
    drawn, rest = deck[:n], deck[n:]
    return drawn, rest, bool(drawn) and not rest


def extension_targets(relic_map: MapState) -> tuple[str, ...]:
    """Empty Extension slots, E1..E4 order: where the Mariners' ``extend`` may reveal a card
    (design §5.2, ``dsl.ops.extend``; the ``target`` decision)."""
    return tuple(s for s in EXTENSION_SLOTS if relic_map[s] is None)


def reveal_to_extension(relic_map: MapState, deck: Sequence[str], slot: str) -> RefillResult:
    """One step of the Mariners' ``extend``: reveal the top card of the deck into the empty
    Extension ``slot`` (design §5.2). With an empty deck nothing happens (ruling 25: do as much
    as possible). ``deck_emptied`` is True if this took the last card (end trigger).
    ValueError if ``slot`` is not an empty Extension slot."""
    deck = _deck(deck)
    if slot not in EXTENSION_SLOTS:
        raise ValueError(f"{slot!r} is not an Extension slot; they are {EXTENSION_SLOTS}")
    if relic_map[slot] is not None:
        raise ValueError(f"Extension slot {slot} already holds {relic_map[slot]}")
    if not deck:
        return RefillResult(relic_map, deck, (), False)
    return RefillResult(relic_map.with_cards({slot: deck[0]}), deck[1:], ((slot, deck[0]),),
                        len(deck) == 1)
