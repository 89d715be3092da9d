"""Clans (rules/clans.txt): engine, board tables and rendering. See :mod:`envs.clans.engine`."""

from .engine import (NUM_ACTIONS, NUM_MOVE_ACTIONS, NUM_ORDER_ACTIONS, PUBLIC_EVENTS, ClansState,
                     observation_layout)

__all__ = ["ClansState", "NUM_ACTIONS", "NUM_MOVE_ACTIONS", "NUM_ORDER_ACTIONS",
           "PUBLIC_EVENTS", "observation_layout"]
