"""Clandestine pawns: the pawn-count store, Strength, initial placement and every way pawns move.

Rule sources: rulebook "Pawns and Strength", "Moving Pawns" (and Mason's example), "Purge",
"Regroup", the Blue Army's "Revolt", "Setup" step 4; design ``clandestine_content.md`` §1.3
(Purge, Regroup), §1.7 (decision kinds ``placement_type``, ``uf_route``, ``purge_destination``,
``distance``), §2.3 (initial pawns), §2.4 (moving pawns, two cursors) and the JSON
``constants.pawn_strength``, ``city.initial_placement_human``, ``procedures.movement``.

Pawn types (index = the PAWN block of design §1.7): :data:`PL` Public Leader, :data:`PF` Public
Follower, :data:`UF` Universal Follower, :data:`SL` Society Leader. Pawns of one type on one
space are interchangeable, so the City's pawns are a count per (space, type)
(:class:`PawnStore`). A Society Leader can only stand on its owner's Society path, and every
Sidewalk and Chamber lies on exactly one Society path, so the ``SL`` count of a space always
belongs to the space's owner (``City.seat_of``).

Where pawns may stand (rulebook "Pawns and Strength"): Public Leaders and Public Followers on
the Public path only (connectors and Sidewalks), Society Leaders on their own Society path only
(Sidewalks and Chambers of their seat), Universal Followers anywhere.

Not here (left to the Nemesis rules, design §2.4 steps 6-7): Silver Guard Cells and the Most
Holy's Choir.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .city import (CHAMBER, CONNECTOR, LOCAL_NAMES, S1, SOCIETY_PATH_LENGTH, SPACES_PER_SEAT, City,
                   city_data, load_content)

#: Pawn type codes (design §1.7 PAWN block order) and their short names.
PL, PF, UF, SL = range(4)
PAWN_CODES: tuple[str, ...] = ("pl", "pf", "uf", "sl")
NUM_PAWN_TYPES = 4
_STRENGTH_KEYS = ("public_leader", "public_follower", "universal_follower", "society_leader")
#: Strength of one pawn of each type, int64 (4,) (JSON ``constants.pawn_strength``).
PAWN_STRENGTH = np.array([load_content()["constants"]["pawn_strength"][k] for k in _STRENGTH_KEYS],
                         dtype=np.int64)
PAWN_STRENGTH.setflags(write=False)
LEADERS = (PL, SL)
FOLLOWERS = (PF, UF)

#: Routes of a moving pawn.
PUBLIC, SOCIETY = 0, 1
ROUTE_NAMES = ("public", "society")
#: ``uf_route`` options (design §1.7): follow the Society Leader, or stay on the Public path.
UF_FOLLOW, UF_STAY = 0, 1
#: ``purge_destination`` options (design §1.7): the seat's C1, or the Public space after its S3.
PURGE_TO_C1, PURGE_TO_PUBLIC = 0, 1


def pawn_type(p: int | str) -> int:
    """Pawn type code of ``p`` (0..3 or ``"pl"``, ``"pf"``, ``"uf"``, ``"sl"``).

    Raises:
        ValueError: anything else.
    """
    if isinstance(p, str):
        if p not in PAWN_CODES:
            raise ValueError(f"unknown pawn type {p!r}; expected one of {PAWN_CODES}")
        return PAWN_CODES.index(p)
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)) or not 0 <= p < 4:
        raise ValueError(f"pawn type must be 0..3 (pl, pf, uf, sl) or its name, got {p!r}")
    return int(p)


def may_occupy(city: City, space: int, ptype: int) -> bool:
    """Whether a pawn of type ``ptype`` may stand on ``space`` (rulebook "Pawns and Strength")."""
    kind = city.kind_code[space]
    if ptype in (PL, PF):
        return kind != CHAMBER
    if ptype == SL:
        return kind != CONNECTOR
    return True


class PawnStore:
    """Pawn counts of the City: ``counts[space, type]``, int16 of shape (9 N, 4).

    Mutable and cheap to copy (one numpy copy). Column ``SL`` counts the Society Leaders of the
    space's owner. The store knows nothing of the City; methods that check where a pawn may
    stand take the :class:`~envs.clandestine.city.City`.
    """

    __slots__ = ("counts",)

    def __init__(self, counts: np.ndarray):
        counts = np.asarray(counts)
        if counts.ndim != 2 or counts.shape[1] != NUM_PAWN_TYPES or counts.shape[0] % 9:
            raise ValueError(f"pawn counts must have shape (9 N, 4), got {counts.shape}")
        if (counts < 0).any():
            raise ValueError("pawn counts must be non-negative")
        self.counts = counts.astype(np.int16, copy=True)

    @classmethod
    def empty(cls, city: City) -> "PawnStore":
        """A store with no pawn on any of ``city``'s spaces."""
        return cls(np.zeros((city.num_spaces, NUM_PAWN_TYPES), dtype=np.int16))

    def copy(self) -> "PawnStore":
        """An independent copy."""
        new = PawnStore.__new__(PawnStore)
        new.counts = self.counts.copy()
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PawnStore) and np.array_equal(self.counts, other.counts)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"PawnStore({int(self.counts.sum())} pawns on {self.counts.shape[0]} spaces)"

    def count(self, space: int, ptype: int) -> int:
        """Number of pawns of ``ptype`` on ``space``."""
        return int(self.counts[space, ptype])

    def strength(self, space: int) -> int:
        """Strength of the pawns on ``space``: Leaders 2, Followers 1, every pawn counted
        (other players' Society Leaders included; rulebook "Strength", design §1.3 step 1)."""
        return int(self.counts[space] @ PAWN_STRENGTH)

    def totals(self) -> np.ndarray:
        """Pawns of each type in the City, int64 (4,)."""
        return self.counts.sum(axis=0, dtype=np.int64)

    def society_leaders_of(self, city: City, seat: int) -> int:
        """Number of ``seat``'s Society Leaders in the City."""
        return int(self.counts[np.asarray(city.society_path(seat)), SL].sum())

    def add(self, city: City, space: int, ptype: int, n: int = 1) -> None:
        """Put ``n`` pawns of ``ptype`` on ``space`` (from the supply or a tableau).

        Raises:
            ValueError: ``n`` < 0, or the type may not stand on the space.
        """
        space, ptype = city.space(space), pawn_type(ptype)
        if n < 0:
            raise ValueError(f"cannot add {n} pawns")
        if not may_occupy(city, space, ptype):
            raise ValueError(f"a {PAWN_CODES[ptype]} may not stand on {city.space_ids[space]} "
                             f"({city.kind(space)})")
        self.counts[space, ptype] += n

    def remove(self, city: City, space: int, ptype: int, n: int = 1) -> None:
        """Take ``n`` pawns of ``ptype`` off ``space``.

        Raises:
            ValueError: ``n`` < 0 or fewer than ``n`` such pawns on the space.
        """
        space, ptype = city.space(space), pawn_type(ptype)
        if n < 0 or self.counts[space, ptype] < n:
            raise ValueError(f"cannot remove {n} {PAWN_CODES[ptype]} from {city.space_ids[space]}: "
                             f"it holds {int(self.counts[space, ptype])}")
        self.counts[space, ptype] -= n

    def as_lists(self, city: City) -> dict[str, list[str]]:
        """``{space id: pawn codes}`` with Society Leaders written ``sl{seat}`` (the form of
        ``city.example_3p.pawns``); codes in the order pl, pf, uf, sl, repeated per pawn."""
        out = {}
        for s, sid in enumerate(city.space_ids):
            codes = []
            for t in range(NUM_PAWN_TYPES):
                code = f"sl{int(city.seat_of[s])}" if t == SL else PAWN_CODES[t]
                codes += [code] * int(self.counts[s, t])
            out[sid] = codes
        return out

    def violations(self, city: City) -> list[str]:
        """Every pawn standing where its type may not (empty list when the store is sound)."""
        bad = []
        for s, t in zip(*np.nonzero(self.counts)):
            if not may_occupy(city, int(s), int(t)):
                bad.append(f"{int(self.counts[s, t])} {PAWN_CODES[t]} on {city.space_ids[s]}")
        if (self.counts < 0).any():
            bad.append("negative counts")
        return bad


