"""TorchRL: every game through TorchRL's ``PettingZooWrapper``, unmodified, with action masks.

The AEC env is wrapped as is (``use_mask=True``: each seat's ``action_mask`` restricts the
random actions, and ``mask`` marks the seat whose decision is due); ``rollout`` plays whole
games with TorchRL's masked random policy and returns them as one ``TensorDict``, the input
of TorchRL's multi-agent losses (MAPPO, IPPO). Needs ``pip install torchrl``. Run from the
repository root::

    python examples/torchrl_rollout.py
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from torchrl.envs.libs.pettingzoo import PettingZooWrapper

import envs

GAMES = ["prowl", "badland_wolves", "clans"]


def main(argv: list[str] | None = None) -> dict[str, dict]:
    """Play one masked random game per game; returns its length and every seat's return."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=GAMES)
    p.add_argument("--max-steps", type=int, default=5000)
    args = p.parse_args(argv)
    out = {}
    for game in args.games:
        env = PettingZooWrapper(envs.make_env(game), use_mask=True, categorical_actions=True,
                                seed=0)
        td = env.rollout(max_steps=args.max_steps, break_when_any_done=True)
        agents = env.group_map  # one group per seat: player_0 ... player_{n-1}
        returns = {a: float(td["next", a, "reward"].sum()) for a in agents}
        done = bool(td["next", "done"][-1].all())
        out[game] = {"steps": int(td.batch_size[0]), "done": done, "returns": returns}
        print(f"{game}: {td.batch_size[0]} steps, game over: {done}, returns {returns}")
    return out


if __name__ == "__main__":
    main()
