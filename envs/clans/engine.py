"""Clans rules engine: :class:`ClansState` (rules/clans.txt + design/clans.md rulings 1-10).

Game in one paragraph: 60 huts (12 in each of 5 clan colours) start one per area. On a turn the
mover takes all huts of one area onto an adjacent occupied area (any colours). Whenever an
occupied area has no occupied neighbour it becomes a *village*: the mover takes the next bonus
chip, a dispute strips single-hut colours if all 5 colours are present, and each colour left
scores the village's huts plus the epoch's bonus on favourable terrain (0 on hostile terrain).
After 12 villages (or when no move is left) each player's score is their secret colour's points
plus their chips.

Actions (ruling 10), ``num_actions`` = 276:

=========  =================================================================================
ids        meaning
=========  =================================================================================
0-269      move all huts of area ``EDGE_SRC[a]`` onto the adjacent area ``EDGE_DST[a]``
           (one id per directed adjacency, sorted by (source, destination))
270-275    ordering decision (ruling 6): the next village to score is the k-th (k = id - 270)
           of the pending villages, pending villages listed in increasing area id
=========  =================================================================================

An ordering decision is asked only when the order can change an outcome: when two orders of
the villages formed by one move would give some colour different points (possible only when
they straddle an epoch boundary, rulebook "Special Rules": one chip left in the epoch, or run
past the 12th village). That test uses public information only (huts, terrains, chart position),
never the secret colours, so being asked reveals nothing hidden. Otherwise they score in
area-id order, which gives the same points to every colour and the same chips. The mover
keeps deciding (``current_player`` = mover) until every pending village is placed; then the
turn passes clockwise (increasing seat).

Observation layout (``observation_tensor(seat)``, float32, every entry in [0, 1]; seats are
relative to the observer: relative seat r is absolute seat (seat + r) mod n). Built by
:func:`observation_layout`; table for n = 3:

{table}
"""

from __future__ import annotations

import copy

import itertools
from typing import Any

import numpy as np

from ..core import ConfigError, GameState, Layout
from . import board as B

NUM_MOVE_ACTIONS = B.NUM_EDGES                 # 270
NUM_ORDER_ACTIONS = B.MAX_DEGREE               # 6: at most deg(source) villages per move
NUM_ACTIONS = NUM_MOVE_ACTIONS + NUM_ORDER_ACTIONS
MOVED_NORM = 360.0   # at most 30 moves per seat (59 moves, 2 seats) x 12 huts of a colour
SCORE_NORM = 100.0   # a colour scores at most 60 huts + 30 epoch bonus = 90 < 100
REWARDS = ("win_loss", "score_margin")
#: at most 59 moves in a game: each move empties one area and one area always stays occupied
MAX_MOVES = B.NUM_AREAS - 1
PLAYER_COUNTS = (2, 3, 4, 5)


def observation_layout(num_players: int) -> Layout:
    """The observation :class:`Layout` for ``num_players`` seats (see the module table)."""
    n = num_players
    lay = Layout()
    lay.add("huts", (B.NUM_AREAS, B.NUM_COLOURS), "huts of each colour (red, yellow, green, blue, "
            "black) in each area / 12")
    lay.add("area_total", B.NUM_AREAS, "total huts in each area / 60")
    lay.add("occupied", B.NUM_AREAS, "1 if the area holds at least one hut")
    lay.add("village", B.NUM_AREAS, "1 if the area is a village (scored, or formed past the 12th)")
    lay.add("terrain", (B.NUM_AREAS, 4), "terrain one-hot (mountain, forest, steppe, grassland); "
            "static")
    lay.add("epoch", B.NUM_EPOCHS, "one-hot epoch of the next bonus chip (all 0 when none left)")
    lay.add("villages_formed", B.NUM_CHIPS + 1, "one-hot number of villages scored so far (0-12)")
    lay.add("chips_left", 1, "bonus chips left on the epoch chart / 12")
    lay.add("colour_scores", B.NUM_COLOURS, "points of each colour on the scoring strip / 100")
    lay.add("seat_chips", n, "bonus chips held by each relative seat / 12")
    lay.add("own_colour", B.NUM_COLOURS, "one-hot of the observer's own secret colour")
    lay.add("to_act", n, "one-hot relative seat whose decision is due (all 0 when over)")
    lay.add("seat_colour_points", (n, B.NUM_COLOURS), "points given to each colour by the villages "
            "each relative seat formed / 100 (public history for deduction)")
    lay.add("seat_colour_moved", (n, B.NUM_COLOURS), "huts of each colour in the destination "
            "group after each move of each relative seat, summed over its moves / 360 (a seat "
            "moves at most 30 times, 12 huts of a colour at most)")
    lay.add("last_move_src", (n, B.NUM_AREAS), "one-hot source area of each relative seat's last "
            "move")
    lay.add("last_move_dst", (n, B.NUM_AREAS), "one-hot destination area of each relative seat's "
            "last move")
    lay.add("pending", B.NUM_AREAS, "1 for each village waiting for the mover's ordering decision")
    lay.add("ordering_due", 1, "1 if the decision due is an ordering decision (ids 270-275)")
    # the public history in full (perfect recall): set-up, every move, the scoring order, and
    # the colours the end of the game reveals
    lay.add("setup_colour", (B.NUM_AREAS, B.NUM_COLOURS), "one-hot colour of the hut each area "
            "held at set-up (public, ruling 3)")
    lay.add("move_seat", (MAX_MOVES, n), "one-hot relative seat that made the i-th move of the "
            "game (row i; all 0 for moves not made yet)")
    lay.add("move_source", (MAX_MOVES, B.NUM_AREAS), "one-hot source area of the i-th move")
    lay.add("move_direction", (MAX_MOVES, B.MAX_DEGREE), "one-hot j of the i-th move's "
            "destination NEIGHBOURS[source][j] (the source's neighbours by increasing area id)")
    lay.add("scored_at", (B.NUM_AREAS, B.NUM_CHIPS), "one-hot chart position (0-11) at which "
            "the area's village scored, i.e. the scoring order (all 0 if not scored)")
    lay.add("revealed_colours", (n, B.NUM_COLOURS), "one-hot colour of each relative seat, "
            "revealed when the game ends (rulebook \"End of Game\"); all 0 before")
    return lay


