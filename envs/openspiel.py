"""Every Cunning game as an OpenSpiel (``pyspiel``) Python game.

Needs the optional extra ``openspiel`` (``pip install -e ".[openspiel]"``, the ``open_spiel``
package from the package index). Importing this module registers each game of
:data:`envs.GAMES` with OpenSpiel as ``cunning_<game>``::

    import envs.openspiel, pyspiel
    game = pyspiel.load_game("cunning_prowl", {"players": 4, "reward": "zero_sum"})
    state = game.new_initial_state()

Mapping (OpenSpiel's terms on the left):

* **game type**: sequential, imperfect information, terminal rewards. ``utility`` is
  ``ZERO_SUM`` when the configuration's returns always sum to zero (:func:`is_zero_sum`: Prowl's
  ``reward="zero_sum"``; two-player Prowl and Clans), else ``GENERAL_SUM``; the registered type
  (of the default configuration) says ``GENERAL_SUM`` and each loaded game carries its own.
* **chance**: ``SAMPLED_STOCHASTIC``. The engines draw every shuffle and deal inside
  ``apply_action`` from their own seeded generator, logged in ``GameState.chance_log``; a deal is
  one permutation of up to 32 cards, drawn in the middle of an action. Explicit chance nodes
  would mean splitting every permutation into one node per card and suspending the engine in the
  middle of an action, so there are no chance nodes: ``current_player`` is never ``CHANCE``.
  As OpenSpiel's sampled-stochastic games do, the game has an ``rng_seed`` parameter (``-1``:
  from the OS); each ``new_initial_state()`` draws the engine's seed from the game's generator.
  A cloned state carries its generator (same future chance), so OpenSpiel's plain MCTS sees the
  true state and its future draws; ISMCTS samples worlds with :meth:`CunningSpielState.
  resample_from_infostate`, whose future chance is fresh.
* **parameters**: ``players`` (OpenSpiel's name for the engine's ``num_players``), every other
  keyword of the engine's constructor with its default (a list default, such as Prowl's
  ``clans``, is a string joined by ``/``), ``rng_seed`` and ``max_game_length``. A keyword
  whose default is ``None`` (Clandestine's ``societies``, variant flags, ``nemesis`` and
  ``difficulty``) is offered with a "none" value that stands for ``None``
  (:data:`NONE_TEXT` ``""`` for a text parameter, :data:`NONE_INT` ``-1`` for an integer one):
  a list is ``/``-joined text, a flag ``"true"`` or ``"false"``, a name as itself
  (``nemesis="most_holy"``), an integer as itself (``difficulty=3``). :func:`load_game` also
  takes Python values for them (``None``, ``True``, a list). Bad values raise the engine's
  ``ConfigError`` message, which names the keyword.
* **rules-played seats**: a seat the engine plays itself (Clandestine's Nemesis, seated last,
  not in ``GameState.agent_seats``) is no OpenSpiel player: ``players`` and ``num_players()``
  count the agent seats (``players=1, nemesis="most_holy", difficulty=3`` is solo play), the
  Nemesis's turns happen inside ``apply_action`` as part of the transition (no chance node,
  never a current player), and ``returns()`` lists the agent seats' returns only.
* **information state and observation**: both are the engine's ``observation_tensor(seat)``
  (float32, the game's documented layout), which already holds perfect recall of everything
  the seat knows; the strings are ``render_text(seat)`` (the seat's own text view) plus a
  digest line of that tensor (the text view may summarise; ISMCTS keys its nodes by the
  string, so equal strings must mean equal information states). Both
  observer types therefore give the same tensor and string; a public-only observer
  (``private_info`` not ``SINGLE_PLAYER``) is refused.
* **game length**: ``max_game_length`` (default per game, :data:`DEFAULT_MAX_GAME_LENGTH`, far
  above any random game's length) bounds the decisions of one game, as OpenSpiel requires; a
  game that reaches it ends truncated with zero returns, as the PettingZoo env's ``max_cycles``.
* **serialisation**: ``pickle`` works for games (parameters and generator state) and states;
  OpenSpiel's ``serialize_game_and_state`` does not, as pyspiel gives a Python game no way to
  provide ``GetRNGState``, which it asks of every sampled-stochastic game (so run
  ``pyspiel.random_sim_test`` with ``serialize=False``). ``state.serialize()`` and
  ``game.deserialize_state`` work; ``state.to_record()`` gives the engine's replayable record.
* **returns**: the engine's ``returns()`` once it ends by its rules; zeros when truncated.
* ``resample_from_infostate(player, sampler)``: the engine's resampler, for OpenSpiel's ISMCTS.
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("envs.openspiel needs OpenSpiel: pip install 'cunning[openspiel]' "
                      "(the open_spiel package)") from exc

from envs import GAMES, env_module
from envs.core.errors import ConfigError
from envs.core.state import GameState

#: default ``max_game_length`` per game (decisions in one game): random games at the largest
#: player count run to at most 71 (Prowl), 1,488 (Badland Wolves, 300 Lead-Wolf turns) and 50
#: (Clans) decisions
DEFAULT_MAX_GAME_LENGTH: dict[str, int] = {"prowl": 1_000, "badland_wolves": 20_000,
                                           "clans": 1_000, "clandestine": 20_000}
#: used for a game missing from :data:`DEFAULT_MAX_GAME_LENGTH`
FALLBACK_MAX_GAME_LENGTH = 20_000
#: the parameter value that leaves a keyword whose engine default is ``None`` at ``None``: for a
#: text parameter (a list, a flag, a name), and for an integer one
NONE_TEXT, NONE_INT = "", -1
#: more configurations whose agent-seat counts the registered player range covers, per game
#: (Clandestine against a Nemesis: 1-4 agent seats)
PLAYER_COUNT_CONFIGS: dict[str, tuple[dict[str, Any], ...]] = {
    "clandestine": ({"nemesis": "most_holy", "difficulty": 1},)}

#: reward keywords whose returns sum to zero at every player count, per game
ZERO_SUM_REWARDS: dict[str, set[str]] = {"prowl": {"zero_sum"}}
#: reward keywords that are zero-sum with two players (+1/-1, or 0 to both, or a symmetric
#: margin), per game
TWO_PLAYER_ZERO_SUM_REWARDS: dict[str, set[str]] = {"prowl": {"win_loss"},
                                                    "clans": {"win_loss", "score_margin"}}
#: (min, max) return per (game, reward); (-1, 1) otherwise
UTILITY_RANGE: dict[tuple[str, str], tuple[float, float]] = {
    ("badland_wolves", "win_only"): (0.0, 1.0)}


def short_name(game: str) -> str:
    """OpenSpiel short name of ``game``: ``cunning_<game>``."""
    return f"cunning_{game}"


def is_zero_sum(game: str, config: dict[str, Any]) -> bool:
    """True when every game of this configuration has returns summing to zero.

    ``config`` is the engine's validated configuration (``GameState.config``).
    """
    reward = config.get("reward")
    if reward in ZERO_SUM_REWARDS.get(game, set()):
        return True
    return config.get("num_players") == 2 and reward in TWO_PLAYER_ZERO_SUM_REWARDS.get(game, set())


@dataclass(frozen=True)
class _Spec:
    """What a state needs of its game: the engine class, its config and the length bound.

    Shared, never copied: deep copies and pickles of a state keep referring to one spec.
    """

    game: str
    state_class: type
    config: tuple
    max_game_length: int

    def __deepcopy__(self, memo: dict) -> _Spec:
        return self


def _engine_keywords(state_class: type) -> dict[str, Any]:
    """The engine constructor's keywords (``seed`` left out) with their defaults."""
    return {name: p.default for name, p in _engine_parameters(state_class).items()}


