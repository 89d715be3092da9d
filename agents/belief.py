"""Belief trackers over hidden roles: uniform, consistent, policy-conditioned (SMC) and a probe.

A *belief* is, for one observing seat, a float64 array ``(n, K)``: row ``q`` describes seat
``q``'s hidden role. Rows are in absolute seat order. The observer's own row is not estimated
(it holds the observer's own truth when known, else the prior) and metrics skip it.

=================  =================  =========================================================
game               shape ``(n, K)``   row ``q``
=================  =================  =========================================================
prowl              ``(n, 4)``         probability that seat ``q``'s clan card is of clan ``k``
                                      (``k`` in the ``clans`` config order; ``hidden_truth()
                                      ["clans"]``). Before set-up a seat has no clan: the prior.
clans              ``(n, 5)``         probability that seat ``q``'s secret colour is ``k`` (red,
                                      yellow, green, blue, black; ``hidden_truth()["colours"]``)
badland_wolves     ``(n, 9)``         expected number of Scrap cards of type ``k`` in seat
                                      ``q``'s hand (``cards.SCRAP_NAMES`` order); a row sums to
                                      the public hand size
clandestine        ``(n, 4)``         expected number of Relics of suit ``k`` (Rod, Sword, Disk,
                                      Chalice) in seat ``q``'s Relic hand (known and blind-drawn
                                      parts); a row sums to the public Relic hand size
=================  =================  =========================================================

The per-game :class:`BeliefAdapter` maps a state to that target (``truth``), gives the set-up
prior and, where the space is small, the exact consistent posterior in closed form or by
enumeration. Adding a game (Clandestine) means writing one adapter and registering it in
:data:`ADAPTERS`; the trackers only use the engine contract (``envs/core/state.py``):
``resample_from_infostate``, ``clone``, ``apply_action``, ``legal_action_mask``,
``observation_tensor``, ``hidden_truth``, ``to_record`` / ``replay_steps``.

Trackers share one interface and are stateful per (game, observing seat)::

    tr = ConsistentTracker("prowl")
    tr.reset(state0, seat)                 # state0: the game after set-up chance, before actions
    for each action: state.apply_action(a); tr.update(state, a, actor)
    tr.belief()                            # float64 (n, K)

``update`` receives the *real* state after the action; trackers read from it only what the
observing seat may know: its observation, its legal mask, and the consistent worlds drawn by
``state.resample_from_infostate(seat, rng)`` (which by contract uses only ``seat``'s information).
``action`` and ``actor`` are given for convenience; a tracker uses ``action`` only when ``actor``
is the observer or the adapter declares the action kind public (visible to every seat).

* :class:`UniformTracker`: the prior from the components alone (deck composition, colours), fixed.
* :class:`ConsistentTracker`: the posterior given only logical consistency with what the seat has
  seen: every consistent world weighted by its chance probability (unseen cards exchangeable),
  with no model of why the other seats acted. Exact where the adapter has it (all three games
  below in the usual positions); otherwise the mean of ``samples`` worlds drawn with
  ``resample_from_infostate``, with the per-entry standard error in ``stderr``.
* :class:`PolicyTracker`: the posterior when the other seats play a given :class:`ActionModel`,
  by sequential Monte Carlo over worlds (each particle a full state).
* :class:`ProbeTracker`: a small torch MLP from the seat's observation to the hidden roles,
  trained by ``python -m training.probe``.
"""

from __future__ import annotations

import functools
import importlib
import math
import time
from typing import Any, Protocol, Sequence

import numpy as np

from envs.core import GameState
from envs.core.errors import IllegalActionError, RecordError

#: game -> "module:Class" of its engine state
GAME_STATES: dict[str, str] = {
    "prowl": "envs.prowl.engine:ProwlState",
    "badland_wolves": "envs.badland_wolves.engine:BadlandWolvesState",
    "clans": "envs.clans.engine:ClansState",
    "clandestine": "envs.clandestine.engine:ClandestineState",
}


def _count(name: str, value: Any, low: int) -> int:
    """``value`` as an int after checking it is an integer (not a bool) of at least ``low``.

    Raises:
        ValueError: naming ``name`` and the value (2.5 particles were taken as 2, True as 1).
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < low:
        raise ValueError(f"{name} must be an integer of at least {low}, got {value!r}")
    return int(value)


def state_class(game: str) -> type:
    """The engine state class of ``game``. Raises ValueError for an unknown game."""
    if game not in GAME_STATES:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(sorted(GAME_STATES))}")
    module, _, cls = GAME_STATES[game].partition(":")
    return getattr(importlib.import_module(module), cls)


def new_game(game: str, seed: int, **config: Any) -> GameState:
    """A new game of ``game`` from user keywords (unknown keywords raise ConfigError)."""
    return state_class(game).from_config(seed=seed, **config)


# ================================================================================================
# adapters
class BeliefAdapter:
    """What a game contributes to the deduction toolkit (see the module table).

    Attributes:
        game: the game's short name.
        kind: ``"categorical"`` (rows are probability vectors, truth one-hot) or ``"counts"``
            (rows are expected counts, truth the true counts; metrics compare the normalised rows).
    """

    game = ""
    kind = "categorical"

    def categories(self, state: GameState) -> list[str]:
        """Names of the ``K`` columns."""
        raise NotImplementedError

    def truth(self, state: GameState) -> np.ndarray:
        """Float64 ``(n, K)``: the true target per seat; an all-zero row where it is undefined
        (a Prowl seat before set-up, a Badland Wolves seat with an empty hand)."""
        raise NotImplementedError

    def prior(self, state: GameState, seat: int) -> np.ndarray:
        """Float64 ``(n, K)``: the belief from the game's components alone (rows of other seats;
        the observer's row is its truth when defined)."""
        raise NotImplementedError

    def row_totals(self, state: GameState) -> np.ndarray:
        """Float64 ``(n,)``: public sum of each row (hand sizes for counts; ones otherwise)."""
        return np.ones(state.num_players)

    def public_action(self, state: GameState, action: int) -> bool:
        """True if ``action`` (read from ``state``'s static action tables) is seen by every
        seat, so that no other legal action leads any seat to the same observation. Default
        False (always safe: the policy tracker then sums over every legal action that matches
        the observation)."""
        return False

    def exact_consistent(self, state: GameState, seat: int) -> np.ndarray | None:
        """The exact consistent posterior ``(n, K)`` or None when not available here."""
        return None

    def resampled_choice_prob(self, state: GameState, action: int,
                              seat: int | None = None) -> float | None:
        """For a hidden choice that ``resample_from_infostate`` redraws in its worlds' histories
        (Prowl: the card placed face-down; Badland Wolves: the card type of a share deal
        between two wolves other than ``seat``), the probability with which it draws ``action``
        in ``state`` (before the action) for worlds of ``seat`` (None: any seat that does not
        see the choice); None when the resampler keeps the real action. The policy tracker
        divides a fresh world's policy likelihood by it (importance weight of the resampler's
        proposal)."""
        return None

    def enumerate_worlds(self, state: GameState, seat: int, rng: np.random.Generator
                         ) -> list[tuple[GameState, float]] | None:
        """Every world ``seat`` cannot tell from ``state``, one state per distinct hidden truth,
        with its prior probability (they sum to 1), or None where the space is not enumerated
        here. Used by :class:`ExactPolicyTracker`."""
        return None

    def own_row(self, state: GameState, seat: int, belief: np.ndarray) -> np.ndarray:
        """``belief`` with the observer's row set to its truth (when defined)."""
        t = self.truth(state)[seat]
        if t.any():
            belief[seat] = t
        return belief


