"""PNG charts of training and evaluation: learning curve and win rates with 95% intervals."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Sequence

import numpy as np


def read_learning_curve(path: str | Path, window: int = 500) -> tuple[np.ndarray, np.ndarray]:
    """Rolling win rate of the learner from an ``episodes.csv`` written by self-play training.

    Returns ``(timesteps, win_rate)`` float arrays of equal length (empty if the file has none).
    """
    p = Path(path)
    if not p.exists():
        return np.zeros(0), np.zeros(0)
    with p.open() as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return np.zeros(0), np.zeros(0)
    t = np.array([float(r["timestep"]) for r in rows])
    w = np.array([float(r["win"]) for r in rows])
    k = max(1, min(window, len(w) // 5 or 1))
    kernel = np.ones(k) / k
    rolled = np.convolve(w, kernel, mode="valid")
    return t[k - 1:], rolled


def save_chart(path: str | Path, entries: Sequence[dict[str, Any]], title: str,
               learning_curve: tuple[np.ndarray, np.ndarray] | None = None,
               chance: float | None = None) -> Path:
    """Write a PNG: (left) learning curve if given, (right) win rate per entry with 95% CI bars.

    ``entries`` rows need ``entry``, ``win_rate``, ``ci_low``, ``ci_high`` (as produced by
    :meth:`training.arena.EvaluationReport.entry_rows`, plus an optional ``matchup`` prefix).
    ``chance``: a dashed reference line (e.g. 1/num_players).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 2 if learning_curve is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 4.5), squeeze=False)
    axes = axes[0]
    if learning_curve is not None:
        ax = axes[0]
        t, w = learning_curve
        if len(t):
            ax.plot(t, w, color="tab:blue")
        if chance is not None:
            ax.axhline(chance, ls="--", color="grey", lw=1, label="chance")
            ax.legend(loc="lower right")
        ax.set_xlabel("training timesteps (learner decisions)")
        ax.set_ylabel("learner win rate in training games (rolling)")
        ax.set_title("learning curve")
        ax.set_ylim(0, 1)
    ax = axes[-1]
    labels = [e.get("matchup", "") + e["entry"] for e in entries]
    rates = np.array([e["win_rate"] for e in entries])
    err = np.array([[e["win_rate"] - e["ci_low"] for e in entries],
                    [e["ci_high"] - e["win_rate"] for e in entries]])
    y = np.arange(len(entries))
    ax.barh(y, rates, xerr=err, color="tab:orange", capsize=3)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    if chance is not None:
        ax.axvline(chance, ls="--", color="grey", lw=1)
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (95% Wilson interval)")
    ax.set_title("evaluation")
    fig.suptitle(title)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
