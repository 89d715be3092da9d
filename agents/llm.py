"""A language-model agent: any callable ``prompt -> reply`` plays a seat through its text view.

The agent reads the seat's *text observation* (:mod:`envs.core.text`: its own view, what the
other seats did since its last decision as far as it may know, the legal actions with ids and
names), asks the model, parses the reply and re-asks with the reason when the reply names no
legal action. After ``max_retries`` unusable replies it takes the stated fallback action.

Where the text comes from (the agent never looks at another seat's secrets):

* from the env: create it with ``text_observation=True`` and pass ``infos[agent]["text"]``::

      env = envs.make_env("prowl", text_observation=True)
      env.reset(seed=0)
      agents = {a: LanguageModelAgent(my_model) for a in env.agents}  # one per seat
      ...
      obs, _, term, trunc, info = env.last()
      env.step(agents[name].act(obs, name, text=info["text"]))

* from the live state: the agent declares ``needs_state = True``, so runners that pass the game
  state (``act(observation, agent, state=state)``, as for search agents) need nothing else. The
  agent then keeps its seat's own log of the game (:class:`envs.core.text.SeatLogs`, one per
  game: :meth:`LanguageModelAgent.reset` starts a fresh one), so the text is the very text the
  env's ``text_observation=True`` feed gives at the same decision, "since your last decision"
  lines included: the other seats' actions worded for the seat, and what a seat the rules play
  did (``state.rules_words()``, e.g. the Nemesis's turns in solo Clandestine). At each decision
  it replays the actions taken since its previous one (``state.history``) on its copy of the
  game as it was then; at its first decision of a game, from the game's set-up. A state of
  another game is refused until :meth:`LanguageModelAgent.reset`.

No network is touched here: ``ask`` is whatever the caller wraps (an HTTP client, a local model,
a scripted function in tests).
"""

from __future__ import annotations

import copy
import re
from typing import Any, Callable

import numpy as np

from envs.core.aec import agent_name, seat_of
from envs.core.errors import IllegalActionError, RecordError
from envs.core.text import LEGAL_HEADER, SeatLogs

from .base import SeatBound, legal_ids

#: the fallback choices: a uniformly random legal action, or the lowest legal id
FALLBACKS = ("random", "first")

DEFAULT_INSTRUCTIONS = (
    "You are playing a seat in a tabletop game. Below is everything your seat can see and the "
    "actions you may take, each with its id. Choose one action. Answer with its id only."
)

_KEYWORD_ID = re.compile(r"\b(?:action|id|choice|choose|option|answer)\b\s*(?:id)?\s*[#:=]?\s*"
                         r"(\d+)\b", re.IGNORECASE)
_LEADING_ID = re.compile(r"^\W*(\d+)\b")
_NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
_ACTION_LINE = re.compile(r"^\s+(\d+): (.+)$", re.MULTILINE)


def parse_choice(reply: str, names: dict[int, str]) -> tuple[int | None, str]:
    """The legal action id a model's ``reply`` chooses, or ``(None, reason)``.

    Tried in order, the first rule that finds something decides:

    1. an id after a keyword: ``"action 12"``, ``"id: 12"``, ``"I choose 12"``;
    2. an id at the start: ``"12"``, ``"12: Play Seer (Spring)"``, ``"**12**"``;
    3. an action's name (case-insensitive; the longest name found wins, e.g.
       ``"Play Seer (Spring)"`` or ``"I will play seer (spring) now"``);
    4. exactly one legal id among the reply's numbers.

    Args:
        reply: the model's text. names: legal action id -> its name (``action_to_string``).

    Returns:
        ``(id, "")`` for a usable reply, ``(None, reason)`` otherwise (the reason says what was
        wrong: no id or name found, an id that is not legal, several actions named).
    """
    text = reply.strip() if isinstance(reply, str) else ""
    if not text:
        return None, "the reply is empty"
    for pattern in (_KEYWORD_ID, _LEADING_ID):
        m = pattern.search(text)
        if m:
            a = int(m.group(1))
            if a in names:
                return a, ""
            return None, f"{a} is not the id of a legal action"
    low = text.lower()
    found = [(len(n), a) for a, n in names.items() if n.lower() in low]
    if found:
        longest = max(k for k, _ in found)
        best = sorted({a for k, a in found if k == longest})
        if len(best) == 1:
            return best[0], ""
        return None, f"the reply names several actions ({', '.join(map(str, best))})"
    numbers = {int(x) for x in _NUMBER.findall(text)}
    legal = sorted(numbers & set(names))
    if len(legal) == 1:
        return legal[0], ""
    if legal:
        return None, f"the reply holds several legal ids ({', '.join(map(str, legal))})"
    if numbers:
        return None, f"none of the numbers {sorted(numbers)} is the id of a legal action"
    return None, "the reply names no action id and no action name"