class ProwlAdapter(BeliefAdapter):
    """Prowl: the clan of each seat's clan card (rulebook "Set-up"; ``hidden_truth()["clans"]``).

    The consistent posterior is exact: the cards a seat cannot see (unknown clan cards, hands not
    known from a Whisperer peek, the 2-player deck, the box) are exchangeable, constrained only by
    public exclusions (failed Accusations, Firebrand) on each clan card; so the clans of the ``k``
    unknown clan cards have probability proportional to the product of falling factorials of the
    pool's per-clan counts, summed over the ``4**k`` clan assignments that respect exclusions
    (``k`` <= 4). A seat whose hand plus clan card the observer knows as a multiset (Whisperer,
    then a Change) has its clan card uniform over that multiset's allowed cards.
    """

    game = "prowl"

    def categories(self, state):
        return list(state.clan_names)

    def truth(self, state):
        t = np.zeros((state.num_players, 4))
        names = state.config["clans"]
        for q, c in enumerate(state.hidden_truth()["clans"]):
            if c is not None:
                t[q, names.index(c)] = 1.0
        return t

    def _clan_prior(self, state) -> np.ndarray:
        per = np.bincount(state.type_clan_arr, weights=state.copies, minlength=4)
        return per / per.sum()

    def prior(self, state, seat):
        b = np.tile(self._clan_prior(state), (state.num_players, 1))
        return self.own_row(state, seat, b)

    def public_action(self, state, action):
        off = state.off
        return (off["play"] <= action < off["change"] or off["accuse"] <= action < off["setup"]
                or off["opp"] <= action < off["yesno"])

    def resampled_choice_prob(self, state, action, seat=None):
        # the resampler's worlds place a uniformly drawn physical card of the hand at set-up
        # and at a Change (envs/prowl/resample.py)
        off = state.off
        if off["change"] <= action < off["accuse"] or off["setup"] <= action < off["order"]:
            t = (action - off["change"]) if action < off["accuse"] else (action - off["setup"])
            hand = state.hand[state.current_player]
            return float(hand[t] / hand.sum())
        return None

    def exact_consistent(self, state, seat):
        n, T = state.n, state.T
        tc = state.type_clan_arr
        b = self.prior(state, seat)
        clan_slots = [q for q in range(n) if q != seat and state.clan_card[q] >= 0
                      and state.know[seat, q] < 0 and not state.wclan[seat, q]]
        hand_slots = [q for q in range(n) if q != seat and not state.wvalid[seat, q]]
        for q in range(n):
            if q == seat or state.clan_card[q] < 0:
                continue
            if state.know[seat, q] >= 0:
                b[q] = np.eye(4)[tc[state.know[seat, q]]]
            elif state.wclan[seat, q]:
                w = np.bincount(tc, weights=state.whisper[seat, q], minlength=4)
                w = w * (state.excl[q] == 0)
                b[q] = w / w.sum()
        pool = np.zeros(T)
        for q in clan_slots:
            pool[state.clan_card[q]] += 1
        for q in hand_slots:
            pool += state.hand[q]
        for t in list(state.deck2p) + list(state.box):
            pool[t] += 1
        pc = np.bincount(tc, weights=pool, minlength=4)
        k = len(clan_slots)
        if k == 0:
            return b
        acc = np.zeros((k, 4))
        total = 0.0
        for combo in np.ndindex(*([4] * k)):
            if any(state.excl[q, c] for q, c in zip(clan_slots, combo)):
                continue
            used = np.zeros(4)
            w = 1.0
            for c in combo:
                w *= pc[c] - used[c]
                used[c] += 1
                if w <= 0:
                    break
            if w <= 0:
                continue
            total += w
            acc[np.arange(k), list(combo)] += w
        if total <= 0:
            raise ValueError("no clan assignment is consistent with the observer's knowledge")
        b[clan_slots] = acc / total
        return b


class ClansAdapter(BeliefAdapter):
    """Clans: each seat's secret colour (rulebook "Setup", ruling 9; ``hidden_truth()``).

    Everything but the colours is public and the colours are dealt without replacement, so the
    consistent posterior is exact: each other seat's colour is uniform over the four colours that
    are not the observer's, until the end of the game reveals every colour (rulebook "End of
    Game").
    """

    game = "clans"
    distinct_roles = True

    def categories(self, state):
        from envs.clans.board import COLOURS
        return list(COLOURS)

    def truth(self, state):
        from envs.clans.board import COLOURS
        t = np.zeros((state.num_players, 5))
        for q, c in enumerate(state.hidden_truth()["colours"]):
            t[q, COLOURS.index(c)] = 1.0
        return t

    def prior(self, state, seat):
        own = self.truth(state)[seat]
        b = np.tile((1.0 - own) / 4.0, (state.num_players, 1))
        b[seat] = own
        return b

    def public_action(self, state, action):
        return True

    def exact_consistent(self, state, seat):
        if state.is_terminal:
            return self.truth(state)
        return self.prior(state, seat)

    def enumerate_worlds(self, state, seat, rng):
        """One world per injective assignment of the four colours that are not ``seat``'s to
        the other seats (``4! / (5 - n)!`` of them: 4, 12, 24 for 2, 3, 4 players), each with
        prior ``1 / count`` (ruling 9: colours dealt at random). The worlds are drawn by
        ``resample_from_infostate`` until every assignment has appeared (each draw is uniform
        over them, so about ``count * H(count)`` draws: 37 for 12).

        Raises:
            ValueError: the game is over (every colour is revealed: nothing to enumerate), or
                the resampler missed an assignment in ``200 * count`` draws.
        """
        if state.is_terminal:
            raise ValueError("the game is over: every colour is revealed")
        n = state.num_players
        count = math.perm(4, n - 1)
        found: dict[tuple, GameState] = {}
        for _ in range(200 * count):
            w = state.resample_from_infostate(seat, rng)
            found.setdefault(tuple(w.hidden_truth()["colours"]), w)
            if len(found) == count:
                return [(w, 1.0 / count) for w in found.values()]
        raise ValueError(f"found {len(found)} of {count} colour assignments")


class BadlandWolvesAdapter(BeliefAdapter):
    """Badland Wolves: each wolf's Scrap hand as counts per card type (ruling 12).

    Consistent posterior: sampled from the history-consistent resampler (no closed form: the
    perfect-recall observation remembers the Scrap deck's source pile, draws, plays, steals and
    looks, which break the exchangeability of unplaced cards).
    """

    game = "badland_wolves"
    kind = "counts"

    def categories(self, state):
        from envs.badland_wolves.cards import SCRAP_NAMES
        return list(SCRAP_NAMES)

    def truth(self, state):
        from envs.badland_wolves.cards import SCRAP_NAMES
        t = np.zeros((state.num_players, len(SCRAP_NAMES)))
        for q, h in enumerate(state.hidden_truth()["hands"]):
            for name, cnt in h.items():
                t[q, SCRAP_NAMES.index(name)] = cnt
        return t

    def row_totals(self, state):
        return np.array([float(state.hands[p].sum()) for p in range(state.num_players)])

    def prior(self, state, seat):
        from envs.badland_wolves.cards import SCRAP_COUNTS_ARR
        comp = SCRAP_COUNTS_ARR / SCRAP_COUNTS_ARR.sum()
        b = self.row_totals(state)[:, None] * comp[None, :]
        b[seat] = self.truth(state)[seat]
        return b

    def resampled_choice_prob(self, state, action, seat=None):
        # a share deal seat neither makes nor receives deals a uniformly drawn card of the Lead
        # Wolf's drawn cards in the resampler's worlds (envs/badland_wolves/resample.py)
        from envs.badland_wolves.cards import NUM_SCRAP_TYPES
        I = state.ids
        if not I.GIVE <= action < I.GIVE + NUM_SCRAP_TYPES * state.num_players:
            return None
        t, k = divmod(action - I.GIVE, NUM_SCRAP_TYPES)
        if seat is not None and seat in (state.lead, t):
            return None
        return float(state.drawn[k] / state.drawn.sum())

    def public_action(self, state, action):
        I = state.ids
        P = state.num_players
        return (action in (I.HUNT, I.FEATHER) or I.ATTACK_TC <= action < I.ATTACK_TC + 2 * P
                or I.COLLECT <= action < I.COLLECT + 3 * P
                or I.DEFEND <= action < I.DEFEND + 7)

    def exact_consistent(self, state, seat):
        """None: no closed form under perfect recall, so the tracker samples the resampler.

        The exchangeable-pool formula (:meth:`exchangeable_approximation`) ignores what the
        observation now remembers (which pile the Scrap deck was shuffled from, cards each wolf
        drew from it, plays, steals and looks), so it is not the consistent posterior.
        """
        return None

    def exchangeable_approximation(self, state, seat):
        """Seat ``q``'s expected hand if every card the observer cannot place were exchangeable:
        its known cards plus its unknown hand size times the pool's composition. An
        approximation (see :meth:`exact_consistent`); float64 (n, 9)."""
        from envs.badland_wolves.cards import SCRAP_COUNTS_ARR
        from envs.badland_wolves.engine import DEAL, ORDER
        n = state.num_players
        pool = (SCRAP_COUNTS_ARR - state.scrap_discard - state.hands[seat]).astype(np.float64)
        if state.phase in (DEAL, ORDER) and seat == state.lead:
            pool = pool - state.drawn
        for p in range(n):
            if p != seat:
                pool = pool - state.known[seat, p]
        b = np.zeros((n, pool.size))
        tot = pool.sum()
        for p in range(n):
            if p == seat:
                b[p] = state.hands[p]
                continue
            free = float(state.hands[p].sum() - state.known[seat, p].sum())
            b[p] = state.known[seat, p] + (free * pool / tot if tot > 0 else 0.0)
        return b


