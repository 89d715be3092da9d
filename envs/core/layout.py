"""Named, fixed-size vector layouts for observations, states and action ids.

Every game builds its observation vector and its action ids from one :class:`Layout`, so that the
encoder, the documentation table, the heuristics that read observations and the tests all use the
same index ranges. A layout is a list of named fields, each a block of ``size`` consecutive
entries with an optional ``shape`` (row-major) and a one-line meaning.

Example::

    layout = Layout()
    layout.add("track", (4, 4), "one-hot position of each clan on the track, row = clan")
    layout.add("hand", 32, "count of each card in own hand")
    obs = layout.zeros()                     # float32 (layout.size,)
    layout.view(obs, "track")[2, 0] = 1.0    # write through a reshaped view
    layout.table()                           # markdown table: index range -> meaning
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np


@dataclass(frozen=True)
class Field:
    """One block of a layout: ``start:stop`` indices, reshaped to ``shape``."""

    name: str
    start: int
    shape: tuple[int, ...]
    meaning: str
    #: number of entries in the block
    size: int
    #: one past the last index of the block
    stop: int

    @property
    def slice(self) -> slice:
        """``slice(start, stop)`` into the flat vector."""
        return slice(self.start, self.stop)


class Layout:
    """An ordered set of named fields making up a flat vector (observation or action ids).

    Raises:
        ValueError: when a field name is repeated, a size is not positive, or an unknown field
            is asked for.
    """

    def __init__(self) -> None:
        self._fields: dict[str, Field] = {}
        self.size = 0

    def add(self, name: str, shape: int | tuple[int, ...], meaning: str) -> Field:
        """Append a field of ``shape`` entries and return it."""
        if name in self._fields:
            raise ValueError(f"layout field {name!r} is already defined")
        shape_t = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        if not shape_t or any(s <= 0 for s in shape_t):
            raise ValueError(f"layout field {name!r} needs a positive shape, got {shape!r}")
        size = int(np.prod(shape_t, dtype=np.int64))
        field = Field(name, self.size, shape_t, meaning, size, self.size + size)
        self._fields[name] = field
        self.size = field.stop
        return field

    def __getitem__(self, name: str) -> Field:
        try:
            return self._fields[name]
        except KeyError:
            raise ValueError(
                f"unknown layout field {name!r}; known: {', '.join(self._fields)}"
            ) from None

    def __iter__(self) -> Iterator[Field]:
        return iter(self._fields.values())

    def __contains__(self, name: object) -> bool:
        return name in self._fields

    def zeros(self, dtype: type = np.float32) -> np.ndarray:
        """A new zero vector of shape ``(size,)``."""
        return np.zeros(self.size, dtype=dtype)

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """A writable view of field ``name`` in ``vector``, reshaped to the field's shape."""
        f = self[name]
        return vector[f.start : f.stop].reshape(f.shape)

    def field_of(self, index: int) -> tuple[Field, tuple[int, ...]]:
        """The field holding flat ``index`` and the index inside the field's shape."""
        if not 0 <= index < self.size:
            raise ValueError(f"index {index} is outside the layout's 0..{self.size - 1}")
        for f in self._fields.values():
            if f.start <= index < f.stop:
                return f, tuple(int(i) for i in np.unravel_index(index - f.start, f.shape))
        raise AssertionError("unreachable")  # pragma: no cover

    def table(self) -> str:
        """A markdown table: index range, name, shape, meaning (used in docstrings and README)."""
        rows = ["| indices | field | shape | meaning |", "|---|---|---|---|"]
        for f in self._fields.values():
            rng = f"{f.start}" if f.size == 1 else f"{f.start}–{f.stop - 1}"
            shape = "×".join(str(s) for s in f.shape)
            rows.append(f"| {rng} | `{f.name}` | {shape} | {f.meaning} |")
        return "\n".join(rows)
