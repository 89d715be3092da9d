"""Badland Wolves card data (rulebook "Components", "Scrap Cards", "Hunt Cards").

Every count below is the rulebook's. Card *types* are small integers so that hands, piles and
observations are count vectors indexed by type.
"""

from __future__ import annotations

import numpy as np

#: Scrap card types, in the order of the rulebook's appendix.
SCRAP_NAMES: tuple[str, ...] = (
    "Tooth & Claw", "Frenzy", "Ravenous", "Crow's Ally", "Thorn Tied",
    "Antler", "Bone", "Skull", "Feather",
)
#: copies of each Scrap card type (rulebook: 20, 5, 4, 4, 4, 6, 6, 6, 5 = 60 cards)
SCRAP_COUNTS: tuple[int, ...] = (20, 5, 4, 4, 4, 6, 6, 6, 5)
TC, FRENZY, RAVENOUS, CROWS_ALLY, THORN, ANTLER, BONE, SKULL, FEATHER = range(9)
NUM_SCRAP_TYPES = 9
NUM_SCRAP = sum(SCRAP_COUNTS)

#: Hunt card types (rulebook "Hunt Cards").
HUNT_NAMES: tuple[str, ...] = (
    "Deer", "Bighorn Ram", "Bison", "Rabbit", "Cougar", "Jackalope", "Rattlesnake",
    "Porcupine", "Weasel", "Grizzly Bear", "Crow", "Fox",
)
#: copies of each Hunt card type (rulebook: 6, 6, 6, 7, 4, 2, 4, 4, 4, 4, 4, 4 = 55 cards)
HUNT_COUNTS: tuple[int, ...] = (6, 6, 6, 7, 4, 2, 4, 4, 4, 4, 4, 4)
(DEER, RAM, BISON, RABBIT, COUGAR, JACKALOPE, RATTLESNAKE, PORCUPINE, WEASEL, GRIZZLY, CROW,
 FOX) = range(12)
NUM_HUNT_TYPES = 12
NUM_HUNT = sum(HUNT_COUNTS)

#: Scrap cards drawn to share by Deer / Bighorn Ram / Bison (rulebook "Hunt Cards")
SHARE_DRAW = {DEER: 2, RAM: 3, BISON: 5}

#: Loyalty tokens per wolf colour (rulebook "Setup") and the Allegiance threshold (ruling 2)
TOKENS_PER_COLOUR = 5
ALLEGIANCE_AT = 3

#: Defences (ruling 8): index -> cards played. 0-3 answer Tooth & Claw; 1 and 4-6 answer Frenzy.
DEFENCES: tuple[tuple[int, ...], ...] = (
    (TC,), (FRENZY,), (RAVENOUS,), (THORN,),
    (TC, TC), (TC, THORN), (TC, RAVENOUS),
)
DEFENCE_NAMES: tuple[str, ...] = (
    "Tooth & Claw", "Frenzy", "Ravenous", "Thorn Tied",
    "Tooth & Claw pair", "Tooth & Claw + Thorn Tied", "Tooth & Claw + Ravenous",
)
#: defences allowed against an attack of strength 1 (Tooth & Claw) and 2 (Frenzy)
DEFENCES_VS = {1: (0, 1, 2, 3), 2: (1, 4, 5, 6)}
#: defences whose cards include Ravenous / Thorn Tied (their special outcome applies)
RAVENOUS_DEFENCES = frozenset({2, 6})
THORN_DEFENCES = frozenset({3, 5})
#: how many of each Scrap type a defence needs, per defence index
DEFENCE_NEEDS = np.zeros((len(DEFENCES), NUM_SCRAP_TYPES), dtype=np.int64)
for _d, _cards in enumerate(DEFENCES):
    for _c in _cards:
        DEFENCE_NEEDS[_d, _c] += 1

SCRAP_COUNTS_ARR = np.array(SCRAP_COUNTS, dtype=np.int64)
HUNT_COUNTS_ARR = np.array(HUNT_COUNTS, dtype=np.int64)