class ClandestineAdapter(BeliefAdapter):
    """Clandestine: each seat's Relic hand as counts per suit (design §1.5: the identities of
    blind-drawn Relics are owner-private; hand sizes and Relics taken face up are public).

    Suit is what the resampler leaves open: it redraws the hidden Relics uniformly among all
    hidden Relics (Bright and Dark alike; ``envs/clandestine/resample.py``), so a blind Relic's
    suit is unknown. Secret hands are not covered: the
    resampler keeps each hidden Secret's Level, and identities within a Level have no common
    category across Societies. No closed form: the consistent tracker samples the resampler.
    The resampler also relabels a Prime's card in the drawn world's history, which the policy
    tracker does not correct for (``resampled_choice_prob`` is None), so its Clandestine
    posterior is approximate.
    """

    game = "clandestine"
    kind = "counts"
    SUITS = ("Rod", "Sword", "Disk", "Chalice")

    def _suit_of(self) -> np.ndarray:
        from envs.clandestine.engine import _C

        return np.array([self.SUITS.index(r["suit"]) for r in _C["relics"]])

    def categories(self, state):
        return list(self.SUITS)

    def truth(self, state):
        suit = self._suit_of()
        t = np.zeros((state.num_players, 4))
        for q, hand in enumerate(state.relic_hand):
            for r in hand:
                t[q, suit[r]] += 1.0
        return t

    def row_totals(self, state):
        return np.array([float(len(h)) for h in state.relic_hand])

    def prior(self, state, seat):
        comp = np.bincount(self._suit_of(), minlength=4).astype(np.float64)
        b = self.row_totals(state)[:, None] * (comp / comp.sum())[None, :]
        b[seat] = self.truth(state)[seat]
        return b


#: game -> its belief adapter
ADAPTERS: dict[str, BeliefAdapter] = {
    "prowl": ProwlAdapter(),
    "clans": ClansAdapter(),
    "badland_wolves": BadlandWolvesAdapter(),
    "clandestine": ClandestineAdapter(),
}


def adapter_for(game: str) -> BeliefAdapter:
    """The :class:`BeliefAdapter` of ``game``. Raises ValueError for a game without one."""
    if game not in ADAPTERS:
        raise ValueError(f"no belief adapter for game {game!r}; known: "
                         f"{', '.join(sorted(ADAPTERS))}")
    return ADAPTERS[game]


# ================================================================================================
# action models (policies with action probabilities)
class ActionModel(Protocol):
    """A policy that states its action probabilities.

    ``probs(observation, mask, seat)`` returns float64 ``(A,)``, zero outside the mask, summing
    to 1: the probability that ``seat``, seeing ``observation`` (float32 ``(D,)``) with legal
    mask ``mask`` (int8 ``(A,)``), takes each action. ``reset()`` is called at the start of a game.
    """

    def probs(self, observation: np.ndarray, mask: np.ndarray, seat: int) -> np.ndarray: ...

    def reset(self) -> None: ...


class RandomPolicy:
    """The uniform random agent (:class:`agents.base.RandomAgent`): 1/|legal| on each legal id."""

    name = "random"

    def reset(self) -> None:
        """Nothing to forget."""

    def probs(self, observation, mask, seat):
        m = np.asarray(mask, dtype=np.float64)
        s = m.sum()
        if s <= 0:
            raise ValueError("the action mask has no legal action")
        return m / s


class EpsilonAgentPolicy:
    """An agent made stochastic: its chosen action with probability ``1 - epsilon``, plus
    ``epsilon`` spread uniformly over the legal actions (so ``probs`` is never 0 on a legal id).

    Used for the scripted heuristics: ``agent.act`` is asked ``samples`` times per distinct
    (seat, observation, mask) and the answers' frequencies cached, so the model is a fixed
    function of the observation; ``samples > 1`` estimates the agent's own randomness (the
    Clans heuristic breaks near-ties at random: two instances agree on about half of its moves).
    One agent instance per seat is kept
    (``agent_factory(seat)``), because the Clans heuristic remembers public moves between calls.

    Args:
        agent_factory: ``seat -> agent`` with ``act(observation_dict, agent_name)``.
        epsilon: in (0, 1]; the mixing weight of the uniform part.
        samples: calls of ``act`` per distinct observation (their frequencies replace the
            single answer).
        cache_size: cached answers kept (the cache is cleared when full).

    Raises:
        ValueError: ``epsilon`` outside (0, 1] or ``samples`` < 1.
    """

    def __init__(self, agent_factory, epsilon: float = 0.1, samples: int = 1,
                 cache_size: int = 200_000, name: str = "eps-agent") -> None:
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"epsilon must be in (0, 1], got {epsilon!r}")
        self.samples = _count("samples", samples, 1)
        self.agent_factory = agent_factory
        self.epsilon = float(epsilon)
        self.cache_size = cache_size
        self.name = name
        self._agents: dict[int, Any] = {}
        self._cache: dict[tuple, np.ndarray] = {}

    def reset(self) -> None:
        """Fresh agents and an empty cache (a new game)."""
        self._agents = {}
        self._cache = {}

    def choices(self, observation, mask, seat) -> np.ndarray:
        """Float64 ``(A,)``: frequency of the agent's answers over ``samples`` calls (cached)."""
        key = (seat, observation.tobytes(), mask.tobytes())
        f = self._cache.get(key)
        if f is None:
            ag = self._agents.get(seat)
            if ag is None:
                ag = self._agents[seat] = self.agent_factory(seat)
            f = np.zeros(mask.shape[0])
            for _ in range(self.samples):
                a = int(ag.act({"observation": observation, "action_mask": mask},
                               f"player_{seat}"))
                f[a] += 1.0 / self.samples
            if len(self._cache) >= self.cache_size:
                self._cache.clear()
            self._cache[key] = f
        return f

    def probs(self, observation, mask, seat):
        p = RandomPolicy.probs(None, observation, mask, seat) * self.epsilon  # type: ignore
        return p + (1.0 - self.epsilon) * self.choices(observation, mask, seat)


#: calls per observation used by :func:`heuristic_policy` by default (heuristics that break
#: ties at random need several; the Prowl and Badland Wolves ones are deterministic on a
#: decision, measured: two instances agreed on every move of 3 games)
HEURISTIC_SAMPLES = {"clans": 4}


def heuristic_policy(game: str, config: dict[str, Any], epsilon: float = 0.1,
                     seed: int = 0, samples: int | None = None) -> EpsilonAgentPolicy:
    """The game's scripted heuristic as an :class:`EpsilonAgentPolicy` (``config``: the game's
    resolved config, ``GameState.config``; ``samples`` default from HEURISTIC_SAMPLES, else 1)."""
    from agents import heuristic_class

    cls = heuristic_class(game)
    if samples is None:
        samples = HEURISTIC_SAMPLES.get(game, 1)
    return EpsilonAgentPolicy(_SeatAgents(cls, config, seed), epsilon, samples,
                              name=f"heuristic(eps={epsilon})")


