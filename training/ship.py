"""Package a trained policy as a shipped agent: ``python -m training.ship RUN_DIR --game GAME``.

Copies ``RUN_DIR/final_model.zip`` (a MaskablePPO model written by :mod:`training.selfplay`) to
``agents/checkpoints/<GAME>.zip``, where ``make_agent("ppo:<GAME>", ...)`` finds it. The copy
keeps the policy's weights and settings exactly and replaces the optimizer's running averages
(two more arrays the size of the network, needed only to continue training) by a fresh
optimizer's empty state, so the file is about a third of the size and still loads with
``MaskablePPO.load``. Refuses a model whose observation or action size does not match the game
at the player count of its shipped policy (:data:`agents.SHIPPED_POLICIES`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .cli import ArgumentParser


def slim_copy(src: Path, dst: Path) -> Path:
    """Save the MaskablePPO model at ``src`` to ``dst`` with a fresh (empty) optimizer state.

    Returns the written path (``dst`` with ``.zip``). Raises FileNotFoundError for a missing
    ``src``.
    """
    from sb3_contrib import MaskablePPO

    if not Path(src).is_file():
        raise FileNotFoundError(f"no saved model at {str(src)!r}")
    model = MaskablePPO.load(str(src), device="cpu")
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1),
                                              **policy.optimizer_kwargs)
    dst = Path(dst).with_suffix(".zip")
    dst.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(dst))
    return dst


def main(argv: Sequence[str] | None = None) -> int:
    from agents import CHECKPOINT_DIR, SHIPPED_POLICIES, make_agent
    from envs import make_raw_env

    parser = ArgumentParser(prog="python -m training.ship", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path, help="a training run folder (holds final_model.zip)")
    parser.add_argument("--game", required=True, choices=sorted(SHIPPED_POLICIES))
    args = parser.parse_args(argv)
    src = args.run_dir / "final_model.zip"
    if not src.is_file():
        parser.error(f"{args.run_dir} holds no final_model.zip")
    config = dict(make_raw_env(args.game, num_players=SHIPPED_POLICIES[args.game]).game.config)
    try:
        make_agent(f"ppo:{src}", args.game, config)      # refuses a model of another shape
    except ValueError as exc:
        parser.error(str(exc))
    dst = slim_copy(src, CHECKPOINT_DIR / f"{args.game}.zip")
    make_agent(f"ppo:{args.game}", args.game, config)      # the shipped spec loads
    print(f"wrote {dst} ({dst.stat().st_size / 1e6:.2f} MB, from {src})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