def initial_pawns(city: City) -> PawnStore:
    """The City populated for the start of the game (rulebook "Setup" step 4; design §2.3).

    Per seat, on its path and the connector to its right: ``city.initial_placement_human``;
    a Society whose Starts With has ``uf_on_S1`` (the Blue Army) adds that many Universal
    Followers on its S1. A Nemesis seat places the same public pawns and S2 Universal Follower,
    and its Chambers follow ``nemesis.<id>.setup_pawns.chambers``.
    """
    content = load_content()
    placement = city_data()["initial_placement_human"]
    store = PawnStore.empty(city)
    for seat in range(city.num_paths):
        sid = city.seats[seat]
        nemesis = sid is not None and sid not in content["societies"]
        chambers = content["nemesis"][sid]["setup_pawns"]["chambers"] if nemesis else None
        for local, name in enumerate(LOCAL_NAMES):
            codes = placement[name]
            if nemesis and local >= SPACES_PER_SEAT - 4:
                codes = chambers.get(name, [])
            for code in codes:
                store.add(city, SPACES_PER_SEAT * seat + local, pawn_type(code))
        if sid is not None and not nemesis:
            extra = int(content["societies"][sid].get("starts_with", {}).get("uf_on_S1", 0))
            store.add(city, SPACES_PER_SEAT * seat + S1, UF, extra)
    return store


