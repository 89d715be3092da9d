"""One PettingZoo AEC environment for every Cunning engine (CONVENTIONS.md, "PettingZoo").

A game module needs only::

    class raw_env(GameAECEnv):
        state_class = ProwlState
        metadata = {"name": "prowl_v0", "render_modes": ["ansi", "human"],
                    "is_parallelizable": False, "render_fps": 1}

    env = make_env_fn(raw_env)

Agents are ``player_0 … player_{n-1}``; ``agent_selection`` is always the seat whose decision is
due (``state.current_player``), so the same agent may act several times in a row and seats act
out of turn when the rules ask them to. Observations are
``{"observation": float32 (D,), "action_mask": int8 (A,)}``; the mask is all zeros for agents
who are not to act, and is also given in ``infos[agent]["action_mask"]``. Rewards are zero until
the end, then each seat's return (its *own* outcome). Truncation comes from the engine (e.g. a
turn limit) or from ``max_cycles``, the most actions the environment accepts in one episode.
"""

from __future__ import annotations

import copy
import sys
from typing import Any, Callable, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from .errors import ConfigError, IllegalActionError
from .state import GameState, check_seed
from .text import SeatLogs, rules_seats_note


def agent_name(seat: int) -> str:
    """PettingZoo agent name of ``seat``: ``player_<seat>``."""
    return f"player_{seat}"


def seat_of(agent: str) -> int:
    """Seat index of a ``player_<seat>`` agent name.

    Raises:
        ValueError: the name is not of that form.
    """
    prefix, _, num = agent.partition("_")
    if prefix != "player" or not num.isdigit():
        raise ValueError(f"agent names are 'player_<seat>', got {agent!r}")
    return int(num)


