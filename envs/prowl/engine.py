"""Prowl: Clans & Cunning rules engine (rulebook ``rules/prowl.txt`` + design/prowl.md rulings).

State
-----
Cards are handled by *card identity* ("type"): the distinct rows of the card table of the four
clans in play (24 types for the default clans). ``T`` is the number of types, ``C = 4`` clans,
``n`` players. Clan indices follow the ``clans`` config order; ``track[i]`` is the clan at
position ``i`` (0 = top) and ``pos[c]`` its inverse.

Actions (ids; ``T`` types, see :func:`action_offsets`)
-----------------------------------------------------
| ids | meaning |
|---|---|
| 0 .. T-1 | Play card type t (then choose the order) |
| T .. 2T-1 | Change: discard your clan, place card type t face-down as your new clan |
| 2T .. 3T-1 | Accuse: discard card type t, then choose opponent and clan |
| 3T .. 4T-1 | Set-up: place card type t face-down as your clan |
| 4T, 4T+1 | order: effect first, strengthen first (ruling 3) |
| 4T+2 .. 4T+5 | opponent at relative seat 1..4 (1 = on your left) |
| 4T+6 .. 4T+9 | clan index 0..3 (config order) |
| 4T+10, 4T+11 | no, yes |
| 4T+12, 4T+13 | pass left, pass right (Hooded Figure) |
| 4T+14, 4T+15 | Accuse reward: (i) Dominance token / raise, (ii) force Change |

The observation layout is built by :func:`build_layout` and documented in docs/prowl.md.
"""

from __future__ import annotations

import copy

from typing import Any

import numpy as np

from envs.core import ConfigError, GameState, Layout

from . import effects as _effects  # noqa: F401  (registers the effect functions)
from .cards import CLANS, DEFAULT_CLANS, EFFECTS, HANDLERS, LEADER_CONDITIONS, validate_clan

K_SETUP, K_TURN, K_ORDER, K_OPP, K_CLAN, K_YESNO, K_SIDE, K_REWARD = range(8)
KIND_NAMES = ("setup", "turn", "order", "opponent", "clan", "yes/no", "side", "reward")
MAX_OPP = 4
REWARDS = ("win_loss", "zero_sum")
ACC_HANDLERS = frozenset({"acc_opp", "acc_clan", "acc_reward", "reward_raise"})


def action_offsets(T: int) -> dict[str, int]:
    """Start id of each action block for ``T`` card types (see module docstring)."""
    return {"play": 0, "change": T, "accuse": 2 * T, "setup": 3 * T, "order": 4 * T,
            "opp": 4 * T + 2, "clan": 4 * T + 6, "yesno": 4 * T + 10, "side": 4 * T + 12,
            "reward": 4 * T + 14, "end": 4 * T + 16}


_KIND_BLOCK = {K_ORDER: "order", K_OPP: "opp", K_CLAN: "clan", K_YESNO: "yesno",
               K_SIDE: "side", K_REWARD: "reward"}


def build_layout(n: int, T: int, C: int = 4) -> Layout:
    """The observation layout for ``n`` players and ``T`` card types (all entries in [0, 1]).

    Rows indexed by *relative seat* r = 0 (self), 1 (player on your left), ... n-1.
    """
    L = Layout()
    L.add("seat", n, "one-hot own seat id")
    L.add("decision", 8, "one-hot decision due: setup, turn, order, opponent, clan, yes/no, "
          "side, reward (all 0 when not to act)")
    L.add("pending_card", T, "one-hot card type being resolved (played card, or the card "
          "discarded for an Accuse action); public, shown to every seat")
    L.add("pending_accusation", 1, "1 while an Accusation (action or Raider) is being resolved "
          "(every seat)")
    L.add("pending_clan", C, "one-hot clan chosen earlier in this decision (Wanderer first "
          "clan, Marshal raised clan; every seat)")
    L.add("pending_opp", n, "one-hot relative seat chosen earlier in this decision (accused, "
          "Herald target; every seat)")
    L.add("turn_player", n, "one-hot relative seat whose turn it is")
    L.add("hand_size", n, "cards in hand per relative seat / cards_per_player")
    L.add("hand", T, "own hand: count per card type / copies of the type")
    L.add("own_clan", T, "one-hot card type of own clan card")
    L.add("own_face_up", 1, "1 if own clan card is face-up")
    L.add("track", (C, C), "row clan, one-hot track position (column 0 = top)")
    L.add("dominance", n, "one-hot relative seat holding the Dominance token")
    L.add("face_up", (n, T), "per relative seat: one-hot type of face-up clan card")
    L.add("known_clan", (n, T), "per relative seat: one-hot type of clan card as known to you "
          "(own, face-up, peeked, received or tracked through swaps/passes)")
    L.add("discards", (n, T), "per relative seat: discard pile count per type / copies")
    L.add("attachments", (n, T), "per relative seat: attached cards per type / copies")
    L.add("pact", (n, C), "per relative seat: one-hot High Mage Pact clan")
    L.add("forced", n, "per relative seat: must Change on next turn")
    L.add("protected", n, "per relative seat: protected by an attached Bodyguard")
    L.add("whisper_hand", (n, T), "per relative seat: hand known from a Whisperer peek, count "
          "per type / copies (kept up to date with public plays; after a Change: the hand plus "
          "the new clan card; forgotten when that clan card is swapped or passed away)")
    L.add("whisper_valid", n, "per relative seat: 1 if whisper_hand is the hand, 0.5 if it is "
          "the hand plus the clan card (Changed since the peek)")
    L.add("knows_clan", (n, n), "public: row relative seat knows the clan card of column relative "
          "seat (Peek, swap, pass, face-up; cleared when that card is changed)")
    L.add("knows_hand", (n, n), "public: row relative seat knows the hand of column relative seat "
          "(Whisperer)")
    L.add("possible", (n, C), "per relative seat: clan still possible for the clan card from "
          "your knowledge (deduction feature)")
    L.add("excluded", (n, C), "per relative seat: clan publicly ruled out for the current clan "
          "card (failed Accusations, Firebrand)")
    L.add("accusations_named", (n, C), "per relative seat: Accusations made naming each clan "
          "/ cards_per_player")
    L.add("unseen", T, "copies of each type not visible to you / copies")
    L.add("public_pile", T, "2-player public pile count per type / copies")
    L.add("deck_left", 1, "2-player face-down deck size / initial size")
    # perfect recall of public events (PUBLIC_EVENTS): counts per relative seat
    L.add("played", (n, T), "per relative seat: cards Played, count per type / copies")
    L.add("changed_away", (n, T), "per relative seat: clan cards discarded by its Changes, "
          "count per type / copies")
    L.add("revealed", (n, T), "per relative seat: clan cards turned face-up in front of it "
          "(correct Accusation, Firebrand), count per type / copies")
    L.add("accusations", (n, n, 2, 2, C), "row accuser, column accused relative seat, source "
          "(Accuse action, Raider), result (wrong, correct), clan named: count / "
          "cards_per_player")
    L.add("targets", (n, len(OPP_PURPOSES), n), "row relative seat chose column relative seat "
          "as the opponent of: " + ", ".join(OPP_PURPOSES) + " / cards_per_player")
    L.add("clans_named", (n, len(CLAN_PURPOSES), C), "per relative seat, clans named for: "
          + ", ".join(CLAN_PURPOSES) + " / cards_per_player")
    L.add("choices", (n, len(CHOICES)), "per relative seat, answers given: "
          + ", ".join(CHOICES) + " / cards_per_player")
    return L


