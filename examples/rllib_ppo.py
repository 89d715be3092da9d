"""RLlib: multi-agent PPO with action masking on every game (one shared policy for all seats).

RLlib's ``PettingZooEnv`` runs the AEC env turn by turn; its action-masking module
(``ActionMaskingTorchRLModule``) wants each observation as ``{"observations": ...,
"action_mask": float ...}``, so :class:`RLlibObservationKeys` renames the env's
``"observation"`` key and gives the mask as float32. RLlib's environment check steps an
unmasked action, which the games refuse, so it is turned off (``disable_env_checking``).
Needs ``pip install -e ".[rllib]"``. Run from the repository root::

    python examples/rllib_ppo.py                          # every game, 5 iterations each
    python examples/rllib_ppo.py --games clans --iterations 1 --batch 256

To scale out, start a Ray cluster (``ray start --head`` on one machine, ``ray start
--address=HEAD:6379`` on the others, each with this package installed), run the script on the
head node with ``--address auto`` and raise ``--env-runners`` (sampling processes) and
``--batch``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

import envs

GAMES = ["prowl", "badland_wolves", "clans"]


class RLlibObservationKeys(BaseWrapper):
    """PettingZoo AEC wrapper: observations as ``{"observations": float32 (D,),
    "action_mask": float32 (A,)}``, the keys and dtype RLlib's action-masking module reads."""

    def __init__(self, env) -> None:
        super().__init__(env)
        self.observation_spaces = {}
        for agent in self.env.possible_agents:
            inner = self.env.observation_space(agent)
            n = inner["action_mask"].shape[0]
            self.observation_spaces[agent] = spaces.Dict({
                "observations": inner["observation"],
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)})

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {"observations": obs["observation"],
                "action_mask": obs["action_mask"].astype(np.float32)}


def make_rllib_env(env_config: dict):
    """RLlib env creator: ``PettingZooEnv`` around the renamed-keys AEC env of
    ``env_config["game"]`` (other keys are the game's keywords)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    config = {k: v for k, v in env_config.items() if k != "game"}
    return PettingZooEnv(RLlibObservationKeys(envs.make_env(env_config["game"], **config)))


def build_ppo(game: str, batch: int, env_runners: int, game_config: dict | None = None):
    """An RLlib PPO algorithm for ``game``: one shared masked policy plays every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    register_env(f"cunning_{game}", make_rllib_env)
    config = (
        PPOConfig()
        .environment(f"cunning_{game}", env_config={"game": game, **(game_config or {})},
                     disable_env_checking=True)
        .env_runners(num_env_runners=env_runners)
        .training(train_batch_size_per_learner=batch, minibatch_size=min(128, batch),
                  num_epochs=2)
        .multi_agent(policies={"shared"},
                     policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"fcnet_hiddens": [64, 64]})}))
    )
    return config.build_algo()


def main(argv: list[str] | None = None) -> dict[str, dict]:
    """Train each game for ``--iterations``; returns per game the seconds per iteration and the
    environment steps sampled."""
    import ray

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=GAMES)
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--batch", type=int, default=2000, help="environment steps per iteration")
    p.add_argument("--env-runners", type=int, default=0,
                   help="sampling processes (0: sample in the driver)")
    p.add_argument("--address", default=None, help="Ray cluster address ('auto' on a cluster)")
    args = p.parse_args(argv)
    ray.init(address=args.address, include_dashboard=False, ignore_reinit_error=True,
             log_to_driver=False)
    out = {}
    try:
        for game in args.games:
            algo = build_ppo(game, args.batch, args.env_runners)
            times, steps = [], 0
            for _ in range(args.iterations):
                t = time.perf_counter()
                result = algo.train()
                times.append(time.perf_counter() - t)
                steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            algo.stop()
            out[game] = {"seconds_per_iteration": float(np.mean(times)), "env_steps": steps}
            print(f"{game}: {args.iterations} PPO iteration(s), {steps} env steps, "
                  f"{np.mean(times):.1f} s per iteration")
    finally:
        ray.shutdown()
    return out


if __name__ == "__main__":
    main()
