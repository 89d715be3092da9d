"""What one seat may be shown: its view, its legal choices and the other seats' moves.

Shared by the browser game (:mod:`training.web`) and the replay viewer (:mod:`training.replay`
``--html``). Everything a seat's page gets is built here from that seat's side only:

* :func:`seat_view` — ``render_text(seat)`` (the engine's own seat view: the seat's cards, the
  public tracks and counts, never another seat's hidden cards) split into a header and one row
  per seat, plus for Clans the public board as SVG (:func:`clans_board_svg`);
* :func:`legal_choices` — the legal actions named with ``action_to_string``, only while the
  decision is the seat's own;
* :func:`move_text` — what a seat sees of a move: the action's name when the move is public,
  a covered description when it places or deals a card face-down (the terminal's words,
  :func:`envs.core.text.action_text_for`).

Nothing here reads ``hidden_truth()`` or ``render_text()`` without a seat; the web server adds
those only once the game is over, when the rulebooks reveal everything.
"""

from __future__ import annotations

import html
import re
from typing import Any

from envs.core import GameState
from envs.core.text import action_text_for

#: the player named for a seat the rules play, not an agent (Clandestine's Nemesis: rulebook
#: "Solo Play"), in the terminal's and the browser's player lists and in saved records
RULES_LABEL = "played by the rules"


def move_text(state: GameState, action: int, viewer: int) -> str:
    """What ``viewer`` sees of ``action`` taken now by ``state.current_player``.

    Call before the action is applied. The same words as the terminal and text views
    (:func:`envs.core.text.action_text_for`): the actor's own moves and public moves are named
    with ``action_to_string``; a move another seat may not know (a card placed or dealt
    face-down, a Secret primed; :data:`envs.core.text.PRIVATE_ACTIONS` and the observation
    test of :func:`envs.core.text.private_text`) is covered.

    Raises:
        ValueError: the game is over (no one is to act) or ``viewer`` is not a seat.
    """
    viewer = state.check_seat(viewer)
    if state.current_player is None:
        raise ValueError("the game is over: no move to describe")
    return action_text_for(state, int(action), viewer)


#: game name -> regex of a per-seat line of ``render_text(seat)`` and the separator of its fields
_SEAT_ROWS: dict[str, tuple[re.Pattern, str]] = {
    "prowl": (re.compile(r"^\s*P(\d+): (.*)$"), " | "),
    "badland_wolves": (re.compile(r"^\s*wolf (\d+): (.*)$"), "; "),
}


def structured_text(game: str, text: str) -> dict[str, Any]:
    """``render_text(seat)`` of ``game`` split for display.

    Returns:
        ``{"header": [lines before the seat rows], "seats": [{"seat": int, "fields": [str]}],
        "footer": [lines after them]}``; for a game without per-seat rows (Clans) every line is
        in ``header`` except Clans' region rows, which the board picture shows.
    """
    header: list[str] = []
    footer: list[str] = []
    seats: list[dict[str, Any]] = []
    pattern = _SEAT_ROWS.get(game)
    for line in text.splitlines():
        m = pattern[0].match(line) if pattern else None
        if m:
            seats.append({"seat": int(m.group(1)),
                          "fields": [f.strip() for f in m.group(2).split(pattern[1])]})
        elif game == "clans" and re.match(r"^R\d+\s", line):
            continue
        elif seats:
            footer.append(line.strip())
        else:
            header.append(line.strip())
    return {"header": header, "seats": seats, "footer": footer}


def seat_view(state: GameState, seat: int) -> dict[str, Any]:
    """The picture of ``state`` that ``seat`` may see (JSON-ready).

    Returns:
        ``{"text": render_text(seat), "table": structured_text(...), "board_svg": str | None,
        "to_act": current_player or None, "over": bool}``; ``board_svg`` is the public Clans
        board (:func:`clans_board_svg`), ``None`` for the card games.

    Raises:
        ValueError: ``seat`` is not a seat of the game.
    """
    seat = state.check_seat(seat)
    text = state.render_text(seat)
    return {"text": text, "table": structured_text(state.game_name, text),
            "board_svg": clans_board_svg(state) if state.game_name == "clans" else None,
            "to_act": None if state.is_over else state.current_player,
            "over": bool(state.is_over)}


def legal_choices(state: GameState, seat: int) -> list[dict[str, Any]]:
    """``[{"id": action id, "name": action_to_string}]`` when ``seat`` is to decide, else []."""
    seat = state.check_seat(seat)
    if state.is_over or state.current_player != seat:
        return []
    return [{"id": a, "name": state.action_to_string(a)} for a in state.legal_actions()]


def final_view(state: GameState) -> dict[str, Any]:
    """What every seat learns at the end: returns, the reveal (``hidden_truth``), full text.

    Raises:
        ValueError: the game is not over yet (nothing may be revealed before the end).
    """
    if not state.is_over:
        raise ValueError("the game is not over: the final reveal is not public yet")
    return {"returns": [float(x) for x in state.returns()],
            "truncated": bool(state.is_truncated and not state.is_terminal),
            "hidden_truth": state.hidden_truth(), "full_text": state.render_text()}