def _engine_parameters(state_class: type) -> dict[str, inspect.Parameter]:
    """The engine constructor's keyword parameters (``seed`` left out)."""
    return {name: p for name, p in inspect.signature(state_class.__init__).parameters.items()
            if name not in ("self", "seed") and p.kind in (
                inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)}


def _none_kind(annotation: Any) -> str:
    """How a keyword defaulting to ``None`` is offered, from its annotation (a string under
    ``from __future__ import annotations``): ``"int"`` (``int | None``: an integer parameter,
    :data:`NONE_INT` for None), else text (:data:`NONE_TEXT` for None) read as ``"list"``
    (``/``-joined), ``"str"`` (a name) or ``"bool"`` (``"true"`` / ``"false"``)."""
    text = str(annotation)
    for kind in ("list", "str", "bool"):
        if kind in text:
            return kind
    return "int" if "int" in text else "str"


def _none_value(kind: str) -> Any:
    """The "none" parameter value of a keyword offered as ``kind`` (:func:`_none_kind`)."""
    return NONE_INT if kind == "int" else NONE_TEXT


def _from_none_param(name: str, kind: str, value: Any) -> Any:
    """The engine value of an OpenSpiel parameter offered for a ``None``-default keyword.

    Raises:
        ConfigError: a flag that is not ``""``, ``"true"`` or ``"false"`` (names the keyword).
    """
    if value == _none_value(kind):
        return None
    if kind == "list":
        return [s for s in value.split("/") if s]
    if kind == "bool":
        if value.lower() not in ("true", "false"):
            raise ConfigError(f"{name} must be '' (the default: None), 'true' or 'false', got "
                              f"{value!r}")
        return value.lower() == "true"
    return value


