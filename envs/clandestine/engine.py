"""Clandestine rules engine: :class:`ClandestineState` (rulebook ``rules/clandestine.txt``;
design ``clandestine_content.md`` §1.1-1.7, §11).

Built on the rules modules: ``city`` / ``pawns`` (City graph, movement), ``relic_map`` (Map
costs, Discover picks, refill), ``ascend`` (cost, reduction, minimal payment, board slots),
``scoring`` (final score, tie-break, returns), ``content`` / ``dsl`` / ``ops`` (the effect
language that plays Secrets; :class:`~envs.clandestine.phases.EngineContext` is the engine side).
Decision kinds are one mask and one apply function each, in :mod:`envs.clandestine.phases`.

Implemented: every rule of the human game, for every variant flag value but ``nemesis=True``
(``spec.SUPPORTED_FLAG_VALUES``); the default configuration plays the full game:

* setup in rulebook order (§1.1): Relic deck shuffled; Societies given or drawn (chance event
  ``"societies"``); per seat in reverse turn order its Level I Secret deck (``"secret_deck"``)
  and Starts With (Gold, Energy, Chaos, Secrets, blind Relics); the City with the random side
  of the First Player's path (``"city_side"``); the initial pawns; the Relic Map;
* the phase machine START / PRE / SELECT_LEADER / ACTION / POST / END (§1.2);
  ``current_player`` is the deciding seat (suit effects and their Regroups are decided by the
  seat concerned); a decision with one legal action is applied at once and not recorded,
  except the kinds of :data:`ALWAYS_ASK` and a PRE window while Secrets are held, whose options
  depend on hidden cards (CONVENTIONS.md);
* pawn movement (``placement_type``, ``uf_route``); the Actions Fundraise, Discover (Map picks,
  route Chaos), Reveal, Ascend (suit, reduction, minimal card payment; Gaining a Level steps
  1, 2, 4a-c, 5 with empty-slot resources), Purge, Regroup, ``act`` Actions and extra Actions
  from effects; the Revolt Chamber is a Fundraise Chamber (``society_powers=False``);
* PRE window: trades of the Any Time, Assignment, Regroup and Initiation panels, one Secret per
  turn (+ ``extra_secret`` grants) resolved completely through the effect language; POST
  window: trades;
* END: Map refill with the Harbor choice, 1 Energy, hand-limit discards (Relics then Secrets),
  the Chalice; with ``offturn_alchemy`` the REACT round after every turn and the FINAL round
  before scoring (any-timing trades, offered only to seats with a legal one); end triggers
  (Level V, empty Relic deck: final turns until just before the trigger seat's next turn) and
  the round limit (``end_reason``);
* Conjunctions (``conjunctions``): the row at setup (chance event ``"conjunctions"``), the
  claim at Level II (``conjunction_pick``, claim effect), the goal check at every assignment
  (the Conjunction Secret to hand, public), the Conjunction's panel (TRADE panel 6; a Relic or
  Secret input discarded by ``hand_discard``), goal scoring;
* Relic effects (``relic_effects``): '+' Relics of the used Chamber at step 4 (``before``;
  an ``either`` one asked by ``either_timing``) or 7, eye triggers of the Action's events at
  steps 4 and 7, ``level_up`` after an Ascend's Level, ``turn_start`` at START; eye ``mods``
  (hand sizes, Secret Energy, free routes, Ascend costs, Initiation Energy, Deep tokens held
  while assigned: not yet re-served when tokens return, ruling 32); flag Relics scored;
* Ascension tiles (``ascension_tiles``): Starting tiles at setup, board tiles on their start
  slots, taken at Gaining a Level step 5, hood tiles flipped once in the own PRE/POST window
  (TILE block; not an ``extra_secret``-only tile in POST), eye tiles' mods and triggers after
  the Relics' (by tile id), flag tiles scored;
* Deep Alchemy (``deep_alchemy``): tokens from the box of 12 given by effects, placed on a
  panel that already holds a token to repeat its trade, retrieved at START;
* scoring, tie-break and returns (``scoring``); the observation of §1.5 for these parts
  (:func:`observation_layout`); resampling with a history that replays (:func:`resample`).

Observation layout (``observation_tensor(seat)``, float32; relative seats and spaces; built by
:func:`observation_layout`); table for 3 seats:

{table}

Also: ``finite_pawns`` (55 Universal Followers, placements as far as the supply goes) and
``map_extension`` (the Extension slots exist; only the Mariners' ``extend``, a society power,
fills them).

Society powers (``society_powers``): the Mariners' Union (Charter panel, ``extend`` into the
Extension slots, Extension pricing, chartered routes, port dues at step 9), the Garden Club
(``invest`` on spaces and Routes, Endowment and Patronage panels, the 5 Gold Assignment
trade, space and Route payouts at step 9), the Twilight Masks (Terror panel, ``place_chaos``
on spaces, Map Relics and opponents' panels; step 2 Strength +X / -X and the Chaos to the
actor; Relic costs -X / +X and the Chaos to the acquirer; panel Chaos blocking trades and
purged first; purge score) and the Blue Army
(Revolt Chamber and ``act revolt``: EITHER one Public Leader OR Followers on the Public path,
1 Chaos, the extra Action at step 8; Muster panel), the Serpent Keepers (Cult panel, Initiation
markers, Secrets primed face down by Initiated spaces, traps flipped at step 2: 'self', or
'rival' then 'reward').

The Nemesis (``nemesis="most_holy"``, ``difficulty``; solo play): a rules-driven last seat
resolved by :mod:`envs.clandestine.nemesis` (its turn runs inside the engine, so it is never
``current_player``). Not yet: the Silver Guard (Agents, the Vault, Cells).
Known simplifications (documented where they live): Deep tokens of ``mods.deep_alchemy`` are
not re-served when tokens return to the box (ruling 32); traps resolve after the pawns are
picked up (their effects never move pawns); the resampler keeps each hidden Secret's Level.
"""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

import numpy as np

from ..core import GameState, Layout
from . import ascend as AS
from . import ops as OPS
from . import pawns as P
from . import phases as PH
from . import relic_map as RM
from . import scoring as SC
from .actions import NUM_ACTIONS, decode
from .city import build_city, load_content
from .content import load_content as load_cards
from .words import (LEGEND, action_words, intent_words, relic_card_words, relic_words,
                    secret_words, society_name, space_action_words, status_words, tile_words)
from .spec import DEFAULT_MAX_ROUNDS, NEMESES, SOCIETIES, make_spec
from . import nemesis as NEM

_C = load_content()
#: the content as checked frozen records with compiled effects (``content.load_content``)
CARDS = load_cards()
NUM_RELICS = len(_C["relics"])
#: Relic text ids by index (``R001`` ...) and back; printed values by id (for ``relic_map``).
RELIC_IDS: tuple[str, ...] = tuple(r["id"] for r in _C["relics"])
RELIC_INDEX = {r: i for i, r in enumerate(RELIC_IDS)}
RELIC_VALUES = {r["id"]: int(r["value"]) for r in _C["relics"]}
RELIC_INTRIGUE = tuple(int(r["intrigue"]) for r in _C["relics"])
RELIC_DARK = tuple(r["tone"] == "dark" for r in _C["relics"])
MAP_ORDER: tuple[str, ...] = RM.MAP_ORDER
#: per Society: Secret text ids by index (SECRET block) and back
SECRET_IDS = {soc: tuple(c["id"] for c in cards) + (_C["conjunction_secrets"][soc]["id"],)
              for soc, cards in _C["secrets"].items()}
CONJ_SECRET = 31  # SECRET-block index of every Society's Conjunction Secret
NUM_CONJUNCTIONS = len(_C["conjunctions"])
CONJ_PANEL = 6  # TRADE-block panel of the claimed Conjunction
DEEP_TOKENS = int(_C["constants"]["components"]["deep_alchemy_tokens"])  # the box: 12
UF_SUPPLY = int(_C["constants"]["pawn_supply"]["universal_followers"])  # 55 (finite_pawns)
SECRET_INDEX = {soc: {c: i for i, c in enumerate(ids)} for soc, ids in SECRET_IDS.items()}
BOARD_SLOTS = tuple(_C["ascension"]["board_slots"])
BOARD_INDEX = {b["id"]: i for i, b in enumerate(BOARD_SLOTS)}
TILE_IDS = tuple(t["id"] for t in _C["ascension"]["tiles"])
#: Nemesis id -> its name (``nemesis.<id>.name``, e.g. "The Most Holy")
NEMESIS_NAMES: dict[str, str] = {k: v["name"] for k, v in _C["nemesis"].items()
                                 if isinstance(v, dict) and "name" in v}
TILE_INDEX = {t: i for i, t in enumerate(TILE_IDS)}
NUM_TILES = len(TILE_IDS)
#: Suit -> Ascension board column (Military, Political, Economic, Occult) and its suit effect
SUIT_COLUMN = dict(_C["ascension"]["suit_map"])
SUIT_EFFECTS = dict(_C["ascension"]["suit_effects"])
PHASES: tuple[str, ...] = ("START", "PRE", "SELECT_LEADER", "ACTION", "POST", "END", "REACT",
                           "FINAL", "OVER")
#: Alchemy panels offered (the society panels only with ``society_powers=True``).
IMPLEMENTED_PANELS = ("any_time", "assign", "regroup", "leader")
SOCIETY_PANELS = ("charter", "muster", "endowment", "patronage", "terror", "cult")
#: per Society, its panels' trades for :meth:`ClandestineState.legal_trades`: ``(panel, panel id,
#: timing, ((trade, Gold in, Energy in, "uf" in, Gold-paid Assignment trade), ...))``
_PANEL_TRADES: dict[str, tuple] = {
    sid: tuple((p, panel["id"], panel["timing"],
                tuple((t, int(tr["in"].get("gold", 0)), int(tr["in"].get("energy", 0)),
                       "uf" in tr["in"], panel["id"] == "assign" and "gold" in tr["in"])
                      for t, tr in enumerate(panel["trades"])))
               for p, panel in enumerate(soc["panels"]))
    for sid, soc in _C["societies"].items()}
MASKS_CAP = 3  # Masks' Chaos per object (space, Relic, panel)
END_REASONS = ("level_v", "relic_deck", "round_limit")
#: Decision kinds whose options depend on the decider's hidden cards: always asked, even with a
#: single legal action, so that whether a seat decides never reveals its hand (CONVENTIONS.md).
ALWAYS_ASK = frozenset({"ascend_suit", "ascend_reduction", "ascend_card", "assign"})

#: Public history vocabulary (design §1.5 "Public history"): ``(kind, *args)`` tuples of ints,
#: the same list for every seat (:meth:`ClandestineState.public_history`).
PUBLIC_EVENTS: dict[int, tuple[str, str]] = {
    0: ("societies", "one Society index (spec.SOCIETIES) per seat, First Player first; the first "
                     "event (a Nemesis seat: 5 Most Holy, 6 Silver Guard)"),
    1: ("decision", "seat, kind, action: a decision of the seat (kind = index in phases.KINDS, "
                    "effect decisions being 'effect'; action = its id 0-400), asked, or answered "
                    "by the engine because it had a single option; every decision except a "
                    "prime's Secret pick"),
    2: ("prime_pick", "seat: the seat picked a Secret from its hand to prime face down (Serpent "
                      "Keepers); which one is hidden, the space follows as a decision event"),
    3: ("map", "space, relic: a Relic (0-107) became visible on Relic Map space 0-16 (set-up "
               "and every refill or extension, the Nemesis's END refills included)"),
    4: ("intent", ("card: the Intent card (0-23, nemesis.INTENTS) the Nemesis flipped face up "
                   "(set-up: to its bottom slot; each of its turns: to its top slot); the face-"
                   "down cards of its deck are never named")),
    5: ("nemesis_relic", ("relic, where: a Relic (0-107) drawn from the deck face up through the "
                          "Nemesis's play (NEMESIS_RELIC_WHERE: 0 into its hand, e.g. the Occult "
                          "suit effect; 1 shown at the Silver Guard's set-up, then under the "
                          "deck; 2 found at its set-up into the Vault; 3 shown by that search, "
                          "then under the deck)")),
    6: ("nemesis_tile", ("tile, level: the Ascension tile (0-49, TILE_IDS) the Nemesis took face "
                         "up from the board onto its Level slot 2-5")),
}
EV_SOCIETIES, EV_DECISION, EV_PRIME_PICK, EV_MAP = 0, 1, 2, 3
EV_INTENT, EV_NEMESIS_RELIC, EV_NEMESIS_TILE = 4, 5, 6
#: ``where`` codes of the nemesis_relic event
NEMESIS_RELIC_WHERE = ("hand", "reveal_under", "vault", "vault_search_under")
#: arguments of each event the Nemesis's play adds (:meth:`ClandestineState.note`)
_NEMESIS_EVENT_ARGS = {EV_INTENT: 1, EV_NEMESIS_RELIC: 2, EV_NEMESIS_TILE: 2}
#: ``secret_log`` codes: a Secret drawn (hidden from the others), discarded face up (named),
#: primed face down (hidden), flipped face up from a space (named, in priming order), and a
#: Level's Secrets shuffled into the deck
SECRET_MOVES = ("draw", "reveal", "prime", "flip", "shuffle")
SM_DRAW, SM_REVEAL, SM_PRIME, SM_FLIP, SM_SHUFFLE = range(5)
#: codes of the societies event: Society indices, then Nemesis ids (5 Most Holy, 6 Silver Guard)
SOCIETY_CODES = SOCIETIES + NEMESES
_KIND_IDS = {k: i for i, k in enumerate(PH.KINDS)}


