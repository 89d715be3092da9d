"""Clandestine actions and effects in the rulebook's words, for the text views.

:func:`action_words` is what :meth:`ClandestineState.action_to_string` returns: the decision's
choice worded as a player would say it, with the names of the cards, tiles and trades from the
content data (``clandestine_content.json``), e.g. ``"Trade (Any Time panel): pay 3 Gold -> gain
1 Energy"``, ``"Flip tile Drill Yard [T-I-Rod-L]: Regroup with Strength 2"`` or ``"Play Secret
Chart the Shoals [garden-1-05]"``. The card ids stay in brackets, as the text view names cards
on the table by their ids.

The words name only what the deciding seat sees (its own hand, the public table); what another
seat is told of the action is decided by ``envs.core.text.action_text_for`` (a primed Secret is
never named to the others).

:data:`LEGEND` explains the abbreviations of the text view (:func:`render_state`), whose first
line (:func:`status_words`) says where the turn is and what is being decided in the same terms
(never a card: the decision is named, not the hand it is made from).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .actions import decode
from .city import load_content

_C = load_content()

#: The abbreviations of the Clandestine text view, one line.
LEGEND = ("Legend: L = Level; hand: R = your Relics, S = your Secrets (name [id]); a Relic: "
          "name [id] (value V: icons and suit; a Dark Relic counts its first or its second "
          "suit's icons); slots = Relic slots 1-6 (- = empty); tiles = Ascension tiles (name "
          "[id], * = spent); Map H = Harbor, R1.0-R4.2 = Route spaces, E1-E4 = Extension; spaces: K#a/K#b = connectors, P#S1-S3 = "
          "Sidewalks, P#C1-C4 = Chambers of seat #; pawns: pl = Public Leader, pf = Public "
          "Follower, uf = Universal Follower, sl# = Society Leader of seat #")

PAWN_WORDS = {"pl": "Public Leader", "pf": "Public Follower", "uf": "Universal Follower",
              "sl": "Society Leader"}
_PAWN_CODES = ("pl", "pf", "uf", "sl")
_SUITS = ("Rod", "Sword", "Disk", "Chalice")
_RES = {"gold": "Gold", "energy": "Energy", "intrigue": "Intrigue", "chaos": "Chaos",
        "uf": "Universal Follower", "secret": "Secret", "relic": "Relic"}
_PER = {"relics_in_hand": "Relic in hand", "ascender_level": "Level of the ascending seat"}


def _amount(n: Any) -> str:
    """An effect amount: an integer, or ``{"per": ..., "max": ...}``."""
    if isinstance(n, dict):
        per = n.get("per", "?")
        text = f"1 per {_PER.get(per, per.replace('_', ' '))}"
        return text + (f" (at most {n['max']})" if "max" in n else "")
    return str(n)


def _plural(n: Any, word: str) -> str:
    return f"{_amount(n)} {word}" + ("s" if isinstance(n, int) and n != 1 else "")


def op_words(op: dict) -> str:
    """One effect step (a JSON op of the effect language) in words."""
    kind = op.get("op", "?")
    n = op.get("n", 1)
    if kind in ("gain", "lose"):
        res = _RES.get(op.get("res"), op.get("res"))
        if isinstance(n, dict):
            return f"{kind} {res} ({_amount(n)})"
        return f"{kind} {n} {res}"
    if kind == "strength":
        return f"+{_amount(n)} Strength"
    if kind == "extend":
        return f"Extend the Map by {_amount(n)}"
    if kind == "draw_relic":
        return f"draw {_plural(n, 'Relic')}"
    if kind == "draw_secret":
        return f"draw {_plural(n, 'Secret')}"
    if kind == "act":
        return f"{op.get('action', '?').capitalize()} with Strength {_amount(op.get('strength'))}"
    if kind == "add_uf":
        where = op.get("where", "")
        return f"add {_plural(n, 'Universal Follower')}" + (
            " to own Sidewalks" if where == "own_sidewalk" else f" ({where})" if where else "")
    if kind == "assign":
        return f"Assign a Relic ({op.get('slot', 'any')} slot)"
    if kind == "choose":
        return "choose " + " or ".join(f"({effect_words(o)})" for o in op.get("options", []))
    if kind == "deep_alchemy":
        return f"place {_plural(n, 'Deep Alchemy token')}"
    if kind == "extra_action":
        return f"an extra Action ({op.get('leader', 'any')} Leader)"
    if kind == "extra_secret":
        return "play an extra Secret"
    if kind == "initiate":
        return f"Initiate {_amount(n)}"
    if kind == "invest":
        return f"Invest {_amount(n)}"
    if kind == "military_sweep":
        return "Military sweep"
    if kind == "move":
        return "move pawns"
    if kind == "new_leader":
        return "make a new Leader"
    if kind == "opponents":
        return f"{op.get('who', 'each')} opponent: {effect_words(op.get('effect', []))}"
    if kind == "place_chaos":
        return f"place {_amount(n)} Chaos on an opponent"
    if kind == "prime":
        return f"Prime {_plural(n, 'Secret')}"
    if kind == "spend_uf":
        return (f"spend up to {_amount(op.get('max'))} Universal Followers: each "
                f"{effect_words(op.get('each', []))}")
    return kind.replace("_", " ")


def effect_words(effect: Any) -> str:
    """A JSON effect (a list of ops) in words, steps joined by ``", "``."""
    if isinstance(effect, dict):
        effect = [effect]
    return ", ".join(op_words(op) for op in effect or []) or "nothing"


def trade_words(trade: dict) -> str:
    """An Alchemy trade: ``"pay <inputs> -> <outputs>"``."""
    paid = " + ".join(f"{v} {_RES.get(k, k)}" + ("s" if v != 1 and k in ("uf", "secret", "relic")
                                                 else "")
                      for k, v in trade.get("in", {}).items()) or "nothing"
    return f"pay {paid} -> {effect_words(trade.get('out', []))}"


def _relic(index: int) -> dict:
    """The content card of Relic ``index``. Raises ValueError for anything but an int in
    0..107 (a negative index would otherwise name a card from the end of the list)."""
    relics = _C["relics"]
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) or not (
            0 <= index < len(relics)):
        raise ValueError(f"a Relic index is an int in 0..{len(relics) - 1}, got {index!r}")
    return relics[index]


def relic_words(index: int) -> str:
    """``"<name> [R###]"`` of Relic ``index`` (0-based).

    Raises:
        ValueError: ``index`` is not an int in 0..107.
    """
    r = _relic(index)
    return f"{r['name']} [{r['id']}]"


def relic_card_words(index: int) -> str:
    """``"<name> [R###] (value V: I Suit)"`` of Relic ``index`` (0-based): what the card shows
    a player, for the text view. A Dark Relic reads ``(Dark, value V: I Suit or J Alt)``: it
    counts its primary or its alternate icons, not both (rulebook "Ascend"; design §5).

    Raises:
        ValueError: ``index`` is not an int in 0..107.
    """
    r = _relic(index)
    icons = f"{r['icons']} {r['suit']}"
    if r.get("alt_suit"):
        icons += f" or {r['alt_icons']} {r['alt_suit']}"
    tone = "Dark, " if r.get("tone") == "dark" else ""
    return f"{r['name']} [{r['id']}] ({tone}value {r['value']}: {icons})"


def _secret_card(society: str, index: int) -> dict | None:
    """The content card of Secret ``index`` of ``society`` (31 = its Conjunction Secret)."""
    if index == 31:
        card = (_C.get("conjunction_secrets") or {}).get(society)
        return card if isinstance(card, dict) else None
    cards = _C["secrets"].get(society, [])
    return cards[index] if 0 <= index < len(cards) else None


def secret_words(society: str, index: int) -> str:
    """``"<name> [<id>]"`` of Secret ``index`` of ``society`` (31 = its Conjunction Secret)."""
    card = _secret_card(society, index)
    if card is None:
        return f"Secret {index}"
    return f"{card['name']} [{card['id']}]"


def intent_words(index: int) -> str:
    """``"<name> [<id>] (<Sun|Moon|Star>)"`` of Intent card ``index`` (design §10.4)."""
    c = _C["nemesis"]["intent_cards"][index]
    return f"{c['name']} [{c['id']}] ({c['type'].capitalize()})"


def tile_words(index: int) -> str:
    """``"<name> [<id>]"`` of Ascension tile ``index``."""
    t = _C["ascension"]["tiles"][index]
    return f"{t['name']} [{t['id']}]"


#: The engine's phases of a turn (``ClandestineState.phase``) in the rulebook's terms ("On your
#: turn": a Secret and Alchemy before the Action, the Leader, the Action, Alchemy after it, the
#: end of the turn; "Any Time" Alchemy on the other players' turns; the final turns).
PHASE_WORDS = {
    "START": "start of the turn",
    "PRE": "before the Action (a Secret, Alchemy)",
    "SELECT_LEADER": "choosing the Leader",
    "ACTION": "the Action",
    "POST": "after the Action (Alchemy)",
    "END": "end of the turn",
    "REACT": "Any Time Alchemy after the turn",
    "FINAL": "Any Time Alchemy before the end of the game",
    "OVER": "game over",
}

#: The decisions (``decisions.kinds`` of the content data) as what the deciding seat chooses.
DECISION_WORDS = {
    "window_pre": "Alchemy trades, tile flips or a Secret before the Action",
    "window_post": "Alchemy trades or tile flips after the Action",
    "window_react": "Any Time Alchemy trades",
    "secret_option": "which option of the Secret to resolve",
    "select_leader": "the Leader whose space's Action to take",
    "placement_type": "which type of pawn to place next",
    "uf_route": "which path the Universal Follower takes",
    "either_timing": "when the Relic resolves",
    "discover_pick": "which Relic to Discover",
    "ascend_suit": "whether to Ascend, and with which suit",
    "ascend_reduction": "what the Strength reduces in the Ascension cost",
    "ascend_card": "which card pays for the Ascension",
    "pawn_pick": "which pawn to pick",
    "distance": "how far to move",
    "purge_destination": "where the purged Universal Follower goes",
    "target": "where the effect applies",
    "prime": "whether to Prime a Secret, and where",
    "assign": "which Relic to Assign, and to which slot",
    "choose": "which effect to take",
    "conjunction_pick": "which Conjunction to claim",
    "board_pick": "which Ascension slot to take",
    "hand_discard": "which card to discard down to the hand limit",
}

#: A ``target`` decision by the effect step asking for it.
_TARGET_WORDS = {"add_uf": "where to add a Universal Follower", "invest": "where to Invest",
                 "initiate": "which space to Initiate", "place_chaos": "where to place Chaos",
                 "extend": "where to Extend the Map"}

#: Why the game ended (``ClandestineState.end_reason``).
END_WORDS = {"level_v": "a Society reached Level V", "relic_deck": "the Relic deck ran out",
             "round_limit": "the round limit was reached"}


def decision_words(state) -> str:
    """What the seat to act in ``state`` decides, in the rulebook's terms (:data:`DECISION_WORDS`;
    an effect's own decision by its step); ``""`` when nothing is decided (the game is over)."""
    if state.phase == "OVER" or state.kind is None:
        return ""
    kind, req = _pending(state)
    if kind == "target":
        op = getattr(req, "op", None)
        if op is None:
            return "which Route refills the Harbor"
        return _TARGET_WORDS.get(op, DECISION_WORDS["target"])
    return DECISION_WORDS.get(kind, kind.replace("_", " "))


