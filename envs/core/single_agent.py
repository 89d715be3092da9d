"""Single-agent Gymnasium view of any Cunning game: one learning seat, the rest played by agents.

Importing :mod:`envs` registers every game of ``envs.GAMES`` with Gymnasium as
``cunning/<Game>-v0`` (``cunning/Prowl-v0``, ``cunning/BadlandWolves-v0``, ``cunning/Clans-v0``)::

    import gymnasium, envs
    env = gymnasium.make("cunning/Prowl-v0", num_players=4, opponents=["heuristic"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].nonzero()[0][0]))

With sb3-contrib's MaskablePPO the mask comes from :meth:`SingleAgentEnv.action_masks`
(``MaskablePPO("MlpPolicy", env)`` finds it by itself, also through Gymnasium's wrappers and
SB3's vectorised envs).
"""

from __future__ import annotations

import copy
import zlib
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

from .aec import agent_name
from .errors import ConfigError, CunningError, IllegalActionError
from .state import GameState, check_seed

#: options of ``illegal_action``
ILLEGAL_ACTION_MODES = ("raise", "lose")


class EpisodeOverError(CunningError, RuntimeError):
    """``step`` was called after the episode ended (terminated or truncated): call ``reset``."""


def gym_name(game: str) -> str:
    """The Gymnasium name of ``game``: ``badland_wolves`` → ``BadlandWolves``."""
    return "".join(part[:1].upper() + part[1:] for part in game.split("_"))


def gym_id(game: str) -> str:
    """The Gymnasium id of ``game``: ``cunning/<Game>-v0`` (e.g. ``cunning/BadlandWolves-v0``)."""
    return f"cunning/{gym_name(game)}-v0"


def register_gymnasium_envs() -> list[str]:
    """Register every game of ``envs.GAMES`` not yet registered, and
    ``cunning/ClandestineSolo-v0`` (solo Clandestine against a Nemesis); returns all their ids.

    Runs when :mod:`envs` is imported; call it again after adding a game to ``envs.GAMES``.
    """
    from envs import GAMES

    ids = []
    for game in GAMES:
        env_id = gym_id(game)
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="envs.core.single_agent:SingleAgentEnv",
                         kwargs={"game": game}, disable_env_checker=False)
        ids.append(env_id)
    from envs.clandestine_v0 import SOLO_DEFAULTS
    solo_id = "cunning/ClandestineSolo-v0"  # solo play against the Nemesis (envs.SOLO_ENVS)
    if solo_id not in gym.registry:
        gym.register(id=solo_id, entry_point="envs.core.single_agent:SingleAgentEnv",
                     kwargs={"game": "clandestine", **SOLO_DEFAULTS}, disable_env_checker=False)
    ids.append(solo_id)
    return ids


class _DefaultOpponents(str):
    """The string ``"random"`` as the default of ``opponents``, an object of its own so that
    the default can be told apart from ``"random"`` given by the caller."""


#: the opponents of a :class:`SingleAgentEnv` not told any: ``"random"`` at every opponent seat
#: (none in solo play, where the only other seat is played by the rules)
DEFAULT_OPPONENTS = _DefaultOpponents("random")


