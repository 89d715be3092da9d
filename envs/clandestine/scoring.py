"""Clandestine final scoring, tie-breaks and returns.

Pure rules logic over plain values; no engine state, no PettingZoo.

Sources: rulebook "The End" (the ten-bullet Intrigue list, the tie-break, Victor's 72) and
"Chaos" ("you lose Intrigue equal to your highest filled Chaos slot's Intrigue value"); design
``clandestine_content.md`` §1.6 and the JSON ``scoring`` section (``human``,
``silver_guard_pre_step``, ``tie_break``, ``returns``), §5.1 (Chaos meter: overflow counts as the
top slot, ruling 6), §5.4 (the Twilight Masks' purge score, ruling 11), §11 (``margin_weight``,
``margin_scale``), rulings 26 (Relic Intrigue) and 27 (ties).

Usage: fill one :class:`ScoreSheet` per human seat from the end-of-game state (after the Silver
Guard pre-step, :func:`silver_guard_pre_step`), :func:`score` it into a :class:`SeatScore`; a
Nemesis seat is :func:`nemesis_score` (its Intrigue comes from design §10.8). Then
:func:`winners` applies the tie-break and :func:`returns` gives the returns vector.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

import numpy as np

DATA_PATH = Path(__file__).with_name("data") / "clandestine_content.json"

#: The ten human scoring categories, in the rulebook's order (JSON ``scoring.human``), which is
#: also the tie-break order.
CATEGORIES: tuple[str, ...] = (
    "level", "conjunction", "flag_relics", "tucked_relics", "secrets_in_hand",
    "society_leaders", "universal_followers", "tokens_and_tiles", "chaos", "purged_chaos")
#: Intrigue per Conjunction goal match (max 6 matches = 12), per own Society Leader in the City,
#: per Universal Follower on the Society path; Twilight: 3 per 2 Chaos purged.
CONJUNCTION_PER_MATCH = 2
MAX_CONJUNCTION_MATCHES = 6
LEADER_INTRIGUE = 3
UF_INTRIGUE = 1
PURGE_INTRIGUE_PER_PAIR = 3
#: First-to-Level tile Levels (tie-break order V > IV > III > II, design §9).
FTL_LEVELS: tuple[int, ...] = (2, 3, 4, 5)
SOCIETIES: tuple[str, ...] = ("mariners", "garden", "twilight", "serpent", "blue")

__all__ = [
    "CATEGORIES", "Categories", "ScoreSheet", "SeatScore", "SilverGuardDiscard",
    "chaos_penalty", "chaos_penalties", "ftl_intrigue", "score", "nemesis_score", "winners",
    "returns", "final_returns", "silver_guard_pre_step", "society_relic_slots",
    "DEFAULT_MARGIN_WEIGHT", "DEFAULT_MARGIN_SCALE", "GOAL_GROUPS", "conjunction_matches",
]


# ------------------------------------------------------------------------------ packaged data
@functools.cache
def _data() -> dict:
    with open(DATA_PATH, encoding="utf-8") as fh:
        d = json.load(fh)
    human = d.get("scoring", {}).get("human")
    if not isinstance(human, list) or len(human) != len(CATEGORIES):
        raise ValueError(f"{DATA_PATH.name}: scoring.human must list {len(CATEGORIES)} "
                         f"categories, got {human!r}")
    return d


def _parameter(name: str) -> float:
    try:
        return _data()["variants"]["parameters"][name]["default"]
    except KeyError:
        raise ValueError(f"{DATA_PATH.name}: variants.parameters.{name}.default missing") from None


#: Defaults of the margin term (design §11 ``variants.parameters``): 0.0 and 40.
DEFAULT_MARGIN_WEIGHT: float = float(_parameter("margin_weight"))
DEFAULT_MARGIN_SCALE: float = float(_parameter("margin_scale"))


def chaos_penalties(society: str) -> tuple[int, ...]:
    """A Society's Chaos meter penalties, bottom slot first (design §5.1
    ``societies.<id>.chaos.penalty``). ValueError for an unknown Society."""
    socs = _data()["societies"]
    if society not in socs:
        raise ValueError(f"unknown Society {society!r}; Societies are {', '.join(socs)}")
    return tuple(int(p) for p in socs[society]["chaos"]["penalty"])


def ftl_intrigue(level: int) -> int:
    """Intrigue of the First-to-Level tile of ``level`` (II..V: 3, 4, 5, 6; design §9), part of
    category 8 ("Intrigue tokens + flag tiles") for a human holder."""
    for t in _data()["ascension"]["tiles"]:
        if t.get("kind") == "first_to_level" and t["level"] == level:
            return int(t["score"])
    raise ValueError(f"no First-to-Level tile for Level {level!r}; Levels are {FTL_LEVELS}")


def society_relic_slots(society: str) -> tuple[tuple[int, str], ...]:
    """``(slot, chamber)`` pairs of a Society's six Relic slots (design §5.1
    ``societies.<id>.relic_slots``), for :func:`silver_guard_pre_step`."""
    socs = _data()["societies"]
    if society not in socs:
        raise ValueError(f"unknown Society {society!r}; Societies are {', '.join(socs)}")
    return tuple((int(s["slot"]), s["chamber"]) for s in socs[society]["relic_slots"])


# ------------------------------------------------------------------------------ Chaos
def chaos_penalty(chaos: int, penalties: Sequence[int]) -> int:
    """Intrigue lost for ``chaos`` tokens on the meter (rulebook "Chaos": the highest filled
    slot's value; ruling 6: overflow beyond the meter counts as the top slot). ``chaos`` counts
    the meter plus overflow, not the Masks' Chaos on your alchemy panels. Returns a value >= 0
    (0 with no Chaos). ValueError on a negative count or an empty penalty table."""
    chaos = _nonneg("chaos", chaos)
    if chaos == 0:
        return 0
    if not penalties:
        raise ValueError("chaos_penalties is empty but the seat has Chaos")
    return int(penalties[min(chaos, len(penalties)) - 1])


def _nonneg(name: str, x) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {x!r}")
    return int(x)


# ------------------------------------------------------------------------------ Conjunction goal
#: Goal positions per Chamber (design §8: slot 1 = C1, slots 2-3 = C2 in either order, slots 4-5
#: = C3 in either order, slot 6 = C4), as 0-based slot index groups.
GOAL_GROUPS: tuple[tuple[int, ...], ...] = ((0,), (1, 2), (3, 4), (5,))


def conjunction_matches(goal: Sequence[str], slots: Sequence[Sequence[str] | None]) -> int:
    """Assigned Relics matching the Conjunction goal under the best choice (design §8, JSON
    ``procedures.conjunction_check``; rulebook "Goals": "Relics in Chambers with two slots can
    match the goal for their Chamber in either order"): the input of scoring category 2.

    ``goal``: the card's six suits (slot order); ``slots``: for Relic slots 1..6, ``None`` (empty)
    or the suits that Relic may show (a Bright Relic its suit, a Dark Relic its suit and its
    alternate suit, one of them per use). Returns 0..6; 6 means the goal is complete (the
    Conjunction Secret goes to hand). Each Chamber is matched independently, a two-slot Chamber
    in the better of its two orders. ValueError for a goal or slot list not of length 6.
    """
    if len(goal) != 6 or len(slots) != 6:
        raise ValueError(f"goal and slots must both have 6 entries, got {len(goal)} and "
                         f"{len(slots)}")
    total = 0
    for group in GOAL_GROUPS:
        if len(group) == 1:
            i = group[0]
            total += int(slots[i] is not None and goal[i] in slots[i])
            continue
        a, b = group
        straight = (int(slots[a] is not None and goal[a] in slots[a])
                    + int(slots[b] is not None and goal[b] in slots[b]))
        crossed = (int(slots[a] is not None and goal[b] in slots[a])
                   + int(slots[b] is not None and goal[a] in slots[b]))
        total += max(straight, crossed)
    return total


# ------------------------------------------------------------------------------ score sheet
class Categories(NamedTuple):
    """A human seat's Intrigue by category, in :data:`CATEGORIES` order (signed: ``chaos`` is
    the negative penalty). The tie-break compares these in order."""

    level: int
    conjunction: int
    flag_relics: int
    tucked_relics: int
    secrets_in_hand: int
    society_leaders: int
    universal_followers: int
    tokens_and_tiles: int
    chaos: int
    purged_chaos: int


@dataclass(frozen=True)
class ScoreSheet:
    """What a human seat brings to final scoring (rulebook "The End"; design §1.6), already
    evaluated from the end-of-game state. All counts are ints >= 0.

    * ``level``: Level 1..5 (scores Level squared).
    * ``conjunction_matches``: assigned Relics matching the claimed Conjunction goal, 0..6
      (2 each, at most 12; 0 without a Conjunction or with ``conjunctions`` off).
    * ``flag_relics``: Intrigue of the flag-header Relics assigned in the Chambers.
    * ``tucked_relics``: summed Intrigue of the Relics tucked by Ascending (ruling 26).
    * ``secrets_in_hand``: summed Intrigue of the Secrets in hand.
    * ``society_leaders``: own Society Leaders in the City, 0..6 (3 each).
    * ``universal_followers``: Universal Followers on the seat's Society path (1 each).
    * ``intrigue_tokens`` and ``flag_tiles``: Intrigue tokens gained, and the Intrigue of the
      flag tiles held (Ascension, Starting and First-to-Level tiles; :func:`ftl_intrigue`).
    * ``chaos``: Chaos on the meter plus overflow; ``chaos_penalties``: the Society's meter
      (:func:`chaos_penalties`), needed when ``chaos > 0``.
    * ``purged_chaos``: Chaos the Twilight Masks removed by Purge Actions over the game
      (ruling 11); must be 0 unless ``twilight``.
    * ``first_to_level``: Levels (2..5) of the First-to-Level tiles held, for the tie-break only
      (their Intrigue belongs in ``flag_tiles``).

    ValueError names any out-of-range field.
    """

    level: int
    conjunction_matches: int = 0
    flag_relics: int = 0
    tucked_relics: int = 0
    secrets_in_hand: int = 0
    society_leaders: int = 0
    universal_followers: int = 0
    intrigue_tokens: int = 0
    flag_tiles: int = 0
    chaos: int = 0
    chaos_penalties: tuple[int, ...] = ()
    purged_chaos: int = 0
    twilight: bool = False
    first_to_level: tuple[int, ...] = ()

    def __post_init__(self):
        for f in fields(self):
            if f.name in ("chaos_penalties", "twilight", "first_to_level"):
                continue
            _nonneg(f.name, getattr(self, f.name))
        if not 1 <= self.level <= 5:
            raise ValueError(f"level must be 1..5, got {self.level}")
        if self.conjunction_matches > MAX_CONJUNCTION_MATCHES:
            raise ValueError(f"conjunction_matches must be 0..{MAX_CONJUNCTION_MATCHES} (six "
                             f"Relic slots), got {self.conjunction_matches}")
        if self.society_leaders > 6:
            raise ValueError(f"society_leaders must be 0..6, got {self.society_leaders}")
        for p in self.chaos_penalties:
            _nonneg("chaos_penalties entry", p)
        if self.chaos and not self.chaos_penalties:
            raise ValueError("chaos > 0 needs the Society's chaos_penalties")
        if self.purged_chaos and not self.twilight:
            raise ValueError("purged_chaos scores only for the Twilight Masks (twilight=True)")
        if (len(set(self.first_to_level)) != len(self.first_to_level)
                or any(lv not in FTL_LEVELS for lv in self.first_to_level)):
            raise ValueError(f"first_to_level must hold distinct Levels from {FTL_LEVELS}, got "
                             f"{self.first_to_level!r}")

    @classmethod
    def for_society(cls, society: str, **kw) -> "ScoreSheet":
        """A sheet with ``chaos_penalties`` and ``twilight`` filled from the Society id."""
        return cls(chaos_penalties=chaos_penalties(society), twilight=society == "twilight",
                   **kw)


@dataclass(frozen=True)
class SeatScore:
    """A seat's final Intrigue and what the tie-break needs: ``total``, ``first_to_level``
    (Levels of First-to-Level tiles held; a Nemesis's face-down ones count), ``categories``
    (:class:`Categories`; ``None`` for a Nemesis) and ``nemesis``."""

    total: int
    first_to_level: tuple[int, ...] = ()
    categories: Categories | None = None
    nemesis: bool = False


def score(sheet: ScoreSheet) -> SeatScore:
    """Final Intrigue of a human seat (rulebook "The End"; JSON ``scoring.human``):

    1. Level squared; 2. 2 per Conjunction goal match (max 12); 3. flag Relics in Chambers;
    4. tucked Relics; 5. Secrets in hand; 6. 3 per own Society Leader in the City; 7. 1 per
    Universal Follower on your Society path; 8. Intrigue tokens + flag tiles; 9. minus the
    highest filled Chaos slot's penalty (:func:`chaos_penalty`); 10. Twilight Masks: 3 per 2
    Chaos purged (pairs rounded down).
    """
    cats = Categories(
        level=sheet.level ** 2,
        conjunction=CONJUNCTION_PER_MATCH * sheet.conjunction_matches,
        flag_relics=sheet.flag_relics,
        tucked_relics=sheet.tucked_relics,
        secrets_in_hand=sheet.secrets_in_hand,
        society_leaders=LEADER_INTRIGUE * sheet.society_leaders,
        universal_followers=UF_INTRIGUE * sheet.universal_followers,
        tokens_and_tiles=sheet.intrigue_tokens + sheet.flag_tiles,
        chaos=-chaos_penalty(sheet.chaos, sheet.chaos_penalties),
        purged_chaos=PURGE_INTRIGUE_PER_PAIR * (sheet.purged_chaos // 2) if sheet.twilight else 0,
    )
    return SeatScore(sum(cats), tuple(sheet.first_to_level), cats, False)


def nemesis_score(total: int, first_to_level: Sequence[int] = ()) -> SeatScore:
    """A Nemesis seat's :class:`SeatScore`: its Intrigue from the Nemesis scoring card (design
    §10.8, computed by the caller) and its First-to-Level tiles (face-down ones count)."""
    total = _nonneg("total", total)
    ftl = tuple(first_to_level)
    if len(set(ftl)) != len(ftl) or any(lv not in FTL_LEVELS for lv in ftl):
        raise ValueError(f"first_to_level must hold distinct Levels from {FTL_LEVELS}, got {ftl}")
    return SeatScore(total, ftl, None, True)


# ------------------------------------------------------------------------------ tie-break
def winners(scores: Sequence[SeatScore]) -> tuple[int, ...]:
    """Winning seats (indices into ``scores``, ascending) after the tie-break (rulebook "The
    End"; ruling 27; JSON ``scoring.tie_break``):

    Among the seats tied on the highest total: 1) the seat holding the highest First-to-Level
    tile wins (V > IV > III > II); 2) if no tied seat holds one, a Nemesis among them wins;
    otherwise the human categories are compared in :data:`CATEGORIES` order, keeping at each
    the seats with the highest value (the Chaos category is the signed, negative penalty);
    3) the seats still tied all win (shared win).

    ValueError for no seats, or a First-to-Level tile held by two seats (each tile exists once).
    """
    if not scores:
        raise ValueError("winners() needs at least one seat")
    held = [lv for s in scores for lv in s.first_to_level]
    if len(held) != len(set(held)):
        raise ValueError(f"a First-to-Level tile is held by two seats: {held}")
    best = max(s.total for s in scores)
    tied = [i for i, s in enumerate(scores) if s.total == best]
    if len(tied) == 1:
        return tuple(tied)
    top_ftl = {i: max(scores[i].first_to_level, default=0) for i in tied}
    if max(top_ftl.values()) > 0:
        m = max(top_ftl.values())
        return tuple(i for i in tied if top_ftl[i] == m)
    nem = [i for i in tied if scores[i].nemesis]
    if nem:
        return tuple(nem)
    for k in range(len(CATEGORIES)):
        for i in tied:
            if scores[i].categories is None:
                raise ValueError(f"seat {i} is human but has no categories")
        m = max(scores[i].categories[k] for i in tied)
        tied = [i for i in tied if scores[i].categories[k] == m]
        if len(tied) == 1:
            break
    return tuple(tied)


# ------------------------------------------------------------------------------ returns
def returns(totals: Sequence[int], winner_seats: Sequence[int], *,
            margin_weight: float = DEFAULT_MARGIN_WEIGHT,
            margin_scale: float = DEFAULT_MARGIN_SCALE) -> np.ndarray:
    """Returns of a finished game (design §1.6, JSON ``scoring.returns``), float64 array (n,):
    ``R_i = W_i + margin_weight * M_i`` with ``W_i = +1`` for each winner and ``-1`` otherwise
    (a Nemesis seat included), ``M_i = clip((I_i - max_{j != i} I_j) / margin_scale, -1, 1)``.

    ``totals``: final Intrigue per seat; ``winner_seats``: :func:`winners`. ValueError for fewer
    than 2 seats, a winner index out of range, ``margin_weight < 0`` or ``margin_scale <= 0``
    (design §11 parameters). Zeros before the end are the engine's business.
    """
    n = len(totals)
    if n < 2:
        raise ValueError(f"returns need at least 2 seats, got {n}")
    if not winner_seats or any(not 0 <= w < n for w in winner_seats):
        raise ValueError(f"winner_seats must be non-empty seat indices in 0..{n - 1}, got "
                         f"{tuple(winner_seats)}")
    if not np.isfinite(margin_weight) or margin_weight < 0:
        raise ValueError(f"margin_weight must be a float >= 0, got {margin_weight!r}")
    if not np.isfinite(margin_scale) or margin_scale <= 0:
        raise ValueError(f"margin_scale must be a number > 0, got {margin_scale!r}")
    tot = np.asarray(totals, dtype=np.float64)
    w = np.full(n, -1.0)
    w[list(winner_seats)] = 1.0
    if margin_weight == 0:
        return w
    others_best = np.array([np.max(np.delete(tot, i)) for i in range(n)])
    margin = np.clip((tot - others_best) / margin_scale, -1.0, 1.0)
    return w + margin_weight * margin


def final_returns(scores: Sequence[SeatScore], *, margin_weight: float = DEFAULT_MARGIN_WEIGHT,
                  margin_scale: float = DEFAULT_MARGIN_SCALE) -> np.ndarray:
    """:func:`returns` of :func:`winners` for the given seat scores."""
    return returns([s.total for s in scores], winners(scores), margin_weight=margin_weight,
                   margin_scale=margin_scale)


# ------------------------------------------------------------------------------ Silver Guard hook
class SilverGuardDiscard(NamedTuple):
    """What the Silver Guard pre-step clears on one human tableau: ``chambers`` (ids whose pawns
    are discarded) and ``slots`` (Relic slots whose Relics are discarded)."""

    chambers: tuple[str, ...]
    slots: tuple[int, ...]


def silver_guard_pre_step(agents: Mapping[str, int],
                          relic_slots: Sequence[tuple[int, str]]) -> SilverGuardDiscard:
    """Hook for the Silver Guard scoring pre-step (rulebook "Agents on Chamber Spaces"; JSON
    ``scoring.silver_guard_pre_step``): before scoring, every human Chamber holding an Agent
    loses all pawns on it and all Relics assigned to it.

    ``agents``: Chamber id (``C1``..``C4``) -> Agents on it; ``relic_slots``: the Society's
    ``(slot, chamber)`` pairs (:func:`society_relic_slots`). Returns the Chambers and slots to
    clear; the caller removes those pawns and Relics (to the discard pile) before filling the
    :class:`ScoreSheet`. Without a Silver Guard ``agents`` is empty and nothing is cleared.
    """
    known = {c for _, c in relic_slots} | {"C1", "C2", "C3", "C4"}
    for c, n in agents.items():
        if c not in known:
            raise ValueError(f"unknown Chamber {c!r}; Chambers are C1..C4")
        _nonneg(f"agents[{c}]", n)
    hit = tuple(sorted(c for c, n in agents.items() if n > 0))
    return SilverGuardDiscard(hit, tuple(s for s, c in relic_slots if c in hit))