def leader_choices(city: City, store: PawnStore, seat: int) -> list[tuple[int, int]]:
    """``(space, leader type)`` pairs ``seat`` may act with (rulebook "Turns"):
    every Public Leader on the Public path and ``seat``'s Society Leaders; space order."""
    out = []
    path = set(city.society_path(seat))
    for s in np.flatnonzero(store.counts[:, PL] | store.counts[:, SL]):
        s = int(s)
        if store.counts[s, PL]:
            out.append((s, PL))
        if store.counts[s, SL] and s in path:
            out.append((s, SL))
    return out


# ---------------------------------------------------------------------------- Action movement
class Decision(NamedTuple):
    """A choice a movement is waiting for: ``kind`` (design §1.7 decision kind) and the legal
    ``options`` (pawn type codes for ``placement_type``; ``UF_FOLLOW``/``UF_STAY`` for
    ``uf_route``)."""

    kind: str
    options: tuple[int, ...]


@dataclass
class Movement:
    """The pawns of one Action's space being moved (design §2.4, ``procedures.movement``).

    Created by :func:`start_movement`, which picks the pawns up and places every pawn whose
    placement needs no choice. While :meth:`pending` returns a :class:`Decision`, the acting
    seat chooses with :meth:`choose`; when it returns ``None`` every pawn is placed.

    Attributes:
        city: the City (shared, immutable).
        space: the Action's space. actor: the acting seat. leader: ``PL`` or ``SL``, the kind of
            the acting Leader. automatic: Nemesis order (Public before Universal Followers,
            Public before Society Leaders; Universal Followers always follow).
        strength: Strength of the space's pawns before the pick-up (design §1.3 step 1).
        in_hand: pawns picked up and not yet placed, per type (list of 4 ints).
        cursors: ``[public cursor, society cursor]`` (space numbers).
        uf_chosen: a Universal Follower is the next pawn and waits for its route.
        placements: ``(type, space)`` of every pawn placed so far, in order (a Follower
            trapped in a Cell is listed with ``-1 - space``).
        cells: the Silver Guard's unlocked Cells, ``space -> contents`` (pawn type or -1 per
            Cell; rulebook "The Vaults"): after a Follower is placed on such a space, each next
            Follower that would leave it is trapped in an empty Cell of it (design §2.4
            ``procedures.movement``); ``None`` without a Silver Guard.
    """

    city: City
    space: int
    actor: int
    leader: int
    automatic: bool
    strength: int
    in_hand: list
    cursors: list
    uf_chosen: bool = False
    placements: list = field(default_factory=list)
    cells: dict | None = None

    def copy(self) -> "Movement":
        """An independent copy (the City and the Cells are shared)."""
        return Movement(self.city, self.space, self.actor, self.leader, self.automatic,
                        self.strength, list(self.in_hand), list(self.cursors), self.uf_chosen,
                        list(self.placements), self.cells)

    @property
    def done(self) -> bool:
        """Every pawn picked up has been placed."""
        return sum(self.in_hand) == 0

    def _next(self, route: int, cursors: list | tuple | None = None) -> int:
        cur = (self.cursors if cursors is None else cursors)[route]
        if route == PUBLIC:
            return self.city._public_next[cur]
        if not self.city.on_society_path(cur, self.actor):
            return -1
        return self.city._society_next[cur]

    def _group(self) -> tuple[int, ...]:
        """Types left in the group being placed: Followers first, then Leaders."""
        group = tuple(t for t in FOLLOWERS if self.in_hand[t])
        return group or tuple(t for t in LEADERS if self.in_hand[t])

    def _uf_route(self) -> int | None:
        """The forced route of the next Universal Follower, or ``None`` if it is a choice."""
        if self.leader == PL:
            return PUBLIC
        nxt_pub, nxt_soc = self._next(PUBLIC), self._next(SOCIETY)
        if nxt_pub == -1 or nxt_pub == nxt_soc or self.automatic:
            return SOCIETY
        return None

    def _cursor_step(self, cursors: tuple[int, int], route: int) -> tuple[int, tuple[int, int]]:
        """Where the next pawn on ``route`` goes from ``cursors``, and the cursors after it
        (design §2.4 step 4). In step (the other route's next space is that space too), or off
        its route (the Public cursor in a Chamber) while the pawn stands on its route, the other
        cursor moves there as well."""
        y = self._next(route, cursors)
        out = list(cursors)
        out[route] = y
        other = 1 - route
        nxt = self._next(other, cursors)
        if other == PUBLIC:
            on_other = self.city.is_public(y)
        else:
            on_other = self.city.on_society_path(y, self.actor)
        if nxt == y or (nxt == -1 and on_other):
            out[other] = y
        return y, (out[0], out[1])

    def _leader_finals(self, first: int) -> set:
        """Every end placement of the Leaders left (multisets of ``(type, space)``) reachable
        when ``first`` (``PL`` or ``SL``) is placed next: Public Leaders go along the Public
        path, Society Leaders along the actor's Society path (no Cell takes a Leader)."""
        finals: set = set()
        seen: set = set()
        routes = {PL: PUBLIC, SL: SOCIETY}

        def walk(left: tuple[int, int], cursors: tuple[int, int], placed: tuple) -> None:
            if (left, cursors, placed) in seen:
                return
            seen.add((left, cursors, placed))
            if left == (0, 0):
                finals.add(placed)
                return
            for i, t in enumerate(LEADERS):
                if left[i]:
                    y, nxt = self._cursor_step(cursors, routes[t])
                    walk((left[0] - (i == 0), left[1] - (i == 1)), nxt,
                         tuple(sorted(placed + ((t, y),))))

        i = LEADERS.index(first)
        y, cursors = self._cursor_step(tuple(self.cursors), routes[first])
        left = (self.in_hand[PL] - (i == 0), self.in_hand[SL] - (i == 1))
        walk(left, cursors, ((first, y),))
        return finals

    def _type_choice_due(self, group: tuple[int, ...]) -> bool:
        """Whether the actor is asked the type of the next pawn of ``group`` (design §2.4 step 3,
        rulebook "Moving Pawns": the order within Followers and within Leaders is the actor's
        choice). Not with the Nemesis's fixed order, and not where the order cannot change
        where the pawns end up: Public and Society Leaders go along different paths, and where
        the Leaders' end spaces reachable with a Public Leader next are those reachable with a
        Society Leader next, nothing is asked (the Society Leader goes first). The order of
        Followers is always asked: a Universal Follower can take the Public path the Public
        Followers take (or, forced onto the Society path, goes first while both paths are in
        step), so which type goes next changes where they end."""
        if len(group) != 2 or self.automatic:
            return False
        if group != LEADERS:
            return True
        return self._leader_finals(PL) != self._leader_finals(SL)

    def pending(self) -> Decision | None:
        """The decision due now, or ``None`` when the movement is complete."""
        if self.uf_chosen:
            return Decision("uf_route", (UF_FOLLOW, UF_STAY))
        group = self._group()
        if self._type_choice_due(group):
            return Decision("placement_type", group)
        return None

    def choose(self, store: PawnStore, choice: int) -> None:
        """Apply one choice (the pawn type for ``placement_type``, ``UF_FOLLOW``/``UF_STAY`` for
        ``uf_route``), then place every pawn that needs no further choice.

        Raises:
            ValueError: no decision is due, or ``choice`` is not one of its options.
        """
        dec = self.pending()
        if dec is None:
            raise ValueError("the movement is complete: no placement choice is due")
        if isinstance(choice, (bool, np.bool_)) or not isinstance(choice, (int, np.integer)) \
                or choice not in dec.options:
            names = PAWN_CODES if dec.kind == "placement_type" else ("follow", "stay")
            raise ValueError(f"{dec.kind}: choice {choice!r} is not legal; legal: "
                             f"{[f'{o} ({names[o]})' for o in dec.options]}")
        if dec.kind == "uf_route":
            self.uf_chosen = False
            self._place(store, UF, SOCIETY if choice == UF_FOLLOW else PUBLIC)
        elif choice == UF:
            self.uf_chosen = True
        else:
            self._place(store, int(choice), SOCIETY if choice == SL else PUBLIC)
        self._advance(store)

    def _advance(self, store: PawnStore) -> None:
        while not self.done:
            if self.uf_chosen:
                route = self._uf_route()
                if route is None:
                    return
                self.uf_chosen = False
                self._place(store, UF, route)
                continue
            group = self._group()
            if self._type_choice_due(group):
                return
            # the only type left, the Nemesis's fixed order (PF before UF, PL before SL), or
            # Leaders whose order changes nothing (Society Leader first, as in the rulebook's
            # Mason example: the order of ``placements`` is all that differs)
            t = group[-1] if group == LEADERS and not self.automatic else group[0]
            if t == UF:
                self.uf_chosen = True
            else:
                self._place(store, t, SOCIETY if t == SL else PUBLIC)

    def _place(self, store: PawnStore, t: int, route: int) -> None:
        """Two-cursor placement (design §2.4 step 4); Silver Guard Cells trap Followers."""
        cur = self.cursors[route]
        if self.cells and t in FOLLOWERS and cur != self.space and cur in self.cells \
                and -1 in self.cells[cur]:
            # a Follower was placed on ``cur``: this one would leave it and is trapped
            cell = self.cells[cur]
            cell[cell.index(-1)] = t
            self.in_hand[t] -= 1
            self.placements.append((t, -1 - cur))
            return
        y = self._next(route)
        if y == -1:  # cannot happen for pawns picked up by start_movement
            raise RuntimeError(f"no next space on the {ROUTE_NAMES[route]} path from "
                               f"{self.city.space_ids[self.cursors[route]]}")
        store.counts[y, t] += 1
        self.in_hand[t] -= 1
        self.cursors = list(self._cursor_step(tuple(self.cursors), route)[1])
        self.placements.append((t, y))


