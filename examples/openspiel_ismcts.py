"""OpenSpiel: ISMCTS against MCTS and random bots on every game, with ``evaluate_bots``.

OpenSpiel's plain MCTS searches the true state (hidden cards and future draws included), so it
is a cheating baseline here; ISMCTS searches what its seat knows.

Importing :mod:`envs.openspiel` registers each game as ``cunning_<game>``; OpenSpiel's ISMCTS
samples worlds with the engine's ``resample_from_infostate``. Needs ``pip install -e
".[openspiel]"``. Run from the repository root::

    python examples/openspiel_ismcts.py                   # every game, 3 games each
    python examples/openspiel_ismcts.py --games clans --simulations 20 --episodes 1
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts

from envs import openspiel as cunning_spiel

GAMES = ["prowl", "badland_wolves", "clans"]


def main(argv: list[str] | None = None) -> dict[str, list[float]]:
    """Play ISMCTS (seat 0), MCTS (seat 1) and random bots; returns ISMCTS's returns per game."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=GAMES)
    p.add_argument("--episodes", type=int, default=3)
    p.add_argument("--simulations", type=int, default=50, help="searches per decision")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="game parameter, e.g. players=3 (ints are converted)")
    args = p.parse_args(argv)
    params = {}
    for kv in args.param:
        k, _, v = kv.partition("=")
        params[k] = int(v) if v.lstrip("-").isdigit() else v
    rs = np.random.RandomState(0)
    results = {}
    for game_name in args.games:
        game = cunning_spiel.load_game(game_name, rng_seed=0, **params)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        returns = []
        for _ in range(args.episodes):
            bots = [cunning_spiel.ismcts_bot(game, evaluator, max_simulations=args.simulations,
                                             random_state=rs),
                    mcts.MCTSBot(game, uct_c=2.0, max_simulations=args.simulations,
                                 evaluator=evaluator, random_state=rs)]
            bots += [pyspiel.make_uniform_random_bot(s, s) for s in range(2, game.num_players())]
            returns.append(evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rs)[0])
        results[game_name] = returns
        print(f"{game}: ISMCTS returns {returns}")
    return results


if __name__ == "__main__":
    main()