class SingleAgentEnv(gym.Env):
    """Gymnasium env of one learning seat; every other seat is played by an agent inside ``step``.

    ``reset`` deals a game and lets the opponents act until the learner must decide; ``step``
    applies the learner's action, then the opponents' decisions until the learner must decide
    again or the game is over. Seats acting out of turn (defending, joining a hunt) and
    multi-step choices are handled the same way: the learner is asked whenever the game's
    ``current_player`` is its seat, so it may act several times in a row.

    Spaces: observation ``Box(0, 1, (D,), float32)``, the learner seat's
    ``observation_tensor`` only (its information state; nothing of the opponents' private
    information). The action mask is **not** part of the observation: it is given by
    :meth:`action_masks` (bool (A,), what MaskablePPO reads) and in ``info["action_mask"]`` (int8
    (A,)) after ``reset`` and every ``step``. Action ``Discrete(A)``: the game's action ids.

    Reward: 0 until the end, then the learner's own return (``GameState.returns()[seat]``, the
    same as the AEC env gives that seat); 0 on truncation. ``terminated`` when the game ends,
    ``truncated`` when the engine cuts the game off or after ``max_cycles`` actions (all seats
    counted, as the AEC env's ``max_cycles``). At the end ``info["returns"]`` holds every seat's
    return (float64 (n,)). ``info["seat"]`` is always the learner's seat.

    Args:
        game: a key of ``envs.GAMES`` (``"prowl"``, ``"badland_wolves"``, ``"clans"``, ...).
        opponents: agent specs for :func:`agents.make_agent` (``"random"``, ``"heuristic"``,
            ``"ppo:PATH"``): one spec for every opponent seat, or a sequence of ``n − 1`` specs
            seated in turn order after the learner (the first at seat ``learner + 1`` mod
            ``n``), so each opponent keeps its position relative to the learner when seats
            rotate. Every opponent seat plays an instance of its own (CONVENTIONS.md, "Agents"),
            made on first use, kept across episodes and ``reset()`` before each game. Default
            ``"random"``; in solo play (one seat for agents, the other played by the rules, as
            ``cunning/ClandestineSolo-v0``) there is no opponent seat: leave it out (or ``None``).
        seat: the learner's seat (an int in ``0..n-1``), or ``"rotate"`` (default): seats
            ``first_seat, first_seat + 1, … (mod n)`` over successive episodes.
        first_seat: the first seat of the rotation (default 0).
        illegal_action: ``"raise"`` (default): an illegal or out-of-range learner action raises
            :class:`~envs.core.IllegalActionError` naming the action and why. ``"lose"``: the
            episode ends at once (``terminated``) with reward ``illegal_reward`` for the learner
            and ``info["illegal_action"]`` holding the reason, as PettingZoo's
            ``TerminateIllegalWrapper``. Generic checkers (Gymnasium's and SB3's ``check_env``)
            step ``action_space.sample()``, which ignores the mask, so they need ``"lose"``.
        illegal_reward: the learner's reward for an illegal action under ``"lose"`` (default
            −1.0: the loss of the default ``win_loss`` rewards, and no game's return is lower).
        max_cycles: ``None`` or int >= 1: the most actions (all seats) in one episode.
        seed: seeds the env when ``reset`` is called without a seed (deals and opponents'
            generators); ``None`` draws fresh entropy. ``reset(seed=s)`` restarts the env as if
            built with ``seed=s`` (game stream, opponents' generators, seat rotation), so a
            seeded episode is reproducible.
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the full text picture, as the
            AEC env's ``"ansi"``; it shows hidden information, for debugging).
        **config: the game's keywords (``num_players`` and the rulebook-named options),
            validated by the game's state class.

    Raises:
        ConfigError: bad game keyword, ``seat``, ``first_seat``, ``illegal_action``,
            ``max_cycles``, ``render_mode`` or opponent list (message names the parameter).
        ValueError: unknown game or agent spec.
        IllegalActionError: from :meth:`step` under ``"raise"``; also when an opponent agent
            returns an illegal action (whatever the mode: it is the agent's fault, not the
            learner's).
        EpisodeOverError: :meth:`step` after the episode ended, before ``reset``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    #: games in a row without a learner decision before reset gives up (see :meth:`reset`)
    MAX_GAMES_WITHOUT_DECISION = 1000

    def __init__(self, game: str, opponents: str | Sequence[str] | None = DEFAULT_OPPONENTS,
                 seat: int | str = "rotate", first_seat: int = 0, illegal_action: str = "raise",
                 illegal_reward: float = -1.0, max_cycles: int | None = None,
                 seed: int | None = None, render_mode: str | None = None, **config: Any) -> None:
        super().__init__()
        from envs import env_module

        self.game = game
        self.state_class: type[GameState] = env_module(game).raw_env.state_class
        probe = self.state_class.from_config(0, **config)
        #: the game's resolved configuration (every keyword, defaults filled in)
        self.config: dict[str, Any] = dict(probe.config)
        self.n = len(probe.agent_seats)  # seats 0..n-1 (a rules-driven seat comes last)
        self.observation_space = gym.spaces.Box(0.0, 1.0, (probe.observation_size,), np.float32)
        self.action_space = gym.spaces.Discrete(probe.num_actions)
        if isinstance(seat, str):
            if seat != "rotate":
                raise ConfigError(f"seat must be 'rotate' or a seat 0..{self.n - 1}, got {seat!r}")
            self.rotate = True
        else:
            if not _is_int(seat) or not 0 <= seat < self.n:
                raise ConfigError(f"seat must be 'rotate' or a seat 0..{self.n - 1}, got {seat!r}")
            self.rotate = False
        if not _is_int(first_seat) or not 0 <= first_seat < self.n:
            raise ConfigError(f"first_seat must be a seat 0..{self.n - 1}, got {first_seat!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got "
                              f"{illegal_action!r}")
        if max_cycles is not None and (not _is_int(max_cycles) or max_cycles < 1):
            raise ConfigError(f"max_cycles must be a positive integer or None, got {max_cycles!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']} or "
                              f"None, got {render_mode!r}")
        if isinstance(illegal_reward, (bool, np.bool_)) or not isinstance(
                illegal_reward, (int, float, np.integer, np.floating)) \
                or not np.isfinite(illegal_reward):
            raise ConfigError(f"illegal_reward must be a finite number, got {illegal_reward!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.render_mode = render_mode
        # this env's own opponent instances, one per (seat, opponent label), kept across
        # episodes (reset before each game) and never shared with another seat or env
        self._instances: dict[tuple[int, str], Any] = {}
        self._prototypes: dict[str, Any] = {}
        self.specs = self._check_specs(opponents)
        self._first_seat = int(seat) if not self.rotate else int(first_seat)
        self._next_seat = self._first_seat
        check_seed(seed)
        self._seed = int(np.random.SeedSequence().entropy % 2**62) if seed is None else int(seed)
        self._rng = np.random.default_rng(self._seed)
        self.state: GameState = probe
        #: the learner's seat in the current episode
        self.seat = self._first_seat
        #: the current episode's opponents: seat -> (kind, agent)
        self.opponents: dict[int, tuple[str, Any]] = {}
        self.num_steps = 0
        self._done = True
        self._mask = np.zeros(probe.num_actions, dtype=np.int8)

    # opponents ------------------------------------------------------------------------------
    def _check_specs(self, opponents: str | Sequence[str] | None) -> list[str]:
        """The opponent specs, one per relative position 1..n-1 (checked; ``make_agent`` built
        once for each distinct spec so a bad spec fails at construction)."""
        if opponents is None or (opponents is DEFAULT_OPPONENTS and self.n == 1):
            return []
        if self.n == 1:     # solo: the only other seat is played by the rules
            raise ConfigError(f"opponents={opponents!r} given, but this game has no opponent "
                              "seat for an agent: the learner's is the only one, the other is "
                              "played by the rules (Clandestine's Nemesis); leave opponents out")
        try:
            specs = [str(opponents)] if isinstance(opponents, str) else list(opponents)
        except TypeError:   # not a spec nor a sequence of specs (e.g. a number)
            specs = []
        if not specs or not all(isinstance(s, str) for s in specs) or len(specs) not in (
                1, self.n - 1):
            raise ConfigError(f"opponents must be one agent spec or a list of {self.n - 1} "
                              f"(one per opponent seat), got {opponents!r}")
        if len(specs) == 1:
            specs = specs * (self.n - 1)
        for spec in dict.fromkeys(specs):
            self._make_opponent(spec, seed=0)
        return specs

    def _make_opponent(self, label: str, seed: int | None) -> Any:
        """A new agent for opponent ``label`` seeded by ``seed`` (``agents.make_agent``; a
        ``ppo:`` policy is loaded once and shared, read-only, by its instances)."""
        from agents import make_agent

        if label.startswith("ppo:"):
            proto = self._prototypes.get(label)
            if proto is None:
                proto = self._prototypes[label] = make_agent(label, self.game, self.config)
            return proto.spawn(seed)
        return make_agent(label, self.game, self.config, seed=seed)

    def _draw_opponents(self) -> dict[int, tuple[str, str]]:
        """``seat -> (kind, label)`` of this episode's opponents, the learner's seat left out."""
        return {(self.seat + 1 + i) % self.n: (spec, spec) for i, spec in enumerate(self.specs)}

    def _live_labels(self) -> set[str] | None:
        """Labels whose instances are kept across episodes (``None``: all)."""
        return None

    def opponent_instance(self, seat: int, label: str) -> Any:
        """This env's instance of opponent ``label`` for ``seat`` (made on first use, seeded
        from the env's seed, the seat and the label)."""
        key = (seat, label)
        agent = self._instances.get(key)
        if agent is None:
            ss = np.random.SeedSequence([self._seed, seat, zlib.crc32(label.encode())])
            agent = self._make_opponent(label, seed=int(ss.generate_state(1)[0]))
            self._instances[key] = agent
        return agent

    def opponent_action(self, seat: int, agent: Any) -> int:
        """The action ``agent`` takes for ``seat`` now: the one place where an opponent acts.

        The agent sees what the AEC env would show that seat: its observation and mask (and, for
        a search agent with ``needs_state = True``, the live state: ``agents.base.act_with_state``).
        """
        from agents.base import act_with_state

        s = self.state
        obs = {"observation": s.observation_tensor(seat), "action_mask": s.legal_action_mask()}
        return act_with_state(agent, obs, agent_name(seat), s)

    def _advance(self) -> None:
        """Let opponents act until the learner must decide or the episode is over."""
        s = self.state
        while not s.is_over and s.current_player != self.seat and not self._cut():
            p = s.current_player
            s.apply_action(self.opponent_action(p, self.opponents[p][1]))
            self.num_steps += 1

    def _cut(self) -> bool:
        """True when ``max_cycles`` actions have been played in this episode."""
        return self.max_cycles is not None and self.num_steps >= self.max_cycles

    # episode --------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game and play the opponents up to the learner's first decision.

        ``seed`` restarts the env as if built with that seed (see the class doc). A game that
        ends (or reaches ``max_cycles``) before the learner's first decision is discarded and
        the next one dealt (the seat rotating as usual). Returns ``(observation, info)``.

        Raises:
            RuntimeError: ``MAX_GAMES_WITHOUT_DECISION`` games in a row gave the learner no
                decision (e.g. ``max_cycles`` too small for its seat).
        """
        check_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._seed = int(seed)
            self._rng = np.random.default_rng(seed)
            self._next_seat = self._first_seat
            self._instances = {}
        for _ in range(self.MAX_GAMES_WITHOUT_DECISION):
            self.seat = self._next_seat
            if self.rotate:
                self._next_seat = (self._next_seat + 1) % self.n
            self.state = self.state_class(seed=int(self._rng.integers(2**62)), **self.config)
            self.num_steps = 0
            live = self._live_labels()
            if live is not None:      # forget instances of opponents gone for good
                self._instances = {k: a for k, a in self._instances.items() if k[1] in live}
            self.opponents = {}
            for p, (kind, label) in sorted(self._draw_opponents().items()):
                agent = self.opponent_instance(p, label)
                agent.reset()
                self.opponents[p] = (kind, agent)
            self._advance()
            if not self.state.is_over and not self._cut():
                self._done = False
                self._mask = self.state.legal_action_mask().copy()
                return self.state.observation_tensor(self.seat), {
                    "action_mask": self._mask.copy(), "seat": self.seat}
        raise RuntimeError(f"{self.MAX_GAMES_WITHOUT_DECISION} games in a row ended before the "
                           f"learner's first decision (max_cycles={self.max_cycles})")

    def action_masks(self) -> np.ndarray:
        """Bool (A,): the learner's legal actions now (all False once the episode is over)."""
        return self._mask.astype(bool)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply the learner's ``action``, then the opponents' decisions (see the class doc).

        Returns ``(observation, reward, terminated, truncated, info)``.

        Raises:
            IllegalActionError: under ``illegal_action="raise"``, ``action`` is out of range,
                not an integer or illegal now (message names it); or an opponent's action is.
            EpisodeOverError: the episode is over; call ``reset``.
        """
        if self._done:
            raise EpisodeOverError("the episode is over (terminated or truncated): call reset()")
        s = self.state
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        try:
            s.apply_action(action)
        except IllegalActionError as exc:
            if self.illegal_action == "raise":
                raise
            return self._end(self.illegal_reward, True, False, {"illegal_action": str(exc)})
        self.num_steps += 1
        self._advance()
        if s.is_over:
            ret = float(s.returns()[self.seat]) if s.is_terminal else 0.0
            return self._end(ret, s.is_terminal, s.is_truncated, {})
        if self._cut():
            return self._end(0.0, False, True, {})
        self._mask = s.legal_action_mask().copy()
        return s.observation_tensor(self.seat), 0.0, False, False, {
            "action_mask": self._mask.copy(), "seat": self.seat}

    def _end(self, reward: float, terminated: bool, truncated: bool, extra: dict[str, Any]
             ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The last transition of an episode (``info`` gets the mask, seat, returns)."""
        self._done = True
        self._mask = np.zeros_like(self._mask)
        s = self.state
        returns = s.returns().astype(np.float64) if s.is_terminal else np.zeros(self.n)
        if "illegal_action" in extra:
            returns = np.zeros(self.n)
            returns[self.seat] = reward
        info = {"action_mask": self._mask.copy(), "seat": self.seat, "returns": returns, **extra}
        return s.observation_tensor(self.seat), float(reward), terminated, truncated, info

    def render(self) -> str | None:
        """The full text picture of the game (``render_mode="ansi"``); ``None`` without a mode."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; nothing drawn")
            return None
        return self.state.render_text()

    def __copy__(self) -> SingleAgentEnv:
        """``copy.copy(env)`` is ``copy.deepcopy(env)``: a shallow copy would share the game and
        the opponents with the original, so stepping it would move the original (README
        "Copies")."""
        return copy.deepcopy(self)


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


__all__ = ["EpisodeOverError", "ILLEGAL_ACTION_MODES", "SingleAgentEnv", "gym_id", "gym_name",
           "register_gymnasium_envs"]