def start_movement(city: City, store: PawnStore, space: int | str, leader: int | str,
                   actor: int, automatic: bool = False, cells: dict | None = None) -> Movement:
    """Pick up the pawns of ``space`` for an Action by ``actor``'s ``leader`` (design §2.4 step 1)
    and place every pawn that needs no choice.

    Picked up: every Public Leader, Public Follower and Universal Follower on the space, and the
    Society Leaders if the space is on ``actor``'s Society path (other players' Society Leaders
    stay). ``store`` is changed in place; pawns still in hand are in ``Movement.in_hand``.

    Args:
        leader: ``PL`` / ``"pl"`` or ``SL`` / ``"sl"``: the kind of Leader performing the Action.
        automatic: the Nemesis's fixed order and always-following Universal Followers.
        cells: the Silver Guard's unlocked Cells (:class:`Movement`); the Followers trapped in
            the Cells of ``space`` are picked up too and count for the Strength.

    Raises:
        ValueError: bad space, seat or leader; the space holds no such Leader the actor may use
            (a Society Leader must stand on the actor's own Society path).
    """
    space = city.space(space)
    city._check_seat(actor)
    leader = pawn_type(leader)
    if leader not in LEADERS:
        raise ValueError(f"an Action is performed by a Leader (pl or sl), not {PAWN_CODES[leader]}")
    own = city.on_society_path(space, actor)
    if store.counts[space, leader] == 0:
        raise ValueError(f"no {PAWN_CODES[leader]} on {city.space_ids[space]} to act with")
    if leader == SL and not own:
        raise ValueError(f"the Society Leader on {city.space_ids[space]} belongs to seat "
                         f"{int(city.seat_of[space])}, not to the acting seat {actor}")
    strength = store.strength(space)
    hand = [int(store.counts[space, t]) for t in range(NUM_PAWN_TYPES)]
    if not own:
        hand[SL] = 0
    for t in range(NUM_PAWN_TYPES):
        store.counts[space, t] -= hand[t]
    if cells and space in cells:  # Followers trapped in this space's Cells are used and moved
        cell = cells[space]
        for k, t in enumerate(cell):
            if t >= 0:
                hand[t] += 1
                strength += int(PAWN_STRENGTH[t])
                cell[k] = -1
    mv = Movement(city, space, actor, leader, automatic, strength, hand, [space, space],
                  cells=cells)
    mv._advance(store)
    return mv


