"""Clandestine Ascend: the cost to gain a Level and how it is paid.

Pure rules logic over plain values; no engine state, no PettingZoo.

Sources: rulebook "Actions / Ascend" and "Levels / Ascending" (cost on the dial under "Next":
Gold plus matching Suits; reduce EITHER the Gold by Strength OR the Suit cost by half the
Strength, rounded down; discard Relics and Secrets until their matching icons cover the Suit
cost; "You may not discard more cards than necessary"); "Bright and Dark Relics" (a Dark Relic's
alternate Suit: "either of the values (but not both)"); design ``clandestine_content.md`` §1.3
(``actions.ascend``), §1.7 (decisions ``ascend_suit``, ``ascend_reduction``, ``ascend_card``,
``board_pick``), §5.1 (the dial), §9 (the Ascension board), ruling 23 (mods first, Suit cost
min 1; then the reduction, each min 0) and ruling 33 (an Ascend at Level V does nothing;
declining is always allowed).

The Ascend decision sequence this module supports (design §1.7):

1. ``ascend_suit``: :func:`payable_suits` / :func:`suit_mask` (PASS = decline).
2. ``ascend_reduction``: :func:`payable_reductions` (OPT 0 = Gold by Strength, 1 = Suit cost by
   floor(Strength / 2)); :func:`reduce_cost` gives the final cost.
3. ``ascend_card``: :func:`card_choices` after each pick, until :func:`covered`; the picked set is
   then a minimal payment (:func:`is_minimal_payment`).
4. Gaining a Level step 5 (``board_pick``): :func:`board_pick_slots`.

A card offered for payment is a :class:`SuitCard` (id, Relic or Secret, and how many icons it can
contribute to a payment in each Suit).
"""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

DATA_PATH = Path(__file__).with_name("data") / "clandestine_content.json"

#: The four Suits in the design's order (``constants.suits``; the SUIT action block).
SUITS: tuple[str, ...] = ("Rod", "Sword", "Disk", "Chalice")
SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
#: ``ascend_reduction`` options (design §1.7: OPT 0 / OPT 1).
REDUCE_GOLD = 0
REDUCE_SUIT = 1
#: The highest Level; an Ascend there does nothing (ruling 33).
MAX_LEVEL = 5

__all__ = [
    "SUITS", "SUIT_INDEX", "REDUCE_GOLD", "REDUCE_SUIT", "MAX_LEVEL", "SuitCard", "AscendCost",
    "DialRow", "society_dial", "relic_card", "secret_card", "ascend_cost", "reduce_cost",
    "suit_total", "can_pay", "payable_reductions", "payable_suits", "suit_mask",
    "is_minimal_payment", "covered", "card_choices", "minimal_payments", "board_pick_slots",
]


