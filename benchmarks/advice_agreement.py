"""How often an advised policy plays its advice (agents/advice.py), and how it does.

    python -m benchmarks.advice_agreement --game clans --spec ppo:clans --opponents heuristic
    python -m benchmarks.advice_agreement --game badland_wolves --spec ppo:badland_wolves --games 30

Plays ``--games`` games of the advised policy ``--spec`` in one seat and ``--opponents`` in the
others (seats rotated, :func:`training.arena.evaluate`, ``--seed``) and counts, over the
policy's decisions, those where its move is among the advised moves (the heuristic's
equally-best moves or its one move), and those with one legal move (``forced``). Printed as a
markdown table with the policy's win rate and 95% Wilson interval. An advised policy that
agrees at every decision plays as the heuristic does (up to its choice among tied moves).

Raises SystemExit (argparse usage error, status 2) for a spec that is not an advised policy,
``--games`` or ``--num-players`` under 1, an unknown game or agent spec, a missing policy file, or a policy whose
observation or action size differs from the game's.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np


class AgreementAgent:
    """Wraps an advised :class:`agents.learned.PolicyAgent` and counts, per decision, whether
    its move is in its advisor's advice (``Advisor.last``)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.decisions = self.agreed = self.forced = 0
        self.set_sizes: list[int] = []

    def reset(self) -> None:
        """Reset the policy (and its advisor) for a new game."""
        self.agent.reset()

    def act(self, observation: dict[str, np.ndarray], agent: str) -> int:
        """The policy's move; the advice it read is compared with it."""
        action = self.agent.act(observation, agent)
        advice = self.agent.advisor.last
        self.decisions += 1
        self.forced += int(np.count_nonzero(observation["action_mask"]) == 1)
        self.agreed += int(advice[action] > 0.5)
        self.set_sizes.append(int(np.count_nonzero(advice)))
        return action


def main(argv: Sequence[str] | None = None) -> int:
    from agents import make_agent
    from envs import make_raw_env
    from training.arena import evaluate

    p = argparse.ArgumentParser(prog="python -m benchmarks.advice_agreement",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True)
    p.add_argument("--spec", required=True, help="an advised policy: ppo:GAME or ppo:PATH")
    p.add_argument("--opponents", default="heuristic", help="agent spec of the other seats")
    p.add_argument("--num-players", type=int, default=None,
                   help="default: 4 for Prowl and Badland Wolves, 3 otherwise")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.games < 1:
        p.error(f"--games must be >= 1, got {args.games}")
    if args.num_players is not None and args.num_players < 1:
        p.error(f"--num-players must be >= 1, got {args.num_players}")
    n = args.num_players or (4 if args.game in ("prowl", "badland_wolves") else 3)
    try:
        config = dict(make_raw_env(args.game, num_players=n).game.config)
        policy = make_agent(args.spec, args.game, config, seed=args.seed * 1000)
        others = [make_agent(args.opponents, args.game, config, seed=args.seed * 1000 + i)
                  for i in range(1, n)]
    except (ValueError, FileNotFoundError) as exc:    # bad game, spec or policy file
        p.error(str(exc))
    if getattr(policy, "advisor", None) is None:
        p.error(f"{args.spec} is not an advised policy (it reads no advice)")
    wrapped = AgreementAgent(policy)
    lineup = [args.spec] + [args.opponents] * (n - 1)
    report = evaluate(args.game, lineup, args.games, seed=args.seed, config=config,
                      agents=[wrapped] + others)
    row = report.entry_rows()[0]
    sizes = np.asarray(wrapped.set_sizes)
    print("| policy | games | decisions | forced | on the advice | win rate [95% CI] |")
    print("|---|---|---|---|---|---|")
    print(f"| {args.spec} | {args.games} | {wrapped.decisions} | {wrapped.forced} | "
          f"{wrapped.agreed} ({wrapped.agreed / max(1, wrapped.decisions):.3f}) | "
          f"{row['win_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] |")
    print(f"advised moves per decision: mean {sizes.mean():.2f}, one at "
          f"{int((sizes == 1).sum())} decisions, {sizes.max()} at most")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