class _SeatAgents:
    """``seat -> cls(config, seed=seed + seat)``: the agent factory of :func:`heuristic_policy`,
    a class rather than a closure so that a model holding it can be pickled."""

    def __init__(self, cls: type, config: dict[str, Any], seed: int) -> None:
        self.cls, self.config, self.seed = cls, config, seed

    def __call__(self, seat: int) -> Any:
        return self.cls(self.config, seed=self.seed + seat)


class SoftmaxPolicyAgent:
    """A :class:`agents.learned.PolicyAgent`'s masked action distribution, ``softmax(logits /
    temperature)`` over the legal ids (temperature 1 = the policy's own sampling distribution).

    Raises:
        ValueError: a non-positive temperature, or a policy without the plain MLP actor.
    """

    def __init__(self, policy_agent, temperature: float = 1.0) -> None:
        if temperature <= 0:
            raise ValueError(f"temperature must be positive, got {temperature!r}")
        if policy_agent.advice is not None:
            raise ValueError(f"{policy_agent.name} reads {policy_agent.advice!r} advice (an "
                             "advisor with memory per seat); a belief policy model needs a "
                             "policy of the observation alone")
        if policy_agent._layers is None:
            raise ValueError("SoftmaxPolicyAgent needs a PolicyAgent with a plain MLP actor")
        self.agent = policy_agent
        self.temperature = float(temperature)
        self.name = f"softmax({policy_agent.name})"

    def reset(self) -> None:
        """The policy is memoryless."""

    def probs(self, observation, mask, seat):
        x = observation.astype(np.float32, copy=False)
        for w, b, act in self.agent._layers:
            x = x @ w + b
            if act == "tanh":
                x = np.tanh(x)
            elif act == "relu":
                x = np.maximum(x, 0.0)
        legal = np.flatnonzero(mask)
        z = x[legal].astype(np.float64) / self.temperature
        e = np.exp(z - z.max())
        p = np.zeros(mask.shape[0])
        p[legal] = e / e.sum()
        return p


def sample_action(model: ActionModel, state: GameState, rng: np.random.Generator) -> int:
    """An action for ``state.current_player`` drawn from ``model``."""
    seat = state.current_player
    p = model.probs(state.observation_tensor(seat), state.legal_action_mask(), seat)
    return int(rng.choice(p.size, p=p))


# ================================================================================================
# trackers
class Tracker:
    """Base of the belief trackers (see the module docstring for the protocol).

    Subclasses set ``name`` and implement ``_reset``, ``_update`` and ``belief``. ``update_ms``
    accumulates the wall time spent in ``update`` and ``belief`` (for cost tables).
    """

    name = "tracker"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's ``belief`` first checks that :meth:`reset` was called (it failed with an
        AttributeError on a missing attribute of the subclass)."""
        super().__init_subclass__(**kwargs)
        inner = cls.__dict__.get("belief")
        if inner is None:
            return

        @functools.wraps(inner)
        def belief(self: "Tracker") -> np.ndarray:
            if self.seat is None:
                raise RuntimeError("call reset(state0, seat) before belief")
            return inner(self)

        cls.belief = belief   # type: ignore[method-assign]

    def __copy__(self) -> "Tracker":
        """``copy.copy`` is a deep copy: a shallow one would share the generator, the particles'
        list and the action model's per-seat agents with the original, so the copy's draws
        would move the original (CONVENTIONS.md: copies behave like the original)."""
        import copy

        return copy.deepcopy(self)

    def __init__(self, game: str, seed: int = 0) -> None:
        self.game = game
        self.adapter = adapter_for(game)
        self.seed = seed
        self.seat: int | None = None
        self.state: GameState | None = None
        self.time_s = 0.0
        self.calls = 0

    def reset(self, state0: GameState, seat: int) -> None:
        """Start tracking for ``seat`` at ``state0`` (the real game before its first action).

        Raises:
            ValueError: ``seat`` is not a seat of ``state0``.
        """
        seat = state0.check_seat(seat)
        if state0.game_name != self.game:
            raise ValueError(f"tracker is for {self.game!r}, state is {state0.game_name!r}")
        self.seat = seat
        self.state = state0
        self.rng = np.random.default_rng(self.seed)
        t0 = time.perf_counter()
        self._reset(state0, seat)
        self.time_s += time.perf_counter() - t0

    def update(self, state: GameState, action: int, actor: int) -> None:
        """Take in one real action: ``state`` is the real game after ``actor`` took ``action``.

        Raises:
            RuntimeError: before :meth:`reset`.
            ValueError: ``state`` is of another game or player count than the one reset on, or
                ``actor`` is not a seat.
        """
        if self.seat is None:
            raise RuntimeError("call reset(state0, seat) before update")
        if state.game_name != self.game or state.num_players != self.state.num_players:
            raise ValueError(f"tracker follows a {self.state.num_players}-player {self.game} "
                             f"game, got a {state.num_players}-player {state.game_name} state")
        actor = state.check_seat(actor)
        self.state = state
        t0 = time.perf_counter()
        self._update(state, int(action), int(actor))
        self.time_s += time.perf_counter() - t0
        self.calls += 1

    def _reset(self, state0: GameState, seat: int) -> None:
        pass

    def _update(self, state: GameState, action: int, actor: int) -> None:
        pass

    def belief(self) -> np.ndarray:
        """Float64 ``(n, K)``: the current belief (module table)."""
        raise NotImplementedError

    def timed_belief(self) -> np.ndarray:
        """:meth:`belief`, its time added to the tracker's cost."""
        t0 = time.perf_counter()
        b = self.belief()
        self.time_s += time.perf_counter() - t0
        return b

    @property
    def ms_per_update(self) -> float:
        """Mean milliseconds per update (update and belief calls included)."""
        return 1000.0 * self.time_s / max(1, self.calls)


class UniformTracker(Tracker):
    """The prior from the components alone (deck composition, colours), fixed for the game."""

    name = "uniform"

    def _reset(self, state0, seat):
        self._b = self.adapter.prior(state0, seat)

    def belief(self):
        if self.adapter.kind == "counts":
            # the components' composition times the current public hand sizes (a rescaled
            # set-up row would stay zero for a hand that was empty at set-up: Clandestine
            # Relic hands)
            return self.adapter.prior(self.state, self.seat)
        return self._b.copy()


class ConsistentTracker(Tracker):
    """Posterior given only logical consistency with everything the seat has seen.

    Every world consistent with the seat's information is weighted by its chance probability;
    nothing is assumed about why the other seats chose their actions.

    Args:
        game: game name.
        samples: number ``M`` of worlds drawn by ``resample_from_infostate`` when the adapter has
            no exact form (or ``exact=False``); the estimate's per-entry standard error is
            ``stderr`` (``std / sqrt(M)`` over the samples), its worst entry ``max_stderr``.
        exact: use the adapter's exact posterior when it has one (default True).
        refresh: a sampled estimate is drawn again only after this many updates (default 1:
            at every update); in between the last one is returned with the observer's row
            set to its truth, unless a row's public total changed (a card drawn or played:
            then new worlds are drawn at once, since a rescaled old estimate can give a newly
            drawn card's kind no mass). For games
            whose resampler replays a long history (Clandestine: about 40 ms a world at 700
            decisions); the estimate then lags by up to ``refresh - 1`` actions.
        seed: seed of the resampling generator.
    """

    name = "consistent"

    def __init__(self, game: str, samples: int = 200, exact: bool = True, seed: int = 0,
                 refresh: int = 1) -> None:
        super().__init__(game, seed)
        self.samples = _count("samples", samples, 2)
        self.exact = exact
        self.refresh = _count("refresh", refresh, 1)
        self.stderr: np.ndarray | None = None
        self.last_exact = False

    def _reset(self, state0, seat):
        self._cached: np.ndarray | None = None
        self._age = 0

    def _update(self, state, action, actor):
        self._age += 1

    def belief(self):
        st, seat = self.state, self.seat
        if self.exact:
            b = self.adapter.exact_consistent(st, seat)
            if b is not None:
                self.stderr = np.zeros_like(b)
                self.last_exact = True
                return b
        self.last_exact = False
        if (self._cached is not None and self._age < self.refresh
                and np.array_equal(self._cached_totals, self.adapter.row_totals(st))):
            return self.adapter.own_row(st, seat, self._cached.copy())
        self._age = 0
        ts = np.stack([self.adapter.truth(st.resample_from_infostate(seat, self.rng))
                       for _ in range(self.samples)])
        b = ts.mean(axis=0)
        self.stderr = ts.std(axis=0, ddof=1) / math.sqrt(self.samples)
        b = self.adapter.own_row(st, seat, b)
        undefined = ~ts.any(axis=2).all(axis=0)
        if undefined.any():   # seats without a role yet (Prowl before set-up): the prior
            b[undefined] = self.adapter.prior(st, seat)[undefined]
        self._cached = b.copy()
        self._cached_totals = self.adapter.row_totals(st)
        return b

    @property
    def max_stderr(self) -> float:
        """Largest per-entry standard error of the last belief (0 when exact)."""
        return 0.0 if self.stderr is None else float(self.stderr.max())