def society_name(society: str) -> str:
    """The Society's name on its Tableau (``"The Blue Army"``), a Nemesis's name (``"the
    Nemesis The Most Holy"``); the id if it has none."""
    nemesis = _C.get("nemesis", {}).get(society)
    if isinstance(nemesis, dict) and "name" in nemesis:
        return f"the Nemesis {nemesis['name']}"
    return _C["societies"].get(society, {}).get("name", society)


def status_words(state) -> str:
    """The first line of the text view: players, round, whose turn (its Society), the part of
    the turn, and who decides what (or how the game ended and the scores)."""
    if state.nem is not None:
        n = len(state.agent_seats)
        players = (f"{n} player{'s' if n != 1 else ''} against "
                   f"{state.rules_seat_label(state.nem.seat)}")
    else:
        players = f"{state.num_players} players"
    head = f"Clandestine, {players}, round {state.rounds_done + 1}"
    if state.phase == "OVER":
        why = END_WORDS.get(state.end_reason, str(state.end_reason).replace("_", " "))
        return f"{head}, game over ({why}), scores {state.final_scores().tolist()}"
    turn = state.turn
    line = (f"{head}, turn of seat {turn} ({society_name(state.societies[turn])}), "
            f"{PHASE_WORDS.get(state.phase, state.phase.lower())}")
    if state.end_trigger is not None:
        why = END_WORDS.get(state.end_reason, str(state.end_reason).replace("_", " "))
        line += f" (the end is triggered: {why})"
    what = decision_words(state)
    if what:
        line += f"; seat {state.current_player} decides {what}"
    return line


