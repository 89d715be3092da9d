"""Tianshou: every game through Tianshou's ``PettingZooEnv``, unmodified.

Tianshou's wrapper turns the AEC env into one env whose observation is ``{"agent_id", "obs",
"mask"}`` (the acting seat, its observation, its legal actions) and whose reward is every
seat's, the input of Tianshou's multi-agent policy manager. This script plays masked random
games through it and checks the rewards against the engine's returns. Needs ``pip install
tianshou``. Run from the repository root::

    python examples/tianshou_play.py
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np
from tianshou.env import PettingZooEnv

import envs

GAMES = ["prowl", "badland_wolves", "clans"]


def main(argv: list[str] | None = None) -> dict[str, list[dict]]:
    """Play ``--episodes`` masked random games per game; returns each game's length, the
    rewards Tianshou gives and the engine's returns."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=GAMES)
    p.add_argument("--episodes", type=int, default=2)
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    out: dict[str, list[dict]] = {}
    for game in args.games:
        env = PettingZooEnv(envs.make_env(game))
        out[game] = []
        for episode in range(args.episodes):
            obs, _ = env.reset(seed=episode)
            steps, done = 0, False
            while not done:
                action = int(rng.choice(np.flatnonzero(obs["mask"])))
                obs, rewards, terminated, truncated, _ = env.step(action)
                steps += 1
                done = terminated or truncated
            returns = env.env.unwrapped.game.returns().tolist()
            out[game].append({"steps": steps, "rewards": [float(r) for r in rewards],
                              "returns": returns})
            print(f"{game}: {steps} steps, Tianshou rewards {list(rewards)}, engine returns "
                  f"{returns}")
    return out


if __name__ == "__main__":
    main()