def _to_param(value: Any) -> Any:
    """An engine default as an OpenSpiel parameter value (int, float, bool or str)."""
    if isinstance(value, (list, tuple)):
        return "/".join(str(v) for v in value)
    if isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"no OpenSpiel parameter type for {value!r}")


def _player_counts(state_class: type, configs: tuple[dict[str, Any], ...] = ()) -> list[int]:
    """The agent-seat counts the engine accepts (``num_players`` tried from 1 to 12 in the
    default configuration and in each of ``configs``)."""
    ok = set()
    for config in ({}, *configs):
        for n in range(1, 13):
            try:
                engine = state_class.from_config(0, num_players=n, **config)
            except (ConfigError, ValueError):
                continue
            ok.add(len(engine.agent_seats))
    if not ok:
        raise ValueError(f"{state_class.__name__} accepts no player count in 1..12")
    return sorted(ok)


class CunningSpielGame(pyspiel.Game):
    """One Cunning game as a ``pyspiel.Game`` (built by ``pyspiel.load_game``).

    Args:
        params: OpenSpiel parameters (every one present: OpenSpiel fills in the defaults).

    Raises:
        ConfigError: a parameter the engine refuses (message names it), or a bad
            ``max_game_length``.
    """

    #: set per registered game by :func:`register`
    game: str = ""
    state_class: type = GameState
    registered_type: Any = None
    list_keywords: frozenset = frozenset()
    #: keywords defaulting to ``None`` -> how they are offered (:func:`_none_kind`)
    none_keywords: ClassVar[dict[str, str]] = {}

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(self.registered_type.parameter_specification, **(params or {}))
        max_len = params.pop("max_game_length")
        rng_seed = params.pop("rng_seed")
        if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
            raise ConfigError(f"max_game_length must be a positive integer, got {max_len!r}")
        config = {("num_players" if k == "players" else k):
                  ([s for s in v.split("/") if s] if k in self.list_keywords else
                   _from_none_param(k, self.none_keywords[k], v) if k in self.none_keywords
                   else v)
                  for k, v in params.items()}
        try:
            engine = self.state_class.from_config(0, **config)
        except ConfigError as exc:
            left = [f"{k}={v!r} (its none value) is no {k}" for k, v in params.items()
                    if k in self.none_keywords and v == _none_value(self.none_keywords[k])
                    and k in str(exc)]
            if not left:
                raise
            raise ConfigError(f"{exc}; OpenSpiel parameter {', '.join(left)}") from exc
        self._spec = _Spec(self.game, self.state_class, tuple(sorted(engine.config.items(),
                                                                    key=lambda kv: kv[0])),
                           int(max_len))
        zero_sum = is_zero_sum(self.game, engine.config)
        lo, hi = UTILITY_RANGE.get((self.game, engine.config.get("reward")), (-1.0, 1.0))
        # the players are the agent seats; a seat the rules play (a Nemesis) acts inside the
        # engine's transitions and is not counted (nor in "players": that is the engine's
        # num_players keyword, which leaves it out too)
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions, max_chance_outcomes=0,
            num_players=len(engine.agent_seats), min_utility=lo, max_utility=hi,
            utility_sum=0.0 if zero_sum else None, max_game_length=int(max_len))
        game_type = _game_type(self.game, self.registered_type.parameter_specification,
                               self.registered_type.min_num_players,
                               self.registered_type.max_num_players, zero_sum)
        super().__init__(game_type, info, {"players": engine.config["num_players"], **{
            k: v for k, v in params.items() if k != "players"},
            "max_game_length": int(max_len), "rng_seed": rng_seed})
        self._rng = np.random.default_rng(None if rng_seed < 0 else rng_seed)

    def __reduce__(self) -> tuple:
        """Pickle as the game's parameters plus its generator's state (OpenSpiel's own
        serialisation of a sampled-stochastic game needs ``GetRNGState``, which pyspiel does not
        let a Python game provide)."""
        return (_restore_game, (self.game, dict(self.get_parameters()),
                                self._rng.bit_generator.state))

    @property
    def engine_config(self) -> dict[str, Any]:
        """The engine's configuration of this game (``GameState.config``)."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self._spec.config}

    def new_initial_state(self) -> CunningSpielState:
        """A new game: the engine's seed is drawn from the game's generator (``rng_seed``)."""
        return CunningSpielState(self, self._spec, int(self._rng.integers(2**62)))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CunningObserver:
        """The observer of the engine's observation (see :class:`CunningObserver`)."""
        return CunningObserver(self._spec, iig_obs_type, params)


