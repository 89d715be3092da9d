"""Scripted Prowl heuristic: deduction from the observation, then a one-step track look-ahead.

The agent decodes its observation with the engine's layout (``envs.prowl.engine.build_layout``)
and never reads the true state. Static card tables (card types, clans, effect ids) come from a
fresh engine built from the same ``config``.

Deduction: for each opponent, a distribution over clans: a known clan card (face-up, peeked,
tracked through swaps) is certain; otherwise clans allowed by ``possible`` (public exclusions from
failed Accusations and Firebrand) weighted by the copies of the clan still unseen (card
counting: own hand, discard piles, attachments, the 2-player pile, peeked hands).

Play: every legal option (Play each card in either order with its best follow-up choices,
Change to each card, Accuse discarding the least useful card) is scored by the estimated chance
that the agent's clan wins — the product over clans above it of the chance no opponent backs
them, times the chance nobody shares its clan (or 1 when holding the Dominance token) — plus
small bonuses for information, protection and leaders whose condition is likely.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import OwnCopy, seat_of_state
from envs.prowl.engine import (K_CLAN, K_OPP, K_ORDER, K_REWARD, K_SETUP, K_SIDE, K_TURN,
                               K_YESNO, ProwlState)


class ProwlHeuristic(OwnCopy):
    """Scripted Prowl agent deciding from its observation only.

    Args:
        config: the game's resolved configuration (``ProwlState.config``).
        seed: seed of the agent's generator (used to break ties).
    """

    name = "prowl_heuristic"

    def __init__(self, config: dict[str, Any], seed: int | None = None) -> None:
        proto = ProwlState(seed=0, **config)
        self.n, self.T, self.C = proto.n, proto.T, proto.C
        self.L = proto.layout
        self.off = proto.off
        self.type_clan = list(proto.type_clan)
        self.eff = list(proto.effect_ids)
        self.copies = proto.copies.astype(float)
        self.is_early = proto.is_early
        self.is_final = proto.is_final
        self.cpp = proto.cpp
        self.glacier_types = proto.glacier_types
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """No memory between games (the observation has perfect recall)."""

    # ------------------------------------------------------------------------------ decoding
    def _decode(self, obs: np.ndarray) -> None:
        L, n, T, C = self.L, self.n, self.T, self.C
        if obs.shape != (L.size,):
            raise ValueError(f"observation of shape {obs.shape}, expected ({L.size},) "
                             f"for {self.n} players (was the agent made for another player "
                             "count or configuration?)")
        v = lambda k: L.view(obs, k)  # noqa: E731
        self.hand = np.rint(v("hand") * self.copies).astype(int)
        self.decision = int(np.argmax(v("decision")))
        pc = v("pending_card")
        self.pending_card = int(np.argmax(pc)) if pc.any() else -1
        self.pending_clan = int(np.argmax(v("pending_clan"))) if v("pending_clan").any() else -1
        po = v("pending_opp")
        self.pending_opp = int(np.argmax(po)) if po.any() else -1
        self.pending_acc = bool(v("pending_accusation")[0])
        oc = v("own_clan")
        self.own_type = int(np.argmax(oc)) if oc.any() else -1
        self.my_clan = self.type_clan[self.own_type] if self.own_type >= 0 else -1
        self.own_face_up = bool(v("own_face_up")[0])
        pos = np.argmax(v("track"), axis=1)
        self.track = [0] * C
        for c in range(C):
            self.track[pos[c]] = c
        self.dom = int(np.argmax(v("dominance")))          # relative seat
        self.hand_size = np.rint(v("hand_size") * self.cpp).astype(int)
        kn = v("known_clan")
        face = v("face_up")
        self.face_up = face.any(axis=1)
        poss = v("possible").astype(bool)
        unseen = v("unseen") * self.copies
        unseen_clan = np.zeros(C)
        for t in range(T):
            unseen_clan[self.type_clan[t]] += unseen[t]
        self.unseen_clan = unseen_clan
        P = np.zeros((n, C))
        self.known = [-1] * n
        for r in range(n):
            if kn[r].any():
                c = self.type_clan[int(np.argmax(kn[r]))]
                P[r, c] = 1.0
                self.known[r] = c
            else:
                w = poss[r] * (unseen_clan + 0.25)
                if w.sum() <= 0:
                    w = poss[r].astype(float) + 1e-9
                P[r] = w / w.sum()
        self.P = P
        self.protected = v("protected").astype(bool)
        self.attach = np.rint(v("attachments") * self.copies).astype(int)
        self.forced = v("forced").astype(bool)
        pr = v("pact")[0]
        self.my_pact = int(np.argmax(pr)) if pr.any() else -1

    # ------------------------------------------------------------------------------ values
    def _threat(self, skip: int | None = None) -> np.ndarray:
        P = self.P[1:]
        return 1.0 - np.prod(1.0 - P, axis=0)

    def _value(self, track: list[int], clan: int, dom_me: bool, P: np.ndarray | None = None
               ) -> float:
        """Estimated chance that ``clan`` (backed by me) wins with this track, given the
        opponents' clan distributions ``P`` (default: the current estimate)."""
        if clan < 0:
            return 0.0
        if P is None:
            threat, P = self._thr, self.P
        else:
            threat = 1.0 - np.prod(1.0 - P[1:], axis=0)
        p = 1.0
        for c in track:
            if c == clan:
                break
            p *= 1.0 - threat[c]
        share = 1.0 if dom_me else float(np.prod(1.0 - P[1:, clan]))
        pos = track.index(clan)
        return p * (0.35 + 0.65 * share) + 0.04 * (self.C - 1 - pos)

    @staticmethod
    def _raise(track: list[int], c: int, k: int, blocked: set[int]) -> list[int]:
        tr = list(track)
        for _ in range(k):
            i = tr.index(c)
            if i == 0:
                break
            if tr[i - 1] in blocked:
                continue
            tr[i - 1], tr[i] = tr[i], tr[i - 1]
        return tr

    @staticmethod
    def _lower(track: list[int], c: int, k: int, blocked: set[int]) -> list[int]:
        tr = list(track)
        for _ in range(k):
            i = tr.index(c)
            if i == len(tr) - 1:
                break
            if c in blocked:
                continue
            tr[i + 1], tr[i] = tr[i], tr[i + 1]
        return tr

    def _blocked(self) -> set[int]:
        """Clans protected by an opponent's attached Glacier."""
        b = set()
        for t in self.glacier_types:
            if self.attach[1:, t].any():
                b.add(self.type_clan[t])
        return b

    def _effect_outcomes(self, t: int, track: list[int], dom_me: bool, clan: int
                         ) -> tuple[float, list[int], bool, Any]:
        """Best (bonus, track, dom_me, choice) of card ``t``'s effect for my ``clan``."""
        e, C, cc = self.eff[t], self.C, self.type_clan[t]
        bl = self._blocked()
        V = lambda tr, d=dom_me: self._value(tr, clan, d)  # noqa: E731
        best = (0.0, track, dom_me, None)
        if e == "hexer":
            opts = [(V(self._lower(track, c, 1, bl)), c) for c in range(C) if c != cc]
            v, c = max(opts)
            return (0.0, self._lower(track, c, 1, bl), dom_me, c)
        if e == "berserker":
            if track[0] != cc:
                return (0.0, self._lower(track, track[0], 1, bl), dom_me, None)
            return best
        if e == "last_stand":
            return (0.0, self._raise(track, cc, 2, bl), dom_me, None)
        if e == "headstrong_scout":
            if track[-1] == cc:
                return (0.0, self._raise(track, cc, 2, bl), dom_me, None)
            return best
        if e == "captain":
            if dom_me:
                c = clan if clan >= 0 else cc
                return (0.0, self._raise(track, c, 1, bl), True, c)
            return (0.05, track, True, None)
        if e == "drillmaster":
            if dom_me:
                return (0.0, self._raise(track, cc, 1, bl), dom_me, None)
            return best
        if e == "marshal":
            bestv = None
            for a in range(C):
                t1 = self._raise(track, a, 1, bl)
                for b in range(C):
                    if b == cc:
                        continue
                    t2 = self._lower(t1, b, 1, bl)
                    v = V(t2)
                    if bestv is None or v > bestv[0]:
                        bestv = (v, t2, (a, b))
            return (0.0, bestv[1], dom_me, bestv[2])
        if e == "wanderer":
            bestv = None
            others = [c for c in range(C) if c != cc]
            for i, a in enumerate(others):
                for b in others[i + 1:]:
                    tr = list(track)
                    ia, ib = tr.index(a), tr.index(b)
                    hi = a if ia < ib else b
                    if hi not in bl:
                        tr[ia], tr[ib] = tr[ib], tr[ia]
                    v = V(tr)
                    if bestv is None or v > bestv[0]:
                        bestv = (v, tr, (a, b))
            return (0.0, bestv[1], dom_me, bestv[2])
        if e == "assassin":
            if track.index(cc) <= 1:
                opts = [(V(self._lower(track, c, 2, bl)), c) for c in range(C)]
                v, c = max(opts)
                return (0.0, self._lower(track, c, 2, bl), dom_me, c)
            return best
        if e == "usurper":
            if track.index(cc) <= 1:
                return (0.03, self._raise(track, cc, 1, bl), True, None)
            return best
        if e == "raider":
            return (self._accuse_target()[0], track, dom_me, None)
        if e in ("seer", "herald", "whisperer"):
            unknown = sum(1 for r in range(1, self.n)
                          if self.known[r] < 0 and not self.protected[r])
            return (0.02 * min(unknown, 1) + (0.02 if e == "herald" else 0.0), track, dom_me, None)
        if e == "magistrate":
            return (max(0.0, self._force_target()[0]), track, dom_me, None)
        if e == "bodyguard":
            return (0.04 if not self.own_face_up else 0.01, track, dom_me, None)
        if e == "glacier":
            return (0.04 if clan == cc else 0.0, track, dom_me, None)
        if e == "warlord":
            p = 0.5 if dom_me else 0.15
            return (0.3 * p if track.index(cc) <= 1 else 0.03, track, dom_me, None)
        if e == "regent":
            return (0.25 if track.index(cc) <= 2 and not self.own_face_up else 0.02, track,
                    dom_me, None)
        if e == "warmonger":
            frac = float(np.mean(self.face_up[1:]))
            return (0.3 * frac ** 2, track, dom_me, None)
        if e == "high_mage":
            return (0.08, track, dom_me, clan)
        if e in ("hooded_figure", "changeling", "firebrand"):
            return (self._swap_bonus(e, track, dom_me, clan), track, dom_me, None)
        return best

    def _swap_bonus(self, e: str, track: list[int], dom_me: bool, clan: int) -> float:
        base = self._value(track, clan, dom_me)
        if e == "firebrand":
            return 0.01
        cands = []
        if e == "changeling":
            for r in range(1, self.n):
                if self.protected[r]:
                    continue
                ev = sum(self.P[r, c] * self._value(track, c, dom_me) for c in range(self.C))
                cands.append(ev - base)
        else:
            for r in (self.n - 1, 1):  # receive from the right (pass left) / from the left
                if self.protected[r]:
                    continue
                ev = sum(self.P[r, c] * self._value(track, c, dom_me) for c in range(self.C))
                cands.append(ev - base)
        return max(cands) if cands else 0.0

    def _reward_gains(self, r: int, c: int) -> tuple[float, float]:
        """Value gains of the two Accuse rewards after a correct guess of clan ``c`` for
        relative seat ``r``: (i) Dominance token (or raise my clan), (ii) force a Change."""
        dom_me, my, tr = self.dom == 0, self.my_clan, self.track
        v0 = self._value(tr, my, dom_me)
        if dom_me:
            g1 = self._value(self._raise(tr, my, 1, self._blocked()), my, True) - v0
        else:
            g1 = self._value(tr, my, True) - v0
        P = self.P.copy()
        P[r] = 1.0 / self.C
        P[r, c] = 0.0
        P[r] /= P[r].sum()
        g2 = self._value(tr, my, dom_me, P) - v0
        return g1, g2

    def _force_target(self, rel: list[int] | None = None) -> tuple[float, int]:
        """(expected value gain, relative seat) of forcing an opponent to Change."""
        best = (-1.0, -1)
        if self.my_clan < 0:
            return best
        for r in rel or range(1, self.n):
            if self.protected[r] or self.forced[r]:
                continue
            g = sum(float(self.P[r, c]) * self._reward_gains(r, c)[1]
                    for c in range(self.C) if self.P[r, c] > 0)
            if g > best[0]:
                best = (g, r)
        return best

    def _accuse_target(self) -> tuple[float, int, int]:
        """(expected gain, relative seat, clan) of the best Accusation now."""
        best = (0.0, -1, -1)
        if self.my_clan < 0:
            return best
        for r in range(1, self.n):
            if self.face_up[r] or self.protected[r]:
                continue
            for c in range(self.C):
                p = float(self.P[r, c])
                if p <= 0:
                    continue
                g = p * max(self._reward_gains(r, c)) + 0.01 * (1 - p)
                if g > best[0]:
                    best = (g, r, c)
        return best

    def _play_score(self, t: int, order: int) -> tuple[float, Any]:
        hand_left = int(self.hand.sum()) - 1
        last = hand_left == 0
        fires = not ((self.is_early[t] and last) or (self.is_final[t] and not last))
        track, dom_me, clan = list(self.track), self.dom == 0, self.my_clan
        cc = self.type_clan[t]
        bonus, choice = 0.0, None
        if fires and order == 0:
            bonus, track, dom_me, choice = self._effect_outcomes(t, track, dom_me, clan)
        track = self._raise(track, cc, 1, set())
        if fires and order == 1:
            bonus, track, dom_me, choice = self._effect_outcomes(t, track, dom_me, clan)
        return self._value(track, clan, dom_me) + bonus, choice

    # ------------------------------------------------------------------------------ acting
    def act(self, observation: dict[str, np.ndarray], agent: str) -> int:
        """A legal action id chosen by the rules above. Raises ValueError if none is legal or
        the observation's shape is not that of the agent's config (another player count)."""
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("the action mask has no legal action")
        self._decode(observation["observation"])
        self._thr = self._threat()
        a = self._choose(mask)
        if a is None or not mask[a]:
            a = int(self.rng.choice(legal))
        return int(a)

    def _choose(self, mask: np.ndarray) -> int | None:
        off, T, C = self.off, self.T, self.C
        k = self.decision
        if k == K_SETUP:
            best = None
            for t in np.flatnonzero(self.hand):
                c = self.type_clan[t]
                rest = self.hand.copy()
                rest[t] -= 1
                support = sum(rest[u] for u in range(T) if self.type_clan[u] == c)
                score = 0.5 * (C - 1 - self.track.index(c)) + support
                if best is None or score > best[0]:
                    best = (score, off["setup"] + int(t))
            return best[1]
        if k == K_TURN:
            return self._turn(mask)
        if k == K_ORDER:
            t = self.pending_card
            s0 = self._play_score(t, 0)[0]
            s1 = self._play_score(t, 1)[0]
            return off["order"] + (0 if s0 >= s1 else 1)
        if k == K_OPP:
            return self._choose_opp(mask)
        if k == K_CLAN:
            return self._choose_clan(mask)
        if k == K_YESNO:   # Herald: force the peeked opponent to Change?
            r = self.pending_opp
            c = self.known[r] if r >= 0 else -1
            yes = c >= 0 and self.my_clan >= 0 and self._reward_gains(r, c)[1] > 0
            return off["yesno"] + int(yes)
        if k == K_SIDE:
            vals = []
            for side, r in ((0, self.n - 1), (1, 1)):
                ev = sum(self.P[r, c] * self._value(self.track, c, self.dom == 0)
                         for c in range(C))
                vals.append((ev, side))
            return off["side"] + max(vals)[1]
        if k == K_REWARD:
            r = self.pending_opp
            c = self.known[r] if r >= 0 else -1
            if r < 0 or c < 0:
                return off["reward"]
            g1, g2 = self._reward_gains(r, c)
            return off["reward"] + (0 if g1 >= g2 else 1)
        return None

    def _turn(self, mask: np.ndarray) -> int:
        off, T = self.off, self.T
        dom_me = self.dom == 0
        base = self._value(self.track, self.my_clan, dom_me)
        opts = []
        play_vals = {}
        for t in range(T):
            if mask[off["play"] + t]:
                s = max(self._play_score(t, 0)[0], self._play_score(t, 1)[0])
                play_vals[t] = s
                opts.append((s, off["play"] + t))
        for t in range(T):
            if mask[off["change"] + t]:
                c = self.type_clan[t]
                s = self._value(self.track, c, dom_me) - 0.06 + (0.05 if self.own_face_up else 0)
                if self.my_pact >= 0 and c != self.my_pact:
                    s -= 1.0   # High Mage contract
                opts.append((s, off["change"] + t))
        if mask[off["accuse"]:off["accuse"] + T].any():
            gain, r, c = self._accuse_target()
            if r > 0:
                cand = [t for t in range(T) if mask[off["accuse"] + t]]
                t = min(cand, key=lambda u: play_vals.get(u, base))
                opts.append((base + gain, off["accuse"] + t))
        opts.sort(key=lambda x: -x[0])
        return opts[0][1]

    def _choose_opp(self, mask: np.ndarray) -> int:
        off, n = self.off, self.n
        rel = [r for r in range(1, n) if mask[off["opp"] + r - 1]]
        e = self.eff[self.pending_card] if self.pending_card >= 0 else ""
        if self.pending_acc:
            g, r, c = self._accuse_target()
            best = r if r in rel else max(rel, key=lambda r: float(self.P[r].max()))
        elif e in ("seer", "herald", "whisperer"):
            unknown = [r for r in rel if self.known[r] < 0]
            pool = unknown or rel
            m = max(self.my_clan, 0)
            best = max(pool, key=lambda r: float(self.P[r, m]) - 0.1 * float(self.P[r].max()))
        elif e == "changeling":
            vals = [(sum(self.P[r, c] * self._value(self.track, c, self.dom == 0)
                         for c in range(self.C)), r) for r in rel]
            best = max(vals)[1]
        else:   # magistrate: the opponent whose forced Change helps most
            g, r = self._force_target(rel)
            best = r if r in rel else rel[0]
        return off["opp"] + best - 1

    def _choose_clan(self, mask: np.ndarray) -> int:
        off, C = self.off, self.C
        legal = [c for c in range(C) if mask[off["clan"] + c]]
        t = self.pending_card
        e = self.eff[t] if t >= 0 else ""
        dom_me = self.dom == 0
        bl = self._blocked()
        V = lambda tr: self._value(tr, self.my_clan, dom_me)  # noqa: E731
        if self.pending_acc and self.pending_opp >= 0 and not self._is_raise_choice():
            r = self.pending_opp
            return off["clan"] + max(legal, key=lambda c: float(self.P[r, c]) *
                                     max(self._reward_gains(r, c)) + 1e-3 * float(self.P[r, c]))
        if e in ("hexer",) or (e == "marshal" and self.pending_clan >= 0):
            return off["clan"] + max(legal, key=lambda c: V(self._lower(self.track, c, 1, bl)))
        if e == "assassin":
            return off["clan"] + max(legal, key=lambda c: V(self._lower(self.track, c, 2, bl)))
        if e == "wanderer":
            if self.pending_clan < 0:
                _, _, _, ch = self._effect_outcomes(t, self.track, dom_me, self.my_clan)
                return off["clan"] + (ch[0] if ch and ch[0] in legal else legal[0])
            a = self.pending_clan

            def swapped(b: int) -> list[int]:
                tr = list(self.track)
                ia, ib = tr.index(a), tr.index(b)
                tr[ia], tr[ib] = tr[ib], tr[ia]
                return tr
            return off["clan"] + max(legal, key=lambda b: V(swapped(b)))
        if e == "firebrand":
            return off["clan"] + max(legal, key=lambda c: float(self._thr[c]) *
                                     (2.0 if c != self.my_clan else 0.0))
        # raise choices (Captain, Marshal raise, Accuse reward), Pact: my clan
        if self.my_clan in legal:
            if e == "marshal":
                return off["clan"] + max(legal, key=lambda c: V(self._raise(self.track, c, 1, bl)))
            return off["clan"] + self.my_clan
        return off["clan"] + legal[0]

    def _is_raise_choice(self) -> bool:
        """An accusation's reward raise (after a correct guess the target is face-up)."""
        r = self.pending_opp
        return r >= 0 and bool(self.face_up[r]) and self.known[r] >= 0


