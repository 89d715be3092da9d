"""Text views of a game for one seat: for people at the terminal and for language-model agents.

Everything here is generic over :class:`~envs.core.state.GameState`; it reads a game only
through ``render_text(seat)``, ``legal_actions``, ``action_to_string``, ``clone``,
``apply_action``, ``observation_tensor(seat)`` and ``hidden_truth``, so a new game gets its text
view for free (plus, optionally, a :data:`PRIVATE_ACTIONS` hook).

What one seat sees (the *text observation*, :func:`text_observation`) is, in this order and with
this stable wording::

    == <game> · you are seat <s> (<name of s>) ==
    Since your last decision:             (only when something happened)
      - <name of q>: <action text>         (or what a seat the rules play did, rules_words)
    <state.render_text(s)>                 (the seat's own view, never another seat's secrets)
    Your legal actions (id: name):         (only when the seat is to act)
      <id>: <action_to_string(id)>
    Reply with one action id.              (only when the seat is to act)
    Game over. Your return: <r>            (only at the end)

Another seat's action is told to a seat in the rulebook words of ``action_to_string`` unless
they would tell it something it cannot know (:func:`action_text_for`): an action is *private to
the viewer* when the game's own hook (:data:`PRIVATE_ACTIONS`) says so (e.g. a Prowl clan card
placed face-down) or when another legal action with different words would have left the
viewer's observation tensor exactly the same but the hidden truth (``hidden_truth()``) different:
the words would then tell the viewer a secret it cannot see. A private action is shown in the
hook's words (e.g. ``"chose a clan card (face-down)"``) or as :data:`HIDDEN_ACTION_TEXT`.
(Choices that change no secret, such as whom a Seer peeks at, are told even when the
observation does not record them.)
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .state import GameState

#: the line before the legal actions in a text observation
LEGAL_HEADER = "Your legal actions (id: name):"

#: what a seat is told of another seat's action it cannot see
HIDDEN_ACTION_TEXT = "made a choice you cannot see"


def _prowl_private(state: GameState, action: int, viewer: int) -> str | None:
    """Prowl: choosing a clan card at set-up and a Change place a card face-down (rulebook
    "Set-up" and "Change"): the card is the chooser's secret."""
    block, _ = state._decode(int(action))  # type: ignore[attr-defined]
    if block == "setup":
        return "chose a clan card (face-down)"
    if block == "change":
        return "Change: discarded the clan card, placed a new one face-down"
    return None


def _badland_wolves_private(state: GameState, action: int, viewer: int) -> str | None:
    """Badland Wolves: the Lead Wolf deals the privately viewed Scrap cards into the shares
    (rulebook "Hunting example"): only the receiving hunter learns the card."""
    group, target, _ = state.ids.decode(int(action))  # type: ignore[attr-defined]
    if group == "GIVE" and target != viewer:
        return f"give a Scrap card to hunter {target}"
    return None


def _clandestine_private(state: GameState, action: int, viewer: int) -> str | None:
    """Clandestine: a Prime puts a Secret face down by a space; the others see only the space
    (design §1.5 "Actions"; rulebook, Serpent Keepers: primed Secrets stay face down)."""
    if state.is_prime_pick(action):  # type: ignore[attr-defined]
        return "primed a Secret (face-down)"
    return None


#: game name -> ``hook(state, action, viewer) -> str | None``: the words ``viewer`` is told when
#: ``action``, about to be taken by ``state.current_player``, is hidden from it by the rules
#: whatever the observation says; ``None`` leaves it to the observation test (module
#: docstring). Games without an entry rely on the observation test alone.
PRIVATE_ACTIONS: dict[str, Callable[[GameState, int, int], str | None]] = {
    "prowl": _prowl_private,
    "badland_wolves": _badland_wolves_private,
    "clandestine": _clandestine_private,
}


#: game name -> how its text render names a seat (default ``P<seat>``, as Prowl's render)
SEAT_NAMES: dict[str, str] = {"badland_wolves": "wolf {}", "clans": "seat {}"}


def seat_label(seat: int, game: str = "") -> str:
    """How the text views of ``game`` name a seat, as the game's own render does (``P2``,
    ``wolf 2``, ``seat 2``)."""
    return SEAT_NAMES.get(game, "P{}").format(seat)


def rules_seats_note(state: GameState) -> str:
    """``" (seat 1 is played by the rules)"`` naming the seats of ``state`` no agent plays (a
    Clandestine Nemesis, counted by ``state.num_players``), or ``""`` when agents play all."""
    rules = state.rules_seats
    if not rules:
        return ""
    return (f" (seat{'' if len(rules) == 1 else 's'} {', '.join(str(q) for q in rules)} "
            f"{'is' if len(rules) == 1 else 'are'} played by the rules)")


def private_text(state: GameState, action: int, viewer: int) -> str | None:
    """What ``viewer`` is told instead, when it may not know which action is taken; else None.

    ``action`` is about to be taken in ``state`` (not yet applied). The actor's own actions are
    never private to it. Otherwise private when the game's :data:`PRIVATE_ACTIONS` hook says so,
    or when some other legal action whose ``action_to_string`` differs leaves ``viewer``'s
    observation tensor identical but ``hidden_truth()`` different (compared on clones, which
    share the generator state, so the same chance outcomes follow). The hooks cover what the
    comparison cannot see, e.g. a face-down card chosen when it is the only legal choice.

    Raises:
        ValueError: ``viewer`` is not a seat; IllegalActionError: ``action`` is not legal.
    """
    viewer = state.check_seat(viewer)
    actor = state.current_player
    if actor == viewer:
        return None
    hook = PRIVATE_ACTIONS.get(state.game_name)
    words = None if hook is None else hook(state, action, viewer)
    if words is not None:
        return words
    text = state.action_to_string(action)
    after = state.probe_clone()
    after.apply_action(action)
    seen = after.observation_tensor(viewer)
    truth = after.hidden_truth()
    for other in state.legal_actions():
        if other == action or state.action_to_string(other) == text:
            continue
        alt = state.probe_clone()
        alt.apply_action(other)
        if np.array_equal(alt.observation_tensor(viewer), seen) and alt.hidden_truth() != truth:
            return HIDDEN_ACTION_TEXT
    return None


