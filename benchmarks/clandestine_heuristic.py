"""Clandestine heuristic vs uniform random: win rate (Wilson 95% interval) and decisions/s.

One :class:`agents.clandestine_heuristic.ClandestineHeuristic` against ``N - 1``
:class:`agents.base.RandomAgent` s on :class:`envs.clandestine.engine.ClandestineState`
(default configuration), the heuristic's seat rotated game by game (seat ``g % N``). A win is a
positive return (the winner, ties broken by the rulebook's tie-break). Decisions/s counts only
the heuristic's own ``act`` calls (wall-clock time inside ``act``).

    python -m benchmarks.clandestine_heuristic --players 2 3 4 5 --games 200
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from agents.base import RandomAgent
from agents.clandestine_heuristic import ClandestineHeuristic
from envs.clandestine.engine import ClandestineState
from training.arena import wilson_interval


def run(num_players: int, games: int, seed0: int = 10000) -> dict[str, float]:
    """Play ``games`` games; returns win rate, its Wilson interval, decisions/s, decisions/game."""
    wins, think, decisions = 0, 0.0, 0
    for g in range(games):
        seat = g % num_players
        st = ClandestineState(seed=seed0 + g, num_players=num_players)
        agents = [RandomAgent(seed=7 * g + i) for i in range(num_players)]
        agents[seat] = ClandestineHeuristic(st.config, seed=g)
        while not st.is_terminal:
            p = st.current_player
            obs = {"observation": st.observation_tensor(p), "action_mask": st.legal_action_mask()}
            if p == seat:
                t = time.perf_counter()
                a = agents[p].act(obs, f"player_{p}")
                think += time.perf_counter() - t
                decisions += 1
            else:
                a = agents[p].act(obs, f"player_{p}")
            st.apply_action(a)
        wins += bool(st.returns()[seat] > 0)
    lo, hi = wilson_interval(wins, games)
    return {"players": num_players, "games": games, "win_rate": wins / games, "lo": lo, "hi": hi,
            "decisions_per_s": decisions / think, "decisions_per_game": decisions / games,
            "think_s_per_game": think / games}


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--players`` (2..5, several allowed), ``--games`` per player count."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=10000)
    args = ap.parse_args(argv)
    for n in args.players:
        r = run(n, args.games, args.seed)
        print(f"{n}p: heuristic wins {r['win_rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] over "
              f"{r['games']} games (random: {1 / n:.3f}); {r['decisions_per_s']:.0f} decisions/s, "
              f"{r['decisions_per_game']:.0f} decisions and {r['think_s_per_game'] * 1000:.1f} ms "
              f"of thinking per game", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