class CunningSpielState(pyspiel.State):
    """A Cunning engine state behind OpenSpiel's ``pyspiel.State`` interface.

    The engine (:attr:`engine`, a :class:`envs.core.state.GameState`) is built on first use
    from the seed drawn by the game; OpenSpiel's ``clone`` and serialisation copy it whole
    (generator included).
    """

    def __init__(self, game: CunningSpielGame, spec: _Spec | None = None,
                 seed: int | None = None) -> None:
        super().__init__(game)
        self._spec = spec if spec is not None else game._spec
        self._seed = seed
        self._engine: GameState | None = None
        self._length = 0

    def __reduce__(self) -> tuple:
        """Pickle as the game plus ``serialize()`` (OpenSpiel's history and this state's fields,
        engine included)."""
        return (_restore_state, (self.get_game(), self.serialize()))

    @property
    def engine(self) -> GameState:
        """The engine state (a :class:`envs.core.state.GameState`); do not mutate it directly."""
        if self._engine is None:
            spec = self._spec
            self._engine = spec.state_class(seed=self._seed, **dict(spec.config))
        return self._engine

    def current_player(self) -> int:
        """The seat whose decision is due, or ``pyspiel.PlayerId.TERMINAL``."""
        if "_replay_players" in self.__dict__:  # recording a resampled history
            return self._replay_players[len(self.history())]
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return int(self.engine.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        """Sorted legal action ids of ``player`` (empty unless ``player`` is to act)."""
        if self.is_terminal() or player != self.engine.current_player:
            return []
        return self.engine.legal_actions()

    def chance_outcomes(self) -> list:
        """Never called: chance is sampled inside the engine (no chance nodes)."""
        raise ValueError("Cunning games have no chance nodes: chance is sampled stochastic")

    def _apply_action(self, action: int) -> None:
        """Apply ``action`` for the current seat (the engine checks it: ``IllegalActionError``)."""
        if "_replay_players" in self.__dict__:  # recording a resampled history
            return
        self.engine.apply_action(int(action))
        self._length += 1

    def _action_to_string(self, player: int, action: int) -> str:
        """The engine's text of ``action`` as it would be taken now (id in brackets when the
        engine cannot name it here, e.g. after the end)."""
        try:
            return self.engine.action_to_string(int(action))
        except (ValueError, IndexError, KeyError):
            return f"action {int(action)}"

    def is_terminal(self) -> bool:
        """Over by the rules, truncated by the engine, or at ``max_game_length`` decisions."""
        return self.engine.is_over or self._length >= self._spec.max_game_length

    @property
    def is_truncated(self) -> bool:
        """Ended without a result: the engine's own truncation or ``max_game_length``."""
        return self.is_terminal() and not self.engine.is_terminal

    def returns(self) -> list[float]:
        """Each player's return: the engine's ``returns()`` of the agent seats once it ends by
        its rules (a seat the rules play, such as a Nemesis, is no player), else 0."""
        seats = self.engine.agent_seats
        if self.engine.is_terminal:
            ret = self.engine.returns()
            return [float(ret[s]) for s in seats]
        return [0.0] * len(seats)

    def __str__(self) -> str:
        """The full-truth text picture (``render_text()``), for debugging; never for a seat."""
        return self.engine.render_text()

    def to_record(self) -> dict[str, Any]:
        """The engine's replayable game record (``GameState.to_record``)."""
        return self.engine.to_record()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any
                                ) -> CunningSpielState:
        """A state consistent with everything ``player_id`` knows, for OpenSpiel's ISMCTS.

        Args:
            player_id: the seat whose information state is kept.
            probability_sampler: ``pyspiel.UniformProbabilitySampler`` (or any zero-argument
                callable returning floats in [0, 1)), or a ``numpy.random.Generator``; the
                engine's resampler draws from a generator seeded by it.

        Returns:
            A new state around ``engine.resample_from_infostate(player_id, rng)`` whose history
            (``history()``) is the resampled world's actions, with the same acting seats.
        """
        if isinstance(probability_sampler, np.random.Generator):
            rng = probability_sampler
        elif callable(probability_sampler):
            rng = np.random.default_rng([int(probability_sampler() * 2**32) for _ in range(4)])
        else:
            raise TypeError("probability_sampler must be a callable returning floats in [0, 1) "
                            f"or a numpy Generator, got {type(probability_sampler).__name__}")
        world = self.engine.resample_from_infostate(player_id, rng)
        # a shell state (its seed is never used: the resampled engine replaces its engine);
        # built directly so the game's seed generator is not advanced by resampling
        new = CunningSpielState(self.get_game(), self._spec, 0)
        players = [pa.player for pa in self.full_history()]
        actions = list(world.history)
        if len(actions) != len(players):
            raise RuntimeError(f"resampled history has {len(actions)} actions, the real one "
                               f"{len(players)}")
        # Record the resampled history in OpenSpiel's bookkeeping without replaying the
        # engine: the resampled engine is installed afterwards.
        new._replay_players = players
        for a in actions:
            new.apply_action(a)
        del new._replay_players
        new._engine = world
        new._length = self._length
        return new