__doc__ = __doc__.format(table=observation_layout(3).table())

_TERRAIN_ONEHOT = np.eye(4, dtype=np.float32)[B.AREA_TERRAIN]
_NEIGH = B.NEIGHBOURS
_NEIGH_ARR = [np.array(n, dtype=np.int64) for n in _NEIGH]
_L3 = observation_layout(3)
_OFF_TOTAL, _OFF_OCC, _OFF_VIL = (_L3[f].start for f in ("area_total", "occupied", "village"))
_PUB_SCALE = np.ones(_L3["terrain"].stop, dtype=np.float32)
_PUB_SCALE[_L3["huts"].slice] = 1.0 / B.HUTS_PER_COLOUR
_PUB_SCALE[_L3["area_total"].slice] = 1.0 / 60.0
#: per area: ids of the moves leaving it (id, destination), entering it (id, source), and both
_OUT = [[(B.EDGE_ID[(a, x)], x) for x in _NEIGH[a]] for a in range(B.NUM_AREAS)]
_IN = [[(B.EDGE_ID[(x, a)], x) for x in _NEIGH[a]] for a in range(B.NUM_AREAS)]
_INCIDENT = [[e for e, _ in _OUT[a]] + [e for e, _ in _IN[a]] for a in range(B.NUM_AREAS)]
_INCIDENT_ARR = [np.array(e, dtype=np.intp) for e in _INCIDENT]
_D_EDGES = [np.array([e for e, _ in _OUT[a]] + [e for e, _ in _IN[a]], dtype=np.intp)
            for a in range(B.NUM_AREAS)]
_TERRAIN_LIST = B.AREA_TERRAIN.tolist()
#: per area: positions of its 5 hut counts, its total and its occupied flag in the observation
_AREA_IDX = [np.array([5 * a + c for c in range(B.NUM_COLOURS)] + [_OFF_TOTAL + a, _OFF_OCC + a],
                      dtype=np.intp) for a in range(B.NUM_AREAS)]
_ESRC = B.EDGE_SRC.tolist()
_EDST = B.EDGE_DST.tolist()
_S_HUT = float(_PUB_SCALE[0])                 # float32(1/12), exact as a Python float
_S_TOT = float(_PUB_SCALE[_OFF_TOTAL])        # float32(1/60)
_VILLAGE_EPOCH = {name: ch.village_epoch.tolist() for name, ch in B.EPOCH_CHARTS.items()}
#: per move id: j such that EDGE_DST = NEIGHBOURS[EDGE_SRC][j]
_EDGE_DIR = [_NEIGH[s].index(d) for s, d in zip(_ESRC, _EDST)]

#: The public events of :meth:`ClansState.public_history`: kind id -> (name, arguments). Seats
#: are absolute; areas 0..59; colours 0..4 (red, yellow, green, blue, black).
PUBLIC_EVENTS: dict[int, tuple[str, str]] = {
    0: ("setup", "area, colour: the hut placed on the area at set-up (ruling 3); 60 events, "
                 "by increasing area"),
    1: ("start", "seat: the start player (rulebook Setup 5)"),
    2: ("move", "seat, source, destination: the seat moved all huts of source onto destination"),
    3: ("village", "seat, area, position: the area became a village, scored at chart position "
                   "0-11 (the seat, the mover, takes that bonus chip); its dispute and points "
                   "follow from the board and the chart"),
    4: ("unscored", "seat, area: the area became a village past the 12th (ruling 6: no chip, no "
                    "dispute, no points)"),
    5: ("reveal", "seat, colour: at the end of the game the seat reveals its colour (rulebook "
                  "\"End of Game\"); one per seat, by increasing seat"),
}
EV_SETUP, EV_START, EV_MOVE, EV_VILLAGE, EV_UNSCORED, EV_REVEAL = range(6)


