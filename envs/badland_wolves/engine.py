"""Badland Wolves rules engine (rulebook ``rules/badland_wolves.txt`` + rulings 1-12).

Seats ``0..n-1`` are the wolves; wolf ``c`` owns the five Loyalty tokens of colour ``c``.
``tokens[h, c]`` is how many colour-``c`` tokens wolf ``h`` holds; ``h`` holds ``c``'s Allegiance
when ``tokens[h, c] >= 3`` and ``h != c`` (ruling 2). A risked token stays in its hunter's
holdings and is only marked as risked (``risked[h]`` = its colour); Crow and Fox move it between
holdings at once, which is the same as moving it in front of another hunter and returning it at
the end of the Hunt (ruling 5).

Every decision is one Discrete action made by :attr:`current_player` (the Lead Wolf, a joining
wolf, a defender, a Guardian, a hunter discarding for the Porcupine...). Decisions that leave
exactly one possibility *on public facts* are resolved by the engine: a Lead Wolf with no token
risks none, wolves with no token are not asked to join, a Loyalty take from a wolf holding one
colour only takes that colour, a Jackalope cannot be kept with fewer than three Scrap cards, a
Crow's Ally on a wolf that may not be attacked ends the turn. A decision whose options depend on
hidden cards is always asked (CONVENTIONS.md "Engine"): a defender without a legal defence and a
Lead Wolf without an attack card after Crow's Ally get a mask holding only DECLINE.

Action ids (``P`` = num_players; see :func:`action_layout`):

| ids | name | meaning |
|---|---|---|
| 0 | HUNT | Lead Wolf leads a Hunt |
| 1 | FEATHER | play three Feathers: retrieve every own-colour Loyalty |
| 2 | ACCEPT | Guardian accepts / keep the Jackalope (discard 3) |
| 3 | DECLINE | the "no" of a decision: stay out, no defence, no Guardian call, |
|   |         | refuse to guard, no Crow swap, no Fox take, end the turn after |
|   |         | Crow's Ally, Jackalope: draw 2 instead |
| 4 .. 4+P-1 | ATTACK_TC[t] | Tooth & Claw attack on wolf t |
| .. +P | ATTACK_FRENZY[t] | Frenzy attack on wolf t |
| .. +P | CROWS_ALLY[t] | look at wolf t's hand |
| .. +3P | COLLECT[s, t] | set s (0 Antler, 1 Bone, 2 Skull) takes a Loyalty from wolf t |
| .. +P | COLOUR[c] | risk / join with / take a colour-c Loyalty token |
| .. +P | TARGET[t] | choose wolf t (share order, Weasel, Grizzly Bear, Crow, Fox, Guardian call) |
| .. +9P | GIVE[t, k] | deal one drawn Scrap card of type k into hunter t's share |
| .. +9 | DISCARD[k] | discard one Scrap card of type k |
| .. +7 | DEFEND[d] | defence d (cards.DEFENCES) |
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.random.bit_generator import ISeedSequence

from envs.core import ConfigError, GameState, Layout

from .cards import (
    ALLEGIANCE_AT, COUGAR, CROW, CROWS_ALLY, DEFENCE_NAMES, DEFENCE_NEEDS,
    DEFENCES, DEFENCES_VS, FEATHER, FRENZY, GRIZZLY, HUNT_COUNTS, HUNT_NAMES, JACKALOPE,
    NUM_HUNT, NUM_HUNT_TYPES, NUM_SCRAP, NUM_SCRAP_TYPES, PORCUPINE, RABBIT,
    RATTLESNAKE, RAVENOUS_DEFENCES, SCRAP_COUNTS, SCRAP_COUNTS_ARR, SCRAP_NAMES, SHARE_DRAW, TC,
    THORN_DEFENCES, TOKENS_PER_COLOUR, WEASEL, HUNT_COUNTS_ARR, ANTLER,
)

# ------------------------------------------------------------------------------------------------
# decision phases
TURN, RISK, JOIN, ORDER, DEAL, JACK, DISCARD, WEASEL_T, GRIZZLY_T, CROW1, CROW2, FOX_T, \
    CA_FOLLOW, GUARD_CALL, GUARD_ACCEPT, DEFEND, TAKE, DONE = range(18)
NUM_PHASES = 17  # DONE is not encoded
PHASE_NAMES = ("turn: Hunt or Scrap", "risk a Loyalty", "join the Hunt?", "order the shares",
               "deal the shares", "Jackalope: keep or redraw", "discard a Scrap card",
               "Weasel: choose a hunter", "Grizzly Bear: choose a hunter",
               "Crow: first hunter or no swap", "Crow: second hunter", "Fox: take a token?",
               "Crow's Ally: attack or end turn", "call a Guardian Wolf?", "accept guarding?",
               "defend", "take a Loyalty", "game over")
# discard reasons
D_RATTLE, D_PORCUPINE, D_JACKALOPE = range(3)

# card_log codes (engine truth, hidden details included; read by the resampler)
C_DRAW, C_SDRAW, C_SRESH, C_PLAY, C_STEAL, C_LOOK, C_GIVE, C_KEEP, C_HDRAW, C_HRESH, C_JINS = \
    range(11)

# columns of since_unseen: cards received from the Scrap deck, lost to a third wolf's steal (types
# unseen by the observing seat; cards stolen from a third wolf: since_stolen)
U_DECK, U_LOST = range(2)

# public events (:meth:`BadlandWolvesState.public_history`)
EV_TURN, EV_ACTION, EV_GIVE, EV_DRAW, EV_DRAW_SHARE, EV_KEEP_SHARE, EV_SCRAP_RESHUFFLE, \
    EV_HUNT_CARD, EV_HUNT_RESHUFFLE, EV_JACKALOPE_BACK, EV_FACE_UP, EV_STEAL, EV_END = range(13)
#: vocabulary of :meth:`BadlandWolvesState.public_history`: kind id -> (name, argument meanings).
#: Seats are absolute; card types index ``cards.SCRAP_NAMES`` / ``cards.HUNT_NAMES``.
PUBLIC_EVENTS: dict[int, tuple[str, str]] = {
    EV_TURN: ("turn", "lead: a Lead-Wolf turn starts (a Cougar's extra turn included)"),
    EV_ACTION: ("action", ("seat, action id: a decision and its answer (every decision except "
                           "the card type of a share deal)")),
    EV_GIVE: ("give", "lead, hunter: the Lead Wolf deals one drawn card into hunter's share"),
    EV_DRAW: ("draw", ("wolf, count: Scrap cards drawn into wolf's hand (set-up, Rabbit, "
                       "Cougar, Jackalope)")),
    EV_DRAW_SHARE: ("draw_share", "lead, count: Scrap cards drawn to share (Deer, Ram, Bison)"),
    EV_KEEP_SHARE: ("keep_share", "lead, count: the Lead Wolf keeps the undealt drawn cards"),
    EV_SCRAP_RESHUFFLE: ("scrap_reshuffle", "cards: the Scrap discards become the deck"),
    EV_HUNT_CARD: ("hunt_card", "type: the Hunt card drawn"),
    EV_HUNT_RESHUFFLE: ("hunt_reshuffle", "cards: the Hunt discards become the Hunt deck"),
    EV_JACKALOPE_BACK: ("jackalope_back", "lead: the Jackalope is shuffled back into the deck"),
    EV_FACE_UP: ("face_up", ("wolf, type, count: Scrap cards played or discarded face up "
                             "(attacks, defences, sets, Hunt discards, Grizzly Bear)")),
    EV_STEAL: ("steal", "thief, victim: a random Scrap card changes hands (type private to both)"),
    EV_END: ("end", "winner (-1: truncated)"),
}

REWARDS = ("win_loss", "win_only")
ALLOWED_PLAYERS = (3, 4, 5)
#: :meth:`BadlandWolvesState.provisional_returns`: each Loyalty token a wolf still lacks for a
#: win divides its odds of winning by this factor
PROVISIONAL_ODDS = 2.0
#: ``provisional_returns("hands")``: each Scrap card in a wolf's hand counts as this many
#: Loyalty tokens off its win deficit (a searcher's leaf evaluation that sees what a Hunt is
#: worth; not a rule)
HAND_TOKEN_VALUE = 0.25


class ActionIds:
    """Offsets of the action groups for ``P`` players (see the module docstring's table)."""

    def __init__(self, P: int) -> None:
        self.P = P
        self.HUNT, self.FEATHER, self.ACCEPT, self.DECLINE = 0, 1, 2, 3
        o = 4
        self.ATTACK_TC = o; o += P
        self.ATTACK_FR = o; o += P
        self.CROWS_ALLY = o; o += P
        self.COLLECT = o; o += 3 * P
        self.COLOUR = o; o += P
        self.TARGET = o; o += P
        self.GIVE = o; o += NUM_SCRAP_TYPES * P
        self.DISCARD = o; o += NUM_SCRAP_TYPES
        self.DEFEND = o; o += len(DEFENCES)
        self.size = o

    def decode(self, a: int) -> tuple[str, int, int]:
        """``(group, i, j)`` of action id ``a`` (j only for COLLECT and GIVE)."""
        P = self.P
        if a < 4:
            return (("HUNT", "FEATHER", "ACCEPT", "DECLINE")[a], -1, -1)
        for name, start, size in (("ATTACK_TC", self.ATTACK_TC, P),
                                  ("ATTACK_FR", self.ATTACK_FR, P),
                                  ("CROWS_ALLY", self.CROWS_ALLY, P),
                                  ("COLLECT", self.COLLECT, 3 * P), ("COLOUR", self.COLOUR, P),
                                  ("TARGET", self.TARGET, P),
                                  ("GIVE", self.GIVE, NUM_SCRAP_TYPES * P),
                                  ("DISCARD", self.DISCARD, NUM_SCRAP_TYPES),
                                  ("DEFEND", self.DEFEND, len(DEFENCES))):
            if start <= a < start + size:
                r = a - start
                if name == "COLLECT":
                    return name, r // P, r % P
                if name == "GIVE":
                    return name, r // NUM_SCRAP_TYPES, r % NUM_SCRAP_TYPES
                return name, r, -1
        raise ValueError(f"action {a} is outside 0..{self.size - 1}")


@lru_cache(maxsize=None)
def action_layout(P: int) -> ActionIds:
    """The (cached) :class:`ActionIds` of a ``P``-player game."""
    return ActionIds(P)


@lru_cache(maxsize=None)
def observation_layout(P: int) -> Layout:
    """The observation :class:`Layout` of a ``P``-player game (all entries in [0, 1]).

    Seats are absolute (row/column ``p`` = wolf ``p``); ``seat`` tells the observer who it is.
    Counts are divided by their largest possible value (copies of the card type, 5 tokens of a
    colour, 60 Scrap cards, ...), so nothing is clipped; counts with no fixed bound are c/(c+1).

    What a seat knows of another wolf's hand is ``known`` (lower bounds) and the hand it last
    knew in full (``last_seen``: its last Crow's Ally look, or empty) with the changes since as
    far as it saw them (``since_gain``, ``since_loss``, ``since_unseen``, ``since_stolen``; their
    sum is the public hand size). Left out (docs/badland_wolves.md, "Perfect recall"): the order
    of the events since (a face-up play before or after an unseen draw or steal), which unseen
    card a steal took, where a card stolen from a third wolf sits in the victim's history when
    the counts leave it open, and which Scrap pile an unseen drawn card came from.
    """
    L = Layout()
    L.add("seat", P, "one-hot: the observing seat")
    L.add("lead", P, "one-hot: the Lead Wolf (whose turn it is)")
    L.add("actor", P, "one-hot: the seat whose decision is due")
    L.add("phase", NUM_PHASES, "one-hot decision type: " + "; ".join(
        f"{i} {n}" for i, n in enumerate(PHASE_NAMES[:NUM_PHASES])))
    L.add("turn", 1, "Lead-Wolf turns played / max_turns")
    L.add("attacker", P, "one-hot: attacker of the pending attack")
    L.add("defender", P,
          "one-hot: defender of the pending attack (the wolf who may call a Guardian)")
    L.add("guardian", P, "one-hot: Guardian Wolf (called, or accepted and defending)")
    L.add("strength", 2, "one-hot attack strength: Tooth & Claw, Frenzy")
    L.add("hunt_card", NUM_HUNT_TYPES, "one-hot: Hunt card being resolved")
    L.add("hunters", P, "1 for each wolf in the current Hunt")
    L.add("risked", (P, P), "row hunter, one-hot colour of the token it risks")
    L.add("share_size", P, "size of each hunter's share / 5")
    L.add("share_left", P, "cards still to deal into each share / 5")
    L.add("drawn_total", 1, "Scrap cards drawn for sharing not yet dealt / 5")
    L.add("drawn", NUM_SCRAP_TYPES, "Lead Wolf only: types of the drawn cards not yet dealt / 5")
    L.add("discards_left", 1, "Scrap cards still to discard for the Jackalope / 3")
    L.add("victim", P, "one-hot: wolf losing a Loyalty in the pending take")
    L.add("crow_first", P, "one-hot: first hunter picked for the Crow swap")
    L.add("look_target", P, "one-hot: wolf looked at with Crow's Ally this turn")
    L.add("hand", NUM_SCRAP_TYPES, "own Scrap hand: count per type / copies of that type")
    L.add("known", (P, NUM_SCRAP_TYPES),
          "row wolf: cards this seat knows that wolf still holds (Crow's Ally looks, shares it "
          "dealt, cards stolen from it), per type / copies; own row 0")
    L.add("last_seen", (P, NUM_SCRAP_TYPES),
          "row wolf: its hand when this seat last knew it in full (its last Crow's Ally look at "
          "that wolf; empty at the start and whenever the hand was empty since), per type / "
          "copies; own row 0")
    L.add("since_gain", (P, NUM_SCRAP_TYPES),
          "row wolf: cards this seat saw it receive since then (shares this seat dealt it, cards "
          "it stole from this seat), per type, c/(c+1); own row 0")
    L.add("since_loss", (P, NUM_SCRAP_TYPES),
          "row wolf: cards this seat saw it lose since then (played or discarded face up, cards "
          "this seat stole from it), per type, c/(c+1); own row 0")
    L.add("since_unseen", (P, 2),
          "row wolf: cards of types this seat did not see since then: received from the Scrap "
          "deck (draws, shares another wolf dealt it, drawn cards it kept), and stolen from it by "
          "a third wolf; c/(c+1); own row 0")
    L.add("since_stolen", (P, P),
          "row thief, column victim (both other wolves): cards the thief stole from the victim "
          "since this seat last knew the thief's hand in full (types unseen), c/(c+1); own row "
          "0")
    L.add("tokens", (P, P), "row holder, column colour: Loyalty tokens held / 5")
    L.add("wild", P, "Wild Loyalties (caught Jackalopes) per wolf / 2")
    L.add("allegiance", (P, P), "row holder, column wolf: 1 if holder holds that wolf's Allegiance")
    L.add("hand_sizes", P, "Scrap hand size per wolf / 60")
    L.add("deck_sizes", 2, "Scrap deck / 60, Hunt deck / 55")
    L.add("scrap_discard", NUM_SCRAP_TYPES, "Scrap discard pile per type / copies")
    L.add("hunt_discard", NUM_HUNT_TYPES, "Hunt discard pile per type / copies")
    L.add("played_now", (P, NUM_SCRAP_TYPES),
          "row wolf: Scrap cards played or discarded during the current turn / copies")
    L.add("played_prev", (P, NUM_SCRAP_TYPES),
          "row wolf: Scrap cards played or discarded during the previous turn / copies")
    L.add("prev_hunt", NUM_HUNT_TYPES, "one-hot: Hunt card of the previous turn (if it hunted)")
    L.add("risked_prev", (P, P), "row wolf, one-hot colour of the Loyalty token it risked "
          "(put forward to lead or join the Hunt) in the previous turn; all zeros if it did not")
    L.add("played_total", (P, NUM_SCRAP_TYPES),
          "row wolf: Scrap cards it played or discarded face up in the whole game, c/(c+1)")
    L.add("steals", (P, P), "row thief, column victim: random Scrap cards stolen in the whole "
          "game (Weasel, Ravenous, Guardian), c/(c+1)")
    L.add("looks", (P, P), "row looker, column wolf: Crow's Ally looks in the whole game, c/(c+1)")
    L.add("risked_total", (P, P), "row wolf, column colour: Loyalty tokens of that colour it "
          "risked (put forward to lead or join a Hunt) in the whole game, c/(c+1)")
    L.add("crow_swaps", (P, P), "row first hunter, column second hunter: Crow swaps of their "
          "risked tokens in the whole game, c/(c+1)")
    L.add("grizzly", (P, P), "row Lead Wolf, column wolf: whole hands discarded to that Lead "
          "Wolf's Grizzly Bear in the whole game (the diagonal: hunting alone), c/(c+1)")
    L.add("deck_source", NUM_SCRAP_TYPES, "Scrap cards the current Scrap deck was shuffled from "
          "(all 60 until the first reshuffle, then the discards at the last reshuffle) / copies")
    L.add("from_deck", P, "Scrap cards each wolf drew from the current Scrap deck since it was "
          "shuffled (cards drawn to share count for the Lead Wolf who drew them) / 60")
    return L


class BadlandWolvesState(GameState):
    """A Badland Wolves game (rulebook + design rulings 1-12).

    Args:
        seed: engine seed (``None``: drawn from the OS).
        num_players: 3, 4 or 5 wolves (ruling 1; default 4); an int or numpy integer (floats
            and bools are refused).
        max_turns: positive int (or numpy integer), Lead-Wolf turns before truncation (ruling
            10; default 300).
        reward: ``"win_loss"`` (default, ruling 11: +1 winner, -1 others) or ``"win_only"``
            (+1 winner, 0 others); 0 to all when truncated either way.

    Raises:
        ConfigError: a keyword outside its allowed values (message names it).

    Attributes (engine truth): ``hands`` int64 (n, 9) Scrap counts; ``tokens`` int64 (n, n)
    holder × colour; ``wild`` int64 (n,); ``scrap_deck`` / ``hunt_deck`` lists of types (top =
    last); ``scrap_discard`` int64 (9,), ``hunt_discard`` int64 (12,); ``known`` int64 (n, n, 9)
    lower bounds ``known[s, p, k]`` of what seat ``s`` knows wolf ``p`` holds; ``last_seen``
    int64 (n, n, 9) wolf ``p``'s hand when seat ``s`` last knew it in full, and since then
    ``since_gain`` / ``since_loss`` int64 (n, n, 9) the cards ``s`` saw ``p`` receive / lose,
    ``since_unseen`` int64 (n, n, 2) the cards ``p`` received from the deck and lost to a third
    wolf's steal, and ``since_stolen`` int64 (n, n, n) ``[s, p, q]`` the cards ``p`` stole from a
    third wolf ``q``, types unseen by ``s``.
    """

    game_name = "badland_wolves"
    #: the ``kind`` values :meth:`provisional_returns` takes (besides ``None``)
    PROVISIONAL_KINDS = (*REWARDS, "hands")

    def __init__(self, *, seed: int | None = None, num_players: int = 4, max_turns: int = 300,
                 reward: str = "win_loss") -> None:
        if isinstance(num_players, (bool, np.bool_)) \
                or not isinstance(num_players, (int, np.integer)) \
                or num_players not in ALLOWED_PLAYERS:
            raise ConfigError(f"num_players must be one of {ALLOWED_PLAYERS}, got {num_players!r}")
        if isinstance(max_turns, (bool, np.bool_)) \
                or not isinstance(max_turns, (int, np.integer)) or max_turns < 1:
            raise ConfigError(f"max_turns must be a positive integer, got {max_turns!r}")
        if not isinstance(reward, str) or reward not in REWARDS:
            raise ConfigError(f"reward must be one of {REWARDS}, got {reward!r}")
        super().__init__(seed=seed, config={"num_players": int(num_players),
                                            "max_turns": int(max_turns), "reward": reward})
        n = self._n = int(num_players)
        self.max_turns = int(max_turns)
        self.reward = reward
        self.ids = action_layout(n)
        self.layout = observation_layout(n)
        scrap = np.repeat(np.arange(NUM_SCRAP_TYPES), SCRAP_COUNTS)
        self.scrap_deck: list[int] = scrap[self.chance_permutation("scrap_deck", NUM_SCRAP)].tolist()
        hunt = np.repeat(np.arange(NUM_HUNT_TYPES), HUNT_COUNTS)
        self.hunt_deck: list[int] = hunt[self.chance_permutation("hunt_deck", NUM_HUNT)].tolist()
        self.scrap_discard = np.zeros(NUM_SCRAP_TYPES, dtype=np.int64)
        self.hunt_discard = np.zeros(NUM_HUNT_TYPES, dtype=np.int64)
        #: every card movement with its hidden details, in order (for the resampler; not public)
        self.card_log: list[tuple[int, ...]] = []
        #: every public event, in order (:meth:`public_history`, vocabulary ``PUBLIC_EVENTS``)
        self.pub_log: list[tuple[int, ...]] = []
        # perfect-recall summaries (observation fields played_total, steals, looks,
        # risked_total, crow_swaps, grizzly, deck_source, from_deck): whole-game counts of
        # public events
        self.played_total = np.zeros((n, NUM_SCRAP_TYPES), dtype=np.int64)
        self.steals = np.zeros((n, n), dtype=np.int64)
        self.looks = np.zeros((n, n), dtype=np.int64)
        self.risked_total = np.zeros((n, n), dtype=np.int64)
        self.crow_swaps = np.zeros((n, n), dtype=np.int64)
        self.grizzly = np.zeros((n, n), dtype=np.int64)
        # colour each wolf put forward to lead or join the Hunt of the current / previous turn
        # (-1: none), as risked, before any Crow or Fox change (observation field risked_prev)
        self.turn_risked = [-1] * n
        self.prev_risked = [-1] * n
        self.deck_source = SCRAP_COUNTS_ARR.copy()
        self.from_deck = np.zeros(num_players, dtype=np.int64)
        self.hands = np.zeros((n, NUM_SCRAP_TYPES), dtype=np.int64)
        self.tokens = np.eye(n, dtype=np.int64) * TOKENS_PER_COLOUR
        self.wild = np.zeros(n, dtype=np.int64)
        self.known = np.zeros((n, n, NUM_SCRAP_TYPES), dtype=np.int64)
        # what seat s knows of wolf p's hand beyond lower bounds (observation fields last_seen,
        # since_gain, since_loss, since_unseen): the hand when s last knew it in full, then the
        # changes to it as far as s saw them
        self.last_seen = np.zeros((n, n, NUM_SCRAP_TYPES), dtype=np.int64)
        self.since_gain = np.zeros((n, n, NUM_SCRAP_TYPES), dtype=np.int64)
        self.since_loss = np.zeros((n, n, NUM_SCRAP_TYPES), dtype=np.int64)
        self.since_unseen = np.zeros((n, n, 2), dtype=np.int64)
        self.since_stolen = np.zeros((n, n, n), dtype=np.int64)
        self.played_now = np.zeros((n, NUM_SCRAP_TYPES), dtype=np.int64)
        self.played_prev = np.zeros((n, NUM_SCRAP_TYPES), dtype=np.int64)
        self.prev_hunt = -1       # Hunt card of the previous turn, -1 if it did not hunt
        self.turn_hunt = -1       # Hunt card of the current turn once resolved
        self.winner = -1
        self.truncated = False
        self.turns = 0
        self.extra_turn = False
        self.lead = self.chance_integer("start_player", n)  # ruling 1: random start player
        for i in range(n):                        # rulebook "Setup": two Scrap cards each
            p = (self.lead + i) % n
            self._give_drawn(p, 2)
        self._reset_turn_fields()
        self.played_prev[:] = 0
        self._mask: np.ndarray | None = None
        self._start_turn()

    # --------------------------------------------------------------------------------------
    # contract
    @property
    def num_players(self) -> int:
        return self._n

    @property
    def num_actions(self) -> int:
        return self.ids.size

    @property
    def observation_size(self) -> int:
        return self.layout.size

    @property
    def current_player(self) -> int | None:
        return None if self.phase == DONE else self.actor

    @property
    def is_terminal(self) -> bool:
        """True once a wolf holds two other wolves' Allegiance (rulebook "Winning", ruling 3)."""
        return self.winner >= 0

    @property
    def is_truncated(self) -> bool:
        """True once ``max_turns`` Lead-Wolf turns were played without a winner (ruling 10)."""
        return self.truncated

    @property
    def is_over(self) -> bool:
        """Terminal or truncated (:attr:`is_terminal` or :attr:`is_truncated`, read directly:
        searches ask this before every action)."""
        return self.winner >= 0 or self.truncated

    def returns(self) -> np.ndarray:
        """Float64 (n,): ruling 11 (+1 winner, -1 others; ``win_only``: 0 others); zeros else."""
        return self._returns_of(self.reward)

    def provisional_returns(self, kind: str | None = None) -> np.ndarray:
        """Float64 (n,): the returns the game would give if it were scored now.

        A game over gives :meth:`returns` under ``kind`` (a truncated one zeros). Otherwise
        each wolf ``p`` gets a win-probability-like share from its :meth:`win_deficit`
        ``d[p]`` (ruling 3: the tokens it still needs for two Allegiances, Wilds filling in):
        ``w[p] = PROVISIONAL_ODDS ** -d[p]`` and ``q[p] = w[p] / sum(w)`` (the shares sum to 1;
        all equal, 1/n, at the start), returned on the scale of ruling 11: ``"win_loss"``
        ``2 * q - 1`` (the expected return if ``q`` were each wolf's chance to win),
        ``"win_only"`` ``q``; ``None`` uses the configured ``reward``.

        It reads only public facts (tokens and Wild Loyalties, ruling 12), so it is the same
        on the real game and on any world drawn by :meth:`resample_from_infostate`; ISMCTS
        scores rollouts cut before the end with it.

        ``kind="hands"`` is the configured reward's scale (like ``None``: ``2q - 1`` under
        ``"win_loss"``, ``q`` under ``"win_only"``, so a cut rollout scores on the scale of a
        finished one) with each wolf's deficit lowered by :data:`HAND_TOKEN_VALUE` per Scrap
        card in its hand (``d[p] - 0.25 * cards[p]``), so a Hunt's cards count before they are
        turned into tokens. Hands are hidden: on a world drawn by
        :meth:`resample_from_infostate` it reads that world's hands (what ISMCTS's cut rollouts
        do), never the real game's. A game over gives :meth:`returns`.

        Raises:
            ValueError: ``kind`` is not ``None`` nor one of :attr:`PROVISIONAL_KINDS` (named).
        """
        hands = kind == "hands"
        if kind is not None and kind not in self.PROVISIONAL_KINDS:
            raise ValueError(f"provisional_returns kind must be one of "
                             f"{list(self.PROVISIONAL_KINDS)} or None, got {kind!r}")
        if kind is None or hands:
            kind = self.reward
        if self.phase == DONE:
            return self._returns_of(kind)
        rows, wild = self.tokens.tolist(), self.wild.tolist()
        d = np.array([_deficit(rows[p], p, wild[p]) for p in range(self._n)], dtype=np.float64)
        if hands:
            d -= HAND_TOKEN_VALUE * self.hands.sum(axis=1)
        w = PROVISIONAL_ODDS ** -(d - d.min())
        q = w / w.sum()
        return 2.0 * q - 1.0 if kind == "win_loss" else q

    def _returns_of(self, kind: str) -> np.ndarray:
        """Float64 (n,) returns under reward ``kind`` as the game stands: ruling 11 once a wolf
        won, zeros otherwise."""
        r = np.zeros(self._n)
        if self.winner >= 0:
            if kind == "win_loss":
                r[:] = -1.0
            r[self.winner] = 1.0
        return r

    # --------------------------------------------------------------------------------------
    # setup helpers
    def _reset_turn_fields(self) -> None:
        n = self._n
        self.phase = TURN
        self.actor = self.lead
        self.hunters: list[int] = []
        self.risked = [-1] * n
        self.join_next = 0
        self.hunt_card = -1
        self.drawn = np.zeros(NUM_SCRAP_TYPES, dtype=np.int64)
        self.share_size = [0] * n
        self.share_left = [0] * n
        self.order_pool: list[int] = []
        self.order_sizes: list[int] = []
        self.discard_queue: list[int] = []
        self.discard_reason = -1
        self.jack_left = 0
        self.crow_first = -1
        self.look_target = -1
        self.att = self.dfd = self.guard = self.guard_called = -1
        self.strength = 0
        self.takes: list[tuple[int, int]] = []

    def _start_turn(self) -> None:
        self.pub_log.append((EV_TURN, self.lead))
        self.prev_hunt, self.turn_hunt = self.turn_hunt, -1
        self.prev_risked, self.turn_risked = self.turn_risked, [-1] * self._n
        self.played_prev = self.played_now
        self.played_now = np.zeros((self._n, NUM_SCRAP_TYPES), dtype=np.int64)
        self._reset_turn_fields()

    def _end_turn(self) -> None:
        """End the Lead Wolf's turn: truncation check (ruling 10), Cougar's extra turn."""
        if self.phase == DONE:
            return
        self.turns += 1
        if self.turns >= self.max_turns:
            self.truncated = True
            self.phase = DONE
            self.pub_log.append((EV_END, -1))
            return
        if self.extra_turn:
            self.extra_turn = False
        else:
            self.lead = (self.lead + 1) % self._n
        self._start_turn()

    # --------------------------------------------------------------------------------------
    # cards
    def _draw_scrap(self, m: int, p: int = -1) -> list[int]:
        """Draw up to ``m`` Scrap cards for wolf ``p`` (-1: the Lead Wolf's cards to share);
        reshuffle the discards into an empty deck (ruling 9)."""
        out = []
        seg = 0
        for _ in range(m):
            if not self.scrap_deck:
                if not any(self.scrap_discard.tolist()):
                    break
                self._log_draws(p, seg)   # draws before the reshuffle, then the reshuffle
                seg = 0
                pile = np.repeat(np.arange(NUM_SCRAP_TYPES), self.scrap_discard)
                self.scrap_deck = pile[self.chance_permutation("scrap_reshuffle",
                                                               len(pile))].tolist()
                self.card_log.append((C_SRESH,))
                self.pub_log.append((EV_SCRAP_RESHUFFLE, len(pile)))
                self.deck_source = self.scrap_discard.copy()
                self.from_deck[:] = 0
                self.scrap_discard[:] = 0
            k = self.scrap_deck.pop()
            out.append(k)
            seg += 1
            if p >= 0:
                self.card_log.append((C_DRAW, p, k))
                self.from_deck[p] += 1
            else:
                self.card_log.append((C_SDRAW, self.lead, k))
                self.from_deck[self.lead] += 1
        self._log_draws(p, seg)
        return out

    def _log_draws(self, p: int, count: int) -> None:
        if count:
            self.pub_log.append((EV_DRAW, p, count) if p >= 0
                                else (EV_DRAW_SHARE, self.lead, count))

    def _give_drawn(self, p: int, m: int) -> None:
        drawn = self._draw_scrap(m, p)
        for k in drawn:
            self.hands[p, k] += 1
        self.since_unseen[:, p, U_DECK] += len(drawn)

    def _hand_seen(self, s: int | slice, p: int) -> None:
        """Seat ``s`` (or every seat: ``slice(None)``) now knows wolf ``p``'s whole hand: it
        becomes ``last_seen``, with nothing changed since."""
        self.last_seen[s, p] = self.hands[p]
        self.since_gain[s, p] = 0
        self.since_loss[s, p] = 0
        self.since_unseen[s, p] = 0
        self.since_stolen[s, p] = 0

    def _check_empty(self, p: int) -> None:
        """An empty hand (its size is public) is known in full to every seat."""
        if not any(self.hands[p].tolist()):
            self._hand_seen(slice(None), p)

    def _keep_drawn(self) -> None:
        """The Lead Wolf takes the undealt drawn cards (its own share, ruling 6)."""
        lead = self.lead
        cnt = sum(self.drawn.tolist())
        self.hands[lead] += self.drawn
        self.drawn[:] = 0
        self.since_unseen[:, lead, U_DECK] += cnt
        self.card_log.append((C_KEEP, lead))
        self.pub_log.append((EV_KEEP_SHARE, lead, cnt))

    def _play(self, p: int, k: int, cnt: int = 1) -> None:
        """Wolf ``p`` plays/discards ``cnt`` cards of type ``k`` face up (public, ruling 12)."""
        self.hands[p, k] -= cnt
        self.scrap_discard[k] += cnt
        self.played_now[p, k] += cnt
        self.played_total[p, k] += cnt
        for _ in range(cnt):
            self.card_log.append((C_PLAY, p, k))
        self.pub_log.append((EV_FACE_UP, p, k, cnt))
        known = self.known
        for s, v in enumerate(known[:, p, k].tolist()):   # lower bounds drop, floored at 0
            if v:
                known[s, p, k] = v - cnt if v > cnt else 0
        self.since_loss[:, p, k] += cnt
        self._check_empty(p)

    def _discard_hand(self, p: int) -> None:
        h = self.hands[p].copy()
        self.hands[p] = 0
        self.scrap_discard += h
        self.played_now[p] += h
        self.played_total[p] += h
        self.known[:, p, :] = 0
        self._check_empty(p)
        for k in range(NUM_SCRAP_TYPES):
            for _ in range(int(h[k])):
                self.card_log.append((C_PLAY, p, k))
            if h[k]:
                self.pub_log.append((EV_FACE_UP, p, k, int(h[k])))

    def _steal(self, thief: int, victim: int) -> None:
        """Thief takes a random Scrap card from victim (Weasel, Ravenous, Guardian win)."""
        h = self.hands[victim]
        counts = h.tolist()
        tot = sum(counts)
        if tot == 0:
            return
        r = self.chance_integer("steal", tot)
        k = 0
        c = counts[0]
        while r >= c:
            k += 1
            c += counts[k]
        h[k] -= 1
        self.hands[thief, k] += 1
        self.steals[thief, victim] += 1
        self.card_log.append((C_STEAL, thief, victim, k))
        self.pub_log.append((EV_STEAL, thief, victim))
        # knowledge: third parties lose one card of unknown type from their lower bounds
        for s in range(self._n):
            if s == thief or s == victim:
                continue
            row = self.known[s, victim]
            if any(row.tolist()):
                row -= 1
                np.maximum(row, 0, out=row)
        if self.known[thief, victim, k] > 0:
            self.known[thief, victim, k] -= 1
        self.known[victim, thief, k] += 1
        # the card's type is seen by thief and victim only
        self.since_unseen[:, victim, U_LOST] += 1
        self.since_stolen[:, thief, victim] += 1
        for s in (thief, victim):
            self.since_unseen[s, victim, U_LOST] -= 1
            self.since_stolen[s, thief, victim] -= 1
        self.since_loss[thief, victim, k] += 1
        self.since_gain[victim, thief, k] += 1
        self._check_empty(victim)

    # --------------------------------------------------------------------------------------
    # tokens, Allegiance, win
    def allegiance_holder(self, wolf: int) -> int:
        """The wolf holding ``wolf``'s Allegiance (>= 3 of its tokens, ruling 2), or -1."""
        col = self.tokens[:, wolf].tolist()
        for h in range(self._n):
            if h != wolf and col[h] >= ALLEGIANCE_AT:
                return h
        return -1

    def in_allegiance(self, a: int, b: int) -> bool:
        """True when a holds b's Allegiance or b holds a's (Guardian Wolf condition)."""
        return self.tokens[a, b] >= ALLEGIANCE_AT or self.tokens[b, a] >= ALLEGIANCE_AT

    def wins(self, p: int) -> bool:
        """Ruling 3: p holds two other wolves' Allegiance, each Wild filling in one token."""
        return self.win_deficit(p) == 0

    def win_deficit(self, p: int) -> int:
        """Loyalty tokens wolf ``p`` still needs to win (ruling 3), Wild Loyalties filling in.

        The two smallest shortfalls ``max(0, 3 - tokens[p, q])`` over the other wolves ``q``,
        summed, less ``wild[p]``, floored at 0 (0: :meth:`wins` holds; 6 at the start).
        """
        return _deficit(self.tokens[p].tolist(), p, int(self.wild[p]))

    def _check_win(self, first: int) -> bool:
        rows, wild = self.tokens.tolist(), self.wild.tolist()
        for i in range(self._n):
            p = (first + i) % self._n
            if _deficit(rows[p], p, wild[p]) == 0:   # wins(p)
                self.winner = p
                self.phase = DONE
                self.pub_log.append((EV_END, p))
                return True
        return False

    def _move_token(self, src: int, dst: int, colour: int) -> None:
        self.tokens[src, colour] -= 1
        self.tokens[dst, colour] += 1

    # --------------------------------------------------------------------------------------
    # Hunt flow (rulebook "The Hunt", rulings 5-6)
    def _begin_hunt(self) -> None:
        self.hunters = [self.lead]
        if any(self.tokens[self.lead].tolist()):
            self.phase, self.actor = RISK, self.lead
        else:
            self.join_next = 1
            self._next_joiner()

    def _next_joiner(self) -> None:
        n = self._n
        rows = self.tokens.tolist()
        while self.join_next < n:
            p = (self.lead + self.join_next) % n
            self.join_next += 1
            if any(rows[p]):
                self.phase, self.actor = JOIN, p
                return
        self._reveal_hunt()

    def _reveal_hunt(self) -> None:
        if not self.hunt_deck:
            self._refill_hunt_deck()
        card = self.hunt_card = self.hunt_deck.pop()
        self.card_log.append((C_HDRAW, card))
        self.pub_log.append((EV_HUNT_CARD, card))
        lead = self.lead
        others = [h for h in self.hunters if h != lead]
        self.actor = lead
        if card in SHARE_DRAW:
            for k in self._draw_scrap(SHARE_DRAW[card], -1):
                self.drawn[k] += 1
            self._size_shares()
        elif card == RABBIT or card == COUGAR:
            self._give_drawn(lead, 1)
            if card == COUGAR:
                self.extra_turn = True
            self._finish_hunt()
        elif card == JACKALOPE:
            if sum(self.hands[lead].tolist()) >= 3:
                self.phase = JACK
            else:
                self._jackalope_redraw()
        elif card == RATTLESNAKE:
            if any(self.hands[lead].tolist()):
                self.discard_queue = [lead]
                self.discard_reason = D_RATTLE
                self.phase = DISCARD
            else:
                self._finish_hunt()
        elif card == PORCUPINE:
            self.discard_queue = [h for h in self.hunters if any(self.hands[h].tolist())]
            self.discard_reason = D_PORCUPINE
            self._next_discard()
        elif card == WEASEL:
            if any(any(self.hands[h].tolist()) for h in others):
                self.phase = WEASEL_T
            else:
                self._finish_hunt()
        elif card == GRIZZLY:
            if others:
                self.phase = GRIZZLY_T
            else:
                self.grizzly[lead, lead] += 1
                self._discard_hand(lead)
                self._finish_hunt()
        elif card == CROW:
            if sum(1 for h in self.hunters if self.risked[h] >= 0) >= 2:
                self.phase = CROW1
            else:
                self._finish_hunt()
        else:  # FOX
            if any(self.risked[h] >= 0 for h in others):
                self.phase = FOX_T
            else:
                self._finish_hunt()

    def _size_shares(self) -> None:
        """Ruling 6: Lead Wolf largest, its Allegiance holder second, Lead Wolf orders the rest."""
        lead, k = self.lead, len(self.hunters)
        m = sum(self.drawn.tolist())
        if k == 1:
            self._keep_drawn()
            self._finish_hunt()
            return
        base, rem = divmod(m, k)
        sizes = [base + 1] * rem + [base] * (k - rem)
        self.share_size[lead] = sizes[0]
        rest = sizes[1:]
        pool = [h for h in self.hunters if h != lead]
        holder = self.allegiance_holder(lead)
        if holder in pool:
            self.share_size[holder] = rest.pop(0)
            pool.remove(holder)
        self.order_pool, self.order_sizes = pool, rest
        self._continue_order()

    def _continue_order(self) -> None:
        if self.order_pool and len(set(self.order_sizes)) > 1:
            self.phase = ORDER
            return
        for h, s in zip(self.order_pool, self.order_sizes):
            self.share_size[h] = s
        self.order_pool, self.order_sizes = [], []
        self.share_left = [0 if h == self.lead else self.share_size[h] for h in range(self._n)]
        self._continue_deal()

    def _continue_deal(self) -> None:
        if sum(self.share_left) == 0:
            self._keep_drawn()
            self._finish_hunt()
        else:
            self.phase = DEAL

    def _refill_hunt_deck(self) -> None:
        """Shuffle the Hunt discards into the (empty) Hunt deck (ruling 5)."""
        pile = np.repeat(np.arange(NUM_HUNT_TYPES), self.hunt_discard)
        self.hunt_deck = pile[self.chance_permutation("hunt_reshuffle", len(pile))].tolist()
        self.hunt_discard[:] = 0
        self.card_log.append((C_HRESH,))
        self.pub_log.append((EV_HUNT_RESHUFFLE, len(pile)))

    def _jackalope_redraw(self) -> None:
        """Draw 2, shuffle the Jackalope back (ruling 6); into an otherwise empty Hunt deck only
        after its discards were shuffled in (ruling 5), so it is not drawn again at once."""
        self._give_drawn(self.lead, 2)
        if not self.hunt_deck and self.hunt_discard.any():
            self._refill_hunt_deck()
        pos = self.chance_integer("jackalope_insert", len(self.hunt_deck) + 1)
        self.card_log.append((C_JINS, pos, len(self.hunt_deck)))
        self.pub_log.append((EV_JACKALOPE_BACK, self.lead))
        self.hunt_deck.insert(pos, JACKALOPE)
        self.hunt_card = -2  # back in the deck: not discarded
        self._finish_hunt()

    def _next_discard(self) -> None:
        if self.discard_queue:
            self.phase, self.actor = DISCARD, self.discard_queue[0]
        else:
            self._finish_hunt()

    def _finish_hunt(self) -> None:
        if self.phase == DONE:
            return
        card = self.hunt_card
        if card >= 0:
            self.hunt_discard[card] += 1
            self.turn_hunt = card
        else:
            self.turn_hunt = JACKALOPE
        self.hunt_card = -1
        self._end_turn()

    # --------------------------------------------------------------------------------------
    # Scrap flow (rulebook "Scrap Cards", rulings 7-8)
    def _begin_attack(self, att: int, dfd: int, strength: int) -> None:
        self.att, self.dfd, self.strength = att, dfd, strength
        self.guard = self.guard_called = -1
        if self._guard_candidates():
            self.phase, self.actor = GUARD_CALL, dfd
        else:
            self._enter_defend()

    def _guard_candidates(self) -> list[int]:
        return [g for g in range(self._n)
                if g != self.att and g != self.dfd and self.in_allegiance(self.dfd, g)]

    def _defender_now(self) -> int:
        return self.guard if self.guard >= 0 else self.dfd

    def _legal_defences(self, x: int) -> list[int]:
        h = self.hands[x].tolist()
        return [d for d in DEFENCES_VS[self.strength]
                if all(h[k] >= c for k, c in _DEFENCE_NEEDS_SPARSE[d])]

    def _enter_defend(self) -> None:
        # always asked, whatever the hand: its mask is only DECLINE when it holds no legal
        # defence (asking only wolves holding one would reveal the others' hands)
        self.phase, self.actor = DEFEND, self._defender_now()

    def _defence_fails(self) -> None:
        self.takes = [(self.att, self.dfd)]
        if self.guard >= 0:
            self.takes.append((self.att, self.guard))
        self._process_takes()

    def _defend(self, d: int) -> None:
        x, att = self._defender_now(), self.att
        for k in DEFENCES[d]:
            self._play(x, k)
        if d in RAVENOUS_DEFENCES:
            self._steal(x, att)
        if self.guard >= 0:
            self._steal(self.guard, att)
            self._steal(self.guard, self.dfd)
        if d in THORN_DEFENCES:
            self._begin_attack(x, att, 1)
        else:
            self._end_turn()

    def _process_takes(self) -> None:
        """Resolve queued Loyalty takes (taker, victim); ask the taker when it has a choice."""
        while self.takes:
            taker, victim = self.takes[0]
            colours = [c for c, x in enumerate(self.tokens[victim].tolist()) if x]
            if len(colours) == 0:
                self.takes.pop(0)
                continue
            if len(colours) == 1:
                self._take(colours[0])
                if self.phase == DONE:
                    return
                continue
            self.phase, self.actor = TAKE, taker
            return
        self._end_turn()

    def _take(self, colour: int) -> None:
        taker, victim = self.takes.pop(0)
        self._move_token(victim, taker, colour)
        self._check_win(taker)

    # --------------------------------------------------------------------------------------
    # masks
    def _attack_targets_ok(self, t: int) -> bool:
        return t != self.lead and t != self.allegiance_holder(self.lead)

    def legal_action_mask(self) -> np.ndarray:
        """Int8 (num_actions,): legal actions of :attr:`current_player`.

        Cached per state and read-only: editing it raises ``ValueError`` instead of changing
        what the engine accepts (take a ``.copy()`` to edit).
        """
        if self._mask is not None:
            return self._mask
        I, n = self.ids, self._n
        m = np.zeros(I.size, dtype=np.int8)
        ph = self.phase
        lead = self.lead
        if ph == DONE:
            pass
        elif ph == TURN:
            m[I.HUNT] = 1
            h = self.hands[lead].tolist()
            rows = self.tokens.tolist()
            holder = self.allegiance_holder(lead)
            for t in range(n):
                if t == lead:
                    continue
                if t != holder:
                    if h[TC]:
                        m[I.ATTACK_TC + t] = 1
                    if h[FRENZY]:
                        m[I.ATTACK_FR + t] = 1
                if h[CROWS_ALLY]:
                    m[I.CROWS_ALLY + t] = 1
                if any(rows[t]):
                    for s in range(3):
                        if h[ANTLER + s] >= 3:
                            m[I.COLLECT + s * n + t] = 1
            if h[FEATHER] >= 3:
                m[I.FEATHER] = 1
        elif ph == RISK or ph == JOIN:
            m[I.COLOUR:I.COLOUR + n] = self.tokens[self.actor] > 0
            if ph == JOIN:
                m[I.DECLINE] = 1
        elif ph == ORDER:
            for t in self.order_pool:
                m[I.TARGET + t] = 1
        elif ph == DEAL:
            drawn = self.drawn.tolist()
            for t in range(n):
                if self.share_left[t] > 0:
                    for k in range(NUM_SCRAP_TYPES):
                        if drawn[k] > 0:
                            m[I.GIVE + t * NUM_SCRAP_TYPES + k] = 1
        elif ph == JACK:
            m[I.ACCEPT] = 1
            m[I.DECLINE] = 1
        elif ph == DISCARD:
            m[I.DISCARD:I.DISCARD + NUM_SCRAP_TYPES] = self.hands[self.actor] > 0
        elif ph == WEASEL_T:
            for t in self.hunters:
                if t != lead and any(self.hands[t].tolist()):
                    m[I.TARGET + t] = 1
        elif ph == GRIZZLY_T:
            for t in self.hunters:
                if t != lead:
                    m[I.TARGET + t] = 1
        elif ph == CROW1 or ph == CROW2:
            for t in self.hunters:
                if self.risked[t] >= 0 and t != self.crow_first:
                    m[I.TARGET + t] = 1
            if ph == CROW1:
                m[I.DECLINE] = 1
        elif ph == FOX_T:
            for t in self.hunters:
                if t != lead and self.risked[t] >= 0:
                    m[I.TARGET + t] = 1
            m[I.DECLINE] = 1
        elif ph == CA_FOLLOW:
            t = self.look_target
            m[I.DECLINE] = 1
            if self._attack_targets_ok(t):
                if self.hands[lead, TC]:
                    m[I.ATTACK_TC + t] = 1
                if self.hands[lead, FRENZY]:
                    m[I.ATTACK_FR + t] = 1
        elif ph == GUARD_CALL:
            for g in self._guard_candidates():
                m[I.TARGET + g] = 1
            m[I.DECLINE] = 1
        elif ph == GUARD_ACCEPT:
            m[I.ACCEPT] = 1
            m[I.DECLINE] = 1
        elif ph == DEFEND:
            for d in self._legal_defences(self.actor):
                m[I.DEFEND + d] = 1
            m[I.DECLINE] = 1
        elif ph == TAKE:
            victim = self.takes[0][1]
            m[I.COLOUR:I.COLOUR + n] = self.tokens[victim] > 0
        m.flags.writeable = False
        self._mask = m
        return m

    def illegal_reason(self, action: int) -> str:
        """A specific reason why ``action`` is illegal now (rules cited)."""
        try:
            group, i, j = self.ids.decode(int(action))
        except ValueError as exc:
            return str(exc)
        ph = self.phase
        want = {TURN: "HUNT, an attack, Crow's Ally, a Collect set or FEATHER",
                RISK: "COLOUR (risk a held token)", JOIN: "COLOUR or DECLINE",
                ORDER: "TARGET (next hunter for a larger share)", DEAL: "GIVE",
                JACK: "ACCEPT or DECLINE", DISCARD: "DISCARD of a held type",
                WEASEL_T: "TARGET hunter", GRIZZLY_T: "TARGET hunter",
                CROW1: "TARGET hunter or DECLINE", CROW2: "TARGET hunter",
                FOX_T: "TARGET or DECLINE",
                CA_FOLLOW: "an attack on the wolf looked at, or DECLINE",
                GUARD_CALL: "TARGET Guardian or DECLINE", GUARD_ACCEPT: "ACCEPT or DECLINE",
                DEFEND: "DEFEND or DECLINE", TAKE: "COLOUR the victim holds"}.get(ph, "nothing")
        if ph == TURN and group in ("ATTACK_TC", "ATTACK_FR"):
            if i == self.lead:
                return "a wolf cannot attack itself"
            if i == self.allegiance_holder(self.lead):
                return ("a wolf cannot attack the holder of its Allegiance except with a Collect "
                        "set (rulebook 'Benefits of Holding a Wolf's Allegiance')")
            return "the Lead Wolf holds no such card"
        if ph == TURN and group == "COLLECT":
            return "a Collect set needs three matching cards and a target holding a token"
        if ph == DEFEND and group == "DEFEND":
            return (f"defence {DEFENCE_NAMES[i]} is not held or does not answer a "
                    f"{'Frenzy' if self.strength == 2 else 'Tooth & Claw'} (ruling 8)")
        return f"decision is '{PHASE_NAMES[ph]}': legal are {want}"

    # --------------------------------------------------------------------------------------
    # apply
    def _apply_action(self, a: int) -> None:
        self._mask = None
        I, n = self.ids, self._n
        ph = self.phase
        lead = self.lead
        if ph == DEAL:   # the card type given is private to dealer and receiver
            self.pub_log.append((EV_GIVE, lead, (a - I.GIVE) // NUM_SCRAP_TYPES))
        else:
            self.pub_log.append((EV_ACTION, self.actor, a))
        if ph == TURN:
            if a == I.HUNT:
                self._begin_hunt()
            elif a == I.FEATHER:
                for _ in range(3):
                    self._play(lead, FEATHER)
                for q in range(n):
                    if q != lead:
                        self.tokens[lead, lead] += self.tokens[q, lead]
                        self.tokens[q, lead] = 0
                if not self._check_win(lead):
                    self._end_turn()
            elif I.ATTACK_TC <= a < I.ATTACK_TC + n:
                self._play(lead, TC)
                self._begin_attack(lead, a - I.ATTACK_TC, 1)
            elif I.ATTACK_FR <= a < I.ATTACK_FR + n:
                self._play(lead, FRENZY)
                self._begin_attack(lead, a - I.ATTACK_FR, 2)
            elif I.CROWS_ALLY <= a < I.CROWS_ALLY + n:
                t = a - I.CROWS_ALLY
                self._play(lead, CROWS_ALLY)
                self.known[lead, t] = self.hands[t]
                self._hand_seen(lead, t)
                self.looks[lead, t] += 1
                self.card_log.append((C_LOOK, lead, t, tuple(int(x) for x in self.hands[t])))
                self.look_target = t
                # the follow-up is asked whatever the Lead Wolf holds (only DECLINE without an
                # attack card); it is skipped only when t may not be attacked (public)
                if self._attack_targets_ok(t):
                    self.phase = CA_FOLLOW
                else:
                    self._end_turn()
            else:
                s, t = divmod(a - I.COLLECT, n)
                self._play(lead, ANTLER + s, 3)
                self.takes = [(lead, t)]
                self._process_takes()
        elif ph == RISK:
            self.risked[lead] = self.turn_risked[lead] = a - I.COLOUR
            self.risked_total[lead, a - I.COLOUR] += 1
            self.join_next = 1
            self._next_joiner()
        elif ph == JOIN:
            if a != I.DECLINE:
                self.risked[self.actor] = self.turn_risked[self.actor] = a - I.COLOUR
                self.risked_total[self.actor, a - I.COLOUR] += 1
                self.hunters.append(self.actor)
            self._next_joiner()
        elif ph == ORDER:
            t = a - I.TARGET
            self.share_size[t] = self.order_sizes.pop(0)
            self.order_pool.remove(t)
            self._continue_order()
        elif ph == DEAL:
            t, k = divmod(a - I.GIVE, NUM_SCRAP_TYPES)
            self.drawn[k] -= 1
            self.hands[t, k] += 1
            self.share_left[t] -= 1
            self.known[lead, t, k] += 1
            self.since_gain[lead, t, k] += 1
            self.since_unseen[:, t, U_DECK] += 1
            self.since_unseen[lead, t, U_DECK] -= 1
            self.card_log.append((C_GIVE, t, k))
            self._continue_deal()
        elif ph == JACK:
            if a == I.ACCEPT:
                self.jack_left = 3
                self.discard_queue = [lead]
                self.discard_reason = D_JACKALOPE
                self.phase = DISCARD
            else:
                self._jackalope_redraw()
        elif ph == DISCARD:
            p = self.actor
            self._play(p, a - I.DISCARD)
            if self.discard_reason == D_JACKALOPE:
                self.jack_left -= 1
                if self.jack_left == 0:
                    self.wild[lead] += 1
                    self.hunt_card = -2  # kept as a Wild Loyalty
                    if not self._check_win(lead):
                        self._finish_hunt()
            else:
                self.discard_queue.pop(0)
                self._next_discard()
        elif ph == WEASEL_T:
            self._steal(lead, a - I.TARGET)
            self._finish_hunt()
        elif ph == GRIZZLY_T:
            self.grizzly[lead, a - I.TARGET] += 1
            self._discard_hand(a - I.TARGET)
            self._finish_hunt()
        elif ph == CROW1:
            if a == I.DECLINE:
                self._finish_hunt()
            else:
                self.crow_first = a - I.TARGET
                self.phase = CROW2
        elif ph == CROW2:
            i, j = self.crow_first, a - I.TARGET
            self.crow_swaps[i, j] += 1
            ci, cj = self.risked[i], self.risked[j]
            self._move_token(i, j, ci)
            self._move_token(j, i, cj)
            self.risked[i], self.risked[j] = cj, ci
            if not self._check_win(lead):
                self._finish_hunt()
        elif ph == FOX_T:
            if a == I.DECLINE:
                self._finish_hunt()
            else:
                t = a - I.TARGET
                self._move_token(t, lead, self.risked[t])
                self.risked[t] = -1
                if not self._check_win(lead):
                    self._finish_hunt()
        elif ph == CA_FOLLOW:
            t = self.look_target
            if a == I.DECLINE:
                self._end_turn()
            elif a < I.ATTACK_FR:
                self._play(lead, TC)
                self._begin_attack(lead, t, 1)
            else:
                self._play(lead, FRENZY)
                self._begin_attack(lead, t, 2)
        elif ph == GUARD_CALL:
            if a == I.DECLINE:
                self._enter_defend()
            else:
                g = a - I.TARGET
                self.guard_called = g
                self.phase, self.actor = GUARD_ACCEPT, g
        elif ph == GUARD_ACCEPT:
            if a == I.ACCEPT:
                self.guard = self.guard_called
            self._enter_defend()
        elif ph == DEFEND:
            if a == I.DECLINE:
                self._defence_fails()
            else:
                self._defend(a - I.DEFEND)
        elif ph == TAKE:
            self._take(a - I.COLOUR)
            if self.phase != DONE:
                self._process_takes()
        else:  # pragma: no cover - apply_action rejects actions once the game is over
            raise AssertionError("no decision is due")

    # --------------------------------------------------------------------------------------
    # observation
    def observation_tensor(self, seat: int) -> np.ndarray:
        """Float32 (observation_size,) of what ``seat`` knows; layout :func:`observation_layout`.

        Public facts (ruling 12): tokens, risked tokens, hand sizes, played/discarded cards, Hunt
        card, share sizes; the older public history as the whole-game summaries of the layout
        (risked colours, Crow swaps and Grizzly Bear victims included: rulebook "The Hunt",
        "Risked Loyalty", "Crow", "Grizzly Bear"). Private to ``seat``: its hand, the drawn
        cards when it deals, its ``known`` lower bounds on other hands (Crow's Ally looks,
        shares it dealt, steals), and per other wolf the hand it last knew in full with the
        changes since as far as it saw them (``last_seen``, ``since_gain``, ``since_loss``,
        ``since_unseen``; what they leave out: docs/badland_wolves.md, "Perfect recall").

        Raises:
            ValueError: ``seat`` is not in 0..num_players-1.
        """
        n = self._n
        if not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1}, got {seat!r}")
        L = self.layout
        o = np.zeros(L.size, dtype=np.float32)
        F = _fields(n)
        o[F["seat"] + seat] = 1
        ph = self.phase
        o[F["lead"] + self.lead] = 1
        if ph != DONE:
            o[F["actor"] + self.actor] = 1
            o[F["phase"] + ph] = 1
        o[F["turn"]] = self.turns / self.max_turns
        if self.att >= 0:
            o[F["attacker"] + self.att] = 1
            o[F["defender"] + self.dfd] = 1
            o[F["strength"] + self.strength - 1] = 1
        g = self.guard if self.guard >= 0 else self.guard_called
        if g >= 0:
            o[F["guardian"] + g] = 1
        if self.hunt_card >= 0:
            o[F["hunt_card"] + self.hunt_card] = 1
        if self.hunters:
            base = F["hunters"]
            rb = F["risked"]
            for h in self.hunters:
                o[base + h] = 1
                if self.risked[h] >= 0:
                    o[rb + h * n + self.risked[h]] = 1
        if ph == DEAL or ph == ORDER:
            o[F["share_size"]:F["share_size"] + n] = np.array(self.share_size) / 5.0
            o[F["share_left"]:F["share_left"] + n] = np.array(self.share_left) / 5.0
            o[F["drawn_total"]] = self.drawn.sum() / 5.0
            if seat == self.lead:
                o[F["drawn"]:F["drawn"] + NUM_SCRAP_TYPES] = self.drawn / 5.0
        if ph == DISCARD and self.discard_reason == D_JACKALOPE:
            o[F["discards_left"]] = self.jack_left / 3.0
        if ph == TAKE:
            o[F["victim"] + self.takes[0][1]] = 1
        if self.crow_first >= 0:
            o[F["crow_first"] + self.crow_first] = 1
        if self.look_target >= 0:
            o[F["look_target"] + self.look_target] = 1
        # own hand and known lower bounds (contiguous), then one public block (contiguous)
        hs = F["hand"]
        w = n * NUM_SCRAP_TYPES
        priv = np.concatenate((self.hands[seat], self.known[seat].ravel()))
        o[hs:hs + NUM_SCRAP_TYPES + w] = priv * _PRIV_SCALE[n]
        ls = F["last_seen"]
        o[ls:ls + w] = (self.last_seen[seat] * _INV_COPIES).ravel()
        since = np.concatenate((self.since_gain[seat].ravel(), self.since_loss[seat].ravel(),
                                self.since_unseen[seat].ravel(),
                                self.since_stolen[seat].ravel())).astype(np.float64)
        gs = F["since_gain"]
        o[gs:gs + since.size] = since / (since + 1.0)
        for name, width in (("known", NUM_SCRAP_TYPES), ("last_seen", NUM_SCRAP_TYPES),
                            ("since_gain", NUM_SCRAP_TYPES), ("since_loss", NUM_SCRAP_TYPES),
                            ("since_unseen", 2), ("since_stolen", n)):
            o[F[name] + seat * width:F[name] + (seat + 1) * width] = 0
        alleg = self.tokens >= ALLEGIANCE_AT
        alleg[_DIAG[n]] = False
        pub = np.concatenate((
            self.tokens.ravel(), self.wild, alleg.ravel(), self.hands.sum(axis=1),
            (len(self.scrap_deck), len(self.hunt_deck)), self.scrap_discard, self.hunt_discard,
            self.played_now.ravel(), self.played_prev.ravel()))
        ps = F["tokens"]
        o[ps:ps + pub.size] = pub * _PUB_SCALE[n]
        if self.prev_hunt >= 0:
            o[F["prev_hunt"] + self.prev_hunt] = 1
        rp = F["risked_prev"]
        for h, c in enumerate(self.prev_risked):
            if c >= 0:
                o[rp + h * n + c] = 1
        counts = np.concatenate((self.played_total.ravel(), self.steals.ravel(),
                                 self.looks.ravel(), self.risked_total.ravel(),
                                 self.crow_swaps.ravel(), self.grizzly.ravel())
                                ).astype(np.float64)
        cs = F["played_total"]
        o[cs:cs + counts.size] = counts / (counts + 1.0)
        ds = F["deck_source"]
        o[ds:ds + NUM_SCRAP_TYPES] = self.deck_source * _INV_COPIES
        o[ds + NUM_SCRAP_TYPES:ds + NUM_SCRAP_TYPES + n] = self.from_deck / NUM_SCRAP
        return o

    def public_history(self) -> list[tuple[int, ...]]:
        """Every public event so far, in order, as ``(kind, *args)`` int tuples.

        Identical whichever seat asks (ruling 12: hands, share contents, Crow's Ally looks and
        the types of stolen cards stay private). Vocabulary: :data:`PUBLIC_EVENTS`.
        """
        return list(self.pub_log)

    # --------------------------------------------------------------------------------------
    # text
    def action_to_string(self, action: int) -> str:
        """Readable text of ``action`` (in the current decision's terms)."""
        group, i, j = self.ids.decode(int(action))
        if group == "HUNT":
            return "lead a Hunt"
        if group == "FEATHER":
            return "play 3 Feathers: retrieve own Loyalties"
        if group == "ACCEPT":
            return "keep the Jackalope (discard 3)" if self.phase in (JACK, DISCARD) \
                else "accept to guard"
        if group == "DECLINE":
            return {JOIN: "stay out of the Hunt", DEFEND: "no defence",
                    GUARD_CALL: "call no Guardian", GUARD_ACCEPT: "refuse to guard",
                    CROW1: "no Crow swap", FOX_T: "no Fox take", CA_FOLLOW: "end the turn",
                    JACK: "draw 2, reshuffle the Jackalope"}.get(self.phase, "decline")
        if group == "ATTACK_TC":
            return f"Tooth & Claw attack on wolf {i}"
        if group == "ATTACK_FR":
            return f"Frenzy attack on wolf {i}"
        if group == "CROWS_ALLY":
            return f"Crow's Ally: look at wolf {i}'s hand"
        if group == "COLLECT":
            return f"Collect 3 {SCRAP_NAMES[ANTLER + i]}: take a Loyalty from wolf {j}"
        if group == "COLOUR":
            verb = {RISK: "risk", JOIN: "join with", TAKE: "take"}.get(self.phase, "colour")
            return f"{verb} a colour-{i} Loyalty"
        if group == "TARGET":
            return f"choose wolf {i}"
        if group == "GIVE":
            return f"give a {SCRAP_NAMES[j]} to hunter {i}"
        if group == "DISCARD":
            return f"discard a {SCRAP_NAMES[i]}"
        return f"defend with {DEFENCE_NAMES[i]}"

    def render_text(self, seat: int | None = None) -> str:
        """Tokens, hands (all, or only ``seat``'s), decks and the pending decision."""
        n = self._n
        lines = [f"Badland Wolves, {n} wolves, turn {self.turns}/{self.max_turns}, "
                 f"Lead Wolf {self.lead}"]
        for p in range(n):
            toks = " ".join(f"c{c}x{int(self.tokens[p, c])}" for c in range(n) if self.tokens[p, c])
            record = ""
            if seat is None or seat == p:
                hand = _cards_text(self.hands[p])
            else:
                hand = f"{int(self.hands[p].sum())} cards"
                if self.known[seat, p].any():
                    hand += f" (you know of {_cards_text(self.known[seat, p])})"
                record = self._record_text(seat, p)
            extra = f" wild {int(self.wild[p])}" if self.wild[p] else ""
            lines.append(f"  wolf {p}: tokens [{toks}]{extra}; hand: {hand or '-'}")
            if record:
                lines.append(f"    {record}")
        if self.drawn.any() and (seat is None or seat == self.lead):
            lines.append(f"  drawn to share: {_cards_text(self.drawn)}")
        lines.append(f"  Scrap deck {len(self.scrap_deck)}, Hunt deck {len(self.hunt_deck)}")
        if self.hunt_card >= 0:
            lines.append(f"  Hunt card: {HUNT_NAMES[self.hunt_card]}, hunters {self.hunters}")
        if self.winner >= 0:
            lines.append(f"  wolf {self.winner} is the new Alpha")
        elif self.truncated:
            lines.append("  truncated: no winner")
        else:
            lines.append(f"  wolf {self.actor} to decide: {PHASE_NAMES[self.phase]}")
        lines.append("  Legend: wolf k owns the Loyalty tokens of colour k; tokens [cKxN] = N "
                     "tokens of colour K held; wild N = Wild Loyalties caught; hand: Scrap "
                     "cards (type xN), or only their number for another wolf (with the cards "
                     "you know it holds: dealt to it, stolen, seen with Crow's Ally, not seen "
                     "leave; below it, when that says more, what you saw of that hand since "
                     "your last Crow's Ally look or since it was last empty); decks: cards "
                     "left; hunters = the wolves in the current Hunt, Lead Wolf first; turn = "
                     "turns played / turn limit.")
        return "\n".join(lines)

    def _record_text(self, seat: int, p: int) -> str:
        """What ``seat`` recalls of wolf ``p``'s hand beyond the lower bounds ``known``, in
        words: the hand at its last Crow's Ally look and the changes since as far as it saw
        them (observation fields ``last_seen``, ``since_*``). Empty when that record says
        nothing ``known`` does not: no look since the hand was last empty, and no card lost to
        or stolen from a third wolf since."""
        last = self.last_seen[seat, p]
        unseen, stolen = self.since_unseen[seat, p], self.since_stolen[seat, p]
        if not (last.any() or unseen[U_LOST] or stolen.any()):
            return ""
        parts = [f"at your last look: {_cards_text(last)}" if last.any()
                 else "when its hand was last empty"]
        if self.since_gain[seat, p].any():
            parts.append(f"since then it received {_cards_text(self.since_gain[seat, p])}")
        if self.since_loss[seat, p].any():
            parts.append(f"it lost {_cards_text(self.since_loss[seat, p])}")
        if unseen[U_DECK]:
            parts.append(f"it took {int(unseen[U_DECK])} unseen from the Scrap deck")
        if unseen[U_LOST]:
            parts.append(f"{int(unseen[U_LOST])} unseen stolen from it")
        for q in np.flatnonzero(stolen):
            parts.append(f"it stole {int(stolen[q])} unseen from wolf {int(q)}")
        return "; ".join(parts)

    # --------------------------------------------------------------------------------------
    # copies, resampling, truth
    def __getstate__(self) -> dict[str, Any]:
        """Fields for deepcopy and pickling, without the cached read-only mask (a copied
        array would come back writeable; the copy recomputes it)."""
        d = self.__dict__.copy()
        d["_mask"] = None
        return d

    def clone(self) -> BadlandWolvesState:
        """An independent copy (generator state included), faster than a deepcopy."""
        new = object.__new__(type(self))
        d = self.__dict__.copy()
        for key in ("hands", "tokens", "wild", "known", "last_seen", "since_gain", "since_loss",
                    "since_unseen", "since_stolen", "played_now", "played_prev",
                    "scrap_discard", "hunt_discard", "drawn", "played_total", "steals", "looks",
                    "risked_total", "crow_swaps", "grizzly", "deck_source", "from_deck"):
            d[key] = d[key].copy()
        for key in ("scrap_deck", "hunt_deck", "hunters", "risked", "share_size", "share_left",
                    "order_pool", "order_sizes", "discard_queue", "takes", "history",
                    "turn_risked", "prev_risked",
                    "chance_log", "card_log", "pub_log"):
            d[key] = list(d[key])
        if d.get("_forced_chance") is not None:
            d["_forced_chance"] = copy.copy(d["_forced_chance"])
        d["config"] = dict(d["config"])
        d["rng"] = _copy_generator(self.rng)
        d["_mask"] = None
        new.__dict__ = d
        return new

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> BadlandWolvesState:
        """A world consistent with all ``seat`` has seen, carrying its counterfactual history.

        The real actions replayed under redrawn chance outcomes (deck orders, reshuffles,
        steals, Jackalope insert positions; :mod:`envs.badland_wolves.resample`): every card
        ``seat`` saw keeps its type, every face-up play, share deal (who to whom) and public
        fact is kept, a share deal ``seat`` neither made nor received deals one of the world's
        drawn cards (its action id carries that card's type), each Scrap deck holds only the
        cards it was shuffled from, and the rest is redrawn (close to uniform over consistent
        worlds; see that module). ``to_record()`` of the
        result replays to it step by step with the same observations for ``seat``. The state
        must have been reached by play (not edited by hand).
        """
        from .resample import resample_from_infostate
        return resample_from_infostate(self, seat, rng)

    def hidden_truth(self) -> dict[str, Any]:
        """Every wolf's Scrap hand ({type name: count}) and the undealt drawn cards."""
        return {
            "hands": [{SCRAP_NAMES[k]: int(self.hands[p, k]) for k in range(NUM_SCRAP_TYPES)
                       if self.hands[p, k]} for p in range(self._n)],
            "drawn": {SCRAP_NAMES[k]: int(self.drawn[k]) for k in range(NUM_SCRAP_TYPES)
                      if self.drawn[k]},
        }

    # --------------------------------------------------------------------------------------
    # invariants (used by tests)
    def card_totals(self) -> tuple[int, int, int]:
        """(Scrap cards, Hunt cards, Loyalty tokens) accounted for: 60, 55, 5·n always."""
        scrap = int(self.hands.sum() + len(self.scrap_deck) + self.scrap_discard.sum()
                    + self.drawn.sum())
        hunt = int(len(self.hunt_deck) + self.hunt_discard.sum() + self.wild.sum()
                   + (1 if self.hunt_card >= 0 else 0))
        return scrap, hunt, int(self.tokens.sum())


class _BlankSeed(ISeedSequence):
    """A seed sequence giving an all-zero state without hashing any entropy: a bit generator
    built from it is only a shell whose state is set at once (:func:`_copy_generator`)."""

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        return np.zeros(n_words, dtype=dtype)


_BLANK_SEED = _BlankSeed()


def _copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent copy of ``rng`` equal to ``copy.deepcopy(rng)`` (same bit generator type
    and state, an equal copy of its seed sequence) at a fifth of its cost: the deepcopy builds
    its bit generator from fresh OS entropy before overwriting that state, and copies the seed
    sequence through pickling (rebuilt here from its public fields). A numpy without the bit
    generator's ``(state, seed_seq)`` pickle state (before 2.0, whose deepcopy draws a new seed
    sequence from OS entropy) gets a bit generator built from the copied seed sequence, its
    state then set (:func:`_copy_generator_before_2`)."""
    bg = rng.bit_generator
    try:
        ss = _copy_seed_seq(bg.seed_seq)
        new = type(bg)(_BLANK_SEED)
        new.__setstate__((bg.state, ss))
    except (AttributeError, TypeError, ValueError):   # numpy before 2.0
        return _copy_generator_before_2(rng)
    return np.random.Generator(new)


def _copy_seed_seq(ss: Any) -> Any:
    """An equal, independent copy of a bit generator's seed sequence (a ``SeedSequence``
    rebuilt from its public fields, any other deep-copied)."""
    if type(ss) is np.random.SeedSequence:
        return np.random.SeedSequence(ss.entropy, spawn_key=ss.spawn_key,
                                      pool_size=ss.pool_size,
                                      n_children_spawned=ss.n_children_spawned)
    return copy.deepcopy(ss)


def _copy_generator_before_2(rng: np.random.Generator) -> np.random.Generator:
    """:func:`_copy_generator` on a numpy before 2.0: its seed sequence cannot be set on a
    bit generator (``_seed_seq`` is read-only, ``__setstate__`` takes the state alone), so the
    copy's bit generator is built from a copy of it (read from ``_seed_seq``: no ``seed_seq``
    property before 1.25), then given the state. A bit generator whose seed sequence is not
    a ``SeedSequence`` (legacy seeding) or that cannot be built so gets ``copy.deepcopy``."""
    bg = rng.bit_generator
    ss = getattr(bg, "_seed_seq", None)
    if type(ss) is not np.random.SeedSequence:
        return copy.deepcopy(rng)
    try:
        new = type(bg)(_copy_seed_seq(ss))
        new.state = bg.state
    except (TypeError, ValueError):
        return copy.deepcopy(rng)
    return np.random.Generator(new)


def _deficit(row: list[int], p: int, wild: int) -> int:
    """:meth:`BadlandWolvesState.win_deficit` of wolf ``p`` from its token row (``tokens[p]``
    as a list) and its Wild Loyalties: the two smallest shortfalls ``max(0, 3 - row[q])``
    over the other wolves ``q``, summed, less ``wild``, floored at 0."""
    a = b = ALLEGIANCE_AT          # the two smallest shortfalls so far (each is at most 3)
    for q, t in enumerate(row):
        if q != p:
            d = ALLEGIANCE_AT - t if t < ALLEGIANCE_AT else 0
            if d < a:
                a, b = d, a
            elif d < b:
                b = d
    return max(0, a + b - wild)


#: per defence index: the (Scrap type, count) pairs it needs (the nonzero ``DEFENCE_NEEDS``)
_DEFENCE_NEEDS_SPARSE = tuple(tuple((k, int(c)) for k, c in enumerate(row) if c)
                              for row in DEFENCE_NEEDS)
_INV_COPIES = (1.0 / SCRAP_COUNTS_ARR).astype(np.float64)
_INV_HUNT = (1.0 / HUNT_COUNTS_ARR).astype(np.float64)
_DIAG = {P: np.eye(P, dtype=bool) for P in ALLOWED_PLAYERS}
#: scale of the private block (hand, known) and of the public block (tokens ... played_prev)
_PRIV_SCALE = {P: np.tile(_INV_COPIES, P + 1) for P in ALLOWED_PLAYERS}
_PUB_SCALE = {P: np.concatenate((
    np.full(P * P, 1 / TOKENS_PER_COLOUR), np.full(P, 0.5), np.ones(P * P), np.full(P, 1 / 60),
    (1 / NUM_SCRAP, 1 / NUM_HUNT), _INV_COPIES, _INV_HUNT, np.tile(_INV_COPIES, 2 * P)))
    for P in ALLOWED_PLAYERS}


def _cards_text(row: np.ndarray) -> str:
    """Scrap cards given as one count per type (int (9,)) in the text views' words:
    ``"Tooth & Clawx1, Skullx2"``, types held 0 times left out (empty string for none)."""
    return ", ".join(f"{SCRAP_NAMES[k]}x{int(row[k])}" for k in range(NUM_SCRAP_TYPES) if row[k])


@lru_cache(maxsize=None)
def _fields(P: int) -> dict[str, int]:
    """Start index of every observation field, by name (cached per player count)."""
    return {f.name: f.start for f in observation_layout(P)}