#: opponent choices by purpose (decision handler; other = a handler of a swapped-in clan)
OPP_PURPOSES = ("Accuse", "Seer", "Herald", "Changeling", "Whisperer", "Magistrate", "other")
_OPP_PURPOSE = {"acc_opp": 0, "peek_clan": 1, "herald_peek": 2, "swap_clan": 3, "peek_hand": 4,
                "force": 5}
#: clan choices by purpose (the Accusation's clan is kept in ``accusations``)
CLAN_PURPOSES = ("Pact", "Hexer lower", "Wanderer swap", "Firebrand", "Captain raise",
                 "Marshal raise", "Marshal lower", "Assassin lower", "reward raise", "other")
_CLAN_PURPOSE = {"pact": 0, "lower1": 1, "wander1": 2, "wander2": 2, "firebrand": 3,
                 "raise1": 4, "marshal_raise": 5, "lower2": 7, "reward_raise": 8}
#: binary answers, counted per seat
CHOICES = ("effect first", "strengthen first", "Herald no", "Herald yes", "pass left",
           "pass right", "reward (i)", "reward (ii)")

#: Public events of :meth:`ProwlState.public_history`: kind id -> (name, argument meanings).
#: Seats are absolute; cards are card type ids; clans are indices in ``clans`` order.
PUBLIC_EVENTS: dict[int, tuple[str, tuple[str, ...]]] = {
    0: ("setup", ("seat",)),                        # placed its clan card face-down
    1: ("play", ("seat", "card")),
    2: ("order", ("seat", "choice")),               # 0 effect first, 1 strengthen first
    3: ("change", ("seat", "discarded clan card")),  # the new card stays hidden
    4: ("accuse", ("seat", "discarded card")),      # the Accuse action's discard
    5: ("accusation", ("accuser", "accused", "clan", "correct", "by effect")),
    6: ("target", ("seat", "purpose", "opponent")),  # purpose: index in OPP_PURPOSES
    7: ("clan", ("seat", "purpose", "clan")),       # purpose: index in CLAN_PURPOSES
    8: ("herald force", ("seat", "yes")),
    9: ("pass", ("seat", "side")),                  # Hooded Figure: 0 left, 1 right
    10: ("reward", ("seat", "choice")),             # 0 Dominance / raise, 1 force Change
    11: ("reveal", ("seat", "card")),               # clan card turned face-up
    12: ("deck reveal", ("seat", "card")),          # 2 players: top card at seat's turn start
    13: ("game end", ("winner",)),                  # -1: no winner
    14: ("final clan", ("seat", "card")),           # clan cards shown by the final scoring
}
EV_SETUP, EV_PLAY, EV_ORDER, EV_CHANGE, EV_ACCUSE, EV_ACCUSATION, EV_TARGET, EV_CLAN, \
    EV_HERALD, EV_PASS, EV_REWARD, EV_REVEAL, EV_DECK, EV_END, EV_FINAL = range(15)


def _recall_tables(n: int, T: int, C: int, cpp: int, copies: np.ndarray,
                   layout: Layout) -> dict[str, Any]:
    """The absolute-seat count vector behind the recall fields (``played`` ... ``choices``):
    its offsets, and per observing seat the gather into those fields with their scale."""
    shapes = (("played", (n, T), (0,)), ("changed_away", (n, T), (0,)),
              ("revealed", (n, T), (0,)), ("accusations", (n, n, 2, 2, C), (0, 1)),
              ("targets", (n, len(OPP_PURPOSES), n), (0, 2)),
              ("clans_named", (n, len(CLAN_PURPOSES), C), (0,)),
              ("choices", (n, len(CHOICES)), (0,)))
    off, pos = {}, 0
    for name, shape, _ in shapes:
        off[name] = pos
        pos += int(np.prod(shape))
    first, last = layout["played"].start, layout["choices"].stop
    scale = np.full(last - first, 1.0 / cpp, dtype=np.float32)
    inv_copies = (1.0 / copies).astype(np.float32)
    for name in ("played", "changed_away", "revealed"):
        f = layout[name]
        scale[f.start - first:f.stop - first] = np.tile(inv_copies, n)
    gathers = []
    for seat in range(n):
        perm = (seat + np.arange(n)) % n
        parts = []
        for name, shape, seat_axes in shapes:
            idx = off[name] + np.arange(int(np.prod(shape))).reshape(shape)
            for ax in seat_axes:
                idx = np.take(idx, perm, axis=ax)
            parts.append(idx.ravel())
        gathers.append(np.concatenate(parts))
    return {"_rc_off": off, "_rc_size": pos, "_rc_first": first, "_rc_last": last,
            "_rc_scale": scale, "_rc_gather": gathers}


_STATIC: dict = {}


def _static_tables(n: int, cpp: int, beginner: bool, clans: tuple) -> dict[str, Any]:
    """Card tables, layout, action offsets and caches for one configuration (shared by every
    state of that configuration; rebuilt when a clan's card rows are re-registered)."""
    return _tables_for((n, cpp, beginner, clans, tuple(tuple(CLANS[c]) for c in clans)))


