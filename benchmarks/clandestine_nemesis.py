"""Win rates of an agent playing solo Clandestine against each Nemesis (rulebook "Solo Play").

    python -m benchmarks.clandestine_nemesis --agent random --games 100
    python -m benchmarks.clandestine_nemesis --agent heuristic --games 30 --difficulties 1 3 6

One human seat (``--agent``: any ``agents.make_agent`` spec, e.g. ``random``, ``heuristic``,
``ppo:runs/x/final_model.zip``) against the Most Holy and the Silver Guard at each difficulty,
through ``training.arena.evaluate``; a win is a return > 0 (ties go to the Nemesis). Prints one
JSON line per configuration with the win rate and its 95% Wilson interval.
"""

from __future__ import annotations

import json
import math


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of ``wins`` / ``games`` (games >= 1)."""
    p = wins / games
    d = 1 + z * z / games
    c = (p + z * z / (2 * games)) / d
    h = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / d
    return max(0.0, c - h), min(1.0, c + h)


def main(argv=None) -> int:
    from agents import make_agent
    from envs import make_raw_env
    from training.arena import evaluate
    from training.cli import ArgumentParser

    p = ArgumentParser(prog="python -m benchmarks.clandestine_nemesis",
                       description=__doc__.splitlines()[0])
    p.add_argument("--agent", default="random")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--difficulties", type=int, nargs="*", default=[1, 3, 6])
    p.add_argument("--nemeses", nargs="*", default=["most_holy", "silver_guard"])
    args = p.parse_args(argv)
    # every mistake is found before the first game (a bad difficulty after the others' games)
    if args.games < 1:
        p.error(f"--games must be at least 1, got {args.games}")
    for option, key, values in (("--nemeses", "nemesis", args.nemeses),
                                ("--difficulties", "difficulty", args.difficulties)):
        for value in values:
            try:
                make_raw_env("clandestine", num_players=1, **{"nemesis": "most_holy",
                                                              "difficulty": 1, key: value})
            except ValueError as exc:
                p.error(f"{option}: {exc}")
    try:
        config = dict(make_raw_env("clandestine", num_players=1, nemesis="most_holy",
                                   difficulty=1).game.config)
        make_agent(args.agent, "clandestine", config, seed=0)
    except (ValueError, OSError) as exc:
        p.error(f"--agent: {exc}")
    for nem in args.nemeses:
        for d in args.difficulties:
            rep = evaluate("clandestine", [args.agent], args.games, seed=d,
                           config={"nemesis": nem, "difficulty": d, "num_players": 1})
            wins = sum(r.returns[0] > 0 for r in rep.results)
            lo, hi = wilson(wins, args.games)
            print(json.dumps({"agent": args.agent, "nemesis": nem, "difficulty": d,
                              "games": args.games, "wins": int(wins),
                              "win_rate": wins / args.games, "ci95": [round(lo, 3), round(hi, 3)],
                              "seconds": round(rep.seconds, 2)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