def move_all(city: City, store: PawnStore, space: int | str, leader: int | str, actor: int,
             choices=()) -> Movement:
    """Run a whole movement, taking the choices from ``choices`` in order (a convenience for
    scripted positions and tests).

    Raises:
        ValueError: a choice is illegal, or ``choices`` has too few or too many entries.
    """
    mv = start_movement(city, store, space, leader, actor)
    it = iter(choices)
    while mv.pending() is not None:
        c = next(it, None)
        if c is None:
            raise ValueError(f"movement needs a {mv.pending().kind} choice; none left")
        mv.choose(store, c)
    left = list(it)
    if left:
        raise ValueError(f"movement complete with unused choices {left}")
    return mv


# ---------------------------------------------------------------------------- step-wise moves
def _check_distance(distance: int, limit: int, length: int, what: str) -> int:
    if isinstance(distance, (bool, np.bool_)) or not isinstance(distance, (int, np.integer)):
        raise ValueError(f"{what}: distance must be an integer, got {distance!r}")
    top = min(limit, length - 1)
    if not 0 <= distance <= top:
        raise ValueError(f"{what}: distance {distance} out of range 0..{top} "
                         f"(min(allowed {limit}, path length {length} - 1))")
    return int(distance)


def distance_limit(city: City, route: int, allowed: int) -> int:
    """Largest distance a step-wise move may ask for: ``min(allowed, path length - 1)``
    (design §1.7 DIST block: Public loop ``5 N - 1``, Society path 6).

    Raises:
        ValueError: ``allowed`` negative or a bad route.
    """
    if route not in (PUBLIC, SOCIETY):
        raise ValueError(f"route must be PUBLIC (0) or SOCIETY (1), got {route!r}")
    if allowed < 0:
        raise ValueError(f"allowed distance must be >= 0, got {allowed}")
    return min(int(allowed), (city.public_length if route == PUBLIC else SOCIETY_PATH_LENGTH) - 1)


