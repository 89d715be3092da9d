"""Self-play training with MaskablePPO: ``python -m training.selfplay --game GAME``.

One learning seat plays against a pool of opponents: frozen snapshots of itself (taken every
``--snapshot-every`` timesteps, the newest ``--pool-size`` kept) plus the uniform-random and the
game's scripted heuristic agents. Each episode the learner takes the next seat in rotation and
every other seat draws an opponent from the pool (weights ``--opponents``). The learner is
trained on its *own* return (+1 win, −1 loss, 0 no winner by default), never an opponent's.

Outputs, all under ``--run-dir`` (default ``runs/<game>``):

* ``config.json`` — the command's settings; ``tb/`` — TensorBoard logs (``tensorboard --logdir``);
* ``checkpoints/latest.zip`` + ``checkpoints/state.json`` — written every ``--checkpoint-every``
  timesteps and on Ctrl-C; running the same command again resumes from them (``--fresh`` starts
  over); ``snapshots/`` — the frozen pool members;
* ``episodes.csv`` — every training episode's outcome (the learning curve);
* ``final_model.zip``; ``evaluation*.json/csv/png`` — the final evaluation: trained agent vs
  random, trained agent vs heuristic, heuristic vs random (seats rotated, 95% Wilson intervals).

The defaults are the embedded main job: a short run on 4-player Prowl that trains and evaluates
in about ten minutes on two CPU cores. A longer run: ``--timesteps 2000000 --eval-games 2000``.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

from agents import make_agent
from agents.base import Agent, act_with_state
from agents.learned import PolicyAgent
from envs import GAMES, env_module
from envs.core import GameState

# --------------------------------------------------------------------------------------------
# opponents


class OpponentPool:
    """Frozen snapshots of the learner plus the random and heuristic baselines.

    Args:
        game, config: the game and its resolved configuration (for building the baselines).
        weights: sampling weights of the kinds ``snapshot``, ``random``, ``heuristic``; a kind
            with no member (no snapshot yet) is skipped.
        max_snapshots: the newest snapshots kept.
        seed: seed of the pool's own generator.

    Raises:
        ValueError: unknown kind or non-positive total weight.
    """

    KINDS = ("snapshot", "random", "heuristic")

    def __init__(self, game: str, config: dict[str, Any], weights: dict[str, float],
                 max_snapshots: int = 5, seed: int = 0) -> None:
        self.check_weights(weights)
        self.weights = {k: float(weights.get(k, 0.0)) for k in self.KINDS}
        self.rng = np.random.default_rng(seed)
        self.baselines: dict[str, Agent] = {
            kind: make_agent(kind, game, config, seed=seed + i)
            for i, kind in enumerate(("random", "heuristic")) if self.weights[kind] > 0}
        self.snapshots: list[tuple[str, PolicyAgent]] = []
        self.max_snapshots = max_snapshots

    @classmethod
    def check_weights(cls, weights: dict[str, float]) -> None:
        """Raise ValueError for an unknown kind, a negative weight or a zero total."""
        bad = set(weights) - set(cls.KINDS)
        if bad:
            raise ValueError(f"unknown opponent kinds {sorted(bad)}; use {cls.KINDS}")
        if sum(weights.values()) <= 0 or any(w < 0 for w in weights.values()):
            raise ValueError(f"opponent weights must be >= 0 with a positive sum, got {weights}")

    def add_snapshot(self, policy: Any, label: str) -> None:
        """Freeze a copy of ``policy`` (sampling its actions) and add it; drops the oldest."""
        frozen = copy.deepcopy(policy)
        self.snapshots.append((label, PolicyAgent(frozen, deterministic=False, name=label)))
        del self.snapshots[:-self.max_snapshots]

    def sample(self) -> tuple[str, Agent]:
        """``(kind, agent)`` drawn by the weights among the kinds that have members."""
        kinds = [k for k in self.KINDS if self.weights[k] > 0 and (k != "snapshot" or
                                                                    self.snapshots)]
        if not kinds:
            kinds = ["random"]
        w = np.array([self.weights[k] for k in kinds])
        kind = kinds[int(self.rng.choice(len(kinds), p=w / w.sum()))]
        if kind == "snapshot":
            return kind, self.snapshots[int(self.rng.integers(len(self.snapshots)))][1]
        return kind, self.baselines[kind]


# --------------------------------------------------------------------------------------------
# single-agent view of a game for the learner


class LearnerEnv(gym.Env):
    """Gymnasium env: one learning seat, the other seats played by pool opponents.

    Observation: float32 (D,) — the learner seat's ``observation_tensor``; action: Discrete(A);
    ``action_masks()`` → bool (A,) for MaskablePPO. Reward: 0 until the end, then the learner's
    own return. ``terminated`` at the game's end, ``truncated`` when the engine truncates.
    The learner's seat rotates 0, 1, …, n−1 over successive episodes.
    """

    metadata = {"render_modes": []}

    def __init__(self, state_class: type[GameState], config: dict[str, Any], pool: OpponentPool,
                 seed: int = 0, first_seat: int = 0) -> None:
        super().__init__()
        self.state_class = state_class
        self.config = config
        self.pool = pool
        probe = state_class(seed=0, **config)
        self.n = probe.num_players
        self.observation_space = gym.spaces.Box(0.0, 1.0, (probe.observation_size,), np.float32)
        self.action_space = gym.spaces.Discrete(probe.num_actions)
        self._rng = np.random.default_rng(seed)
        self._next_seat = first_seat % self.n
        self.state: GameState = probe
        self.seat = 0
        self.opponents: dict[int, tuple[str, Agent]] = {}

    def _advance(self) -> None:
        """Let opponents act until the learner must decide or the game is over."""
        s = self.state
        while not s.is_over and s.current_player != self.seat:
            p = s.current_player
            kind, agent = self.opponents[p]
            obs = {"observation": s.observation_tensor(p), "action_mask": s.legal_action_mask()}
            s.apply_action(act_with_state(agent, obs, f"player_{p}", s))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:
            self.seat = self._next_seat
            self._next_seat = (self._next_seat + 1) % self.n
            self.state = self.state_class(seed=int(self._rng.integers(2**62)), **self.config)
            self.opponents = {p: self.pool.sample() for p in range(self.n) if p != self.seat}
            for _, agent in self.opponents.values():
                agent.reset()
            self._advance()
            if not self.state.is_over:
                return self.state.observation_tensor(self.seat), {}

    def action_masks(self) -> np.ndarray:
        """Bool (A,): the learner's legal actions now."""
        return self.state.legal_action_mask().astype(bool)

    def step(self, action: int):
        s = self.state
        s.apply_action(int(action))
        self._advance()
        obs = s.observation_tensor(self.seat)
        if not s.is_over:
            return obs, 0.0, False, False, {}
        ret = float(s.returns()[self.seat]) if s.is_terminal else 0.0
        info = {"outcome": {"seat": self.seat, "return": ret, "win": ret > 0,
                            "truncated": s.is_truncated,
                            "opponents": "+".join(sorted(k for k, _ in self.opponents.values()))}}
        return obs, ret, s.is_terminal, s.is_truncated, info


