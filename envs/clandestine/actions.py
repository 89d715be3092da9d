"""The Clandestine action space: one ``Discrete(401)`` cut into 16 blocks (design §1.7).

Built from the JSON ``decisions.action_blocks`` as an :class:`envs.core.layout.Layout`, so the
documentation table, the masks and the decoders share one set of index ranges. Each decision
kind unmasks only the blocks it uses (see the engine). Table:

{table}

City spaces are seat-relative in the SPACE block: ``9 * seat_offset + local`` with
``seat_offset = (owner seat - deciding seat) mod N`` and ``local`` in ``Ka, Kb, S1, S2, S3, C1,
C2, C3, C4`` order, so the same id means "my own S1" for every deciding seat (self-play
symmetry). The PANEL block is relative too (opponent offset 1..4).
"""

from __future__ import annotations

from typing import NamedTuple

from envs.core.layout import Layout

from .city import SPACES_PER_SEAT, load_content

_BLOCKS = load_content()["decisions"]["action_blocks"]
NUM_ACTIONS = int(load_content()["decisions"]["num_actions"])


def action_layout() -> Layout:
    """The action-id :class:`Layout`: one field per block, in offset order (design §1.7).

    Raises:
        ValueError: the JSON blocks are not contiguous from 0 or do not end at ``num_actions``.
    """
    lay = Layout()
    for b in sorted(_BLOCKS, key=lambda b: b["offset"]):
        if b["offset"] != lay.size:
            raise ValueError(f"action block {b['block']} starts at {b['offset']}, expected "
                             f"{lay.size} (blocks must be contiguous)")
        lay.add(b["block"], int(b["size"]), b["meaning"])
    if lay.size != NUM_ACTIONS:
        raise ValueError(f"action blocks cover {lay.size} ids, decisions.num_actions is "
                         f"{NUM_ACTIONS}")
    return lay


ACTIONS = action_layout()
__doc__ = __doc__.format(table=ACTIONS.table())
#: Block names in offset order.
BLOCKS: tuple[str, ...] = tuple(f.name for f in ACTIONS)
#: First id of each block (e.g. ``OFFSET["SPACE"] == 9``) and its size.
OFFSET: dict[str, int] = {f.name: f.start for f in ACTIONS}
SIZE: dict[str, int] = {f.name: f.size for f in ACTIONS}
PASS = OFFSET["PASS"]


class ActionId(NamedTuple):
    """A decoded action id: ``block`` name and ``index`` inside the block."""

    block: str
    index: int


#: decoded action ids, index = id
_DECODED: tuple[ActionId, ...] = tuple(ActionId(f.name, i) for f in ACTIONS for i in range(f.size))


def encode(block: str, index: int) -> int:
    """Action id of entry ``index`` of ``block``.

    Raises:
        ValueError: unknown block or index outside ``0..size-1``.
    """
    f = ACTIONS[block]
    if isinstance(index, bool) or not isinstance(index, int) and not hasattr(index, "__index__"):
        raise ValueError(f"{block} index must be an integer, got {index!r}")
    if not 0 <= index < f.size:
        raise ValueError(f"{block} index {index} out of range 0..{f.size - 1}")
    return f.start + int(index)


def decode(action: int) -> ActionId:
    """``(block, index)`` of an action id.

    Raises:
        ValueError: ``action`` outside ``0..400``.
    """
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action id {a} is outside 0..{NUM_ACTIONS - 1}")
    return _DECODED[a]


#: ``(space, decider, num_players) -> index`` of :func:`space_to_index` and ``(index, decider,
#: num_players) -> space`` of :func:`index_to_space` for every valid triple (1..6 seats): the
#: encoders and masks ask for these thousands of times per game
_S2I: dict[tuple[int, int, int], int] = {}
_I2S: dict[tuple[int, int, int], int] = {}
for _n in range(1, 7):
    for _d in range(_n):
        for _sp in range(SPACES_PER_SEAT * _n):
            _i = SPACES_PER_SEAT * ((_sp // SPACES_PER_SEAT - _d) % _n) + _sp % SPACES_PER_SEAT
            _S2I[_sp, _d, _n] = _i
            _I2S[_i, _d, _n] = _sp


def space_to_index(space: int, decider: int, num_players: int) -> int:
    """SPACE-block index of absolute City space ``space`` (``9 * seat + local``) as seen by
    ``decider``: ``9 * ((seat - decider) mod N) + local``.

    Raises:
        ValueError: space or seat out of range.
    """
    try:
        return _S2I[space, decider, num_players]
    except (KeyError, TypeError):
        pass  # checked and computed below
    if not 0 <= space < SPACES_PER_SEAT * num_players:
        raise ValueError(f"City space {space} out of range 0..{SPACES_PER_SEAT * num_players - 1}")
    if not 0 <= decider < num_players:
        raise ValueError(f"deciding seat {decider} out of range 0..{num_players - 1}")
    seat, local = divmod(int(space), SPACES_PER_SEAT)
    return SPACES_PER_SEAT * ((seat - decider) % num_players) + local


def index_to_space(index: int, decider: int, num_players: int) -> int:
    """Absolute City space of SPACE-block ``index`` for ``decider`` (inverse of
    :func:`space_to_index`).

    Raises:
        ValueError: the index names a seat offset >= N, or a bad seat.
    """
    try:
        return _I2S[index, decider, num_players]
    except (KeyError, TypeError):
        pass  # checked and computed below
    if not 0 <= index < SPACES_PER_SEAT * num_players:
        raise ValueError(f"SPACE index {index} names no space with {num_players} seats "
                         f"(0..{SPACES_PER_SEAT * num_players - 1})")
    if not 0 <= decider < num_players:
        raise ValueError(f"deciding seat {decider} out of range 0..{num_players - 1}")
    off, local = divmod(int(index), SPACES_PER_SEAT)
    return SPACES_PER_SEAT * ((decider + off) % num_players) + local


def space_action(space: int, decider: int, num_players: int) -> int:
    """Action id choosing absolute City ``space`` for ``decider``."""
    return OFFSET["SPACE"] + space_to_index(space, decider, num_players)


def action_space(action: int, decider: int, num_players: int) -> int:
    """Absolute City space named by SPACE-block ``action`` for ``decider``.

    Raises:
        ValueError: ``action`` is not in the SPACE block or names no space.
    """
    blk = decode(action)
    if blk.block != "SPACE":
        raise ValueError(f"action {action} is in block {blk.block}, not SPACE")
    return index_to_space(blk.index, decider, num_players)
