"""Single-observer Information Set Monte Carlo Tree Search (SO-ISMCTS) for every Cunning game.

Cowling, Powley & Whitehouse (2012), "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2),
algorithm 3 (SO-ISMCTS), with the multiplayer back-up of their section VI. One implementation for
every game, written on the engine contract only (:mod:`envs.core.state`):
``resample_from_infostate``, ``apply_action``, ``legal_action_mask``, ``current_player``,
``is_over`` / ``is_terminal`` and ``returns``. The searching seat learns about hidden information
ONLY through ``state.resample_from_infostate(seat, rng)``: at the root it reads the public
``current_player`` and ``legal_action_mask()`` (both part of the seat's information state) and
nothing else of the live state; every other read happens on a determinization.

One iteration:

1. **Determinize**: a fresh world ``d = state.resample_from_infostate(seat, rng)``, a full state
   consistent with everything ``seat`` knows (its future chance comes from a generator drawn from
   ``rng``).
2. **Select**: from the root, while ``d`` is not over and every legal action of the player to act
   in ``d`` already has a child, every such child's *availability* count goes up by one and the
   child maximising the subset-armed UCB score is followed (its action applied to ``d``)::

       mean + c * sqrt(ln(availability) / visits)

   where ``mean`` is the child's average return *for the seat that chose it* (so opponents pick
   their own best replies: the per-seat back-up for multiplayer play). Children are keyed by
   ``(acting seat, action id)``, so one tree serves worlds where the seat to act differs.
3. **Expand**: at the first node with an untried legal action, one is chosen uniformly (from
   ``rng``), added as a child and applied (availability of the legal children also counted).
4. **Roll out**: the rollout policy plays ``d`` to its end: ``"random"`` (uniform over the legal
   actions, from ``rng``) or ``"heuristic"`` (the game's scripted heuristic, one instance per
   seat, reset at the start of each rollout, acting on
   ``{"observation": d.observation_tensor(p), "action_mask": d.legal_action_mask()}``; it sees
   only what the seat to act sees in the determinized world, and its within-game memory starts
   at the rollout, not at the real game's start). A game that ends truncated scores **zeros for
   every seat**: the same "no winner" outcome that evaluation gives a truncated game. A rollout
   that reaches ``max_rollout_depth`` actions without ending is scored by ``cut``: with
   ``"provisional"`` (the default) by the determinized world's ``provisional_returns()`` when
   its engine has one (Clans: the returns if the game ended now, from the world's current
   scores; same scale as ``returns()``), otherwise zeros as with ``"zeros"``. The provisional
   evaluation reads the determinization only, never the real state.
5. **Back up**: every node on the path gets one visit and adds the return of the seat that acted
   into it (``returns()[seat]``).

With ``max_world_samples=K`` (spec key ``worlds=K``; OpenSpiel's ``max_world_samples``,
``open_spiel/algorithms/is_mcts.h``), step 1 draws a fresh determinization only while the search
holds fewer than ``K``; from then on each iteration plays on a ``clone()`` of one of the ``K``
held worlds, chosen uniformly (from ``rng``). A clone keeps its world's future chance generator,
so the iterations that reuse a world see the same deck orders and chance outcomes. The worlds
still come only from ``resample_from_infostate``; what changes is how many distinct ones the
search sees (``K`` instead of one per iteration) and the cost (``K`` resamples per move instead
of one per iteration: the resampler is most of a Badland Wolves move's time). ``None`` (the
default) draws a fresh world every iteration.

With ``prior="heuristic"`` (spec ``prior=heuristic``) the root is guided by the game's scripted
heuristic acting for the searching seat on its own observation (one instance, kept for the whole
game like any heuristic player; it never sees the live state): the heuristic's move is the first
root move expanded, and in step 2 at the root its UCB score gets the *progressive bias*
``prior_weight / (visits + 1)`` (Chaslot et al. 2008, "Progressive strategies for Monte-Carlo
tree search", New Math. Nat. Comput. 4(3)), so the search plays the heuristic's move unless its
iterations find another one clearly better; the bias fades as visits grow. Only the root of the
searching seat is biased (deeper nodes would need the heuristic's memory of a determinized game).

The move played is the root child with the most visits (ties: the prior's move, then higher
mean return, then the lower action id), or with ``final="mean"`` the one with the highest mean
return (ties: more visits, the prior's move, the lower action id). With a prior and
``final="mean"``, the prior's move is scored by its mean plus the same progressive bias
``prior_weight / (visits + 1)``: the bias sends most iterations to the prior's move, leaving
the other moves few visits and noisy means, and without it the highest of those noisy means
would win the final choice, so a larger bias made the search play the heuristic's move *less*
often. A decision with a single legal action is returned without searching.

Constants per game: ``c``, ``max_rollout_depth``, ``cut``, ``final``, ``max_world_samples``,
``prior`` and ``prior_weight`` not given take
:func:`game_defaults` (:data:`BASE_DEFAULTS`: c=2.0, max_rollout_depth=2000, cut="provisional",
final="visits", max_world_samples=None, prior=None, prior_weight=1.0, overridden per game by
:data:`GAME_DEFAULTS`: in Clans c=0.5, max_rollout_depth=5, cut="score_margin"; in Badland
Wolves c=0.5, max_rollout_depth=10, cut="hands", max_world_samples=20, prior="heuristic");
``repr(agent)`` shows the values in use.

Budget: ``iterations`` and/or ``seconds`` (wall clock); the search stops at whichever is used up
first, and always runs at least one iteration. With an iteration budget the agent is
reproducible: the same seed and the same sequence of calls give the same moves (a time budget
is not, as the number of iterations depends on the machine).

Spec form (:func:`agents.make_agent`): ``ismcts:N`` (N iterations, random rollouts),
``ismcts:N:rollout=heuristic``, and the other keywords ``c=``, ``seconds=``, ``max_depth=``
``cut=``, ``final=``, ``worlds=``, ``prior=`` and ``bias=`` (``prior_weight``)
(``ismcts:200:c=1.5:max_depth=300``, ``ismcts:200:prior=heuristic:bias=2``,
``ismcts:200:c=0.5:max_depth=20:cut=score_margin:final=mean``).
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

import numpy as np

from .base import OwnCopy, is_real_number, legal_ids, seat_of_state

ROLLOUTS = ("random", "heuristic")
#: how a rollout cut at ``max_rollout_depth`` is scored, besides an engine's own kind names
CUTS = ("zeros", "provisional")
#: how the move is picked from the root's children
FINALS = ("visits", "mean")
#: the defaults of every game without its own entry in :data:`GAME_DEFAULTS`
BASE_DEFAULTS: dict[str, Any] = {"c": 2.0, "max_rollout_depth": 2000, "cut": "provisional",
                                 "final": "visits", "max_world_samples": None, "prior": None,
                                 "prior_weight": 1.0}
#: root priors: ``None`` (none) or ``"heuristic"`` (the game's scripted heuristic)
PRIORS = (None, "heuristic")
#: per-game defaults, over :data:`BASE_DEFAULTS` (docs/training.md, "`ismcts:200` against the
#: heuristic and the shipped policy", has the measurements behind them)
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    # Clans: random rollouts to the end score a very noisy +-1 and took the searcher only level
    # with two heuristics (0.363 of 1,000 games with c=2.0); cut after 5 actions and scored by
    # the determinized world's score margin, with c=0.5, it beats them: 0.461 [0.430, 0.492]
    # of 1,000 games, seat win share 0.356 (docs/training.md)
    "clans": {"c": 0.5, "max_rollout_depth": 5, "cut": "score_margin"},
    # Badland Wolves: a fresh world every iteration and random rollouts to the end cost 133 s
    # a game; 20 worlds a move, rollouts cut after 10 actions and scored by the win deficit
    # less a quarter token per card in hand ("hands"), with the heuristic's move biasing the
    # root, beat three heuristics: 0.372 [0.343, 0.402] over 1,008 games at about 15 CPU s a game
    # (docs/training.md, "Badland Wolves: the searcher's constants"); neither the hands
    # evaluation nor the prior did alone
    "badland_wolves": {"c": 0.5, "max_rollout_depth": 10, "cut": "hands",
                       "max_world_samples": 20, "prior": "heuristic"},
}
_UNSET: Any = object()
_DIGITS = re.compile(r"[0-9]+")
#: a real option's text: ASCII decimal (optional sign, fraction, exponent), or inf/infinity/nan
#: (refused by the agent's range checks, which name the option); float() would also take
#: "1_5" (15), surrounding spaces and digits of other scripts
_REAL = re.compile(r"[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?|inf|infinity|nan)",
                   re.IGNORECASE)


def _positive_integer(value: Any) -> bool:
    """Whether ``value`` is a whole number of at least 1: an int or an integral float, not a
    bool, a string, NaN or infinity (``int()`` on those raised errors naming no keyword, or
    took True as 1)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return value >= 1
    return isinstance(value, (float, np.floating)) and math.isfinite(value) \
        and float(value).is_integer() and value >= 1


