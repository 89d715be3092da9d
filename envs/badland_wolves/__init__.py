"""Badland Wolves: wolves hunt for Scrap cards and fight for each other's Loyalty tokens.

Rules engine :class:`BadlandWolvesState` (``engine.py``), card data (``cards.py``).
"""

from .engine import BadlandWolvesState, action_layout, observation_layout

__all__ = ["BadlandWolvesState", "action_layout", "observation_layout"]