class BeliefProwlHeuristic(ProwlHeuristic):
    """The Prowl heuristic with its clan deduction replaced by the exact consistent posterior.

    Agent spec ``heuristic:belief``. Everything is as in :class:`ProwlHeuristic` except the
    opponents' clan distributions ``P`` (used for threats, Accusations, rewards and leaders):
    instead of weighting each allowed clan by its unseen copies plus 0.25, one seat at a time,
    it reads :meth:`agents.belief.ProwlAdapter.exact_consistent`, the posterior over every
    unknown clan card jointly (falling factorials of the unseen pool's per-clan counts, public
    exclusions respected, Whisperer multisets used). That needs the live game: the agent
    declares ``needs_state = True`` and reads from the state only what its seat may know (the
    adapter reads the seat's knowledge: its cards, public cards, peeks, exclusions).

    Raises:
        ValueError: :meth:`act` without ``state``, or a ``state`` not at ``agent``'s decision.
    """

    name = "prowl_heuristic_belief"
    needs_state = True

    def __init__(self, config: dict[str, Any], seed: int | None = None) -> None:
        super().__init__(config, seed)
        from agents.belief import adapter_for

        self.adapter = adapter_for("prowl")

    def act(self, observation: dict[str, np.ndarray], agent: str, state: Any = None) -> int:
        """A legal action id chosen as in :class:`ProwlHeuristic` with the consistent posterior
        as its clan beliefs."""
        seat = seat_of_state(state, agent, "BeliefProwlHeuristic reads the consistent "
                             "posterior from the live game")
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("the action mask has no legal action")
        self._decode(observation["observation"])
        b = self.adapter.exact_consistent(state, seat)
        for r in range(1, self.n):
            q = (seat + r) % self.n
            if state.clan_card[q] >= 0:      # before set-up: the heuristic's own prior
                self.P[r] = b[q]
        self._thr = self._threat()
        a = self._choose(mask)
        if a is None or not mask[a]:
            a = int(self.rng.choice(legal))
        return int(a)