#: The Actions of a Nemesis's Chambers (lower-case codes in the content data) in the rulebook's
#: words (solo rules, "Unique Actions" of the Most Holy and of the Silver Guard).
NEMESIS_ACTION_WORDS = {
    "tithe": "Add a Tithe token",
    "collect": "Gain Gold per Tithe token",
    "convert": "Convert Pawns",
    "tithe_convert": "Add a Tithe token, then Convert Pawns",
    "seize": "Place Agents on the Relics of the Target Suit",
    "deploy": "Place an Agent on the next open space",
}


def space_action_words(action: str | None) -> str | None:
    """The Action printed on a space (``City.action``) as the text view names it: a Society's
    Action as printed (``"Fundraise"``), a Nemesis's by :data:`NEMESIS_ACTION_WORDS`; None for
    a space without one."""
    if action is None:
        return None
    return NEMESIS_ACTION_WORDS.get(action, action)


def _space(state, index: int) -> str:
    from .phases import _abs
    try:
        sp = _abs(state, index)
    except ValueError:
        return f"space {index} (no such space)"
    action = space_action_words(state.city.action(sp))
    return f"{state.city.space_ids[sp]}" + (f" ({action})" if action else "")


def _pending(state):
    """The kind of the decision due (an effect decision's own kind) and its request."""
    if state.kind == "effect" and state.runners:
        req = state.runners[-1]["runner"].pending
        if req is not None:
            return req.kind, req
    return state.kind, None


