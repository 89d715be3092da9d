"""Self-play training speed (MaskablePPO steps per second) against the number of envs.

    python -m benchmarks.training_speed                          # 4-player Prowl, 20k steps
    python -m benchmarks.training_speed --n-envs 1 2 4 --vec-env subproc dummy \\
        --timesteps 20000 --out speed.json

Each setting is one short ``python -m training.selfplay`` run in its own process (no warm
start, no evaluation, a fresh run folder under a temporary directory, default PPO settings
otherwise) with ``--vec-env`` ``subproc`` (one worker process per env, SB3 ``SubprocVecEnv``)
or ``dummy`` (every env in the trainer's process). The speed is the trainer's own figure:
PPO timesteps (learner decisions) over the wall-clock seconds of ``model.learn`` (rollouts,
opponents' decisions, snapshot hand-over and gradient updates included; start-up and worker
start excluded). The 1-minute load average is recorded before and after each run: on a shared
machine the figures scale with the CPU time left to the run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from typing import Any, Sequence


def run(game: str, config: Sequence[str], n_envs: int, vec_env: str, timesteps: int,
        seed: int = 0) -> dict[str, Any]:
    """One training run; returns its settings, steps/s, seconds and load averages.

    Raises:
        RuntimeError: the run failed or printed no speed (its output is in the message).
    """
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "training.selfplay", "--game", game, "--run-dir", tmp,
               "--timesteps", str(timesteps), "--n-envs", str(n_envs), "--vec-env", vec_env,
               "--imitation-games", "0", "--eval-games", "0", "--no-progress", "--seed",
               str(seed)]
        if config:
            cmd += ["--config", *config]
        load_before = os.getloadavg()[0]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        load_after = os.getloadavg()[0]
    m = re.search(r"trained (\d+) timesteps \((\d+) this run, (\d+) s, (\d+) steps/s\)",
                  proc.stdout)
    if proc.returncode != 0 or not m:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return {"game": game, "config": list(config), "vec_env": vec_env, "n_envs": n_envs,
            "timesteps": int(m.group(1)), "train_seconds": int(m.group(3)),
            "steps_per_second": int(m.group(4)), "wall_seconds": round(wall, 1),
            "load_before": round(load_before, 2), "load_after": round(load_after, 2)}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.training_speed", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="prowl")
    p.add_argument("--config", nargs="*", default=["num_players=4"], metavar="KEY=VALUE")
    p.add_argument("--n-envs", nargs="+", type=int, default=[1, 2, 4])
    p.add_argument("--vec-env", nargs="+", choices=("subproc", "dummy"),
                   default=["subproc", "dummy"])
    p.add_argument("--timesteps", type=int, default=20_000)
    p.add_argument("--out", default=None, help="write the rows as JSON here")
    args = p.parse_args(argv)
    if args.timesteps < 1 or min(args.n_envs) < 1:
        p.error("--timesteps and --n-envs must be >= 1")
    rows = []
    print(f"{os.cpu_count()} CPUs; {args.game} {' '.join(args.config)}, {args.timesteps} steps")
    print(f"{'vec_env':8} {'n_envs':>6} {'steps/s':>8} {'train s':>8} {'load before/after':>18}")
    for vec_env in args.vec_env:
        for n in args.n_envs:
            row = run(args.game, args.config, n, vec_env, args.timesteps)
            rows.append(row)
            print(f"{vec_env:8} {n:>6} {row['steps_per_second']:>8} {row['train_seconds']:>8} "
                  f"{row['load_before']:>9}/{row['load_after']}", flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
