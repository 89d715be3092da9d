"""RGB picture of a Clans position, drawn with matplotlib's Agg backend (no screen needed).

Only imported when a picture is asked for (``ClansState.render_rgb`` / ``render_mode=
"rgb_array"``), so matplotlib stays out of the hot path.
"""

from __future__ import annotations

import numpy as np

from . import board as B

TERRAIN_FILL = {"mountain": "#a7a7a7", "forest": "#2e6b34", "steppe": "#e8d36a",
                "grassland": "#9fd67a"}
COLOUR_RGB = {"red": "#d62728", "yellow": "#ffdd00", "green": "#17b02b", "blue": "#1f5fd6",
              "black": "#111111"}
EPOCH_NAMES = ("I", "II", "III", "IV", "V")


def render_rgb(state, dpi: int = 80) -> np.ndarray:
    """Uint8 array (H, W, 3) of ``state``: terrain polygons, huts, villages, lakes, scores.

    Huts are small squares in the colour of their clan with the count inside, placed around the
    area's centroid; villages get a thick white outline and a star; lakes are the water-blue gaps between
    the area polygons.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.patches import Polygon, Rectangle

    w_px, h_px = B.BOARD_SIZE_PX
    fig = Figure(figsize=(w_px / 100 * 1.3, h_px / 100 * 1.05), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes([0.0, 0.0, 0.77, 0.95])
    side = fig.add_axes([0.77, 0.0, 0.23, 0.95])
    side.axis("off")
    ax.set_xlim(0, w_px)
    ax.set_ylim(h_px, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    for a in range(B.NUM_AREAS):
        terrain = B.TERRAINS[B.AREA_TERRAIN[a]]
        vil = bool(state.village[a])
        ax.add_patch(Polygon(B.POLYGONS[a], closed=True, facecolor=TERRAIN_FILL[terrain],
                             edgecolor="white" if vil else "#333333",
                             linewidth=3.0 if vil else 0.6, zorder=1))
    # Lakes: the gaps between the area polygons show the water-blue board background.
    ax.add_patch(Rectangle((0, 0), w_px, h_px, facecolor="#7fb8e0", edgecolor="none", zorder=0))
    for a in range(B.NUM_AREAS):
        cx, cy = B.CENTROIDS[a]
        if state.village[a]:
            ax.plot(cx + 22, cy - 14, marker="*", markersize=14, color="white",
                    markeredgecolor="black", zorder=4)
        cols = [c for c in range(B.NUM_COLOURS) if state.huts[a, c] > 0]
        # the area number sits above the huts, never under them
        ax.text(cx, cy - 14 if cols else cy, str(a), fontsize=7, ha="center", va="center",
                color="white" if B.TERRAINS[B.AREA_TERRAIN[a]] == "forest" else "#222222",
                zorder=6, fontweight="bold")
        if not cols:
            continue
        x0 = cx - (len(cols) - 1) * 9
        for i, c in enumerate(cols):
            name = B.COLOURS[c]
            x = x0 + 18 * i
            ax.plot(x, cy, marker="s", markersize=11, color=COLOUR_RGB[name],
                    markeredgecolor="white", zorder=5)
            ax.text(x, cy, str(int(state.huts[a, c])), fontsize=6, ha="center", va="center",
                    color="black" if name == "yellow" else "white", zorder=6,
                    fontweight="bold")
    k = len(state.villages)
    ep = state.epoch
    title = (f"Clans - villages {k}/12 - epoch {EPOCH_NAMES[ep] if ep is not None else '-'}"
             f" - chips left {B.NUM_CHIPS - k}")
    if state.is_terminal:
        title += " - game over"
    fig.suptitle(title, fontsize=12, y=0.99)
    # legend: terrain colours, lakes, huts, villages
    handles = [Rectangle((0, 0), 1, 1, facecolor=TERRAIN_FILL[t], edgecolor="#333333", label=t)
               for t in B.TERRAINS]
    handles.append(Rectangle((0, 0), 1, 1, facecolor="#7fb8e0", edgecolor="none", label="lake"))
    handles.append(Rectangle((0, 0), 1, 1, facecolor="#777777", edgecolor="white",
                             label="n = huts of a colour"))
    handles.append(Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black",
                             label="white outline, star: village"))
    side.legend(handles=handles, loc="lower left", fontsize=8, frameon=False,
                title="Legend (number in an area: its id)", title_fontsize=8)
    lines = ["Scores (colour)"]
    for c, name in enumerate(B.COLOURS):
        lines.append(f"  {name:<7s}{int(state.scores[c]):>4d}")
    lines.append("")
    lines.append("Bonus chips")
    for i in range(state.num_players):
        lines.append(f"  seat {i}: {int(state.chips[i])}")
    lines.append("")
    chart = state.chart
    lines.append(f"Epoch chart ({chart.name})")
    for e in range(B.NUM_EPOCHS):
        fav = "all" if chart.favourable[e] < 0 else B.TERRAINS[chart.favourable[e]]
        hos = "-" if chart.hostile[e] < 0 else B.TERRAINS[chart.hostile[e]]
        mark = ">" if ep == e else " "
        lines.append(f"{mark}{EPOCH_NAMES[e]:>3s} x{chart.villages_per_epoch[e]} +{chart.bonus[e]}"
                     f" {fav[:5]}/{hos[:5]}")
    if not state.is_terminal:
        lines.append("")
        lines.append(f"to act: seat {state.current_player}")
    side.text(0.02, 0.98, "\n".join(lines), va="top", ha="left", family="monospace",
              fontsize=9, transform=side.transAxes)
    canvas.draw()
    buf = np.asarray(canvas.buffer_rgba())
    return np.ascontiguousarray(buf[:, :, :3]).astype(np.uint8)
