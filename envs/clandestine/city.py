"""The Clandestine City: paths, spaces and their Actions, built once per game as a frozen graph.

Rule sources: rulebook "Setup" steps 3-4 (Build / Populate the City), "Paths of the City",
"Pawns and Strength"; design ``clandestine_content.md`` §2.1-2.3 and the JSON section ``city``
(``algorithm``, ``initial_placement_human``, ``example_3p``), ``societies.<id>.chambers`` and
``nemesis.<id>.chambers`` for the Chamber Actions.

Spaces are numbered ``9 * seat + local`` with ``local`` in :data:`LOCAL_NAMES` order
(``Ka, Kb, S1, S2, S3, C1, C2, C3, C4``), the order of the SPACE block of the decision encoding
(design §1.7). Their text ids are ``K{i}a``, ``K{i}b`` (the connector on the right of seat i's
path; ``K{i}b`` touches ``P{i}S1``), ``P{i}S1..S3`` (Sidewalks) and ``P{i}C1..C4`` (Chambers).

Two kinds of path (rulebook "Paths of the City"):

* the **Public path**, one loop of ``5 N`` spaces (connectors and Sidewalks), clockwise:
  ``K0a, K0b, P0S1, P0S2, P0S3, K1a, ...`` (:attr:`City.public_loop`, :attr:`City.public_next`);
* one **Society path** per seat, 7 spaces counterclockwise around its tile:
  ``S1 -> S2 -> S3 -> C1 -> C2 -> C3 -> C4 -> S1`` (:attr:`City.society_next`). It shares the
  Sidewalks with the Public path (same direction there) and leaves it at the **Chamber door**
  ``S3 -> C1``; it comes back at ``C4 -> S1``.

Everything here is pure Python + numpy; the arrays of a :class:`City` are read-only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from envs.core.errors import ConfigError

#: The shipped content file (a byte-identical copy of ``shared/design/clandestine_content.json``).
DATA_PATH = Path(__file__).with_name("data") / "clandestine_content.json"

#: Local space names of one seat, index = local space number (design §1.7 SPACE block).
LOCAL_NAMES: tuple[str, ...] = ("Ka", "Kb", "S1", "S2", "S3", "C1", "C2", "C3", "C4")
SPACES_PER_SEAT = 9
KA, KB, S1, S2, S3, C1, C2, C3, C4 = range(9)
#: Local numbers of the Sidewalks and of the Chambers.
SIDEWALKS: tuple[int, ...] = (S1, S2, S3)
CHAMBERS: tuple[int, ...] = (C1, C2, C3, C4)
#: A Society path in its order of movement (rulebook "Paths of the City"; design §2.2 step 3).
SOCIETY_PATH_LOCALS: tuple[int, ...] = (S1, S2, S3, C1, C2, C3, C4)
SOCIETY_PATH_LENGTH = 7

#: Space kinds; ``City.kind_code`` uses their index.
KINDS: tuple[str, ...] = ("connector", "sidewalk", "chamber")
CONNECTOR, SIDEWALK, CHAMBER = range(3)

FUNDRAISE, DISCOVER = "Fundraise", "Discover"
_OTHER = {FUNDRAISE: DISCOVER, DISCOVER: FUNDRAISE}
MIN_PATHS, MAX_PATHS = 2, 5


@lru_cache(maxsize=4)
def load_content(path: str | None = None) -> Mapping:
    """The whole content document (``data/clandestine_content.json``), parsed once and cached.

    Args:
        path: another JSON file to read instead (tests); ``None`` = :data:`DATA_PATH`.

    Raises:
        ConfigError: the file is missing, not JSON, or lacks the ``city``, ``societies`` or
            ``nemesis`` section.
    """
    p = Path(path) if path is not None else DATA_PATH
    try:
        with open(p, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError as exc:
        raise ConfigError(f"Clandestine content file not found: {p}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"Clandestine content file {p} is not valid JSON: {exc}") from exc
    for key in ("city", "societies", "nemesis", "constants"):
        if key not in data:
            raise ConfigError(f"Clandestine content file {p} has no {key!r} section")
    return data


def city_data() -> Mapping:
    """The raw ``city`` section of the content file (tile shapes, algorithm, example_3p)."""
    return load_content()["city"]


def space_name(seat: int, local: int) -> str:
    """Text id of local space ``local`` (0..8) of ``seat``: ``K{seat}a``, ``P{seat}S2``, ..."""
    loc = LOCAL_NAMES[local]
    return f"K{seat}{loc[1]}" if loc[0] == "K" else f"P{seat}{loc}"


@dataclass(frozen=True, eq=False)
class City:
    """The City of one game (design §2.2): immutable, shared by states, observers and agents.

    Attributes (``S = 9 * num_paths`` spaces; arrays are int64, read-only, -1 = "none"):
        num_paths: N, 2..5.
        seats: per seat, its Society id (``societies`` keys) or Nemesis id, or ``None`` when the
            City was built without Society data (Chamber Actions then ``None``).
        first_action: the Action on ``P0S1`` (``"Fundraise"`` or ``"Discover"``).
        space_ids: (S,) text ids; ``index`` maps them back.
        kind_code: (S,) 0 connector, 1 sidewalk, 2 chamber (:data:`KINDS`).
        seat_of: (S,) seat owning the space (connector ``K{i}x`` belongs to seat i).
        actions: (S,) the Action printed on each space.
        public_loop: (5N,) the Public path from ``K0a``, clockwise.
        public_next, public_prev: (S,) next / previous space on the Public path; -1 on Chambers.
        public_pos: (S,) position in ``public_loop``; -1 on Chambers.
        society_next, society_prev: (S,) next / previous space on the owner's Society path;
            -1 on connectors (every Sidewalk and Chamber lies on exactly one Society path).
        society_pos: (S,) position 0..6 on the owner's Society path (S1 = 0); -1 on connectors.
        path_side: per seat ``"A"`` (Sidewalks F, D, F) or ``"B"`` (D, F, D).
        connector_side: per seat, side of connector ``K{i}``: ``"A"`` if ``K{i}a`` is Fundraise.
        duplicate_pair: ``("K0b", "P0S1")`` for odd N (two adjacent spaces with the same
            Action, on the First Player's right connector), else ``None``.
    """

    num_paths: int
    seats: tuple
    first_action: str
    space_ids: tuple
    index: Mapping
    kind_code: np.ndarray
    seat_of: np.ndarray
    actions: tuple
    public_loop: np.ndarray
    public_next: np.ndarray
    public_prev: np.ndarray
    public_pos: np.ndarray
    society_next: np.ndarray
    society_prev: np.ndarray
    society_pos: np.ndarray
    path_side: tuple
    connector_side: tuple
    duplicate_pair: tuple | None

    def __post_init__(self) -> None:
        # plain-tuple copies of the tables for fast scalar lookups (movement, masks)
        for name in ("kind_code", "seat_of", "public_next", "society_next"):
            object.__setattr__(self, "_" + name, tuple(int(v) for v in getattr(self, name)))

    # ------------------------------------------------------------------ lookups
    @property
    def num_spaces(self) -> int:
        """Number of spaces, ``9 * num_paths``."""
        return SPACES_PER_SEAT * self.num_paths

    @property
    def public_length(self) -> int:
        """Length of the Public loop, ``5 * num_paths``."""
        return len(self.public_loop)

    def space(self, ref: int | str) -> int:
        """Space number of ``ref`` (a number or a text id such as ``"P1S2"``).

        Raises:
            ValueError: unknown id or number out of range.
        """
        if isinstance(ref, str):
            if ref not in self.index:
                raise ValueError(f"unknown City space {ref!r} for {self.num_paths} paths")
            return self.index[ref]
        if isinstance(ref, (bool, np.bool_)) or not isinstance(ref, (int, np.integer)):
            raise ValueError(f"a City space is a number or a text id, got {ref!r}")
        if not 0 <= ref < self.num_spaces:
            raise ValueError(f"City space number {ref} out of range 0..{self.num_spaces - 1}")
        return int(ref)

    def local_space(self, seat: int, local: int | str) -> int:
        """Space number of local space ``local`` (0..8 or ``"S2"`` ...) of ``seat``."""
        self._check_seat(seat)
        if isinstance(local, str):
            if local not in LOCAL_NAMES:
                raise ValueError(f"unknown local space {local!r}; expected one of {LOCAL_NAMES}")
            local = LOCAL_NAMES.index(local)
        if not 0 <= local < SPACES_PER_SEAT:
            raise ValueError(f"local space {local} out of range 0..8")
        return SPACES_PER_SEAT * seat + local

    def kind(self, space: int | str) -> str:
        """``"connector"``, ``"sidewalk"`` or ``"chamber"``."""
        return KINDS[self.kind_code[self.space(space)]]

    def action(self, space: int | str) -> str | None:
        """The Action printed on ``space``."""
        return self.actions[self.space(space)]

    def is_public(self, space: int) -> bool:
        """Whether ``space`` is on the Public path (connector or Sidewalk)."""
        return self._kind_code[space] != CHAMBER

    def on_society_path(self, space: int, seat: int) -> bool:
        """Whether ``space`` is on ``seat``'s Society path (its Sidewalks and Chambers)."""
        return self._kind_code[space] != CONNECTOR and self._seat_of[space] == seat

    def sidewalks(self, seat: int) -> tuple[int, int, int]:
        """``seat``'s Sidewalks S1, S2, S3 (space numbers)."""
        self._check_seat(seat)
        return tuple(SPACES_PER_SEAT * seat + k for k in SIDEWALKS)

    def chambers(self, seat: int) -> tuple[int, int, int, int]:
        """``seat``'s Chambers C1..C4 (space numbers)."""
        self._check_seat(seat)
        return tuple(SPACES_PER_SEAT * seat + k for k in CHAMBERS)

    def society_path(self, seat: int) -> tuple[int, ...]:
        """``seat``'s Society path in movement order: S1, S2, S3, C1, C2, C3, C4."""
        self._check_seat(seat)
        return tuple(SPACES_PER_SEAT * seat + k for k in SOCIETY_PATH_LOCALS)

    def chamber_door(self, seat: int) -> tuple[int, int]:
        """``(S3, C1)`` of ``seat``: where its Society path leaves the Public path.

        A Public Follower following a Society Leader past S3 cannot pass this door and goes on
        along the Public path instead (rulebook "Moving Pawns").
        """
        self._check_seat(seat)
        return SPACES_PER_SEAT * seat + S3, SPACES_PER_SEAT * seat + C1

    def after_sidewalks(self, seat: int) -> int:
        """The first Public space after ``seat``'s S3 (``K{seat+1}a``): where Purge sends a
        Public Follower (design §1.3 Purge)."""
        return int(self.public_next[self.chamber_door(seat)[0]])

    def public_next_map(self) -> dict[str, str]:
        """``{space id: next space id}`` on the Public path (the form of ``example_3p``)."""
        return {self.space_ids[s]: self.space_ids[self.public_next[s]] for s in self.public_loop}

    def society_next_map(self, seat: int) -> dict[str, str]:
        """``{space id: next space id}`` on ``seat``'s Society path (form of ``example_3p``)."""
        return {self.space_ids[s]: self.space_ids[self.society_next[s]]
                for s in self.society_path(seat)}

    # ------------------------------------------------------------------ identity
    def _key(self) -> tuple:
        return self.num_paths, self.seats, self.first_action

    def __eq__(self, other: object) -> bool:
        return isinstance(other, City) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"City({self.num_paths} paths, seats={self.seats}, P0S1={self.first_action})"

    def __reduce__(self):
        # a City is fully determined by its build arguments: pickles stay small
        return build_city, self._key()

    def __copy__(self) -> "City":
        return self

    def __deepcopy__(self, memo) -> "City":
        return self

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) \
                or not 0 <= seat < self.num_paths:
            raise ValueError(f"seat must be an integer in 0..{self.num_paths - 1}, got {seat!r}")