# ------------------------------------------------------------------------------------------------
# Clans board as SVG (public: terrains, huts, villages; never a seat's colour)
def clans_board_base_svg() -> str:
    """The static part of the Clans board as SVG elements: lakes, terrain polygons (clickable,
    ``data-area``), area numbers (below the huts' row, never under them), legend."""
    from envs.clans import board as B
    from envs.clans.render import TERRAIN_FILL

    w, h = B.BOARD_SIZE_PX
    parts = [f'<rect x="0" y="0" width="{w}" height="{h}" fill="#7fb8e0"/>']
    for a in range(B.NUM_AREAS):
        pts = " ".join(f"{x:.0f},{y:.0f}" for x, y in B.POLYGONS[a])
        fill = TERRAIN_FILL[B.TERRAINS[B.AREA_TERRAIN[a]]]
        parts.append(f'<polygon class="area" data-area="{a}" points="{pts}" fill="{fill}" '
                     'stroke="#333" stroke-width="1"/>')
    for a in range(B.NUM_AREAS):
        cx, cy = (float(v) for v in B.CENTROIDS[a])
        parts.append(f'<text x="{cx:.0f}" y="{cy + 26:.0f}" font-size="12" text-anchor="middle" '
                     f'fill="#111" font-family="monospace">{a}</text>')
    x = 10
    for name, fill in TERRAIN_FILL.items():
        parts.append(f'<rect x="{x}" y="{h + 8}" width="16" height="16" fill="{fill}" '
                     f'stroke="#333"/><text x="{x + 22}" y="{h + 21}" font-size="15">{name}</text>')
        x += 140
    parts.append(f'<rect x="{x}" y="{h + 8}" width="16" height="16" fill="#7fb8e0" stroke="#333"/>'
                 f'<text x="{x + 22}" y="{h + 21}" font-size="15">lake</text>')
    parts.append(f'<text x="{x + 100}" y="{h + 21}" font-size="15">&#9733; village, '
                 'small number = area</text>')
    return "".join(parts)


def clans_board_overlay_svg(state: Any) -> str:
    """The changing part of a Clans board as SVG elements: villages and huts (count per colour)."""
    from envs.clans import board as B
    from envs.clans.render import COLOUR_RGB

    parts = []
    for a in range(B.NUM_AREAS):
        cx, cy = (float(v) for v in B.CENTROIDS[a])
        if state.village[a]:
            pts = " ".join(f"{x:.0f},{y:.0f}" for x, y in B.POLYGONS[a])
            parts.append(f'<polygon points="{pts}" fill="none" stroke="white" stroke-width="4"/>'
                         f'<text x="{cx:.0f}" y="{cy - 18:.0f}" font-size="22" '
                         f'text-anchor="middle" fill="white" stroke="black" stroke-width="1">'
                         '&#9733;</text>')
        cols = [c for c in range(B.NUM_COLOURS) if state.huts[a, c] > 0]
        x0 = cx - (len(cols) - 1) * 11
        for i, c in enumerate(cols):
            name = B.COLOURS[c]
            x = x0 + 22 * i
            parts.append(f'<rect x="{x - 10:.0f}" y="{cy - 10:.0f}" width="20" height="20" '
                         f'fill="{COLOUR_RGB[name]}" stroke="white" stroke-width="1.5"/>'
                         f'<text x="{x:.0f}" y="{cy + 5:.0f}" font-size="14" font-weight="bold" '
                         f'text-anchor="middle" fill="{"black" if name == "yellow" else "white"}"'
                         f'>{int(state.huts[a, c])}</text>')
    return "".join(parts)


def clans_svg_frame(inner: str) -> str:
    """Wrap Clans board elements in an ``<svg>`` element (board plus a legend strip)."""
    from envs.clans import board as B

    w, h = B.BOARD_SIZE_PX
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h + 34}" '
            f'class="board" role="img" aria-label="Clans board">{inner}</svg>')


def clans_board_svg(state: Any) -> str:
    """The public Clans board of ``state`` as one ``<svg>`` string (terrains, huts, villages)."""
    return clans_svg_frame(clans_board_base_svg() + clans_board_overlay_svg(state))


def page_template(name: str) -> str:
    """The HTML template ``training/pages/<name>`` (page markup, style and script, no data)."""
    from importlib.resources import files

    return files("training").joinpath("pages", name).read_text(encoding="utf-8")


def escape(text: str) -> str:
    """HTML-escape ``text`` (quotes included)."""
    return html.escape(text, quote=True)


if __name__ == "__main__":
    import sys

    from training.cli import library_main

    sys.exit(library_main("seatview",
                          "What one seat may be shown, for the browser game and the replay "
                          "viewer.", "python -m training.web or "
                          "python -m training.replay RECORD --html OUT.html"))