# --------------------------------------------------------------------------------------------
# callbacks


def _callbacks(run_dir: Path, pool: OpponentPool, args: argparse.Namespace, state: dict):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Episode log (episodes.csv + TensorBoard win rate), snapshots, checkpoints."""

        def _on_training_start(self) -> None:
            path = run_dir / "episodes.csv"
            new = not path.exists()
            self._fh = path.open("a", newline="")
            self._csv = csv.writer(self._fh)
            if new:
                self._csv.writerow(["timestep", "seat", "opponents", "return", "win",
                                    "truncated"])
            self._wins: list[float] = []
            self._last_snap = state.get("last_snapshot", 0)
            self._last_ckpt = self.num_timesteps

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                out = info.get("outcome")
                if out:
                    self._csv.writerow([self.num_timesteps, out["seat"], out["opponents"],
                                        out["return"], int(out["win"]), int(out["truncated"])])
                    self._wins.append(float(out["win"]))
            if len(self._wins) >= 100:
                self.logger.record("selfplay/win_rate", float(np.mean(self._wins)))
                self.logger.record("selfplay/pool_snapshots", len(pool.snapshots))
                self._wins = []
            if self.num_timesteps - self._last_snap >= args.snapshot_every:
                self._last_snap = self.num_timesteps
                label = f"snapshot_{self.num_timesteps}"
                self.model.save(run_dir / "snapshots" / label)
                pool.add_snapshot(self.model.policy, label)
                state["last_snapshot"] = self.num_timesteps
            if self.num_timesteps - self._last_ckpt >= args.checkpoint_every:
                self._last_ckpt = self.num_timesteps
                save_checkpoint(self.model, run_dir, pool, state)
            return True

        def _on_training_end(self) -> None:
            self._fh.close()

    return SelfPlayCallback()


def save_checkpoint(model: Any, run_dir: Path, pool: OpponentPool, state: dict) -> None:
    """Write ``checkpoints/latest.zip`` and ``checkpoints/state.json`` (atomically replaced)."""
    ckpt = run_dir / "checkpoints"
    ckpt.mkdir(parents=True, exist_ok=True)
    model.save(ckpt / "latest_tmp")
    (ckpt / "latest_tmp.zip").replace(ckpt / "latest.zip")
    state = {**state, "timesteps": int(model.num_timesteps),
             "snapshots": [label for label, _ in pool.snapshots]}
    (ckpt / "state.json").write_text(json.dumps(state, indent=2))


# --------------------------------------------------------------------------------------------
# main


def parse_weights(text: str) -> dict[str, float]:
    """``"snapshot=0.5,random=0.25,heuristic=0.25"`` to a dict. Raises ValueError if malformed."""
    out = {}
    for part in text.split(","):
        k, sep, v = part.partition("=")
        try:
            if not sep:
                raise ValueError
            out[k.strip()] = float(v)
        except ValueError:
            raise ValueError(f"--opponents items are KIND=WEIGHT, got {part!r}") from None
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training.selfplay", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="prowl", choices=sorted(GAMES))
    p.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                   help="game keywords, e.g. num_players=4 beginner=true")
    p.add_argument("--timesteps", type=int, default=200_000,
                   help="learner decisions to train on (default 200000)")
    p.add_argument("--run-dir", type=Path, default=None, help="default runs/<game>")
    p.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-envs", type=int, default=8)
    p.add_argument("--n-steps", type=int, default=256, help="rollout steps per env")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--n-epochs", type=int, default=5)
    p.add_argument("--learning-rate", type=float, default=1e-4,
                   help="PPO learning rate (default 1e-4: gentle on the warm-started policy)")
    p.add_argument("--ent-coef", type=float, default=0.0,
                   help="entropy bonus (default 0: a bonus pulls the warm-started policy back "
                        "towards uniform play)")
    p.add_argument("--net", default="256,256", help="hidden layer sizes (default 256,256)")
    p.add_argument("--imitation-games", type=int, default=2000,
                   help="warm start: behaviour-clone the heuristic on this many heuristic-only "
                        "games before PPO (0: start from a uniform policy)")
    p.add_argument("--imitation-epochs", type=int, default=12)
    p.add_argument("--opponents", default="snapshot=0.4,random=0.3,heuristic=0.3",
                   help="pool sampling weights")
    p.add_argument("--pool-size", type=int, default=5)
    p.add_argument("--snapshot-every", type=int, default=20_000)
    p.add_argument("--checkpoint-every", type=int, default=20_000)
    p.add_argument("--eval-games", type=int, default=300,
                   help="games per final evaluation match-up (0 skips it)")
    p.add_argument("--torch-threads", type=int, default=1,
                   help="torch intra-op threads (default 1: small networks gain nothing from "
                        "more, and extra threads contend with the game loop)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def _validated(parser: argparse.ArgumentParser, args: argparse.Namespace
               ) -> tuple[type[GameState], dict[str, Any], list[int], dict[str, float]]:
    """Check every argument before anything is written; ``parser.error`` names the bad one."""
    from .evaluate import parse_config

    for name in ("timesteps", "imitation_games"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0")
    for name in ("n_envs", "n_steps", "batch_size", "n_epochs", "pool_size", "snapshot_every",
                 "checkpoint_every", "torch_threads", "imitation_epochs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.eval_games < 0:
        parser.error("--eval-games must be >= 0")
    if not args.learning_rate > 0:
        parser.error("--learning-rate must be > 0")
    try:
        net = [int(x) for x in args.net.split(",")]
        if not net or min(net) < 1:
            raise ValueError
    except ValueError:
        parser.error(f"--net is a comma-separated list of positive layer sizes, got {args.net!r}")
    try:
        weights = parse_weights(args.opponents)
        OpponentPool.check_weights(weights)
        state_class = env_module(args.game).raw_env.state_class
        overrides = parse_config(args.config)
        config = dict(state_class.from_config(0, **overrides).config)   # validated, resolved
    except ValueError as exc:
        parser.error(str(exc))
    return state_class, config, net, weights


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    state_class, config, net, weights = _validated(parser, args)
    import signal

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    run_dir = args.run_dir or Path("runs") / args.game
    if run_dir.exists() and not run_dir.is_dir():
        parser.error(f"--run-dir {run_dir} exists and is not a folder")
    ckpt = run_dir / "checkpoints" / "latest.zip"
    resume = ckpt.exists() and not args.fresh
    state: dict[str, Any] = {}
    if resume:
        state = json.loads((run_dir / "checkpoints" / "state.json").read_text())
        if state.get("game") != args.game or state.get("config") != config:
            parser.error(f"{run_dir} holds a run of {state.get('game')!r} with config "
                         f"{state.get('config')}, not {args.game!r} with {config}: use --fresh "
                         "to start over there, or another --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "snapshots").mkdir(exist_ok=True)
    settings = {**{k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
                "resolved_config": config}
    (run_dir / "config.json").write_text(json.dumps(settings, indent=2))
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    def _terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt   # SIGTERM saves a checkpoint as Ctrl-C does

    signal.signal(signal.SIGTERM, _terminate)

    pool = OpponentPool(args.game, config, weights, max_snapshots=args.pool_size,
                        seed=args.seed)
    n_players = int(config["num_players"])
    vec = DummyVecEnv([
        (lambda i=i: LearnerEnv(state_class, config, pool, seed=args.seed * 100 + i,
                                first_seat=i)) for i in range(args.n_envs)])
    if resume:
        model = MaskablePPO.load(ckpt, env=vec, device="cpu", tensorboard_log=str(run_dir / "tb"))
        for label in state.get("snapshots", []):
            snap = run_dir / "snapshots" / f"{label}.zip"
            if snap.exists():
                pool.add_snapshot(MaskablePPO.load(snap, device="cpu").policy, label)
        print(f"resuming from {ckpt} at {model.num_timesteps} timesteps "
              f"({len(pool.snapshots)} snapshots in the pool)")
    else:
        if args.fresh and (run_dir / "episodes.csv").exists():
            (run_dir / "episodes.csv").unlink()
        model = MaskablePPO("MlpPolicy", vec, learning_rate=args.learning_rate,
                            n_steps=args.n_steps, batch_size=args.batch_size,
                            n_epochs=args.n_epochs, gamma=0.99, ent_coef=args.ent_coef,
                            policy_kwargs={"net_arch": net}, seed=args.seed, device="cpu",
                            tensorboard_log=str(run_dir / "tb"), verbose=0)
        state = {"game": args.game, "config": config, "last_snapshot": 0}
        if args.imitation_games > 0:
            state["imitation"] = warm_start(model, args, state_class, config)
        pool.add_snapshot(model.policy, "snapshot_0")
        model.save(run_dir / "snapshots" / "snapshot_0")
        save_checkpoint(model, run_dir, pool, state)

    remaining = max(0, args.timesteps - model.num_timesteps)
    t0 = time.perf_counter()
    if remaining:
        callback = _callbacks(run_dir, pool, args, state)
        try:
            model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=False,
                        progress_bar=not args.no_progress, tb_log_name="maskable_ppo")
        except KeyboardInterrupt:
            save_checkpoint(model, run_dir, pool, state)
            print(f"\ninterrupted: checkpoint saved at {model.num_timesteps} timesteps; run the "
                  "same command again to resume")
            return 130
        save_checkpoint(model, run_dir, pool, state)
    train_seconds = time.perf_counter() - t0
    model.save(run_dir / "final_model")
    print(f"trained {model.num_timesteps} timesteps ({remaining} this run, "
          f"{train_seconds:.0f} s); model: {run_dir / 'final_model.zip'}")
    if args.eval_games > 0:
        final_evaluation(args.game, config, run_dir, n_players, args.eval_games, args.seed)
    return 0


def warm_start(model: Any, args: argparse.Namespace, state_class: type[GameState],
               config: dict[str, Any]) -> dict[str, Any]:
    """Behaviour-clone the heuristic into ``model.policy`` (see :mod:`training.imitation`)."""
    from tqdm import tqdm

    from .imitation import collect_demonstrations, pretrain_policy

    t0 = time.perf_counter()
    with tqdm(total=args.imitation_games, desc="heuristic demonstrations", unit="game",
              disable=args.no_progress) as bar:
        demos = collect_demonstrations(args.game, state_class, config, args.imitation_games,
                                       seed=args.seed + 17, progress=bar.update)
    stats = pretrain_policy(model.policy, demos, epochs=args.imitation_epochs, seed=args.seed)
    stats.update({"games": args.imitation_games, "decisions": len(demos),
                  "seconds": time.perf_counter() - t0})
    print(f"warm start: {len(demos)} heuristic decisions from {args.imitation_games} games, "
          f"imitation accuracy {stats['accuracy']:.3f} ({stats['seconds']:.0f} s)")
    return stats


def final_evaluation(game: str, config: dict[str, Any], run_dir: Path, n_players: int,
                     games: int, seed: int) -> list[dict[str, Any]]:
    """Trained vs random, trained vs heuristic, heuristic vs random; tables, files and a chart."""
    from tqdm import tqdm

    from .arena import entry_labels, evaluate
    from .evaluate import print_report, write_report
    from .plots import read_learning_curve, save_chart

    trained = f"ppo:{run_dir / 'final_model.zip'}"
    matchups = [("trained_vs_random", [trained] + ["random"] * (n_players - 1)),
                ("trained_vs_heuristic", [trained] + ["heuristic"] * (n_players - 1)),
                ("heuristic_vs_random", ["heuristic"] + ["random"] * (n_players - 1))]
    rows, summary = [], []
    for name, lineup in matchups:
        labels = entry_labels(lineup)
        if lineup[0] == trained:
            labels[0] = "trained"
        with tqdm(total=games, desc=name.replace("_", " "), unit="game", leave=False) as bar:
            report = evaluate(game, lineup, games, seed=seed + 7, config=config,
                              progress=bar.update, labels=labels)
        write_report(report, run_dir, name=f"evaluation_{name}")
        first = report.entry_rows()[0]
        rows.append({**first, "matchup": f"{name}: "})
        summary.append({"matchup": name, **first, "summary": report.summary()})
        print_report(report, title=name.replace("_", " "))
    curve = read_learning_curve(run_dir / "episodes.csv")
    png = save_chart(run_dir / "evaluation.png", rows, f"{game}, {n_players} players",
                     learning_curve=curve, chance=1 / n_players)
    (run_dir / "evaluation.json").write_text(json.dumps(summary, indent=2))
    print(f"evaluation written to {run_dir}: evaluation.json and {png.name} (all match-ups), "
          "evaluation_<match-up>.json/.csv/_seats.csv/.png (each)")
    return summary


if __name__ == "__main__":
    sys.exit(main())