def _present(store: PawnStore, spaces, types) -> list[tuple[int, int]]:
    return [(int(s), t) for s in spaces for t in types if store.counts[s, t]]


def regroup_candidates(city: City, store: PawnStore, seat: int,
                       leader: bool) -> list[tuple[int, int]]:
    """``(space, type)`` pawns a Regroup by ``seat`` may pick (design §1.3 Regroup): its Society
    Leaders (``leader=True``) or the Public/Universal Followers (``leader=False``) on its Society
    path, in path order."""
    return _present(store, city.society_path(seat), (SL,) if leader else FOLLOWERS)


def revolt_candidates(city: City, store: PawnStore, leader: bool) -> list[tuple[int, int]]:
    """``(space, type)`` pawns a Revolt may pick (``societies.blue.abilities.revolt``): Public
    Leaders (``leader=True``) or Public/Universal Followers on Public-path spaces, in loop
    order."""
    return _present(store, city.public_loop, (PL,) if leader else FOLLOWERS)


def purge_candidates(city: City, store: PawnStore, seat: int) -> list[tuple[int, int]]:
    """``(space, type)`` Followers a Purge by ``seat`` may pick: Public/Universal Followers on
    its Sidewalks (design §1.3 Purge)."""
    return _present(store, city.sidewalks(seat), FOLLOWERS)


