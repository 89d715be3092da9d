"""Scripted Clandestine heuristic (:class:`ClandestineHeuristic`): climbs Levels, buys Relics.

Decides from the observation only: the vector is decoded with the engine's
:func:`envs.clandestine.engine.observation_layout` (decision kind due, own Society, resources,
pawns per relative space, own hand) and the static content (Relic values, each Society's
Chamber Actions). Scoring (rulebook "The End") is dominated by Level squared, Relics used to
Ascend, Society Leaders and Universal Followers on the own path, Intrigue tokens and the Chaos
penalty, so the rules of thumb are:

* **select_leader**: value each legal space by its Action and the Strength gathered there
  (pawns on the space): Ascend only when the hand's best Suit and the Gold pay the dial's next
  cost under one of the two reductions (then above everything), Discover while the Relic hand
  is below its limit, Fundraise while short of the next Ascend's Gold, Purge by the Chaos on
  the meter, the Blue Army's Revolt Chamber; a Public space (its side is not decoded) counts
  its Strength only;
* **discover_pick**: value + Intrigue + twice the icons of the Suit being collected (the
  hand's best), minus ``route_chaos_weight`` for a Route beyond the free ones (1 Chaos each,
  rulebook "Acquiring Relics"; the Mariners' Union has two free); PASS past the hand limit;
* **ascend_suit**: the Suit with most icons; **ascend_card**: Relics first (used Relics score
  their Intrigue), then the Secret of least Intrigue; **hand_discard**: the card of least
  Intrigue and fewest icons of the collected Suit; **assign**: the most valuable Relic;
* windows: play a Secret when one is playable (PRE), trade on the Society's panels in the
  order of ``_PANEL_PRIORITY`` (Initiation's new Society Leader first; the Garden Club's
  Patronage, the Blue Army's Muster, the Mariners' Charter, the Masks' Terror, the Keepers'
  Cult) as long as the Gold for the next Ascend is kept, then Assignment, else DONE;
* Society powers (``target`` / ``prime``): the Twilight Masks place Chaos on rivals' panels,
  spaces and Map Relics, the Garden Club invests on its own spaces and Routes, the Serpent
  Keepers prime Secrets on their own spaces; the Mariners' ``extend`` and the other choices
  are taken uniformly among the legal ones; distances are the longest allowed.

Measured against uniform random (seats rotated): see ``benchmarks`` / the test module.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from agents.base import OwnCopy
from envs.clandestine.actions import OFFSET, decode
from envs.clandestine.city import C1, CHAMBERS, load_content
from envs.clandestine.observation import SCALES, decode_amount, decode_pawns
from envs.clandestine.relic_map import MAP_ORDER
from envs.clandestine.spec import SOCIETIES

# the engine first: envs.clandestine.observation imports the engine's constants, and importing it
# first breaks the cycle (``python -m benchmarks.clandestine_heuristic`` failed that way)
importlib.import_module("envs.clandestine.engine")
try:  # the observation layout in its own module once split from the engine, else the engine's
    _layout_module = importlib.import_module("envs.clandestine.observation")
except ModuleNotFoundError:  # pragma: no cover - before the split
    _layout_module = importlib.import_module("envs.clandestine.engine")
observation_layout = _layout_module.observation_layout
DECISION_KINDS: tuple[str, ...] = tuple(k["kind"] for k in load_content()["decisions"]["kinds"])

_C = load_content()
#: printed value of each Relic (index 0..107)
_RELIC_VALUE = np.array([int(r["value"]) for r in _C["relics"]], dtype=np.float64)
#: per Society: Chamber Actions C1..C4
_CHAMBER_ACTIONS = {s: tuple({c["id"]: c["action"] for c in _C["societies"][s]["chambers"]}[f"C{k}"]
                             for k in (1, 2, 3, 4)) for s in SOCIETIES}

_SUITS = ("Rod", "Sword", "Disk", "Chalice")
_ASSIGN_PANEL = 1  # TRADE-block panel 1: the Assignment panel (assign a Relic to a slot)
#: per Society: alchemy panels worth trading on, best first (TRADE panel = 0 Any Time,
#: 1 Assignment, 2 Regroup, 3 Initiation (a new Society Leader: 3 Intrigue and Strength),
#: 4-5 the Society's panels: Mariners Charter (extend / draw a Relic), Garden Endowment
#: (invest) and Patronage (Gold to Intrigue), Masks Terror (place Chaos), Keepers Cult
#: (initiate / prime), Blue Army Muster (Universal Followers on the own path)).
_PANEL_PRIORITY = {"mariners": (3, 1, 4), "garden": (3, 5, 1, 4), "twilight": (3, 1, 4),
                   "serpent": (3, 1, 4), "blue": (3, 4, 1)}
#: per Society: Gold input of each TRADE index (3 * panel + trade)
_TRADE_GOLD = {s: {3 * p + t: int(tr["in"].get("gold", 0))
                    for p, panel in enumerate(_C["societies"][s]["panels"])
                    for t, tr in enumerate(panel["trades"])} for s in SOCIETIES}
#: Route (0..3) of each Map space in relic_map.map_order, -1 for the Harbor (no Route)
_MAP_ROUTE = tuple(-1 if sp == "H" else int(sp[1]) - 1 for sp in MAP_ORDER)
#: icons each Relic can pay per Suit (a Dark Relic: its alternate Suit too, either value)
_RELIC_ICONS = np.zeros((len(_C["relics"]), 4))
for _i, _r in enumerate(_C["relics"]):
    _RELIC_ICONS[_i, _SUITS.index(_r["suit"])] = int(_r["icons"])
    if _r.get("alt_suit"):
        _RELIC_ICONS[_i, _SUITS.index(_r["alt_suit"])] = max(
            _RELIC_ICONS[_i, _SUITS.index(_r["alt_suit"])], int(_r["alt_icons"]))
_RELIC_INTRIGUE = np.array([int(r["intrigue"]) for r in _C["relics"]], dtype=np.float64)
#: per Society: (32, 4) Suit icons of each Secret (index 31 = the Conjunction Secret: none)
_SECRET_ICONS = {}
_SECRET_INTRIGUE = {}
for _s in SOCIETIES:
    icons = np.zeros((32, 4))
    intr = np.zeros(32)
    for _k, _card in enumerate(_C["secrets"][_s][:31]):
        for _suit in _card["suits"]:
            icons[_k, _SUITS.index(_suit)] += 1
        intr[_k] = int(_card["intrigue"])
    _SECRET_ICONS[_s], _SECRET_INTRIGUE[_s] = icons, intr
#: per Society: Ascend cost (Gold, Suits) to leave Level 1..4 (the dial, rulebook "Levels")
_DIAL = {s: {d["level"]: (d["next_gold"], d["next_suits"], d["relic_max"])
             for d in _C["societies"][s]["dial"]} for s in SOCIETIES}


class ClandestineHeuristic(OwnCopy):
    """Rule-of-thumb Clandestine player parametrised by its own Society.

    Args:
        config: the game's resolved config (needs ``num_players``; with ``nemesis`` the seats
            are the human ones plus the Nemesis's, and the observation has its block).
        seed: seed of the tie-breaking generator.
        trade_rate: probability of an extra alchemy trade on a panel outside the Society's
            priority list (default 0: none).
        secret_rate: probability of playing a playable Secret in the PRE window.
        max_distance: move pawns the longest allowed distance (else uniform).
        pick_all: never stop an 'up to' pawn pick early (else uniform, PASS included).
        assign_trades: use the Assignment panel when its trade is legal.
        route_chaos_weight: Intrigue-equivalent cost of 1 Chaos from an extra Route.
        panel_trades: trade on the panels of ``_PANEL_PRIORITY``.

    Raises:
        ValueError: from :meth:`act` when the observation's mask has no legal action or the
            observation's size is not the layout's for ``num_players``.
    """

    name = "clandestine_heuristic"

    def __init__(self, config: dict[str, Any], seed: int | None = None,
                 trade_rate: float = 0.0, secret_rate: float = 1.0, max_distance: bool = True,
                 pick_all: bool = True, assign_trades: bool = True,
                 route_chaos_weight: float = 4.0, panel_trades: bool = True) -> None:
        nemesis = config.get("nemesis") not in (None, False)  # a Nemesis seat adds a path
        self.n = int(config.get("num_players", 3)) + nemesis
        self.layout = observation_layout(self.n, nemesis)
        self.seed = seed
        self.trade_rate = float(trade_rate)
        self.secret_rate = float(secret_rate)
        self.max_distance = bool(max_distance)
        self.pick_all = bool(pick_all)
        self.assign_trades = bool(assign_trades)
        self.route_chaos_weight = float(route_chaos_weight)
        self.panel_trades = bool(panel_trades)
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Nothing is remembered between decisions (the agent protocol's hook)."""

    # ---------------------------------------------------------------------------------
    def _view(self, obs: np.ndarray, name: str) -> np.ndarray:
        return self.layout.view(obs, name)

    def act(self, observation: dict[str, np.ndarray], agent: str) -> int:
        """A legal action id for ``agent`` from its observation dict (vector and mask).

        Raises:
            ValueError: the mask has no legal action.
        """
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("the action mask has no legal action: no decision is due")
        if legal.size == 1:
            return int(legal[0])
        obs = observation["observation"]
        if obs.shape != (self.layout.size,):
            raise ValueError(f"observation of shape {obs.shape}, expected ({self.layout.size},) "
                             f"for {self.n} players")
        dec = self._view(obs, "decision")
        kind = DECISION_KINDS[int(dec.argmax())] if dec.max() > 0 else None
        soc = SOCIETIES[int(self._view(obs, "society")[0].argmax())]
        blocks: dict[str, list[int]] = {}
        for a in legal.tolist():
            blocks.setdefault(decode(a).block, []).append(a)
        choice = self._choose(kind, soc, obs, blocks, legal)
        return int(choice if choice is not None else self.rng.choice(legal))

    # ---------------------------------------------------------------------------------
    def _best(self, ids: list[int], values) -> int:
        vals = np.asarray(values, dtype=np.float64)
        top = np.flatnonzero(vals >= vals.max() - 1e-9)
        return ids[int(self.rng.choice(top))]

    def _choose(self, kind: str | None, soc: str, obs: np.ndarray,
                blocks: dict[str, list[int]], legal: np.ndarray) -> int | None:
        relic_ids = blocks.get("RELIC", [])
        relic_vals = [float(_RELIC_VALUE[a - OFFSET["RELIC"]]) for a in relic_ids]
        if kind in ("window_pre", "window_post", "window_react"):
            if "SECRET" in blocks and self.rng.random() < self.secret_rate:
                return int(self.rng.choice(blocks["SECRET"]))
            if "TILE" in blocks:
                return int(self.rng.choice(blocks["TILE"]))
            trades = blocks.get("TRADE", [])
            if trades and self.panel_trades:
                order = _PANEL_PRIORITY[soc]
                gold = decode_amount(self._view(obs, "resources")[0, 0], SCALES["gold"])
                level = int(self._view(obs, "level")[0].argmax()) + 1
                reserve = _DIAL[soc][level][0] or 0
                ranked = [(order.index((a - OFFSET["TRADE"]) // 3), -a) for a in trades
                          if (a - OFFSET["TRADE"]) // 3 in order
                          and gold - _TRADE_GOLD[soc].get(a - OFFSET["TRADE"], 0) >= reserve]
                if ranked:
                    return -min(ranked)[1]
            assign = [a for a in trades if (a - OFFSET["TRADE"]) // 3 == _ASSIGN_PANEL]
            if assign and self.assign_trades:
                return int(self.rng.choice(assign))
            if trades and self.rng.random() < self.trade_rate:
                return int(self.rng.choice(trades))
            return OFFSET["PASS"] if "PASS" in blocks else None
        if kind == "select_leader":
            if "SPACE" in blocks:
                return self._pick_space(soc, obs, blocks["SPACE"])
            return None
        if kind == "discover_pick":
            return self._discover(soc, obs, blocks)
        if kind == "ascend_suit":
            suits = blocks.get("SUIT", [])
            if suits:
                icons = self._suit_icons(soc, obs)
                return self._best(suits, [icons[a - OFFSET["SUIT"]] for a in suits])
            return None
        if kind == "ascend_card":
            # Relics used to Ascend score their Intrigue; Secrets kept in hand score theirs
            cands = relic_ids + blocks.get("SECRET", [])
            if cands:
                vals = [_RELIC_INTRIGUE[a - OFFSET["RELIC"]] + 5 if a in relic_ids
                        else -_SECRET_INTRIGUE[soc][a - OFFSET["SECRET"]] for a in cands]
                return self._best(cands, vals)
            return None
        if kind == "assign":
            if relic_ids:
                return self._best(relic_ids, relic_vals)
            return None
        if kind == "hand_discard":
            icons = self._suit_icons(soc, obs)
            focus = np.zeros(4)
            focus[int(icons.argmax())] = 1.0
            cands = relic_ids + blocks.get("SECRET", [])
            if cands:
                vals = [-(_RELIC_INTRIGUE[a - OFFSET["RELIC"]]
                          + 2 * _RELIC_ICONS[a - OFFSET["RELIC"]] @ focus) if a in relic_ids
                        else -(_SECRET_INTRIGUE[soc][a - OFFSET["SECRET"]]
                               + 2 * _SECRET_ICONS[soc][a - OFFSET["SECRET"]] @ focus)
                        for a in cands]
                return self._best(cands, vals)
            return None
        if kind == "target":
            return self._target(soc, blocks)
        if kind == "prime":
            if "SECRET" in blocks:
                return int(self.rng.choice(blocks["SECRET"]))
            if "SPACE" in blocks:
                own = [a for a in blocks["SPACE"] if (a - OFFSET["SPACE"]) < 9]
                return int(self.rng.choice(own or blocks["SPACE"]))
            return None
        if kind == "distance":
            dist = blocks.get("DIST", [])
            if dist and self.max_distance:
                return max(dist)
            return None
        if kind == "pawn_pick":
            nonpass = [a for a in legal.tolist() if a != OFFSET["PASS"]]
            return int(self.rng.choice(nonpass)) if nonpass and self.pick_all else None
        return None

    def _discover(self, soc: str, obs: np.ndarray, blocks: dict[str, list[int]]) -> int | None:
        """The best Map pick (value, Intrigue, icons of the Suit being collected), minus the
        Chaos of opening one more Route (1 per Route beyond the free ones, rulebook "Acquiring
        Relics"); PASS once the hand would exceed its limit or nothing is worth the Chaos."""
        maps = blocks.get("MAP", [])
        if not maps:
            return None
        picks = np.flatnonzero(self._view(obs, "map_picks") > 0.5)
        used = {_MAP_ROUTE[k] for k in picks} - {-1}
        free = 2 if soc == "mariners" else 1
        relics = decode_amount(self._view(obs, "hands")[0, 0], SCALES["relic_hand"]) + len(picks)
        level = int(self._view(obs, "level")[0].argmax()) + 1
        relic_max = _DIAL[soc][level][2]
        can_pass = "PASS" in blocks
        if can_pass and relics >= relic_max + 1:
            return OFFSET["PASS"]
        rmap = self._view(obs, "relic_map")
        icons = self._suit_icons(soc, obs)
        focus = np.zeros(4)
        focus[int(icons.argmax())] = 1.0
        worth = _RELIC_VALUE + 2.0 * _RELIC_ICONS @ focus + _RELIC_INTRIGUE
        vals = []
        for a in maps:
            k = a - OFFSET["MAP"]
            route = _MAP_ROUTE[k]
            chaos = 1 if route >= 0 and route not in used and len(used) >= free else 0
            vals.append(float(rmap[k] @ worth) - self.route_chaos_weight * chaos)
        if can_pass and max(vals) <= 0:
            return OFFSET["PASS"]
        return self._best(maps, vals)

    def _suit_icons(self, soc: str, obs: np.ndarray) -> np.ndarray:
        """(4,) Suit icons the own hand can pay (Relics + Secrets)."""
        own_r = self._view(obs, "own_relics")
        own_s = self._view(obs, "own_secrets")
        return own_r @ _RELIC_ICONS + own_s @ _SECRET_ICONS[soc]

    def _pick_space(self, soc: str, obs: np.ndarray, spaces: list[int]) -> int:
        pawns = decode_pawns(self._view(obs, "pawns")) / 2.0  # half the count, as tuned
        res = self._view(obs, "resources")[0]
        gold = decode_amount(res[0], SCALES["gold"])
        chaos = decode_amount(res[3], SCALES["chaos"])
        relics = decode_amount(self._view(obs, "hands")[0, 0], SCALES["relic_hand"])
        level = int(self._view(obs, "level")[0].argmax()) + 1
        socs = self._view(obs, "society")
        next_gold, next_suits, relic_max = _DIAL[soc][level]
        icons = float(self._suit_icons(soc, obs).max())
        vals = []
        for a in spaces:
            idx = a - OFFSET["SPACE"]
            off, local = divmod(idx, 9)
            strength = float(pawns[idx].sum())
            action = None
            if local in CHAMBERS:
                owner = SOCIETIES[int(socs[off].argmax())]
                action = _CHAMBER_ACTIONS[owner][local - C1]
            if action == "Ascend":
                if next_gold is None:
                    v = -5.0
                elif (gold >= next_gold - strength and icons >= next_suits) or \
                        (gold >= next_gold and icons >= next_suits - strength // 2):
                    v = 100.0 + strength
                else:
                    v = -5.0
            elif action == "Discover":
                v = strength * (1.0 if relics < relic_max else 0.3)
            elif action == "Fundraise":
                v = strength * (1.0 if next_gold is not None and gold < next_gold + 2 else 0.4)
            elif action == "Purge":
                v = 2.0 * chaos - 2.0
            elif action == "Reveal":
                v = 0.6 * strength
            elif action == "Revolt":
                v = 0.9 * strength + 1.0
            else:  # a Public space: Fundraise or Discover (the side is not decoded)
                v = 0.8 * strength
            vals.append(v + (0.3 if off == 0 else 0.0))
        return self._best(spaces, vals)

    def _target(self, soc: str, blocks: dict[str, list[int]]) -> int | None:
        if soc == "twilight":
            rival_panels = blocks.get("PANEL", [])
            rival_spaces = [a for a in blocks.get("SPACE", []) if a - OFFSET["SPACE"] >= 9]
            pool = rival_panels + rival_spaces + blocks.get("MAP", [])
            if pool:
                return int(self.rng.choice(pool))
        if soc == "garden":
            own = [a for a in blocks.get("SPACE", []) if a - OFFSET["SPACE"] < 9]
            pool = own + blocks.get("ROUTE", [])
            if pool:
                return int(self.rng.choice(pool))
        return None
