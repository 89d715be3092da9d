"""Clans (rules/clans.txt): engine, board tables and rendering. See :mod:`envs.clans.engine`."""

from .engine import NUM_ACTIONS, NUM_MOVE_ACTIONS, NUM_ORDER_ACTIONS, ClansState, observation_layout

__all__ = ["ClansState", "NUM_ACTIONS", "NUM_MOVE_ACTIONS", "NUM_ORDER_ACTIONS",
           "observation_layout"]