def _trade(state, index: int) -> str:
    panel, t = divmod(index, 3)
    seat = state.decider
    if panel == 6:
        j = state.conj[seat]
        if j < 0:
            return f"Trade {t + 1} of the Conjunction panel"
        conj = _C["conjunctions"][j]
        trades = (conj.get("alchemy") or {}).get("trades", [])
        words = trade_words(trades[t]) if t < len(trades) else f"trade {t + 1}"
        return f"Trade (Conjunction {conj['name']}): {words}"
    panels = _C["societies"][state.societies[seat]]["panels"]
    if panel >= len(panels) or t >= len(panels[panel]["trades"]):
        return f"Trade {t + 1} of panel {panel + 1}"
    return f"Trade ({panels[panel]['name']} panel): {trade_words(panels[panel]['trades'][t])}"


def _opt(state, kind: str, index: int, req) -> str:
    if kind == "secret_option":
        card = _secret_card(state.societies[state.decider], state.playing)
        if card is not None and index < len(card["effects"]):
            e = card["effects"][index]
            cost = ", ".join(f"{v} {_RES.get(k, k)}" for k, v in e.get("cost", {}).items())
            return (f"Option {e['label']}: " + (f"pay {cost} -> " if cost else "")
                    + effect_words(e["effect"]))
        return f"Option {'AB'[index] if index < 2 else index + 1}"
    if kind == "uf_route":
        return ("Universal Follower follows the Society Leader (Society path)" if index == 0
                else "Universal Follower stays on the Public path")
    if kind == "either_timing":
        return ("Resolve the Relic now (before the Strength)" if index == 0
                else "Resolve the Relic after the Strength")
    if kind == "ascend_reduction":
        return ("Reduce the Gold cost by the Strength" if index == 0
                else "Reduce the suit cost by half the Strength")
    if kind == "distance":
        return "Move forward" if index == 0 else "Move backward"
    if kind == "purge_destination":
        d = state.decider
        return (f"Send the purged Universal Follower to P{d}C1" if index == 0
                else f"Send the purged Universal Follower to the Public space after P{d}S3")
    if kind == "conjunction_pick":
        if index < len(state.conj_row):
            conj = _C["conjunctions"][state.conj_row[index]]
            return f"Claim Conjunction {conj['name']} [{conj['id']}]"
        return f"Claim Conjunction {index + 1} of the row"
    if kind == "choose" and req is None and state.choosing is not None:
        options = state.choice_options()
        if index < len(options):
            return f"Choose ({state.choosing[1]}): {effect_words(options[index])}"
    return f"Choose option {index + 1}"


