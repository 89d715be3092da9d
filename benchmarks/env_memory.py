"""Memory kept by environments that were created and dropped, as evaluation and vector envs do.

    python -m benchmarks.env_memory                      # every game, 1,000 envs each
    python -m benchmarks.env_memory --games prowl --envs 2000

For each game, ``--envs`` wrapped environments (``envs.make_env``) are created one after the
other; each is reset, observed, asked for its spaces and stepped a few random legal actions, then
dropped. After ``gc.collect()`` the script reports how many of them are still alive (weak
references to the raw envs), the growth of the resident set size over the loop (RSS, MiB,
measured untraced; it includes allocator slack, so values under a MiB are noise) and, in a second
traced pass, the Python allocations still held (tracemalloc: after minus before the loop, KiB,
the weak references themselves left out). An env that is freed keeps nothing: the alive count
is 0 and the kept allocations stay near zero whatever ``--envs`` is.

Each game runs in its own subprocess so that one game's leftovers do not count for the next.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tracemalloc
import weakref
from typing import Any, Sequence


def _rss_mib() -> float:
    """Resident set size of this process in MiB (Linux ``/proc``; 0.0 where unavailable)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
    except OSError:
        return 0.0
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def churn(game: str, count: int, steps: int = 5, seed: int = 0) -> dict[str, Any]:
    """Create, use and drop ``count`` envs of ``game``; measure what stays behind.

    Returns ``{"game", "envs", "alive", "kept_kib", "rss_growth_mib"}``: envs still alive after
    ``gc.collect()``, Python allocations still held (KiB) and RSS growth (MiB).
    """
    import numpy as np

    from envs import make_env

    rng = np.random.default_rng(seed)

    def use_and_drop(i: int) -> weakref.ref:
        env = make_env(game)
        env.reset(seed=i)
        for agent in env.possible_agents:
            env.observation_space(agent)
            env.action_space(agent)
            env.observe(agent)
        for _ in range(steps):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return weakref.ref(env.unwrapped)

    use_and_drop(0)            # first use: imports and per-configuration tables are built here
    gc.collect()
    # pass 1, untraced: resident set growth
    rss0 = _rss_mib()
    refs = [use_and_drop(i) for i in range(count)]
    gc.collect()
    rss_growth = _rss_mib() - rss0
    alive = sum(r() is not None for r in refs)
    del refs
    gc.collect()
    # pass 2, traced: Python allocations still held; the weak references themselves (allocated
    # in this file) are left out
    own = [tracemalloc.Filter(False, __file__)]
    tracemalloc.start()
    before = tracemalloc.take_snapshot().filter_traces(own)
    refs = [use_and_drop(i) for i in range(count)]
    gc.collect()
    after = tracemalloc.take_snapshot().filter_traces(own)
    tracemalloc.stop()
    kept = sum(s.size_diff for s in after.compare_to(before, "filename"))
    alive = max(alive, sum(r() is not None for r in refs))
    return {"game": game, "envs": count, "alive": alive, "kept_kib": round(kept / 1024, 1),
            "rss_growth_mib": round(rss_growth, 1)}


def main(argv: Sequence[str] | None = None) -> int:
    from envs import GAMES

    p = argparse.ArgumentParser(prog="python -m benchmarks.env_memory", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=None, choices=sorted(GAMES),
                   help="games to measure (default: all)")
    p.add_argument("--envs", type=int, default=1000, help="envs created and dropped per game")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.envs < 1:
        p.error("--envs must be >= 1")
    games = args.games or sorted(GAMES)
    if args.worker:
        print(json.dumps(churn(games[0], args.envs)))
        return 0
    print(f"{'game':<16}{'envs':>6}{'alive':>7}{'kept KiB':>11}{'RSS growth MiB':>16}")
    for game in games:
        out = subprocess.run([sys.executable, "-m", "benchmarks.env_memory", "--worker",
                              "--games", game, "--envs", str(args.envs)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{r['game']:<16}{r['envs']:>6}{r['alive']:>7}{r['kept_kib']:>11.1f}"
              f"{r['rss_growth_mib']:>16.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