# ------------------------------------------------------------------------------ records
@dataclass(frozen=True)
class SuitCard:
    """A hand card as a means of payment: ``id`` (Relic ``R001``.., Secret ``mariners-1-01``..),
    ``kind`` (``"relic"`` or ``"secret"``) and ``icons``: for each Suit in :data:`SUITS` order, the
    icons this card contributes to a payment in that Suit.

    A Dark Relic lists its primary icons under its suit and its alternate icons under its
    alternate suit; since every icon of a payment must match one Suit, a card never contributes
    both (rulebook "Bright and Dark Relics"). ValueError on a bad kind or icon vector.
    """

    id: str
    kind: str
    icons: tuple[int, int, int, int]

    def __post_init__(self):
        if self.kind not in ("relic", "secret"):
            raise ValueError(f"SuitCard {self.id!r}: kind must be 'relic' or 'secret', got "
                             f"{self.kind!r}")
        if (not isinstance(self.icons, tuple) or len(self.icons) != 4
                or any(isinstance(n, bool) or not isinstance(n, int) or n < 0
                       for n in self.icons)):
            raise ValueError(f"SuitCard {self.id!r}: icons must be a tuple of 4 ints >= 0 "
                             f"(Rod, Sword, Disk, Chalice), got {self.icons!r}")

    @classmethod
    def relic(cls, id: str, suit: str, icons: int, alt_suit: str | None = None,
              alt_icons: int = 0) -> "SuitCard":
        """A Relic's payment card from its printed fields (design §7: ``suit``, ``icons``,
        ``alt_suit``, ``alt_icons``; the shared content module's Relic has the same names)."""
        vec = [0, 0, 0, 0]
        vec[_suit_index(suit)] = int(icons)
        if alt_suit is not None:
            if alt_suit == suit:
                raise ValueError(f"Relic {id}: alternate suit equals its suit {suit}")
            vec[_suit_index(alt_suit)] = int(alt_icons)
        return cls(id, "relic", tuple(vec))

    @classmethod
    def secret(cls, id: str, suits: Sequence[str]) -> "SuitCard":
        """A Secret's payment card: one icon per entry of its ``suits`` (design §6: a Secret may
        show the same Suit twice, e.g. ``["Sword", "Sword"]`` = 2 Sword icons)."""
        vec = [0, 0, 0, 0]
        for s in suits:
            vec[_suit_index(s)] += 1
        return cls(id, "secret", tuple(vec))

    @classmethod
    def from_content(cls, card) -> "SuitCard":
        """From a content record: an object with ``id`` and ``suits`` is a Secret, one with
        ``id``, ``suit``, ``icons``, ``alt_suit``, ``alt_icons`` a Relic (the field names of the
        JSON and of the shared content module). ValueError for anything else."""
        if hasattr(card, "suits"):
            return cls.secret(card.id, card.suits)
        if all(hasattr(card, f) for f in ("suit", "icons", "alt_suit", "alt_icons")):
            return cls.relic(card.id, card.suit, card.icons, card.alt_suit, card.alt_icons)
        raise ValueError(f"cannot read a Relic or Secret from {card!r}")

    def contribution(self, suit: str) -> int:
        """Icons this card adds to a payment in ``suit``."""
        return self.icons[_suit_index(suit)]


class AscendCost(NamedTuple):
    """Cost of one Ascend: ``gold`` and ``suits`` (matching icons of the chosen Suit)."""

    gold: int
    suits: int


class DialRow(NamedTuple):
    """One Level of a Society's Ascension dial (design §5.1 ``societies.<id>.dial``); the shared
    content module's ``DialStep`` has the same field names. ``next_gold``/``next_suits`` are
    ``None`` at Level V."""

    level: int
    next_gold: int | None
    next_suits: int | None
    relic_max: int
    secret_max: int


def _suit_index(suit: str) -> int:
    try:
        return SUIT_INDEX[suit]
    except KeyError:
        raise ValueError(f"unknown Suit {suit!r}; Suits are {', '.join(SUITS)}") from None


def _int(name: str, x, lo: int | None = None) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {x!r}")
    if lo is not None and x < lo:
        raise ValueError(f"{name} must be >= {lo}, got {x}")
    return int(x)


# ------------------------------------------------------------------------------ packaged data
@functools.cache
def _data() -> dict:
    with open(DATA_PATH, encoding="utf-8") as fh:
        d = json.load(fh)
    if tuple(d.get("constants", {}).get("suits", ())) != SUITS:
        raise ValueError(f"{DATA_PATH.name}: constants.suits must be {SUITS} (the SUIT block "
                         f"order of design §1.7)")
    return d


def society_dial(society: str) -> tuple[DialRow, ...]:
    """The Ascension dial of a Society (``mariners``, ``garden``, ``twilight``, ``serpent``,
    ``blue``) from the packaged JSON, Levels I..V. ValueError for an unknown Society or a dial
    that is not Levels 1..5 with costs below V and none at V."""
    socs = _data()["societies"]
    if society not in socs:
        raise ValueError(f"unknown Society {society!r}; Societies are {', '.join(socs)}")
    rows = tuple(DialRow(**r) for r in socs[society]["dial"])
    if [r.level for r in rows] != [1, 2, 3, 4, 5] or rows[-1].next_gold is not None or any(
            r.next_gold is None or r.next_suits is None for r in rows[:-1]):
        raise ValueError(f"societies.{society}.dial: expected Levels 1..5 with a next cost "
                         f"below Level V and none at V, got {rows}")
    return rows


