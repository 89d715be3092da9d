"""A self-contained HTML replay viewer of one game record (``training.replay --html``).

The file steps through the record decision by decision (a slider, the arrow keys, Home/End) and
switches between the full truth and each seat's view (a menu, or the keys ``t`` and ``0``-``9``).
In a seat's view everything shown is what that seat saw at that step: its ``render_text(seat)``
and the moves as they appeared to it (:func:`training.seatview.move_text`: cards placed or dealt
face-down stay covered); the full truth shows ``render_text()`` and every action's name. Clans
steps show the board as SVG (the terrain drawn once, the huts and villages per step). Everything
is inline (script, style, pictures), so the file can be mailed or opened offline; repeated texts
are stored once.
"""

from __future__ import annotations

import json
import re
from typing import Any

from envs.core import GameState

from .seatview import (
    clans_board_base_svg, clans_board_overlay_svg, clans_svg_frame, escape, move_text,
    page_template,
)


def replay_data(state_class: type[GameState], record: dict[str, Any]) -> dict[str, Any]:
    """Per-step data of ``record``: texts per view, moves per view, Clans board overlays.

    Returns:
        a JSON-ready dict: ``strings`` (every distinct text once) and ``steps``, one per state
        (set-up, then after each action), each ``{"views": [index of render_text(seat) per
        seat..., index of render_text()] (Clans: without the region rows the board shows),
        "actor": seat or null, "moves": [index of the next
        move's text as each seat saw it..., its full name] or null, "after": [[seat, index of
        the words], ...] what the seats the rules play (a Clandestine Nemesis) did because of
        that move (``rules_words``: public, the same for every view), "board": index or null}``;
        plus ``game``, ``num_players``, ``agents``, ``returns``, ``hidden_truth``.

    Raises:
        RecordError: the record does not replay (see ``GameState.replay_steps``).
    """
    strings: list[str] = []
    index: dict[str, int] = {}

    def intern(text: str) -> int:
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    def view_text(state: GameState, seat: int | None) -> str:
        text = state.render_text(seat)
        if state.game_name == "clans":      # the board picture shows the region rows
            text = "\n".join(line for line in text.splitlines()
                              if not re.match(r"^R\d+\s", line))
        return text

    actions = record["actions"]
    steps = []
    state = None
    for i, state in enumerate(state_class.replay_steps(record)):
        n = state.num_players
        step: dict[str, Any] = {
            "views": [intern(view_text(state, q)) for q in range(n)]
                     + [intern(view_text(state, None))],
            "actor": None, "moves": None, "after": [], "board": None,
        }
        if i:
            steps[-1]["after"] = [[q, intern(words)] for q, words in state.rules_words()]
        if i < len(actions):
            a = int(actions[i])
            step["actor"] = state.current_player
            step["moves"] = [intern(move_text(state, a, q)) for q in range(n)] \
                + [intern(state.action_to_string(a))]
        if state.game_name == "clans":
            step["board"] = intern(clans_board_overlay_svg(state))
        steps.append(step)
    assert state is not None
    over = state.is_over
    return {"game": state.game_name, "num_players": state.num_players,
            "agents": record.get("agents"), "config": record.get("config"),
            "seed": record.get("seed"), "strings": strings, "steps": steps,
            "returns": [float(x) for x in state.returns()] if over else None,
            "hidden_truth": state.hidden_truth() if over else None,
            "truncated": bool(state.is_truncated and not state.is_terminal)}


def replay_html(state_class: type[GameState], record: dict[str, Any],
                title: str | None = None) -> str:
    """The replay viewer of ``record`` as one HTML document (see the module docstring).

    Raises:
        RecordError: the record does not replay.
    """
    data = replay_data(state_class, record)
    board = ""
    if data["game"] == "clans":
        board = clans_svg_frame(clans_board_base_svg() + '<g id="overlay"></g>')
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    title = title or f"Cunning replay: {data['game']}"
    return (page_template("replay.html").replace("__TITLE__", escape(title))
            .replace("__BOARD__", board)
            .replace("__DATA__", payload))




if __name__ == "__main__":
    import sys

    from training.cli import library_main

    sys.exit(library_main("replay_html", "The self-contained HTML replay viewer.",
                          "python -m training.replay RECORD --html OUT.html"))
