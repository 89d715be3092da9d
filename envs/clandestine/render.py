"""RGB picture of a Clandestine position, drawn with matplotlib's Agg backend (no screen needed).

Only imported when a picture is asked for (``ClandestineState.render_rgb`` / ``render_mode=
"rgb_array"``), so matplotlib stays out of the hot path.

Left: the City (rulebook "Paths of the City"): the Public loop of ``5 N`` spaces as a ring
(connectors grey, Sidewalks in the colour of the path's Society), each Society path's four
Chambers outside the ring next to its Sidewalks; every space shows its name and Action, and its
pawns by type (PL Public Leader, PF Public Follower, UF Universal Follower, SL Society Leader of
the path's owner) with counts. Right, top: the Relic Map (Harbor, Routes R1-R4 with rows 0-2,
Extension slots E1-E4) with each Relic's name and value. Right, bottom: one row per Society:
Level, Gold, Energy, Intrigue tokens, hand sizes (counts only: no hidden card identity is
drawn), the Chaos meter (filled slots, the penalty of each slot) and the assigned Relics.
"""

from __future__ import annotations

import math

import numpy as np

from .city import C1, LOCAL_NAMES, SIDEWALKS, load_content

_C = load_content()
SOCIETY_RGB = {"mariners": "#1a9c9c", "garden": "#2e8b3a", "twilight": "#7b3fa0",
               "serpent": "#c9a21a", "blue": "#2456c8",
               "most_holy": "#8b1a1a", "silver_guard": "#6f7f8f"}  # and the two Nemeses
SOCIETY_SHORT = {"mariners": "Mariners", "garden": "Garden Club", "twilight": "Twilight Masks",
                 "serpent": "Serpent Keepers", "blue": "Blue Army",
                 "most_holy": "Most Holy (Nemesis)", "silver_guard": "Silver Guard (Nemesis)"}
PAWN_NAMES = ("PL", "PF", "UF", "SL")
PAWN_RGB = ("#d62728", "#ff9896", "#555555", None)  # SL: the owner's colour
ACTION_SHORT = {"Fundraise": "Fund", "Discover": "Disc", "Ascend": "Ascend", "Reveal": "Reveal",
                "Purge": "Purge", "Revolt": "Revolt", "Regroup": "Regroup",
                # a Nemesis's Chambers (content codes; words.NEMESIS_ACTION_WORDS in full)
                "tithe": "Tithe", "collect": "Collect", "convert": "Convert",
                "tithe_convert": "Tithe+Conv", "seize": "Seize", "deploy": "Deploy"}
_RELICS = _C["relics"]


def _pawn_text(counts) -> list[tuple[str, int]]:
    return [(PAWN_NAMES[t], int(counts[t])) for t in range(4) if counts[t] > 0]


def picture_status(state) -> str:
    """The picture's title line in the rulebook's terms (as the text view's first line,
    :func:`words.status_words`): round, whose turn (its Society), the part of the turn, or
    why the game ended and the scores; no phase or end-reason codes."""
    from .words import END_WORDS, PHASE_WORDS

    def why() -> str:
        return END_WORDS.get(state.end_reason, str(state.end_reason).replace("_", " "))

    head = f"Clandestine {state.num_players}p — round {state.rounds_done + 1}"
    if state.phase == "OVER":
        return f"{head} — game over ({why()}), scores {state.final_scores().tolist()}"
    status = (f"{head}, turn of seat {state.turn} ({SOCIETY_SHORT[state.societies[state.turn]]}"
              f"), {PHASE_WORDS.get(state.phase, state.phase.lower())}")
    if state.end_trigger is not None:
        status += f" — end triggered by seat {state.end_trigger} ({why()})"
    return status


