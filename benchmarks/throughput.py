"""Throughput of random legal play through the PettingZoo AEC API, beside PettingZoo's own games.

    python -m benchmarks.throughput                       # every Cunning game + the anchors
    python -m benchmarks.throughput --games prowl --seconds 20 --repeats 5

Every turn reads the observation and the action mask with ``env.last()`` and steps a uniformly
random legal action, as an RL loop does. The same loop times PettingZoo's ``connect_four_v3`` and
``texas_holdem_v4`` (the anchors) in the same run, and the ratios are printed. Each measurement
runs in its own subprocess (so peak memory is that game's alone), the targets are interleaved
over ``--repeats`` rounds and the median is reported.

Columns: steps/s (agent actions per second), games/s, peak RSS of the worker process (MiB,
imports included) and the peak of Python allocations while playing 20 games (KiB, tracemalloc).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

ANCHORS = ("connect_four_v3", "texas_holdem_v4")


def make(target: str, num_players: int | None):
    """A wrapped AEC env for a Cunning game name or a PettingZoo classic anchor."""
    if target in ANCHORS:
        import importlib

        return importlib.import_module(f"pettingzoo.classic.{target}").env()
    from envs import make_env

    return make_env(target, **({"num_players": num_players} if num_players else {}))


def play(env: Any, rng: Any, seconds: float | None = None, games: int | None = None
         ) -> tuple[int, int, float]:
    """Random legal play; stops after ``seconds`` or ``games``. Returns (steps, games, secs)."""
    import numpy as np

    steps = done = 0
    t0 = time.perf_counter()
    while True:
        env.reset(seed=int(rng.integers(1 << 30)))
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        done += 1
        elapsed = time.perf_counter() - t0
        if (seconds is not None and elapsed >= seconds) or (games is not None and done >= games):
            return steps, done, elapsed


def worker(target: str, seconds: float, num_players: int | None) -> dict[str, Any]:
    """Measure one target in this process (called in a subprocess by :func:`main`)."""
    import resource
    import tracemalloc

    import numpy as np

    warnings.filterwarnings("ignore")
    env = make(target, num_players)
    rng = np.random.default_rng(0)
    play(env, rng, games=5)                      # warm-up
    steps, games, secs = play(env, rng, seconds=seconds)
    tracemalloc.start()
    play(env, rng, games=20)
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"target": target, "steps_per_s": steps / secs, "games_per_s": games / secs,
            "steps_per_game": steps / games, "peak_rss_mib": rss_kib / 1024,
            "py_alloc_peak_kib": py_peak / 1024}


def main(argv: Sequence[str] | None = None) -> int:
    from envs import GAMES

    p = argparse.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=sorted(GAMES), choices=sorted(GAMES))
    p.add_argument("--num-players", type=int, default=None,
                   help="player count for the Cunning games (default: each game's default)")
    p.add_argument("--seconds", type=float, default=10.0, help="timed play per measurement")
    p.add_argument("--repeats", type=int, default=3, help="interleaved rounds (median kept)")
    p.add_argument("--out", type=Path, default=None, help="also write the results as JSON")
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.seconds, args.num_players)))
        return 0
    if args.seconds <= 0 or args.repeats < 1:
        p.error("--seconds must be > 0 and --repeats >= 1")
    if args.out is not None and args.out.is_dir():
        p.error(f"--out {args.out} is a folder: give a file name")

    targets = list(args.games) + list(ANCHORS)
    runs: dict[str, list[dict[str, Any]]] = {t: [] for t in targets}
    for r in range(args.repeats):
        for t in targets:
            cmd = [sys.executable, "-m", "benchmarks.throughput", "--worker", t,
                   "--seconds", str(args.seconds)]
            if args.num_players and t not in ANCHORS:
                cmd += ["--num-players", str(args.num_players)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                last = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
                hint = (" (PettingZoo's classic games come with the test extra: "
                        "pip install -c constraints.txt -e \".[test]\")"
                        if "ModuleNotFoundError" in last else "")
                p.exit(1, f"measuring {t} failed: {last}{hint}\n")
            runs[t].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(f"round {r + 1}/{args.repeats} {t}: {runs[t][-1]['steps_per_s']:.0f} steps/s",
                  file=sys.stderr)
    rows = []
    for t in targets:
        med = {k: statistics.median(x[k] for x in runs[t]) for k in runs[t][0] if k != "target"}
        rows.append({"target": t, **med})
    anchor = {a: next(r for r in rows if r["target"] == a)["steps_per_s"] for a in ANCHORS}
    for row in rows:
        for a in ANCHORS:
            row[f"ratio_vs_{a}"] = row["steps_per_s"] / anchor[a]

    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"random legal play through the AEC API (median of {args.repeats} × "
                        f"{args.seconds:g} s)")
    for col in ("env", "steps/s", "games/s", "steps/game", "peak RSS MiB", "py peak KiB",
                "× connect_four", "× texas_holdem"):
        table.add_column(col, justify="right" if col != "env" else "left")
    for r in rows:
        table.add_row(r["target"], f"{r['steps_per_s']:,.0f}", f"{r['games_per_s']:,.1f}",
                      f"{r['steps_per_game']:.1f}", f"{r['peak_rss_mib']:.0f}",
                      f"{r['py_alloc_peak_kib']:.0f}", f"{r['ratio_vs_connect_four_v3']:.2f}",
                      f"{r['ratio_vs_texas_holdem_v4']:.2f}")
    Console(width=120).print(table)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"seconds": args.seconds, "repeats": args.repeats,
                                        "rows": rows, "runs": runs}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