def _seat_tables(n: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Observation positions of the numeric seat-dependent fields and, per observer seat, the
    positions in the seat vector (see ``ClansState._seat_vec``) that fill them."""
    lay = observation_layout(n)
    dst: list[int] = []
    gathers = []
    for seat in range(n):
        g: list[int] = []
        d: list[int] = []
        for r in range(n):
            a = (r + seat) % n
            d.append(lay["seat_chips"].start + r)
            g.append(a)
        for f, base in (("seat_colour_points", n), ("seat_colour_moved", 6 * n)):
            for r in range(n):
                a = (r + seat) % n
                for c in range(B.NUM_COLOURS):
                    d.append(lay[f].start + 5 * r + c)
                    g.append(base + 5 * a + c)
        for c in range(B.NUM_COLOURS):
            d.append(lay["colour_scores"].start + c)
            g.append(11 * n + c)
        d.append(lay["chips_left"].start)
        g.append(11 * n + 5)
        dst = d
        gathers.append(np.array(g, dtype=np.intp))
    return np.array(dst, dtype=np.intp), gathers


_SEAT_TABLES = {n: _seat_tables(n) for n in PLAYER_COUNTS}


def _per_n(n: int) -> tuple[Layout, dict[str, int], np.ndarray]:
    lay = observation_layout(n)
    template = lay.zeros()
    lay.view(template, "terrain")[:] = _TERRAIN_ONEHOT
    return lay, {f.name: f.start for f in lay}, template


_PER_N = {n: _per_n(n) for n in PLAYER_COUNTS}
#: per chart, per village position 0..11: the points rule as a hashable signature (points of a
#: 10-hut village on each terrain); two positions with equal signatures score identically.
_SIGNATURES = {name: [tuple(ch.village_points(k, t, 10) for t in range(4))
                      for k in range(B.NUM_CHIPS)] for name, ch in B.EPOCH_CHARTS.items()}


class ClansState(GameState):
    """A Clans game state (rules/clans.txt; design/clans.md rulings 1-10).

    Args:
        seed: engine seed (``None``: drawn from the OS).
        num_players: 2, 3, 4 or 5 seats (ruling 1; default 3).
        epoch_chart: ``"rulebook"`` (Player Reference table, default) or ``"board_2002"`` (the
            chart printed on the 2002 board) (ruling 2).
        reward: ``"win_loss"`` (default; ruling 8: +1 each winner, -1 others, 0 to all if every
            seat shares the win) or ``"score_margin"`` ((own score - best other score) / 20,
            clipped to [-1, 1]).

    Raises:
        ConfigError: a keyword outside its allowed values (message names it and them).

    Public fields (all hidden information is ``colours``):
        huts: int64 (60, 5) huts per area and colour; area_total: int64 (60,);
        village: bool (60,); villages: list of village areas in scoring order;
        unscored: villages formed past the 12th (ruling 6); scores: int64 (5,) per colour;
        chips: int64 (n,) bonus chips per seat; colours: int64 (n,) secret colour id per seat;
        turn: seat whose turn it is; pending: sorted list of villages awaiting the ordering
        decision; removed: int64 (5,) huts removed in disputes; seat_points: int64 (n, 5);
        last_move: int64 (n, 2) last (source, destination) of each seat, -1 if none;
        seat_moved: int64 (n, 5) per seat, huts of each colour in its destination groups,
        summed over its moves (public history for deduction); setup_colour: int64 (60,)
        read-only, colour of each area's hut at set-up; start_player: the seat that moved
        first; move_log: tuple of (seat, source, destination) per move, in order.
    """

    game_name = "clans"
    #: the ``kind`` values :meth:`provisional_returns` takes (besides ``None``)
    PROVISIONAL_KINDS = REWARDS

    def __init__(self, *, seed: int | None = None, num_players: int = 3,
                 epoch_chart: str = "rulebook", reward: str = "win_loss") -> None:
        if not isinstance(num_players, (int, np.integer)) \
                or isinstance(num_players, (bool, np.bool_)) \
                or num_players not in PLAYER_COUNTS:
            raise ConfigError(f"num_players must be one of {list(PLAYER_COUNTS)}, "
                              f"got {num_players!r}")
        if not isinstance(epoch_chart, str) or epoch_chart not in B.EPOCH_CHARTS:
            raise ConfigError(f"epoch_chart must be one of {sorted(B.EPOCH_CHARTS)}, "
                              f"got {epoch_chart!r}")
        if not isinstance(reward, str) or reward not in REWARDS:
            raise ConfigError(f"reward must be one of {list(REWARDS)}, got {reward!r}")
        super().__init__(seed=seed, config={"num_players": int(num_players),
                                            "epoch_chart": epoch_chart, "reward": reward})
        self._n = int(num_players)
        self.chart = B.EPOCH_CHARTS[epoch_chart]
        # layout, field offsets and template are the same for every state with n seats
        self.layout, self._off, template = _PER_N[self._n]
        self._template = template.copy()
        self._pub_len = self.layout["terrain"].stop
        self._pub: np.ndarray | None = None
        self._sv: np.ndarray | None = None
        self._movevec: np.ndarray | None = None
        self._seat_dst, self._seat_gather = _SEAT_TABLES[self._n]
        self._vepoch = _VILLAGE_EPOCH[epoch_chart]
        off = self._off
        self._o_epoch, self._o_vf, self._o_own, self._o_act = (
            off["epoch"], off["villages_formed"], off["own_colour"], off["to_act"])
        self._o_src, self._o_dst = off["last_move_src"], off["last_move_dst"]
        self._o_pend, self._o_ord = off["pending"], off["ordering_due"]
        self._o_setup, self._o_mseat, self._o_msrc, self._o_mdir, self._o_scored, self._o_rev = (
            off["setup_colour"], off["move_seat"], off["move_source"], off["move_direction"],
            off["scored_at"], off["revealed_colours"])
        # Chance events (all through the logged path, in this order): ``"region_colours"``
        # x 12, ``"colours"``, ``"start_player"``.
        # Set-up (rulebook "Setup" 1, ruling 3): one 5-colour group per region, order random.
        self.huts = np.zeros((B.NUM_AREAS, B.NUM_COLOURS), dtype=np.int64)
        for areas in B.REGIONS:
            perm = self.chance_permutation("region_colours", B.NUM_COLOURS)
            for area, colour in zip(areas, perm):
                self.huts[area, colour] = 1
        self.area_total = self.huts.sum(axis=1)
        # Secret colours (Setup 3, ruling 1): each seat one colour, distinct; rest nobody's.
        # The outcome is a permutation of the 5 colours: seat i gets entry i, the rest are
        # unused (nobody's).
        self.colours = self.chance_permutation("colours", B.NUM_COLOURS)[: self._n].astype(
            np.int64)
        # Start player (Setup 5).
        self.turn = self.chance_integer("start_player", self._n)
        # Public history (perfect recall). Tuples, replaced (never changed in place) as the
        # game goes, so copies of the state can share them.
        self.setup_colour = self.huts.argmax(axis=1)
        self.setup_colour.flags.writeable = False
        self.start_player = self.turn
        self.move_log: tuple[tuple[int, int, int], ...] = ()
        self._events: tuple[tuple[int, ...], ...] = ()
        self.village = np.zeros(B.NUM_AREAS, dtype=bool)
        self.villages: list[int] = []
        self.unscored: list[int] = []
        self.scores = np.zeros(B.NUM_COLOURS, dtype=np.int64)
        self.chips = np.zeros(self._n, dtype=np.int64)
        self.removed = np.zeros(B.NUM_COLOURS, dtype=np.int64)
        self.seat_points = np.zeros((self._n, B.NUM_COLOURS), dtype=np.int64)
        self.last_move = np.full((self._n, 2), -1, dtype=np.int64)
        self.seat_moved = np.zeros((self._n, B.NUM_COLOURS), dtype=np.int64)
        self.pending: list[int] = []
        self.terminal = False
        self._mask: np.ndarray | None = None
        self._obs: dict[int, np.ndarray] = {}

    # ----------------------------------------------------------------------------------------
    num_players = property(lambda self: self._n)
    num_actions = property(lambda self: NUM_ACTIONS)
    observation_size = property(lambda self: self.layout.size)

    @property
    def current_player(self) -> int | None:
        """The mover (also during ordering decisions), or ``None`` when the game is over."""
        return None if self.terminal else self.turn

    @property
    def is_terminal(self) -> bool:
        """True after the 12th village or when no legal move is left (ruling 7)."""
        return self.terminal

    @property
    def epoch(self) -> int | None:
        """Epoch index 0..4 of the next bonus chip, ``None`` when all 12 are taken."""
        k = len(self.villages)
        return None if k >= B.NUM_CHIPS else int(self.chart.village_epoch[k])

    def final_scores(self) -> np.ndarray:
        """Int64 (n,): each seat's colour points + bonus chips (rulebook "End of Game")."""
        return self.scores[self.colours] + self.chips

    def returns(self) -> np.ndarray:
        """Float64 (n,) returns per ruling 8 (zeros before the end); see the class docstring."""
        if not self.terminal:
            return np.zeros(self._n)
        return self._returns_of(self.final_scores(), self.config["reward"])

    def provisional_returns(self, kind: str | None = None) -> np.ndarray:
        """Float64 (n,): the returns the game would give if it ended now, on the current scores.

        Each seat's provisional score is its colour's points so far plus its chips (the
        :meth:`final_scores` formula applied to the position as it stands: villages not yet
        formed count nothing), turned into returns by ``kind``: ``"win_loss"`` (+1 each seat
        with the highest score, -1 the others, 0 to all if every seat ties) or
        ``"score_margin"`` ((own - best other) / 20, clipped to [-1, 1]), the formulas of
        ruling 8; ``None`` uses the configured ``reward``. Same scale as :meth:`returns`; at
        the end of the game it equals :meth:`returns` for the same kind.

        It reads every seat's secret colour, so a searcher may call it only on a world drawn
        by :meth:`resample_from_infostate` (ISMCTS scores rollouts cut before the end with it),
        never on the real game.

        Raises:
            ValueError: ``kind`` is not ``None`` nor one of :data:`REWARDS` (named).
        """
        if kind is None:
            kind = self.config["reward"]
        elif kind not in REWARDS:
            raise ValueError(f"provisional_returns kind must be one of {list(REWARDS)} or None, "
                             f"got {kind!r}")
        return self._returns_of(self.final_scores(), kind)

    def _returns_of(self, fs: np.ndarray, kind: str) -> np.ndarray:
        """Returns (float64, (n,)) of the seat scores ``fs`` under reward ``kind``."""
        r = np.zeros(self._n)
        if kind == "win_loss":
            win = fs == fs.max()
            if win.all():
                return r
            r[:] = -1.0
            r[win] = 1.0
            return r
        for i in range(self._n):
            best_other = np.max(np.delete(fs, i))
            r[i] = float(np.clip((fs[i] - best_other) / 20.0, -1.0, 1.0))
        return r

    def winners(self) -> list[int]:
        """Seats with the highest final score (shared win), empty before the end."""
        if not self.terminal:
            return []
        fs = self.final_scores()
        return [int(i) for i in np.flatnonzero(fs == fs.max())]

    # ----------------------------------------------------------------------------------------
    def _move_mask(self) -> np.ndarray:
        """Bool (270,): legal moves (rulebook "Movement", ruling 4)."""
        tot = self.area_total
        ts = tot[B.EDGE_SRC]
        td = tot[B.EDGE_DST]
        vil = self.village
        return ((ts > 0) & (td > 0) & ~vil[B.EDGE_SRC] & ~vil[B.EDGE_DST]
                & ((ts < B.BIG_GROUP) | (td >= ts)))

    def _moves(self) -> np.ndarray:
        """Int8 (276,) with the legal moves in ids 0-269, kept incrementally between moves."""
        if self._movevec is None:
            mv = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mv[:NUM_MOVE_ACTIONS] = self._move_mask()
            self._movevec = mv
        return self._movevec

    def _update_moves(self, s: int, d: int, tot: list[int]) -> None:
        """After moving area ``s`` onto ``d``: only edges touching s or d change legality.

        Edges of a village never need a check: its neighbours are empty, so every edge from or
        to it has an empty end.
        """
        mv = self._movevec
        if mv is None:
            return
        mv[_INCIDENT_ARR[s]] = 0
        td = tot[d]
        big = B.BIG_GROUP
        small = td < big
        nb = [tot[x] for x in _NEIGH[d]]
        # ids of the moves d -> x, then x -> d, x over d's neighbours (as _OUT[d], _IN[d])
        mv[_D_EDGES[d]] = ([1 if tx and (small or tx >= td) else 0 for tx in nb]
                           + [1 if tx and (tx < big or td >= tx) else 0 for tx in nb])

    def legal_action_mask(self) -> np.ndarray:
        """Int8 (276,): moves 0-269 when a move is due, ordering ids 270-275 when ordering.

        Cached per state and read-only: editing it raises ``ValueError`` instead of changing
        what the engine accepts (take a ``.copy()`` to edit).
        """
        if self._mask is None:
            if self.terminal:
                m = np.zeros(NUM_ACTIONS, dtype=np.int8)
            elif self.pending:
                m = np.zeros(NUM_ACTIONS, dtype=np.int8)
                m[NUM_MOVE_ACTIONS:NUM_MOVE_ACTIONS + len(self.pending)] = 1
            else:
                m = self._moves().copy()
            m.flags.writeable = False
            self._mask = m
        return self._mask

    def illegal_reason(self, action: int) -> str:
        a = int(action)
        if a >= NUM_MOVE_ACTIONS:
            k = a - NUM_MOVE_ACTIONS
            if not self.pending:
                return "no ordering decision is due (ruling 6): a move is expected"
            return (f"only {len(self.pending)} villages are pending, so k must be below "
                    f"{len(self.pending)}")
        if self.pending:
            return "the mover must first order the pending villages (ruling 6)"
        s, d = int(B.EDGE_SRC[a]), int(B.EDGE_DST[a])
        if self.village[s] or self.village[d]:
            return "a village never moves or receives huts (ruling 5)"
        if self.area_total[s] == 0:
            return f"source area {s} is empty"
        if self.area_total[d] == 0:
            return f"destination area {d} is empty: huts only move onto occupied areas"
        if self.area_total[s] >= B.BIG_GROUP and self.area_total[d] < self.area_total[s]:
            return (f"a group of {self.area_total[s]} huts (7+) may only move onto a group at "
                    f"least as large, area {d} holds {self.area_total[d]} (ruling 4)")
        return super().illegal_reason(a)

    def _changed(self) -> None:
        """Forget cached mask and observations (call after editing fields directly)."""
        self._mask = None
        self._obs = {}
        self._pub = None
        self._sv = None
        self._movevec = None

    def _public_block(self) -> np.ndarray:
        """Float32 (observation_size,): the observation template (terrain) with the fields
        ``huts`` .. ``village`` filled in (already scaled by ``_PUB_SCALE``), kept incrementally.
        """
        if self._pub is None:
            lay = self.layout
            pub = self._template[: self._pub_len].copy()
            lay.view(pub, "huts")[:] = self.huts
            lay.view(pub, "area_total")[:] = self.area_total
            lay.view(pub, "occupied")[:] = self.area_total > 0
            lay.view(pub, "village")[:] = self.village
            full = self._template.copy()
            np.multiply(pub, _PUB_SCALE, out=full[: self._pub_len])
            full[self._o_setup + 5 * np.arange(B.NUM_AREAS) + self.setup_colour] = 1.0
            for i, (_, s, d) in enumerate(self.move_log):
                full[self._o_msrc + B.NUM_AREAS * i + s] = 1.0
                full[self._o_mdir + B.MAX_DEGREE * i + _NEIGH[s].index(d)] = 1.0
            for k, a in enumerate(self.villages):
                if a >= 0:  # (hand-made positions may hold placeholder villages)
                    full[self._o_scored + B.NUM_CHIPS * a + k] = 1.0
            self._pub = full
        return self._pub

    def _seat_vec(self) -> np.ndarray:
        """Float32 scaled values by absolute seat, kept incrementally: chips / 12 (n), seat
        points / 100 (5n), seat moved / 360 (5n), colour scores / 100 (5), chips left / 12 (1).
        """
        if self._sv is None:
            n = self._n
            sv = np.zeros(11 * n + 6, dtype=np.float32)
            sv[:n] = self.chips * (1.0 / B.NUM_CHIPS)
            sv[n:6 * n] = (self.seat_points * (1.0 / SCORE_NORM)).reshape(-1)
            sv[6 * n:11 * n] = (self.seat_moved * (1.0 / MOVED_NORM)).reshape(-1)
            sv[11 * n:11 * n + 5] = self.scores * (1.0 / SCORE_NORM)
            sv[11 * n + 5] = (B.NUM_CHIPS - len(self.villages)) / B.NUM_CHIPS
            self._sv = sv
        return self._sv

    def _refresh_area(self, area: int) -> None:
        """Update the public block for one area whose huts or village flag changed."""
        pub = self._pub
        if pub is None:
            return
        i = 5 * area
        pub[i:i + 5] = [h * _S_HUT for h in self.huts[area].tolist()]
        t = int(self.area_total[area])
        pub[_OFF_TOTAL + area] = t * _S_TOT
        pub[_OFF_OCC + area] = 1.0 if t > 0 else 0.0
        pub[_OFF_VIL + area] = 1.0 if self.village[area] else 0.0

    def _apply_action(self, action: int) -> None:
        self._mask = None
        self._obs = {}
        if action >= NUM_MOVE_ACTIONS:
            area = self.pending.pop(action - NUM_MOVE_ACTIONS)
            self._score_village(area)
            self._resolve()
            return
        s, d = _ESRC[action], _EDST[action]
        hs, hd = self.huts[s], self.huts[d]
        hd += hs
        hs.fill(0)
        at = self.area_total
        tot = at.tolist()
        td = tot[d] + tot[s]
        at[d] = tot[d] = td
        at[s] = tot[s] = 0
        pub = self._pub
        if pub is not None:
            # as _refresh_area(s) and _refresh_area(d); both stay non-villages and d occupied
            pub[_AREA_IDX[s]] = 0.0
            row = [h * _S_HUT for h in hd.tolist()]
            row.append(td * _S_TOT)
            row.append(1.0)
            pub[_AREA_IDX[d]] = row
        self._update_moves(s, d, tot)
        t = self.turn
        i = len(self.move_log)
        if pub is not None:
            pub[self._o_msrc + B.NUM_AREAS * i + s] = 1.0
            pub[self._o_mdir + B.MAX_DEGREE * i + _EDGE_DIR[action]] = 1.0
        self.move_log += ((t, s, d),)
        self._events += ((EV_MOVE, t, s, d),)
        lm = self.last_move
        lm[t, 0] = s
        lm[t, 1] = d
        sm = self.seat_moved[t]
        sm += hd
        if self._sv is not None:
            i = 6 * self._n + 5 * t
            self._sv[i:i + 5] = [x * (1.0 / MOVED_NORM) for x in sm.tolist()]
        # Village detection (ruling 5): only the destination and the source's neighbours can
        # have lost their last occupied neighbour.
        vil = self.village
        new = []
        get = tot.__getitem__
        for c in _NEIGH[s]:
            if tot[c] > 0 and not any(map(get, _NEIGH[c])) and not vil[c]:
                new.append(c)
        if new:
            self.pending = sorted(new)
            self._resolve()
        else:
            # No village: every occupied area still has an occupied neighbour, so a legal move
            # exists (a smaller group can always join a neighbour; ruling 4) and play goes on.
            self.turn = (self.turn + 1) % self._n

    def _needs_order(self) -> bool:
        """Whether the order of ``pending`` can change any colour's points (ruling 6; docs
        "Rulings made here" 1).

        The order decides which chart position (epoch, or past the 12th: nothing) each pending
        village scores at; the chips the mover takes do not depend on it, so two orders change
        an outcome (any seat's score, whatever the colours) exactly when they give some colour
        different points. That is computed from public information only (the pending villages'
        huts after their disputes, their terrains, the number of villages scored so far and the
        chart), never from the secret colours, so whether the mover is asked reveals nothing.
        """
        m = len(self.pending)
        if m < 2:
            return False
        k = len(self.villages)
        sig = _SIGNATURES[self.chart.name]
        if k + m <= B.NUM_CHIPS and len(set(sig[k:k + m])) == 1:
            return False  # every position scores alike: no order can change anything
        villages = []
        for area in self.pending:
            hl = self.huts[area].tolist()
            if min(hl) > 0:  # the dispute does not depend on the order
                hl = [0 if h == 1 else h for h in hl]
            villages.append((_TERRAIN_LIST[area], sum(hl),
                             [c for c in range(B.NUM_COLOURS) if hl[c] > 0]))
        first = None
        for order in itertools.permutations(villages):
            points = [0] * B.NUM_COLOURS
            for pos, (terrain, tot, present) in zip(range(k, B.NUM_CHIPS), order):
                pts = self.chart.village_points(pos, terrain, tot)
                for c in present:
                    points[c] += pts
            if first is None:
                first = points
            elif points != first:
                return True
        return False

    def _resolve(self) -> None:
        """Score pending villages while no decision is needed; then end or pass the turn."""
        while self.pending and not self.terminal:
            if self._needs_order():
                return  # the mover decides (ids 270+)
            for area in self.pending:
                if self.terminal:
                    break
                self._score_village(area)
            self.pending = [a for a in self.pending if not self.village[a]]
        if self.pending:  # formed beyond the 12th: they score nothing (ruling 6)
            self.unscored.extend(self.pending)
            self._events += tuple((EV_UNSCORED, self.turn, a) for a in self.pending)
            for a in self.pending:
                self.village[a] = True
                self._refresh_area(a)
            self.pending = []
        if not self.terminal and not self._moves().any():
            self.terminal = True  # early end (rulebook "Special Rules", ruling 7)
        if not self.terminal:
            self.turn = (self.turn + 1) % self._n

    def _score_village(self, area: int) -> None:
        """Chip, dispute, scoring of one new village (ruling 5, rulebook "Forming Villages")."""
        k = len(self.villages)
        self.village[area] = True
        self.villages.append(area)
        mover = self.turn
        self._events += ((EV_VILLAGE, mover, area, k),)
        chips = self.chips
        chips[mover] += 1
        h = self.huts[area]
        hl = h.tolist()
        if min(hl) > 0:  # dispute: all 5 colours present
            single = h == 1
            self.removed += single
            h[single] = 0
            hl = h.tolist()
            self.area_total[area] = sum(hl)
        tot = int(self.area_total[area])
        pts = self.chart.village_points(k, _TERRAIN_LIST[area], tot)
        scores = self.scores
        sp = self.seat_points[mover]
        for c in range(B.NUM_COLOURS):
            if hl[c] > 0:
                scores[c] += pts
                sp[c] += pts
        sv = self._sv
        if sv is not None:
            n = self._n
            sv[mover] = int(chips[mover]) * (1.0 / B.NUM_CHIPS)
            sv[n + 5 * mover:n + 5 * mover + 5] = sp * (1.0 / SCORE_NORM)
            sv[11 * n:11 * n + 5] = scores * (1.0 / SCORE_NORM)
            sv[11 * n + 5] = (B.NUM_CHIPS - k - 1) / B.NUM_CHIPS
        pub = self._pub
        if pub is not None:  # as _refresh_area(area)
            i = 5 * area
            pub[i:i + 5] = [x * _S_HUT for x in hl]
            pub[_OFF_TOTAL + area] = tot * _S_TOT
            pub[_OFF_OCC + area] = 1.0 if tot > 0 else 0.0
            pub[_OFF_VIL + area] = 1.0
            pub[self._o_scored + B.NUM_CHIPS * area + k] = 1.0
        if k + 1 == B.NUM_CHIPS:
            self.terminal = True

    # ----------------------------------------------------------------------------------------
    def observation_tensor(self, seat: int) -> np.ndarray:
        """Float32 (observation_size,) of what ``seat`` knows; layout in the module docstring.

        Raises:
            ValueError: ``seat`` is not in 0..n-1.
        """
        o = self._obs.get(seat)
        if o is not None:
            return o.copy()
        if not 0 <= seat < self._n:
            raise ValueError(f"seat must be in 0..{self._n - 1}, got {seat!r}")
        n = self._n
        A = B.NUM_AREAS
        o = self._public_block().copy()
        o[self._seat_dst] = self._seat_vec()[self._seat_gather[seat]]
        k = len(self.villages)
        ones = [self._o_vf + k, self._o_own + int(self.colours[seat])]
        if k < B.NUM_CHIPS:
            ones.append(self._o_epoch + self._vepoch[k])
        if not self.terminal:
            ones.append(self._o_act + (self.turn - seat) % n)
        src0, dst0 = self._o_src, self._o_dst
        lm = self.last_move.tolist()
        for r in range(n):
            s, d = lm[(r + seat) % n]
            if s >= 0:
                ones.append(src0 + r * A + s)
                ones.append(dst0 + r * A + d)
        if self.pending:
            i = self._o_pend
            for a in self.pending:
                ones.append(i + a)
            ones.append(self._o_ord)
        i = self._o_mseat
        for m, _, _ in self.move_log:
            ones.append(i + (m - seat) % n)
            i += n
        if self.terminal:  # the end of the game reveals every seat's colour
            col = self.colours.tolist()
            i = self._o_rev
            for r in range(n):
                ones.append(i + 5 * r + col[(r + seat) % n])
        o[ones] = 1.0
        self._obs[seat] = o
        return o.copy()

    def action_to_string(self, action: int) -> str:
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            return f"invalid action {a}"
        if a < NUM_MOVE_ACTIONS:
            s, d = int(B.EDGE_SRC[a]), int(B.EDGE_DST[a])
            return f"move area {s} ({self.area_total[s]} huts) -> area {d} ({self.area_total[d]} huts)"
        k = a - NUM_MOVE_ACTIONS
        if k < len(self.pending):
            return f"next village: area {self.pending[k]} (pending #{k})"
        return f"next village: pending #{k}"

    def render_text(self, seat: int | None = None) -> str:
        """Text picture: scores, chips, epoch, and every occupied area by region.

        ``seat=None`` shows every seat's colour; otherwise only ``seat``'s own colour.
        """
        lines = []
        k = len(self.villages)
        ep = self.epoch
        ep_txt = "none (all chips taken)" if ep is None else "I II III IV V".split()[ep]
        lines.append(f"Clans  villages {k}/12  epoch {ep_txt}  chips left {B.NUM_CHIPS - k}"
                     + ("  GAME OVER" if self.terminal else f"  to act: seat {self.turn}"))
        lines.append("scores: " + "  ".join(f"{c}={int(s)}" for c, s in zip(B.COLOURS, self.scores)))
        who = []
        for i in range(self._n):
            col = B.COLOURS[self.colours[i]] if seat is None or seat == i else "?"
            who.append(f"seat{i}[{col}] chips={int(self.chips[i])}")
        lines.append("  ".join(who))
        if self.terminal:
            lines.append("final: " + " ".join(str(int(x)) for x in self.final_scores())
                         + f"  winners {self.winners()}")
        letters = "RYGBK"
        for r, areas in enumerate(B.REGIONS):
            cells = []
            for a in areas:
                if self.area_total[a] == 0 and not self.village[a]:
                    cells.append(f"{a:2d}:.")
                    continue
                hs = "".join(f"{letters[c]}{int(self.huts[a, c])}" for c in range(5)
                             if self.huts[a, c])
                tag = "*" if self.village[a] else ""
                cells.append(f"{a:2d}{B.TERRAINS[B.AREA_TERRAIN[a]][0]}:{hs or '-'}{tag}")
            lines.append(f"R{r:<2d} " + "  ".join(cells))
        if self.pending:
            lines.append(f"pending villages to order: {self.pending}")
        lines.append("Legend: Rk = region k; each area as <number><terrain>:<huts>, terrain "
                     "m mountain, f forest, s steppe, g grassland; huts per colour R red, "
                     "Y yellow, G green, B blue, K black (Y2 = 2 yellow huts); . = empty area; "
                     "* = village; - = no huts left; seat[?] = colour secret to you.")
        return "\n".join(lines)

    def render_rgb(self) -> np.ndarray:
        """Uint8 (H, W, 3) picture of the board (matplotlib, Agg); see :mod:`.render`."""
        from .render import render_rgb

        return render_rgb(self)

    # ----------------------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """Fields for deepcopy and pickling, without the cached read-only mask and the
        per-seat observation cache (the copy recomputes them, as :meth:`clone` does)."""
        d = self.__dict__.copy()
        d["_mask"] = None
        d["_obs"] = {}
        return d

    def clone(self) -> ClansState:
        """Independent copy (numpy arrays copied, generator state copied)."""
        s = object.__new__(ClansState)
        s.__dict__.update(self.__dict__)
        for name in ("huts", "area_total", "village", "scores", "chips", "removed",
                     "seat_points", "last_move", "colours", "seat_moved"):
            setattr(s, name, getattr(self, name).copy())
        s.villages = list(self.villages)
        s.unscored = list(self.unscored)
        s.pending = list(self.pending)
        s.history = list(self.history)
        s.chance_log = list(self.chance_log)  # entries are never mutated
        if getattr(self, "_forced_chance", None) is not None:
            s._forced_chance = copy.copy(self._forced_chance)
        s.config = dict(self.config)
        s.rng = np.random.default_rng()
        s.rng.bit_generator.state = self.rng.bit_generator.state
        s._mask = None
        s._obs = {}
        s._pub = None if self._pub is None else self._pub.copy()
        s._sv = None if self._sv is None else self._sv.copy()
        s._movevec = None if self._movevec is None else self._movevec.copy()
        return s

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> ClansState:
        """A world ``seat`` cannot tell from this one, with a history that replays to it.

        Everything but the colours is public, and nothing public depends on the colours before
        the end (no decision is asked or skipped because of them), so the posterior under a
        policy that ignores hidden information is the prior given ``seat``'s own colour: the
        other seats get a uniformly random injective assignment of the 4 colours that are not
        ``seat``'s own (ruling 9). Once the game is over every seat's colour has been revealed
        (rulebook "End of Game") and is kept; only the order of the unused colours (back in
        the box unrevealed, without any effect) is redrawn.

        The world's record (:meth:`to_record`) holds the real actions and the real chance
        outcomes except the ``"colours"`` permutation, which is the drawn one (seat i's colour
        first, then the unused colours), so it replays to the world (history consistency);
        its generator restarts from a seed drawn from ``rng``.

        Raises:
            ValueError: ``seat`` is not in 0..n-1.
        """
        if not 0 <= seat < self._n:
            raise ValueError(f"seat must be in 0..{self._n - 1}, got {seat!r}")
        s = self.clone()
        world_seed = int(rng.integers(2**62))
        n = self._n
        own = int(self.colours[seat])
        if self.terminal:
            assigned = self.colours.tolist()
            rest = [c for c in range(B.NUM_COLOURS) if c not in assigned]
            perm = assigned + [rest[j] for j in rng.permutation(len(rest))]
        else:
            others = [c for c in range(B.NUM_COLOURS) if c != own]
            drawn = [others[j] for j in rng.permutation(len(others))]
            perm = drawn[:seat] + [own] + drawn[seat:]
            s.colours[:] = perm[:n]
        log = [[name, perm if name == "colours" else outcome]
               for name, outcome in self.chance_log]
        s.set_chance_log(log, world_seed)
        return s

    def public_history(self) -> list[tuple[int, ...]]:
        """Every public event so far, in order, as ``(kind, *args)`` tuples of ints.

        Vocabulary: :data:`PUBLIC_EVENTS` (docs/clans.md, "Public history"). The same list for
        every seat: set-up (60 ``setup`` events), ``start``, then the moves, villages (in
        scoring order, ``village`` / ``unscored``) as they happen, and at the end one
        ``reveal`` per seat. Ordering decisions show as the order of the ``village`` events.
        """
        ev: list[tuple[int, ...]] = [(EV_SETUP, a, int(c))
                                     for a, c in enumerate(self.setup_colour.tolist())]
        ev.append((EV_START, int(self.start_player)))
        ev.extend(self._events)
        if self.terminal:
            ev.extend((EV_REVEAL, i, int(c)) for i, c in enumerate(self.colours.tolist()))
        return ev

    def hidden_truth(self) -> dict[str, Any]:
        """``{"colours": [colour name of each seat]}`` (ruling 9)."""
        return {"colours": [B.COLOURS[c] for c in self.colours]}