def render_rgb(state, dpi: int = 80) -> np.ndarray:
    """Uint8 array ``(H, W, 3)`` picturing ``state`` (full public truth, no hidden card ids).

    Deterministic: the same state gives the same pixels. Works for 2..5 seats.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch, Rectangle

    n = state.num_players
    city = state.city
    fig = Figure(figsize=(19.2, 10.8), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    fig.patch.set_facecolor("#f4efe4")
    ax = fig.add_axes([0.0, 0.0, 0.5, 0.95])
    ax.set_xlim(-11, 11)
    ax.set_ylim(-11.2, 10.8)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.text(0.01, 0.975, picture_status(state), fontsize=15, weight="bold", va="center")

    # ---- City: the Public loop on a ring, Chambers outside their Sidewalks
    loop = [int(s) for s in city.public_loop]
    m = len(loop)
    r_ring, r_ch = 6.4, 9.2
    box_w = min(2.1, 2 * math.pi * r_ring / m * 0.86)
    box_h = min(1.5, box_w * 0.8)
    fs = 9 if box_w > 1.9 else 7.5
    pos: dict[int, tuple[float, float]] = {}
    ang_of: dict[int, float] = {}
    for p, s in enumerate(loop):
        ang = math.pi / 2 - 2 * math.pi * p / m
        ang_of[s] = ang
        pos[s] = (r_ring * math.cos(ang), r_ring * math.sin(ang))
    for seat in range(n):
        mid = ang_of[9 * seat + SIDEWALKS[1]]
        step = (box_w + 0.2) / r_ch
        for k in range(4):
            a = mid + step * (1.5 - k)
            pos[9 * seat + C1 + k] = (r_ch * math.cos(a), r_ch * math.sin(a))
    ax.add_patch(Circle((0, 0), r_ring, fill=False, lw=2.0, color="#999999", zorder=0))
    ax.annotate("", xy=pos[loop[1]], xytext=pos[loop[0]], zorder=0,
                arrowprops={"arrowstyle": "->", "color": "#999999", "lw": 1.5})
    for seat in range(n):  # Society path links S3 -> C1 .. C4 -> S1
        path = [9 * seat + k for k in (4, 5, 6, 7, 8, 2)]
        xs, ys = zip(*(pos[s] for s in path))
        ax.plot(xs, ys, color=SOCIETY_RGB[state.societies[seat]], lw=2.5, alpha=0.6, zorder=0)
    for s in range(9 * n):
        seat, local = divmod(s, 9)
        soc = state.societies[seat]
        kind = city.kind(s)
        x, y = pos[s]
        face = {"connector": "#e0e0e0", "sidewalk": "#ffffff", "chamber": "#fff6d8"}[kind]
        edge = "#777777" if kind == "connector" else SOCIETY_RGB[soc]
        ax.add_patch(FancyBboxPatch((x - box_w / 2, y - box_h / 2), box_w, box_h,
                                    boxstyle="round,pad=0.05", facecolor=face, edgecolor=edge,
                                    lw=3.0 if kind == "chamber" else 1.8, zorder=2))
        act = ACTION_SHORT.get(city.action(s) or "", city.action(s) or "-")
        ax.text(x, y + box_h * 0.28, f"{seat}{LOCAL_NAMES[local]} {act}", ha="center",
                va="center", fontsize=fs, weight="bold", zorder=3)
        marks = []
        if state.initiated[s]:
            marks.append("Init")
        if state.primed.get(s):
            marks.append(f"primed {len(state.primed[s])}")
        if state.invest_space[s]:
            marks.append(f"inv {state.invest_space[s]}")
        if state.masks_space[s]:
            marks.append(f"chaos {state.masks_space[s]}")
        if marks:
            ax.text(x, y - box_h / 2 - 0.2, " ".join(marks), ha="center", va="center", fontsize=7,
                    color="#7b3fa0", zorder=3)
        items = _pawn_text(state.pawns.counts[s])
        for j, (name, cnt) in enumerate(items):
            cx = x - box_w / 2 + 0.3 + 0.46 * j
            col = SOCIETY_RGB[soc] if name == "SL" else PAWN_RGB[PAWN_NAMES.index(name)]
            ax.add_patch(Circle((cx, y - box_h * 0.15), 0.21, facecolor=col, edgecolor="black", lw=0.6,
                                zorder=3))
            ax.text(cx, y - box_h * 0.15, str(cnt), ha="center", va="center", fontsize=8,
                    color="white", weight="bold", zorder=4)
    for seat in range(n):
        mid = ang_of[9 * seat + SIDEWALKS[1]]
        ax.text(3.6 * math.cos(mid), 3.6 * math.sin(mid),
                f"seat {seat}\n{SOCIETY_SHORT[state.societies[seat]]}", ha="center", va="center",
                fontsize=10, weight="bold", color=SOCIETY_RGB[state.societies[seat]])
    # legend of pawn types
    for j, name in enumerate(PAWN_NAMES):
        col = "#bbbbbb" if name == "SL" else PAWN_RGB[j]
        ax.add_patch(Circle((-10.5 + 2.6 * j, -10.45), 0.23, facecolor=col, edgecolor="black"))
        label = {"PL": "Public Leader", "PF": "Public Follower", "UF": "Univ. Follower",
                 "SL": "Society Leader"}[name]
        ax.text(-10.2 + 2.6 * j, -10.45, label, fontsize=8, va="center")
    ax.text(-10.75, -11.05, "under a space: Init = Initiated, primed = primed Secrets (Keepers), "
            "inv = Gold invested (Garden), chaos = Masks' Chaos", fontsize=7.5, va="center",
            color="#7b3fa0")

    # ---- Relic Map
    mp = fig.add_axes([0.5, 0.55, 0.5, 0.4])
    mp.set_xlim(0, 10)
    mp.set_ylim(0, 6)
    mp.axis("off")
    mp.text(0.1, 5.7, f"Relic Map (deck {len(state.relic_deck)}, discard "
                      f"{len(state.relic_discard)})", fontsize=13, weight="bold")
    order = list(state.relic_map)
    from .relic_map import MAP_ORDER

    def card(x, y, label, r, masks=0):
        mp.add_patch(Rectangle((x, y), 1.9, 0.95, facecolor="#ffffff" if r < 0 else (
            "#3b3b4f" if _RELICS[r]["tone"] == "dark" else "#fbf3d5"), edgecolor="#444444"))
        dark = r >= 0 and _RELICS[r]["tone"] == "dark"
        col = "white" if dark else "black"
        mp.text(x + 0.05, y + 0.78, label, fontsize=8, color=col, weight="bold")
        if r >= 0:
            rel = _RELICS[r]
            mp.text(x + 0.05, y + 0.45, rel["name"][:22], fontsize=7.5, color=col)
            mp.text(x + 0.05, y + 0.13, f"value {rel['value']}  {rel['suit']}", fontsize=7.5,
                    color=col)
            if masks:
                mp.text(x + 1.85, y + 0.78, f"+{masks}C", fontsize=7.5, color="#c04cff",
                        ha="right")
        else:
            mp.text(x + 0.05, y + 0.35, "empty", fontsize=8, color="#888888")

    for k, sp in enumerate(MAP_ORDER):
        r = order[k]
        masks = state.masks_relic.get(r, 0) if r >= 0 else 0
        if sp == "H":
            card(0.1, 2.4, "Harbor", r, masks)
        elif sp.startswith("R"):
            route, row = int(sp[1]) - 1, int(sp[3])
            inv = state.invest_route[route]
            card(2.2 + 2.0 * row, 4.4 - 1.05 * route,
                 sp + (f" inv {inv}" if row == 0 and inv else ""), r, masks)
        else:
            e = int(sp[1]) - 1
            card(0.1 + 2.0 * e, 0.1, sp + " (Ext.)", r, masks)
    for route in range(4):
        mp.text(8.3, 4.8 - 1.05 * route, f"Route R{route + 1}", fontsize=9, color="#444444")

    # ---- Societies
    tb = fig.add_axes([0.5, 0.0, 0.5, 0.55])
    tb.set_xlim(0, 10)
    tb.set_ylim(0, 5.2)
    tb.axis("off")
    row_h = 5.0 / max(n, 1)
    for seat in range(n):
        soc = state.societies[seat]
        meta = state.society(seat)["chaos"] if soc in _C["societies"] else None  # a Nemesis: none
        y0 = 5.0 - row_h * (seat + 1)
        tb.add_patch(Rectangle((0.05, y0 + 0.05), 9.9, row_h - 0.1, facecolor="#ffffff",
                               edgecolor=SOCIETY_RGB[soc], lw=2.5))
        turn = "  ◀ turn" if seat == state.turn and state.phase != "OVER" else ""
        tb.text(0.15, y0 + row_h - 0.28, f"seat {seat} {SOCIETY_SHORT[soc]}  Level "
                f"{['I', 'II', 'III', 'IV', 'V'][state.level[seat] - 1]}{turn}", fontsize=11,
                weight="bold", color=SOCIETY_RGB[soc])
        tb.text(0.15, y0 + row_h - 0.6,
                f"Gold {state.gold[seat]}   Energy {state.energy[seat]}   Intrigue "
                f"{state.intrigue[seat]}   hand: {len(state.relic_hand[seat])} Relics, "
                f"{len(state.secret_hand[seat])} Secrets (deck {len(state.secret_deck[seat])})"
                f"   tucked {len(state.tucked[seat])}", fontsize=9)
        # Chaos meter
        slots = int(meta["slots"]) if meta else 0
        cw = min(0.3, 3.0 / max(slots, 1))
        cx0, cy0 = 6.6, y0 + row_h - 0.55
        tb.text(cx0 - 0.05, cy0 + 0.12, "Chaos", fontsize=8, ha="right", va="center")
        for k in range(slots):
            filled = k < state.chaos[seat]
            tb.add_patch(Rectangle((cx0 + k * cw, cy0), cw * 0.9, 0.25,
                                   facecolor="#c0392b" if filled else "#eeeeee",
                                   edgecolor="#555555", lw=0.6))
            tb.text(cx0 + k * cw + cw * 0.45, cy0 + 0.12, str(meta["penalty"][k]), fontsize=6,
                    ha="center", va="center", color="white" if filled else "#777777")
        if state.chaos[seat] > slots:
            tb.text(cx0 + slots * cw + 0.05, cy0 + 0.12, f"+{state.chaos[seat] - slots}",
                    fontsize=8, va="center", color="#c0392b")
        # assigned Relics
        sw = 1.6
        for k, r in enumerate(state.slots[seat]):
            x = 0.15 + k * (sw + 0.02)
            y = y0 + 0.12
            h = max(0.3, row_h - 0.95)
            tb.add_patch(Rectangle((x, y), sw, h, facecolor="#fbf3d5" if r >= 0 else "#f2f2f2",
                                   edgecolor="#999999", lw=0.8))
            label = f"slot {k + 1}: " + (f"{_RELICS[r]['name'][:16]} ({_RELICS[r]['value']})"
                                         if r >= 0 else "-")
            tb.text(x + 0.04, y + h / 2, label, fontsize=7, va="center")
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    return img
