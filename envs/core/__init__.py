"""Shared plumbing of every Cunning game: engine contract, layouts, errors, the AEC wrapper."""

from .errors import ConfigError, CunningError, IllegalActionError, RecordError
from .layout import Field, Layout
from .state import GameState

__all__ = ["ConfigError", "CunningError", "Field", "GameState", "IllegalActionError", "Layout",
           "RecordError"]
