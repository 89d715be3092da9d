"""Clandestine observation: :func:`observation_layout` and :func:`encode_observation` (design
§1.5 information partition; the table is in the engine module's docstring and
docs/clandestine.md).

Every entry is a public item, one of the observer's own private items, or public history; seats
and City spaces are relative to the observer. Values are float32 in [0, 1].
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import Layout
from . import phases as PH
from . import relic_map as RM
from .engine import (
    _C,
    DEEP_TOKENS,
    END_REASONS,
    MAP_ORDER,
    MASKS_CAP,
    NUM_CONJUNCTIONS,
    NUM_RELICS,
    NUM_TILES,
    PHASES,
    RELIC_INDEX,
)
from .spec import SOCIETIES

if TYPE_CHECKING:
    from .engine import ClandestineState

DECISION_KINDS: tuple[str, ...] = tuple(k["kind"] for k in _C["decisions"]["kinds"])
_SECRETS_PER_SOCIETY = 32  # 31 + the Conjunction Secret (SECRET block)
_OBS_LAYOUTS: dict[tuple[int, bool], Layout] = {}


def observation_layout(num_players: int, nemesis: bool = False) -> Layout:
    """The observation :class:`Layout` for ``num_players`` seats (design §1.5).

    Seats are relative to the observer (relative seat r = absolute seat (observer + r) mod N);
    City spaces use the SPACE block's relative numbering (the observer's own path first).
    Only what the engine implements so far is encoded; every entry is a public item, one of the
    observer's own private items, or public history (Secret draws per epoch).
    With ``nemesis`` (a Nemesis in the last seat) the Nemesis block of
    :func:`envs.clandestine.nemesis.add_layout` follows (its state is public).
    """
    key = (num_players, bool(nemesis))
    if key in _OBS_LAYOUTS:
        return _OBS_LAYOUTS[key]
    n, ns = num_players, 9 * num_players
    lay = Layout()
    lay.add("phase", len(PHASES), "one-hot phase (START, PRE, SELECT_LEADER, ACTION, POST, "
            "END, REACT, FINAL, OVER)")
    lay.add("decision", len(DECISION_KINDS), "one-hot decision kind due (design §1.7 order)")
    lay.add("action", len(PH.FRAME_NAMES), "one-hot Action being resolved (fundraise, discover, "
            "reveal, ascend, purge, regroup, revolt) or new_leader's pick")
    lay.add("action_context", 3, "Strength / 20, pawns still to pick / 20 (each capped at 1), 1 "
            "if the Action is an act (no space)")
    lay.add("action_space", ns, "one-hot relative space of the Action being resolved")
    lay.add("context_space", ns, "one-hot relative space picked at a decision's first stage "
            "(Leader space, pawn pick) or of the pawn waiting for its distance/destination")
    lay.add("context_pawn", 4, "one-hot type (pl, pf, uf, sl) of the pawn waiting for its "
            "distance or destination")
    lay.add("moved", (ns, 4), "pawns moved by the current pick step per relative space and type "
            "/ 10 (they cannot be picked again)")
    lay.add("round", 1, "complete rounds / max_rounds")
    lay.add("active", n, "one-hot relative seat whose turn it is")
    lay.add("decider", n, "one-hot relative seat whose decision is due")
    lay.add("end_trigger", n, "one-hot relative end-trigger seat (all 0 before a trigger)")
    lay.add("end_reason", len(END_REASONS), "one-hot end reason (level_v, relic_deck, "
            "round_limit)")
    lay.add("pawns", (ns, 4), "pawns per relative space and type (pl, pf, uf, sl) / 20 "
            "(capped at 1)")
    lay.add("society", (n, len(SOCIETIES)), "one-hot Society of each relative seat")
    lay.add("level", (n, 5), "one-hot Level I-V of each relative seat")
    lay.add("resources", (n, 4), "Gold / 50, Energy / 20, Intrigue tokens / 50, Chaos (meter + "
            "overflow) / 12 of each relative seat (each capped at 1)")
    lay.add("hands", (n, 3), "Relic hand size / 10, Secret hand size / 10, Secret deck size / "
            "31 of each relative seat (each capped at 1)")
    lay.add("secret_draws", (n, 4), "Secret draws of each relative seat per epoch I-IV / 31 "
            "(public history)")
    lay.add("panel_tokens", (n, 7), "alchemy tokens on each panel (6 = the Conjunction's) this "
            "round, per relative seat")
    lay.add("deep_tokens", (n, 8), "Deep Alchemy tokens held / 12, then placed on each panel "
            "this round / 3 (capped at 1), per relative seat")
    lay.add("conjunction_row", NUM_CONJUNCTIONS, "1 per Conjunction in the row")
    lay.add("masks_chaos", ns + len(MAP_ORDER) + 7 * n + n, "the Twilight Masks' Chaos on each "
            "relative space, on the Relic of each Map space, on each panel of each relative "
            "seat (/ 3), then Chaos purged by each relative seat / 30 (capped at 1)")
    lay.add("serpent", (ns, 2), "per relative space: 1 if Initiated, primed Secrets / 4 "
            "(capped at 1)")
    lay.add("own_primed", _SECRETS_PER_SOCIETY, "1 per Secret the observer primed (Keepers)")
    lay.add("investments", ns + 4, "the Garden Club's Gold invested on each relative space / 4, "
            "then on Routes R1-R4 / 2")
    lay.add("tiles_board", NUM_TILES, "1 per Ascension tile still on the board (its slot is "
            "its start slot)")
    lay.add("tiles_held", (n, NUM_TILES), "Ascension and Starting tiles held by each relative "
            "seat (1; 0.5 once a hood tile is flipped)")
    lay.add("conjunction", (n, NUM_CONJUNCTIONS + 1), "one-hot claimed Conjunction of each "
            "relative seat (last entry: none)")
    lay.add("conjunction_secret", n, "1 if the relative seat's Conjunction Secret entered its "
            "hand")
    lay.add("own_secrets", _SECRETS_PER_SOCIETY, "1 per Secret in the observer's hand (index in "
            "its Society's Secret order; 31 = Conjunction Secret)")
    lay.add("own_relics", NUM_RELICS, "1 per Relic in the observer's hand (blind draws included)")
    lay.add("known_relics", (n, NUM_RELICS), "publicly known Relics in each relative seat's hand")
    lay.add("relic_map", (len(MAP_ORDER), NUM_RELICS), "one-hot Relic on each Map space "
            "(relic_map.map_order)")
    lay.add("relic_discard", NUM_RELICS, "1 per Relic in the face-up Relic discard pile")
    lay.add("secret_discard", (n, _SECRETS_PER_SOCIETY), "1 per Secret in each relative seat's "
            "face-up Secret discard pile")
    lay.add("relic_deck", 1, "Relic deck size / 108")
    lay.add("tucked", (n, NUM_RELICS), "Relics tucked by Ascending, per relative seat (public)")
    lay.add("first_to_level", (n, 4), "First-to-Level tiles II-V held by each relative seat")
    lay.add("ascend", 8, "Ascend in progress: one-hot Suit (Rod, Sword, Disk, Chalice), "
            "one-hot reduction (Gold, Suit), cost Gold / 20, cost Suits / 10 (each capped at 1)")
    lay.add("ascend_paid", NUM_RELICS + _SECRETS_PER_SOCIETY, "cards picked so far for the "
            "Ascend payment: Relic ids, then the acting Society's Secret indices")
    lay.add("map_picks", len(MAP_ORDER), "Map spaces taken so far in the Discover in progress")
    lay.add("slots", (n, 6, NUM_RELICS), "one-hot Relic assigned to each slot 1-6 of each "
            "relative seat")
    lay.add("tableau", (n, 2), "Society Leaders left in cutouts / 4, free alchemy tokens / 3, "
            "per relative seat")
    lay.add("assign_relic", NUM_RELICS, "Relic picked at the first stage of an assign")
    lay.add("secrets_turn", 3, "Secrets played this turn / 2, extra Secret grants / 2, 1 while "
            "an extra Action's Leader is chosen")
    lay.add("pending_strength", (n, 2), "pending Strength from Secrets of each relative seat: "
            "its positive part / 10, its negative part / 10 (each capped at 1)")
    lay.add("effect_pick", ns + 2, "first-stage pick of an effect decision: relative space, "
            "or (last two) direction forward / backward")
    if nemesis:
        from .nemesis import add_layout
        add_layout(lay, ns)
    _OBS_LAYOUTS[key] = lay
    return lay




def encode_observation(st: ClandestineState, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (see :func:`observation_layout`)."""
    n = st.num_players
    lay = observation_layout(n, st.nem is not None)
    obs = lay.zeros()
    v = lambda name: lay.view(obs, name)
    rel_seat = lambda s: (s - seat) % n
    perm = np.array([PH.space_to_index(s, seat, n) for s in range(9 * n)])
    v("phase")[PHASES.index(st.phase)] = 1
    if st.kind is not None:
        kind = st.runners[-1]["runner"].pending.kind if st.kind == "effect" else st.kind
        v("decision")[DECISION_KINDS.index(kind)] = 1
    if st.acts:
        f = st.acts[-1]
        v("action")[PH.FRAME_NAMES.index(f.name)] = 1
        v("action_context")[:] = (min(max(f.strength, 0) / 20, 1), min(f.picks_left / 20, 1),
                                  float(f.space < 0))
        if f.space >= 0:
            v("action_space")[perm[f.space]] = 1
        ctx = f.pending[0] if f.pending else f.pick_space
        if ctx >= 0:
            v("context_space")[perm[ctx]] = 1
        if f.pending:
            v("context_pawn")[f.pending[1]] = 1
        v("moved")[perm] = f.moved / 10.0
    if st.leader_space >= 0:
        v("context_space")[perm[st.leader_space]] = 1
    v("round")[0] = st.rounds_done / st.spec.max_rounds
    v("active")[rel_seat(st.turn)] = 1
    if st.phase != "OVER":
        v("decider")[rel_seat(st.decider)] = 1
    if st.end_trigger is not None:
        v("end_trigger")[rel_seat(st.end_trigger)] = 1
    if st.end_reason is not None:
        v("end_reason")[END_REASONS.index(st.end_reason)] = 1
    v("pawns")[perm] = np.minimum(st.pawns.counts / 20.0, 1.0)
    for s in range(n):
        r = rel_seat(s)
        if st.societies[s] in SOCIETIES:  # a Nemesis seat has no Society
            v("society")[r, SOCIETIES.index(st.societies[s])] = 1
        v("level")[r, st.level[s] - 1] = 1
        v("resources")[r] = np.minimum((st.gold[s] / 50, st.energy[s] / 20,
                                        st.intrigue[s] / 50, st.chaos[s] / 12), 1.0)
        v("hands")[r] = np.minimum((len(st.relic_hand[s]) / 10, len(st.secret_hand[s]) / 10,
                                    len(st.secret_deck[s]) / 31), 1.0)
        v("secret_draws")[r] = np.array(st.secret_draws[s]) / 31
        v("panel_tokens")[r] = st.panel_tokens[s]
        v("deep_tokens")[r, 0] = st.deep_held[s] / DEEP_TOKENS
        v("deep_tokens")[r, 1:] = np.minimum(np.asarray(st.panel_deep[s]) / 3, 1.0)
        v("conjunction")[r, st.conj[s]] = 1  # -1 = the last entry: none
        v("conjunction_secret")[r] = float(st.conj_secret[s])
        v("known_relics")[r, st.relic_known[s]] = 1
        v("secret_discard")[r, st.secret_discard[s]] = 1
    v("own_secrets")[st.secret_hand[seat]] = 1
    v("own_relics")[st.relic_hand[seat]] = 1
    for slot, r in enumerate(st.relic_map):
        if r >= 0:
            v("relic_map")[slot, r] = 1
    v("relic_discard")[st.relic_discard] = 1
    v("relic_deck")[0] = len(st.relic_deck) / NUM_RELICS
    v("conjunction_row")[st.conj_row] = 1
    mc = v("masks_chaos")
    mc[perm] = np.array(st.masks_space) / MASKS_CAP
    for k, r in enumerate(st.relic_map):
        if r >= 0:
            mc[9 * n + k] = st.masks_relic.get(r, 0) / MASKS_CAP
    for s in range(n):
        base = 9 * n + len(MAP_ORDER) + 7 * rel_seat(s)
        mc[base:base + 7] = np.array(st.masks_panel[s]) / MASKS_CAP
        mc[9 * n + len(MAP_ORDER) + 7 * n + rel_seat(s)] = min(st.purged[s] / 30, 1.0)
    sp = v("serpent")
    sp[perm, 0] = np.array(st.initiated, dtype=np.float32)
    for space_, cards in st.primed.items():
        sp[perm[space_], 1] = min(len(cards) / 4, 1.0)
        if st.has_power(seat, "serpent"):
            v("own_primed")[cards] = 1
    v("investments")[perm] = np.array(st.invest_space) / 4
    v("investments")[9 * n:] = np.array(st.invest_route) / 2
    v("tiles_board")[[t for t in st.board_tile if t >= 0]] = 1
    for s in range(n):
        v("tiles_held")[rel_seat(s), st.tiles[s]] = 1
        v("tiles_held")[rel_seat(s), st.tiles_spent[s]] = 0.5
    v("secrets_turn")[:] = (st.secrets_played / 2, st.extra_secrets / 2, float(st.extra_select))
    for s in range(n):
        ps = st.pending_strength[s]
        v("pending_strength")[rel_seat(s)] = (min(max(ps, 0) / 10, 1), min(max(-ps, 0) / 10, 1))
    ep = st.effect_pick
    if isinstance(ep, str) and ep in ("forward", "backward"):
        v("effect_pick")[9 * n + (ep == "backward")] = 1
    elif isinstance(ep, str) and ep in RELIC_INDEX:
        v("assign_relic")[RELIC_INDEX[ep]] = 1
    elif isinstance(ep, str):  # the Secret picked to prime: its owner's private item
        if seat == st.decider:
            v("own_primed")[st.secret_index(seat, ep)] = 0.5
    elif ep is not None:
        v("effect_pick")[perm[ep]] = 1
    if st.assigning is not None and st.assigning[1] >= 0:
        v("assign_relic")[st.assigning[1]] = 1
    for s in range(n):
        for k, r in enumerate(st.slots[s]):
            if r >= 0:
                v("slots")[rel_seat(s), k, r] = 1
        v("tableau")[rel_seat(s)] = (st.cutouts[s] / 4, st.tokens_free[s] / 3)
        v("tucked")[rel_seat(s), st.tucked[s]] = 1
        for lv in st.ftl[s]:
            v("first_to_level")[rel_seat(s), lv - 2] = 1
    if st.acts:
        f = st.acts[-1]
        if f.cost is not None:
            asc = v("ascend")
            if f.suit >= 0:
                asc[f.suit] = 1
            if f.reduction >= 0:
                asc[4 + f.reduction] = 1
            asc[6:8] = (min(f.cost.gold / 20, 1), min(f.cost.suits / 10, 1))
        for cid in f.paid or ():
            block, index = st.card_action(f.actor, cid)
            v("ascend_paid")[index if block == "RELIC" else NUM_RELICS + index] = 1
        if f.purchase is not None:
            for sp in f.purchase.picks:
                v("map_picks")[RM.MAP_INDEX[sp]] = 1
    if st.nem is not None:
        from .nemesis import encode
        encode(st, obs, lay, perm)
    return obs