def _finite_real(value: Any) -> bool:
    """Whether ``value`` is a real number (:func:`agents.base.is_real_number`) whose float is
    finite: NaN, infinity and an int beyond the float range (``float(10**400)`` raises
    OverflowError) are not."""
    if not is_real_number(value):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def game_defaults(game: str) -> dict[str, Any]:
    """The constants ``ismcts:N`` uses in ``game`` when the spec does not set them.

    A copy of :data:`BASE_DEFAULTS` updated with ``GAME_DEFAULTS.get(game, {})``: keys ``c``,
    ``max_rollout_depth``, ``cut``, ``final``, ``max_world_samples``, ``prior`` and
    ``prior_weight`` (the :class:`ISMCTSAgent` keywords).
    """
    return {**BASE_DEFAULTS, **GAME_DEFAULTS.get(game, {})}


def _provisional_kinds(game: str) -> tuple[str, ...]:
    """The ``kind`` names the game's engine ``provisional_returns`` takes (empty if none or the
    game is not registered)."""
    from envs import GAMES, env_module

    if game not in GAMES:
        return ()
    cls = env_module(game).raw_env.state_class
    return tuple(getattr(cls, "PROVISIONAL_KINDS", ()))


class _Node:
    """A tree node: the edge statistics of the action that leads into it.

    ``visits``: iterations through this node; ``total``: sum of the returns of the seat that chose
    the action leading here; ``avail``: times the action was legal when its parent was visited;
    ``children``: ``(seat, action) -> _Node``.
    """

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children: dict[tuple[int, int], _Node] = {}