class PolicyTracker(Tracker):
    """Posterior over worlds when every other seat plays ``model``: sequential Monte Carlo.

    Particles are full states (``GameState``), drawn at :meth:`reset` by
    ``resample_from_infostate`` (the consistent posterior at set-up), with log-weights. At each
    real action by ``actor`` every particle is advanced and re-weighted:

    * ``actor`` is the observer: the particle takes the same action (weight unchanged);
    * otherwise, with ``o`` the observer's real observation after the action, the weight is
      multiplied by the likelihood ``sum over legal a with obs_a == o of model.probs(actor's
      observation in the particle)[a]`` and the particle takes one such ``a`` drawn in proportion
      to its probability (the optimal proposal). When the adapter says the real action is public,
      only the real action can match, so only it is tried.

    A particle whose observer observation then differs from the real one (a chance outcome the
    observer saw, a mask it saw) gets weight 0. When the effective sample size
    ``(sum w)^2 / sum w^2`` falls below ``ess_fraction * particles``, the set is rejuvenated:
    ``fresh_fraction * particles`` fresh worlds are drawn by ``resample_from_infostate`` on the
    real state (the consistent posterior), each weighted by its full-history likelihood under
    ``model``, computed by replaying its record (``to_record`` / ``replay_steps``): at another
    seat's step the likelihood above, except for a hidden choice the resampler redrew
    (``BeliefAdapter.resampled_choice_prob`` ``h``), where it is ``model`` probability / ``h``
    (the importance weight of the resampler's proposal); the mixture of the two self-normalised
    estimates (current particles with mass ``1 - f``, fresh worlds with mass ``f``, where ``f``
    is the fresh worlds' effective sample size over the sum of both, the current set's counted
    by :meth:`distinct_ess` so that copies of one world count once) is resampled
    systematically to ``particles`` equal weights. (A fixed ``f`` kept most of the mass on a
    few copied worlds after a revealing observation: total variation 0.27 to exact Bayes on
    2-player Prowl, against below 0.02 now; ``tests/test_belief.py``.) If a
    fresh world's record does not replay to it (a resampler without history consistency), its
    weight is unknown: that rebuild's fresh worlds are dropped (``stats["unreplayable"]``), as
    keeping only the replayable draws would be biased (with such a resampler the replayable
    worlds are the real one), and no fresh world is drawn again in that game. If every particle
    has died and no fresh world is usable, the belief falls back to the consistent posterior.

    With ``move_steps = K > 0`` the resampling of a rejuvenation is followed by a move step
    (resample-move: Gilks and Berzuini, "Following a moving target - Monte Carlo inference for
    dynamic Bayesian models", JRSS B 63, 2001): every particle takes ``K`` steps of independence
    Metropolis-Hastings whose proposal is the resampler, ``x' = resample_from_infostate`` on the
    real state, accepted with probability ``min(1, L(x') / L(x))``, ``log L`` being
    :meth:`history_loglik` (the particle's own ``L(x)`` computed by the same function, once per
    distinct world before the copies are made; a fresh world's is the one it was weighted by).
    The resampler draws from ``q`` (about the consistent posterior over worlds with their
    hidden histories) and the target is ``q(x) L(x)``, the posterior a fresh world's weight
    ``L`` corrects ``q`` to, so the ratio is ``L(x') / L(x)`` and the step leaves that
    posterior invariant while replacing copies of one world by independent ones (an accepted
    proposal is a new origin, so :meth:`distinct_ess` counts it apart). A proposal whose record
    does not replay is rejected (``stats["unreplayable"]``; as for fresh worlds, no proposal is
    drawn again in that game); a particle whose own ``L`` is unknown (its record does not
    replay) or 0 takes the first proposal with ``L > 0``. ``stats["moves"]`` and
    ``stats["accepted"]`` count proposals and acceptances.

    On particles the filter advanced (an action drawn by the optimal proposal): the acceptance
    ratio needs only ``L`` of the current point, not how it was reached, and
    :meth:`history_loglik` computes it on the particle's own record after checking that the
    record replays to the particle (same hidden truth and observation), so ``L(x)`` is the
    likelihood of exactly that path. Compare the filter's target over paths (at another seat's
    step, an id drawn in proportion to ``model`` among those matching the observation, the
    weight their sum ``S``: density ``model[a]``) with ``q(x) L(x)``: at a choice the resampler
    redraws with probability ``h`` it is ``h * model[a] / h = model[a]``, the same; at a step it
    keeps (the real id), ``1 * S``, the same when one id matches the observation (a public
    action, a choice the observation tells), while where several hidden ids match the filter
    spreads ``S`` over them and ``q`` puts it all on the real id. So the step is exact on the
    filter's particles up to that case; there it moves a particle holding another id into
    ``q``'s support and never back, which changes no hidden truth where the matching ids leave
    the same one (what the resampler's consistency already needs when it keeps a hidden id),
    and the fresh worlds of a rejuvenation rest on the same assumption.
    Cost: ``K * particles`` resampled worlds and replays per rejuvenation (the fresh worlds
    cost ``fresh_fraction * particles``), plus one replay per distinct surviving world.

    Args:
        game: game name.
        model: the :class:`ActionModel` assumed for the other seats.
        particles: number of particles ``M``.
        ess_fraction: rejuvenation threshold in (0, 1].
        fresh_fraction: fresh worlds drawn at a rejuvenation, as a share of ``particles``, in
            (0, 1] (their mass in the mixture is set by the effective sample sizes).
        mix: weight ``lambda`` in [0, 1) of a defensive mixture: the belief is ``(1 - lambda)``
            times the particle estimate plus ``lambda`` times the consistent posterior (exact
            form, else the prior). 0 (default) is the plain Bayes estimate; a small ``lambda``
            bounds the NLL when few distinct particles survive (a near-deterministic model
            concentrates the particles on few worlds).
        seed: seed of the tracker's generator.
        move_steps: independence Metropolis-Hastings steps per particle after the resampling
            of a rejuvenation (see above), an integer of at least 0; 0 (default) moves none.

    Raises:
        ValueError: ``particles`` not an integer of at least 1, ``move_steps`` not an integer of
            at least 0 (a bool or a float included), ``ess_fraction`` or ``fresh_fraction``
            outside (0, 1], ``mix`` outside [0, 1).
    """

    name = "policy"

    def __init__(self, game: str, model: ActionModel, particles: int = 100,
                 ess_fraction: float = 0.3, fresh_fraction: float = 0.25,
                 mix: float = 0.0, seed: int = 0, move_steps: int = 0) -> None:
        super().__init__(game, seed)
        particles = _count("particles", particles, 1)
        if not 0 < ess_fraction <= 1:
            raise ValueError(f"ess_fraction must be in (0, 1], got {ess_fraction!r}")
        self.model = model
        self.M = int(particles)
        self.ess_fraction = float(ess_fraction)
        if not 0 < fresh_fraction <= 1:
            raise ValueError(f"fresh_fraction must be in (0, 1], got {fresh_fraction!r}")
        self.fresh_fraction = float(fresh_fraction)
        if not 0 <= mix < 1:
            raise ValueError(f"mix must be in [0, 1), got {mix!r}")
        self.mix = float(mix)
        self.move_steps = _count("move_steps", move_steps, 0)
        self.stats = self._new_stats()

    @staticmethod
    def _new_stats() -> dict[str, int]:
        return {"rejuvenations": 0, "fresh": 0, "unreplayable": 0, "moves": 0, "accepted": 0}

    def _reset(self, state0, seat):
        self.model.reset()
        self.stats = self._new_stats()
        self.replayable = True
        self.real_obs = [state0.observation_tensor(seat)]
        self.particles = [state0.resample_from_infostate(seat, self.rng) for _ in range(self.M)]
        self.logw = np.zeros(self.M)
        self.origin = np.arange(self.M)   # particles with one origin are copies of one world

    # ---------------------------------------------------------------------------------------
    def _step_likelihood(self, p: GameState, action: int, actor: int, obs_after: np.ndarray,
                         public: bool, choose: bool) -> tuple[float, GameState | None]:
        """Likelihood of the observer seeing ``obs_after`` when ``actor`` moves in particle
        ``p`` (before the move), and the advanced particle (None if impossible)."""
        seat = self.seat
        if p.is_over or p.current_player != actor:
            return 0.0, None
        mask = p.legal_action_mask()
        if actor == seat:
            if not mask[action]:
                return 0.0, None
            q = p.clone()
            q.apply_action(action)
            same = np.array_equal(q.observation_tensor(seat), obs_after)
            return (1.0, q) if same else (0.0, None)
        probs = self.model.probs(p.observation_tensor(actor), mask, actor)
        cands = [action] if public else [int(a) for a in np.flatnonzero(mask)]
        like, outs, ws = 0.0, [], []
        for a in cands:
            if not mask[a] or probs[a] <= 0:
                continue
            # another action than the one taken draws its chance from the generator: a state
            # replayed from a record (history_loglik) holds the record's later outcomes, which
            # belong to the recorded action only (GameState.probe_clone)
            q = p.clone() if a == action else p.probe_clone()
            q.apply_action(a)
            if np.array_equal(q.observation_tensor(seat), obs_after):
                like += probs[a]
                outs.append(q)
                ws.append(probs[a])
        if not outs:
            return 0.0, None
        if len(outs) == 1 or not choose:
            return like, outs[0]
        w = np.asarray(ws) / like
        return like, outs[int(self.rng.choice(len(outs), p=w))]

    def _update(self, state, action, actor):
        seat = self.seat
        obs_after = state.observation_tensor(seat)
        self.real_obs.append(obs_after)
        public = actor != seat and self.adapter.public_action(state, action)
        new_parts, new_logw = [], np.full(self.M, -np.inf)
        for i, p in enumerate(self.particles):
            if not np.isfinite(self.logw[i]):
                new_parts.append(p)
                continue
            like, q = self._step_likelihood(p, action, actor, obs_after, public, True)
            if q is None or like <= 0:
                new_parts.append(p)
                continue
            new_parts.append(q)
            new_logw[i] = self.logw[i] + math.log(like)
        self.particles = new_parts
        self.logw = new_logw
        self._prev_state = state
        if self.ess() < self.ess_fraction * self.M:
            self._rejuvenate(state)

    def ess(self) -> float:
        """Effective sample size of the current weights (0 if every particle died)."""
        lw = self.logw
        if not np.isfinite(lw).any():
            return 0.0
        w = np.exp(lw - lw[np.isfinite(lw)].max())
        return float(w.sum() ** 2 / (w ** 2).sum())

    def distinct_ess(self) -> float:
        """Effective sample size counting the copies of one resampled world once: the weights
        of the particles sharing an origin (copies made by resampling, then advanced) are
        summed before ``(sum w)^2 / sum w^2``. At most the number of distinct origins alive."""
        lw = self.logw
        ok = np.isfinite(lw)
        if not ok.any():
            return 0.0
        w = np.exp(lw[ok] - lw[ok].max())
        per = np.bincount(self.origin[ok], weights=w)
        return float(w.sum() ** 2 / (per ** 2).sum())

    def history_loglik(self, world: GameState) -> float | None:
        """Log-likelihood of the real observations under ``model`` along ``world``'s record, or
        None when the record does not replay to ``world`` (same hidden truth and observation).

        At another seat's step from replayed state ``s`` with recorded action ``a``, the
        likelihood is ``model(a)`` (the replay's next state must show the observer its real
        observation, else the record does not replay) plus, when the action is hidden from the
        observer, ``model(b)`` of every other legal ``b`` that shows it the same observation
        (tried on :meth:`GameState.probe_clone`); at a hidden choice the resampler redrew,
        ``model(a) / h`` (class docstring). The replayed state itself is advanced, not a copy
        of it: one clone per other candidate action, none per step. Returns ``-inf`` at the
        first step with likelihood 0 (a world that contradicts the play under ``model``), but
        None when the replay refuses that step's recorded action or its chance outcome (a
        record that does not replay), as the step-by-step definition does: a step counts once
        the replay has taken it. The candidates are summed in id order, as there."""
        seat = self.seat
        rec = world.to_record()
        actions = rec["actions"]
        real = self.real_obs
        ll = 0.0
        st = None
        # the likelihood of the step just taken, counted once the replay has taken its recorded
        # action (a record that does not replay gives None, whatever that step's likelihood,
        # as in the step-by-step definition), and the part of it from candidates other than the
        # recorded action (None where there are none): when the recorded action's outcome then
        # differs from the real observation, the world has likelihood 0 at that step if no
        # other candidate matched, else its record does not replay
        like = others = None
        try:
            for i, st in enumerate(type(world).replay_steps(rec)):
                seen = i < len(real) and np.array_equal(st.observation_tensor(seat), real[i])
                if like is not None:
                    if (like if seen or others is None else others) <= 0:
                        return -math.inf
                    ll += math.log(like)
                if not seen:
                    return None
                like = others = None
                if i >= len(actions):
                    continue
                a = actions[i]
                mask = st.legal_action_mask()
                if not 0 <= a < len(mask) or not mask[a]:
                    continue   # the replay refuses it next: the record does not replay
                actor = st.current_player
                if actor == seat:
                    continue
                probs = self.model.probs(st.observation_tensor(actor), mask, actor)
                h = self.adapter.resampled_choice_prob(st, a, seat)
                if h is not None:   # a hidden choice drawn by the resampler
                    like = probs[a] / h
                    continue
                if i + 1 >= len(real):
                    return None   # the record goes on past the real observations
                # the candidates in id order, as the definition sums them
                like = others = 0.0
                public = self.adapter.public_action(st, a)
                for b in ([a] if public else np.flatnonzero(mask).tolist()):
                    if probs[b] <= 0:
                        continue
                    if b == a:
                        like += probs[b]
                        continue
                    # another action than the recorded one draws its chance from the
                    # generator (GameState.probe_clone)
                    q = st.probe_clone()
                    q.apply_action(b)
                    if np.array_equal(q.observation_tensor(seat), real[i + 1]):
                        like += probs[b]
                        others += probs[b]
        except (RecordError, IllegalActionError):
            return None
        if st is None or not np.array_equal(self.adapter.truth(st), self.adapter.truth(world)):
            return None
        return ll

    def _rejuvenate(self, state):
        self.stats["rejuvenations"] += 1
        M = self.M
        alive = np.isfinite(self.logw)
        fresh, flw = [], []
        n_fresh = max(1, int(round(self.fresh_fraction * M))) if alive.any() else M
        for _ in range(n_fresh if self.replayable else 0):
            world = state.resample_from_infostate(self.seat, self.rng)
            ll = self.history_loglik(world)
            if ll is None:
                # the resampler's world has no replayable history: its weight is unknown, and
                # keeping only the replayable draws would favour worlds equal to the real one
                self.stats["unreplayable"] += 1
                self.replayable = False     # not tried again in this game
                fresh, flw = [], []
                break
            fresh.append(world)
            flw.append(ll)
        flw = np.asarray(flw, dtype=np.float64)
        if not np.isfinite(flw).any():
            fresh, flw = [], np.zeros(0)
        self.stats["fresh"] += len(fresh)
        # mixture of two self-normalised estimates of the same posterior, each weighted by its
        # effective sample size (copies of one world counted once), then systematic resampling
        # to M equal weights
        f = 0.0
        if len(fresh):
            ok = np.isfinite(flw)
            wf = np.exp(flw[ok] - flw[ok].max())
            ess_fresh = float(wf.sum() ** 2 / (wf ** 2).sum())
            f = ess_fresh / (ess_fresh + self.distinct_ess())
        pool = list(self.particles) + fresh
        mass = np.zeros(len(pool))
        if alive.any() and f < 1.0:
            w = np.exp(self.logw[alive] - self.logw[alive].max())
            mass[np.flatnonzero(alive)] = (1.0 - f) * w / w.sum()
        if len(fresh):
            ok = np.isfinite(flw)
            w = np.zeros(len(fresh))
            w[ok] = np.exp(flw[ok] - flw[ok].max())
            mass[M:] = f * w / w.sum()
        if mass.sum() <= 0:
            return
        mass /= mass.sum()
        u = (self.rng.random() + np.arange(M)) / M
        idx = np.minimum(np.searchsorted(np.cumsum(mass), u), len(pool) - 1)
        counts: dict[int, int] = {}
        parts = []
        for i in idx.tolist():
            counts[i] = counts.get(i, 0) + 1
            parts.append(pool[i] if counts[i] == 1 else pool[i].clone())
        self.particles = parts
        self.logw = np.zeros(M)
        # an origin per distinct pool entry: fresh worlds are new, survivors keep theirs
        pool_origin = np.concatenate([self.origin, self.origin.max() + 1 + np.arange(len(fresh))])
        origin = pool_origin[idx]
        if self.move_steps and self.replayable:
            # each distinct world's own log-likelihood once (a fresh world's is known)
            pool_ll: dict[int, float | None] = {}
            for i in idx.tolist():
                if i not in pool_ll:
                    pool_ll[i] = float(flw[i - M]) if i >= M else self.history_loglik(pool[i])
            origin = self._move(state, [pool_ll[i] for i in idx.tolist()], origin)
        self.origin = np.unique(origin, return_inverse=True)[1]

    def _move(self, state, ll: list[float | None], origin: np.ndarray) -> np.ndarray:
        """``move_steps`` independence Metropolis-Hastings steps on every particle, the
        resampler as the proposal (class docstring); ``ll``: the particles' own
        :meth:`history_loglik`. Returns the origins, an accepted proposal getting a new one."""
        origin = origin.copy()
        new = int(origin.max()) + 1
        for j in range(self.M):
            cur = ll[j]
            for _ in range(self.move_steps):
                if not self.replayable:
                    return origin
                x = state.resample_from_infostate(self.seat, self.rng)
                lx = self.history_loglik(x)
                self.stats["moves"] += 1
                if lx is None:
                    # as for fresh worlds: keeping only the replayable proposals is biased
                    self.stats["unreplayable"] += 1
                    self.replayable = False
                    return origin
                if not math.isfinite(lx):
                    continue
                if cur is None or not math.isfinite(cur) or lx >= cur \
                        or self.rng.random() < math.exp(lx - cur):
                    self.particles[j], cur = x, lx
                    origin[j] = new
                    new += 1
                    self.stats["accepted"] += 1
        return origin

    def belief(self):
        st, seat = self.state, self.seat
        alive = np.flatnonzero(np.isfinite(self.logw))
        if alive.size == 0:
            self._rejuvenate(st)
            alive = np.flatnonzero(np.isfinite(self.logw))
            if alive.size == 0:   # no world explains the play under the model: consistency only
                b = self.adapter.exact_consistent(st, seat)
                return self.adapter.prior(st, seat) if b is None else b
        w = np.exp(self.logw[alive] - self.logw[alive].max())
        w /= w.sum()
        ts = np.stack([self.adapter.truth(self.particles[int(i)]) for i in alive])
        b = np.tensordot(w, ts, axes=1)
        b = self.adapter.own_row(st, seat, b)
        undefined = ~ts.any(axis=2).all(axis=0)
        if undefined.any():
            b[undefined] = self.adapter.prior(st, seat)[undefined]
        if self.mix > 0:
            c = self.adapter.exact_consistent(st, seat)
            b = (1 - self.mix) * b + self.mix * (self.adapter.prior(st, seat) if c is None else c)
        return b


