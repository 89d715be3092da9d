"""Prowl: Clans & Cunning — engine, card data and effect registries."""

from .cards import CLANS, CardSpec, register_clan, register_effect, register_handler, register_leader_condition
from .engine import ProwlState, build_layout

__all__ = ["CLANS", "CardSpec", "ProwlState", "build_layout", "register_clan", "register_effect",
           "register_handler", "register_leader_condition"]