def _tables_for(key: tuple) -> dict[str, Any]:
    """The static tables of ``key = (n, cpp, beginner, clans, card rows of each clan)``, built
    from the card rows in the key (so an unpickled state gets the tables it was made with even
    where ``CLANS`` differs). The dict holds its own key as ``_static_key``."""
    st = _STATIC.get(key)
    if st is not None:
        return st
    n, cpp, beginner, clans, rows = key
    self = _Tables()
    self.n, self.cpp, self.C = n, cpp, 4
    C = 4
    specs = []
    for ci, (cname, clan_rows) in enumerate(zip(clans, rows)):
        try:   # rows put into CLANS without register_clan are checked too
            validate_clan(cname, list(clan_rows))
        except ValueError as e:
            raise ConfigError(f"clans: {e}") from None
        for sp in clan_rows:
            if beginner and "Leader" in sp.keywords:
                continue
            specs.append((ci, sp))
    self.specs = [sp for _, sp in specs]
    self.T = T = len(specs)
    self.type_clan = [ci for ci, _ in specs]
    self.type_clan_arr = np.array(self.type_clan, dtype=np.int64)
    self.copies = np.array([sp.copies for sp in self.specs], dtype=np.int64)
    self.copies_f = self.copies.astype(np.float32)
    self.inv_copies = (1.0 / self.copies).astype(np.float32)
    self.type_names = [sp.name for sp in self.specs]
    self.is_attach = [("Attachment" in sp.keywords) for sp in self.specs]
    self.is_leader = [("Leader" in sp.keywords) for sp in self.specs]
    self.is_early = [("Early" in sp.keywords) for sp in self.specs]
    self.is_final = [("Final" in sp.keywords) for sp in self.specs]
    self.effect_ids = [sp.effect_id for sp in self.specs]
    for (ci, sp) in specs:
        if sp.effect_id not in EFFECTS:
            raise ConfigError(f"clans: card {sp.name!r} of clan {clans[ci]!r} has effect "
                              f"{sp.effect_id!r}, not registered in EFFECTS")
        if "Leader" in sp.keywords and sp.effect_id not in LEADER_CONDITIONS:
            raise ConfigError(f"clans: Leader {sp.name!r} of clan {clans[ci]!r} has no win "
                              f"condition registered for effect {sp.effect_id!r} "
                              f"(register_leader_condition)")
    self.bodyguard_types = [t for t in range(T) if self.effect_ids[t] == "bodyguard"]
    self.glacier_types = [t for t in range(T) if self.effect_ids[t] == "glacier"]
    self.off = action_offsets(T)
    self.A = self.off["end"]
    self._decode_table = [ProwlState._decode_slow(self, a) for a in range(self.A)]
    self._mask_cache: dict = {}   # read-only masks of sub-decisions, shared by clones
    self.layout = build_layout(n, T, C)
    self._perm_lists = [((s + np.arange(n)) % n).tolist() for s in range(n)]
    # The observation is assembled by one gather from a flat float32 source vector holding,
    # in absolute seat order, the state's count arrays (they live in it: ``_bind_views``) and
    # the public knows-matrices and hand sizes (refreshed per call), one multiplication by a
    # per-entry scale, then scalar writes of the one-hot fields. Unmapped entries read the
    # trailing zero.
    L = self.layout
    nT, nC, nn = n * T, n * C, n * n
    src_off = {}
    pos = 0
    for name, size in (("hand", nT), ("da", 2 * nT), ("ea", 2 * nC), ("whisper", n * nT),
                       ("knows_clan", nn), ("knows_hand", nn), ("hand_size", n), ("pile", T),
                       ("zero", 1)):
        src_off[name] = pos
        pos += size
    self._src_off = src_off
    self._src_size = pos
    zero = src_off["zero"]
    inv_cpp32 = np.float32(1.0 / cpp)
    self._cpp32 = np.float32(cpp)
    self._gather = []
    self._scale = np.ones(L.size, dtype=np.float32)
    sc = self._scale
    for f in (L["hand"], L["discards"], L["attachments"], L["whisper_hand"], L["public_pile"]):
        sc[f.start:f.stop] = np.tile(self.inv_copies, f.size // T)
    a = L["accusations_named"]
    sc[a.start:a.stop] = inv_cpp32
    for seat in range(n):
        perm = (seat + np.arange(n)) % n
        g = np.full(L.size, zero, dtype=np.intp)
        f = L["hand"]
        g[f.start:f.stop] = src_off["hand"] + seat * T + np.arange(T)
        rows_T = (perm[:, None] * T + np.arange(T)[None, :]).ravel()
        rows_C = (perm[:, None] * C + np.arange(C)[None, :]).ravel()
        grid = (perm[:, None] * n + perm[None, :]).ravel()
        for field, start in (("hand_size", src_off["hand_size"] + perm),
                             ("discards", src_off["da"] + rows_T),
                             ("attachments", src_off["da"] + nT + rows_T),
                             ("excluded", src_off["ea"] + rows_C),
                             ("accusations_named", src_off["ea"] + nC + rows_C),
                             ("whisper_hand", src_off["whisper"] + seat * nT + rows_T),
                             ("whisper_valid", src_off["knows_hand"] + seat * n + perm),
                             ("knows_clan", src_off["knows_clan"] + grid),
                             ("knows_hand", src_off["knows_hand"] + grid)):
            f = L[field]
            g[f.start:f.stop] = start
        if n == 2:
            f = L["public_pile"]
            g[f.start:f.stop] = src_off["pile"] + np.arange(T)
        self._gather.append(g)
    # first type index of each clan (the card table lists the types clan by clan)
    self._clan_starts = np.array([self.type_clan.index(c) for c in range(C)], dtype=np.intp)
    self._obs_pos = {name: L[name].start for name in (
        "seat", "decision", "pending_card", "pending_accusation", "pending_clan", "pending_opp",
        "turn_player", "own_clan", "own_face_up", "track", "dominance", "face_up",
        "known_clan", "pact", "forced", "protected", "deck_left", "hand_size", "unseen",
        "possible", "whisper_valid")}
    self.__dict__.update(_recall_tables(n, T, C, cpp, self.copies, self.layout))
    st = dict(self.__dict__)
    for k in ("n", "cpp", "C"):
        del st[k]
    st["_static_key"] = key
    _STATIC[key] = st
    return st


#: state attributes that are numpy views into ``ProwlState._src`` (made by ``_bind_views``)
_VIEWS = ("hand", "_da", "discard", "attach", "_ea", "excl", "acc_named", "whisper", "pile",
          "_src_kc", "_src_kh", "_src_hs")


class _Tables:
    """Attribute bag used while building the static tables."""


class ProwlState(GameState):
    """Prowl engine state (``GameState`` subclass).

    Args:
        seed: engine seed (deal, track shuffle, starting player).
        num_players: 2..5 (ruling 1).
        cards_per_player: hand size dealt, an integer >= 2 ("Adjusting Game Length"); players ×
            hand size must not exceed the deck (32, or 28 in beginner mode): up to 16 with 2
            players, 8 with 4.
        beginner: remove the Leader cards (Set-up, step 3).
        clans: the 4 clan names in play (default Spring, Summer, Autumn, Winter; any clan
            registered in ``envs.prowl.cards.CLANS``; "Expanding the Game").
        reward: ``"win_loss"`` (+1 winner, −1 others, 0 all when no winner) or ``"zero_sum"``
            (winner +1, others −1/(n−1)) (ruling 9).

    Raises:
        ConfigError: a keyword outside its allowed values (message names it).
    """

    game_name = "prowl"

    def __init__(self, *, seed: int | None = None, num_players: int = 4,
                 cards_per_player: int = 6, beginner: bool = False,
                 clans: list[str] | tuple[str, ...] = DEFAULT_CLANS,
                 reward: str = "win_loss") -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
                or not 2 <= num_players <= 5:
            raise ConfigError(f"num_players must be an integer in 2..5, got {num_players!r}")
        if not isinstance(beginner, (bool, np.bool_)):
            raise ConfigError(f"beginner must be True or False, got {beginner!r}")
        beginner = bool(beginner)
        if reward not in REWARDS:
            raise ConfigError(f"reward must be one of {list(REWARDS)}, got {reward!r}")
        if isinstance(clans, (str, bytes, dict, set, frozenset)) \
                or not hasattr(clans, "__len__") or len(clans) != 4 \
                or not all(isinstance(c, str) for c in clans) \
                or len(set(clans)) != 4 or any(c not in CLANS for c in clans):
            raise ConfigError(f"clans must be 4 distinct clan names from {sorted(CLANS)}, "
                              f"got {clans!r}")
        deck_size = 28 if beginner else 32
        cpp_ok = isinstance(cards_per_player, (int, np.integer)) \
            and not isinstance(cards_per_player, bool)
        if not cpp_ok or cards_per_player < 2 or num_players * cards_per_player > deck_size:
            raise ConfigError(
                f"cards_per_player must be an integer >= 2 with num_players × cards_per_player "
                f"<= {deck_size} (the {'beginner ' if beginner else ''}deck); got "
                f"{cards_per_player!r} for {num_players} players")
        super().__init__(seed=seed, config={
            "num_players": int(num_players), "cards_per_player": int(cards_per_player),
            "beginner": beginner, "clans": [str(c) for c in clans], "reward": reward})
        self.n = n = int(num_players)
        self.cpp = int(cards_per_player)
        self.C = C = 4
        self.clan_names = [str(c) for c in clans]
        self.__dict__.update(_static_tables(n, self.cpp, beginner, tuple(self.clan_names)))
        for e in self.effect_ids:
            if e not in EFFECTS:
                raise ConfigError(f"clans: card effect {e!r} is not registered in EFFECTS")
        T = self.T
        # card counts are float32 (exact for these small integers) so that the observation
        # is written without mixed-type casts
        # cards in public view: discards, attachments, the 2-player pile and a card in play
        self.pub = np.zeros(T, dtype=np.float32)
        self._prot: list[bool] | None = None     # cache of protected(q); reset on attachments
        self._wany = [False] * n                 # seat has ever Peeked at a hand
        # --- set-up (Set-up 1-5)
        # chance (all through the logged path, same generator use as before): the track order,
        # the deck shuffle, the starting Dominance holder
        self.track = [int(c) for c in self.chance_permutation("track", C)]
        self.pos = [0] * C
        for i, c in enumerate(self.track):
            self.pos[c] = i
        deck = np.repeat(np.arange(T), self.copies)
        deck = deck[self.chance_permutation("deck", len(deck))]
        # hands, discards/attachments, exclusions/Accusations named, whispers and the 2-player
        # pile are views into one float32 vector, the source of the observation's gather
        self._src = np.zeros(self._src_size, dtype=np.float32)
        self._bind_views()
        for p in range(n):
            self.hand[p] = np.bincount(deck[p * self.cpp:(p + 1) * self.cpp], minlength=T)
        rest = [int(x) for x in deck[n * self.cpp:]]
        if n == 2:  # ruling 7: the unused cards form a face-down deck
            self.deck2p = rest
            self.box: list[int] = []
        else:
            self.deck2p = []
            self.box = rest
        self.deck2p_start = max(1, len(self.deck2p))
        self.clan_card = np.full(n, -1, dtype=np.int64)
        self.face_up = np.zeros(n, dtype=bool)
        self.know = np.full((n, n), -1, dtype=np.int64)   # know[s, q]: type of q's clan card
        # public exclusions (clan ruled out for q's card, 0/1) and Accusations named per clan
        self.wvalid = np.zeros((n, n), dtype=bool)
        # wclan[w, q]: w's Whisperer knowledge of q is the multiset "q's hand plus q's clan
        # card" (q Changed since the peek, placing one of the known cards face-down)
        self.wclan = np.zeros((n, n), dtype=bool)
        self.pact = np.full(n, -1, dtype=np.int64)
        self.forced = np.zeros(n, dtype=bool)
        self.accusations: list[tuple[int, int, int, bool, bool]] = []
        self.dominance = self.chance_integer("dominance", n)
        # perfect recall (replaced, never edited in place, so clones may share them):
        # public events, their counts (the recall fields), clan-card placements (seat, action
        # index), the placement id of each seat's clan card, Whisperer peeks (w, q, placements
        # made before the peek)
        self._public: tuple = ()
        self._rc = np.zeros(self._rc_size, dtype=np.float32)
        self._placements: tuple = ()
        self._origin: tuple = (-1,) * n
        self._peeks: tuple = ()
        self.start_player = self.dominance
        self.turn_player = self.dominance
        self.setup_done = 0
        self.queue: list[Any] = []
        self.pending_card = -1
        self._terminal = False
        self._returns = np.zeros(n)
        self.winner: int | None = None
        self._dec = None
        self._mask: np.ndarray | None = None
        self._ask_setup()

    def _bind_views(self) -> None:
        """(Re)make the state arrays that live in ``self._src`` (see ``_static_tables``)."""
        n, T, C, o, b = self.n, self.T, self.C, self._src_off, self._src
        self.hand = b[o["hand"]:o["hand"] + n * T].reshape(n, T)
        self._da = b[o["da"]:o["da"] + 2 * n * T].reshape(2, n, T)
        self.discard, self.attach = self._da[0], self._da[1]   # discard piles, attachments
        self._ea = b[o["ea"]:o["ea"] + 2 * n * C].reshape(2, n, C)
        self.excl, self.acc_named = self._ea[0], self._ea[1]   # public exclusions, named
        self.whisper = b[o["whisper"]:o["whisper"] + n * n * T].reshape(n, n, T)
        self.pile = b[o["pile"]:o["pile"] + T]                 # 2-player public pile
        self._src_kc = b[o["knows_clan"]:o["knows_clan"] + n * n].reshape(n, n)
        self._src_kh = b[o["knows_hand"]:o["knows_hand"] + n * n].reshape(n, n)
        self._src_hs = b[o["hand_size"]:o["hand_size"] + n]

    # ------------------------------------------------------------------------------ basics
    num_players = property(lambda self: self.n)
    num_actions = property(lambda self: self.A)
    observation_size = property(lambda self: self.layout.size)

    @property
    def current_player(self) -> int | None:
        return None if self._terminal else self._dec[2]

    @property
    def is_terminal(self) -> bool:
        return self._terminal

    def returns(self) -> np.ndarray:
        """Float64 (n,): ruling 9 rewards once terminal, zeros before."""
        return self._returns.copy()

    def clan_of(self, q: int) -> int:
        """Clan index of seat ``q``'s current clan card (-1 before set-up)."""
        t = self.clan_card[q]
        return -1 if t < 0 else self.type_clan[t]

    def protected(self, q: int) -> bool:
        """True if ``q`` has a Bodyguard attached (design, Bodyguard)."""
        return self._prot_list()[q]

    def _prot_list(self) -> list[bool]:
        if self._prot is None:
            bg = self.bodyguard_types
            if len(bg) == 1:
                self._prot = [x > 0 for x in self.attach[:, bg[0]].tolist()]
            else:
                self._prot = (self.attach[:, bg].any(axis=1).tolist() if bg else [False] * self.n)
        return self._prot

    def targetable(self, p: int) -> tuple[int, ...]:
        """Opponents of ``p`` its card effects may choose: those not protected (Bodyguard)."""
        return tuple(q for q in range(self.n) if q != p and not self.protected(q))

    def accusable(self, p: int) -> tuple[int, ...]:
        """Opponents ``p`` may Accuse: face-down clan and not protected (ruling 4, FAQ)."""
        return tuple(q for q in range(self.n)
                     if q != p and not self.face_up[q] and not self.protected(q))

    # ------------------------------------------------------------------------------ decisions
    def ask(self, kind: int, player: int, handler: str, options: tuple, ctx: dict) -> None:
        """Push a decision of ``kind`` for ``player`` to the front of the queue.

        ``options`` are the legal values (absolute seats, clan indices, 0/1); ``handler`` names
        the function in ``HANDLERS`` that resolves the chosen value with ``ctx``.
        """
        if handler not in HANDLERS:
            raise KeyError(f"decision handler {handler!r} is not registered")
        self.queue.insert(0, ("dec", kind, player, handler, tuple(options), ctx))

    def _ask_setup(self) -> None:
        p = (self.start_player + self.setup_done) % self.n
        self._dec = ("dec", K_SETUP, p, None, (), {})
        self._mask = None

    def _start_turn(self, p: int) -> None:
        """Start of ``p``'s turn: attachments expire (ruling 2), 2-player reveal (ruling 7)."""
        self.turn_player = p
        att = self.attach[p]
        self._prot = None
        for t in att.nonzero()[0].tolist():
            if not self.is_leader[t]:
                self.discard[p, t] += att[t]
                att[t] = 0
        if self.n == 2 and self.dominance == p and self.deck2p:
            t = self.deck2p.pop()
            self._event((EV_DECK, p, t))
            self.raise_(self.type_clan[t], 1, p, effect=False)
            self.pile[t] += 1
            self.pub[t] += 1
        self.queue.append(("dec", K_TURN, p, None, (), {}))

    def _run(self) -> None:
        """Process automatic steps until a decision is due or the game ends."""
        q = self.queue
        while True:
            while q:
                step = q[0]
                if step[0] == "dec":
                    self._dec = step
                    self._mask = None
                    return
                q.pop(0)
                op = step[0]
                if op == "eff":
                    _, p, t = step
                    EFFECTS[self.effect_ids[t]](self, p, t)
                elif op == "str":
                    self.raise_(step[1], 1, step[2], effect=False)
                elif op == "fin":
                    _, p, t = step
                    if self.is_attach[t]:
                        self.attach[p, t] += 1
                        self._prot = None
                    else:
                        self.discard[p, t] += 1
                    self.pending_card = -1
            # turn over
            self.pending_card = -1
            if not self.hand.any():
                self._end_game()
                return
            self._start_turn((self.turn_player + 1) % self.n)

    # ------------------------------------------------------------------------------ movement
    def _glacier_blocks(self, clan: int, actor: int) -> bool:
        for t in self.glacier_types:
            if self.type_clan[t] == clan:
                for g in range(self.n):
                    if g != actor and self.attach[g, t]:
                        return True
        return False

    def _swap_pos(self, i: int, j: int) -> None:
        tr = self.track
        tr[i], tr[j] = tr[j], tr[i]
        self.pos[tr[i]] = i
        self.pos[tr[j]] = j

    def raise_(self, c: int, k: int, actor: int, effect: bool) -> None:
        """Raise clan ``c`` by ``k`` single steps (design "Terms"); with ``effect`` True each step
        that would move a Glacier-protected clan down is skipped (design, Glacier)."""
        for _ in range(k):
            i = self.pos[c]
            if i == 0:
                return
            if effect and self.glacier_types and self._glacier_blocks(self.track[i - 1], actor):
                continue
            self._swap_pos(i, i - 1)

    def lower(self, c: int, k: int, actor: int, effect: bool) -> None:
        """Lower clan ``c`` by ``k`` single steps (Glacier as in :meth:`raise_`)."""
        for _ in range(k):
            i = self.pos[c]
            if i == self.C - 1:
                return
            if effect and self.glacier_types and self._glacier_blocks(c, actor):
                continue
            self._swap_pos(i, i + 1)

    def swap_track(self, a: int, b: int, actor: int, effect: bool) -> None:
        """Swap the positions of clans ``a`` and ``b`` (Wanderer); blocked by Glacier if the
        higher one is protected."""
        hi = a if self.pos[a] < self.pos[b] else b
        if effect and self.glacier_types and self._glacier_blocks(hi, actor):
            return
        self._swap_pos(self.pos[a], self.pos[b])

    # ------------------------------------------------------------------------------ clan cards
    def _split_whisper(self, ws, q: int) -> None:
        """Seats ``ws`` now know ``q``'s clan card: a Whisperer multiset "hand plus clan card"
        of ``q`` they hold becomes the exact hand again."""
        sel = [w for w in ws if self.wclan[w, q]]
        if sel:
            self.whisper[sel, q, self.clan_card[q]] -= 1
            self.wclan[sel, q] = False

    def _reveal(self, q: int) -> None:
        t = int(self.clan_card[q])
        self._event((EV_REVEAL, q, t), "revealed", q, t)
        self._split_whisper(range(self.n), q)
        self.face_up[q] = True
        self.know[:, q] = self.clan_card[q]

    def peek_clan(self, p: int, q: int) -> None:
        """``p`` Peeks at ``q``'s clan card (Seer, Herald)."""
        self._split_whisper((p,), q)
        self.know[p, q] = self.clan_card[q]

    def peek_hand(self, p: int, q: int) -> None:
        """``p`` Peeks at ``q``'s hand (Whisperer)."""
        self.whisper[p, q] = self.hand[q]
        self._peeks = self._peeks + ((p, q, len(self._placements)),)
        self.wvalid[p, q] = True
        self.wclan[p, q] = False
        self._wany = list(self._wany)
        self._wany[p] = True

    def _permute_clans(self, src: list[int], dst: list[int]) -> None:
        """Move the clan card of seat src[i] to dst[i] simultaneously (facings, public
        exclusions and everyone's knowledge travel with the cards). A Whisperer multiset
        "hand plus clan card" of a seat whose clan card leaves is forgotten (design, Peek:
        knowledge is kept until the peeked card moves)."""
        lost = self.wclan[:, src]
        if lost.any():
            for w, i in zip(*np.nonzero(lost)):
                q = src[i]
                self.wvalid[w, q] = self.wclan[w, q] = False
                self.whisper[w, q] = 0
        origin = list(self._origin)
        for i, r in zip(src, dst):
            origin[r] = self._origin[i]
        self._origin = tuple(origin)
        for arr in (self.clan_card, self.face_up, self.excl):
            old = arr[src].copy()
            arr[dst] = old
        old = self.know[:, src].copy()
        self.know[:, dst] = old
        for r in dst:   # each receiver looks at the received card (design; FAQ)
            self.know[r, r] = self.clan_card[r]

    def swap_clans(self, p: int, q: int) -> None:
        """Changeling: swap the clan cards of ``p`` and ``q``."""
        self._permute_clans([p, q], [q, p])

    def pass_clans(self, p: int, side: int) -> None:
        """Hooded Figure: unprotected players pass clan cards simultaneously; side 0 = left
        (to the next seat clockwise), 1 = right. Protected opponents are skipped."""
        circle = [q for q in range(self.n) if q == p or not self.protected(q)]
        if len(circle) < 2:
            return
        m = len(circle)
        if side == 0:
            dst = [circle[(i + 1) % m] for i in range(m)]
        else:
            dst = [circle[(i - 1) % m] for i in range(m)]
        self._permute_clans(circle, dst)

    def firebrand(self, p: int, c: int) -> None:
        """Firebrand: unprotected opponents with face-down clan ``c`` flip it face-up; the other
        unprotected face-down opponents are thereby known not to be ``c`` (public)."""
        for q in range(self.n):
            if q == p or self.face_up[q] or self.protected(q):
                continue
            if self.clan_of(q) == c:
                self._reveal(q)
            else:
                self.excl[q, c] = True

    def resolve_accusation(self, p: int, q: int, c: int, effect: bool, ctx: dict) -> None:
        """Accuse ``q`` of clan ``c`` (rulebook "3. Accuse", ruling 4)."""
        correct = self.clan_of(q) == c
        self.accusations.append((p, q, c, correct, effect))
        self._event((EV_ACCUSATION, p, q, c, int(correct), int(effect)), "accusations", p, q,
                    int(effect), int(correct), c)
        self.acc_named[p, c] += 1
        if correct:
            self._reveal(q)
            self.ask(K_REWARD, p, "acc_reward", (0, 1), {**ctx, "clan": c})
        else:
            self.excl[q, c] = True

    def _change(self, p: int, t: int) -> None:
        """Change: discard the clan card face-up, place card ``t`` face-down (rulebook 2.)."""
        old = self.clan_card[p]
        if old >= 0:
            self.discard[p, old] += 1
            self.pub[old] += 1
        self.hand[p, t] -= 1
        self.clan_card[p] = t
        self.face_up[p] = False
        self.excl[p] = False
        self.know[:, p] = -1
        self.know[p, p] = t
        # Whisperer knowledge of p's hand: the new clan card is one of the known cards, so
        # the known multiset becomes "hand plus clan card" (the old clan card, if it was in
        # that multiset, is now face-up in the discard pile)
        w = self.wvalid[:, p]
        if w.any():
            if old >= 0:
                self.whisper[w & self.wclan[:, p], p, old] -= 1
            self.wclan[w, p] = True
        self.forced[p] = False

    # ------------------------------------------------------------------------------ recall
    def _event(self, ev: tuple, field: str | None = None, *index: int) -> None:
        """Log public event ``ev`` (PUBLIC_EVENTS) and count it in recall ``field`` at
        ``index`` (absolute seats). The count vector is replaced, never edited in place."""
        self._public = self._public + (ev,)
        if field is not None:
            rc = self._rc.copy()
            f = self.layout[field]
            rc[self._rc_off[field] + int(np.ravel_multi_index(index, f.shape))] += 1
            self._rc = rc

    def _place(self, p: int) -> None:
        """``p`` places a clan card from its hand (set-up or Change): a new placement."""
        origin = list(self._origin)
        origin[p] = len(self._placements)
        self._origin = tuple(origin)
        self._placements = self._placements + ((p, len(self.history)),)

    def _log_action(self, kind: int, p: int, block: str, v: int, handler: str | None,
                    ctx: dict) -> None:
        """The public event of the action about to be applied (its hidden part left out)."""
        if kind == K_SETUP:
            self._place(p)
            self._event((EV_SETUP, p))
        elif kind == K_TURN:
            if block == "change":
                self._event((EV_CHANGE, p, int(self.clan_card[p])), "changed_away", p,
                            int(self.clan_card[p]))
                self._place(p)
            elif block == "accuse":
                self._event((EV_ACCUSE, p, v))
            else:
                self._event((EV_PLAY, p, v), "played", p, v)
        elif kind == K_ORDER:
            self._event((EV_ORDER, p, v), "choices", p, v)
        elif kind == K_OPP:
            q = (p + 1 + v) % self.n
            purpose = _OPP_PURPOSE.get(handler, len(OPP_PURPOSES) - 1)
            self._event((EV_TARGET, p, purpose, q), "targets", p, purpose, q)
        elif kind == K_CLAN:
            if handler != "acc_clan":   # the Accusation's clan: in its own event
                purpose = 6 if handler == "lower1" and "clan" in ctx else \
                    _CLAN_PURPOSE.get(handler, len(CLAN_PURPOSES) - 1)
                self._event((EV_CLAN, p, purpose, v), "clans_named", p, purpose, v)
        elif kind == K_YESNO:
            self._event((EV_HERALD, p, v), "choices", p, 2 + v)
        elif kind == K_SIDE:
            self._event((EV_PASS, p, v), "choices", p, 4 + v)
        elif kind == K_REWARD:
            self._event((EV_REWARD, p, v), "choices", p, 6 + v)

    def public_history(self) -> list[tuple[int, ...]]:
        """Every public event so far, in order, as ``(kind, *args)`` tuples of ints (absolute
        seats; vocabulary :data:`PUBLIC_EVENTS`, docs/prowl.md). The same for every seat
        (rulebook "Information", ruling 10): the hidden part of an action (the card placed
        face-down at set-up or by a Change) is left out."""
        return list(self._public)

    def _public_remove(self, p: int, t: int) -> None:
        self.hand[p, t] -= 1
        w = self.wvalid[:, p]
        if w.any():
            self.whisper[w, p, t] -= 1

    # ------------------------------------------------------------------------------ actions
    def legal_action_mask(self) -> np.ndarray:
        """Int8 (num_actions,): 1 for the legal ids of the decision due (cached until the state
        changes, so read-only: copy it to edit it; all zeros once terminal). Turn: Play/Change/Accuse by card in hand, only Change
        when forced (ruling 5), Accuse only with an accusable opponent (ruling 4)."""
        if self._terminal:
            return np.zeros(self.A, dtype=np.int8)
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask

    def _compute_mask(self) -> np.ndarray:
        _, kind, p, _, opts, _ = self._dec
        T = self.T
        if kind == K_TURN or kind == K_SETUP:
            m = np.zeros(self.A, dtype=np.int8)
            has = self.hand[p] > 0
            if kind == K_SETUP:
                m[3 * T:4 * T] = has
            else:
                m[T:2 * T] = has
                if not self.forced[p]:
                    m[0:T] = has
                    prot, fu = self._prot_list(), self.face_up.tolist()
                    if any(q != p and not fu[q] and not prot[q] for q in range(self.n)):
                        m[2 * T:3 * T] = has
            m.flags.writeable = False   # cached: a caller must not be able to edit it
            return m
        # sub-decisions: the mask depends only on (kind, player, options): cached per config
        key = (kind, p, opts)
        m = self._mask_cache.get(key)
        if m is None:
            m = np.zeros(self.A, dtype=np.int8)
            base = self.off[_KIND_BLOCK[kind]]
            if kind == K_OPP:
                for q in opts:
                    m[base + (q - p - 1) % self.n] = 1
            else:
                for v in opts:
                    m[base + v] = 1
            m.flags.writeable = False
            self._mask_cache[key] = m
        return m

    def _decode(self, a: int) -> tuple[str, int]:
        return self._decode_table[a]

    def _decode_slow(self, a: int) -> tuple[str, int]:
        for name in ("reward", "side", "yesno", "clan", "opp", "order", "setup", "accuse",
                     "change", "play"):
            if a >= self.off[name]:
                return name, a - self.off[name]
        raise AssertionError(a)

    def _apply_action(self, a: int) -> None:
        """Apply legal action ``a`` for the decision due, then run automatic steps until the
        next decision (effects, strengthening, end of turn, start of the next turn)."""
        block, v = self._decode(a)
        dec = self._dec
        _, kind, p, handler, _, ctx = dec
        self._log_action(kind, p, block, v, handler, ctx)
        if kind == K_SETUP:
            self.hand[p, v] -= 1
            self.clan_card[p] = v
            self.know[p, p] = v
            self.setup_done += 1
            if self.setup_done < self.n:
                self._ask_setup()
                return
            self._dec = None
            self._start_turn(self.start_player)
            self._run()
            return
        self.queue.pop(0)
        if kind == K_TURN:
            if block == "change":
                self._change(p, v)
            elif block == "accuse":
                self._public_remove(p, v)
                self.discard[p, v] += 1
                self.pub[v] += 1
                self.pending_card = v
                self.ask(K_OPP, p, "acc_opp", self.accusable(p), {"card": v, "effect": False})
            else:  # play: the card is in public view from now on (counted seen by everyone)
                self._public_remove(p, v)
                self.pub[v] += 1
                self.pending_card = v
                self.queue.insert(0, ("dec", K_ORDER, p, None, (0, 1), {"card": v}))
        elif kind == K_ORDER:
            t = ctx["card"]
            last = not self.hand[p].any()
            fires = not ((self.is_early[t] and last) or (self.is_final[t] and not last))
            steps = [("str", self.type_clan[t], p)]
            if fires:
                if v == 0:
                    steps.insert(0, ("eff", p, t))
                else:
                    steps.append(("eff", p, t))
            steps.append(("fin", p, t))
            self.queue[0:0] = steps
        else:
            if kind == K_OPP:
                v = (p + 1 + v) % self.n
            HANDLERS[handler](self, p, ctx, v)
        self._run()

    # ------------------------------------------------------------------------------ game end
    def _end_game(self) -> None:
        """Winner by ruling 8 (a leader, b normal with Dominance tie-break, c High Mage)."""
        self._terminal = True
        self._dec = None
        self._mask = None
        self.face_up_at_end = self.face_up.copy()
        n = self.n
        winner = None
        leader_winners = []
        for q in range(n):
            for t in np.flatnonzero(self.attach[q]):
                if self.is_leader[t]:
                    cond = LEADER_CONDITIONS.get(self.effect_ids[t])
                    if cond is not None and cond(self, q, int(t)):
                        leader_winners.append(q)
                        break
        if len(leader_winners) == 1:
            winner = leader_winners[0]
        elif self.dominance in leader_winners:
            winner = self.dominance
        if winner is None:
            clans = [self.clan_of(q) for q in range(n)]
            for c in self.track:
                backers = [q for q in range(n) if clans[q] == c]
                if len(backers) == 1:
                    winner = backers[0]
                    break
                if len(backers) > 1 and self.dominance in backers:
                    winner = self.dominance
                    break
        # ruling 8c (after a and b, FAQ "High Mage"): a winner, by a Leader or by the track,
        # who played the High Mage and whose clan is not the Pact clan loses; nobody wins
        if winner is not None and self.pact[winner] >= 0 \
                and self.pact[winner] != self.clan_of(winner):
            winner = None
        self.winner = winner
        # the final scoring shows every clan card to everyone (so a finished game's outcome
        # is public: resampling it cannot change it)
        self._event((EV_END, -1 if winner is None else winner))
        for q in range(n):
            self._split_whisper(range(n), q)
            self.know[:, q] = self.clan_card[q]
            self._event((EV_FINAL, q, int(self.clan_card[q])))
        r = np.zeros(n)
        if winner is not None:
            lose = -1.0 if self.config["reward"] == "win_loss" else -1.0 / (n - 1)
            r[:] = lose
            r[winner] = 1.0
        self._returns = r

    # ------------------------------------------------------------------------------ observation
    def observation_tensor(self, seat: int) -> np.ndarray:
        """Float32 (observation_size,): what ``seat`` knows, layout :func:`build_layout`
        (table in docs/prowl.md); every entry in [0, 1]."""
        n, T, C, P = self.n, self.T, self.C, self._obs_pos
        # counts, exclusions, whispers and knows-matrices: one gather, one scaling
        np.greater_equal(self.know, 0, out=self._src_kc)
        np.copyto(self._src_kh, self.wvalid)
        np.add.reduce(self.hand, axis=1, out=self._src_hs)
        o = self._src[self._gather[seat]]
        np.multiply(o, self._scale, out=o)
        hs = o[P["hand_size"]:P["hand_size"] + n]
        np.divide(hs, self._cpp32, out=hs)
        o[P["seat"] + seat] = 1
        dec = self._dec
        if dec is not None:   # the decision kind is private, what is being resolved public
            if dec[2] == seat:
                o[P["decision"] + dec[1]] = 1
            if self.pending_card >= 0:
                o[P["pending_card"] + self.pending_card] = 1
            ctx = dec[5]
            if dec[3] in ACC_HANDLERS:
                o[P["pending_accusation"]] = 1
            if "clan" in ctx and dec[3] != "acc_reward" and dec[3] != "reward_raise":
                o[P["pending_clan"] + ctx["clan"]] = 1
            if "opp" in ctx:
                o[P["pending_opp"] + (ctx["opp"] - seat) % n] = 1
        o[P["turn_player"] + (self.turn_player - seat) % n] = 1
        o[P["dominance"] + (self.dominance - seat) % n] = 1
        own = int(self.clan_card[seat])
        if own >= 0:
            o[P["own_clan"] + own] = 1
        face_up = self.face_up.tolist()
        if face_up[seat]:
            o[P["own_face_up"]] = 1
        a = P["track"]
        for c, i in enumerate(self.pos):
            o[a + c * C + i] = 1
        seen = self.pub + self.hand[seat]
        fu0, kn0, pa0, fo0, pr0 = P["face_up"], P["known_clan"], P["pact"], P["forced"], \
            P["protected"]
        know = self.know[seat].tolist()
        pact = self.pact.tolist()
        forced = self.forced.tolist()
        prot = self._prot_list()
        perm = self._perm_lists[seat]
        for r, q in enumerate(perm):
            t = know[q]
            if t >= 0:
                o[kn0 + r * T + t] = 1
                seen[t] += 1
                if face_up[q]:
                    o[fu0 + r * T + t] = 1
            if pact[q] >= 0:
                o[pa0 + r * C + pact[q]] = 1
            if forced[q]:
                o[fo0 + r] = 1
            if prot[q]:
                o[pr0 + r] = 1
        wmix = None
        if self._wany[seat]:
            seen = seen + self.whisper[seat].sum(axis=0)
            if self.wclan[seat].any():
                wmix = self.wclan[seat].tolist()
                a = P["whisper_valid"]
                for r, q in enumerate(perm):
                    if wmix[q]:
                        o[a + r] = 0.5
        unseen = self.copies_f - seen
        a = P["unseen"]
        np.multiply(unseen, self.inv_copies, out=o[a:a + T])
        # possible: the known card's clan, else the clans not publicly excluded of which some
        # card is unseen
        has = [c for c, k in enumerate(np.add.reduceat(unseen, self._clan_starts).tolist())
               if k > 0]
        excl = self.excl.tolist()
        type_clan = self.type_clan
        a = P["possible"]
        for r, q in enumerate(perm):
            t = know[q]
            if t >= 0:
                o[a + r * C + type_clan[t]] = 1
            elif wmix is not None and wmix[q]:
                # the clan card is one of the cards in the known multiset
                ex = excl[q]
                cl = np.add.reduceat(self.whisper[seat, q], self._clan_starts).tolist()
                for c in range(C):
                    if cl[c] > 0 and not ex[c]:
                        o[a + r * C + c] = 1
            else:
                ex = excl[q]
                b = a + r * C
                for c in has:
                    if not ex[c]:
                        o[b + c] = 1
        if n == 2:
            o[P["deck_left"]] = len(self.deck2p) / self.deck2p_start
        r = o[self._rc_first:self._rc_last]
        np.take(self._rc, self._rc_gather[seat], out=r)
        np.multiply(r, self._rc_scale, out=r)
        return o

    # ------------------------------------------------------------------------------ text
    def _seat_str(self, q: int) -> str:
        return f"P{q}"

    def action_to_string(self, a: int) -> str:
        """Readable text of action id ``a`` (opponents named for the current player)."""
        block, v = self._decode(int(a))
        T = self.T
        if block in ("play", "change", "accuse", "setup") and 0 <= v < T:
            card = f"{self.type_names[v]} ({self.clan_names[self.type_clan[v]]})"
            return {"play": f"Play {card}", "change": f"Change to {card}",
                    "accuse": f"Accuse, discarding {card}",
                    "setup": f"Choose clan card {card}"}[block]
        if block == "order":
            return ("effect first", "strengthen first")[v]
        if block == "opp":
            if v >= self.n - 1:
                return f"opponent at relative seat {v + 1} (none in a {self.n}-player game)"
            p = self.current_player if self.current_player is not None else 0
            return f"opponent {self._seat_str((p + 1 + v) % self.n)} (relative seat {v + 1})"
        if block == "clan":
            return f"clan {self.clan_names[v]}"
        if block == "yesno":
            return ("no", "yes")[v]
        if block == "side":
            return ("pass left", "pass right")[v]
        return ("reward: Dominance token (or raise a clan)", "reward: force Change")[v]

    def illegal_reason(self, a: int) -> str:
        """Why action ``a`` is illegal now (used in ``IllegalActionError`` messages)."""
        if self._terminal:
            return "the game is over"
        block, v = self._decode(int(a))
        kind, p = self._dec[1], self._dec[2]
        want = {K_SETUP: "setup", K_TURN: "play/change/accuse", K_ORDER: "order", K_OPP: "opp",
                K_CLAN: "clan", K_YESNO: "yesno", K_SIDE: "side", K_REWARD: "reward"}[kind]
        if kind == K_TURN and block in ("play", "change", "accuse"):
            if self.hand[p, v] == 0:
                return f"card {self.type_names[v]} is not in seat {p}'s hand"
            if self.forced[p] and block != "change":
                return "seat must Change this turn (forced, ruling 5)"
            if block == "accuse":
                return "no opponent has a face-down, unprotected clan to Accuse (ruling 4)"
        if kind == K_SETUP and block == "setup":
            return f"card {self.type_names[v]} is not in seat {p}'s hand"
        if block.replace("/", "") not in want.split("/"):
            art = "an" if KIND_NAMES[kind][0] in "aeiou" else "a"
            return f"{art} {KIND_NAMES[kind]} decision is due; {block} actions are not part of it"
        if kind == K_OPP:
            q = (p + 1 + v) % self.n
            if v >= self.n - 1:
                return f"there is no opponent at relative seat {v + 1}"
            if self.protected(q):
                return f"seat {q} is protected by a Bodyguard"
            if self.face_up[q] and self._dec[3] == "acc_opp":
                return f"seat {q}'s clan is face-up: it cannot be Accused (FAQ)"
            return f"seat {q} cannot be chosen here"
        if kind == K_CLAN:
            return (f"clan {self.clan_names[v]} cannot be chosen here (e.g. 'another clan' "
                    f"excludes the card's own clan, FAQ)")
        return "the action mask forbids it in the current decision"

    def render_text(self, seat: int | None = None) -> str:
        """Text picture: everything (``seat=None``) or only what ``seat`` can see."""
        lines = ["Track (top first): " + ", ".join(self.clan_names[c] for c in self.track),
                 f"Dominance: P{self.dominance}; turn of P{self.turn_player}"]
        for q in range(self.n):
            if seat is None or seat == q or self.face_up[q] or self.know[seat, q] >= 0:
                t = self.clan_card[q] if seat is None or seat == q or self.face_up[q] \
                    else self.know[seat, q]
                clan = "-" if t < 0 else \
                    f"{self.type_names[t]} ({self.clan_names[self.type_clan[t]]})"
            else:
                clan = "?"
            clan += " face-up" if self.face_up[q] else ""
            hand = (", ".join(f"{self.type_names[t]}x{int(k)}"
                              for t, k in enumerate(self.hand[q]) if k)
                    if seat is None or seat == q else f"{int(self.hand[q].sum())} cards")
            disc = ", ".join(f"{self.type_names[t]}x{int(k)}"
                             for t, k in enumerate(self.discard[q]) if k)
            att = ", ".join(self.type_names[t] for t in np.flatnonzero(self.attach[q]))
            extra = []
            if self.forced[q]:
                extra.append("must Change")
            if self.pact[q] >= 0:
                extra.append(f"Pact {self.clan_names[self.pact[q]]}")
            lines.append(f"P{q}: clan {clan} | hand {hand} | discards [{disc}] | attached "
                         f"[{att}] {' '.join(extra)}")
        if self._terminal:
            who = "none" if self.winner is None else f"P{self.winner}"
            lines.append(f"Game over: winner {who}")
        elif self._dec is not None:
            _, kind, p, handler, _, ctx = self._dec
            about = ""
            if "card" in ctx and (seat is None or seat == p):   # the decider's own knowledge
                name = self.type_names[ctx["card"]]
                about = (f" (Accusation, discarding {name})" if handler in ACC_HANDLERS
                         and not ctx.get("effect") else f" (resolving {name})")
            lines.append(f"Decision: {KIND_NAMES[kind]} for P{p}{about}")
        lines.append("Legend: track = clans from the top position down; clan ? = a face-down "
                     "clan card you have not seen, - = none yet; Seerx2 = 2 Seer cards; attached = "
                     "Attachment cards in play on that player; Decision = the choice due now "
                     "and who makes it.")
        return "\n".join(lines)

    # ------------------------------------------------------------------------------ research
    def hidden_truth(self) -> dict[str, Any]:
        """Ground truth: each seat's clan (name) and clan card, hands, the 2p deck, the box."""
        nm = self.type_names
        return {
            "clans": [None if self.clan_card[q] < 0 else self.clan_names[self.clan_of(q)]
                      for q in range(self.n)],
            "clan_cards": [None if self.clan_card[q] < 0 else nm[self.clan_card[q]]
                           for q in range(self.n)],
            "hands": [[nm[t] for t in range(self.T) for _ in range(int(self.hand[q, t]))]
                      for q in range(self.n)],
            "deck": [nm[t] for t in self.deck2p],
            "box": [nm[t] for t in self.box],
        }

    # copies: clone, copy.copy, copy.deepcopy and pickling all give a state that behaves exactly
    # like the original from then on (CONVENTIONS, Engine). ``copy.copy`` is ``clone`` (base
    # class); deepcopy and pickling go through __getstate__ / __setstate__.
    def __getstate__(self) -> dict[str, Any]:
        """The state's fields for deepcopy and pickling: the views into ``_src`` are left out
        (``__setstate__`` rebinds them to the copied buffer; copied on their own they would be
        independent arrays that the observation no longer reads), the static tables are
        replaced by their key (shared again, not copied), the cached mask is dropped."""
        d = self.__dict__.copy()
        for k in _VIEWS:
            d.pop(k, None)
        for k, v in _STATIC[d["_static_key"]].items():
            if k != "_static_key" and d.get(k) is v:
                del d[k]
        d["_mask"] = None
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        """Restore from :meth:`__getstate__`: static tables by key, then views into ``_src``."""
        self.__dict__.update(_tables_for(d["_static_key"]))
        self.__dict__.update(d)
        self._bind_views()

    def clone(self) -> "ProwlState":
        """Fast copy: numpy arrays and lists copied, static tables shared."""
        s = object.__new__(ProwlState)
        d = self.__dict__.copy()
        for k in ("_src", "pub", "clan_card", "face_up", "know", "wvalid", "wclan", "pact",
                  "forced"):
            d[k] = d[k].copy()
        for k in ("track", "pos", "deck2p", "box", "history", "accusations", "_wany"):
            d[k] = list(d[k])
        d["queue"] = list(d["queue"])  # steps are immutable tuples (ctx dicts never mutated)
        d["chance_log"] = list(d["chance_log"])  # entries are never mutated
        d["config"] = dict(d["config"])
        if d.get("_forced_chance") is not None:
            d["_forced_chance"] = copy.copy(d["_forced_chance"])
        d["rng"] = np.random.default_rng()
        d["rng"].bit_generator.state = self.rng.bit_generator.state
        d["_mask"] = None
        s.__dict__ = d
        s._bind_views()
        return s

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> "ProwlState":
        """A state consistent with everything ``seat`` knows, whose ``to_record()`` replays to
        it step by step as ``seat`` saw the real game (history consistency): see
        :mod:`envs.prowl.resample` for the constraints kept and the distribution drawn."""
        from .resample import resample
        return resample(self, seat, rng)