def action_text_for(state: GameState, action: int, viewer: int | None) -> str:
    """The words ``viewer`` is told for ``action``, about to be taken in ``state``.

    ``action_to_string(action)`` when ``viewer`` is ``None`` (full truth), the actor, or may see
    it; otherwise the words of :func:`private_text` (the game hook's, or
    :data:`HIDDEN_ACTION_TEXT`).
    """
    words = None if viewer is None else private_text(state, action, viewer)
    return state.action_to_string(action) if words is None else words


def legal_action_lines(state: GameState) -> list[tuple[int, str]]:
    """``(id, action_to_string(id))`` for every legal action of the seat to act, by id."""
    return [(a, state.action_to_string(a)) for a in state.legal_actions()]


def text_observation(state: GameState, seat: int, events: Sequence[str] = ()) -> str:
    """The text observation of ``seat`` (format in the module docstring).

    Args:
        state: the game. seat: the viewing seat.
        events: lines already worded for ``seat`` (e.g. ``"P2: Play Seer (Spring)"``; seats are
            named as the game's render names them, :func:`seat_label`), what the
            other seats did since ``seat``'s last decision (:class:`SeatLogs` keeps them).

    Returns:
        str: several lines; the legal actions are listed only when ``seat`` is to act.
    Raises:
        ValueError: ``seat`` is not a seat of the game.
    """
    seat = state.check_seat(seat)
    name = state.game_name or type(state).__name__
    lines = [f"== {name} · you are seat {seat} ({seat_label(seat, state.game_name)}) =="]
    if events:
        lines.append("Since your last decision:")
        lines += [f"  - {e}" for e in events]
    lines.append(state.render_text(seat))
    if state.is_over:
        ret = float(state.returns()[seat]) if state.is_terminal else 0.0
        end = "Game over" if state.is_terminal else "Game cut off (truncated, no winner)"
        lines.append(f"{end}. Your return: {ret:+g}")
    elif state.current_player == seat:
        lines.append(LEGAL_HEADER)
        lines += [f"  {a}: {t}" for a, t in legal_action_lines(state)]
        lines.append("Reply with one action id.")
    return "\n".join(lines)


class SeatLogs:
    """What each seat was told since its last decision, worded for that seat.

    Call :meth:`note` with the state *before* every action; the actor's own log is cleared (it
    has just decided) and every other seat gets a line ``"<actor's name>: <words>"`` worded by
    :func:`action_text_for`. What seats played by the rules did because of an action
    (``state.rules_words()``, e.g. a Clandestine Nemesis's turn) is told to every other seat
    after that action's line: :meth:`note`, :meth:`pending` and :meth:`text` pick it up once
    per action (the state's history length marks what was picked up).

    Args:
        num_players: number of seats.
        seats: the seats whose logs are kept (default all); the others stay empty, which saves
            the wording work (e.g. only the person's seat at the terminal).
    """

    def __init__(self, num_players: int, seats: Sequence[int] | None = None) -> None:
        self.events: list[list[str]] = [[] for _ in range(num_players)]
        self.seats = list(range(num_players)) if seats is None else [int(s) for s in seats]
        self._rules_step: int | None = None  # history length whose rules words were taken

    def reset(self) -> None:
        """Forget everything (a new game)."""
        for e in self.events:
            e.clear()
        self._rules_step = None

    def catch_up(self, state: GameState) -> None:
        """Tell the kept seats ``state.rules_words()`` (what the seats the rules play did after
        the last action), once per action: ``"<seat's name>: <words>"`` to every seat but the
        one that played."""
        step = len(state.history)
        if step == self._rules_step:
            return
        self._rules_step = step
        for seat, words in state.rules_words():
            line = f"{seat_label(seat, state.game_name)}: {words}"
            for v in self.seats:
                if v != seat:
                    self.events[v].append(line)

    def pending(self, state: GameState, seat: int) -> list[str]:
        """The lines ``seat`` is told since its last decision (after :meth:`catch_up`)."""
        self.catch_up(state)
        return self.events[seat]

    def note(self, state: GameState, action: int) -> None:
        """Record ``action``, about to be taken by ``state.current_player`` in ``state``.

        An action the state will refuse (not an integer id, out of range, illegal, or the game
        over) is not recorded: ``apply_action`` raises for it right after.
        """
        actor = state.current_player
        if actor is None or isinstance(action, (bool, np.bool_)) \
                or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < state.num_actions or not state.legal_action_mask()[action]:
            return
        action = int(action)
        self.catch_up(state)
        self.events[actor].clear()
        for v in self.seats:
            if v != actor:
                self.events[v].append(f"{seat_label(actor, state.game_name)}: "
                                      f"{action_text_for(state, action, v)}")

    def text(self, state: GameState, seat: int) -> str:
        """:func:`text_observation` of ``seat`` with its pending events (:meth:`pending`)."""
        return text_observation(state, seat, self.pending(state, seat))