class CunningObserver:
    """OpenSpiel Python observer: the engine's observation tensor and the seat's text view.

    ``tensor`` is float32 (observation_size,) = ``observation_tensor(seat)``, also in
    ``dict["observation"]``; ``string_from`` is ``render_text(seat)`` plus a digest of the
    tensor. The engine's observation
    holds perfect recall, so it serves the information state and the observation alike.

    Raises:
        ValueError: observer parameters given, or a ``private_info`` other than
            ``SINGLE_PLAYER`` (the engines do not encode a public-only view).
    """

    def __init__(self, spec: _Spec, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"Cunning observers take no parameters, got {params}")
        if iig_obs_type is not None and \
                iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("Cunning games only observe for a seat (private_info="
                             f"SINGLE_PLAYER), got {iig_obs_type.private_info}")
        size = spec.state_class.from_config(0, **dict(spec.config)).observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CunningSpielState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into ``tensor``."""
        self.tensor[:] = state.engine.observation_tensor(player)

    def string_from(self, state: CunningSpielState, player: int) -> str:
        """``player``'s text view of ``state`` (``render_text(player)``), then a line with a
        digest of its observation tensor.

        The text view is for reading and may summarise; the digest line makes two strings equal
        exactly when the information states (the tensors) are equal, as ISMCTS, which keys
        its nodes by this string, needs.
        """
        obs = state.engine.observation_tensor(player)
        digest = hashlib.blake2b(obs.tobytes(), digest_size=12).hexdigest()
        return f"{state.engine.render_text(player)}\ninformation state {digest}"


def _restore_game(game: str, params: dict[str, Any], rng_state: dict) -> CunningSpielGame:
    """Unpickle a game (see ``CunningSpielGame.__reduce__``)."""
    g = load_game(game, **params)
    g._rng.bit_generator.state = rng_state
    return g


def _restore_state(game: CunningSpielGame, serialized: str) -> CunningSpielState:
    """Unpickle a state (see ``CunningSpielState.__reduce__``)."""
    return game.deserialize_state(serialized)


def _game_type(game: str, params: dict[str, Any], min_players: int, max_players: int,
               zero_sum: bool) -> Any:
    """The ``pyspiel.GameType`` of ``game`` (utility per ``zero_sum``)."""
    util = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"Cunning {game.replace('_', ' ').title()}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=util.ZERO_SUM if zero_sum else util.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=params)


def register(game: str) -> type[CunningSpielGame]:
    """Register ``game`` (a key of :data:`envs.GAMES`) with OpenSpiel as ``cunning_<game>``.

    Returns the game class; registering twice returns the class made the first time.

    Raises:
        ValueError: unknown game.
    """
    if game in _REGISTERED:
        return _REGISTERED[game]
    state_class = env_module(game).raw_env.state_class
    keywords = _engine_parameters(state_class)
    counts = _player_counts(state_class, PLAYER_COUNT_CONFIGS.get(game, ()))
    default_players = keywords.pop("num_players").default
    params: dict[str, Any] = {"players": default_players}
    list_keywords = set()
    none_keywords = {}
    for name, p in keywords.items():
        default = p.default
        if default is inspect.Parameter.empty:
            continue
        if default is None:
            none_keywords[name] = _none_kind(p.annotation)
            params[name] = _none_value(none_keywords[name])
            continue
        if isinstance(default, (list, tuple)):
            list_keywords.add(name)
        params[name] = _to_param(default)
    params["rng_seed"] = -1
    params["max_game_length"] = DEFAULT_MAX_GAME_LENGTH.get(game, FALLBACK_MAX_GAME_LENGTH)
    default_engine = state_class.from_config(0)
    registered_type = _game_type(game, params, min(counts), max(counts),
                                 is_zero_sum(game, default_engine.config))
    cls = type(f"{''.join(w.title() for w in game.split('_'))}SpielGame", (CunningSpielGame,),
               {"game": game, "state_class": state_class, "registered_type": registered_type,
                "list_keywords": frozenset(list_keywords), "none_keywords": none_keywords,
                "__module__": __name__,
                "__doc__": f"{game} as a pyspiel game (see :class:`CunningSpielGame`)."})
    pyspiel.register_game(registered_type, cls)
    _REGISTERED[game] = cls
    return cls


_REGISTERED: dict[str, type[CunningSpielGame]] = {}


def ismcts_bot(game: CunningSpielGame, evaluator: Any, uct_c: float = 2.0,
               max_simulations: int = 100, **kwargs: Any) -> Any:
    """OpenSpiel's Python ``ISMCTSBot`` ready for ``evaluate_bots``.

    OpenSpiel's ``ISMCTSBot`` has no ``restart_at``, which ``evaluate_bots`` calls on every bot
    first; this subclass's ``restart_at`` clears the search tree (``reset``). Keywords as for
    ``open_spiel.python.algorithms.ismcts.ISMCTSBot``. Worlds are sampled with
    :meth:`CunningSpielState.resample_from_infostate`.
    """
    from open_spiel.python.algorithms import ismcts

    class _ISMCTSBot(ismcts.ISMCTSBot):
        def restart_at(self, state: Any) -> None:
            self.reset()

    return _ISMCTSBot(game, evaluator, uct_c, max_simulations, **kwargs)


def load_game(game: str, **params: Any) -> CunningSpielGame:
    """``pyspiel.load_game("cunning_<game>", params)``; ``num_players`` is accepted for
    ``players``, and Python values for the keywords defaulting to ``None`` (``None``, a flag's
    ``True`` / ``False``, a list), given to OpenSpiel as their parameter text (module docstring).

    Raises:
        ValueError: unknown game, or a parameter the game refuses.
    """
    cls = register(game)
    if "num_players" in params:
        if "players" in params:
            raise ValueError("give players or num_players, not both")
        params["players"] = params.pop("num_players")
    for k, v in params.items():
        kind = cls.none_keywords.get(k)
        if v is None and kind is not None:
            params[k] = _none_value(kind)
        elif isinstance(v, bool) and kind == "bool":
            params[k] = "true" if v else "false"
        elif isinstance(v, (list, tuple)) and (kind == "list" or k in cls.list_keywords):
            params[k] = "/".join(str(x) for x in v)
    return pyspiel.load_game(short_name(game), params)


def register_all() -> list[str]:
    """Register every game of :data:`envs.GAMES`; returns their OpenSpiel short names."""
    return [short_name(g) for g in GAMES if register(g)]


register_all()

__all__ = [
    "NONE_INT",
    "NONE_TEXT",
    "CunningObserver",
    "CunningSpielGame",
    "CunningSpielState",
    "is_zero_sum",
    "ismcts_bot",
    "load_game",
    "register",
    "register_all",
    "short_name",
]
