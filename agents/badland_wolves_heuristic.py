"""Scripted Badland Wolves heuristic: decides from the observation dict only.

It decodes the observation with the game's layout (``envs.badland_wolves.observation_layout``)
and plays a simple plan:

* hunt when short of cards; attack wolves that are unlikely to defend (few cards, or a hand known
  to hold no defence), preferring targets holding the tokens worth most to it;
* always play a Collect set (on the wolf holding the most valuable token), and three Feathers once
  two or more of its own Loyalties are held by others;
* defend whenever a token is at stake, preferring Thorn Tied (counter-attack) and Ravenous (steal);
  call a Guardian when it has no defence, accept guarding when it has one;
* risk and join Hunts with the token it can best afford to lose, never the third token of an
  Allegiance it holds;
* keep the best cards when dealing shares and discarding.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from agents.base import OwnCopy, is_real_number
from envs.badland_wolves.cards import (
    ANTLER, CROWS_ALLY, DEFENCE_NEEDS, DEFENCES_VS, FEATHER, FRENZY, SCRAP_COUNTS_ARR, TC,
)
from envs.badland_wolves.engine import (
    CA_FOLLOW, CROW1, CROW2, DEAL, DEFEND, DISCARD, FOX_T, GRIZZLY_T, GUARD_ACCEPT, GUARD_CALL,
    JACK, JOIN, ORDER, RISK, TAKE, TURN, WEASEL_T, action_layout, observation_layout,
)

#: keeping value of each Scrap type (collect types get a bonus when a set is near)
_BASE_VALUE = np.array([4.0, 6.0, 5.0, 2.0, 5.5, 1.0, 1.0, 1.0, 0.8])
#: preference among defences (higher first): index as cards.DEFENCES
_DEFENCE_PREF = {3: 6, 2: 5, 0: 4, 1: 1, 5: 6, 6: 5, 4: 4}


class BadlandWolvesHeuristic(OwnCopy):
    """Rule-based Badland Wolves player.

    Args:
        config: the game's resolved config (``num_players`` is read).
        seed: seed of the tie-breaking generator.
        **parameters: rule parameters to change from their defaults (:attr:`PARAMETERS`;
            agent spec ``heuristic:KEY=VALUE[:...]``, e.g. ``heuristic:join_hand=4``).

    ``act(observation, agent) -> int`` returns a legal action id (int) for the PettingZoo
    observation dict ``{"observation": float32 (D,), "action_mask": int8 (A,)}``.

    Raises:
        ValueError: an unknown parameter or a value of the wrong type or out of range (at
            construction); the mask has no legal action, or (at a decision with a choice) the
            observation's shape is not that of ``config`` (another player count).
    """

    name = "heuristic"

    #: rule parameters: name -> (type, default, meaning); the defaults are the heuristic's play
    PARAMETERS: ClassVar[dict[str, tuple[type, Any, str]]] = {
        "join_hand": (int, 6, "Join Hunt: decline with at least this many cards in hand"),
        "join_cost": (float, 2.5, ("Join Hunt: decline when the cheapest token to risk costs "
                                   "more than this (own colour 2-4, others 1-10)")),
        "jack_hand": (int, 4, "Jackalope: accept with at least this many cards in hand"),
        "attack_threshold": (float, 1.2, ("attack when P(no defence) x token value reaches "
                                          "this with at least attack_hand cards")),
        "attack_threshold_short": (float, 2.5, "the same with fewer than attack_hand cards"),
        "attack_hand": (int, 4, "hand size from which attack_threshold applies"),
        "feathers_held": (int, 2, ("play Three Feathers once this many of its own Loyalties "
                                   "are held by others")),
    }

    def __init__(self, config: dict[str, Any], seed: int | None = None,
                 **parameters: Any) -> None:
        self.parameters = {key: spec[1] for key, spec in self.PARAMETERS.items()} | {
            key: self._parameter(key, value) for key, value in parameters.items()}
        self.n = int(config.get("num_players", 4))
        self.L = observation_layout(self.n)
        self.I = action_layout(self.n)
        self.rng = np.random.default_rng(seed)

    @classmethod
    def _parameter(cls, key: str, value: Any) -> int | float:
        """``value`` of rule parameter ``key`` as the parameter's type.

        Raises:
            ValueError: an unknown ``key``; a ``value`` that is a bool, not a number, a float
                not finite, not whole for an int parameter, or negative; a number too large
                for a float.
        """
        if key not in cls.PARAMETERS:
            raise ValueError(f"unknown Badland Wolves heuristic parameter {key!r}; known: "
                             f"{', '.join(sorted(cls.PARAMETERS))}")
        kind = cls.PARAMETERS[key][0]
        if (not is_real_number(value) or (isinstance(value, (float, np.floating)) and not math.isfinite(value))
                or (kind is int and int(value) != value) or value < 0):
            raise ValueError(f"heuristic parameter {key} must be a non-negative "
                             f"{kind.__name__}, got {value!r}")
        try:
            float(value)
        except OverflowError:
            raise ValueError(f"heuristic parameter {key} must be a finite number, got "
                             f"{value!r}") from None
        return kind(value)

    def reset(self) -> None:
        """No memory between decisions: everything needed is in the observation."""

    # ------------------------------------------------------------------------------------------
    def _decode(self, obs: np.ndarray) -> dict[str, Any]:
        L, n = self.L, self.n
        if obs.shape != (L.size,):
            raise ValueError(f"observation of shape {obs.shape}, expected ({L.size},) "
                             f"for {self.n} players (was the agent made for another player "
                             "count or configuration?)")
        v = lambda name: L.view(obs, name)  # noqa: E731
        d = {
            "me": int(np.argmax(v("seat"))),
            "lead": int(np.argmax(v("lead"))),
            "phase": int(np.argmax(v("phase"))),
            "hand": np.rint(v("hand") * SCRAP_COUNTS_ARR).astype(int),
            "tokens": np.rint(v("tokens") * 5).astype(int),
            "sizes": np.rint(v("hand_sizes") * 60).astype(int),
            "known": np.rint(v("known") * SCRAP_COUNTS_ARR).astype(int),
            "hunters": v("hunters") > 0.5,
            "risked": v("risked"),
            "drawn": np.rint(v("drawn") * 5).astype(int),
            "attacker": int(np.argmax(v("attacker"))),
            "defender": int(np.argmax(v("defender"))),
            "strength": 1 + int(np.argmax(v("strength"))),
            "look": int(np.argmax(v("look_target"))),
            "guardian": v("guardian").max() > 0.5,
            "victim": int(np.argmax(v("victim"))),
        }
        d["risk_col"] = [int(np.argmax(d["risked"][h])) if d["risked"][h].max() > 0.5 else -1
                         for h in range(n)]
        return d

    def _card_values(self, hand: np.ndarray) -> np.ndarray:
        val = _BASE_VALUE.copy()
        for k in range(ANTLER, FEATHER + 1):
            if hand[k] >= 2:
                val[k] = 4.5
        return val

    def _colour_value(self, d: dict, c: int, victim: int | None = None) -> float:
        me, tok = d["me"], d["tokens"]
        if c == me:
            v = 4.0
        else:
            v = {0: 2.5, 1: 3.0, 2: 6.0}.get(int(tok[me, c]), 1.5)
        if victim is not None and victim != c and tok[victim, c] == 3:
            v += 2.5  # breaks the victim's hold on c's Allegiance
        return v

    def _best_take(self, d: dict, victim: int) -> tuple[float, int]:
        best = (-1.0, -1)
        for c in range(self.n):
            if d["tokens"][victim, c] > 0:
                best = max(best, (self._colour_value(d, c, victim), c))
        return best

    def _risk_cost(self, d: dict, c: int) -> float:
        me, tok = d["me"], d["tokens"]
        if c == me:
            return 2.0 + (2.0 if tok[:, me].sum() - tok[me, me] >= 2 else 0.0)
        return {3: 10.0, 2: 4.0}.get(int(tok[me, c]), 1.0)

    @staticmethod
    def _can_defend(hand: np.ndarray, strength: int) -> list[int]:
        return [x for x in DEFENCES_VS[strength] if np.all(hand >= DEFENCE_NEEDS[x])]

    def _p_no_defence(self, d: dict, t: int, strength: int) -> float:
        size = int(d["sizes"][t])
        known = d["known"][t]
        if size == 0:
            return 1.0
        if known.sum() >= size:  # whole hand known
            return 0.0 if self._can_defend(known, strength) else 1.0
        if self._can_defend(known, strength):
            return 0.0
        q = 0.45 if strength == 1 else 0.75
        return q ** (size - int(known.sum()))

    # ------------------------------------------------------------------------------------------
    def act(self, observation: dict[str, np.ndarray], agent: str) -> int:
        """A legal action id chosen by the rules in the module docstring."""
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("the action mask has no legal action: no decision is due")
        if legal.size == 1:
            return int(legal[0])
        d = self._decode(np.asarray(observation["observation"], dtype=np.float32))
        a = self._choose(d, mask)
        if a is None or not mask[a]:
            a = int(self.rng.choice(legal))
        return int(a)

    def _choose(self, d: dict, mask: np.ndarray) -> int | None:
        I, n, me, ph = self.I, self.n, d["me"], d["phase"]
        hand, tok = d["hand"], d["tokens"]
        if ph == TURN:
            return self._turn(d, mask)
        if ph in (RISK, JOIN):
            cols = [c for c in range(n) if mask[I.COLOUR + c]]
            cost, c = min((self._risk_cost(d, c), c) for c in cols)
            if ph == JOIN:
                if hand.sum() >= self.parameters["join_hand"] or \
                        cost > self.parameters["join_cost"]:
                    return I.DECLINE
            return I.COLOUR + c
        if ph == ORDER:
            opts = [t for t in range(n) if mask[I.TARGET + t]]
            return I.TARGET + min(opts, key=lambda t: (tok[t].sum(), t))
        if ph == DEAL:
            val = self._card_values(hand)
            opts = [(val[k], t, k) for t in range(n) for k in range(9)
                    if mask[I.GIVE + t * 9 + k]]
            _, t, k = min(opts)
            return I.GIVE + t * 9 + k
        if ph == JACK:
            return I.ACCEPT if hand.sum() >= self.parameters["jack_hand"] else I.DECLINE
        if ph == DISCARD:
            val = self._card_values(hand)
            opts = [k for k in range(9) if mask[I.DISCARD + k]]
            return I.DISCARD + min(opts, key=lambda k: val[k])
        if ph in (WEASEL_T, GRIZZLY_T):
            opts = [t for t in range(n) if mask[I.TARGET + t]]
            return I.TARGET + max(opts, key=lambda t: (d["sizes"][t], tok[t].sum()))
        if ph == CROW1 or ph == CROW2:
            rc = d["risk_col"]
            if rc[me] < 0:
                return I.DECLINE if ph == CROW1 else None
            mine = self._colour_value(d, rc[me])
            best = max(((self._colour_value(d, rc[j]), j) for j in range(n)
                        if j != me and rc[j] >= 0 and mask[I.TARGET + j]), default=None)
            if ph == CROW1:
                if best is not None and best[0] > mine + 0.5:
                    return I.TARGET + me
                return I.DECLINE
            return I.TARGET + best[1] if best is not None else None
        if ph == FOX_T:
            rc = d["risk_col"]
            opts = [(self._colour_value(d, rc[t], t), t) for t in range(n) if mask[I.TARGET + t]]
            return I.TARGET + max(opts)[1] if opts else I.DECLINE
        if ph == CA_FOLLOW:
            t = d["look"]
            kh = d["known"][t]
            if mask[I.ATTACK_TC + t] and not self._can_defend(kh, 1):
                return I.ATTACK_TC + t
            if mask[I.ATTACK_FR + t] and not self._can_defend(kh, 2):
                return I.ATTACK_FR + t
            return I.DECLINE
        if ph == GUARD_CALL:
            if self._can_defend(hand, d["strength"]) or tok[me].sum() == 0:
                return I.DECLINE
            opts = [g for g in range(n) if mask[I.TARGET + g]]
            return I.TARGET + max(opts, key=lambda g: d["sizes"][g])
        if ph == GUARD_ACCEPT:
            return I.ACCEPT if self._can_defend(hand, d["strength"]) else I.DECLINE
        if ph == DEFEND:
            guarding = d["guardian"] and me != d["defender"]
            if tok[me].sum() == 0 and not guarding:
                return I.DECLINE
            opts = [x for x in range(7) if mask[I.DEFEND + x]]
            if not opts:
                return I.DECLINE
            att_has_tokens = tok[d["attacker"]].sum() > 0
            def pref(x: int) -> float:
                p = _DEFENCE_PREF[x]
                if x in (3, 5) and not att_has_tokens:
                    p -= 3
                return p
            return I.DEFEND + max(opts, key=pref)
        if ph == TAKE:
            victim = d["victim"]
            best = (-1.0, -1)
            for c in range(n):
                if mask[I.COLOUR + c]:
                    best = max(best, (self._colour_value(d, c, victim), c))
            return I.COLOUR + best[1]
        return None

    def _turn(self, d: dict, mask: np.ndarray) -> int | None:
        I, n, me = self.I, self.n, d["me"]
        hand, tok = d["hand"], d["tokens"]
        # Collect sets: always worth it
        best = None
        for s in range(3):
            for t in range(n):
                if mask[I.COLLECT + s * n + t]:
                    val, _ = self._best_take(d, t)
                    if best is None or val > best[0]:
                        best = (val, I.COLLECT + s * n + t)
        if best is not None:
            return best[1]
        if mask[I.FEATHER] and tok[:, me].sum() - tok[me, me] >= self.parameters["feathers_held"]:
            return I.FEATHER
        # attacks
        cands = []
        for t in range(n):
            if t == me or tok[t].sum() == 0:
                continue
            val, _ = self._best_take(d, t)
            if mask[I.ATTACK_TC + t]:
                cands.append((self._p_no_defence(d, t, 1) * val, I.ATTACK_TC + t))
            if mask[I.ATTACK_FR + t] and (hand[FRENZY] >= 2 or hand.sum() >= 6):
                cands.append((self._p_no_defence(d, t, 2) * val, I.ATTACK_FR + t))
        if cands:
            score, a = max(cands)
            par = self.parameters
            threshold = (par["attack_threshold"] if hand.sum() >= par["attack_hand"]
                         else par["attack_threshold_short"])
            if score >= threshold:
                return a
        # Crow's Ally: look at a wolf with a small hand holding tokens, if we can follow up
        if hand[CROWS_ALLY] and (hand[TC] or hand[FRENZY]) and hand.sum() >= 3:
            opts = [t for t in range(n) if mask[I.CROWS_ALLY + t] and tok[t].sum() > 0
                    and 1 <= d["sizes"][t] <= 3 and d["known"][t].sum() < d["sizes"][t]]
            if opts:
                return I.CROWS_ALLY + min(opts, key=lambda t: d["sizes"][t])
        return I.HUNT