def _chamber_actions(seat_id: str | None) -> tuple:
    if seat_id is None:
        return (None,) * 4
    content = load_content()
    if seat_id in content["societies"]:
        chambers = content["societies"][seat_id]["chambers"]
    else:
        chambers = content["nemesis"][seat_id]["chambers"]
    by_id = {c["id"]: c["action"] for c in chambers}
    return tuple(by_id[f"C{k}"] for k in (1, 2, 3, 4))


def _check_seats(num_paths: int, seats: Sequence | None) -> tuple:
    if seats is None:
        return (None,) * num_paths
    seats = tuple(seats)
    if len(seats) != num_paths:
        raise ConfigError(f"societies: expected {num_paths} entries (one per path), "
                          f"got {len(seats)}")
    content = load_content()
    nemeses = {k for k, v in content["nemesis"].items() if isinstance(v, dict) and "chambers" in v}
    known = set(content["societies"]) | nemeses
    for i, s in enumerate(seats):
        if s is None:
            continue
        if s not in known:
            raise ConfigError(f"societies[{i}] = {s!r} is not a Society or Nemesis; known: "
                              f"{', '.join(sorted(known))}")
        if s in nemeses and i != num_paths - 1:
            raise ConfigError(f"societies[{i}] = {s!r}: a Nemesis takes the last seat "
                              f"({num_paths - 1}) (rulebook 'Solo Play', design §2.2)")
    named = [s for s in seats if s is not None]
    if len(set(named)) != len(named):
        raise ConfigError(f"societies {seats}: each Society or Nemesis can be seated once")
    return seats


