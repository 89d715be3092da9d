"""Advice: a scripted agent's recommended moves as extra inputs of a learned policy.

A policy trained with advice (``python -m training.selfplay --advice heuristic``) reads, beside
the seat's observation, the moves the game's heuristic would make in the same position: its
input is ``concat(observation, advice)``, float32 (D + A,), where ``advice`` (float32 (A,)) is
1.0 on the recommended actions and 0.0 elsewhere (all 0.0 when the seat has no decision). The
heuristic's equally-best moves are used when it has them (``best_moves``, e.g. the Clans one,
which breaks ties at random), else the one action its ``act`` picks. Behaviour cloning then fits
the heuristic exactly and PPO learns where to depart from it (which of its tied moves to take,
and when another move wins more), in the spirit of residual policy learning (Silver et al. 2018,
"Residual Policy Learning"): the advisor is part of the policy, so the policy is at least as
informed as the heuristic, and it sees only the seat's own observation.

The advisor is an agent that may remember things within a game (the Clans heuristic gathers
colour evidence), so it is one instance per seat and game, reset before each game and asked
at every decision of its seat, forced ones included, exactly as the heuristic would be when it
plays that seat.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import OwnCopy, SeatBound

#: advice kinds a policy can be trained with (``--advice``); ``"none"`` is no advice
ADVICE_KINDS = ("heuristic",)


def check_advice(advice: str | None) -> str | None:
    """``advice`` itself if it is ``None`` or a known kind (:data:`ADVICE_KINDS`).

    Raises:
        ValueError: any other value (the message lists the kinds).
    """
    if advice is not None and advice not in ADVICE_KINDS:
        raise ValueError(f"unknown advice {advice!r}; known: {', '.join(ADVICE_KINDS)} (or None "
                         "for a policy without advice)")
    return advice


class Advisor(SeatBound, OwnCopy):
    """The advice vector of one seat in one game (see the module docstring).

    ``copy.copy`` is a deep copy (:class:`agents.base.OwnCopy`): the copy's advising agent,
    with its memory of the game and its generator, is its own, so asking the copy (e.g. for
    another seat) never moves the original's advice.

    An advisor whose agent remembers the game (:attr:`remembers_game`, e.g. the Clans
    heuristic) binds to the first agent it is asked for after construction or :meth:`reset`
    (:class:`agents.base.SeatBound`) and refuses any other until reset.

    Args:
        advice: the advice kind, one of :data:`ADVICE_KINDS` (``"heuristic"``: the game's
            scripted heuristic, ``agents.make_agent("heuristic", game, config)``).
        game, config: the game and its configuration (``num_players`` and rule options).
        seed: seeds the advising agent's generator (used only by a heuristic's fallbacks and
            tie-breaks of ``act``; ``best_moves`` draws nothing).

    Attributes:
        last: the advice vector computed last (float32 (A,)), None before the first call: lets
            a measurement compare an advised policy's move with its advice
            (``benchmarks/advice_agreement.py``).

    Raises:
        ValueError: unknown ``advice`` or game; (from a call) asked for another agent than the
            one it advises in this game, when its agent remembers the game.
    """

    def __init__(self, advice: str, game: str, config: dict[str, Any],
                 seed: int | None = None) -> None:
        from . import make_agent

        if check_advice(advice) is None:
            raise ValueError("an Advisor needs an advice kind, got None")
        self.advice = advice
        self.game = game
        self.config = dict(config)
        self.agent = make_agent("heuristic", game, self.config, seed=seed)
        self.last: np.ndarray | None = None

    def spawn(self, seed: int | None = None) -> Advisor:
        """A new advisor of the same kind, game and configuration, with its own memory."""
        return Advisor(self.advice, self.game, self.config, seed=seed)

    @property
    def remembers_game(self) -> bool:  # type: ignore[override]
        """Whether the advising agent remembers the game (then so does the advisor)."""
        return bool(getattr(self.agent, "remembers_game", False))

    def reset(self) -> None:
        """Forget the previous game (call before each game)."""
        self.unbind_seat()
        self.agent.reset()

    def __call__(self, observation: dict[str, np.ndarray], agent: str) -> np.ndarray:
        """float32 (A,): 1.0 on the advised actions of ``observation`` (a dict with
        ``"observation"`` and ``"action_mask"``, as the AEC env gives) for seat ``agent``;
        all 0.0 when the mask has no legal action (no decision is due).

        Raises:
            ValueError: the advising agent recommends an illegal action (a defect of it), or the
                advisor remembers the game and advised another agent in it.
        """
        if self.remembers_game:
            self.bind_seat(agent)
        mask = np.asarray(observation["action_mask"])
        out = np.zeros(mask.shape[0], dtype=np.float32)
        self.last = out
        if not mask.any():
            return out
        if hasattr(self.agent, "best_moves"):
            moves = np.asarray(self.agent.best_moves(observation, agent), dtype=np.int64)
        else:
            moves = np.asarray([self.agent.act(observation, agent)], dtype=np.int64)
        if moves.size == 0 or not mask[moves].all():
            raise ValueError(f"the {self.advice} advisor of {self.game} recommended "
                             f"{moves.tolist()}, not all legal")
        out[moves] = 1.0       # in place: self.last is this array
        return out

    def policy_input(self, observation: dict[str, np.ndarray], agent: str) -> np.ndarray:
        """float32 (D + A,): what an advised policy reads, ``observation["observation"]``
        followed by this advisor's advice on ``observation`` (see :meth:`__call__`)."""
        return advised(observation["observation"], self(observation, agent))


def advised(observation: np.ndarray, advice: np.ndarray) -> np.ndarray:
    """float32 (D + A,): the observation followed by the advice vector."""
    return np.concatenate([np.asarray(observation, dtype=np.float32),
                           np.asarray(advice, dtype=np.float32)])
