"""Cost of the engine operations that search and belief tracking are built on.

    python -m benchmarks.engine_ops                      # every game, default player counts
    python -m benchmarks.engine_ops --games prowl --positions 300

For each game, random positions are reached by seeded uniform-random play (the position index
``k`` stops a game after a random number of actions). At each position it times, in microseconds
per call (median over positions, each call repeated ``--repeats`` times):

* ``apply``: ``apply_action(a)`` of a random legal action, timed alone on fresh clones of the
  position made before the clock starts (:func:`time_apply`; it was ``clone()`` +
  ``apply_action(a)`` minus a separate ``clone()`` timing, and in Badland Wolves, where the
  apply is a few microseconds against a clone's 30-70, the noise of the two clone timings made
  the difference negative at most positions, floored at 0: the median printed 0.0);
* ``clone``: ``clone()``;
* ``resample``: ``resample_from_infostate(seat, rng)`` for the seat to act;
* ``observe``: ``observation_tensor(seat)``;
* ``mask``: ``legal_action_mask()``.

and prints them with the implied calls per second. Nothing here is a test: no time is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Callable

import numpy as np

DEFAULT_PLAYERS = {"prowl": 4, "badland_wolves": 4, "clans": 3, "clandestine": 3}


def random_positions(game: str, num_players: int, count: int, seed: int = 0) -> list[Any]:
    """``count`` states of ``game`` reached by seeded random play (not over)."""
    from envs import env_module

    state_class = env_module(game).raw_env.state_class
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = state_class.from_config(int(rng.integers(1 << 30)), num_players=num_players)
        stop = int(rng.integers(1, 400))
        for _ in range(stop):
            if s.is_over:
                break
            s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
        if not s.is_over:
            out.append(s)
    return out


def _time(fn: Callable[[], Any], repeats: int) -> float:
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - t0) / repeats * 1e6


def time_apply(state: Any, action: int, repeats: int) -> float:
    """Microseconds per ``apply_action(action)`` on a fresh clone of ``state``, the mean over
    ``repeats`` clones made before the clock starts (so the clone's cost is not in it; the
    clone's cached mask is recomputed by the apply's legality check, as after any clone).

    Raises:
        ValueError: ``repeats`` below 1.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats!r}")
    clones = [state.clone() for _ in range(repeats)]
    t0 = time.perf_counter()
    for c in clones:
        c.apply_action(action)
    return (time.perf_counter() - t0) / repeats * 1e6


def measure(game: str, num_players: int, positions: int, repeats: int) -> dict[str, float]:
    """Median microseconds per call of each operation over ``positions`` random positions."""
    rng = np.random.default_rng(1)
    states = random_positions(game, num_players, positions)
    times: dict[str, list[float]] = {k: [] for k in ("clone", "apply", "resample", "observe",
                                                     "mask")}
    for s in states:
        seat = s.current_player
        a = int(rng.choice(np.flatnonzero(s.legal_action_mask())))
        times["clone"].append(_time(s.clone, repeats))
        times["apply"].append(time_apply(s, a, repeats))
        times["resample"].append(_time(lambda: s.resample_from_infostate(seat, rng), repeats))
        times["observe"].append(_time(lambda: s.observation_tensor(seat), repeats))
        times["mask"].append(_time(s.legal_action_mask, repeats))
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=list(DEFAULT_PLAYERS),
                   help="games to measure (default: every game)")
    p.add_argument("--positions", type=int, default=200, help="random positions per game")
    p.add_argument("--repeats", type=int, default=5, help="calls per position and operation")
    args = p.parse_args(argv)
    from envs import GAMES

    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        p.error(f"unknown game(s) {unknown}; known: {sorted(GAMES)}")
    if args.positions < 1 or args.repeats < 1:
        p.error("--positions and --repeats must be positive")
    print("| game | players | op | µs/call | calls/s |")
    print("|---|---|---|---|---|")
    for g in args.games:
        n = DEFAULT_PLAYERS.get(g, 4)
        for op, us in measure(g, n, args.positions, args.repeats).items():
            print(f"| {g} | {n} | {op} | {us:.1f} | {1e6 / us if us else float('inf'):,.0f} |")


if __name__ == "__main__":
    main()