class ExactPolicyTracker(PolicyTracker):
    """Exact Bayes over the worlds the seat cannot tell apart when the other seats play
    ``model``: one particle per world of :meth:`BeliefAdapter.enumerate_worlds` (Clans: every
    assignment of the other colours), weighted by its prior times the likelihood of everything
    the observer saw (as in :class:`PolicyTracker`), never resampled. Where the hidden part never
    changes after set-up (Clans), this is the exact posterior under ``model``; a world that
    contradicts an observation keeps weight 0 (if all do, the belief falls back to the
    consistent posterior). Cost per update: ``model`` is asked once per distinct actor
    observation (Clans: once per colour the actor may hold, 4 calls).

    Raises:
        ValueError: at :meth:`reset`, the game's adapter does not enumerate worlds.
    """

    name = "policy-exact"

    def __init__(self, game: str, model: ActionModel, seed: int = 0, mix: float = 0.0) -> None:
        super().__init__(game, model, particles=1, mix=mix, seed=seed)

    def _reset(self, state0, seat):
        worlds = self.adapter.enumerate_worlds(state0, seat, self.rng)
        if worlds is None:
            raise ValueError(f"the {self.game} adapter does not enumerate worlds")
        self.model.reset()
        self.stats = self._new_stats()
        self.replayable = False      # no fresh worlds: the set is already complete
        self.real_obs = [state0.observation_tensor(seat)]
        self.particles = [w for w, _ in worlds]
        self.M = len(worlds)
        self.logw = np.log(np.array([p for _, p in worlds], dtype=np.float64))
        self.origin = np.arange(self.M)

    def _rejuvenate(self, state):
        """Never: the enumeration is complete (dead worlds stay dead)."""


