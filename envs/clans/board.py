"""The Clans board and epoch charts as static tables (``data/clans_board.json``).

The board is described in rules/clans.txt ("Components") and design/clans.md: 60 areas in 12
regions of 5, 15 areas of each of the 4 terrains, 135 adjacencies (land border or river; lakes
separate areas). The data was transcribed from github.com/Thor-ax/Clans_jeu_de_societe
(Apache-2.0; see the top-level NOTICE). Everything here is computed once at import.

Tables (all numpy arrays are read-only by convention):

* ``NUM_AREAS`` = 60, ``NUM_COLOURS`` = 5, ``COLOURS`` (colour names, index = colour id);
* ``TERRAINS`` = ("mountain", "forest", "steppe", "grassland"); ``AREA_TERRAIN`` int64 (60,);
* ``AREA_REGION`` int64 (60,); ``NEIGHBOURS`` tuple of 60 sorted tuples of area ids;
* ``EDGE_SRC``, ``EDGE_DST`` int64 (270,): the directed adjacencies, sorted by (source,
  destination); ``EDGE_ID`` dict (source, destination) -> action id; ``MAX_DEGREE`` = 6;
* ``CENTROIDS`` float64 (60, 2) and ``POLYGONS`` (list of (k, 2) arrays) in board pixels
  (989 x 768, y downwards), for drawing only; ``LAKES`` tuple of tuples of bordering areas;
* ``EPOCH_CHARTS``: chart name -> :class:`EpochChart`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA_PATH = Path(__file__).with_name("data") / "clans_board.json"

#: The five clan colours (rulebook "Components": 12 huts in each of 5 colours).
COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "black")
NUM_COLOURS = 5
HUTS_PER_COLOUR = 12
#: The four terrains, index = terrain id (rulebook "Components").
TERRAINS: tuple[str, ...] = ("mountain", "forest", "steppe", "grassland")
#: Total bonus chips = total villages (rulebook "Components": 12 yellow bonus chips).
NUM_CHIPS = 12
#: A group of this many huts or more may not move except onto a group at least as large
#: (rulebook "Movement", design ruling 4).
BIG_GROUP = 7


@dataclass(frozen=True)
class EpochChart:
    """One epoch chart (design ruling 2), expanded per village.

    Attributes:
        name: ``"rulebook"`` or ``"board_2002"``.
        villages_per_epoch: villages (= bonus chips) of epochs I-V, summing to 12.
        favourable: per epoch, the favourable terrain id, or -1 for "all terrains" (epoch V).
        hostile: per epoch, the hostile terrain id, or -1 for none.
        bonus: per epoch, the favourable-terrain bonus.
        village_epoch: int64 (12,): epoch index (0..4) of the k-th village / bonus chip.
    """

    name: str
    villages_per_epoch: tuple[int, ...]
    favourable: tuple[int, ...]
    hostile: tuple[int, ...]
    bonus: tuple[int, ...]
    village_epoch: np.ndarray

    def village_points(self, k: int, terrain: int, huts: int) -> int:
        """Points each colour present scores for the ``k``-th village (0-based) of ``huts`` huts.

        Rulebook "Village Scoring": huts + epoch bonus on favourable terrain, 0 on hostile
        terrain, huts alone otherwise; the 12th village (``k == 11``) always gets a 5-point
        bonus regardless of terrain (rulebook; design ruling 6).
        """
        if k == NUM_CHIPS - 1:
            return huts + 5
        e = int(self.village_epoch[k])
        if self.hostile[e] == terrain:
            return 0
        if self.favourable[e] == -1 or self.favourable[e] == terrain:
            return huts + self.bonus[e]
        return huts


def _load() -> dict:
    with open(DATA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


_DATA = _load()
_AREAS = sorted(_DATA["areas"], key=lambda a: a["id"])
NUM_AREAS = len(_AREAS)
AREA_TERRAIN = np.array([TERRAINS.index(a["terrain"]) for a in _AREAS], dtype=np.int64)
AREA_REGION = np.array([a["region"] for a in _AREAS], dtype=np.int64)
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(a["neighbours"])) for a in _AREAS)
MAX_DEGREE = max(len(n) for n in NEIGHBOURS)
_edges = [(s, d) for s in range(NUM_AREAS) for d in NEIGHBOURS[s]]
EDGE_SRC = np.array([e[0] for e in _edges], dtype=np.int64)
EDGE_DST = np.array([e[1] for e in _edges], dtype=np.int64)
NUM_EDGES = len(_edges)
EDGE_ID: dict[tuple[int, int], int] = {e: i for i, e in enumerate(_edges)}
CENTROIDS = np.array([a["centroid_px"] for a in _AREAS], dtype=np.float64)
POLYGONS = [np.array(a["polygon_px"], dtype=np.float64) for a in _AREAS]
LAKES: tuple[tuple[int, ...], ...] = tuple(tuple(l["bordering_areas"]) for l in _DATA["lakes"])
BOARD_SIZE_PX = (989, 768)
SOURCE = dict(_DATA["source"])
#: regions as tuples of their 5 areas
REGIONS: tuple[tuple[int, ...], ...] = tuple(
    tuple(int(a) for a in np.flatnonzero(AREA_REGION == r)) for r in range(int(AREA_REGION.max()) + 1)
)


def _chart(name: str, raw: dict) -> EpochChart:
    def tid(t: str | None) -> int:
        return -1 if t in (None, "all") else TERRAINS.index(t)

    vpe = tuple(int(v) for v in raw["villages_per_epoch"])
    return EpochChart(
        name=name,
        villages_per_epoch=vpe,
        favourable=tuple(tid(t) for t in raw["favourable"]),
        hostile=tuple(tid(t) for t in raw["hostile"]),
        bonus=tuple(int(b) for b in raw["bonus"]),
        village_epoch=np.repeat(np.arange(len(vpe)), vpe).astype(np.int64),
    )


EPOCH_CHARTS: dict[str, EpochChart] = {k: _chart(k, v) for k, v in _DATA["epoch_charts"].items()}
NUM_EPOCHS = 5
