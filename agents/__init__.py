"""Agents: uniform random, one scripted heuristic per game, learned-policy wrappers.

``make_agent(spec, game, config, seed)`` builds an agent from a command-line spec:

* ``random`` — :class:`agents.base.RandomAgent`;
* ``heuristic`` — the game's scripted heuristic (``HEURISTICS``), built as
  ``Cls(config, seed=seed)`` where ``config`` is the game's resolved configuration
  (``GameState.config``: every keyword, defaults filled in);
* ``heuristic:belief`` — the heuristic reading a belief tracker instead of its own counting
  (``BELIEF_HEURISTICS``; Prowl: the exact consistent posterior, docs/deduction.md); it
  declares ``needs_state = True``;
* ``ppo:PATH`` — a MaskablePPO policy saved at ``PATH`` (``.zip``), acting greedily
  (:class:`agents.learned.PolicyAgent`);
* ``ismcts:N`` — information set Monte Carlo tree search with N iterations per decision
  (:class:`agents.ismcts.ISMCTSAgent`), options after further colons: ``rollout=heuristic``,
  ``c=2.0``, ``seconds=1.5``, ``max_depth=2000`` (e.g. ``ismcts:200:rollout=heuristic``). It
  declares ``needs_state = True``: callers pass the game via :func:`agents.base.act_with_state`.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import Agent, RandomAgent, act_with_state, legal_ids

#: game -> "module:Class" of its scripted heuristic
HEURISTICS: dict[str, str] = {
    "prowl": "agents.prowl_heuristic:ProwlHeuristic",
    "badland_wolves": "agents.badland_wolves_heuristic:BadlandWolvesHeuristic",
    "clans": "agents.clans_heuristic:ClansHeuristic",
    "clandestine": "agents.clandestine_heuristic:ClandestineHeuristic",
}

#: game -> "module:Class" of its heuristic reading a belief tracker (spec ``heuristic:belief``)
BELIEF_HEURISTICS: dict[str, str] = {
    "prowl": "agents.prowl_heuristic:BeliefProwlHeuristic",
}


def heuristic_class(game: str) -> type:
    """The scripted heuristic class of ``game``. Raises ValueError for an unknown game."""
    if game not in HEURISTICS:
        raise ValueError(f"no heuristic for game {game!r}; known: {', '.join(sorted(HEURISTICS))}")
    module, _, cls = HEURISTICS[game].partition(":")
    return getattr(importlib.import_module(module), cls)


def make_agent(spec: str, game: str, config: dict[str, Any], seed: int | None = None) -> Agent:
    """An agent from ``spec`` (``random``, ``heuristic``, ``heuristic:belief``, ``ppo:PATH`` or
    ``ismcts:N[:...]``).

    Raises:
        ValueError: unknown spec form or game, a ``ppo:`` spec without a path;
            FileNotFoundError: a ``ppo:`` path is missing.
    """
    if spec == "random":
        return RandomAgent(seed=seed)
    if spec == "heuristic":
        return heuristic_class(game)(config, seed=seed)
    if spec == "heuristic:belief":
        if game not in BELIEF_HEURISTICS:
            raise ValueError(f"no belief-reading heuristic for game {game!r}; known: "
                             f"{', '.join(sorted(BELIEF_HEURISTICS))}")
        module, _, cls = BELIEF_HEURISTICS[game].partition(":")
        return getattr(importlib.import_module(module), cls)(config, seed=seed)
    if spec.startswith("ppo:"):
        from .learned import PolicyAgent

        if not spec[4:].strip():
            raise ValueError(f"agent spec {spec!r} needs a path: ppo:PATH (a saved policy file)")

        return PolicyAgent.load(spec[4:], seed=seed)
    if spec.startswith("ismcts:"):
        from .ismcts import ISMCTSAgent, parse_spec

        return ISMCTSAgent(game, config, seed=seed, **parse_spec(spec))
    raise ValueError(f"unknown agent spec {spec!r}: use 'random', 'heuristic', 'heuristic:belief', "
                     "'ppo:PATH' or "
                     "'ismcts:N'")


__all__ = ["BELIEF_HEURISTICS", "HEURISTICS", "Agent", "RandomAgent", "act_with_state",
           "heuristic_class", "legal_ids",
           "make_agent"]