class ProbeTracker(Tracker):
    """A learned belief: a small MLP (saved by ``python -m training.probe``) from the seat's
    observation to the other seats' roles.

    The network maps the float32 observation ``(D,)`` to logits ``(n - 1, K)`` for relative seats
    1..n-1 (the layouts' relative-seat order: absolute seat ``(seat + r) % n``); rows are
    softmaxed. For counts (Badland Wolves) the row is the predicted hand composition times the
    public hand size. With ``support`` (default) and an adapter with an exact consistent
    posterior, each row is renormalised over the roles that posterior allows (Clans: not the
    observer's own colour; Prowl: not an excluded clan, a known card's clan only): on 3 held-out
    3-player Clans games the ``clans3`` probe's NLL went from 1.56 to 1.40 nats. The logits are
    divided by the probe's fitted ``temperature`` and the rows mixed with its reference prior at
    its fitted ``prior_weight`` (``training.probe.calibrate``; where roles are distinct, as in
    Clans, the observer's own role is removed before the mixture and the prior is uniform over
    the others), so a probe that learned nothing falls back on the prior.

    A probe trained with ``--inputs`` (``meta["inputs"]``: observation field names) reads only
    those fields of the observation, selected through the game's observation layout
    (``training.probe.input_columns`` on ``state.layout``) exactly as in training; a probe
    without ``inputs`` in its meta (saved before the option, or trained on the whole
    observation) reads the whole observation.

    Args:
        game: game name.
        path: the ``.pt`` file written by ``training.probe``.

    Raises:
        ValueError: the file is for another game; at :meth:`reset`, the game's observation size
            differs from the probe's (another player count), its belief columns differ from
            the probe's (Prowl's ``clans`` in another order), or its layout lacks one of the
            probe's input fields or gives them another width.
    """

    name = "probe"

    def __init__(self, game: str, path: str, seed: int = 0, support: bool = True) -> None:
        super().__init__(game, seed)
        self.support = bool(support)
        from training.probe import load_probe

        import torch

        torch.set_num_threads(1)   # one small forward pass per call: threads only cost here
        self.net, self.meta = load_probe(path)
        if self.meta["game"] != game:
            raise ValueError(f"probe {path!r} is for {self.meta['game']!r}, not {game!r}")
        # calibration (training.probe; absent from probes saved before it: the network alone)
        self.temperature = float(self.meta.get("temperature", 1.0))
        self.weight = float(self.meta.get("prior_weight", 0.0))
        self.distinct = bool(self.meta.get("distinct_roles", False))
        prior = self.meta.get("prior")
        self.prior = None if prior is None else np.asarray(prior, dtype=np.float64)
        # observation fields read (training.probe --inputs); None: the whole observation
        self.inputs = self.meta.get("inputs")
        self.cols: np.ndarray | None = None

    @staticmethod
    def _restrict(p: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """Rows of ``p`` renormalised over the entries where ``allowed > 0`` (kept as they are
        where that leaves no mass)."""
        m = p * (allowed > 0)
        tot = m.sum(axis=1, keepdims=True)
        return np.where(tot > 0, m / np.where(tot > 0, tot, 1.0), p)

    def _reset(self, state0, seat):
        if state0.observation_size != self.meta["obs_size"]:
            raise ValueError(f"probe expects observations of size {self.meta['obs_size']}, the "
                             f"game has {state0.observation_size} (another player count?)")
        cols = self.adapter.categories(state0)
        if "columns" in self.meta and list(self.meta["columns"]) != list(cols):
            # the same observation size with the categories in another order (Prowl's
            # ``clans`` config): the network's outputs would name the wrong roles
            raise ValueError(f"probe predicts the columns {list(self.meta['columns'])}, this "
                             f"game's belief has {list(cols)} (another config?)")
        if self.inputs is not None:
            from training.probe import input_columns, observation_layout_of

            self.cols = input_columns(observation_layout_of(state0), self.inputs, self.game)
            if len(self.cols) != self.meta["input_size"]:
                raise ValueError(f"probe reads {self.meta['input_size']} entries from fields "
                                 f"{', '.join(self.inputs)}; this game's layout gives "
                                 f"{len(self.cols)}")

    def belief(self):
        import torch

        st, seat = self.state, self.seat
        n = st.num_players
        with torch.no_grad():
            obs = st.observation_tensor(seat)
            x = torch.from_numpy((obs if self.cols is None else obs[self.cols])[None, :])
            logits = self.net(x).reshape(n - 1, -1).double() / self.temperature
            p = torch.softmax(logits, dim=-1).numpy()
        b = np.zeros((n, p.shape[1]))
        rows = [(seat + r) % n for r in range(1, n)]
        b[rows] = p
        c = self.adapter.exact_consistent(st, seat) if self.support else None
        if self.distinct and c is not None:
            b[rows] = self._restrict(b[rows], c[rows])
        if self.weight > 0:
            # the calibrated mixture with the prior the probe falls back on (training.probe)
            if self.distinct:
                own = self.adapter.truth(st)[seat] > 0
                ref = np.tile((~own) / max(1, (~own).sum()), (n - 1, 1))
            else:
                ref = self.prior
            b[rows] = (1.0 - self.weight) * b[rows] + self.weight * ref
        if c is not None and self.adapter.kind != "counts":
            # roles the consistent posterior rules out get no mass (the network does not
            # learn it exactly: the Clans probe put 0.15 on the observer's own colour)
            b[rows] = self._restrict(b[rows], c[rows])
        if self.adapter.kind == "counts":
            b *= self.adapter.row_totals(st)[:, None]
        b[seat] = self.adapter.prior(st, seat)[seat]
        return self.adapter.own_row(st, seat, b)


#: The keywords of :func:`make_tracker` each tracker reads (``seed`` aside): keyword -> the specs
#: that read it (one ending in ``:`` is a prefix, ``policy-ppo:`` for every ``policy-ppo:PATH``).
#: Every other tracker ignores the keyword (:func:`tracker_reads`).
TRACKER_OPTIONS: dict[str, tuple[str, ...]] = {
    "particles": ("policy", "policy-random", "policy-ppo:"),
    "samples": ("consistent",),
    "refresh": ("consistent",),
    "epsilon": ("policy", "policy-exact"),
    "policy_samples": ("policy", "policy-exact"),
    "policy_mix": ("policy", "policy-exact", "policy-random", "policy-ppo:"),
    "move_steps": ("policy", "policy-random", "policy-ppo:"),
    "probe_path": ("probe",),
}


def tracker_reads(spec: str, keyword: str) -> bool:
    """Whether the tracker :func:`make_tracker` builds from ``spec`` reads ``keyword``.

    Raises:
        KeyError: ``keyword`` is not one of :data:`TRACKER_OPTIONS`.
    """
    if keyword not in TRACKER_OPTIONS:
        raise KeyError(f"{keyword!r} is not a make_tracker option: one of "
                       f"{sorted(TRACKER_OPTIONS)}")
    return any(spec == t or (t.endswith(":") and spec.startswith(t))
               for t in TRACKER_OPTIONS[keyword])


def make_tracker(spec: str, game: str, config: dict[str, Any], seed: int = 0,
                 particles: int = 100, samples: int = 200, epsilon: float = 0.1,
                 probe_path: str | None = None, policy_samples: int | None = None,
                 policy_mix: float = 0.0, refresh: int = 1, move_steps: int = 0) -> Tracker:
    """A tracker from a short spec: ``uniform``, ``consistent``, ``policy`` (heuristic with
    ``epsilon`` and ``policy_samples`` calls per observation, default HEURISTIC_SAMPLES),
    ``policy-exact`` (the same model, by enumeration where the adapter enumerates worlds),
    ``policy-random``, ``policy-ppo:PATH`` or ``probe`` (needs ``probe_path``); ``refresh``:
    :class:`ConsistentTracker`'s resampling interval; ``policy_mix``: the defensive mixture of
    every ``policy*`` tracker (it was dropped for ``policy-exact``, ``policy-random`` and
    ``policy-ppo``); ``move_steps``: the resample-move steps of the particle filters
    (:class:`PolicyTracker`; not ``policy-exact``, which never resamples).
    :data:`TRACKER_OPTIONS` says which tracker reads which keyword.

    Raises:
        ValueError: an unknown spec, or ``probe`` without a path.
    """
    if spec == "uniform":
        return UniformTracker(game, seed=seed)
    if spec == "consistent":
        return ConsistentTracker(game, samples=samples, seed=seed, refresh=refresh)
    if spec == "policy":
        return PolicyTracker(game, heuristic_policy(game, config, epsilon, seed, policy_samples),
                             particles=particles, mix=policy_mix, seed=seed,
                             move_steps=move_steps)
    if spec == "policy-exact":
        return ExactPolicyTracker(game, heuristic_policy(game, config, epsilon, seed,
                                                         policy_samples), seed=seed,
                                  mix=policy_mix)
    if spec == "policy-random":
        t = PolicyTracker(game, RandomPolicy(), particles=particles, mix=policy_mix, seed=seed,
                          move_steps=move_steps)
        t.name = "policy-random"
        return t
    if spec.startswith("policy-ppo:"):
        from .learned import PolicyAgent

        t = PolicyTracker(game, SoftmaxPolicyAgent(PolicyAgent.load(spec[11:], game=game,
                                                             config=config)),
                          particles=particles, mix=policy_mix, seed=seed,
                          move_steps=move_steps)
        t.name = spec
        return t
    if spec == "probe":
        if probe_path is None:
            raise ValueError("the probe tracker needs a model path (--probe PATH)")
        return ProbeTracker(game, probe_path, seed=seed)
    raise ValueError(f"unknown tracker {spec!r}: use uniform, consistent, policy, policy-exact, "
                     "policy-random, "
                     "policy-ppo:PATH or probe")


__all__ = [
    "ADAPTERS", "ActionModel", "BeliefAdapter", "ConsistentTracker", "EpsilonAgentPolicy",
    "ExactPolicyTracker",
    "GAME_STATES", "PolicyTracker", "ProbeTracker", "RandomPolicy", "SoftmaxPolicyAgent",
    "TRACKER_OPTIONS", "Tracker", "UniformTracker", "adapter_for", "heuristic_policy",
    "make_tracker", "new_game", "sample_action", "state_class", "tracker_reads",
]
