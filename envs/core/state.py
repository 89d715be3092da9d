"""The engine contract every Cunning game implements (CONVENTIONS.md, "Engine").

A game is a subclass of :class:`GameState`: pure Python + numpy, no PettingZoo import. The base
class owns what is the same for every game and is written once here:

* seeding: all randomness comes from ``self.rng``, a ``numpy.random.Generator`` made from
  ``seed`` (a seed of ``None`` draws one from the OS and stores it, so every game has a record);
* checked actions: :meth:`apply_action` rejects out-of-range ids and ids the mask forbids with an
  :class:`IllegalActionError` naming the action, the seat and the reason, then calls the game's
  :meth:`_apply_action`;
* game records and replay: :meth:`to_record` / :meth:`from_record`;
* the derived helpers ``legal_actions``, ``clone``, ``state_tensor``;
* chance: every chance event (deal, shuffle, draw, random pick) goes through one logged path,
  :meth:`chance_permutation` / :meth:`chance_integer`, so the drawn outcomes are part of the
  game's history (``chance_log``) and of its record;
* copies: ``copy.copy`` is ``clone``; ``clone``, ``copy.copy``, ``copy.deepcopy`` and pickling all
  give a state that behaves exactly like the original from then on.

Chance (shuffles, draws) is resolved inside the engine: there are no chance nodes for agents to
play, and ``current_player`` is always the seat whose decision is due, which may differ from the
seat whose turn it is (out-of-turn reactions, choices made for opponents). As in OpenSpiel, where
chance outcomes are stored in the history, a record may carry its chance outcomes: replaying it
then takes those outcomes instead of drawing from the generator. That is how a resampled world
(:meth:`GameState.resample_from_infostate`) comes with a history: the real actions plus
counterfactual chance outcomes, which replays step by step to what the seat saw (history
consistency, CONVENTIONS.md).
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections import deque
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Iterator

import numpy as np

from .errors import ConfigError, IllegalActionError, RecordError

RECORD_FORMAT = 1


class GameState(ABC):
    """Abstract game state; subclasses implement one game's rules.

    Args:
        seed: integer seed of the game's ``numpy.random.Generator`` (``None``: drawn from the OS
            and stored in ``self.seed``).
        config: the game's validated configuration, JSON-serialisable keyword arguments of the
            subclass constructor (recorded by :meth:`to_record`).

    Subclasses must set ``game_name`` and implement the abstract members; their constructor
    validates its keywords (raising :class:`ConfigError`), calls ``super().__init__`` and then
    sets up the game using ``self.rng``.
    """

    game_name: ClassVar[str] = ""

    #: methods whose first argument is a seat, checked by :meth:`check_seat` for every game
    _SEAT_METHODS: ClassVar[tuple[str, ...]] = ("observation_tensor", "resample_from_infostate")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in cls._SEAT_METHODS:
            fn = cls.__dict__.get(name)
            if fn is not None and not getattr(fn, "_seat_checked", False):
                setattr(cls, name, _with_seat_check(fn))
        fn = cls.__dict__.get("render_text")
        if fn is not None and not getattr(fn, "_seat_checked", False):
            cls.render_text = _with_optional_seat_check(fn)  # type: ignore[method-assign]

    def check_seat(self, seat: Any) -> int:
        """``seat`` as an int after checking it names a seat of this game.

        Raises:
            ValueError: ``seat`` is not an integer (bools are refused) in ``0..num_players-1``.
        """
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) \
                or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be an integer in 0..{self.num_players - 1}, "
                             f"got {seat!r}")
        return int(seat)

    @classmethod
    def check_config_keys(cls, config: dict[str, Any]) -> None:
        """Refuse keywords the game's constructor does not take.

        Raises:
            ConfigError: an unknown keyword (the message lists the game's keywords).
        """
        params = inspect.signature(cls.__init__).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return
        known = [n for n, p in params.items() if n not in ("self", "seed")
                 and p.kind in (inspect.Parameter.KEYWORD_ONLY,
                                inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        unknown = sorted(set(config) - set(known))
        if unknown:
            raise ConfigError(f"unknown {cls.game_name} keyword(s) {unknown}; the keywords are "
                              f"{known}")

    @classmethod
    def from_config(cls, seed: int | None = None, /, **config: Any) -> GameState:
        """A new game from user-given keywords: unknown keywords are refused first.

        ``seed`` may also be given by keyword (``from_config(seed=3, num_players=4)``), but not
        twice: an env passes its own seed, so ``seed`` among an env's keywords is refused.

        Raises:
            ConfigError: an unknown keyword, a bad value (from the game's constructor), or
                ``seed`` given both as the argument and among the keywords.
        """
        if "seed" in config:
            if seed is not None:
                raise ConfigError(
                    f"seed is not a {cls.game_name} keyword: give the seed to env.reset(seed=...) "
                    "(or as GameState.from_config's first argument)")
            seed = config.pop("seed")
        cls.check_config_keys(config)
        return cls(seed=seed, **config)

    def __init__(self, *, seed: int | None, config: dict[str, Any]) -> None:
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2**63))
        check_seed(seed)
        self.seed = int(seed)
        self.config = dict(config)
        self.rng = np.random.default_rng(self.seed)
        self.history: list[int] = []
        #: every chance event so far, in order: ``[name, outcome]`` (JSON values)
        self.chance_log: list[list[Any]] = []
        # outcomes to take instead of drawing (a record's chance replayed), or None
        self._forced_chance: deque | None = self.__dict__.pop("_pending_chance", None)

    # ----------------------------------------------------------------------------------------
    # chance: one logged path for every random event
    def _forced_outcome(self, name: str) -> Any:
        """The next forced outcome, checked to be for an event called ``name`` (else None)."""
        forced = self._forced_chance
        if not forced:
            return None
        event_name, outcome = forced.popleft()
        if event_name != name:
            raise RecordError(f"recorded chance event #{len(self.chance_log)} is {event_name!r}, "
                              f"but the game draws {name!r} there")
        return outcome

    def chance_permutation(self, name: str, n: int) -> np.ndarray:
        """Draw a uniformly random permutation of ``range(n)`` as one chance event.

        ``rng.permutation(n)`` when drawing (so ``x[perm]`` equals ``rng.shuffle(x)`` with the
        same generator state); a record's outcome when replaying one. Logged as
        ``[name, list_of_ints]``.

        Returns:
            int64 array (n,), a permutation of 0..n-1.
        Raises:
            RecordError: a replayed outcome is for another event or is not a permutation of n.
        """
        outcome = self._forced_outcome(name)
        if outcome is None:
            perm = self.rng.permutation(n)
        else:
            perm = np.asarray(outcome, dtype=np.int64)
            if perm.shape != (n,) or not np.array_equal(np.sort(perm), np.arange(n)):
                raise RecordError(f"recorded chance outcome for {name!r} is not a permutation "
                                  f"of {n}: {outcome!r}")
        self.chance_log.append([name, [int(x) for x in perm]])
        return perm

    def chance_integer(self, name: str, high: int) -> int:
        """Draw a uniformly random integer in ``0..high-1`` (``rng.integers(high)``), logged.

        Raises:
            RecordError: a replayed outcome is for another event or outside ``0..high-1``.
        """
        outcome = self._forced_outcome(name)
        if outcome is None:
            value = int(self.rng.integers(high))
        else:
            if isinstance(outcome, bool) or not isinstance(outcome, int) or not 0 <= outcome < high:
                raise RecordError(f"recorded chance outcome for {name!r} is not an integer in "
                                  f"0..{high - 1}: {outcome!r}")
            value = outcome
        self.chance_log.append([name, value])
        return value

    def set_chance_log(self, log: list[list[Any]], seed: int) -> None:
        """Make this state's history a counterfactual one (for resamplers).

        ``log`` replaces ``chance_log`` (the outcomes under which ``history`` leads to this
        state) and the generator restarts from ``seed``, so that :meth:`to_record` of this state
        replays to it exactly, futures included.
        """
        self.chance_log = [[str(k), v] for k, v in log]
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        self._forced_chance = None

    # ----------------------------------------------------------------------------------------
    # what every game implements
    @property
    @abstractmethod
    def num_players(self) -> int:
        """Number of seats, 0..num_players-1."""

    @property
    def agent_seats(self) -> tuple[int, ...]:
        """Seats played by agents (the env's agents), ascending: every seat by default. A game
        with a rules-driven seat (Clandestine's Nemesis) leaves it out; that seat is never
        ``current_player``."""
        return tuple(range(self.num_players))

    @property
    def rules_seats(self) -> tuple[int, ...]:
        """Seats the rules play, not an agent (Clandestine's Nemesis), ascending: the seats
        outside :attr:`agent_seats`; empty when agents play every seat."""
        agents = set(self.agent_seats)
        return tuple(q for q in range(self.num_players) if q not in agents)

    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size A of the fixed action space (ids 0..A-1), for this configuration."""

    @property
    @abstractmethod
    def observation_size(self) -> int:
        """Length D of :meth:`observation_tensor`, for this configuration."""

    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """The seat whose decision is due, or ``None`` when the game is over."""

    @property
    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game has ended by its rules (not by truncation)."""

    @abstractmethod
    def returns(self) -> np.ndarray:
        """Float64 array (num_players,): each seat's return; all zeros before the end."""

    @abstractmethod
    def legal_action_mask(self) -> np.ndarray:
        """Int8 array (num_actions,): 1 where the action is legal for ``current_player``.

        Never all zeros while a decision is due; all zeros when the game is over.
        """

    @abstractmethod
    def _apply_action(self, action: int) -> None:
        """Apply a legal action (already checked by :meth:`apply_action`)."""

    @abstractmethod
    def observation_tensor(self, seat: int) -> np.ndarray:
        """Float32 array (observation_size,): what ``seat`` knows, in the game's layout."""

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """Readable text of ``action`` as it would be taken now."""

    @abstractmethod
    def render_text(self, seat: int | None = None) -> str:
        """Text picture of the state: everything (``seat=None``) or what ``seat`` sees.

        Raises:
            ValueError: ``seat`` is neither None nor an integer in ``0..num_players-1`` (checked
                for every game by the base class).
        """

    @abstractmethod
    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> GameState:
        """A full state consistent with everything ``seat`` knows.

        Laws (tested for every game): ``resampled.observation_tensor(seat)`` equals
        ``self.observation_tensor(seat)``; and the resampled state carries a history that
        ``seat`` could not tell from the real one: ``resampled.to_record()`` (counterfactual
        chance outcomes, see :meth:`set_chance_log`, and the real actions, except that another
        seat's choice hidden from ``seat``, such as which card it placed face-down, may differ)
        replays to the resampled state, with the same observation for ``seat``, the same
        ``current_player``, the same public history and, where ``seat`` decides, the same mask
        as the real game at every step. The resampled
        state's future chance comes from a fresh generator drawn from ``rng``.
        """

    @abstractmethod
    def hidden_truth(self) -> dict[str, Any]:
        """The ground truth a deduction researcher probes for (JSON-serialisable)."""

    def reveal_text(self) -> str:
        """Every secret of the game for a person to read at its end (the terminal's "reveal"
        panel, ``training.play.final_screen``): one ``key: value`` line per entry of
        :meth:`hidden_truth`, the value as JSON. A game whose truth holds engine numbers (card
        ids, indices) overrides this to name them in its rulebook's words."""
        import json

        return "\n".join(f"{k}: {json.dumps(v)}" for k, v in self.hidden_truth().items())

    def rules_words(self) -> list[tuple[int, str]]:
        """What the seats the rules play (those not in :attr:`agent_seats`, e.g. Clandestine's
        Nemesis) did because of the last :meth:`apply_action`, in order: ``(seat, words)``
        pairs, the words public to every seat (they never name a hidden card). The text views
        (:class:`envs.core.text.SeatLogs`) tell them after that action. Default: none; empty
        before the first action and after an action that led to no such turn."""
        return []

    def public_history(self) -> list[tuple[int, ...]]:
        """Every public event so far, in order, as ``(kind, *args)`` tuples of ints.

        Identical whichever seat asks; the vocabulary (kind ids, argument meanings) is the game
        module's ``PUBLIC_EVENTS`` table. For sequence models (``public_history=True`` in the
        env puts it in ``infos``).

        Raises:
            NotImplementedError: the game does not list its public events.
        """
        raise NotImplementedError(f"{self.game_name or type(self).__name__} does not list its "
                                  "public history")

    # ----------------------------------------------------------------------------------------
    # shared behaviour
    @property
    def is_truncated(self) -> bool:
        """True when the game was cut off by a length limit (no winner). Default: never."""
        return False

    @property
    def is_over(self) -> bool:
        """Terminal or truncated."""
        return self.is_terminal or self.is_truncated

    def legal_actions(self) -> list[int]:
        """Sorted list of the legal action ids (empty when the game is over)."""
        return [int(a) for a in np.flatnonzero(self.legal_action_mask())]

    def illegal_reason(self, action: int) -> str:
        """Why a masked-out ``action`` is illegal now. Games may override with specifics."""
        return "the action mask forbids it in the current decision"

    def apply_action(self, action: int) -> None:
        """Check ``action`` and apply it for ``current_player``.

        Raises:
            IllegalActionError: the game is over, ``action`` is not an integer in
                ``0..num_actions-1``, or it is not legal now (message names action and reason).
        """
        if self.is_over:
            raise IllegalActionError(f"action {action!r} rejected: the game is over")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"action must be an integer id in 0..{self.num_actions - 1}, got {action!r}"
            )
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(
                f"action {a} is out of range: ids are 0..{self.num_actions - 1}"
            )
        if not self.legal_action_mask()[a]:
            raise IllegalActionError(
                f"action {a} ({self.action_to_string(a)}) is illegal for seat "
                f"{self.current_player}: {self.illegal_reason(a)}"
            )
        self._apply_action(a)
        self.history.append(a)

    def clone(self) -> GameState:
        """An independent deep copy (generator state included).

        Law (tested for every game, CONVENTIONS "Engine"): ``clone()``, ``copy.copy``,
        ``copy.deepcopy`` and a pickle round-trip each give a state that behaves exactly like
        the original from then on: same observations for every seat, masks and returns under
        the same actions, same chance outcomes, and neither copy changes the other. Games
        override this with a faster copy; ``copy.deepcopy`` and pickling use
        ``__getstate__``/``__setstate__``, which a game overrides where its fields are not
        independent objects (views into a shared buffer) or hold read-only caches.
        """
        return copy.deepcopy(self)

    def probe_clone(self) -> GameState:
        """:meth:`clone`, except that it draws its chance from the generator, never from a
        record being replayed (the record's remaining outcomes belong to the recorded actions
        only): for trying an action other than the recorded one, e.g. in
        :func:`envs.core.text.private_text`."""
        probe = self.clone()
        probe._forced_chance = None
        return probe

    def __copy__(self) -> GameState:
        """``copy.copy(state)`` is :meth:`clone`: a shallow copy would share the board's arrays
        and lists with the original, so moves in one would change the other."""
        return self.clone()

    @property
    def state_size(self) -> int:
        """Length of :meth:`state_tensor`."""
        return self.num_players * self.observation_size

    def state_tensor(self) -> np.ndarray:
        """Float32 array (state_size,): full-information vector for centralised critics.

        Default: every seat's observation, concatenated in seat order (the union of all seats'
        knowledge). Games whose hidden state is not covered by that union override it.
        """
        return np.concatenate([self.observation_tensor(s) for s in range(self.num_players)])

    # ----------------------------------------------------------------------------------------
    # game records
    def to_record(self) -> dict[str, Any]:
        """JSON-serialisable record: game, config, seed, actions, the chance outcomes, the
        generator's state now (``rng_state``, so that a record of an unfinished game rebuilds a
        state whose future chance is the original's) and the outcome, if over. A state taken
        part-way through :meth:`replay_steps` still holds the replayed record's later chance
        outcomes, which it draws before its generator: they go in ``"pending_chance"``."""
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "game": self.game_name,
            "config": dict(self.config),
            "seed": self.seed,
            "actions": list(self.history),
            "chance": [list(e) for e in self.chance_log],
            "rng_state": self.rng.bit_generator.state,
        }
        pending = getattr(self, "_forced_chance", None)
        if pending:   # a state part-way through a replay draws these next, not the generator
            record["pending_chance"] = [[k, v] for k, v in pending]
        if self.is_over:
            record["returns"] = [float(r) for r in self.returns()]
            record["truncated"] = bool(self.is_truncated)
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> GameState:
        """Replay ``record`` and return the state it reaches.

        A record with a ``"chance"`` list replays those chance outcomes instead of drawing them
        from the seed's generator (draws after the list is used up come from the generator);
        without one, every chance event is drawn from the seed. A record's ``"rng_state"`` (a
        numpy ``bit_generator.state`` dict) is installed after the replay, so the rebuilt
        state draws the same future chance as the state that wrote the record; its
        ``"pending_chance"`` (outcomes a state part-way through a replay was still to draw) are
        drawn first.

        Raises:
            RecordError: the record is for another game, is malformed, holds an illegal action,
                holds chance outcomes the game does not draw (or leaves some unused), stores an
                outcome that its actions do not reach, stores returns that differ from the
                replay's, holds an ``rng_state`` that is not a state of the game's generator,
                or a ``pending_chance`` that is not a list of ``[name, outcome]`` pairs.
        """
        state = None
        for state in cls.replay_steps(record):
            pass
        assert state is not None
        pending = record.get("pending_chance")
        if pending is not None:
            if not isinstance(pending, list) or not all(
                    isinstance(e, list) and len(e) == 2 and isinstance(e[0], str)
                    for e in pending):
                raise RecordError("a game record's 'pending_chance' must be a list of "
                                  "[name, outcome] pairs")
            state._forced_chance = deque((e[0], e[1]) for e in pending) if pending else None
        if record.get("rng_state") is not None:
            try:
                state.rng.bit_generator.state = record["rng_state"]
            except (TypeError, ValueError, KeyError) as exc:
                raise RecordError(f"record's rng_state is not a state of the game's generator "
                                  f"({type(state.rng.bit_generator).__name__}): {exc}") from exc
        if "returns" in record:
            if not state.is_over:
                raise RecordError(
                    f"record stores an outcome but its {len(record['actions'])} actions end "
                    "before the game does"
                )
            if not np.allclose(state.returns(), record["returns"]):
                raise RecordError(
                    f"replayed returns {state.returns().tolist()} differ from the record's "
                    f"{record['returns']}"
                )
        return state

    @classmethod
    def replay_steps(cls, record: dict[str, Any]) -> Iterator[GameState]:
        """Replay ``record`` step by step: yield the state after set-up, then after each action.

        The same object is yielded each time (mutated in place); clone it to keep a step.
        The record's stored outcome is not checked here (see :meth:`from_record`).

        Raises:
            RecordError: as :meth:`from_record`.
        """
        if not isinstance(record, dict):
            raise RecordError(f"a game record is a dict, got {type(record).__name__}")
        for key in ("game", "config", "seed", "actions"):
            if key not in record:
                raise RecordError(f"game record has no {key!r} field")
        if record.get("format", RECORD_FORMAT) != RECORD_FORMAT:
            raise RecordError(f"record format {record['format']!r} is not supported "
                              f"(this version reads format {RECORD_FORMAT})")
        if record["game"] != cls.game_name:
            raise RecordError(
                f"record is for game {record['game']!r}, not {cls.game_name!r}"
            )
        if not isinstance(record["config"], dict) or not isinstance(record["actions"], list):
            raise RecordError("a game record's 'config' must be a dict and 'actions' a list")
        chance = record.get("chance")
        if chance is not None and (not isinstance(chance, list) or not all(
                isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) for e in chance)):
            raise RecordError("a game record's 'chance' must be a list of [name, outcome] pairs")
        try:
            cls.check_config_keys(record["config"])
            state = cls.__new__(cls)
            if chance is not None:
                state._pending_chance = deque((e[0], e[1]) for e in chance)
            state.__init__(seed=record["seed"], **record["config"])  # type: ignore[misc]
        except RecordError:
            raise
        except ValueError as exc:
            raise RecordError(f"record cannot be set up: {exc}") from exc
        yield state
        for i, a in enumerate(record["actions"]):
            try:
                state.apply_action(a)
            except IllegalActionError as exc:
                raise RecordError(f"record action #{i} cannot be replayed: {exc}") from exc
            yield state
        if state._forced_chance:
            raise RecordError(f"record holds {len(state._forced_chance)} chance outcome(s) that "
                              "its actions never draw")


def check_seed(seed: Any, name: str = "seed") -> None:
    """Refuse a seed that is not ``None`` or a non-negative integer (bools refused).

    Raises:
        ValueError: naming ``name`` and the value.
    """
    if seed is None:
        return
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{name} must be a non-negative integer or None, got {seed!r}")


def _with_seat_check(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a ``(self, seat, ...)`` method so that a bad seat raises a clear ValueError."""

    @functools.wraps(fn)
    def checked(self: GameState, seat: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(self, self.check_seat(seat), *args, **kwargs)

    checked._seat_checked = True  # type: ignore[attr-defined]
    return checked


def _with_optional_seat_check(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a ``(self, seat=None)`` method (``render_text``): ``None`` passes, any other seat
    must name a seat of the game (a negative index, a bool or a string would otherwise show
    another seat's view or none, silently)."""

    @functools.wraps(fn)
    def checked(self: GameState, seat: Any = None) -> Any:
        return fn(self, None if seat is None else self.check_seat(seat))

    checked._seat_checked = True  # type: ignore[attr-defined]
    return checked
