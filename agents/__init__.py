"""Agents: uniform random, one scripted heuristic per game, learned-policy wrappers.

``make_agent(spec, game, config, seed)`` builds an agent from a command-line spec:

* ``random`` — :class:`agents.base.RandomAgent`;
* ``heuristic`` — the game's scripted heuristic (``HEURISTICS``), built as
  ``Cls(config, seed=seed)`` where ``config`` is the game's resolved configuration
  (``GameState.config``: every keyword, defaults filled in);
* ``heuristic:belief`` — the heuristic reading a belief tracker instead of its own counting
  (``BELIEF_HEURISTICS``; Prowl: the exact consistent posterior; Clans: the exact posterior
  under the heuristic as the opponents' policy; docs/deduction.md); it
  declares ``needs_state = True``;
* ``heuristic:KEY=VALUE[:KEY=VALUE...]`` — the game's heuristic with some of its rule
  parameters changed, for a heuristic that declares them (``PARAMETERS``: name -> (type,
  default, meaning); Badland Wolves), e.g. ``heuristic:join_hand=4``
  (:func:`heuristic_parameters`);
* ``ppo:PATH`` — a MaskablePPO policy saved at ``PATH`` (``.zip``), acting greedily
  (:class:`agents.learned.PolicyAgent`);
* ``ppo:GAME`` (``ppo:prowl``, ``ppo:badland_wolves``, ``ppo:clans``, ``ppo:clandestine``) — the
  trained policy shipped in the package for that game (``agents/checkpoints/GAME.zip``, with
  ``GAME.md`` beside it giving the command that trained it and its evaluation), used when
  ``GAME`` is not also an existing file. Each plays the player count it was trained for (4-player
  Prowl and Badland Wolves, 3-player Clans and Clandestine); see :data:`SHIPPED_POLICIES`;
* ``ismcts:N`` — information set Monte Carlo tree search with N iterations per decision
  (:class:`agents.ismcts.ISMCTSAgent`), options after further colons: ``rollout=heuristic``,
  ``c=2.0``, ``seconds=1.5``, ``max_depth=2000``, ``cut=provisional`` (how a rollout cut at
  ``max_depth`` is scored), ``final=visits``, ``worlds=20`` (at most 20 determinizations per
  move, reused: ``max_world_samples``), ``prior=heuristic`` and ``bias=1.0`` (the heuristic's
  move biases the root: ``prior_weight``) (e.g. ``ismcts:200:rollout=heuristic``); options
  left out take the game's defaults (:func:`agents.ismcts.game_defaults`). It declares
  ``needs_state = True``: callers pass the game via :func:`agents.base.act_with_state`.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import numpy as np

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
    "clans": "agents.clans_heuristic:BeliefClansHeuristic",
}


#: folder of the shipped trained policies: ``<game>.zip`` (MaskablePPO) and ``<game>.md``
CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"

#: game -> number of players its shipped policy (``ppo:<game>``) was trained for
SHIPPED_POLICIES: dict[str, int] = {"prowl": 4, "badland_wolves": 4, "clans": 3, "clandestine": 3}


def shipped_policy_path(name: str) -> Path | None:
    """The packaged policy file of game ``name`` (``agents/checkpoints/<name>.zip``), or None
    when no policy is shipped for ``name`` (or its file is missing from the installation)."""
    if name not in SHIPPED_POLICIES:
        return None
    path = CHECKPOINT_DIR / f"{name}.zip"
    return path if path.is_file() else None


def _check_policy_fits(agent: Any, spec: str, game: str, config: dict[str, Any],
                       shipped: bool = False) -> None:
    """Raise ValueError when the policy's observation or action size differs from ``game``'s
    with ``config`` (another game, player count, or an observation layout changed since the
    policy was trained); ``shipped``: the policy is the packaged one of ``game``, and the
    message then says how to train it again. Games outside :data:`envs.GAMES` are not
    checked."""
    from envs import GAMES, make_raw_env

    if game not in GAMES:
        return
    env = make_raw_env(game, **config)
    seat = env.possible_agents[0]
    obs_shape = tuple(env.observation_space(seat)["observation"].shape)
    n_actions = int(env.action_space(seat).n)
    if obs_shape == (agent.obs_size,) and n_actions == agent.num_actions:
        return
    hint = "was it trained for another game or player count?"
    # a Clandestine Nemesis takes a seat that config["num_players"] (the human seats) leaves out
    nemesis = config.get("nemesis") not in (None, False)
    if shipped:
        trained_for = SHIPPED_POLICIES[game]
        if nemesis:
            hint = (f"the shipped policy plays {trained_for}-player games without a Nemesis: "
                    f"use it in a {trained_for}-player game without one "
                    f"(num_players={trained_for}, no nemesis; in training.evaluate, "
                    f"{trained_for} agents)")
        elif config.get("num_players") != trained_for:
            hint = (f"the shipped policy plays {trained_for}-player games: use it in a "
                    f"{trained_for}-player game (num_players={trained_for}; in "
                    f"training.evaluate, {trained_for} agents)")
        else:
            hint = (f"the observation layout or action encoding of {game} has changed since "
                    f"this policy was trained: train it again with the command in "
                    f"{CHECKPOINT_DIR / f'{game}.md'}")
    seats = f"num_players={config.get('num_players')}"
    if nemesis:
        seats += f" and nemesis={config['nemesis']!r}"
    raise ValueError(
        f"policy {spec!r} expects observations of shape ({agent.obs_size},) and "
        f"{agent.num_actions} actions, but {game} with {seats} "
        f"has observations of shape {obs_shape} and {n_actions} actions: {hint}")


def heuristic_class(game: str) -> type:
    """The scripted heuristic class of ``game``. Raises ValueError for an unknown game."""
    if game not in HEURISTICS:
        raise ValueError(f"no heuristic for game {game!r}; known: {', '.join(sorted(HEURISTICS))}")
    module, _, cls = HEURISTICS[game].partition(":")
    return getattr(importlib.import_module(module), cls)


#: the text of an int and of a float rule parameter in a ``heuristic:KEY=VALUE`` spec: ASCII
#: digits, an optional leading minus (refused by the heuristic with its own message), a float
#: with an optional fraction and exponent
_INT_TEXT = r"-?[0-9]+"
_FLOAT_TEXT = r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?"


def heuristic_parameters(spec: str, game: str) -> dict[str, Any]:
    """The rule parameters of a ``heuristic:KEY=VALUE[:KEY=VALUE...]`` spec, typed by the
    game's heuristic class's ``PARAMETERS`` table (name -> (type, default, meaning)).

    ``heuristic`` alone gives ``{}`` (every parameter at its default).

    Raises:
        ValueError: ``spec`` is not ``heuristic`` or ``heuristic:...`` (e.g. ``ppo:...``, or
            not a string), the game's heuristic declares no parameters, a part that is not
            ``KEY=VALUE``, an unknown or repeated key (the message lists the known ones), or a
            value that is not of the parameter's type (int or float, finite).
    """
    if not isinstance(spec, str) or not (spec == "heuristic" or spec.startswith("heuristic:")):
        raise ValueError(f"not a heuristic spec ('heuristic' or 'heuristic:KEY=VALUE[:...]'): "
                         f"{spec!r}")
    cls = heuristic_class(game)
    if spec == "heuristic":
        return {}
    table = getattr(cls, "PARAMETERS", None)
    if not table:
        raise ValueError(f"the {game} heuristic has no rule parameters: use 'heuristic' "
                         f"(spec {spec!r})")
    out: dict[str, Any] = {}
    for part in spec.split(":")[1:]:
        key, eq, text = part.partition("=")
        if not eq or not key or not text:
            raise ValueError(f"in agent spec {spec!r}: {part!r} is not KEY=VALUE")
        if key not in table:
            raise ValueError(f"in agent spec {spec!r}: unknown {game} heuristic parameter "
                             f"{key!r}; known: {', '.join(sorted(table))}")
        if key in out:
            raise ValueError(f"in agent spec {spec!r}: parameter {key!r} given twice")
        kind = table[key][0]
        if kind is float and text.lower().lstrip("+-") in ("inf", "infinity", "nan"):
            raise ValueError(f"in agent spec {spec!r}: {key} must be finite, got {text!r}")
        if not re.fullmatch(_INT_TEXT if kind is int else _FLOAT_TEXT, text):
            raise ValueError(f"in agent spec {spec!r}: {key} must be {kind.__name__} written "
                             f"in plain ASCII digits (no spaces, signs '+' or '_'), got "
                             f"{text!r}")
        value = kind(text)
        if isinstance(value, float) and not np.isfinite(value):
            raise ValueError(f"in agent spec {spec!r}: {key} must be finite, got {text!r}")
        out[key] = value
    return out


def make_agent(spec: str, game: str, config: dict[str, Any], seed: int | None = None) -> Agent:
    """An agent from ``spec`` (``random``, ``heuristic``, ``heuristic:belief``,
    ``heuristic:KEY=VALUE...``, ``ppo:PATH``, ``ppo:GAME`` or ``ismcts:N[:...]``; see the
    module docstring).

    Raises:
        ValueError: a spec that is not a string, unknown spec form or game, a config that is
            not a dict, a ``ppo:`` spec
            without a path, a shipped ``ppo:GAME`` policy asked to play another game, or a
            policy whose observation or action size differs from ``game``'s with ``config``
            (the message gives both shapes), a seed that is not None or a non-negative int
            (``True`` included: a bool is not a seed), bad ``heuristic:`` parameters
            (:func:`heuristic_parameters`);
            FileNotFoundError: a ``ppo:`` path is missing and names no shipped policy.
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ValueError(f"seed must be None or a non-negative int, got {seed!r}")
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string ('random', 'heuristic', "
                         f"'heuristic:belief', 'heuristic:KEY=VALUE', 'ppo:PATH', 'ppo:GAME' or "
                         f"'ismcts:N'), got "
                         f"{spec!r}")
    from envs import GAMES

    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(sorted(GAMES))}")
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict of the game's keywords (GameState.config), got "
                         f"{config!r}")
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
    if spec.startswith("heuristic:"):
        agent = heuristic_class(game)(config, seed=seed, **heuristic_parameters(spec, game))
        agent.name = spec
        return agent
    if spec.startswith("ppo:"):
        from .learned import PolicyAgent

        if not spec[4:].strip():
            raise ValueError(f"agent spec {spec!r} needs a path: ppo:PATH (a saved policy file) "
                             f"or a game with a shipped policy: "
                             f"{', '.join('ppo:' + g for g in SHIPPED_POLICIES)}")

        target = spec[4:]
        shipped = shipped_policy_path(target)
        use_shipped = (shipped is not None and not Path(target).is_file()
                       and not Path(f"{target}.zip").is_file())   # an existing file wins
        if use_shipped:
            if target != game:
                raise ValueError(f"agent spec {spec!r} is the policy shipped for {target}; it "
                                 f"cannot play {game} (use ppo:{game} or ppo:PATH)")
            agent = PolicyAgent.load(shipped, seed=seed, game=game, config=config)
            agent.name = spec
        else:
            agent = PolicyAgent.load(target, seed=seed, game=game, config=config)
        _check_policy_fits(agent, spec, game, config, shipped=use_shipped)
        return agent
    if spec.startswith("ismcts:"):
        from .ismcts import ISMCTSAgent, parse_spec

        return ISMCTSAgent(game, config, seed=seed, **parse_spec(spec))
    raise ValueError(f"unknown agent spec {spec!r}: use 'random', 'heuristic', 'heuristic:belief', "
                     "'heuristic:KEY=VALUE', 'ppo:PATH', 'ppo:GAME' or 'ismcts:N'")


__all__ = ["BELIEF_HEURISTICS", "CHECKPOINT_DIR", "HEURISTICS", "SHIPPED_POLICIES", "Agent",
           "RandomAgent", "act_with_state", "heuristic_class", "heuristic_parameters", "legal_ids",
           "make_agent", "shipped_policy_path"]
