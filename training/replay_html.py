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
)


def replay_data(state_class: type[GameState], record: dict[str, Any]) -> dict[str, Any]:
    """Per-step data of ``record``: texts per view, moves per view, Clans board overlays.

    Returns:
        a JSON-ready dict: ``strings`` (every distinct text once) and ``steps``, one per state
        (set-up, then after each action), each ``{"views": [index of render_text(seat) per
        seat..., index of render_text()] (Clans: without the region rows the board shows),
        "actor": seat or null, "moves": [index of the next
        move's text as each seat saw it..., its full name] or null, "board": index or null}``;
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
            "actor": None, "moves": None, "board": None,
        }
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
    return (_PAGE.replace("__TITLE__", escape(title))
            .replace("__BOARD__", board)
            .replace("__DATA__", payload))


_PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f4f1ea;color:#222}
header{background:#333;color:#fff;padding:8px 16px;font-size:18px}
#controls{display:flex;gap:10px;align-items:center;padding:10px 16px;background:#fff;
 border-bottom:1px solid #ccc;flex-wrap:wrap}
#slider{flex:1;min-width:200px}
#stepno{font-weight:600;min-width:90px}
main{display:flex;gap:16px;padding:12px 16px;align-items:flex-start}
#left{flex:3;min-width:0} #right{flex:2;min-width:260px}
.card{background:#fff;border:1px solid #ccc;border-radius:6px;padding:10px;margin-bottom:12px}
h2{font-size:15px;margin:0 0 6px 0;color:#555;text-transform:uppercase;letter-spacing:.05em}
pre{font-size:13px;white-space:pre-wrap;margin:0}
#next{font-size:15px}
#moves{max-height:480px;overflow-y:auto;font-size:13px}
#moves div{padding:1px 0;cursor:pointer} #moves .cur{background:#fff1a8;font-weight:600}
#moves .done{color:#666}
svg.board{width:100%;height:auto;border:1px solid #999;margin-top:8px}
#final{display:none;border:2px solid #2a7}
.hint{color:#666;font-size:12px}
</style></head><body>
<header>__TITLE__ <span id="meta"></span></header>
<div id="controls">
 <button id="prev" title="previous decision (Left arrow)">&#9664;</button>
 <input type="range" id="slider" min="0" value="0">
 <button id="nextbtn" title="next decision (Right arrow)">&#9654;</button>
 <span id="stepno"></span>
 <label>view <select id="viewsel"></select></label>
 <span class="hint">keys: &larr; &rarr; Home End, t = full truth, 0-9 = a seat's view</span>
</div>
<main><div id="left">
 <div class="card"><h2>Next decision</h2><div id="next"></div></div>
 <div class="card" id="final"><h2>Result</h2><div id="result"></div></div>
 <div class="card"><h2 id="viewtitle"></h2><pre id="view"></pre>__BOARD__</div>
</div><div id="right">
 <div class="card"><h2>Moves</h2><div id="moves"></div></div>
</div></main>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const S = D.strings, N = D.steps.length - 1, P = D.num_players;
let step = 0, view = P;   // view P = full truth, 0..P-1 = a seat
const slider = document.getElementById("slider"); slider.max = N;
const sel = document.getElementById("viewsel");
function who(q){ return "seat " + q + (D.agents ? " (" + D.agents[q] + ")" : ""); }
[...Array(P).keys()].forEach(q=>{const o=document.createElement("option"); o.value=q; o.textContent=who(q)+"'s view"; sel.appendChild(o);});
{const o=document.createElement("option"); o.value=P; o.textContent="full truth"; sel.appendChild(o); sel.value=P;}
document.getElementById("meta").textContent = " · " + P + " seats · " + (N) + " decisions" + (D.seed!==null && D.seed!==undefined ? " · seed " + D.seed : "");
const moves = document.getElementById("moves");
function drawMoves(){
  moves.replaceChildren();
  for(let i=0;i<N;i++){
    const st = D.steps[i];
    const d = document.createElement("div");
    d.textContent = "#" + i + " " + who(st.actor) + ": " + S[st.moves[view]];
    d.className = i===step ? "cur" : (i<step ? "done" : "");
    d.dataset.step = i;
    d.addEventListener("click", ()=>go(i));
    moves.appendChild(d);
  }
}
function draw(){
  const st = D.steps[step];
  slider.value = step;
  document.getElementById("stepno").textContent = step + " / " + N;
  document.getElementById("viewtitle").textContent = view===P ? "Full truth" : who(view) + "'s view";
  document.getElementById("view").textContent = S[st.views[view]];
  const nx = document.getElementById("next");
  nx.textContent = st.actor===null ? "the game is over" : who(st.actor) + ": " + S[st.moves[view]];
  const ov = document.getElementById("overlay");
  if(ov && st.board!==null) ov.innerHTML = S[st.board];
  const fin = document.getElementById("final");
  if(step===N && D.returns){
    fin.style.display = "block";
    document.getElementById("result").textContent = "returns: " +
      D.returns.map((x,q)=>who(q)+" "+x.toFixed(2)).join(", ") +
      (D.truncated ? " (cut off: no winner)" : "") +
      " · reveal: " + JSON.stringify(D.hidden_truth);
  } else fin.style.display = "none";
  drawMoves();
  const cur = moves.querySelector(".cur"); if(cur) cur.scrollIntoView({block:"nearest"});
  document.body.dataset.step = step; document.body.dataset.view = view;
}
function go(i){ step = Math.max(0, Math.min(N, i)); draw(); }
slider.addEventListener("input", ()=>go(Number(slider.value)));
document.getElementById("prev").addEventListener("click", ()=>go(step-1));
document.getElementById("nextbtn").addEventListener("click", ()=>go(step+1));
sel.addEventListener("change", ()=>{ view = Number(sel.value); draw(); });
document.addEventListener("keydown", e=>{
  if(e.target === sel) return;
  if(e.target === slider && ["ArrowLeft","ArrowRight","ArrowUp","ArrowDown","Home","End"].includes(e.key)) return;
  if(e.key==="ArrowRight"){ go(step+1); e.preventDefault(); }
  else if(e.key==="ArrowLeft"){ go(step-1); e.preventDefault(); }
  else if(e.key==="Home") go(0);
  else if(e.key==="End") go(N);
  else if(e.key==="t"){ view = P; sel.value = P; draw(); }
  else if(/^[0-9]$/.test(e.key) && Number(e.key) < P){ view = Number(e.key); sel.value = view; draw(); }
});
draw();
</script></body></html>
"""
