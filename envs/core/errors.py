"""Errors raised by every Cunning engine and environment."""

from __future__ import annotations


class CunningError(Exception):
    """Base class of the errors this package raises on purpose."""


class IllegalActionError(CunningError, ValueError):
    """An action id that is out of range or not legal in the current state.

    The message names the action (id and readable text when the id is in range), the seat that
    was to act and why the action is illegal. Raised by ``GameState.apply_action`` and by the
    PettingZoo environments' ``step``.
    """


class ConfigError(CunningError, ValueError):
    """A bad game configuration: the message names the parameter and its allowed values.

    Raised at construction of a state or environment (CONVENTIONS.md, "Bad configuration").
    """


class RecordError(CunningError, ValueError):
    """A game record that cannot be replayed (unknown game, malformed fields, illegal action)."""
