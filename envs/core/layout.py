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
        #: name -> (start, stop, shape, or None for a one-axis field): :meth:`view`'s look-up
        self._spans: dict[str, tuple[int, int, tuple[int, ...] | None]] = {}
        #: ``(vector, {name: view})`` for the last vector viewed: encoders view the same fields
        #: of one vector many times. One tuple, read once, so that a reader never pairs one
        #: vector with another's views.
        self._views: tuple[np.ndarray | None, dict[str, np.ndarray]] = (None, {})

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_views"] = (None, {})  # the views cache is never copied or pickled
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "_spans" not in state:  # pickled before the look-up existed
            self._spans = {f.name: (f.start, f.stop, f.shape if len(f.shape) > 1 else None)
                           for f in self._fields.values()}
        self._views = (None, {})

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
        self._spans[name] = (field.start, field.stop, shape_t if len(shape_t) > 1 else None)
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
        """A writable view of field ``name`` in ``vector``, reshaped to the field's shape.

        The views of the last vector viewed are kept, so asking again for a field of the same
        vector returns the same view object (observation encoders view a field many times).

        Raises:
            ValueError: ``name`` is not a field of this layout.
        """
        vec, views = self._views
        if vec is vector:
            out = views.get(name)
            if out is not None:
                return out
        else:
            views = {}
            self._views = (vector, views)
        try:
            start, stop, shape = self._spans[name]
        except KeyError:
            self[name]  # raises the ValueError naming the known fields
            raise
        out = vector[start:stop] if shape is None else vector[start:stop].reshape(shape)
        views[name] = out
        return out

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