def _configured_players(state: Any) -> int:
    """The player count ``state`` was configured with (its ``config["num_players"]``): the
    count a heuristic's config names. It can differ from ``state.num_players``: a Clandestine
    game with a Nemesis counts the Nemesis seat there but not in its config."""
    return int(state.config.get("num_players", state.num_players))


class ISMCTSAgent(OwnCopy):
    """SO-ISMCTS search agent (see the module docstring for the algorithm).

    It needs the live game: it declares ``needs_state = True`` and its callers pass the game
    state as ``act(observation, agent, state=state)`` (:func:`agents.base.act_with_state`).
    It keeps no memory between moves (the tree is rebuilt at each decision) other than its
    prior heuristic's (Clans's remembers the game, so a searcher with it is bound to one seat
    until :meth:`reset`), but its random stream advances with every search, so the arena and
    self-play still take one instance per seat (:func:`training.arena.play_game` refuses the
    same object at two seats).

    Args:
        game: registered game name (for the heuristic rollout policy).
        config: the game's resolved configuration (``GameState.config``); without
            ``num_players`` the heuristics (prior, rollouts) are built for the player
            count of the state searched (its ``config["num_players"]``, which leaves out a
            Clandestine Nemesis), and built again for a game with another count.
        iterations: iterations per decision (``None``: only the time budget counts).
        seconds: wall-clock seconds per decision (``None``: only the iteration budget counts).
        rollout: ``"random"`` or ``"heuristic"`` (the game's scripted heuristic).
        c: UCB exploration constant (returns are in [-1, 1] in every game).
        max_rollout_depth: most actions played in one rollout (``None``: no limit); a rollout
            cut there is scored as ``cut`` says.
        cut: score of a cut rollout: ``"zeros"`` (zero for every seat, the "no winner" outcome
            of a truncated game), ``"provisional"`` (the determinized world's
            ``provisional_returns()`` when its engine has that method, zeros otherwise), or one
            of the engine's ``PROVISIONAL_KINDS`` (Clans: ``"win_loss"``, ``"score_margin"``),
            passed as ``provisional_returns(kind)``.
        final: the move played: ``"visits"`` (the root child with the most visits; ties: the
            prior's move, higher mean, then lower action id) or ``"mean"`` (the highest mean
            return, the prior's move's mean plus ``prior_weight / (visits + 1)``; ties: more
            visits, the prior's move, then lower action id).
        max_world_samples: most determinizations drawn per move, later iterations replaying
            clones of them (``None``: a fresh one every iteration).
        prior: ``None`` or ``"heuristic"``: the policy whose move biases the root (see the
            module docstring); it acts on the searching seat's observation only.
        prior_weight: progressive-bias weight ``W`` of the prior's root move (its UCB score
            gets ``W / (visits + 1)``), a finite number >= 0 (same scale as the returns).
        seed: seed of the agent's ``numpy.random.Generator`` (determinizations, expansion and
            random rollouts all draw from it; the prior heuristic's tie-breaks are seeded from it).

    ``c``, ``max_rollout_depth``, ``cut``, ``final``, ``max_world_samples``, ``prior`` and
    ``prior_weight`` left unset take the game's defaults
    (:func:`game_defaults`: :data:`BASE_DEFAULTS` over :data:`GAME_DEFAULTS`).

    Raises:
        ValueError: no budget, ``iterations``, ``max_rollout_depth`` or
            ``max_world_samples`` not a positive integer (an integral float is taken; infinity,
            NaN, a string or a bool is not), ``seconds`` not positive and finite, an unknown
            rollout policy, a ``c`` not finite and >= 0, a ``cut`` that is neither in
            :data:`CUTS` nor a kind of the game's engine, a ``final`` not in :data:`FINALS`, a
            ``prior`` not in :data:`PRIORS`, a ``prior_weight`` not finite and >= 0, or a
            ``prior_weight`` given while ``prior`` is ``None`` (it would bias nothing), or a
            ``cut`` given while ``max_rollout_depth`` is ``None`` (nothing would be cut) (each
            names the keyword and the bad value).
    """

    name = "ismcts"
    needs_state = True

    def __init__(self, game: str, config: dict[str, Any], iterations: int | None = 200,
                 seconds: float | None = None, rollout: str = "random", c: float = _UNSET,
                 max_rollout_depth: int | None = _UNSET, cut: str = _UNSET,
                 final: str = _UNSET, max_world_samples: int | None = _UNSET,
                 prior: str | None = _UNSET, prior_weight: float = _UNSET,
                 seed: int | None = None) -> None:
        defaults = game_defaults(game)
        c = defaults["c"] if c is _UNSET else c
        if max_rollout_depth is _UNSET:
            max_rollout_depth = defaults["max_rollout_depth"]
        cut_given = cut is not _UNSET
        cut = defaults["cut"] if cut is _UNSET else cut
        final = defaults["final"] if final is _UNSET else final
        if max_world_samples is _UNSET:
            max_world_samples = defaults["max_world_samples"]
        prior = defaults["prior"] if prior is _UNSET else prior
        weight_given = prior_weight is not _UNSET
        prior_weight = defaults["prior_weight"] if prior_weight is _UNSET else prior_weight
        if iterations is None and seconds is None:
            raise ValueError("ISMCTS needs a budget: give iterations, seconds or both")
        if iterations is not None and not _positive_integer(iterations):
            raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
        if seconds is not None and not (_finite_real(seconds) and seconds > 0):
            raise ValueError(f"seconds must be a positive finite number, got {seconds!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {ROLLOUTS}, got {rollout!r}")
        if not (_finite_real(c) and c >= 0):
            raise ValueError(f"c (UCB exploration constant) must be a finite number >= 0, got "
                             f"{c!r}")
        if max_rollout_depth is not None and not _positive_integer(max_rollout_depth):
            raise ValueError(f"max_rollout_depth must be a positive integer or None, got "
                             f"{max_rollout_depth!r}")
        kinds = _provisional_kinds(game)
        if cut not in CUTS and cut not in kinds:
            raise ValueError(f"cut must be one of {list(CUTS) + list(kinds)} for {game}, got "
                             f"{cut!r}")
        if cut_given and max_rollout_depth is None:
            raise ValueError(f"cut={cut!r} scores rollouts cut at max_rollout_depth, but "
                             "max_rollout_depth is None (rollouts play to the end, nothing is "
                             "cut): give a depth or leave cut out")
        if final not in FINALS:
            raise ValueError(f"final must be one of {list(FINALS)}, got {final!r}")
        if max_world_samples is not None and not _positive_integer(max_world_samples):
            raise ValueError(f"max_world_samples must be a positive integer or None, got "
                             f"{max_world_samples!r}")
        if not (isinstance(prior, str) or prior is None) or prior not in PRIORS:
            raise ValueError(f"prior must be one of {list(PRIORS)}, got {prior!r}")
        if not (_finite_real(prior_weight) and prior_weight >= 0):
            raise ValueError(f"prior_weight must be a finite number >= 0, got {prior_weight!r}")
        if weight_given and prior is None:
            raise ValueError(f"prior_weight={prior_weight!r} given without a prior: the bias "
                             "applies to the prior's move only (add prior='heuristic', spec "
                             "prior=heuristic)")
        self.game = game
        self.config = dict(config)
        self.iterations = None if iterations is None else int(iterations)
        self.seconds = seconds
        self.rollout = rollout
        self.c = float(c)
        self.max_rollout_depth = None if max_rollout_depth is None else int(max_rollout_depth)
        self.cut = cut
        self.final = final
        self.max_world_samples = (None if max_world_samples is None
                                  else int(max_world_samples))
        self.prior = prior
        self.prior_weight = float(prior_weight)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._heuristics: list[Any] | None = None
        self._prior_agent: Any = None
        configured = int(self.config.get("num_players", 0))
        # no player count in the config: heuristics follow each searched game's count
        self._lazy_players = not configured
        if prior == "heuristic":
            from . import heuristic_class

            base = int(self.rng.integers(2**31)) if seed is None else int(seed)
            self._prior_cls = heuristic_class(game)
            self._prior_seed = base * 1013 + 3
            # built now, or at the first decision if the player count is only known from the
            # first state (a heuristic not told the count assumes its game's default)
            self._prior_players = configured
            if configured:
                self._prior_agent = self._prior_cls(self.config, seed=self._prior_seed)
        if rollout == "heuristic":
            from . import heuristic_class

            # one heuristic per seat (they remember things within a game); built lazily if the
            # player count is only known from the first state
            self._heuristic_cls = heuristic_class(game)
            if configured:
                self._heuristics = self._make_heuristics(configured, configured)
        #: root statistics of the last search: ``{action: (visits, mean return)}``
        self.last_stats: dict[int, tuple[int, float]] = {}
        #: iterations run by the last search
        self.last_iterations = 0
        #: the prior heuristic's move at the last decision (``None`` without a prior)
        self.last_prior_action: int | None = None

    def _make_heuristics(self, players: int, seats: int) -> list[Any]:
        """One rollout heuristic per seat, for a game configured with ``players`` players and
        played by ``seats`` seats (more with a Clandestine Nemesis, whose seat never acts)."""
        base = int(self.rng.integers(2**31)) if self.seed is None else int(self.seed)
        config = {**self.config, "num_players": players}
        self._rollout_players = players
        return [self._heuristic_cls(config, seed=base * 1009 + 7 * p + 1) for p in range(seats)]

    def __repr__(self) -> str:
        return (f"ISMCTSAgent({self.game!r}, iterations={self.iterations}, seconds={self.seconds}, "
                f"rollout={self.rollout!r}, c={self.c}, max_rollout_depth="
                f"{self.max_rollout_depth}, cut={self.cut!r}, final={self.final!r}, "
                f"max_world_samples={self.max_world_samples}, prior={self.prior!r}, "
                f"prior_weight={self.prior_weight}, seed={self.seed})")

    def reset(self) -> None:
        """Start a new game: the prior heuristic (if any) forgets the last one (the tree is
        rebuilt for every decision anyway)."""
        if self._prior_agent is not None:
            self._prior_agent.reset()

    def act(self, observation: dict[str, np.ndarray], agent: str, state: Any = None) -> int:
        """Search from ``state`` for its current player and return the chosen action id.

        Args:
            observation: the acting seat's observation dict (only its ``action_mask`` is read).
            agent: the acting agent's name ``player_<seat>``.
            state: the live :class:`envs.core.state.GameState`; only its public
                ``current_player`` and ``legal_action_mask()`` and its
                ``resample_from_infostate`` are used.

        Raises:
            ValueError: no ``state`` given, or ``state`` is not at ``agent``'s decision (its
                current player or action mask differ from ``agent`` and ``observation``).
        """
        seat = seat_of_state(state, agent, "ISMCTSAgent searches the live game")
        legal = legal_ids(observation)
        if not np.array_equal(np.asarray(observation["action_mask"]) != 0,
                              state.legal_action_mask() != 0):
            raise ValueError(f"the observation's action mask differs from the state's for {agent}")
        if self.prior is not None and self._lazy_players:
            # built lazily (the config named no player count): for this game's count, again
            # if a later game has another count (the state's config is read only then)
            players = _configured_players(state)
            if self._prior_agent is None or self._prior_players != players:
                self._prior_agent = self._prior_cls({**self.config, "num_players": players},
                                                    seed=self._prior_seed)
                self._prior_players = players
        bound = getattr(self._prior_agent, "bound_agent", None)
        if bound is not None and bound != agent:     # a prior that remembers one seat's game
            raise ValueError(f"ISMCTS with prior={self.prior} acted for {bound} in this game and "
                             f"is now asked to act for {agent}: its prior remembers the game, so "
                             "use one instance per seat (or call reset() between games)")
        # the prior sees every decision of its seat, as a heuristic player would
        prior_action = (None if self._prior_agent is None
                        else int(self._prior_agent.act(observation, agent)))
        self.last_prior_action = prior_action
        if legal.size == 1:
            self.last_stats = {int(legal[0]): (0, 0.0)}
            self.last_iterations = 0
            return int(legal[0])
        if prior_action is None:     # the call of an agent without a prior, as before priors
            return self.search(state, seat)
        return self.search(state, seat, prior_action=prior_action)

    # ----------------------------------------------------------------------------------------
    def search(self, state: Any, seat: int, prior_action: int | None = None) -> int:
        """Run the search for ``seat`` (the seat to act in ``state``); return the move.

        ``prior_action`` (a legal action id, or ``None``) is the root move to bias with
        ``prior_weight`` (:meth:`act` passes the prior heuristic's move).

        Raises:
            ValueError: the game is over, ``seat`` is not the seat to act, or ``prior_action``
                is not an int (a bool, float or string is refused) or not legal.
            RuntimeError: the determinizations never had ``seat`` to act (a resampler breaking
                the engine contract).
        """
        if state.is_over or state.current_player != seat:
            raise ValueError(f"ISMCTS searches for the seat to act; got seat {seat} while "
                             f"current_player is {state.current_player}")
        if prior_action is not None:
            mask = state.legal_action_mask()
            if isinstance(prior_action, (bool, np.bool_)) or not isinstance(
                    prior_action, (int, np.integer)):
                raise ValueError(f"prior_action must be an int action id or None, got "
                                 f"{prior_action!r}")
            if not (0 <= prior_action < mask.size and mask[prior_action]):
                raise ValueError(f"prior_action {prior_action} is not a legal action of seat "
                                 f"{seat}")
        prior = None if prior_action is None else (seat, int(prior_action))
        if self.rollout == "heuristic" and self._lazy_players:
            # built lazily, as the prior above
            players = _configured_players(state)
            if self._heuristics is None or self._rollout_players != players:
                self._heuristics = self._make_heuristics(players, state.num_players)
        root = _Node()
        rng = self.rng
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        limit = self.max_world_samples
        if limit is not None and self.iterations is not None and limit >= self.iterations:
            limit = None    # no held world would be played twice: no pool, no clones
        worlds: list[Any] = []
        while True:
            if limit is None:
                world = state.resample_from_infostate(seat, rng)
            elif len(worlds) < limit:
                worlds.append(state.resample_from_infostate(seat, rng))
                world = worlds[-1].clone()
            else:
                world = worlds[int(rng.integers(limit))].clone()
            self._iterate(root, world, rng, prior)
            done += 1
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        stats = {a: (ch.visits, ch.total / ch.visits if ch.visits else 0.0)
                 for (p, a), ch in root.children.items() if p == seat}
        self.last_stats = stats
        if not stats:
            raise RuntimeError(f"no root move searched: resample_from_infostate({seat}) gave "
                               f"worlds where seat {seat} is not to act")
        favoured = -1 if prior_action is None else int(prior_action)
        if self.final == "mean":
            weight = self.prior_weight

            def value(a: int) -> float:
                visits, mean = stats[a]
                return mean + weight / (visits + 1) if a == favoured else mean

            return max(stats, key=lambda a: (value(a), stats[a][0], a == favoured, -a))
        return max(stats, key=lambda a: (stats[a][0], a == favoured, stats[a][1], -a))

    def _iterate(self, root: _Node, world: Any, rng: np.random.Generator,
                 prior: tuple[int, int] | None = None) -> None:
        """One iteration on the determinization ``world`` (mutated): select, expand, roll out,
        back up. ``prior``: ``(seat, action)`` of the root move to bias, or ``None``."""
        node = root
        path: list[tuple[_Node, int]] = []
        c = self.c
        while not world.is_over:
            p = world.current_player
            legal = np.flatnonzero(world.legal_action_mask()).tolist()
            children = node.children
            untried = []
            best, best_score = None, -math.inf
            biased = prior if node is root and prior is not None and prior[0] == p else None
            for a in legal:
                ch = children.get((p, a))
                if ch is None:
                    untried.append(a)
                    continue
                ch.avail += 1
                if not untried:
                    score = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if biased is not None and a == biased[1]:
                        score += self.prior_weight / (ch.visits + 1)
                    if score > best_score:
                        best, best_score = a, score
            if untried:
                if biased is not None and biased[1] in untried:
                    a = biased[1]       # the prior's move is expanded first
                else:
                    a = untried[int(rng.integers(len(untried)))]
                ch = _Node()
                ch.avail = 1
                children[(p, a)] = ch
                world.apply_action(a)
                path.append((ch, p))
                break
            ch = children[(p, best)]
            world.apply_action(best)
            path.append((ch, p))
            node = ch
        returns = self._rollout(world, rng)
        for ch, p in path:
            ch.visits += 1
            ch.total += returns[p]

    def _rollout(self, world: Any, rng: np.random.Generator) -> list[float]:
        """Play ``world`` to its end with the rollout policy; each seat's return (list).

        A truncated game scores zeros; a rollout cut at ``max_rollout_depth`` actions is scored
        by :meth:`_cut_returns`.
        """
        limit = self.max_rollout_depth
        steps = 0
        if self.rollout == "random":
            while not world.is_over:
                if limit is not None and steps >= limit:
                    return self._cut_returns(world)
                legal = np.flatnonzero(world.legal_action_mask())
                world.apply_action(int(legal[rng.integers(legal.size)]))
                steps += 1
        else:
            agents = self._heuristics
            assert agents is not None
            for h in agents:
                h.reset()
            while not world.is_over:
                if limit is not None and steps >= limit:
                    return self._cut_returns(world)
                p = world.current_player
                obs = {"observation": world.observation_tensor(p),
                       "action_mask": world.legal_action_mask()}
                world.apply_action(agents[p].act(obs, f"player_{p}"))
                steps += 1
        if not world.is_terminal:
            return [0.0] * world.num_players
        return [float(x) for x in world.returns()]

    def _cut_returns(self, world: Any) -> list[float]:
        """Each seat's score of a rollout cut before the end, read from the determinized
        ``world`` only (never the real state): zeros, or its ``provisional_returns`` (see
        ``cut``)."""
        if self.cut == "zeros":
            return [0.0] * world.num_players
        provisional = getattr(world, "provisional_returns", None)
        if provisional is None:
            return [0.0] * world.num_players
        values = provisional() if self.cut == "provisional" else provisional(self.cut)
        return [float(x) for x in values]