class ClandestineState(GameState):
    """A Clandestine game state (see the module docstring for what is implemented).

    Args:
        seed: engine seed (``None``: drawn from the OS).
        num_players: 2..5 seats; with a Nemesis, the human seats 1..4 (the Nemesis is seated
            last: ``self.num_players`` then counts it, ``spec.humans`` does not).
        societies: ``None`` (default: drawn at setup, chance event ``"societies"``: seat i gets
            the Society ``spec.SOCIETIES[perm[i]]`` of a uniformly random permutation) or one
            distinct Society id per seat, First Player first.
        basic_preset: start the variant flags from the JSON ``variants.basic_preset``.
        conjunctions ... finite_pawns: the variant flags of design §11 (``None`` = the preset's
            value); values not implemented yet raise ConfigError.
        nemesis: ``None``/``False`` or a Nemesis id (``"most_holy"``; design §10);
            difficulty: 1..6 with a Nemesis (design §10.5).
        max_rounds: round limit (default ``spec.DEFAULT_MAX_ROUNDS`` = 250; the design's 40 is
            reached by almost every random game and the rulebook has none). margin_weight, margin_scale: returns' margin term.

    Raises:
        ConfigError: a keyword outside its allowed values (see :func:`spec.make_spec`).

    State fields (per seat lists, index = absolute seat): ``gold``, ``energy``, ``intrigue``,
    ``chaos`` (meter + overflow), ``level`` (1..5), ``relic_hand`` (Relic indices 0..107),
    ``relic_known`` (the publicly known part of each hand), ``secret_hand`` / ``secret_deck``
    (Secret indices in ``secrets.<society>`` order; deck top = last), ``secret_discard``,
    ``secret_draws`` ((4,) draws per epoch I-IV), ``panel_tokens`` (tokens per panel this
    round); ``relic_deck`` (top = last), ``relic_map`` (17 Map spaces, -1 empty),
    ``relic_discard``; ``city``, ``pawns``; ``turn`` (active seat), ``rounds_done``, ``phase``,
    ``kind`` (decision due), ``acts`` (Actions being resolved), ``runners`` (effects being
    run), ``end_trigger``, ``end_reason``; ``slots`` (6 per seat, -1 empty), ``tucked``,
    ``cutouts``, ``tokens_free``, ``panel_deep`` / ``deep_held``, ``ftl``, ``tiles`` /
    ``tiles_spent`` / ``board_tile``, ``conj`` / ``conj_row`` / ``conj_secret``,
    ``invest_space`` / ``invest_route``, ``masks_space`` / ``masks_relic`` / ``masks_panel`` /
    ``purged``; ``uf_added`` (Universal Followers from the supply, for :meth:`pawn_totals`);
    ``leader_acts`` ((N, 9 N, 2) Actions started per seat, space and Leader type) and
    ``either_timings`` ((N, 2) 'either' Relic timings per seat), ``board_picks`` ((N, 40)
    Ascension board slots taken per seat), ``pawn_picks`` ((N, 9 N, 4, 3) pawns picked to move
    per seat, origin space and type: picks, spaces moved, the other destination chosen) and
    ``masks_placed_space`` / ``masks_placed_map`` / ``masks_placed_panel`` (the Twilight Masks'
    Chaos placed per space, Map space, seat and panel), ``panel_picks`` ((N, 7, 2) regular and
    Deep alchemy tokens placed per seat and panel), ``relic_assigns`` ((N, 108 + 6) Relics
    assigned per seat, by Relic then by slot), the public record of past
    choices the observation keeps; ``secret_log`` (every Secret move, for the resampler) and
    ``secret_drawn_at`` ((N, 32) when each seat drew each Secret) and ``relic_drawn_at`` ((N,
    108) when each seat last drew each Relic blind, out of its ``relic_draws``): its own record.

    Queries for tests and agents: :meth:`pawn_totals`, :meth:`all_relics`, :meth:`legal_trades`,
    :meth:`score_categories`, :meth:`final_scores`, :meth:`winners`, :meth:`relic_mods`.
    """

    game_name = "clandestine"
    #: the content records (shared, never copied with a state)
    cards = CARDS

    def __init__(self, *, seed: int | None = None, num_players: int = 3,
                 societies: list[str] | None = None, basic_preset: bool = False,
                 conjunctions: bool | None = None, society_powers: bool | None = None,
                 secret_options_b: bool | None = None, relic_effects: bool | None = None,
                 deep_alchemy: bool | None = None, ascension_tiles: bool | None = None,
                 first_to_level_effects: bool | None = None, chaos: bool | None = None,
                 map_extension: bool | None = None, hand_limits: bool | None = None,
                 offturn_alchemy: bool | None = None, finite_pawns: bool | None = None,
                 nemesis: bool | str | None = None, max_rounds: int = DEFAULT_MAX_ROUNDS,
                 margin_weight: float = 0.0,
                 margin_scale: float = 40, difficulty: int | None = None) -> None:
        flags = {"conjunctions": conjunctions, "society_powers": society_powers,
                 "secret_options_b": secret_options_b, "relic_effects": relic_effects,
                 "deep_alchemy": deep_alchemy, "ascension_tiles": ascension_tiles,
                 "first_to_level_effects": first_to_level_effects, "chaos": chaos,
                 "map_extension": map_extension, "hand_limits": hand_limits,
                 "offturn_alchemy": offturn_alchemy, "finite_pawns": finite_pawns,
                 "nemesis": nemesis}
        spec = make_spec(num_players=num_players, societies=societies, basic_preset=basic_preset,
                         max_rounds=max_rounds, margin_weight=margin_weight,
                         margin_scale=margin_scale, difficulty=difficulty, **flags)
        super().__init__(seed=seed, config=spec.config())
        self.spec = spec
        self._setup()
        self._advance()

    # ------------------------------------------------------------------------ setup (§1.1)
    def _setup(self) -> None:
        n, spec = self.spec.num_players, self.spec
        # 1. the Relic deck
        perm = self.chance_permutation("relic_deck", NUM_RELICS)
        self.relic_deck: list[int] = [int(x) for x in perm[::-1]]
        self.relic_map = [-1] * len(MAP_ORDER)
        self._events: list[tuple[int, ...]] = []  # public history after the societies event
        #: the Nemesis's public events since the last action began (:meth:`rules_words`)
        self.rules_said: list[tuple[int, str]] = []
        self.relic_discard: list[int] = []
        # 2. Societies, in reverse turn order
        h = spec.humans
        if spec.societies is None:
            p = self.chance_permutation("societies", len(SOCIETIES))
            self.societies = tuple(SOCIETIES[int(p[i])] for i in range(h))
        else:
            self.societies = tuple(spec.societies)
        #: the Nemesis seat's own state (``nemesis.NemesisSeat``), or None
        self.nem: NEM.NemesisSeat | None = None
        if spec.nemesis is not None:
            self.societies += (spec.nemesis,)
        z = [0] * n
        self.gold, self.energy, self.intrigue, self.chaos = list(z), list(z), list(z), list(z)
        self.level = [1] * n
        self.relic_hand: list[list[int]] = [[] for _ in range(n)]
        self.relic_known: list[list[int]] = [[] for _ in range(n)]
        self.secret_hand: list[list[int]] = [[] for _ in range(n)]
        self.secret_deck: list[list[int]] = [[] for _ in range(n)]
        self.secret_discard: list[list[int]] = [[] for _ in range(n)]
        self.secret_draws = [[0, 0, 0, 0] for _ in range(n)]
        self.panel_tokens = [[0] * 7 for s in range(n)]  # panels 0-5 + the Conjunction's (6)
        self.deep_held = [0] * n  # Deep Alchemy tokens held (from the box of 12)
        self.deep_granted = [0] * n  # held through assigned Relics' deep_alchemy mods
        self.panel_deep = [[0] * 7 for s in range(n)]  # Deep tokens placed this round
        self.conj = [-1] * n  # claimed Conjunction (index in ``conjunctions``)
        self.conj_secret = [False] * n  # the Conjunction Secret has entered the hand (once)
        self.conj_row: list[int] = []
        # the Garden Club's investments (society powers): Gold per City space and per Route
        self.invest_space = [0] * (9 * n)
        self.invest_route = [0, 0, 0, 0]
        # the Twilight Masks' Chaos: per City space, per Map Relic (it stays on its card), per
        # seat and panel; and the Chaos each seat removed by Purge Actions (purge score)
        self.masks_space = [0] * (9 * n)
        self.masks_relic: dict[int, int] = {}
        self.masks_panel = [[0] * 7 for _ in range(n)]
        self.purged = [0] * n
        # the Serpent Keepers: Initiated spaces; primed Secrets (Keepers' Secret indices) per
        # space in priming order; history positions of prime picks (rewritten by resampling)
        self.initiated = [False] * (9 * n)
        self.primed: dict[int, list[int]] = {}
        #: per space, the Keepers' epoch (Level, at most IV) when each primed Secret was primed:
        #: public, and an upper bound on that Secret's Level
        self.primed_epoch: dict[int, list[int]] = {}
        self.prime_steps: list[int] = []
        # Ascension tiles (``ascension_tiles``): on each board slot (-1 none), held per seat
        # (kept sorted by tile id: the order of tile effects), hood tiles flipped
        self.board_tile = [-1] * len(BOARD_SLOTS)
        self.tiles: list[list[int]] = [[] for _ in range(n)]
        self.tiles_spent: list[list[int]] = [[] for _ in range(n)]
        self.trade_input: tuple | None = None  # (seat, "relic"/"secret", outputs) to discard
        self.tucked: list[list[int]] = [[] for _ in range(n)]
        self.slots: list[list[int]] = [[-1] * 6 for _ in range(n)]
        self.cutouts = [4] * n  # Society Leaders left in cutouts 1-4 (the lowest leaves first)
        self.tokens_free = [int(self.society(s)["tokens"]["free"]) for s in range(h)] + [0] * (n - h)
        self.ftl: list[list[int]] = [[] for _ in range(n)]
        self.uf_added = 0
        #: ``(seat, top-first deck + new Level pile, where the pile starts)`` before each
        #: ``secret_shuffle`` chance event (the resampler rewrites its outcome)
        self.shuffle_inputs: list[tuple[int, list[int], int]] = []
        #: every Secret movement in order, ``(code, seat, card)`` (:data:`SECRET_MOVES`; card -1
        #: for a shuffle): the resampler's timeline of draws, reveals, primes and shuffles
        self.secret_log: list[tuple[int, int, int]] = []
        #: per seat and Secret index: when the seat drew it from its deck (1 = its first draw, 0
        #: never drawn; a Secret is drawn at most once): the seat's own record of its draws
        self.secret_drawn_at = np.zeros((n, 32), dtype=np.int64)  # 31 + the Conjunction Secret
        #: per seat and Relic: when the seat last drew it blind from the deck (its count of blind
        #: draws then, 0 never), with that count in ``relic_draws``: the seat's own record
        self.relic_drawn_at = np.zeros((n, NUM_RELICS), dtype=np.int64)
        self.relic_draws = [0] * n
        for seat in reversed(range(h)):
            soc = self.society(seat)
            level1 = [i for i, c in enumerate(_C["secrets"][soc["id"]]) if c["level"] == 1]
            p = self.chance_permutation("secret_deck", len(level1))
            self.secret_deck[seat] = [level1[int(i)] for i in p[::-1]]
            if spec.flags["ascension_tiles"]:  # step 2a: the Society's two Starting tiles
                self.tiles[seat] = sorted((TILE_INDEX[t] for t in soc["starting_tiles"]),
                                          key=lambda i: TILE_IDS[i])
            sw = soc["starts_with"]
            self.gold[seat] += int(sw.get("gold", 0))
            self.energy[seat] += int(sw.get("energy", 0))
            self.gain_chaos(seat, int(sw.get("chaos", 0)))
            self.draw_secrets(seat, int(sw.get("secrets", 0)))
            for _ in range(int(sw.get("relics", 0))):
                self.relic_hand[seat].append(self.relic_deck.pop())
                self._note_blind_draw(seat)
        # 3. the City; 4. its pawns
        side = self.chance_integer("city_side", 2)
        self.city = build_city(n, self.societies, first_action=("Fundraise", "Discover")[side])
        self.pawns = P.initial_pawns(self.city)
        # 5. the Relic Map (relic_map.setup); (humans + 1) Conjunctions in a row
        self._set_map(RM.setup_map(self._deck_ids()))
        if spec.flags["ascension_tiles"]:  # every board tile on its start slot
            self.board_tile = [TILE_INDEX[b["start_tile"]] if b["start_tile"] else -1
                               for b in BOARD_SLOTS]
        if spec.flags["conjunctions"]:
            p = self.chance_permutation("conjunctions", NUM_CONJUNCTIONS)
            self.conj_row = [int(x) for x in p[:h + 1]]
        if spec.nemesis is not None:
            NEM.setup(self)
        # 7. the First Player's turn
        self.turn, self.rounds_done, self.phase = 0, 0, "START"
        self.kind: str | None = None
        self.acts: list[PH.ActionFrame] = []
        self.leader_space, self.end_step = -1, 0
        self.react_queue: list[int] = []  # REACT / FINAL windows still to offer, in order
        self.start_queue: list | None = None  # turn_start triggers still to run at START
        self.ending = False  # the turn that just ended was the last one
        #: ``(seat, column)`` of a suit effect waiting for its ``choose`` decision
        self.choosing: tuple[int, str] | None = None
        #: ``(mode, relic or -1)`` of an ``assign`` in progress
        self.assigning: tuple[str, int] | None = None
        # Secrets: played this turn, extra grants, the one being played, running effects
        self.secrets_played, self.extra_secrets, self.playing = 0, 0, -1
        self.pending_strength = [0] * n
        #: effects being run: ``{"runner": ops.EffectRunner, "base": len(acts) when it started an
        #: Action, "waiting": for that Action}``
        self.runners: list[dict] = []
        self.extra_select = False  # SELECT_LEADER of an extra Action (Public Leaders only)
        #: public record of past choices (perfect recall, CONVENTIONS.md): per seat, Actions
        #: started on each absolute space with each Leader type (0 Public, 1 Society), and
        #: 'either' Relic timings chosen (0 now, 1 after the formula)
        self.leader_acts = np.zeros((n, 9 * n, 2), dtype=np.int64)
        self.either_timings = np.zeros((n, 2), dtype=np.int64)
        #: per seat, Ascension board slots taken (Gaining a Level step 5), tile or not
        self.board_picks = np.zeros((n, len(BOARD_SLOTS)), dtype=np.int64)
        #: per seat, absolute space and pawn type (pl, pf, uf, sl): [0] pawns it picked there to
        #: move (Purge, Regroup, Revolt, new_leader picks and ``move`` effects), [1] the spaces
        #: they were moved (the distances chosen, 0 included), [2] the other destination chosen
        #: (a Purged Universal Follower sent to the Public space after S3 rather than C1, a
        #: ``move`` effect backward): a pawn moved 0 spaces leaves the board as it was
        self.pawn_picks = np.zeros((n, 9 * n, 4, 3), dtype=np.int64)
        #: the Twilight Masks' Chaos placed this game (``place_chaos``): per absolute space, per
        #: Map space (on the Relic there at the time), per seat and panel (0-5, 6 = the
        #: Conjunction's); placed Chaos leaves with an Action, a take or a Purge
        self.masks_placed_space = np.zeros(9 * n, dtype=np.int64)
        self.masks_placed_map = np.zeros(len(MAP_ORDER), dtype=np.int64)
        self.masks_placed_panel = np.zeros((n, 7), dtype=np.int64)
        #: per seat and panel (0-5, 6 = the Conjunction's): regular [0] and Deep [1] alchemy
        #: tokens placed this game (the tokens come back at each turn start)
        self.panel_picks = np.zeros((n, 7, 2), dtype=np.int64)
        #: per seat: Relics it assigned to its slots this game, by Relic (0..107), then by slot
        #: (1-6): a Relic that went back to the hand leaves the slots as they were
        self.relic_assigns = np.zeros((n, NUM_RELICS + 6), dtype=np.int64)
        self.effect_pick: Any = None  # first-stage pick of a two-stage effect decision
        self.end_trigger: int | None = None
        self.end_reason: str | None = None
        self._final: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    def society(self, seat: int) -> dict:
        """The JSON ``societies`` entry of ``seat``'s Society."""
        return _C["societies"][self.societies[seat]]

    # ------------------------------------------------------------------------ contract
    @property
    def num_players(self) -> int:
        return self.spec.num_players

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def agent_seats(self) -> tuple[int, ...]:
        """The human seats ``0..spec.humans-1``: a Nemesis (the last seat) is played by the
        rules (design §10) and is never ``current_player``."""
        return tuple(range(self.spec.humans))

    @property
    def layout(self) -> Layout:
        """The observation :class:`Layout` for this game's number of seats
        (:func:`observation_layout`; docs/clandestine.md has the table), with the Nemesis block
        appended when a Nemesis is seated."""
        return observation_layout(self.num_players, self.spec.nemesis is not None)

    @property
    def observation_size(self) -> int:
        return self.layout.size

    @property
    def decider(self) -> int:
        """The seat whose decision is due: the seat choosing a suit effect's option, else the
        actor of the Action being resolved, else the active seat (design §1.2)."""
        if self.trade_input is not None:
            return self.trade_input[0]
        if self.phase in ("REACT", "FINAL"):
            return self.react_queue[0]
        if self.kind == "choose":
            return self.choosing[0]
        if self.kind == "effect":
            return self.runners[-1]["runner"].pending.seat
        if self.acts:
            return self.acts[-1].actor
        return self.turn

    @property
    def current_player(self) -> int | None:
        return None if self.phase == "OVER" else self.decider

    @property
    def is_terminal(self) -> bool:
        return self.phase == "OVER"

    def legal_action_mask(self) -> np.ndarray:
        if self.phase == "OVER":
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return self._current_mask().copy()

    def _current_mask(self) -> np.ndarray:
        """The mask of the decision due, built once per decision (the engine's own: never
        handed out, :meth:`legal_action_mask` gives copies)."""
        m = self._mask
        if m is None:
            m = np.zeros(NUM_ACTIONS, dtype=np.int8)
            PH.KINDS[self.kind][0](self, m)
            self._mask = m
        return m

    def _apply_action(self, action: int) -> None:
        self.rules_said = []
        self._apply(action)
        self._advance()

    def rules_words(self) -> list[tuple[int, str]]:
        """The Nemesis's public events that the last action led to, in order, as ``(Nemesis
        seat, words)``: its turn (the Intent card flipped, its Ascension, the Leader and Action
        and what they gave, its Alchemy, a reshuffle; :mod:`envs.clandestine.nemesis`) and the
        suit effects it performs when another seat is first to a Level. All public (design
        §1.5: a Nemesis's state is public); never a face-down Intent card."""
        return list(self.rules_said)

    def say(self, words: str) -> None:
        """Record a public event of the Nemesis's play for :meth:`rules_words`."""
        self.rules_said.append((self.nem.seat, words))

    def note(self, kind: int, *args: int) -> None:
        """Public history: an event of the Nemesis's play (kind ``EV_INTENT``,
        ``EV_NEMESIS_RELIC`` or ``EV_NEMESIS_TILE`` of :data:`PUBLIC_EVENTS`; its arguments as
        ints), in the order it happens (design §1.5: a Nemesis's state is public).

        Raises:
            ValueError: another kind, or the wrong number of arguments for the kind.
        """
        if kind not in _NEMESIS_EVENT_ARGS:
            raise ValueError(f"note: event kind {kind!r} is not one of the Nemesis's "
                             f"({sorted(_NEMESIS_EVENT_ARGS)}, PUBLIC_EVENTS)")
        if len(args) != _NEMESIS_EVENT_ARGS[kind]:
            raise ValueError(f"note: the {PUBLIC_EVENTS[kind][0]} event takes "
                             f"{_NEMESIS_EVENT_ARGS[kind]} arguments, got {len(args)}")
        self._events.append((kind, *(int(a) for a in args)))

    def _note_map(self, before: list[int]) -> None:
        """Public history: the Relics newly visible on the Map since ``before``."""
        for space, (a, b) in enumerate(zip(before, self.relic_map)):
            if b >= 0 and a != b:
                self._events.append((EV_MAP, space, int(b)))

    def _apply(self, action: int) -> None:
        blk = decode(action)
        seat = self.decider
        if self.is_prime_pick(action):
            self.prime_steps.append(len(self.history))  # (auto-applied ones are not recorded)
            self._events.append((EV_PRIME_PICK, seat))
        else:
            self._events.append((EV_DECISION, seat, _KIND_IDS[self.kind], int(action)))
        self._mask = None
        PH.KINDS[self.kind][1](self, blk.block, blk.index)
        self._mask = None

    def _hidden_effect_request(self) -> bool:
        """An effect decision whose options depend on the decider's hidden hand, at its first
        stage (``ops.HIDDEN_KINDS``): always asked (the second stage follows a shown pick)."""
        return (self.kind == "effect" and self.effect_pick is None
                and self.runners[-1]["runner"].pending.kind in OPS.HIDDEN_KINDS)

    def is_prime_pick(self, action: int) -> bool:
        """Whether ``action`` (due now) picks the Secret a Prime puts face down: the one decision
        other seats see only as its space (design §1.5 "Actions"; rulebook: primed Secrets stay
        face down). Text views word it without the card (``envs.core.text.PRIVATE_ACTIONS``)."""
        return (self.kind == "effect" and decode(int(action)).block == "SECRET"
                and self.runners[-1]["runner"].pending.kind == "prime")

    def public_history(self) -> list[tuple[int, ...]]:
        """Every public event so far, in order, as ``(kind, *args)`` tuples of ints.

        Vocabulary: :data:`PUBLIC_EVENTS` (docs/clandestine.md, "Public history"; design §1.5).
        The same list for every seat. Cards that become public by a decision (a Secret played,
        a Relic taken from the Map, discarded, assigned or paid) are named by the decision's
        action; hidden draws are counted in the observation (hand sizes, Secret draws per epoch).
        A Nemesis decides nothing: its play adds the cards that chance or its rules make public
        (:meth:`note`: each Intent card flipped, each Relic drawn face up or shown at the Silver
        Guard's set-up and where it went, each Ascension tile it took face up), never a
        face-down Intent card; its END refills are ``map`` events like any other.
        """
        return [(EV_SOCIETIES, *(SOCIETY_CODES.index(x) for x in self.societies))] \
            + list(self._events)

    def _advance(self) -> None:
        """Run automatic steps and single-option decisions until a real choice is due."""
        while self.phase != "OVER":
            if self.kind is None:
                self._step()
                continue
            mask = self._current_mask()
            count = np.count_nonzero(mask)
            if count == 0:
                raise RuntimeError(f"decision {self.kind!r} in phase {self.phase} has an empty "
                                   "mask (engine bug)")
            if count > 1 or self.kind in ALWAYS_ASK or self._hidden_effect_request() or (
                    self.kind == "window_pre" and self.secret_hand[self.decider]):
                return  # a PRE window is asked whenever Secrets are held (their hidden playability)
            self._apply(int(mask.argmax()))  # the one legal id

    # ------------------------------------------------------------------------ phase machine
    def _step(self) -> None:
        """One automatic step: resume an effect whose Action is done, continue the Action on
        top of ``acts``, or the turn's phase."""
        if self.runners:
            e = self.runners[-1]
            if e["waiting"] and len(self.acts) <= e["base"]:
                if self.extra_select:
                    self.kind = "select_leader"
                    return
                e["waiting"] = False
                self._run_effect(e, None, first=False)
                return
        if self.acts:
            self._step_action(self.acts[-1])
            return
        seat = self.turn
        if self.phase == "START" and self.nem is not None and seat == self.nem.seat:
            NEM.step(self)  # the Nemesis's turn runs by itself (design §10.2)
        elif self.phase == "START":
            if self.start_queue is None:
                self.panel_tokens[seat] = [0] * 7  # regular and Deep tokens come back
                self.panel_deep[seat] = [0] * 7
                self.secrets_played, self.extra_secrets = 0, 0
                self.start_queue = self._turn_start_queue(seat)
            if self.start_queue:
                self.run_trade_effect(seat, self.start_queue.pop(0))
            else:
                self.start_queue = None
                self.phase = "PRE"
        elif self.phase == "PRE":
            self.kind = "window_pre"
        elif self.phase == "SELECT_LEADER":
            self.kind = "select_leader"
        elif self.phase == "ACTION":
            self.phase = "POST"
        elif self.phase == "POST":
            self.kind = "window_post"
        elif self.phase == "END":
            self._step_end(seat)
        elif self.phase in ("REACT", "FINAL"):
            self._step_react()
        else:  # pragma: no cover
            raise RuntimeError(f"unknown phase {self.phase!r}")

    def _step_end(self, seat: int) -> None:
        """END steps 1-4 (design §1.2): refill, Energy, hand-limit discards, Chalice."""
        if self.nem is not None and seat == self.nem.seat:  # the lowest Route, no Energy
            ch = self.harbor_choices()
            self.refill_map(ch[0] if ch else None)
            self._pass_chalice()
            return
        lim = self.society(seat)["dial"][self.level[seat] - 1]
        if self.end_step == 0:
            self._refill_map()
        elif self.end_step == 1:
            self.energy[seat] += int(_C["constants"]["end_of_turn_energy"])
            self.end_step = 3
        elif self.end_step == 3:
            top = lim["relic_max"] + self.relic_mods(seat).get("relic_hand", 0)
            if self.spec.flags["hand_limits"] and len(self.relic_hand[seat]) > top:
                self.kind = "hand_discard"
            else:
                self.end_step = 4
        elif self.end_step == 4:
            top = lim["secret_max"] + self.relic_mods(seat).get("secret_hand", 0)
            if self.spec.flags["hand_limits"] and len(self.secret_hand[seat]) > top:
                self.kind = "hand_discard"
            else:
                self.end_step = 5
        else:
            self._pass_chalice()

    # ------------------------------------------------------------------------ Relic Map
    def map_state(self) -> RM.MapState:
        """The Map as a :class:`relic_map.MapState` (Relic text ids)."""
        return RM.MapState(tuple(RELIC_IDS[r] if r >= 0 else None for r in self.relic_map))

    def _deck_ids(self) -> tuple[str, ...]:
        """The Relic deck as text ids, top first (the ``relic_map`` convention)."""
        return tuple(RELIC_IDS[r] for r in reversed(self.relic_deck))

    def _set_map(self, res: RM.RefillResult) -> None:
        """Take a ``relic_map`` fill result; a deck emptied by it triggers the end (§1.6)."""
        before = self.relic_map
        self.relic_map = [RELIC_INDEX[c] if c is not None else -1 for c in res.relic_map.cards]
        self._note_map(before)
        self.relic_deck = [RELIC_INDEX[c] for c in reversed(res.deck)]
        if res.deck_emptied:
            self.record_trigger("relic_deck")

    def harbor_choices(self) -> tuple[str, ...]:
        """Routes the active seat may move into the empty Harbor at END step 1."""
        return RM.harbor_choices(self.map_state())

    def refill_map(self, harbor_route: str | None) -> None:
        """END step 1 (``relic_map.refill_end_of_turn``). The fill draws at most one card per
        Map space filled from the deck (``relic_map.CARDS_ON_MAP``), so only that many cards
        from the top are handed over; the drawn ones leave the deck, and a deck emptied by the
        fill triggers the end (§1.6)."""
        deck = self.relic_deck
        top = tuple(RELIC_IDS[r] for r in reversed(deck[-RM.CARDS_ON_MAP:]))
        res = RM.refill_end_of_turn(self.map_state(), top, harbor_route)
        before = self.relic_map
        self.relic_map = [RELIC_INDEX[c] if c is not None else -1 for c in res.relic_map.cards]
        self._note_map(before)
        drawn = len(res.revealed)
        del deck[len(deck) - drawn:]
        if drawn and not deck:
            self.record_trigger("relic_deck")
        self.end_step = 1

    def _refill_map(self) -> None:
        """END step 1: the Harbor choice is a ``target`` decision (ROUTE block) when needed."""
        if self.harbor_choices():
            self.kind = "target"
        else:
            self.refill_map(None)

    def _pass_chalice(self) -> None:
        """END step 4 (the Chalice to the left), then the REACT round (``offturn_alchemy``:
        each seat clockwise from the left of the seat whose turn ended, that seat last)."""
        n = self.spec.num_players
        nxt = (self.turn + 1) % n
        if nxt == 0:
            self.rounds_done += 1
        self.ending = (self.end_trigger is not None and nxt == self.end_trigger) or (
            self.end_trigger is None and nxt == 0 and self.rounds_done >= self.spec.max_rounds)
        if self.ending and self.end_trigger is None:
            self.end_reason = "round_limit"
        self.end_step = 6
        if self.spec.flags["offturn_alchemy"]:
            self.react_queue = [(self.turn + k) % n for k in range(1, n + 1)]
            self.phase = "REACT"
        else:
            self._after_react()

    def _after_react(self) -> None:
        """After the REACT round: the next seat's START, or the FINAL round and scoring."""
        if not self.ending:
            self.turn, self.phase, self.end_step = (self.turn + 1) % self.num_players, "START", 0
        elif self.spec.flags["offturn_alchemy"] and self.phase == "REACT":
            n = self.num_players
            self.react_queue = [(self.turn + k) % n for k in range(1, n + 1)]
            self.phase = "FINAL"
        else:
            self._game_over()

    def _step_react(self) -> None:
        """REACT / FINAL: a window for the next seat with a legal any-timing trade (design
        §1.2; seats without one are skipped, no forced PASS)."""
        while self.react_queue:
            if self.legal_trades(self.react_queue[0]):
                self.kind = "window_react"
                return
            self.react_queue.pop(0)
        self._after_react()

    def record_trigger(self, reason: str) -> None:
        """Note an end trigger (design §1.6; the trigger seat is the seat whose turn it is)."""
        if reason not in END_REASONS[:2]:
            raise ValueError(f"end trigger must be one of {END_REASONS[:2]}, got {reason!r}")
        if self.end_trigger is None:
            self.end_trigger, self.end_reason = self.turn, reason

    def _game_over(self) -> None:
        self.phase, self.kind, self.acts = "OVER", None, []
        NEM.final_discards(self)  # the Silver Guard's Agents in human Chambers
        self._final = np.array([sum(self.score_categories(s)) for s in range(self.num_players)],
                               dtype=np.int64)

    # ------------------------------------------------------------------------ Actions (§1.3)
    def start_space_action(self, space: int, leader: int) -> None:
        """The active seat acts with ``leader`` on ``space``: Strength, pawns picked up."""
        seat = self.turn
        name = self.city.action(space).lower()
        if name == "revolt" and not self.spec.flags["society_powers"]:
            name = "fundraise"  # ruling 36: the Revolt Chamber is a Fundraise Chamber
        extra = self.extra_select
        mv = P.start_movement(self.city, self.pawns, space, leader, seat,
                              cells=self.nem.cells if self.nem is not None else None)
        # step 1: pending Strength from Secrets is consumed by the next Leader Action (ruling 22)
        strength = mv.strength + self.pending_strength[seat]
        if self.nem is not None:  # step 2: the Silver Guard's Agents on the space (-2 each)
            strength += NEM.agents_on_action(self, seat, space)
        self.pending_strength[seat] = 0
        x = self.masks_space[space]  # step 2: Masks' Chaos on the space
        if x:
            strength += x if self.has_power(seat, "twilight") else -x
            self.masks_space[space] = 0
            self.gain_chaos(seat, x)
        self.leader_acts[seat, space, int(leader == P.SL)] += 1
        traps = self._flip_traps(space, seat)
        self.acts.append(PH.ActionFrame(name, seat, space, leader, strength, PH.MOVE, mv,
                                        moved=np.zeros_like(self.pawns.counts)))
        if traps:  # step 2: the traps resolve before the placement goes on
            self.acts[-1].stage, self.acts[-1].queue = PH.TRAPS, traps
        if extra:  # an extra Action (effect, Revolt): the phase does not change
            self.extra_select = False
        else:
            self.phase = "ACTION"

    def start_act(self, name: str, strength: int, actor: int | None = None) -> None:
        """An ``act`` Action of ``name`` at no space by ``actor`` (default: the active seat);
        no pawns move (``dsl.ops.act``)."""
        if name not in PH.FRAME_NAMES:
            raise ValueError(f"unknown Action {name!r}; Actions: {PH.FRAME_NAMES}")
        seat = self.turn if actor is None else actor
        self.acts.append(PH.ActionFrame(name, seat, -1, -1, int(strength), PH.BEFORE,
                                        moved=np.zeros_like(self.pawns.counts)))

    def _step_action(self, f: PH.ActionFrame) -> None:
        if f.stage == PH.TRAPS:
            if f.queue:
                self._next_queued(f)
            else:
                f.stage, f.queue = PH.MOVE, None
        elif f.stage == PH.MOVE:
            dec = f.movement.pending()
            if dec is not None:
                self.kind = dec.kind
                return
            f.stage = PH.BEFORE
        elif f.stage == PH.BEFORE:  # step 4
            if f.queue is None:
                f.later = []
                f.queue = self._effect_queue(f, "before")
            if f.queue:
                self._next_queued(f)
            else:
                f.stage = PH.FORMULA
        elif f.stage == PH.AFTER:  # (step 6 for an Ascend and) step 7
            if f.queue:
                self._next_queued(f)
            else:
                f.stage = PH.DONE
        elif f.stage == PH.FORMULA:
            self._formula(f)
        elif f.stage == PH.PICK_MAP:
            if f.purchase.legal_picks():
                self.kind = "discover_pick"
            else:
                self.finish_discover(f)
        elif f.stage == PH.ASCEND:  # back from a claim effect or a suit effect's Regroup
            if f.effects is None:  # the Conjunction was claimed: steps 4-5
                f.effects = self.gain_level_rest(f.actor, AS.SUITS[f.suit])
            self.next_suit_effect(f)
        elif f.stage == PH.PICK:
            if PH.pick_candidates(self, f):
                self.kind = "pawn_pick"
            else:
                f.stage = PH.DONE
        elif f.name == "revolt" and f.revolt_step == 0 and self.spec.flags["society_powers"]:
            f.revolt_step = 1  # the Revolt formula ends: gain 1 Chaos
            self.gain_chaos(f.actor, 1)
        elif not f.after_done and f.name in PH.ACTION_NAMES and self.spec.flags["relic_effects"]:
            f.after_done = True
            f.queue = self._effect_queue(f, "after")
            f.stage = PH.AFTER
        elif f.name == "revolt" and f.revolt_step == 1:
            f.revolt_step = 2  # step 8: an extra Action with a Public Leader
            self.extra_select = True
            self.kind = "select_leader"
        else:
            self._payouts(f)
            self.acts.pop()

    # ------------------------------------------------------------------------ Relic effects
    def relic_mods(self, seat: int) -> dict[str, int]:
        """Sum of the eye ``mods`` of ``seat``'s assigned Relics (``relic_effects``) and held
        Ascension tiles."""
        out: dict[str, int] = {}
        eyes = [self.cards.relics[r].eye for r in self.slots[seat] if r >= 0] \
            if self.spec.flags["relic_effects"] else []
        eyes += [self.cards.ascension.tiles[t].eye for t in self.tiles[seat]]
        for eye in eyes:
            for k, v in (eye.mods if eye is not None else ()):
                out[k] = out.get(k, 0) + v
        return out

    def _tile_triggers(self, seat: int, events, timing: str | None) -> list:
        """Effects of ``seat``'s eye tiles triggered by ``events`` (at ``timing``), by id."""
        out = []
        for t in self.tiles[seat]:
            eye = self.cards.ascension.tiles[t].eye
            if eye is not None and eye.trigger is not None and eye.trigger.on in events \
                    and (timing is None or eye.trigger.timing == timing):
                out.append(("run", eye.trigger.effect))
        return out

    def _effect_queue(self, f: PH.ActionFrame, timing: str) -> list:
        """Step 4 (``before``) or 7 (``after``) of §1.3 for ``f``: the used Chamber's '+'
        Relics (an 'either' one asked by ``either_timing`` at step 4, run at step 7 if kept)
        and eye triggers of this Action's events, in Relic slot order; step 7 of an Ascend
        that gained a Level starts with the ``level_up`` triggers (step 6)."""
        seat, rel = f.actor, self.cards.relics
        events = {f.name} | ({"society_action"} if f.leader == P.SL else set())
        if not self.spec.flags["relic_effects"]:
            lv = self._tile_triggers(seat, {"level_up"}, None) \
                if timing == "after" and f.name == "ascend" and f.effects is not None else []
            return lv + self._tile_triggers(seat, events, timing)
        chamber = None
        if f.space >= 0 and self.city.kind_code[f.space] == 2 \
                and int(self.city.seat_of[f.space]) == seat:
            chamber = self.city.space_ids[f.space][-2:]
        slot_chamber = [sl["chamber"] for sl in self.society(seat)["relic_slots"]]
        out: list = []
        if timing == "after" and f.name == "ascend" and f.effects is not None:
            out += [("run", rel[r].eye.trigger.effect) for r in self.slots[seat]
                    if r >= 0 and rel[r].eye is not None and rel[r].eye.trigger is not None
                    and rel[r].eye.trigger.on == "level_up"]
            out += self._tile_triggers(seat, {"level_up"}, None)
        for k, r in enumerate(self.slots[seat]):
            if r < 0:
                continue
            card = rel[r]
            if card.header == "plus" and slot_chamber[k] == chamber:
                if timing == "before" and card.when == "before":
                    out.append(("run", card.plus))
                elif timing == "before" and card.when == "either":
                    out.append(("ask", r))
                elif timing == "before":
                    f.later.append(r)
                elif r in (f.later or ()):
                    out.append(("run", card.plus))
            elif card.eye is not None and card.eye.trigger is not None:
                trig = card.eye.trigger
                if trig.timing == timing and trig.on in events:
                    out.append(("run", trig.effect))
        return out + self._tile_triggers(seat, events, timing)

    def _next_queued(self, f: PH.ActionFrame) -> None:
        what, item, *rest = f.queue.pop(0)
        if what == "run_for":
            self.run_trade_effect(rest[0], item)
        elif what == "ask":
            f.asking = item
            self.kind = "either_timing"
        else:
            self.run_trade_effect(f.actor, item)

    def _turn_start_queue(self, seat: int) -> list:
        """``turn_start`` eye triggers of ``seat``'s Relics (slot order), then tiles (by id)
        (design §1.2 START)."""
        rel = self.cards.relics
        out = [rel[r].eye.trigger.effect for r in self.slots[seat]
               if r >= 0 and rel[r].eye is not None and rel[r].eye.trigger is not None
               and rel[r].eye.trigger.on == "turn_start"] if self.spec.flags["relic_effects"] \
            else []
        return out + [e for _run, e in self._tile_triggers(seat, {"turn_start"}, None)]

    def _formula(self, f: PH.ActionFrame) -> None:
        """Step 5 of §1.3, Strength floored at 0."""
        s, seat = max(0, f.strength), f.actor
        f.stage = PH.DONE
        if f.name == "fundraise":
            self.gold[seat] += s
            if self.nem is not None and f.space >= 0:
                NEM.tithe_on_fundraise(self, seat, f.space, s)
        elif f.name == "reveal":
            self.draw_secrets(seat, s // 2)
        elif f.name == "purge":
            self.lose_chaos_purge(seat, s // 2)
            f.picks_left, f.stage = s // 2, PH.PICK
        elif f.name == "regroup":
            f.picks_left, f.stage = s, PH.PICK
        elif f.name == "revolt" and self.spec.flags["society_powers"]:
            f.picks_left, f.stage = s, PH.PICK  # then 1 Chaos and the extra Action
        elif f.name == "discover":
            costs = RM.map_costs(self.map_state(), RELIC_VALUES, agents={
                                     RELIC_IDS[r]: x for r, x in self.nem.agents_relic.items()}
                                 if self.nem is not None else None,
                                 masks_chaos={RELIC_IDS[r]: x for r, x in self.masks_relic.items()},
                                 buyer_masks=self.has_power(seat, "twilight"),
                                 buyer_mariners=self.has_power(seat, "mariners"))
            f.purchase = RM.DiscoverPurchase(s, costs)
            f.stage = PH.PICK_MAP
        elif f.name == "ascend":
            if self.level[seat] < AS.MAX_LEVEL:  # at Level V nothing happens (ruling 33)
                mods = self.relic_mods(seat)
                f.cost = AS.ascend_cost(AS.society_dial(self.societies[seat]), self.level[seat],
                                        ascend_gold=mods.get("ascend_gold", 0),
                                        ascend_suit=mods.get("ascend_suit", 0))
                f.stage = PH.ASCEND
                self.kind = "ascend_suit"
        else:
            raise RuntimeError(f"the {f.name} Action is not implemented (society_powers=False "
                               "should have made it unreachable)")

    def take_from_map(self, f: PH.ActionFrame, map_index: int) -> None:
        """One Discover pick: the Relic goes to the actor's hand, face up (known part)."""
        f.purchase = f.purchase.pick(MAP_ORDER[map_index])
        relic = self.relic_map[map_index]
        self.relic_map[map_index] = -1
        self.relic_hand[f.actor].append(relic)
        self.relic_known[f.actor].append(relic)
        self.gain_chaos(f.actor, self.masks_relic.pop(relic, 0))  # Masks' Chaos on the card
        if self.nem is not None:  # the Silver Guard's Agents on it return to the supply
            self.nem.agents_relic.pop(relic, None)

    def finish_discover(self, f: PH.ActionFrame) -> None:
        """End of the picks: route Chaos (1 per Route beyond the first; the Mariners' chartered
        routes are an ability, off with ``society_powers=False``)."""
        self.gain_chaos(f.actor, f.purchase.chaos(
            buyer_mariners=self.has_power(f.actor, "mariners"),
            free_routes=self.relic_mods(f.actor).get("free_routes", 0)))
        f.stage = PH.DONE

    def _flip_traps(self, space: int, actor: int) -> list:
        """Step 2: the primed Secrets of ``space`` flip in priming order (face up to the
        Keepers' discard pile); each resolves 'self' for the Keepers acting, else 'rival' for
        the actor then 'reward' for the Keepers. Returns ``("run_for", effect, seat)`` items."""
        cards = self.primed.pop(space, [])
        self.primed_epoch.pop(space, None)
        if not cards:
            return []
        keepers = next(j for j in range(self.num_players) if self.has_power(j, "serpent"))
        out = []
        for idx in cards:
            self.secret_discard[keepers].append(idx)
            self.secret_log.append((SM_FLIP, keepers, idx))
            trap = self.cards.society_secrets("serpent")[idx].trap  # 31: the Conjunction Secret
            if actor == keepers:
                out.append(("run_for", trap.self, keepers))
            else:
                out += [("run_for", trap.rival, actor), ("run_for", trap.reward, keepers)]
        return out

    def has_power(self, seat: int, society: str) -> bool:
        """Whether ``seat`` is ``society`` and society powers are on."""
        return self.spec.flags["society_powers"] and self.societies[seat] == society

    def extend_map(self, slot: str) -> None:
        """The Mariners' ``extend``: the deck's top Relic into Extension ``slot`` (face up)."""
        self._set_map(RM.reveal_to_extension(self.map_state(), self._deck_ids(), slot))

    def _payouts(self, f: PH.ActionFrame) -> None:
        """Step 9 of §1.3, seats clockwise from the actor: the Mariners' port dues on every
        Discover Action (ruling 28: 1 Gold, and 1 Energy if a Relic came from an Extension
        slot); the Garden Club's payouts (the Gold invested on the used space, and on each Route
        a Discover took a Relic from)."""
        discover = f.name == "discover" and f.purchase is not None
        for k in range(self.num_players):
            seat = (f.actor + k) % self.num_players
            if self.has_power(seat, "mariners") and discover:
                self.gold[seat] += 1
                if f.purchase.took_extension():
                    self.energy[seat] += 1
            if self.has_power(seat, "garden"):
                if f.space >= 0:  # space payout (not act Actions)
                    self.gold[seat] += self.invest_space[f.space]
                if discover:  # route payout, once per Route used (the Harbor never pays)
                    for r in f.purchase.routes():
                        self.gold[seat] += self.invest_route[int(r[1:]) - 1]

    # ------------------------------------------------------------------------ Secrets
    def relic_id(self, relic: int) -> str:
        """Text id of Relic index ``relic``."""
        return RELIC_IDS[relic]

    def relic_index(self, relic_id: str) -> int:
        """Index of Relic text id ``relic_id``."""
        return RELIC_INDEX[relic_id]

    def secret_id(self, seat: int, index: int) -> str:
        """Text id of ``seat``'s Secret ``index`` (SECRET block order)."""
        return SECRET_IDS[self.societies[seat]][index]

    def secret_index(self, seat: int, secret_id: str) -> int:
        """SECRET-block index of ``seat``'s Secret ``secret_id``."""
        return SECRET_INDEX[self.societies[seat]][secret_id]

    def secret_options(self, seat: int, index: int) -> list[int]:
        """Options (0 = A, 1 = B) of ``seat``'s Secret ``index`` it may choose now
        (``ops.option_allowed``: B needs ``secret_options_b``, costs payable, not only
        society-only steps with ``society_powers=False``)."""
        card = self.cards.society_secrets(self.societies[seat])[index]
        ctx = PH.EngineContext(self)
        mods = self.relic_mods(seat)
        return [k for k in range(len(card.options))
                if OPS.option_allowed(card, k, ctx, seat, mods)]

    def playable_secrets(self, seat: int) -> list[int]:
        """Secrets ``seat`` may play now: in its PRE window, one a turn (+1 per
        ``extra_secret``), with a legal option (design §1.2)."""
        if self.phase != "PRE" or seat != self.turn or self.runners \
                or self.secrets_played >= 1 + self.extra_secrets:
            return []
        return [i for i in sorted(self.secret_hand[seat]) if self.secret_options(seat, i)]

    def play_secret(self, seat: int, index: int, option: int) -> None:
        """Play a Secret: it goes face up to the Secret discard pile, the option's cost is paid
        and its effect runs (pausing for decisions and Actions)."""
        card = self.cards.society_secrets(self.societies[seat])[index]
        opt = card.options[option]
        cost = OPS.secret_option_cost(opt, self.relic_mods(seat))
        self.discard_secret(seat, index)
        self.energy[seat] -= cost.energy
        self.gold[seat] -= cost.gold
        self.secrets_played += 1
        self.playing = -1
        entry = {"runner": OPS.EffectRunner(opt.effect, seat, card.id), "base": len(self.acts),
                 "waiting": False}
        self.runners.append(entry)
        self._run_effect(entry, None, first=True)

    def _run_effect(self, entry: dict, answer: Any, first: bool) -> None:
        ctx = PH.EngineContext(self)
        runner = entry["runner"]
        done = runner.run(ctx) if first else runner.resume(ctx, answer)
        if done:
            self.runners.pop()
            self.kind = None
        elif runner.pending is not None:
            self.kind = "effect"
        else:  # an Action was scheduled (act, extra_action): resumed once it has resolved
            entry["waiting"] = True
            self.kind = None

    def resume_effect(self, answer: Any) -> None:
        """Answer the pending effect decision and run on."""
        self._run_effect(self.runners[-1], answer, first=False)

    def add_strength(self, seat: int, n: int) -> None:
        """A Strength modifier: on the Action being resolved before its formula, else pending
        for ``seat``'s next Leader Action (design §1.2, ruling 22)."""
        f = self.acts[-1] if self.acts else None
        if f is not None and f.actor == seat and f.stage in (PH.MOVE, PH.BEFORE, PH.FORMULA):
            f.strength += n
        else:
            self.pending_strength[seat] += n

    def place_cutout_leader(self, seat: int, space: int) -> None:
        """``EffectContext.initiate_leader``: the Universal Follower on ``space`` returns to the
        supply and the leader of the lowest occupied cutout takes its place (unlock icon)."""
        cut = self.society(seat)["leaders"]["cutouts"][4 - self.cutouts[seat]]
        self.pawns.counts[space, P.UF] -= 1
        self.uf_added -= 1
        self.cutouts[seat] -= 1
        self.pawns.counts[space, P.SL] += 1
        if cut["unlocks_token"] is not None:
            self.tokens_free[seat] += 1

    # ------------------------------------------------------------------------ Ascend
    def suit_cards(self, seat: int) -> list[AS.SuitCard]:
        """``seat``'s hand as ``ascend.SuitCard`` s: Relics, then Secrets."""
        soc = self.societies[seat]
        return ([AS.relic_card(RELIC_IDS[r]) for r in self.relic_hand[seat]]
                + [AS.secret_card(SECRET_IDS[soc][i]) for i in self.secret_hand[seat]])

    def card_action(self, seat: int, card_id: str) -> tuple[str, int]:
        """``(block, index)`` of a hand card: RELIC by Relic index, SECRET by Secret index."""
        if card_id in RELIC_INDEX:
            return "RELIC", RELIC_INDEX[card_id]
        return "SECRET", SECRET_INDEX[self.societies[seat]][card_id]

    def card_id(self, seat: int, block: str, index: int) -> str:
        """Inverse of :meth:`card_action`."""
        return RELIC_IDS[index] if block == "RELIC" else SECRET_IDS[self.societies[seat]][index]

    @staticmethod
    def board_slot_index(slot_id: str) -> int:
        """BOARD-block index of an Ascension board slot id."""
        return BOARD_INDEX[slot_id]

    def continue_ascend(self, f: PH.ActionFrame) -> None:
        """Ask for the next card until the Suit cost is covered; then pay and gain a Level."""
        paid = [AS.relic_card(c) if c in RELIC_INDEX else AS.secret_card(c) for c in f.paid]
        if not AS.covered(paid, AS.SUITS[f.suit], f.cost.suits):
            self.kind = "ascend_card"
            return
        seat = f.actor
        self.gold[seat] -= f.cost.gold
        for cid in f.paid:
            block, index = self.card_action(seat, cid)
            if block == "RELIC":  # tucked: scored, identity public
                self.relic_hand[seat].remove(index)
                if index in self.relic_known[seat]:
                    self.relic_known[seat].remove(index)
                self.tucked[seat].append(index)
            else:
                self.discard_secret(seat, index)
        self.gain_level(seat)
        if self.level[seat] == 2 and self.spec.flags["conjunctions"] and self.conj_row:
            self.kind = "conjunction_pick"  # step 3; then steps 4-5 (``_step_action``)
            return
        f.effects = self.gain_level_rest(seat, AS.SUITS[f.suit])
        self.next_suit_effect(f)

    def claim_conjunction(self, seat: int, position: int) -> None:
        """Gaining a Level step 3 (at Level II): take the Conjunction at ``position`` of the
        row, resolve its claim effect (effect language); its panel becomes the seat's panel 6."""
        j = self.conj_row.pop(position)
        self.conj[seat] = j
        eff = self.cards.conjunctions[j].claim_effect
        entry = {"runner": OPS.EffectRunner(eff, seat, self.cards.conjunctions[j].id),
                 "base": len(self.acts), "waiting": False}
        self.runners.append(entry)
        self._run_effect(entry, None, first=True)

    def check_conjunction(self, seat: int) -> None:
        """``procedures.conjunction_check`` after an assignment: a complete goal puts the
        Conjunction Secret into the hand (once per game; public)."""
        if self.conj[seat] < 0 or self.conj_secret[seat]:
            return
        if self.conjunction_matches(seat) == 6:
            self.conj_secret[seat] = True
            self.secret_hand[seat].append(CONJ_SECRET)

    def conjunction_matches(self, seat: int) -> int:
        """Assigned Relics matching the claimed Conjunction's goal (``scoring``), 0 without."""
        if self.conj[seat] < 0:
            return 0
        rel = _C["relics"]
        slots = [None if r < 0 else tuple(x for x in (rel[r]["suit"], rel[r]["alt_suit"]) if x)
                 for r in self.slots[seat]]
        return SC.conjunction_matches(_C["conjunctions"][self.conj[seat]]["goal"], slots)

    def gain_level(self, seat: int) -> None:
        """Gaining a Level (``procedures.gain_level``) steps 1-2: the dial, the new Level's
        Secrets shuffled into the deck and 2 drawn (skip at V)."""
        self.level[seat] += 1
        new = self.level[seat]
        if new <= 4:
            soc = self.societies[seat]
            pile = [i for i, c in enumerate(_C["secrets"][soc]) if c["level"] == new]
            before = self.secret_deck[seat][::-1] + pile
            self.shuffle_inputs.append((seat, before, len(before) - len(pile)))
            self.secret_log.append((SM_SHUFFLE, seat, -1))
            perm = self.chance_permutation("secret_shuffle", len(before))
            self.secret_deck[seat] = [before[int(p)] for p in perm][::-1]
            self.draw_secrets(seat, 2)

    def gain_level_rest(self, seat: int, suit: str) -> list[tuple[int, str]]:
        """Gaining a Level steps 4a, 4b; returns step 4c's suit effects to perform (``(seat,
        column)``, clockwise from the ascender's left). Step 5 is the ``board_pick`` decision;
        step 6 has no triggers with ``relic_effects=False``."""
        n, new = self.num_players, self.level[seat]
        effects: list[tuple[int, str]] = []
        if not any(new in t for t in self.ftl):
            self.ftl[seat].append(new)
            if self.spec.flags["first_to_level_effects"] and new < 5:
                for k in range(1, n + 1):  # clockwise from the ascender's left (finite supply)
                    for sw in self.city.sidewalks((seat + k) % n):
                        if self.uf_supply() != 0:
                            self.pawns.counts[sw, P.UF] += 1
                            self.uf_added += 1
                effects = [((seat + k) % n, SUIT_COLUMN[suit]) for k in range(1, n)]
        if new == AS.MAX_LEVEL:
            self.record_trigger("level_v")
        return effects

    def next_suit_effect(self, f: PH.ActionFrame) -> None:
        """Gaining a Level step 4c, one other seat at a time (``ascension.suit_effects``); then
        step 5 (``board_pick``)."""
        while f.effects:
            seat, column = f.effects.pop(0)
            if self.nem is not None and seat == self.nem.seat:
                NEM.suit_effect(self, column, f.actor)
            elif column == "Military":
                self.military_sweep()
            elif column == "Occult":
                self.draw_relics(seat, 1)
                self.draw_secrets(seat, 1)
                self.gain_chaos(seat, 1)
            else:  # Economic, Political: a choice of the seat concerned
                self.choosing = (seat, column)
                self.kind = "choose"
                return
        if self.nem is not None and f.actor == self.nem.seat:
            f.stage = PH.DONE  # a Nemesis ascension: no board pick (it took its tiles)
            return
        self.kind = "board_pick"

    def choice_options(self) -> list:
        """The options of the pending ``choose`` (lists of ops)."""
        return SUIT_EFFECTS[self.choosing[1]][0]["options"]

    def resolve_choice(self, k: int) -> None:
        """Perform option ``k`` of the pending suit effect for the choosing seat (Amount
        ``per: ascender_level`` = the ascender's new Level)."""
        seat, _column = self.choosing
        option = self.choice_options()[k]
        self.choosing = None
        level = self.level[self.acts[-1].actor]
        for op in option:
            n = op.get("n", op.get("strength"))
            n = level if isinstance(n, dict) and n.get("per") == "ascender_level" else int(n)
            if op["op"] == "gain" and op["res"] != "chaos":
                getattr(self, op["res"])[seat] += n
            elif op["op"] == "draw_relic":
                self.draw_relics(seat, n)
            elif op["op"] == "lose" and op["res"] == "chaos":
                self.chaos[seat] = max(0, self.chaos[seat] - n)
            elif op["op"] == "act" and op["action"] == "regroup":
                self.start_act("regroup", n, actor=seat)
            else:  # pragma: no cover - the JSON's suit effects use only these
                raise RuntimeError(f"suit effect op {op} is not implemented")

    def military_sweep(self) -> None:
        """``military_sweep`` (design §4): every Public and Universal Follower on a Public-path
        space without a Public Leader moves forward to the next Public-path space holding one."""
        loop = [int(s) for s in self.city.public_loop]
        c = self.pawns.counts
        has_pl = [c[s, P.PL] > 0 for s in loop]
        if not any(has_pl):  # pragma: no cover - there is always a Public Leader
            return
        moves = []
        for i, s in enumerate(loop):
            if has_pl[i]:
                continue
            j = (i + 1) % len(loop)
            while not has_pl[j]:
                j = (j + 1) % len(loop)
            moves.append((s, loop[j]))
        for s, dest in moves:
            for t in (P.PF, P.UF):
                c[dest, t] += c[s, t]
                c[s, t] = 0

    def take_board_slot(self, f: PH.ActionFrame, index: int) -> None:
        """Gaining a Level step 5: the tile on the slot, or the slot's empty-slot resources
        (``gain`` / ``lose`` Chaos) when it holds none."""
        seat = f.actor
        self.board_picks[seat, index] += 1
        if self.board_tile[index] >= 0:
            self.tiles[seat] = sorted(self.tiles[seat] + [self.board_tile[index]],
                                      key=lambda i: TILE_IDS[i])
            self.board_tile[index] = -1
            f.stage = PH.DONE
            return
        for op in BOARD_SLOTS[index]["empty_reward"]:
            if op["op"] == "gain" and op["res"] == "chaos":
                self.gain_chaos(seat, op["n"])
            elif op["op"] == "gain":
                getattr(self, op["res"])[seat] += op["n"]
            elif op["op"] == "lose" and op["res"] == "chaos":
                self.chaos[seat] = max(0, self.chaos[seat] - op["n"])
            else:  # pragma: no cover - the JSON's empty rewards use only these
                raise RuntimeError(f"empty-slot reward op {op} is not implemented")
        f.stage = PH.DONE

    # ------------------------------------------------------------------------ resources
    def gain_chaos(self, seat: int, n: int) -> None:
        """Gain ``n`` Chaos (meter bottom-up, then overflow; nothing with ``chaos=False``)."""
        if self.spec.flags["chaos"]:
            self.chaos[seat] += n

    def lose_chaos_purge(self, seat: int, n: int) -> None:
        """Purge's Chaos removal (ruling 6): Masks' Chaos on the seat's panels first (lowest
        panel first), then overflow and meter top-down; the Masks count what they remove
        (purge score, ruling 11)."""
        for p in range(7):
            k = min(n, self.masks_panel[seat][p])
            self.masks_panel[seat][p] -= k
            n -= k
        k = min(n, self.chaos[seat])
        self.chaos[seat] -= k
        if self.has_power(seat, "twilight"):
            self.purged[seat] += k

    def black_slots_filled(self, seat: int) -> bool:
        """Whether a black (top) Chaos slot is filled: no alchemy then (design §1.2)."""
        ch = self.society(seat)["chaos"]
        return self.chaos[seat] > ch["slots"] - ch["black_top"]

    def chaos_penalty(self, seat: int) -> int:
        """End penalty of the highest filled Chaos slot (overflow = top slot)."""
        pen = self.society(seat)["chaos"]["penalty"]
        c = self.chaos[seat]
        return 0 if c == 0 else int(pen[min(c, len(pen)) - 1])

    def draw_secrets(self, seat: int, n: int) -> int:
        """Draw up to ``n`` Secrets from ``seat``'s deck to its hand; returns how many."""
        k = min(n, len(self.secret_deck[seat]))
        epoch = min(self.level[seat], 4)
        for _ in range(k):
            self.secret_hand[seat].append(self.secret_deck[seat].pop())
            self.secret_draws[seat][epoch - 1] += 1
            self.secret_log.append((SM_DRAW, seat, self.secret_hand[seat][-1]))
            self.secret_drawn_at[seat, self.secret_hand[seat][-1]] = sum(self.secret_draws[seat])
        return k

    def _note_blind_draw(self, seat: int) -> None:
        """The seat's own record of the Relic it just drew blind (the last of its hand)."""
        self.relic_draws[seat] += 1
        self.relic_drawn_at[seat, self.relic_hand[seat][-1]] = self.relic_draws[seat]

    def draw_relics(self, seat: int, n: int) -> int:
        """Blind draw of up to ``n`` Relics from the deck to ``seat``'s hand (hidden part; face
        up for a Nemesis, design §10.1); the draw that takes the last card triggers the end
        (ruling 18)."""
        k = min(n, len(self.relic_deck))
        for _ in range(k):
            self.relic_hand[seat].append(self.relic_deck.pop())
            self._note_blind_draw(seat)
            if self.nem is not None and seat == self.nem.seat:  # a Nemesis hand is public
                self.relic_known[seat].append(self.relic_hand[seat][-1])
                self.note(EV_NEMESIS_RELIC, self.relic_hand[seat][-1], 0)
        if k and not self.relic_deck:
            self.record_trigger("relic_deck")
        return k

    def discard_relic(self, seat: int, relic: int) -> None:
        """A Relic from ``seat``'s hand to the face-up Relic discard pile."""
        self.relic_hand[seat].remove(relic)
        if relic in self.relic_known[seat]:
            self.relic_known[seat].remove(relic)
        self.relic_discard.append(relic)

    def discard_secret(self, seat: int, secret: int) -> None:
        """A Secret from ``seat``'s hand to its face-up Secret discard pile."""
        self.secret_hand[seat].remove(secret)
        self.secret_discard[seat].append(secret)
        self.secret_log.append((SM_REVEAL, seat, secret))

    # ------------------------------------------------------------------------ alchemy
    def legal_trades(self, seat: int) -> list[tuple[int, int]]:
        """``(panel, trade)`` pairs ``seat`` may make now (design §1.2 'Legal trade'): a free
        regular token and a panel without one, no black Chaos slot filled, inputs payable, and
        timing ``any`` in the REACT and FINAL windows.
        Readings: the Initiation trade's ``uf`` input is paid by ``new_leader`` itself, so the
        trade is offered only when ``new_leader`` can be done (a Universal Follower on the
        Society path, and the next cutout's Level gate met or every cutout empty); the Garden
        Club's 5 Gold Assignment trade is a society power (ruling 36). A Nemesis has none."""
        if self.nem is not None and seat == self.nem.seat:
            return []
        regular = self.tokens_free[seat] - sum(self.panel_tokens[seat]) > 0
        deep = self.deep_held[seat] + self.deep_granted[seat] - sum(self.panel_deep[seat]) > 0
        if not (regular or deep) or self.black_slots_filled(seat):
            return []
        off_turn = self.phase in ("REACT", "FINAL")
        tokens, deeps, masks = self.panel_tokens[seat], self.panel_deep[seat], \
            self.masks_panel[seat]
        # a regular token on a panel without one, or a Deep token on a panel that holds one
        placeable = [((regular and not tokens[p] and not deeps[p])
                      or (deep and (tokens[p] or deeps[p]) > 0))
                     and not masks[p]  # Masks' Chaos blocks the panel
                     for p in range(7)]
        powers = self.spec.flags["society_powers"]
        gold, energy = self.gold[seat], self.energy[seat]
        leader_energy = initiate = None  # asked once, for the first trade that needs them
        out = []
        for p, pid, timing, trades in _PANEL_TRADES[self.societies[seat]]:
            if (pid not in IMPLEMENTED_PANELS and not (pid in SOCIETY_PANELS and powers)) \
                    or not placeable[p]:
                continue
            if off_turn and timing != "any":
                continue
            for t, g, e, uf, assign_gold in trades:
                if uf:  # the Initiation trade's Energy changed by ``leader_energy`` mods
                    if leader_energy is None:
                        leader_energy = self.relic_mods(seat).get("leader_energy", 0)
                    e = max(0, e + leader_energy)
                if gold < g or energy < e:
                    continue
                if assign_gold and not powers:
                    continue
                if uf:
                    if initiate is None:
                        initiate = self.can_initiate(seat)
                    if not initiate:
                        continue
                out.append((p, t))
        j = self.conj[seat]
        panel = self.cards.conjunctions[j].panel if j >= 0 else None
        if panel is not None and placeable[CONJ_PANEL] \
                and not (off_turn and panel.timing != "any"):
            for t, trade in enumerate(panel.trades):
                if OPS.trade_inputs_payable(trade, PH.EngineContext(self), seat):
                    out.append((CONJ_PANEL, t))
        return out

    def make_trade(self, seat: int, panel: int, trade: int) -> None:
        """Place a token, pay the inputs, resolve the outputs (``gain``, ``act``, ``assign``,
        ``new_leader``; the Conjunction's panel through the effect language, a Relic or Secret
        input discarded first by the ``hand_discard`` decision)."""
        self._place_token(seat, panel)
        if panel == CONJ_PANEL:
            tr6 = self.cards.conjunctions[self.conj[seat]].panel.trades[trade]
            need = dict(tr6.inputs)
            self.gold[seat] -= need.get("gold", 0)
            self.energy[seat] -= need.get("energy", 0)
            card = "relic" if "relic" in need else "secret" if "secret" in need else None
            if card is not None:
                self.trade_input = (seat, card, tr6.out)
                self.kind = "hand_discard"
            else:
                self.run_trade_effect(seat, tr6.out)
            return
        tr = self.society(seat)["panels"][panel]["trades"][trade]
        self.gold[seat] -= tr["in"].get("gold", 0)
        self.energy[seat] -= self._trade_energy(seat, tr["in"])
        if self.society(seat)["panels"][panel]["id"] in SOCIETY_PANELS:  # effect language
            soc = self.cards.societies[self.societies[seat]]
            self.run_trade_effect(seat, soc.panels[panel].trades[trade].out)
            return
        for op in tr["out"]:
            if op["op"] == "gain":
                res = op["res"]
                if res == "chaos":
                    self.gain_chaos(seat, op["n"])
                else:
                    getattr(self, res)[seat] += op["n"]
            elif op["op"] == "act":
                self.start_act(op["action"], op["strength"], actor=seat)
            elif op["op"] == "assign":  # asked even without a legal pair (then PASS only)
                self.assigning = (op["slot"], -1)
                self.kind = "assign"
            elif op["op"] == "new_leader":
                self.start_act("new_leader", 0, actor=seat)
                self.acts[-1].picks_left, self.acts[-1].stage = 1, PH.PICK
            else:  # pragma: no cover - IMPLEMENTED_PANELS hold only these ops
                raise RuntimeError(f"trade op {op['op']!r} is not implemented")

    def _trade_energy(self, seat: int, cost: dict) -> int:
        """Energy input of a trade; the Initiation trade's changed by ``leader_energy`` mods."""
        e = cost.get("energy", 0)
        if "uf" in cost:
            e = max(0, e + self.relic_mods(seat).get("leader_energy", 0))
        return e

    def _place_token(self, seat: int, panel: int) -> None:
        """A regular token on a panel without one, else a Deep token (design §1.2)."""
        if not self.panel_tokens[seat][panel] and not self.panel_deep[seat][panel] \
                and self.tokens_free[seat] - sum(self.panel_tokens[seat]) > 0:
            self.panel_tokens[seat][panel] += 1
            self.panel_picks[seat, panel, 0] += 1
        else:
            self.panel_deep[seat][panel] += 1
            self.panel_picks[seat, panel, 1] += 1

    def uf_supply(self) -> int | None:
        """Universal Followers left in the supply: ``None`` (unlimited) unless ``finite_pawns``,
        then 55 minus those in play (ruling 'Finite Universal Followers')."""
        if not self.spec.flags["finite_pawns"]:
            return None
        return UF_SUPPLY - int(self.pawn_totals()[P.UF]) - self.uf_added

    @property
    def deep_box(self) -> int:
        """Deep Alchemy tokens left in the box of 12 (ruling 32)."""
        return DEEP_TOKENS - sum(self.deep_held) - sum(self.deep_granted)

    def run_trade_effect(self, seat: int, effect) -> None:
        """Run a trade's outputs (compiled effect) for ``seat``."""
        entry = {"runner": OPS.EffectRunner(effect, seat, "trade"), "base": len(self.acts),
                 "waiting": False}
        self.runners.append(entry)
        self._run_effect(entry, None, first=True)

    def assign_pairs(self, seat: int, mode: str) -> list[tuple[int, int]]:
        """``(relic, slot index 0..5)`` pairs for ``assign`` (``dsl.ops.assign``): a Relic from
        hand to an empty (``empty``) or filled (``filled``) slot, Dark Relics only in the
        slots with ``dark_allowed`` (3 and 4)."""
        slots = self.society(seat)["relic_slots"]
        out = []
        for r in sorted(set(self.relic_hand[seat])):
            for k, sl in enumerate(slots):
                filled = self.slots[seat][k] >= 0
                if (mode == "empty" and filled) or (mode == "filled" and not filled):
                    continue
                if RELIC_DARK[r] and not sl["dark_allowed"]:
                    continue
                out.append((r, k))
        return out

    def assign_relic(self, seat: int, relic: int, slot: int) -> None:
        """Put ``relic`` from hand on ``slot``; a Relic already there returns to the hand's
        known part (design §1.5 Hands)."""
        self.relic_hand[seat].remove(relic)
        if relic in self.relic_known[seat]:
            self.relic_known[seat].remove(relic)
        old = self.slots[seat][slot]
        if old >= 0:
            self.relic_hand[seat].append(old)
            self.relic_known[seat].append(old)
        self.slots[seat][slot] = relic
        self.relic_assigns[seat, relic] += 1  # public: an assigned Relic lies face up
        self.relic_assigns[seat, NUM_RELICS + slot] += 1
        self.check_conjunction(seat)
        self._grant_deep(seat)

    def _grant_deep(self, seat: int) -> None:
        """Deep tokens of ``mods.deep_alchemy``: held while the Relic stays assigned, taken
        from the box when it has some (ruling 32; unsatisfied holders are not yet served
        later when tokens return)."""
        want = self.relic_mods(seat).get("deep_alchemy", 0)
        self.deep_granted[seat] = 0
        self.deep_granted[seat] = max(0, min(want, self.deep_box))

    def can_initiate(self, seat: int) -> bool:
        """Whether ``new_leader`` can be done now (strict, ``ignore_level = False``)."""
        path = list(self.city.society_path(seat))
        if not self.pawns.counts[path, P.UF].any():
            return False
        cuts = self.society(seat)["leaders"]["cutouts"]
        # with every cutout empty the trade stays, gated by the 4th cutout's Level (ruling 13)
        cut = cuts[4 - self.cutouts[seat]] if self.cutouts[seat] else cuts[3]
        return self.level[seat] >= cut["min_level"]

    def initiate_leader(self, seat: int, space: int) -> None:
        """``new_leader``: the Universal Follower on ``space`` is replaced by the Society Leader
        of the lowest occupied cutout (+1 Chaos on a Sidewalk; the cutout's unlock icon frees
        an alchemy token); with every cutout empty the Universal Follower returns to the supply
        and the seat gains 4 Intrigue (``societies.<id>.leaders``)."""
        soc = self.society(seat)
        self.pawns.counts[space, P.UF] -= 1
        self.uf_added -= 1  # the Universal Follower returns to the supply
        if self.cutouts[seat] == 0:
            self.intrigue[seat] += int(soc["leaders"]["all_leaders_out_reward"]["intrigue"])
            return
        cut = soc["leaders"]["cutouts"][4 - self.cutouts[seat]]
        self.cutouts[seat] -= 1
        self.pawns.counts[space, P.SL] += 1
        if self.city.kind_code[space] == 1:  # a Sidewalk
            self.gain_chaos(seat, 1)
        if cut["unlocks_token"] is not None:
            self.tokens_free[seat] += 1

    # ------------------------------------------------------------------------ scoring (§1.6)
    def seat_score(self, seat: int) -> SC.SeatScore:
        """``seat``'s final score by the scoring module (design §1.6; ``scoring.score``); a
        Nemesis's from its scoring card (``scoring.nemesis_score``, design §10.8)."""
        if self.nem is not None and seat == self.nem.seat:
            return SC.nemesis_score(NEM.score(self), tuple(sorted(self.ftl[seat])))
        soc_path = list(self.city.society_path(seat))
        sheet = SC.ScoreSheet.for_society(
            self.societies[seat], level=self.level[seat],
            tucked_relics=sum(RELIC_INTRIGUE[r] for r in self.tucked[seat]),
            secrets_in_hand=sum(self.cards.society_secrets(self.societies[seat])[i].intrigue
                                for i in self.secret_hand[seat]),
            conjunction_matches=self.conjunction_matches(seat),
            flag_relics=self.flag_intrigue(seat),
            society_leaders=self.pawns.society_leaders_of(self.city, seat),
            universal_followers=int(self.pawns.counts[soc_path, P.UF].sum()),
            intrigue_tokens=self.intrigue[seat],
            flag_tiles=sum(SC.ftl_intrigue(lv) for lv in self.ftl[seat]) + self.flag_tiles(seat),
            purged_chaos=self.purged[seat] if self.has_power(seat, "twilight") else 0,
            chaos=self.chaos[seat], first_to_level=tuple(sorted(self.ftl[seat])))
        return SC.score(sheet)

    def flag_tiles(self, seat: int) -> int:
        """Intrigue of the flag Ascension and Starting tiles ``seat`` holds."""
        ctx = PH.EngineContext(self)
        tiles = self.cards.ascension.tiles
        return sum(OPS.evaluate(tiles[t].flag, ctx, seat) for t in self.tiles[seat]
                   if tiles[t].header == "flag")

    def flippable_tiles(self, seat: int) -> list[int]:
        """Hood tiles ``seat`` may flip now: held, not yet flipped, in its own PRE or POST
        window; in POST not a tile whose whole effect is ``extra_secret`` (design §1.2)."""
        if self.phase not in ("PRE", "POST") or seat != self.turn or self.runners:
            return []
        tiles = self.cards.ascension.tiles
        out = []
        for t in self.tiles[seat]:
            if tiles[t].header != "hood" or t in self.tiles_spent[seat]:
                continue
            if self.phase == "POST" and all(op.name == "extra_secret" for op in tiles[t].flip):
                continue
            out.append(t)
        return out

    def flip_tile(self, seat: int, tile: int) -> None:
        """FLIP: a hood tile is spent and its effect resolves at once (effect language)."""
        self.tiles_spent[seat].append(tile)
        self.run_trade_effect(seat, self.cards.ascension.tiles[tile].flip)

    def flag_intrigue(self, seat: int) -> int:
        """Intrigue of the flag Relics assigned in ``seat``'s Chambers (``relic_effects``)."""
        if not self.spec.flags["relic_effects"]:
            return 0
        ctx = PH.EngineContext(self)
        return sum(OPS.evaluate(self.cards.relics[r].flag, ctx, seat) for r in self.slots[seat]
                   if r >= 0 and self.cards.relics[r].header == "flag")

    def score_categories(self, seat: int) -> list[int]:
        """``seat``'s Intrigue by ``scoring.human`` category, in order (10 ints); a Nemesis's
        scoring-card total as its only entry."""
        if self.nem is not None and seat == self.nem.seat:
            return [NEM.score(self)]
        return list(self.seat_score(seat).categories)

    def pawn_totals(self) -> np.ndarray:
        """Int64 (4,) pawns of each type in the City plus those picked up by a movement in
        progress and the Society Leaders still in cutouts, minus the Universal Followers added
        from the supply (``uf_added``, net of those returned to it): constant over a game."""
        tot = self.pawns.totals() - np.array([0, 0, self.uf_added, -sum(self.cutouts)])
        for f in self.acts:
            if f.movement is not None:
                tot = tot + np.asarray(f.movement.in_hand, dtype=np.int64)
        if self.nem is not None:  # the Most Holy's Choir
            tot = tot + NEM.off_city_pawns(self)
        return tot

    def all_relics(self) -> list[int]:
        """Every Relic index in every pile (deck, Map, discard, hands, slots, tucked), sorted:
        ``list(range(108))`` while the 108 Relics are conserved."""
        out = self.relic_deck + [r for r in self.relic_map if r >= 0] + self.relic_discard
        for j in range(self.num_players):
            out += self.relic_hand[j] + [r for r in self.slots[j] if r >= 0] + self.tucked[j]
        if self.nem is not None:  # the Silver Guard's Vault
            out += self.nem.vault_relics
        return sorted(out)

    def final_scores(self) -> np.ndarray:
        """Int64 (n,) final Intrigue, or current totals before the end."""
        if self._final is not None:
            return self._final.copy()
        return np.array([sum(self.score_categories(s)) for s in range(self.num_players)])

    def winners(self) -> list[int]:
        """Winning seats after the tie-break (ruling 27; ``scoring.winners``)."""
        return list(SC.winners([self.seat_score(s) for s in range(self.num_players)]))

    def returns(self) -> np.ndarray:
        """Float64 (n,): +1 each winner, -1 the others, plus ``margin_weight`` x clipped
        Intrigue margin (design §1.6 Returns; ``scoring.final_returns``); zeros before the end."""
        if self.phase != "OVER":
            return np.zeros(self.num_players)
        return np.asarray(SC.final_returns([self.seat_score(s) for s in range(self.num_players)],
                                           margin_weight=self.spec.margin_weight,
                                           margin_scale=self.spec.margin_scale),
                          dtype=np.float64)

    # ------------------------------------------------------------------------ views
    def observation_tensor(self, seat: int) -> np.ndarray:
        """Float32 (observation_size,): what ``seat`` knows (design §1.5), layout
        :func:`observation_layout` (module docstring table)."""
        return encode_observation(self, seat)

    def action_to_string(self, action: int) -> str:
        """``action`` in the rulebook's words, with the names of the cards, tiles and trades
        (:func:`envs.clandestine.words.action_words`)."""
        return action_words(self, action)

    def rules_seat_label(self, seat: int) -> str | None:
        """Who plays ``seat`` when no agent does: ``"the Nemesis The Most Holy (P1, difficulty
        3)"`` for the solo Nemesis seat, else None."""
        if self.nem is None or seat != self.nem.seat:
            return None
        return f"the Nemesis {NEMESIS_NAMES.get(self.spec.nemesis, self.spec.nemesis)} " \
               f"(P{seat}, difficulty {self.config.get('difficulty')})"

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is not legal now: the decision due and the blocks it accepts."""
        blk = decode(action)
        legal = sorted({decode(a).block for a in self.legal_actions()})
        return (f"the decision due is {self.kind!r} (phase {self.phase}, seat {self.decider}); "
                f"{blk.block} {blk.index} is not one of its options (legal blocks: "
                f"{', '.join(legal)})")

    def render_text(self, seat: int | None = None) -> str:
        return render_state(self, seat)

    def hidden_truth(self) -> dict[str, Any]:
        out = {"primed": {int(k): list(v) for k, v in self.primed.items()},
               "relic_hands": [list(h) for h in self.relic_hand],
               "secret_hands": [list(h) for h in self.secret_hand],
               "relic_deck": list(self.relic_deck),
               "secret_decks": [list(d) for d in self.secret_deck]}
        if self.nem is not None:  # the Nemesis's face-down Intent cards (design §10.5)
            out["intent_deck"] = list(self.nem.deck)
        return out

    def reveal_text(self) -> str:
        """Every secret of :meth:`hidden_truth` in the rulebook's words: each seat's Relic and
        Secret hands and Secret deck, the primed Secrets by space, the Relic deck from its top,
        a Nemesis's face-down Intent cards; cards by name and id, as the text view names them."""
        names = [society_name(soc) for soc in self.societies]
        width = max(len(name) for name in names)

        def row(cards: list[str]) -> str:
            return "; ".join(cards) if cards else "none"

        lines: list[str] = []

        def per_seat(title: str, piles: list[list[int]], word: Any) -> None:
            lines.append(title)
            lines.extend(f"  seat {s} {names[s]:{width}s} {row([word(s, c) for c in pile])}"
                         for s, pile in enumerate(piles))

        def secret(s: int, i: int) -> str:
            return secret_words(self.societies[s], i)

        per_seat("Relic hands:", self.relic_hand, lambda s, r: relic_words(r))
        per_seat("Secret hands:", self.secret_hand, secret)
        per_seat("Secret decks:", self.secret_deck, secret)
        keepers = [s for s in range(self.num_players) if self.has_power(s, "serpent")]
        primed = [f"  {self.city.space_ids[sp]}: "
                  f"{row([secret_words(self.societies[keepers[0]], i) for i in cards])}"
                  for sp, cards in sorted(self.primed.items()) if cards and keepers]
        lines.append("Primed Secrets:" + ("" if primed else " none"))
        lines += primed
        lines.append(f"Relic deck ({len(self.relic_deck)}, top first): "
                     + row([relic_words(r) for r in reversed(self.relic_deck)]))
        if self.nem is not None:
            lines.append(f"Intent deck of {society_name(self.nem.nemesis)} "
                         f"({len(self.nem.deck)} face down): "
                         + row([intent_words(c) for c in self.nem.deck]))
        return "\n".join(lines)

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> GameState:
        return resample(self, seat, rng)

    def clone(self) -> ClandestineState:
        """An independent copy (:meth:`GameState.clone`): ``copy.deepcopy``, except for the
        logs that grow with the game and are only ever appended to: the public events
        ``_events``, ``secret_log`` and the action ``history`` become new lists sharing their
        immutable entries (tuples and integers), and the chance bookkeeping (``chance_log``, a
        replayed record's remaining outcomes) new lists and entries sharing their outcomes
        (never changed in place: a resampler replaces an entry's outcome, and
        :meth:`to_record` shares them too). These logs made most of a deep copy's cost (1.3 of
        1.9 ms for ``_events`` at 400 actions; ``chance_log`` 0.9 ms in a replayed state),
        which search and belief trackers pay at every copy."""
        memo: dict[int, Any] = {id(v): list(v)
                                for v in (self._events, self.secret_log, self.history)}
        memo[id(self.chance_log)] = [list(e) for e in self.chance_log]
        if self._forced_chance is not None:
            memo[id(self._forced_chance)] = deque(self._forced_chance)
        return copy.deepcopy(self, memo)

    def render_rgb(self) -> np.ndarray:
        """Uint8 ``(H, W, 3)`` picture of the position (:func:`envs.clandestine.render.render_rgb`;
        matplotlib is imported only here)."""
        from .render import render_rgb

        return render_rgb(self)


def render_state(st: ClandestineState, seat: int | None = None) -> str:
    """Text picture: where the turn is and what is decided (:func:`words.status_words`), each
    seat's tableau, the pawns by space (hands only for ``seat``, everything with
    ``seat=None``; of another seat's Relic hand, ``seat`` sees the publicly known Relics,
    ``relic_known``: those taken face up from the Map, and a Nemesis's whole hand, with the
    count of the others)."""
    lines = [status_words(st)]
    names = [society_name(soc) for soc in st.societies]
    width = max(len(name) for name in names)
    for s in range(st.num_players):
        line = (f"  seat {s} {names[s]:{width}s} L{st.level[s]} gold {st.gold[s]} energy "
                f"{st.energy[s]} intrigue {st.intrigue[s]} chaos {st.chaos[s]} relics "
                f"{len(st.relic_hand[s])} secrets {len(st.secret_hand[s])} deck "
                f"{len(st.secret_deck[s])}")
        if seat is None or seat == s:
            relics = "; ".join(relic_card_words(r) for r in st.relic_hand[s]) or "-"
            secrets = "; ".join(secret_words(st.societies[s], i) for i in st.secret_hand[s]) \
                or "-"
            line += f"\n      hand R: {relics} | S: {secrets}"
        elif st.relic_known[s]:
            # Relics taken face up from the Map (and a Nemesis's hand) are public knowledge
            unseen = len(st.relic_hand[s]) - len(st.relic_known[s])
            known = "; ".join(relic_card_words(r) for r in st.relic_known[s])
            line += f"\n      known R: {known}" + (f" (+{unseen} unseen)" if unseen else "")
        lines.append(line)
    for s in range(st.num_players):
        slots = [f"{k + 1} " + (relic_card_words(r) if r >= 0 else "-")
                 for k, r in enumerate(st.slots[s])]
        tiles = [tile_words(t) + ("*" if t in st.tiles_spent[s] else "") for t in st.tiles[s]]
        conj = _C["conjunctions"][st.conj[s]] if st.conj[s] >= 0 else None
        lines.append(f"  seat {s} slots {'; '.join(slots)}"
                     + (f" tiles {'; '.join(tiles)}" if tiles else "")
                     + (f" Conjunction {conj['name']} [{conj['id']}]" if conj else ""))
    # the Relic Map, one line per Route (the Harbor and the Extension on lines of their own)
    rows: dict[str, list[str]] = {}
    for m, r in zip(MAP_ORDER, st.relic_map):
        row = "E" if m.startswith("E") else m.partition(".")[0]
        rows.setdefault(row, []).append(f"{m} " + (relic_card_words(r) if r >= 0 else "-"))
    if st.nem is not None:  # its whole state is public (design §1.5)
        lines += NEM.render_lines(st)
    lines.append(f"  Map (Relic deck {len(st.relic_deck)})")
    lines.extend(f"    {'; '.join(row)}" for row in rows.values())
    for sid, codes in st.pawns.as_lists(st.city).items():
        if codes:
            action = space_action_words(st.city.action(sid)) or "-"
            lines.append(f"  {sid:5s} {action:9s} {' '.join(codes)}")
    lines.append("  " + LEGEND)
    return "\n".join(lines)


# the observation and the resampler live in their own modules (they import this one's constants)
from .observation import encode_observation, observation_layout
from .resample import resample

__doc__ = __doc__.format(table=observation_layout(3).table())