def walk(city: City, space: int, route: int, distance: int, seat: int | None = None,
         backward: bool = False) -> int:
    """The space ``distance`` steps from ``space`` along a path, without moving anything.

    Args:
        route: ``PUBLIC`` or ``SOCIETY`` (``seat``'s Society path; ``seat`` required).
        backward: against the arrows (rulebook glossary "Backward").

    Raises:
        ValueError: ``space`` is not on that path, or ``distance`` is negative or not below the
            path's length (5 N on the Public path, 7 on a Society path).
    """
    if route == PUBLIC:
        if not city.is_public(space):
            raise ValueError(f"{city.space_ids[space]} is a Chamber, not on the Public path")
        nxt, length = (city.public_prev if backward else city.public_next), city.public_length
    elif route == SOCIETY:
        if seat is None or not city.on_society_path(space, seat):
            raise ValueError(f"{city.space_ids[space]} is not on seat {seat}'s Society path")
        nxt, length = (city.society_prev if backward else city.society_next), SOCIETY_PATH_LENGTH
    else:
        raise ValueError(f"route must be PUBLIC (0) or SOCIETY (1), got {route!r}")
    distance = _check_distance(distance, length - 1, length, "walk")
    for _ in range(distance):
        space = int(nxt[space])
    return int(space)


def move_pawn(city: City, store: PawnStore, space: int | str, ptype: int | str, distance: int,
              route: int, seat: int | None = None, limit: int | None = None,
              backward: bool = False) -> int:
    """Move one pawn ``distance`` spaces along ``route`` and return where it lands.

    Raises:
        ValueError: no such pawn on the space, its type may not use the route (Public Leaders
            and Followers never use a Society path into the Chambers: only Universal Followers
            and Society Leaders use ``SOCIETY``; Society Leaders never use ``PUBLIC``), or a bad
            distance (above ``limit`` or the path length - 1).
    """
    space, ptype = city.space(space), pawn_type(ptype)
    if store.counts[space, ptype] == 0:
        raise ValueError(f"no {PAWN_CODES[ptype]} on {city.space_ids[space]} to move")
    if route == SOCIETY and ptype in (PL, PF):
        raise ValueError(f"a {PAWN_CODES[ptype]} moves only along the Public path")
    if route == PUBLIC and ptype == SL:
        raise ValueError("a Society Leader moves only along its own Society path")
    length = city.public_length if route == PUBLIC else SOCIETY_PATH_LENGTH
    _check_distance(distance, length - 1 if limit is None else limit, length,
                    f"moving {PAWN_CODES[ptype]} from {city.space_ids[space]}")
    dest = walk(city, space, route, distance, seat, backward)
    store.counts[space, ptype] -= 1
    store.counts[dest, ptype] += 1
    return dest


def regroup_move(city: City, store: PawnStore, seat: int, space: int | str, ptype: int | str,
                 distance: int, strength: int) -> int:
    """One pawn of a Regroup (design §1.3 Regroup, rulebook "Regroup"): a pawn on ``seat``'s
    Society path moves forward 0..``strength`` spaces: Universal Followers and Society Leaders
    along the Society path, Public Followers along the Public path (never into the Chambers).
    Returns the destination.

    Raises:
        ValueError: the space is not on ``seat``'s Society path, the type is a Public Leader,
            no such pawn is there, or the distance is out of 0..min(strength, path length - 1).
    """
    space, ptype = city.space(space), pawn_type(ptype)
    if not city.on_society_path(space, seat):
        raise ValueError(f"Regroup: {city.space_ids[space]} is not on seat {seat}'s Society path")
    if ptype == PL:
        raise ValueError("Regroup moves a Society Leader or Public/Universal Followers, not a "
                         "Public Leader")
    route = PUBLIC if ptype == PF else SOCIETY
    return move_pawn(city, store, space, ptype, distance, route, seat, limit=strength)


