"""PNG charts of training and evaluation: learning curve and win rates with 95% intervals.

``python -m training.plots RUN_DIR`` draws the learning curve of a self-play run folder
(``episodes.csv``, and the warm start from ``checkpoints/state.json``) into
``RUN_DIR/learning_curve.png``: the learner's win rate in its training games against each opponent
kind (snapshot, random, heuristic), smoothed over episodes, the warm start marked at step 0,
on an axis fitted to the curves, so what training changed shows.
"""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

KINDS = ("snapshot", "random", "heuristic")
KIND_COLOURS = {"snapshot": "tab:purple", "random": "tab:green", "heuristic": "tab:red"}


@dataclass
class LearningCurve:
    """The training episodes of a self-play run, one entry per episode, in order.

    ``timesteps`` float (E,): the learner's timestep at the episode's end; ``wins`` float (E,):
    1.0 when the learner won, else 0.0; ``shares[kind]`` float (E,): the share of the opponent
    seats played by ``kind`` (``snapshot``, ``random`` or ``heuristic``; a 4-player episode
    against ``heuristic+random+random`` has shares 1/3 and 2/3); ``warm_start``: the imitation
    statistics of ``checkpoints/state.json`` (``games``, ``accuracy``...) or None.
    """

    timesteps: np.ndarray
    wins: np.ndarray
    shares: dict[str, np.ndarray] = field(default_factory=dict)
    warm_start: dict[str, Any] | None = None

    def __len__(self) -> int:
        return int(self.wins.shape[0])

    def smoothed(self, window: int = 500) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The learner's win rate against each opponent kind, smoothed: ``{kind: (t, rate)}``.

        For each kind, over the episodes with at least one opponent of that kind (in order), the
        rolling mean of ``wins`` weighted by the kind's share of the opponent seats, over
        ``min(window, n // 5)`` of them (at least 1), plotted at the last episode's timestep;
        ``"all"`` is the plain rolling win rate over every episode. Kinds without episodes are
        left out.

        Raises:
            ValueError: ``window < 1``.
        """
        if window < 1:
            raise ValueError(f"window must be >= 1, got {window}")
        out = {}
        for kind in ("all", *KINDS):
            weight = np.ones(len(self)) if kind == "all" else self.shares.get(kind)
            if weight is None:
                continue
            keep = weight > 0
            n = int(keep.sum())
            if n == 0:
                continue
            w, x, t = weight[keep], self.wins[keep], self.timesteps[keep]
            k = max(1, min(window, n // 5))
            kernel = np.ones(k)
            rate = np.convolve(w * x, kernel, "valid") / np.convolve(w, kernel, "valid")
            out[kind] = (t[k - 1:], rate)
        return out


def read_learning_curve(path: str | Path) -> LearningCurve:
    """The episodes of ``episodes.csv`` written by self-play training (empty if there is none),
    with the warm start read from ``checkpoints/state.json`` next to it when present.

    Raises:
        ValueError: the file is not an episode log (a column missing, a value not a number).
    """
    p = Path(path)
    warm = None
    state = p.parent / "checkpoints" / "state.json"
    if state.is_file():
        try:
            warm = json.loads(state.read_text()).get("imitation")
        except (json.JSONDecodeError, AttributeError):
            warm = None
    if not p.exists():
        return LearningCurve(np.zeros(0), np.zeros(0), {k: np.zeros(0) for k in KINDS}, warm)
    with p.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    try:
        t = np.array([float(r["timestep"]) for r in rows])
        w = np.array([float(r["win"]) for r in rows])
        counts = [r["opponents"].split("+") for r in rows]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{p} is not an episode log of training.selfplay (columns timestep, "
                         f"opponents, win): {type(exc).__name__} {exc}") from None
    shares = {k: np.array([c.count(k) / len(c) for c in counts]) for k in KINDS}
    return LearningCurve(t, w, shares, warm)


def plot_learning_curve(ax: Any, curve: LearningCurve, chance: float | None = None,
                        window: int = 500) -> None:
    """Draw :meth:`LearningCurve.smoothed` on the matplotlib axes ``ax``: one line per opponent
    kind (its legend gives the first and last smoothed rate), the overall rate in grey, the warm
    start marked at step 0, ``chance`` dashed, the y axis fitted to the curves."""
    lines = curve.smoothed(window)
    lows, highs = [], []
    for kind, (t, rate) in lines.items():
        label = f"vs {kind}: {rate[0]:.2f} → {rate[-1]:.2f}" if kind != "all" else \
            f"all games: {rate[0]:.2f} → {rate[-1]:.2f}"
        ax.plot(t, rate, color=KIND_COLOURS.get(kind, "grey"),
                lw=1 if kind == "all" else 1.8, ls=":" if kind == "all" else "-", label=label)
        lows.append(rate.min())
        highs.append(rate.max())
    if chance is not None:
        ax.axhline(chance, ls="--", color="grey", lw=1, label=f"chance ({chance:.2f})")
        lows.append(chance)
        highs.append(chance)
    warm = curve.warm_start
    text = (f"warm start: heuristic imitated\n({warm.get('games', '?')} games, accuracy "
            f"{warm.get('accuracy', float('nan')):.2f})" if warm else
            "no warm start\n(uniform policy)")
    ax.axvline(0, color="black", lw=1.2)
    ax.annotate(text, xy=(0, 1), xycoords=("data", "axes fraction"), xytext=(4, -4),
                textcoords="offset points", va="top", fontsize=8)
    if lows:
        lo, hi = min(lows), max(highs)
        pad = max(0.03, 0.15 * (hi - lo))
        ax.set_ylim(max(0.0, lo - pad), min(1.0, hi + 2 * pad))
    ax.set_xlim(left=-0.02 * max(1.0, float(curve.timesteps.max()) if len(curve) else 1.0))
    ax.set_xlabel("PPO timesteps (learner decisions)")
    ax.set_ylabel("learner win rate in training games")
    ax.set_title(f"learning curve: {len(curve)} episodes, smoothed over "
                 f"{max(1, min(window, len(curve) // 5))}")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)


def seat_parity(game: str, config: dict[str, Any]) -> float | None:
    """The charts' chance line: a seat's win rate when all seats are equal, ``1 / seats``; None
    when a seat is played by the rules (a Clandestine Nemesis, counted by the state's
    ``num_players`` but not by ``config["num_players"]``), which is no equal seat to compare
    with.

    Raises:
        ValueError: an unknown game or a configuration the game refuses.
    """
    from envs import make_raw_env

    state = make_raw_env(game, **config).game
    if len(state.agent_seats) != state.num_players:
        return None
    return 1 / state.num_players


def save_chart(path: str | Path, entries: Sequence[dict[str, Any]], title: str,
               learning_curve: LearningCurve | None = None,
               chance: float | None = None) -> Path:
    """Write a PNG: (left) learning curve if given (:func:`plot_learning_curve`), (right) win
    rate per entry with 95% CI bars.

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
        plot_learning_curve(axes[0], learning_curve, chance)
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


def save_learning_curve(path: str | Path, curve: LearningCurve, title: str,
                        chance: float | None = None, window: int = 500) -> Path:
    """Write the learning curve alone (:func:`plot_learning_curve`) as a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    plot_learning_curve(ax, curve, chance, window)
    fig.suptitle(title)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.plots RUN_DIR``: see the module docstring."""
    from .cli import ArgumentParser

    p = ArgumentParser(prog="python -m training.plots", description=__doc__)
    p.add_argument("run_dir", type=Path, help="a training.selfplay run folder (with episodes.csv)")
    p.add_argument("--out", type=Path, default=None,
                   help="the PNG to write (default RUN_DIR/learning_curve.png)")
    p.add_argument("--window", type=int, default=500,
                   help="episodes per smoothing window (default 500, at most a fifth of them)")
    args = p.parse_args(argv)
    if args.window < 1:
        p.error(f"--window must be >= 1, got {args.window}")
    episodes = args.run_dir / "episodes.csv"
    if not episodes.is_file():
        p.error(f"{args.run_dir} holds no episodes.csv: expected a training.selfplay run folder")
    try:
        curve = read_learning_curve(episodes)
    except (ValueError, UnicodeDecodeError) as exc:
        p.error(f"{episodes} is not an episode log of training.selfplay: {exc}")
    if not len(curve):
        p.error(f"{episodes} holds no episodes yet")
    title, chance = str(args.run_dir), None
    try:
        settings = json.loads((args.run_dir / "config.json").read_text())
        players = settings["resolved_config"]["num_players"]
        title = f"{settings['game']}, {players} players ({args.run_dir})"
        chance = seat_parity(settings["game"], settings["resolved_config"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    out = args.out or args.run_dir / "learning_curve.png"
    try:
        save_learning_curve(out, curve, title, chance=chance, window=args.window)
    except OSError as exc:
        p.error(f"cannot write {out}: {exc.strerror or exc}")
    print(f"wrote {out} ({len(curve)} episodes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