@functools.cache
def relic_card(relic_id: str) -> SuitCard:
    """The :class:`SuitCard` of a Relic id from the packaged JSON (design §7)."""
    for r in _data()["relics"]:
        if r["id"] == relic_id:
            return SuitCard.relic(r["id"], r["suit"], r["icons"], r["alt_suit"], r["alt_icons"])
    raise ValueError(f"unknown Relic id {relic_id!r}")


@functools.cache
def secret_card(secret_id: str) -> SuitCard:
    """The :class:`SuitCard` of a Secret id (Level I-IV or a Conjunction Secret) from the
    packaged JSON (design §6)."""
    d = _data()
    for cards in list(d["secrets"].values()) + [[c] for c in d["conjunction_secrets"].values()]:
        for c in cards:
            if c["id"] == secret_id:
                return SuitCard.secret(c["id"], c["suits"])
    raise ValueError(f"unknown Secret id {secret_id!r}")


# ------------------------------------------------------------------------------ cost
def ascend_cost(dial: Sequence, level: int, *, ascend_gold: int = 0,
                ascend_suit: int = 0) -> AscendCost | None:
    """Cost to gain the next Level from ``level`` (rulebook "Ascending": "written on the
    Ascension wheel ... under Next"), with the eye mods applied (design §1.3, ruling 23):
    Gold = max(0, next_gold + ascend_gold), Suits = max(1, next_suits + ascend_suit).

    ``dial``: the Society's rows (:class:`DialRow` or anything with ``level``, ``next_gold``,
    ``next_suits``), Levels I..V in order. ``ascend_gold``/``ascend_suit``: the sums of the
    active ``mods`` (e.g. R067 -2 Gold, R079 -4 Gold, R106 -1 Suit). Returns ``None`` at Level V
    (ruling 33: the Action does nothing). ValueError for a Level outside 1..5.
    """
    level = _int("level", level, 1)
    if level > MAX_LEVEL:
        raise ValueError(f"level must be 1..{MAX_LEVEL}, got {level}")
    ascend_gold = _int("ascend_gold", ascend_gold)
    ascend_suit = _int("ascend_suit", ascend_suit)
    row = dial[level - 1]
    if row.level != level:
        raise ValueError(f"dial row {level - 1} is for Level {row.level}, expected {level}")
    if level == MAX_LEVEL or row.next_gold is None:
        return None
    return AscendCost(max(0, row.next_gold + ascend_gold), max(1, row.next_suits + ascend_suit))