def parse_spec(spec: str) -> dict[str, Any]:
    """Keywords of :class:`ISMCTSAgent` from ``ismcts:N[:key=value...]``.

    Keys: ``rollout`` (``random`` | ``heuristic``), ``prior`` (``heuristic`` | ``none``),
    ``bias`` (float: ``prior_weight``), ``c`` (float), ``seconds`` (float),
    ``max_depth`` (int or ``none``), ``cut`` (``zeros`` | ``provisional`` | an engine kind such
    as ``score_margin``), ``final`` (``visits`` | ``mean``), ``worlds`` (int or ``none``:
    ``max_world_samples``). ``N`` may be ``none`` when
    ``seconds`` is given. Keys not given are left out (the agent takes the game's defaults);
    values of ``rollout``, ``cut``, ``final`` and ``prior`` are checked by :class:`ISMCTSAgent`.
    Values are case-sensitive, ``none`` included (``prior=NONE`` is refused like
    ``prior=HEURISTIC``).

    Raises:
        ValueError: not of that form, an unknown key, a repeated key or a bad value (counts
            in ASCII digits only; reals in ASCII decimal, or ``inf``/``nan`` for the agent to
            refuse by name: ``1_5``, spaces or other scripts' digits are refused).
    """
    parts = spec.split(":")
    if parts[0] != "ismcts" or len(parts) < 2 or not parts[1]:
        raise ValueError(f"an ISMCTS spec is 'ismcts:N[:key=value...]' (N iterations), got "
                         f"{spec!r}")
    kwargs: dict[str, Any] = {}
    # counts in ASCII digits only: int() would also take "4_0" (40), signs, spaces, other scripts
    # "none" is written in lower case, as every other value (``cut=Win_loss`` is refused too)
    if parts[1] != "none" and not _DIGITS.fullmatch(parts[1]):
        raise ValueError(f"ISMCTS iterations must be an integer (digits 0-9) or none, got "
                         f"{parts[1]!r} in {spec!r}")
    kwargs["iterations"] = None if parts[1] == "none" else int(parts[1])
    keys = {"rollout": ("rollout", str), "c": ("c", float), "seconds": ("seconds", float),
            "max_depth": ("max_rollout_depth", int), "cut": ("cut", str),
            "final": ("final", str), "worlds": ("max_world_samples", int),
            "prior": ("prior", str), "bias": ("prior_weight", float)}
    for item in parts[2:]:
        key, sep, value = item.partition("=")
        if not sep or key not in keys:
            raise ValueError(f"unknown ISMCTS option {item!r} in {spec!r}; options are "
                             f"{', '.join(k + '=...' for k in keys)}")
        name, kind = keys[key]
        if name in kwargs:
            raise ValueError(f"ISMCTS option {key!r} given twice in {spec!r}")
        if (kind is int or name == "prior") and value == "none":
            kwargs[name] = None
            continue
        if kind is int and not _DIGITS.fullmatch(value):
            raise ValueError(f"ISMCTS option {key}={value!r} in {spec!r} is not an integer "
                             "(digits 0-9) or none")
        if kind is float and not _REAL.fullmatch(value):
            raise ValueError(f"ISMCTS option {key}={value!r} in {spec!r} is not a float "
                             "written in ASCII digits (no spaces or '_')")
        try:
            kwargs[name] = kind(value)
        except ValueError:
            raise ValueError(f"ISMCTS option {key}={value!r} in {spec!r} is not a "
                             f"{kind.__name__}") from None
    return kwargs