class LanguageModelAgent(SeatBound):
    """Plays through ``ask(prompt) -> reply`` (a language model or anything else).

    Args:
        ask: callable taking the prompt (str) and returning the reply (str). Its exceptions
            propagate (a network error is the caller's to handle).
        max_retries: how many times an unusable reply is asked again (with the reason), so at
            most ``1 + max_retries`` calls per decision; an int >= 0. Default 3.
        fallback: what is played after the last unusable reply: ``"random"`` (a uniformly random
            legal action, from the agent's own generator) or ``"first"`` (the lowest legal id).
        instructions: the first paragraph of every prompt (default :data:`DEFAULT_INSTRUCTIONS`).
        seed: seed of the generator of the random fallback.
        name: label in evaluation tables.

    After each :meth:`act`, ``last_replies`` holds the replies of that decision and
    ``last_fell_back`` whether the fallback was taken; ``fallbacks`` counts the fallbacks since
    the last :meth:`reset`. Those, and the seat's log of the game behind a text built from the
    live state (:meth:`text_from_state`), are one seat's record of the game (and ``ask`` may
    hold a conversation), so the agent is one instance per seat and game
    (:class:`agents.base.SeatBound`): after construction or :meth:`reset` it binds to the first
    agent it acts for and refuses any other until reset.

    Raises:
        TypeError: ``ask`` is not callable. ValueError: bad ``max_retries`` or ``fallback``.
    """

    #: runners that know the live game pass it as ``act(..., state=state)``
    needs_state = True

    def __init__(self, ask: Callable[[str], str], max_retries: int = 3,
                 fallback: str = "random", instructions: str = DEFAULT_INSTRUCTIONS,
                 seed: int | None = None, name: str = "llm") -> None:
        if not callable(ask):
            raise TypeError(f"ask must be a callable prompt -> reply, got {type(ask).__name__}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, (int, np.integer)) \
                or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {FALLBACKS}, got {fallback!r}")
        self.ask = ask
        self.max_retries = int(max_retries)
        self.fallback = fallback
        self.instructions = instructions
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.last_replies: list[str] = []
        self.last_fell_back = False
        self.fallbacks = 0
        # the seat's log of this game and its copy of the game as it was at its last decision
        # (None before its first text built from the state)
        self._logs: SeatLogs | None = None
        self._game: Any = None

    def __copy__(self) -> LanguageModelAgent:
        """A copy that acts exactly as this agent would from here on and apart from it: the
        fallback's generator and the last replies copied, the model (``ask``, the caller's
        client) shared. ``copy.deepcopy`` and pickling copy ``ask`` too (CONVENTIONS.md,
        "Agents": an agent is one instance per seat)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.rng = copy.deepcopy(self.rng)
        new.last_replies = list(self.last_replies)
        new._logs = copy.deepcopy(self._logs)
        new._game = None if self._game is None else self._game.clone()
        return new

    def reset(self) -> None:
        """Start a new game: the fallback count restarts, any agent may be played and the
        seat's log of the game (:meth:`text_from_state`) starts afresh."""
        self.unbind_seat()
        self.fallbacks = 0
        self.last_replies = []
        self.last_fell_back = False
        self._logs = None
        self._game = None

    def text_from_state(self, state: Any, seat: int) -> str:
        """The text observation of ``seat`` built from the live ``state``, with what happened
        since the seat's last decision: the text the env's ``text_observation=True`` feed gives
        at this point (:class:`envs.core.text.SeatLogs` over every action of the game).

        The actions taken since the previous call of this game (``state.history``) are replayed
        on the agent's copy of the game as it was then, each told to the seat before it is
        applied (:meth:`SeatLogs.note`) and the rules-played seats' words after it
        (:meth:`SeatLogs.catch_up`); on the first call after construction or :meth:`reset`,
        from the game's set-up (its chance drawn from ``state.seed`` as the live game drew it,
        else the live game's logged chance outcomes). Calling it again at the same point gives
        the same text.

        Args:
            state: the live game (:class:`envs.core.GameState`), the same game as the previous
                calls since the last reset, at the same point or later.
            seat: the seat of this agent.

        Returns:
            str: :func:`envs.core.text.text_observation` of ``seat`` with its pending lines.
        Raises:
            ValueError: ``seat`` is not a seat of the game, or not the seat this agent plays in
                this game (:class:`agents.base.SeatBound`); ``state`` is not the game of the
                previous calls (another game or an earlier point: call reset() between games),
                or its history cannot be replayed from its set-up.
        """
        seat = state.check_seat(seat)
        self.bind_seat(agent_name(seat))
        if self._game is None:
            self._logs = self._replay_from_setup(state, seat)
            self._game = state.clone()
        else:
            past = self._game
            if type(state) is not type(past) or state.seed != past.seed \
                    or state.config != past.config \
                    or state.history[:len(past.history)] != past.history:
                raise ValueError(f"{self.name}: this {state.game_name} state is not a later point "
                                 f"of the game it has been playing (seat {seat}, "
                                 f"{len(past.history)} actions): call reset() between games")
            self._replay(self._logs, past, state)
        return self._logs.text(state, seat)

    @staticmethod
    def _replay(logs: SeatLogs, game: Any, state: Any) -> None:
        """Apply to ``game`` (an earlier point of ``state``'s game) the actions ``state`` took
        since, telling each to ``logs`` as the env does."""
        for action in state.history[len(game.history):]:
            logs.note(game, action)
            game.apply_action(action)
            logs.catch_up(game)

    @staticmethod
    def _replay_from_setup(state: Any, seat: int) -> SeatLogs:
        """``seat``'s log of ``state``'s game, its actions replayed from the set-up: first with
        the chance drawn from ``state.seed`` (the live game's own draws, so that the words of an
        action hidden from the seat, which try the action on a copy, are the env's), else, for
        a game whose chance is not its seed's (a resampled world), with its logged outcomes.

        Raises:
            ValueError: the history cannot be replayed either way.
        """
        base = {"game": state.game_name, "config": dict(state.config), "seed": state.seed,
                "actions": []}
        chance = {"chance": [list(e) for e in state.chance_log]}
        for record in (base, {**base, **chance}):
            logs = SeatLogs(state.num_players, [seat])
            try:
                game = next(type(state).replay_steps(record))
                LanguageModelAgent._replay(logs, game, state)
            except (IllegalActionError, RecordError):
                continue
            if game.chance_log == state.chance_log:
                return logs
        raise ValueError(f"the {state.game_name} game's {len(state.history)} actions cannot be "
                         f"replayed from its set-up (seed {state.seed}) to word them for seat "
                         f"{seat}")

    def build_prompt(self, text: str) -> str:
        """The first prompt of a decision: the instructions, then the seat's text view."""
        return f"{self.instructions}\n\n{text}\n"

    def act(self, observation: dict[str, np.ndarray], agent: str, state: Any = None,
            text: str | None = None) -> int:
        """Choose a legal action for ``agent`` by asking the model.

        Args:
            observation: the PettingZoo observation dict (its ``action_mask`` says what is legal).
            agent: ``player_<seat>``.
            state: the live game state (used for the text, :meth:`text_from_state`, when no
                ``text`` is given, and for the legal actions' names).
            text: the seat's text observation (``infos[agent]["text"]``); preferred over
                ``state``.

        Returns:
            int: a legal action id (the model's choice, or the fallback).
        Raises:
            ValueError: neither ``text`` nor ``state`` given, no legal action in the mask,
                ``agent`` is not the agent it acts for in this game, or (text from the state)
                ``state`` is not the game it has been playing (:meth:`text_from_state`).
        """
        self.bind_seat(agent)
        legal = legal_ids(observation)
        if text is None:
            if state is None:
                raise ValueError("LanguageModelAgent needs the seat's text view: pass "
                                 "text=infos[agent]['text'] (env made with text_observation=True)"
                                 " or state=<GameState>")
            text = self.text_from_state(state, seat_of(agent))
        names = self._names(text, legal, state)
        prompt = self.build_prompt(text)
        self.last_replies = []
        self.last_fell_back = False
        for attempt in range(1 + self.max_retries):
            reply = self.ask(prompt)
            self.last_replies.append(reply)
            choice, reason = parse_choice(reply, names)
            if choice is not None:
                return choice
            prompt = (f"{self.build_prompt(text)}\nYour previous reply was {reply!r}. It could "
                      f"not be used: {reason}. Reply with the id of one legal action.\n")
        self.last_fell_back = True
        self.fallbacks += 1
        if self.fallback == "first":
            return int(legal[0])
        return int(self.rng.choice(legal))

    @staticmethod
    def _names(text: str, legal: np.ndarray, state: Any) -> dict[int, str]:
        """Legal id -> action name: from the state, else from the text's action lines."""
        if state is not None:
            return {int(a): state.action_to_string(int(a)) for a in legal}
        _, _, actions = text.partition(LEGAL_HEADER)
        listed = {int(m.group(1)): m.group(2).strip() for m in _ACTION_LINE.finditer(actions)}
        return {int(a): listed.get(int(a), f"action {int(a)}") for a in legal}
