"""Scripted Clans heuristic (:class:`ClansHeuristic`): plays for its own secret colour.

Decides from the observation only (decoded with :func:`envs.clans.observation_layout`; the
board and epoch charts are static public data). For every legal move it simulates the villages
that move would form (dispute and epoch scoring as in rules/clans.txt) and values

    own colour's points + bonus chips taken - sum over colours c of w(c) * points(c)

where ``w(c)`` is its belief that colour ``c`` belongs to an opponent. The best few moves are
then checked one ply deeper: the worst village the next player could form in reply (points to
colours believed to be opponents' and a chip, minus points to its own colour) is subtracted
at half weight, so it avoids leaving profitable villages behind. Among equal moves it keeps
options by gathering its own huts into larger groups on terrain that is not hostile now.
Ordering decisions (ruling 6) take the order that maximises the same value.

Belief: each other seat is assumed to favour its own colour; points its villages gave to each
colour (public, ``seat_colour_points``), each colour's share of the huts in the groups it moved
onto (public, ``seat_colour_moved``) and the colours at the destination of its last moves
(remembered between calls within a game) raise that seat's likelihood of owning those colours (a softmax over the colours that are not
ours); ``w(c)`` sums those probabilities over the other seats (capped at 1).
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np

from agents.base import OwnCopy, SeatBound, seat_of_state
from envs.clans import board as B
from envs.clans.engine import NUM_MOVE_ACTIONS, observation_layout
from envs.core.aec import seat_of

_NEIGH = B.NEIGHBOURS
_TERRAIN = B.AREA_TERRAIN.tolist()
# the move actions out of each area: _MOVES_FROM[src] = [(action, dst), ...] in action order
_MOVES_FROM: list[list[tuple[int, int]]] = [[] for _ in range(B.NUM_AREAS)]
for _a in range(NUM_MOVE_ACTIONS):
    _MOVES_FROM[int(B.EDGE_SRC[_a])].append((_a, int(B.EDGE_DST[_a])))


class ClansHeuristic(SeatBound, OwnCopy):
    """Greedy one-ply-plus-reply Clans player for its own colour.

    Args:
        config: the game's resolved config (``num_players``, ``epoch_chart``, ``reward``).
        seed: seed of the tie-breaking generator. It is seeded once, here: :meth:`reset` does
            not reseed it, so successive games draw on one stream (as
            :class:`agents.base.RandomAgent`'s), and a run is reproduced from the same
            construction seed and sequence of games.

    It remembers the game (colour evidence from the moves seen), so it is one instance per seat
    and game (:class:`agents.base.SeatBound`): after construction or :meth:`reset` it binds to
    the first agent it acts for.

    Raises:
        ValueError: from :meth:`act` when the observation's mask has no legal action, the
            observation's shape is not that of ``config`` (another player count), or it is asked
            for another agent than the one it acts for in this game.
    """

    name = "clans_heuristic"

    def __init__(self, config: dict[str, Any], seed: int | None = None) -> None:
        self.n = int(config.get("num_players", 3))
        self.chart = B.EPOCH_CHARTS[config.get("epoch_chart", "rulebook")]
        self.layout = observation_layout(self.n)
        self.rng = np.random.default_rng(seed)
        self.points_weight = 0.15   # belief logit per point a seat's villages gave a colour
        self.moved_weight = 4.0     # belief logit per unit share of a colour in its moves
        self.reply_weight = 0.5     # weight of the next player's worst reply village
        self.reply_candidates = 6   # best moves checked one ply deeper
        self._pts = [[[self.chart.village_points(k, t, h) for h in range(61)] for t in range(4)]
                     for k in range(B.NUM_CHIPS)]
        self.reset()

    def reset(self) -> None:
        """Forget the move evidence gathered during the previous game (and the seat it played:
        the next call may be for any agent). The tie-breaking generator goes on (see the class
        docstring)."""
        self.unbind_seat()
        self.evidence = np.zeros((self.n, B.NUM_COLOURS))
        self.seen_moves: dict[int, tuple[int, int]] = {}

    # ------------------------------------------------------------------------------------
    def _check_shape(self, obs: np.ndarray) -> None:
        """Raises ValueError when ``obs`` is not an observation of this agent's player count."""
        lay = self.layout
        if np.shape(obs) != (lay.size,):
            raise ValueError(f"observation of shape {np.shape(obs)}, expected ({lay.size},) "
                             f"for {self.n} players (was the agent made for another player "
                             "count or configuration?)")

    def _decode(self, obs: np.ndarray) -> None:
        lay = self.layout
        self._check_shape(obs)
        self.huts = np.rint(lay.view(obs, "huts") * B.HUTS_PER_COLOUR).astype(np.int64)
        self.tot = self.huts.sum(axis=1).tolist()
        self.hut_rows = self.huts.tolist()
        self.vil = lay.view(obs, "village") > 0.5
        self.k = int(lay.view(obs, "villages_formed").argmax())
        self.own = int(lay.view(obs, "own_colour").argmax())
        self.pending = np.flatnonzero(lay.view(obs, "pending") > 0.5).tolist()
        scp = lay.view(obs, "seat_colour_points") * 100.0
        src = lay.view(obs, "last_move_src")
        dst = lay.view(obs, "last_move_dst")
        for r in range(1, self.n):
            if src[r].max() > 0.5:
                mv = (int(src[r].argmax()), int(dst[r].argmax()))
                if self.seen_moves.get(r) != mv:
                    self.seen_moves[r] = mv
                    d = mv[1]
                    self.evidence[r] += 0.5 * (self.huts[d] > 0)
        # belief that each colour belongs to an opponent
        moved = lay.view(obs, "seat_colour_moved") * 360.0
        w = np.zeros(B.NUM_COLOURS)
        others = [c for c in range(B.NUM_COLOURS) if c != self.own]
        for r in range(1, self.n):
            frac = moved[r] / max(1.0, moved[r].sum())
            e = (self.points_weight * scp[r, others] + self.moved_weight * frac[others]
                 + self.evidence[r, others])
            p = np.exp(e - e.max())
            p /= p.sum()
            w[others] += p
        self.w = np.minimum(w, 1.0).tolist()

    def _gains(self, k: int, area: int, row: list[int]) -> tuple[list[int], int]:
        """Per-colour points of a village at ``area`` with huts ``row`` as the k-th village."""
        if all(row):
            row = [0 if h == 1 else h for h in row]
        total = sum(row)
        pts = self._pts[k][_TERRAIN[area]][total] if total else 0
        return [pts if h else 0 for h in row], total

    def _village_value(self, k: int, area: int, row: list[int], me_factor: float = 1.0) -> float:
        if k >= B.NUM_CHIPS:
            return 0.0
        gains, _ = self._gains(k, area, row)
        v = 1.0  # the mover's bonus chip
        v += me_factor * gains[self.own]
        w = self.w
        for c in range(B.NUM_COLOURS):
            if c != self.own and gains[c]:
                v -= w[c] * gains[c]
        return v

    def _order_value(self, k: int, villages: list[tuple[int, list[int]]]) -> float:
        """Best total value over the orders of simultaneous villages (ruling 6)."""
        if len(villages) == 1:
            return self._village_value(k, *villages[0])
        orders = permutations(villages) if len(villages) <= 4 else [villages]
        return max(sum(self._village_value(k + i, a, r) for i, (a, r) in enumerate(o))
                   for o in orders)

    def _simulate(self, tot: list[int], s: int, d: int) -> list[tuple[int, list[int]]]:
        """Villages formed by moving ``s`` onto ``d`` (tot is updated in place and restored)."""
        ts = tot[s]
        tot[d] += ts
        tot[s] = 0
        out = []
        vil = self.vil
        for c in _NEIGH[s]:
            if tot[c] and not vil[c] and not any(tot[x] for x in _NEIGH[c]):
                if c == d:
                    row = [a + b for a, b in zip(self.hut_rows[d], self.hut_rows[s])]
                else:
                    row = self.hut_rows[c]
                out.append((c, row))
        tot[s] = ts
        tot[d] -= ts
        return out

    def _threat(self, s: int, d: int, k_after: int) -> float:
        """Worst village value (for us) the next player could form after our move s -> d."""
        tot = list(self.tot)
        rows = [list(r) for r in self.hut_rows]
        tot[d] += tot[s]
        tot[s] = 0
        rows[d] = [a + b for a, b in zip(rows[d], rows[s])]
        rows[s] = [0] * 5
        saved_rows, saved_vil = self.hut_rows, self.vil
        vil = self.vil.copy()
        for c in _NEIGH[s]:
            if tot[c] and not vil[c] and not any(tot[x] for x in _NEIGH[c]):
                vil[c] = True
        self.hut_rows, self.vil = rows, vil
        # A reply src -> dst (both occupied) forms a village at a neighbour c of src exactly
        # when c is occupied, not a village, and src is its only occupied neighbour: only such
        # sources are simulated (the same villages as simulating every move, found faster).
        occ = [sum(1 for x in _NEIGH[c] if tot[x]) for c in range(B.NUM_AREAS)]
        sources = [src for src in range(B.NUM_AREAS) if tot[src] and not vil[src]
                   and any(occ[c] == 1 and tot[c] and not vil[c] for c in _NEIGH[src])]
        worst = 0.0
        try:
            for src, a, dst in [(x, a, d) for x in sources for a, d in _MOVES_FROM[x]]:
                ts, td = tot[src], tot[dst]
                if not ts or not td or vil[src] or vil[dst] or (ts >= 7 and td < ts):
                    continue
                formed = self._simulate(tot, src, dst)
                if not formed:
                    continue
                harm = 0.0
                for i, (area, row) in enumerate(formed):
                    kk = k_after + i
                    if kk >= B.NUM_CHIPS:
                        break
                    gains, _ = self._gains(kk, area, row)
                    opp = max((self.w[c] * gains[c] for c in range(5) if c != self.own),
                              default=0.0)
                    harm += 1.0 + opp - gains[self.own]
                worst = max(worst, harm)
        finally:
            self.hut_rows, self.vil = saved_rows, saved_vil
        return worst

    def _keep_options(self, s: int, d: int) -> float:
        """Small tie-breaker: gather own huts into larger groups on non-hostile terrain."""
        mine_s = self.hut_rows[s][self.own]
        mine_d = self.hut_rows[d][self.own]
        v = 0.0
        if mine_s or mine_d:
            v += 0.05 * (mine_s + mine_d) * (1 if mine_d else 0.5)
        k = min(self.k, B.NUM_CHIPS - 1)
        e = int(self.chart.village_epoch[k])
        if self.chart.hostile[e] == _TERRAIN[d] and (mine_s or mine_d):
            v -= 0.1
        return v

    # ------------------------------------------------------------------------------------
    def act(self, observation: dict[str, np.ndarray], agent: str) -> int:
        """A legal action id for ``agent`` from its observation dict."""
        legal = self._legal(observation, agent)
        if legal[0] >= NUM_MOVE_ACTIONS:
            return self._order(legal)
        scored = self._scored(legal, [1e-3 * self.rng.random() for _ in range(legal.size)])
        best, best_v = scored[0][1], -1e9
        for v, a, s, d, nf in scored[: self.reply_candidates]:
            total = self._reply_total(v, s, d, nf)
            if total > best_v:
                best, best_v = a, total
        return int(best)

    def best_moves(self, observation: dict[str, np.ndarray], agent: str,
                   tol: float = 1e-3) -> np.ndarray:
        """The equally-best legal actions: those :meth:`act` values within ``tol`` of the best.

        :meth:`act` scores every move, breaks ties with a random key below 1e-3 and checks the
        ``reply_candidates`` best one ply deeper; here the same values are computed without
        the random key, every move within ``tol`` of the ``reply_candidates``-th best is
        checked one ply deeper, and the moves whose total is within ``tol`` of the best total
        are returned. Ordering decisions (ruling 6): the orders within ``tol`` of the best.
        :meth:`act`'s choice is in this set unless its random key left a move of a tie group
        straddling the ``reply_candidates`` cut out of the deeper check (it then picked among
        fewer candidates). Reads the observation as :meth:`act` does (same belief update, no
        draw from the tie-breaking generator), so calling it beside :meth:`act` on the same
        observation changes nothing.

        Returns:
            int64 array of action ids, ascending, non-empty.

        Raises:
            ValueError: the mask has no legal action, or ``tol < 0``.
        """
        if not tol >= 0:
            raise ValueError(f"tol must be >= 0, got {tol}")
        legal = self._legal(observation, agent)
        if legal[0] >= NUM_MOVE_ACTIONS:
            values = [(self._order_option_value(j), NUM_MOVE_ACTIONS + j)
                      for j in (legal - NUM_MOVE_ACTIONS).tolist()]
        else:
            scored = self._scored(legal, [0.0] * legal.size)
            cut = scored[min(self.reply_candidates, len(scored)) - 1][0] - tol
            values = [(self._reply_total(v, s, d, nf), a)
                      for v, a, s, d, nf in scored if v >= cut]
        top = max(v for v, _ in values)
        return np.array(sorted(a for v, a in values if v >= top - tol), dtype=np.int64)

    def _legal(self, observation: dict[str, np.ndarray], agent: str) -> np.ndarray:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("the action mask has no legal action: no decision is due")
        seat_of(agent)
        self.bind_seat(agent)             # its evidence is of one seat's game
        self._decode(observation["observation"])
        return legal

    def _scored(self, legal: np.ndarray, keys: list[float]) -> list[tuple]:
        """``(value + key, action, src, dst, villages formed)`` per legal move, best first."""
        tot = list(self.tot)
        scored = []
        for a, key in zip(legal.tolist(), keys):
            s, d = int(B.EDGE_SRC[a]), int(B.EDGE_DST[a])
            formed = self._simulate(tot, s, d)
            v = self._order_value(self.k, formed) if formed else 0.0
            v += self._keep_options(s, d) + key
            scored.append((v, a, s, d, len(formed)))
        scored.sort(reverse=True)
        return scored

    def _reply_total(self, v: float, s: int, d: int, nf: int) -> float:
        """A move's value less the weighted worst reply (none once the last chip is gone)."""
        if self.k + nf >= B.NUM_CHIPS:
            return v
        return v - self.reply_weight * self._threat(s, d, self.k + nf)

    def _order(self, legal: np.ndarray) -> int:
        best, best_v = int(legal[0]), -1e9
        for j in (legal - NUM_MOVE_ACTIONS).tolist():
            v = self._order_option_value(j)
            if v > best_v:
                best, best_v = NUM_MOVE_ACTIONS + j, v
        return int(best)

    def _order_option_value(self, j: int) -> float:
        """Value of scoring the ``j``-th pending village first, the rest in their best order."""
        pend = [(a, self.hut_rows[a]) for a in self.pending]
        first = pend[j]
        rest = pend[:j] + pend[j + 1:]
        v = self._village_value(self.k, *first)
        if rest and self.k + 1 < B.NUM_CHIPS:
            v += self._order_value(self.k + 1, rest)
        return v


class BeliefClansHeuristic(ClansHeuristic):
    """The Clans heuristic with its colour inference replaced by the exact policy posterior.

    Agent spec ``heuristic:belief``. Everything is as in :class:`ClansHeuristic` except ``w(c)``,
    the belief that colour ``c`` belongs to an opponent: instead of the softmax over its own
    public counts, it is ``sum over the other seats q of P(colour of q = c)`` under
    :class:`agents.belief.ExactPolicyTracker`: exact Bayes over every assignment of the four
    colours that are not its own to the other seats, each opponent assumed to play the plain
    heuristic (``epsilon`` uniform mixed in, ``samples`` calls per observation). Nothing public
    depends on a colour before the end (rulebook "End of Game"), so the consistent posterior is
    uniform and only the opponents' moves are evidence.

    The tracker follows every action of the game: the agent declares ``needs_state = True``,
    replays the game's record up to its first decision and then applies the actions taken since
    its last decision to its own copy of the game; the tracker reads from it only this seat's
    observation and the worlds of ``resample_from_infostate(seat)``. Cost: 4 heuristic calls
    (``samples`` each) per opponent action.

    Args:
        config: the game's resolved config. seed: tie-breaking seed (the opponents' model uses
            ``seed + 1 + seat``). epsilon: uniform share of the opponents' model, in (0, 1].
        samples: heuristic calls per observation in the opponents' model.

    Raises:
        ValueError: :meth:`act` without ``state``, or a ``state`` not at ``agent``'s decision.
    """

    name = "clans_heuristic_belief"
    needs_state = True

    def __init__(self, config: dict[str, Any], seed: int | None = None, epsilon: float = 0.1,
                 samples: int = 1) -> None:
        from agents.belief import ExactPolicyTracker, heuristic_policy

        super().__init__(config, seed)
        base = 0 if seed is None else int(seed)
        self.tracker = ExactPolicyTracker(
            "clans", heuristic_policy("clans", config, epsilon, seed=base + 1, samples=samples),
            seed=base)
        self._w_override: list[float] | None = None

    def reset(self) -> None:
        """Forget the previous game (evidence and tracker)."""
        super().reset()
        self._game = None          # this agent's copy of the game, at its last decision
        self._seat = -1

    def _sync(self, state: Any, seat: int) -> None:
        """Feed the tracker every action taken since its last call."""
        hist = state.history
        g = self._game
        if (g is None or self._seat != seat or len(g.history) > len(hist)
                or hist[: len(g.history)] != g.history):
            g = next(iter(type(state).replay_steps(state.to_record()))).clone()
            self.tracker.reset(g, seat)
            self._seat = seat
        for a in hist[len(g.history):]:
            actor = g.current_player
            g.apply_action(int(a))
            self.tracker.update(g, int(a), actor)
        self._game = g

    def _decode(self, obs: np.ndarray) -> None:
        super()._decode(obs)
        if self._w_override is not None:
            self.w = self._w_override

    def act(self, observation: dict[str, np.ndarray], agent: str, state: Any = None) -> int:
        """A legal action id chosen as in :class:`ClansHeuristic` with the tracker's colour
        beliefs."""
        seat = seat_of_state(state, agent, "BeliefClansHeuristic follows the game through its "
                             "state")
        self.bind_seat(agent)       # its tracker follows one seat's game
        self._check_shape(observation["observation"])   # before the tracker reads the game
        self._sync(state, seat)
        b = self.tracker.belief()
        others = [q for q in range(self.n) if q != seat]
        self._w_override = np.minimum(b[others].sum(axis=0), 1.0).tolist()
        try:
            return super().act(observation, agent)
        finally:
            self._w_override = None