def reduce_cost(cost: AscendCost, strength: int, reduction: int) -> AscendCost:
    """Apply the Strength reduction (rulebook "Ascend": EITHER Gold by Strength OR the Suit cost
    by half the Strength rounded down, not both; each min 0, ruling 23). ``reduction`` is
    :data:`REDUCE_GOLD` or :data:`REDUCE_SUIT`. A negative Strength counts as 0 (design §1.3
    step 5 floors Strength at the formula). A Suit cost of 0 still names the Suit paid."""
    strength = max(0, _int("strength", strength))
    if reduction == REDUCE_GOLD:
        return AscendCost(max(0, cost.gold - strength), cost.suits)
    if reduction == REDUCE_SUIT:
        return AscendCost(cost.gold, max(0, cost.suits - strength // 2))
    raise ValueError(f"reduction must be REDUCE_GOLD (0) or REDUCE_SUIT (1), got {reduction!r}")


def _check_hand(hand: Sequence[SuitCard]) -> None:
    ids = [c.id for c in hand]
    if len(set(ids)) != len(ids):
        raise ValueError(f"a card id appears twice in the hand: {ids}")
    for c in hand:
        if not isinstance(c, SuitCard):
            raise ValueError(f"hand entries must be SuitCard, got {c!r}")


def suit_total(hand: Sequence[SuitCard], suit: str) -> int:
    """Icons of ``suit`` the whole hand could pay."""
    i = _suit_index(suit)
    return sum(c.icons[i] for c in hand)


def can_pay(hand: Sequence[SuitCard], gold: int, cost: AscendCost, suit: str) -> bool:
    """Whether ``gold`` and the hand's ``suit`` icons cover ``cost`` (a final, reduced cost)."""
    _check_hand(hand)
    gold = _int("gold", gold, 0)
    return gold >= cost.gold and suit_total(hand, suit) >= cost.suits


def payable_reductions(hand: Sequence[SuitCard], gold: int, cost: AscendCost | None,
                       strength: int, suit: str) -> tuple[bool, bool]:
    """For the ``ascend_reduction`` decision: whether paying ``suit`` is possible after reducing
    the Gold (index :data:`REDUCE_GOLD`) or the Suit cost (:data:`REDUCE_SUIT`). ``cost`` is
    :func:`ascend_cost` (``None`` at Level V: nothing is payable)."""
    if cost is None:
        return (False, False)
    return tuple(can_pay(hand, gold, reduce_cost(cost, strength, r), suit)
                 for r in (REDUCE_GOLD, REDUCE_SUIT))


def payable_suits(hand: Sequence[SuitCard], gold: int, cost: AscendCost | None,
                  strength: int) -> tuple[str, ...]:
    """Suits payable under some reduction (design §1.7 ``ascend_suit``), in :data:`SUITS`
    order; empty at Level V (``cost is None``) or when nothing can be paid."""
    return tuple(s for s in SUITS if any(payable_reductions(hand, gold, cost, strength, s)))


def suit_mask(hand: Sequence[SuitCard], gold: int, cost: AscendCost | None,
              strength: int) -> np.ndarray:
    """bool array of shape (4,) in :data:`SUITS` order: the SUIT block of ``ascend_suit``
    (PASS = decline is always legal besides)."""
    ok = set(payable_suits(hand, gold, cost, strength))
    return np.array([s in ok for s in SUITS], dtype=bool)


# ------------------------------------------------------------------------------ minimal payment
def is_minimal_payment(cards: Sequence[SuitCard], suit: str, suit_cost: int) -> bool:
    """Whether discarding exactly ``cards`` pays ``suit_cost`` icons of ``suit`` with no card
    removable (rulebook: "You may not discard more cards than necessary"; design §1.3): the
    icons cover the cost, and removing any one card would not. The empty set is minimal exactly
    when the cost is 0; a card adding no icon of the Suit is always removable.

    Equivalently: ``suit_cost <= total < suit_cost + (smallest contribution)``.
    """
    suit_cost = _int("suit_cost", suit_cost, 0)
    _check_hand(cards)
    contrib = [c.contribution(suit) for c in cards]
    total = sum(contrib)
    if not contrib:
        return suit_cost == 0
    return suit_cost <= total < suit_cost + min(contrib)


def covered(picked: Sequence[SuitCard], suit: str, suit_cost: int) -> bool:
    """Whether the cards picked so far already cover the Suit cost (the ``ascend_card`` sequence
    ends automatically then, design §1.7)."""
    return sum(c.contribution(suit) for c in picked) >= suit_cost


def _subset_sums(values: Sequence[int]) -> int:
    """Bitset of the sums reachable by sub-multisets of ``values`` (bit k set = sum k)."""
    bits = 1
    for v in values:
        bits |= bits << v
    return bits


def _extendable(chosen: list[int], rest: list[int], need: int) -> bool:
    """Can contributions ``chosen`` (all > 0) be completed with some of ``rest`` into a minimal
    payment of ``need`` icons?  A set D is minimal iff need <= sum(D) < need + min(D); try each
    possible minimum m <= min(chosen), completing only with cards of contribution >= m."""
    s = sum(chosen)
    top = min(chosen) if chosen else max(rest, default=0)
    for m in range(1, top + 1):
        lo, hi = need - s, need - s + m - 1
        if hi < 0:
            continue
        bits = _subset_sums([v for v in rest if v >= m])
        lo = max(lo, 0)
        if bits >> lo & ((1 << (hi - lo + 1)) - 1):
            return True
    return False


def card_choices(hand: Sequence[SuitCard], suit: str, suit_cost: int,
                 picked: Sequence[str] = ()) -> tuple[str, ...]:
    """Cards that may be discarded next while paying ``suit_cost`` icons of ``suit`` (design §1.7
    ``ascend_card``: "cards from hand that keep a minimal payment reachable").

    ``hand``: the cards in hand (the picked ones included); ``picked``: ids discarded so far in
    this payment. Returns ids in hand order; a card is offered iff some minimal payment
    (:func:`is_minimal_payment`) contains the picked cards and it. Empty once the cost is covered
    (the sequence ends) or when it cannot be paid. ValueError if a picked id is not in the hand,
    repeated, or if the picked cards cannot be completed into a minimal payment.
    """
    _check_hand(hand)
    suit_cost = _int("suit_cost", suit_cost, 0)
    by_id = {c.id: c for c in hand}
    if len(set(picked)) != len(picked):
        raise ValueError(f"a card was picked twice: {tuple(picked)}")
    for p in picked:
        if p not in by_id:
            raise ValueError(f"picked card {p!r} is not in the hand")
    chosen = [by_id[p].contribution(suit) for p in picked]
    if sum(chosen) >= suit_cost:
        if not is_minimal_payment([by_id[p] for p in picked], suit, suit_cost):
            raise ValueError(f"picked cards {tuple(picked)} are not a minimal payment of "
                             f"{suit_cost} {suit}")
        return ()
    if any(v == 0 for v in chosen):
        raise ValueError(f"picked cards {tuple(picked)} include a card without {suit} icons")
    others = [c for c in hand if c.id not in picked and c.contribution(suit) > 0]
    if picked and not _extendable(chosen, [c.contribution(suit) for c in others], suit_cost):
        raise ValueError(f"picked cards {tuple(picked)} cannot be completed into a minimal "
                         f"payment of {suit_cost} {suit}")
    out = []
    for i, c in enumerate(others):
        rest = [o.contribution(suit) for j, o in enumerate(others) if j != i]
        if _extendable(chosen + [c.contribution(suit)], rest, suit_cost):
            out.append(c.id)
    return tuple(out)


def minimal_payments(hand: Sequence[SuitCard], suit: str,
                     suit_cost: int) -> tuple[tuple[str, ...], ...]:
    """Every minimal payment (sets of card ids in hand order) by brute force over the subsets of
    the cards carrying ``suit``: for checks and small hands (2^k subsets, ValueError if the hand
    holds more than 20 such cards)."""
    _check_hand(hand)
    carriers = [c for c in hand if c.contribution(suit) > 0]
    if len(carriers) > 20:
        raise ValueError(f"minimal_payments enumerates 2^k subsets; {len(carriers)} cards is "
                         f"too many")
    out = []
    for k in range(len(carriers) + 1):
        for combo in itertools.combinations(carriers, k):
            if is_minimal_payment(combo, suit, suit_cost):
                out.append(tuple(c.id for c in combo))
    return tuple(out)


# ------------------------------------------------------------------------------ board pick
def board_pick_slots(new_level: int, suit: str) -> tuple[str, ...]:
    """Ascension board slots open to Gaining a Level step 5 (rulebook "Gaining a Level": "any
    Ascension slot ... less than or equal to your new Level in the column that matches the Suit
    you paid"; design §9, ``board_pick``): ids in ``ascension.board_slots`` order. Whether a slot
    holds a tile or only its empty-slot resources is the caller's state."""
    new_level = _int("new_level", new_level, 2)
    if new_level > MAX_LEVEL:
        raise ValueError(f"new_level must be 2..{MAX_LEVEL}, got {new_level}")
    _suit_index(suit)
    return tuple(s["id"] for s in _data()["ascension"]["board_slots"]
                 if s["level"] <= new_level and s["suit"] == suit)