def action_words(state, action: int) -> str:
    """``action`` (legal for the seat deciding in ``state``) in the rulebook's words."""
    blk = decode(action)
    block, i = blk.block, blk.index
    kind, req = _pending(state)
    if block == "PASS":
        return {"window_pre": "Done (end Alchemy before the Action)",
                "window_post": "Done (end Alchemy after the Action)",
                "window_react": "Done (no trade now)",
                "discover_pick": "Stop discovering",
                "ascend_suit": "Do not Ascend",
                "pawn_pick": "Stop (no more pawns)",
                "prime": "Stop priming",
                "assign": "Assign nothing"}.get(kind, "Pass")
    if block == "OPT":
        return _opt(state, kind, i, req)
    if block == "SPACE":
        where = _space(state, i)
        if kind == "select_leader":
            return f"Take the Action of {where} with the Leader there"
        if kind == "pawn_pick":
            return f"Pick a pawn on {where}"
        if kind == "prime":
            return f"Prime the Secret by {where}"
        op = getattr(req, "op", "")
        return {"add_uf": f"Add a Universal Follower on {where}",
                "invest": f"Invest on {where}",
                "initiate": f"Initiate {where}",
                "place_chaos": f"Place Chaos on {where}"}.get(op, f"Choose space {where}")
    if block == "PAWN":
        code = _PAWN_CODES[i]
        if kind == "placement_type":
            return f"Place a {PAWN_WORDS[code]} next"
        if kind == "select_leader":
            return f"Act with the {PAWN_WORDS[code]}"
        return f"The {PAWN_WORDS[code]}"
    if block == "DIST":
        return f"Move {i} space{'s' if i != 1 else ''}"
    if block == "MAP":
        from .relic_map import MAP_ORDER
        where = MAP_ORDER[i]
        r = state.relic_map[i] if i < len(state.relic_map) else -1
        if kind == "discover_pick" and r >= 0:
            return f"Discover {relic_words(r)} at Map space {where}"
        if getattr(req, "op", "") == "extend":
            return f"Extend the Map onto {where}"
        if getattr(req, "op", "") == "place_chaos":
            return f"Place Chaos on the Relic at Map space {where}" + (
                f" ({relic_words(r)})" if r >= 0 else "")
        return f"Map space {where}" + (f" ({relic_words(r)})" if r >= 0 else "")
    if block == "ROUTE":
        op = getattr(req, "op", "")
        return {"invest": f"Invest on Route R{i + 1}"}.get(
            op, f"Refill the Harbor from Route R{i + 1}" if req is None else f"Route R{i + 1}")
    if block == "RELIC":
        verb = {"ascend_card": "Pay with Relic", "hand_discard": "Discard Relic",
                "assign": "Assign Relic"}.get(kind, "Relic")
        return f"{verb} {relic_words(i)}"
    if block == "SECRET":
        if state.phase == "OVER":
            return f"Secret {i}"
        name = secret_words(state.societies[state.decider], i)
        verb = {"window_pre": "Play Secret", "ascend_card": "Pay with Secret",
                "hand_discard": "Discard Secret", "prime": "Prime Secret"}.get(kind, "Secret")
        return f"{verb} {name}"
    if block == "TRADE":
        return _trade(state, i)
    if block == "TILE":
        t = _C["ascension"]["tiles"][i]
        flip = t.get("flip")
        return f"Flip tile {tile_words(i)}" + (f": {effect_words(flip)}" if flip else "")
    if block == "AGENTS":
        chamber, method = divmod(i, 2)
        return (f"Remove the Agents from P{state.decider}C{chamber + 1}: "
                + ("bribe them (pay Gold)" if method == 0 else "kill them (gain Chaos)"))
    if block == "SLOT":
        return f"Into Relic slot {i + 1}"
    if block == "SUIT":
        return f"Ascend paying the {_SUITS[i]} suit"
    if block == "BOARD":
        slot = _C["ascension"]["board_slots"][i]
        tile = state.board_tile[i]
        what = (f"take tile {tile_words(tile)}" if tile >= 0 else
                effect_words(slot.get("empty_reward", [])))
        return f"Ascension slot {slot['id']} (Level {slot['level']} {slot['suit']}): {what}"
    if block == "PANEL":
        off, panel = divmod(i, 7)
        seat = (state.decider + off + 1) % state.num_players
        panels = _C["societies"].get(state.societies[seat], {}).get("panels", [])
        name = (f"{panels[panel]['name']} panel" if panel < len(panels)
                else "Conjunction panel" if panel == 6 else f"Alchemy panel {panel + 1}")
        return f"Place Chaos on P{seat}'s {name}"
    return f"{block.capitalize()} {i + 1}"