def revolt_move(city: City, store: PawnStore, space: int | str, ptype: int | str, distance: int,
                strength: int) -> int:
    """One pawn of a Revolt (``societies.blue.abilities.revolt``): a Public Leader, Public
    Follower or Universal Follower on a Public-path space moves forward (clockwise) 0..
    ``strength`` spaces along the Public path. Returns the destination.

    Raises:
        ValueError: a Chamber, a Society Leader, no such pawn, or a bad distance.
    """
    space, ptype = city.space(space), pawn_type(ptype)
    if not city.is_public(space):
        raise ValueError(f"Revolt: {city.space_ids[space]} is a Chamber, not on the Public path")
    if ptype == SL:
        raise ValueError("Revolt moves a Public Leader or Public/Universal Followers, not a "
                         "Society Leader")
    return move_pawn(city, store, space, ptype, distance, PUBLIC, limit=strength)


def public_move(city: City, store: PawnStore, space: int | str, ptype: int | str, distance: int,
                limit: int, backward: bool = False) -> int:
    """One pawn of the effect-language ``move`` op (``dsl.ops.move``): a pl/pf/uf on a
    Public-path space moves 0..``limit`` spaces along the Public path, forward or (``dir =
    either``) backward. Returns the destination. Same errors as :func:`revolt_move`."""
    space, ptype = city.space(space), pawn_type(ptype)
    if not city.is_public(space) or ptype == SL:
        raise ValueError(f"move: only pl/pf/uf on Public-path spaces, not {PAWN_CODES[ptype]} on "
                         f"{city.space_ids[space]}")
    return move_pawn(city, store, space, ptype, distance, PUBLIC, limit=limit, backward=backward)


def purge_destinations(city: City, seat: int, space: int | str,
                       ptype: int | str) -> tuple[int, ...]:
    """Where a Follower purged from ``seat``'s Sidewalk ``space`` may go (design §1.3 Purge):
    indexed by the ``purge_destination`` option: a Universal Follower ``(C1, K{seat+1}a)``
    (``PURGE_TO_C1``, ``PURGE_TO_PUBLIC``); a Public Follower only ``K{seat+1}a`` (returned as
    a 1-tuple: there is no choice).

    Raises:
        ValueError: ``space`` is not one of ``seat``'s Sidewalks, or the type is not a Follower.
    """
    space, ptype = city.space(space), pawn_type(ptype)
    if space not in city.sidewalks(seat):
        raise ValueError(f"Purge: {city.space_ids[space]} is not one of seat {seat}'s Sidewalks")
    if ptype not in FOLLOWERS:
        raise ValueError(f"Purge moves Public/Universal Followers, not {PAWN_CODES[ptype]}")
    out = city.after_sidewalks(seat)
    return (city.chambers(seat)[0], out) if ptype == UF else (out,)


def purge_move(city: City, store: PawnStore, seat: int, space: int | str, ptype: int | str,
               option: int | None = None) -> int:
    """Move one Follower off ``seat``'s Sidewalks (Purge). ``option`` is the
    ``purge_destination`` choice, required for a Universal Follower (``PURGE_TO_C1`` or
    ``PURGE_TO_PUBLIC``) and ``None`` (or ``PURGE_TO_PUBLIC``) for a Public Follower. Returns the
    destination.

    Raises:
        ValueError: see :func:`purge_destinations`; no such pawn; a missing or bad option.
    """
    space, ptype = city.space(space), pawn_type(ptype)
    dests = purge_destinations(city, seat, space, ptype)
    if ptype == UF:
        if option not in (PURGE_TO_C1, PURGE_TO_PUBLIC) or isinstance(option, bool):
            raise ValueError(f"Purge: a Universal Follower needs purge_destination 0 (C1) or 1 "
                             f"(the Public space after S3), got {option!r}")
        dest = dests[option]
    else:
        if option not in (None, PURGE_TO_PUBLIC) or isinstance(option, bool):
            raise ValueError(f"Purge: a Public Follower can only go to the Public space after S3 "
                             f"(option None or 1), got {option!r}")
        dest = dests[0]
    if store.counts[space, ptype] == 0:
        raise ValueError(f"Purge: no {PAWN_CODES[ptype]} on {city.space_ids[space]}")
    store.counts[space, ptype] -= 1
    store.counts[dest, ptype] += 1
    return dest
