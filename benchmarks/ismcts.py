"""Thinking time of the ISMCTS agent (agents/ismcts.py), per move and per game.

    python -m benchmarks.ismcts                               # ismcts:200, every game, 4 games each
    python -m benchmarks.ismcts --spec ismcts:50 --games prowl --num-games 8
    python -m benchmarks.ismcts --opponents heuristic

For each game, ``--num-games`` full games are played with the ISMCTS spec in one seat and
``--opponents`` in the others (seats rotated, the arena's :func:`training.arena.play_game`). Every
ISMCTS decision is timed in CPU seconds of this process (``time.process_time``: the cost on one
core, not inflated by other processes sharing the machine) and in wall-clock seconds. Printed per
game:

* ``s/move``: mean CPU seconds per searched decision (decisions with one legal action are
  answered without search and left out; ``forced`` counts them);
* ``s/game``: mean CPU seconds the ISMCTS seat thinks over one whole game (all its decisions);
* ``wall s/game``: the same in wall-clock seconds;
* ``moves/game``: searched decisions of the ISMCTS seat per game; ``length``: actions per game.

Nothing here is a test: no time is asserted.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

DEFAULT_PLAYERS = {"prowl": 4, "badland_wolves": 4, "clans": 3}


class TimedAgent:
    """Wraps an agent and records the CPU and wall seconds of each of its ``act`` calls."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.needs_state = getattr(agent, "needs_state", False)
        self.calls: list[tuple[float, float, bool]] = []   # (cpu s, wall s, searched)

    def reset(self) -> None:
        self.agent.reset()

    def act(self, observation: dict[str, np.ndarray], agent: str, **kw: Any) -> int:
        c0, w0 = time.process_time(), time.perf_counter()
        a = self.agent.act(observation, agent, **kw)
        searched = int(np.count_nonzero(observation["action_mask"])) > 1
        self.calls.append((time.process_time() - c0, time.perf_counter() - w0, searched))
        return a


def measure(game: str, num_players: int, spec: str, opponents: str, num_games: int,
            seed: int = 0) -> dict[str, float]:
    """Play ``num_games`` games (``spec`` in one rotating seat) and summarise its thinking time."""
    from agents import make_agent
    from envs import make_raw_env
    from training.arena import play_game

    env = make_raw_env(game, num_players=num_players)
    config = dict(env.game.config)
    timed = TimedAgent(make_agent(spec, game, config, seed=seed))
    others = [make_agent(opponents, game, config, seed=seed + 1 + i)
              for i in range(num_players - 1)]
    rng = np.random.default_rng(seed)
    per_game_cpu, per_game_wall, moves, lengths, wins = [], [], [], [], 0
    for g in range(num_games):
        seat = g % num_players
        seated = others[:seat] + [timed] + others[seat:]
        start = len(timed.calls)
        rets, length, _, _ = play_game(env, seated, int(rng.integers(2**62)))
        calls = timed.calls[start:]
        per_game_cpu.append(sum(c for c, _, _ in calls))
        per_game_wall.append(sum(w for _, w, _ in calls))
        moves.append(sum(s for _, _, s in calls))
        lengths.append(length)
        wins += rets[seat] > 0
    searched = [c for c, _, s in timed.calls if s]
    return {"s_per_move": float(np.mean(searched)) if searched else 0.0,
            "s_per_game": float(np.mean(per_game_cpu)),
            "wall_s_per_game": float(np.mean(per_game_wall)),
            "moves_per_game": float(np.mean(moves)),
            "forced_per_game": sum(not s for _, _, s in timed.calls) / num_games,
            "length": float(np.mean(lengths)), "wins": wins, "games": num_games}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=list(DEFAULT_PLAYERS),
                   help="games to measure (default: every game)")
    p.add_argument("--spec", default="ismcts:200", help="ISMCTS agent spec (default ismcts:200)")
    p.add_argument("--opponents", default="random", help="spec of the other seats (default random)")
    p.add_argument("--num-games", type=int, default=4, help="games per game (default 4)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    from envs import GAMES

    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        p.error(f"unknown game(s) {unknown}; known: {sorted(GAMES)}")
    if args.num_games < 1:
        p.error("--num-games must be positive")
    print(f"{args.spec} vs {args.opponents}, CPU seconds of one core")
    print("| game | players | s/move | s/game | wall s/game | moves/game | forced/game | length "
          "| ISMCTS wins |")
    print("|---|---|---|---|---|---|---|---|---|")
    for g in args.games:
        n = DEFAULT_PLAYERS.get(g, 4)
        r = measure(g, n, args.spec, args.opponents, args.num_games, args.seed)
        print(f"| {g} | {n} | {r['s_per_move']:.3f} | {r['s_per_game']:.1f} | "
              f"{r['wall_s_per_game']:.1f} | {r['moves_per_game']:.1f} | "
              f"{r['forced_per_game']:.1f} | {r['length']:.0f} | {r['wins']}/{r['games']} |",
              flush=True)


if __name__ == "__main__":
    main()