def build_city(num_paths: int, societies: Sequence | None = None, first_action: str | None = None,
               rng: np.random.Generator | int | None = None) -> City:
    """Build the City for ``num_paths`` paths (design §2.2, rulebook "Setup" step 3).

    The only random element is the side of the First Player's path: pass ``first_action``
    (the Action on ``P0S1``) or ``rng`` (a ``numpy.random.Generator`` or an integer seed), from
    which ``first_action`` is drawn with one ``rng.integers(2)`` (0 = Fundraise).

    Then the Public loop alternates Fundraise / Discover from ``P0S1`` clockwise; with an odd
    count the loop's last space ``K0b`` repeats ``P0S1``'s Action (the duplicated space). Each
    path's side follows from its S1 (A if Fundraise) and each connector's from its ``a`` space.

    Args:
        num_paths: N in 2..5 (humans + optional Nemesis; design ruling 2).
        societies: per seat (First Player first, clockwise) a Society id (``"mariners"``,
            ``"garden"``, ``"twilight"``, ``"serpent"``, ``"blue"``) or, for the last seat only,
            a Nemesis id (``"most_holy"``, ``"silver_guard"``); ``None`` entries (or ``None``)
            build the geometry without Chamber Actions.
        first_action: ``"Fundraise"`` or ``"Discover"``.
        rng: generator or seed used when ``first_action`` is ``None``.

    Raises:
        ConfigError: N out of range, a bad ``societies`` list, a bad ``first_action``, or neither
            ``first_action`` nor ``rng`` given.
    """
    if isinstance(num_paths, bool) or not isinstance(num_paths, (int, np.integer)) \
            or not MIN_PATHS <= num_paths <= MAX_PATHS:
        raise ConfigError(f"num_paths must be an integer in {MIN_PATHS}..{MAX_PATHS} "
                          f"(one connector set per count), got {num_paths!r}")
    n = int(num_paths)
    seats = _check_seats(n, societies)
    if first_action is None:
        if rng is None:
            raise ConfigError("build_city needs first_action ('Fundraise' or 'Discover') or rng "
                              "(the First Player's path side is random)")
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        first_action = (FUNDRAISE, DISCOVER)[int(gen.integers(2))]
    elif first_action not in _OTHER:
        raise ConfigError(f"first_action must be 'Fundraise' or 'Discover', got {first_action!r}")

    size = SPACES_PER_SEAT * n
    ids = tuple(space_name(s // SPACES_PER_SEAT, s % SPACES_PER_SEAT) for s in range(size))
    locs = np.arange(size) % SPACES_PER_SEAT
    kind = np.where(locs < S1, CONNECTOR, np.where(locs <= S3, SIDEWALK, CHAMBER)).astype(np.int64)
    seat_of = np.arange(size, dtype=np.int64) // SPACES_PER_SEAT

    # Public loop walked from P0S1 (design §2.2 step 4), then rotated to start at K0a.
    walk: list[int] = []
    for i in range(n):
        walk += [9 * i + S1, 9 * i + S2, 9 * i + S3, 9 * ((i + 1) % n) + KA, 9 * ((i + 1) % n) + KB]
    actions: list = [None] * size
    for j, s in enumerate(walk):
        actions[s] = first_action if j % 2 == 0 else _OTHER[first_action]
    loop = walk[-2:] + walk[:-2]
    for i in range(n):
        for k, act in enumerate(_chamber_actions(seats[i])):
            actions[9 * i + C1 + k] = act

    public_next = np.full(size, -1, dtype=np.int64)
    public_prev = np.full(size, -1, dtype=np.int64)
    public_pos = np.full(size, -1, dtype=np.int64)
    for p, s in enumerate(loop):
        public_next[s] = loop[(p + 1) % len(loop)]
        public_prev[s] = loop[p - 1]
        public_pos[s] = p
    society_next = np.full(size, -1, dtype=np.int64)
    society_prev = np.full(size, -1, dtype=np.int64)
    society_pos = np.full(size, -1, dtype=np.int64)
    for i in range(n):
        path = [9 * i + k for k in SOCIETY_PATH_LOCALS]
        for p, s in enumerate(path):
            society_next[s] = path[(p + 1) % SOCIETY_PATH_LENGTH]
            society_prev[s] = path[p - 1]
            society_pos[s] = p

    side_a = tuple(city_data()["society_path_tile"]["sides"]["A"])
    path_side = tuple("A" if tuple(actions[9 * i + k] for k in SIDEWALKS) == side_a else "B"
                      for i in range(n))
    connector_side = tuple("A" if actions[9 * i + KA] == FUNDRAISE else "B" for i in range(n))
    duplicate = (ids[KB], ids[S1]) if n % 2 == 1 else None
    arrays = (kind, seat_of, public_next, public_prev, public_pos, society_next, society_prev,
              society_pos)
    loop_arr = np.array(loop, dtype=np.int64)
    for a in arrays + (loop_arr,):
        a.setflags(write=False)
    return City(num_paths=n, seats=seats, first_action=first_action, space_ids=ids,
                index=MappingProxyType({s: k for k, s in enumerate(ids)}), kind_code=kind,
                seat_of=seat_of, actions=tuple(actions), public_loop=loop_arr,
                public_next=public_next, public_prev=public_prev, public_pos=public_pos,
                society_next=society_next, society_prev=society_prev, society_pos=society_pos,
                path_side=path_side, connector_side=connector_side, duplicate_pair=duplicate)
