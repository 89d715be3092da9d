"""Stable-Baselines3: sb3-contrib's MaskablePPO on the single-agent env of every game.

The learner sits at a rotating seat of ``cunning/<Game>-v0`` (Gymnasium), the other seats are
played by the scripted heuristic; MaskablePPO reads the legal actions from the env's
``action_masks()``. Run from the repository root::

    python examples/sb3_single_agent.py                  # every game, 20,000 steps each
    python examples/sb3_single_agent.py --games prowl --steps 2048
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import gymnasium
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy

import envs
from envs.core.single_agent import gym_id

GAMES = ["prowl", "badland_wolves", "clans"]


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Train and evaluate on each game; returns the mean evaluation return per game."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=GAMES, choices=sorted(envs.GAMES))
    p.add_argument("--steps", type=int, default=20_000, help="training steps per game")
    p.add_argument("--eval-episodes", type=int, default=20)
    p.add_argument("--opponents", default="heuristic", help="agent spec of the other seats")
    args = p.parse_args(argv)
    results = {}
    for game in args.games:
        env = gymnasium.make(gym_id(game), opponents=args.opponents, seed=0)
        n_steps = min(2048, max(64, args.steps))
        model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=64, seed=0, verbose=0)
        model.learn(total_timesteps=args.steps)
        mean, std = evaluate_policy(model, env, n_eval_episodes=args.eval_episodes,
                                    use_masking=True)
        results[game] = float(mean)
        print(f"{game}: mean return {mean:+.3f} ± {std:.3f} over {args.eval_episodes} games "
              f"after {args.steps} steps")
    return results


if __name__ == "__main__":
    main()