class GameAECEnv(AECEnv):
    """PettingZoo AEC environment around a :class:`GameState` subclass.

    Args:
        render_mode: one of ``metadata["render_modes"]`` or ``None``. ``"ansi"`` returns the
            full-truth text picture (``render_text()``: every seat's secrets, for watching, never
            for a seat; a seat's own view is ``render_text(seat)``), ``"human"`` prints it after
            every step, ``"rgb_array"`` (where offered) returns a uint8 (H, W, 3) picture.
        max_cycles: ``None`` or a positive int: after that many actions in an episode every agent
            is truncated (no winner, zero rewards).
        public_history: when True, ``infos[agent]["public_history"]`` holds the game's full
            public history (``GameState.public_history()``: every public event so far as a tuple
            of ints, vocabulary in the game's ``PUBLIC_EVENTS``), identical for every agent, for
            sequence models. Default False (it grows with the episode).
        text_observation: when True, ``infos[agent]["text"]`` holds the agent's text
            observation (:func:`envs.core.text.text_observation`: its own view, what the other
            seats did since its last decision as far as it may know, and, when it is to act, the
            legal actions with their ids and names), for language-model agents. Default False.
        **config: the game's keywords (``num_players`` and the rulebook-named options),
            validated by the state class; a bad value raises :class:`ConfigError`.

    Raises:
        ConfigError: bad ``render_mode``, ``max_cycles`` or game keyword.
        IllegalActionError: from :meth:`step`, for an action that is out of range or illegal.
    """

    state_class: ClassVar[type[GameState]]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "game_v0",
                                          "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, max_cycles: int | None = None,
                 public_history: bool = False, text_observation: bool = False,
                 **config: Any) -> None:
        super().__init__()
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ConfigError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        if max_cycles is not None and (isinstance(max_cycles, (bool, np.bool_)) or not isinstance(
                max_cycles, (int, np.integer)) or max_cycles < 1):
            raise ConfigError(f"max_cycles must be a positive integer or None, got {max_cycles!r}")
        if not isinstance(public_history, (bool, np.bool_)):
            raise ConfigError(f"public_history must be True or False, got {public_history!r}")
        self.render_mode = render_mode
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.public_history = bool(public_history)
        if not isinstance(text_observation, (bool, np.bool_)):
            raise ConfigError(f"text_observation must be True or False, got {text_observation!r}")
        self._text_logs: SeatLogs | None = None
        self.text_observation = bool(text_observation)
        self._config = dict(config)
        # Validate the configuration now (CONVENTIONS: errors at construction).
        self.game: GameState = self.state_class.from_config(0, **self._config)
        self.possible_agents = [agent_name(i) for i in self.game.agent_seats]
        self._seat_of = {agent_name(i): i for i in self.game.agent_seats}
        self.agents = []
        self._obs_size = self.game.observation_size
        self._num_actions = self.game.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=1.0, shape=(self._obs_size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self._num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self._seed_rng = np.random.default_rng()
        self._zero_mask = np.zeros(self._num_actions, dtype=np.int8)
        self._mask: np.ndarray = self._zero_mask

    # spaces ----------------------------------------------------------------------------------
    # Plain look-ups in PettingZoo's ``observation_spaces`` / ``action_spaces`` dicts: the same
    # space object every call. (An ``lru_cache`` on these methods would hold every env forever.)
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (``Dict(observation=Box, action_mask=Box)``)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent``: ``Discrete(num_actions)``."""
        return self.action_spaces[agent]

    # episode ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. ``seed`` fixes the deal; ``None`` draws one from the env's stream.

        Raises:
            ValueError: ``seed`` is not ``None`` or a non-negative integer.
        """
        check_seed(seed)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        game_seed = int(self._seed_rng.integers(2**62))
        self.game = self.state_class(seed=game_seed, **self._config)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.num_steps = 0
        if self.text_observation:
            self._text_logs = SeatLogs(self.game.num_players)
        self._sync()

    def _sync(self) -> None:
        """Refresh agent_selection, masks, terminations after the state changed."""
        game = self.game
        if game.is_over or (self.max_cycles is not None and self.num_steps >= self.max_cycles):
            truncated = not game.is_terminal
            ret = game.returns() if game.is_terminal else np.zeros(game.num_players)
            for a in self.possible_agents:
                if a in self.agents:
                    self.rewards[a] = float(ret[seat_of(a)])
                    self.terminations[a] = not truncated
                    self.truncations[a] = truncated
                    self.infos[a] = {"action_mask": self._zero_mask.copy()}
            self._add_public_history()
            self._add_text()
            self._mask = self._zero_mask
            # Agents then step None in seat order to leave (PettingZoo's dead-step protocol).
            self.agent_selection = self.agents[0]
            return
        self._mask = game.legal_action_mask()
        cur = agent_name(game.current_player)
        for a in self.agents:
            self.infos[a] = {"action_mask": self._mask.copy() if a == cur else
                             self._zero_mask.copy()}
        self._add_public_history()
        self._add_text()
        self.agent_selection = cur

    def _add_public_history(self) -> None:
        """``infos[agent]["public_history"]`` for every live agent, when asked for."""
        if self.public_history:
            events = [tuple(e) for e in self.game.public_history()]
            for a in self.agents:
                self.infos[a]["public_history"] = list(events)

    def _add_text(self) -> None:
        """``infos[agent]["text"]`` for every live agent, when asked for."""
        if self._text_logs is not None:
            for a in self.agents:
                self.infos[a]["text"] = self._text_logs.text(self.game, seat_of(a))

    def _agent_seat(self, agent: str) -> int:
        """The seat of ``agent``, one of this env's agents.

        Raises:
            ValueError: ``agent`` is not a ``player_<seat>`` name, or names no agent of this env
                (a seat past the last, or a seat the rules play, such as Clandestine's Nemesis,
                which ``player_<seat>`` can name though the env has no such agent).
        """
        seat = self._seat_of.get(agent)
        if seat is None:
            seat = seat_of(agent)  # names a name that is not player_<seat>
            raise ValueError(f"{agent!r} is not an agent of this env: its agents are "
                             f"{self.possible_agents}{rules_seats_note(self.game)}")
        return seat

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._agent_seat(agent)
        mask = self._mask if agent == self.agent_selection and not (
            self.terminations.get(agent) or self.truncations.get(agent)) else self._zero_mask
        # a copy: agents may edit their mask; the engine's own stays untouched
        return {"observation": self.game.observation_tensor(seat), "action_mask": mask.copy()}

    def step(self, action: int | None) -> None:
        """Apply ``action`` for ``agent_selection`` (``None`` for an agent that is done).

        Raises:
            IllegalActionError: ``action`` is out of range, illegal now, or ``None`` for an agent
                whose decision is due.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        if action is None:
            raise IllegalActionError(f"{agent} must act: None is only for agents that are done")
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if self._text_logs is not None:
            self._text_logs.note(self.game, action)
        self.game.apply_action(action)
        self.num_steps += 1
        self._sync()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        """Full-information float32 vector (``GameState.state_tensor``) for centralised critics."""
        return self.game.state_tensor()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; nothing drawn")
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb()  # type: ignore[attr-defined]
        text = self.game.render_text()
        if self.render_mode == "human":
            print(text, file=sys.stdout)
            return None
        return text

    def close(self) -> None:
        pass

    # copies ----------------------------------------------------------------------------------
    def clone(self) -> GameAECEnv:
        """An independent copy that behaves exactly like this env from then on.

        Same result as ``copy.deepcopy(env)`` (spaces, the env's seed stream for ``reset()``
        without a seed, agent bookkeeping all copied), with the game copied by the faster
        :meth:`GameState.clone`. ``copy.copy(env)`` is this method too: a shallow copy would
        share the game with the original. Pickling works as well (law tested for every game).
        """
        return copy.deepcopy(self, {id(self.game): self.game.clone()})

    def __copy__(self) -> GameAECEnv:
        """``copy.copy(env)`` is :meth:`clone` (see there)."""
        return self.clone()

    # research hooks --------------------------------------------------------------------------
    def hidden_truth(self) -> dict[str, Any]:
        """Ground truth of the hidden information (``GameState.hidden_truth``); never observed."""
        return self.game.hidden_truth()

    def resample_from_infostate(self, agent: str, rng: np.random.Generator) -> GameState:
        """A full state consistent with what ``agent`` knows (``GameState.resample_from_infostate``)."""
        return self.game.resample_from_infostate(self._agent_seat(agent), rng)

    def to_record(self) -> dict[str, Any]:
        """The current game's replayable record (``GameState.to_record``)."""
        return self.game.to_record()


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` whose copies copy the env inside.

    ``clone()`` and ``copy.copy`` return a wrapper around ``self.env.clone()`` (the base class
    would forward ``clone`` to the raw env and return it unwrapped, and a shallow copy would share
    the raw env); ``copy.deepcopy`` and pickling need nothing extra. Everything else is
    PettingZoo's wrapper unchanged.
    """

    def clone(self) -> OrderEnforcingWrapper:
        """An independent wrapped copy that behaves exactly like this env from then on."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        inner = self.env
        new.env = inner.clone() if isinstance(inner, (GameAECEnv, OrderEnforcingWrapper)) \
            else copy.deepcopy(inner)
        return new

    def __copy__(self) -> OrderEnforcingWrapper:
        """``copy.copy(env)`` is :meth:`clone`."""
        return self.clone()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last`` asked of the env inside (the base class reads five attributes
        through the wrapper's forwarding on every call): the same values, and the same
        ``AttributeError`` before ``reset``."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def __str__(self) -> str:
        return str(self.env)


def make_env_fn(raw_env_cls: type[GameAECEnv]) -> Callable[..., AECEnv]:
    """Build the module-level ``env(**config)``: raw env + PettingZoo's standard wrappers.

    ``OrderEnforcingWrapper`` as PettingZoo classic (PettingZoo's, with copies that copy the env
    inside: see :class:`OrderEnforcingWrapper`). PettingZoo's ``AssertOutOfBoundsWrapper`` is left
    out on purpose: the raw env already refuses every out-of-range, mistyped or illegal action
    with an :class:`IllegalActionError` naming the action and the reason (an ``assert`` names
    neither and vanishes under ``python -O``).
    """

    def env(**kwargs: Any) -> AECEnv:
        e = raw_env_cls(**kwargs)
        e = OrderEnforcingWrapper(e)
        return e

    env.__doc__ = (f"The wrapped ``{raw_env_cls.metadata['name']}`` AEC environment; keywords as "
                   f"for :class:`{raw_env_cls.__module__}.{raw_env_cls.__name__}`.")
    return env


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based parallel view of a Cunning AEC env, with the acting agent known.

    Every ``step(actions)`` applies only ``actions[agent]`` of the agent whose decision is due
    (others may send anything, e.g. ``None``); observations are every live agent's, with an
    all-zero mask for those not acting. ``infos[agent]["active_agent"]`` names the acting agent
    after ``reset`` too (PettingZoo's own wrapper sets it only after the first step).
    """

    def reset(self, seed: int | None = None, options: dict | None = None):
        observations, infos = super().reset(seed=seed, options=options)
        active = self.aec_env.agent_selection
        infos = {a: {**info, "active_agent": active} for a, info in infos.items()}
        return observations, infos

    def __copy__(self) -> TurnBasedParallelEnv:
        """``copy.copy(env)`` copies the AEC env inside (its fast ``clone()``), as
        ``copy.deepcopy`` does: a shallow copy would share it, so stepping the copy would move
        the original (README "Copies")."""
        return copy.deepcopy(self, {id(self.aec_env): self.aec_env.clone()})


def make_parallel_env_fn(raw_env_cls: type[GameAECEnv]) -> Callable[..., TurnBasedParallelEnv]:
    """Build the module-level ``parallel_env(**config)``: the turn-based parallel view of
    ``env(**config)`` (:class:`TurnBasedParallelEnv`)."""
    env_fn = make_env_fn(raw_env_cls)

    def parallel_env(**kwargs: Any) -> TurnBasedParallelEnv:
        return TurnBasedParallelEnv(env_fn(**kwargs))

    parallel_env.__doc__ = (f"The turn-based parallel view of ``{raw_env_cls.metadata['name']}``"
                            "; keywords as for ``env``.")
    return parallel_env
