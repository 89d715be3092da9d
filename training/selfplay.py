"""Self-play training with MaskablePPO: ``python -m training.selfplay --game GAME``.

One learning seat plays against a pool of opponents: frozen snapshots of itself (taken every
``--snapshot-every`` timesteps, the newest ``--pool-size`` kept) plus the uniform-random and the
game's scripted heuristic agents. Each episode the learner takes the next seat in rotation and
every other seat draws an opponent from the pool (weights ``--opponents``). The learner is
trained on its *own* return (+1 win, −1 loss, 0 no winner by default), never an opponent's.
The learner's env (:class:`LearnerEnv`) is the public single-agent Gymnasium env
(:class:`envs.core.single_agent.SingleAgentEnv`) with its opponents drawn from the pool.

``--n-envs`` envs are stepped together: all in this process sharing one pool (``--vec-env
dummy``, the default), or one worker process each (``--vec-env subproc``, SB3's
``SubprocVecEnv``; every worker holds its own opponents and pool and loads each new snapshot
from ``snapshots/``), which puts both cores of a two-core machine to work.

Outputs, all under ``--run-dir`` (default ``runs/<game>``):

* ``config.json`` — the command's settings; ``tb/`` — TensorBoard logs (``tensorboard --logdir``);
* ``checkpoints/latest.zip`` + ``checkpoints/state.json`` — written every ``--checkpoint-every``
  timesteps and on Ctrl-C; running the same command again resumes from them (``--fresh`` starts
  over); ``snapshots/`` — the frozen pool members (the files of snapshots that have left the
  pool are deleted at each checkpoint, so it holds ``--pool-size`` of them);
* ``episodes.csv`` — every training episode's outcome; ``learning_curve.png`` — the win rate per
  opponent kind over training (:mod:`training.plots`; ``python -m training.plots RUN_DIR``
  redraws it);
* ``final_model.zip``; ``evaluation*.json/csv/png`` — the final evaluation: trained agent vs
  random, trained agent vs heuristic, heuristic vs random (seats rotated, 95% Wilson intervals);
  solo against a Nemesis, the trained agent and the heuristic each alone against it.
  A run whose folder already holds ``evaluation.json`` is refused unless ``--overwrite`` (or
  ``--eval-games 0``), so re-running a finished command never replaces its results silently.

``--advice heuristic`` gives the learner the game's heuristic's recommended moves as extra
inputs (:mod:`agents.advice`): behaviour cloning then fits the heuristic exactly and PPO learns
where to depart from it. The saved model carries the advice kind (its ``advice`` attribute), so
``ppo:PATH`` builds the same advisor when it plays.

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
from agents.advice import ADVICE_KINDS, Advisor, check_advice
from agents.base import Agent, act_with_state
from agents.learned import PolicyAgent
from envs import GAMES, env_module
from envs.core import GameState
from envs.core.single_agent import SingleAgentEnv

from .cli import ArgumentParser

# --------------------------------------------------------------------------------------------
# opponents


class OpponentPool:
    """Frozen snapshots of the learner plus the random and heuristic baselines.

    The pool holds the opponents' *kinds*, not the instances that play: an agent that remembers
    anything within a game (the Clans heuristic infers colours over the game) is one instance
    per seat per env (CONVENTIONS.md, "Agents"), so every seat of every :class:`LearnerEnv` gets
    its own instance from :meth:`make`, with its own memory and generator. Instances of one
    snapshot share its frozen weights.

    Args:
        game, config: the game and its resolved configuration (for building the baselines).
        weights: sampling weights of the kinds ``snapshot``, ``random``, ``heuristic``; a kind
            with no member (no snapshot yet) is skipped.
        max_snapshots: the newest snapshots kept.
        seed: seed of the pool's own generator (which opponent plays each seat).
        advice: the advice kind the learner reads (:mod:`agents.advice`), or None; snapshots of
            the learner then read it too, each instance with an advisor of its own.

    Raises:
        ValueError: unknown kind or advice, or non-positive total weight.
    """

    KINDS = ("snapshot", "random", "heuristic")

    def __init__(self, game: str, config: dict[str, Any], weights: dict[str, float],
                 max_snapshots: int = 5, seed: int = 0, advice: str | None = None) -> None:
        self.check_weights(weights)
        self.advice = check_advice(advice)
        self.game = game
        self.config = dict(config)
        self.weights = {k: float(weights.get(k, 0.0)) for k in self.KINDS}
        self.rng = np.random.default_rng(seed)
        self.baselines: tuple[str, ...] = tuple(
            kind for kind in ("random", "heuristic") if self.weights[kind] > 0)
        if "heuristic" in self.baselines:
            make_agent("heuristic", game, self.config, seed=0)   # a bad config fails here
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
        self.snapshots.append((label, self._snapshot_agent(frozen, label)))
        del self.snapshots[:-self.max_snapshots]

    def set_snapshots(self, paths: Sequence[str | Path]) -> list[str]:
        """Make the snapshots exactly those saved at ``paths`` (``MaskablePPO.save`` files,
        oldest first; a snapshot's label is its file's stem), loading only the new ones and
        keeping the newest ``max_snapshots``. Returns the labels now held.

        How the pools of worker processes follow the trainer's pool (``--vec-env subproc``).

        Raises:
            FileNotFoundError: a path has no saved model.
        """
        from sb3_contrib import MaskablePPO

        held = dict(self.snapshots)
        snapshots = []
        for path in list(paths)[-self.max_snapshots:]:
            path = Path(path)
            label = path.name.removesuffix(".zip")
            if label not in held:
                if not path.is_file() and not Path(f"{path}.zip").is_file():
                    raise FileNotFoundError(f"no saved snapshot at {str(path)!r}")
                policy = MaskablePPO.load(path, device="cpu").policy
                held[label] = self._snapshot_agent(policy, label)
            snapshots.append((label, held[label]))
        self.snapshots = snapshots
        return [label for label, _ in snapshots]

    def _snapshot_agent(self, policy: Any, label: str) -> PolicyAgent:
        """A sampling :class:`PolicyAgent` of a frozen ``policy`` (with the pool's advice)."""
        return PolicyAgent(policy, deterministic=False, name=label, advice=self.advice,
                           game=self.game, config=self.config)

    def labels(self) -> list[str]:
        """The opponents :meth:`make` can build now: the baselines' kinds, the snapshots' labels."""
        return list(self.baselines) + [label for label, _ in self.snapshots]

    def sample(self) -> tuple[str, str]:
        """``(kind, label)`` drawn by the weights among the kinds that have members.

        ``label`` names the opponent for :meth:`make`: the kind itself for ``random`` and
        ``heuristic``, the snapshot's label (drawn uniformly among the kept ones) for
        ``snapshot``.
        """
        kinds = [k for k in self.KINDS if self.weights[k] > 0 and (k != "snapshot" or
                                                                    self.snapshots)]
        if not kinds:
            kinds = ["random"]
        w = np.array([self.weights[k] for k in kinds])
        kind = kinds[int(self.rng.choice(len(kinds), p=w / w.sum()))]
        if kind == "snapshot":
            return kind, self.snapshots[int(self.rng.integers(len(self.snapshots)))][0]
        return kind, kind

    def make(self, label: str, seed: int | None = None) -> Agent:
        """A new instance of opponent ``label`` (a kind or a snapshot label, see
        :meth:`labels`) with its own memory and its own generator seeded by ``seed``.

        Raises:
            KeyError: ``label`` is not in the pool (e.g. a snapshot already dropped).
        """
        if label in ("random", "heuristic"):
            return make_agent(label, self.game, self.config, seed=seed)
        for lab, proto in self.snapshots:
            if lab == label:
                return proto.spawn(seed)
        raise KeyError(f"no opponent {label!r} in the pool; it holds {self.labels()}")


# --------------------------------------------------------------------------------------------
# single-agent view of a game for the learner


class LearnerEnv(SingleAgentEnv):
    """The single-agent env (:class:`envs.core.single_agent.SingleAgentEnv`) with pool opponents.

    Observation: float32 (D,) — the learner seat's ``observation_tensor``; action: Discrete(A);
    ``action_masks()`` → bool (A,) for MaskablePPO. Reward: 0 until the end, then the learner's
    own return. ``terminated`` at the game's end, ``truncated`` when the engine truncates.
    The learner's seat rotates ``first_seat``, ``first_seat + 1``, … over successive episodes.
    Every episode each opponent seat draws an opponent from ``pool`` (in seat order) and plays
    this env's own instance of it (:meth:`opponent_instance`, made by :meth:`OpponentPool.make`),
    so no agent memory is shared between seats or envs. At the end ``info["outcome"]`` sums the
    episode up for the episode log. Illegal learner actions raise (MaskablePPO never takes one).

    Args:
        state_class: the game's state class (must be ``pool.game``'s).
        config: the game's resolved configuration.
        pool: the opponent pool (shared by the envs of one process).
        seed, first_seat: as for :class:`SingleAgentEnv`.

    Raises:
        ValueError: ``state_class`` is not the state class of ``pool.game``.
    """

    def __init__(self, state_class: type[GameState], config: dict[str, Any], pool: OpponentPool,
                 seed: int = 0, first_seat: int = 0) -> None:
        game_class = env_module(pool.game).raw_env.state_class
        if game_class is not state_class:
            raise ValueError(f"state class {state_class.__name__} is not the one of game "
                             f"{pool.game!r} ({game_class.__name__})")
        self.pool = pool
        n = len(state_class.from_config(0, **config).agent_seats)
        super().__init__(pool.game, opponents=None, seat="rotate", first_seat=first_seat % n,
                         seed=seed, **config)
        self.advisor: Advisor | None = None
        if pool.advice is not None:
            self.advisor = Advisor(pool.advice, pool.game, self.config, seed=seed)
            size = self.observation_space.shape[0] + int(self.action_space.n)
            self.observation_space = gym.spaces.Box(0.0, 1.0, (size,), np.float32)

    def _advised(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` followed by the learner's advice now (zeros once the episode is over)."""
        return self.advisor.policy_input({"observation": obs, "action_mask": self._mask},
                                         f"player_{self.seat}")

    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """As :meth:`SingleAgentEnv.reset`; with advice, the advisor is reset for the new game."""
        obs, info = super().reset(seed=seed, options=options)
        if self.advisor is None:
            return obs, info
        self.advisor.reset()
        return self._advised(obs), info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """As :meth:`SingleAgentEnv.step`; with advice, the observation carries it."""
        obs, reward, terminated, truncated, info = super().step(action)
        if self.advisor is None:
            return obs, reward, terminated, truncated, info
        return self._advised(obs), reward, terminated, truncated, info

    def _draw_opponents(self) -> dict[int, tuple[str, str]]:
        """Each opponent seat, in seat order, draws ``(kind, label)`` from the pool."""
        return {p: self.pool.sample() for p in range(self.n) if p != self.seat}

    def _live_labels(self) -> set[str]:
        """The pool's current labels: instances of dropped snapshots are forgotten."""
        return set(self.pool.labels())

    def _make_opponent(self, label: str, seed: int | None) -> Agent:
        return self.pool.make(label, seed=seed)

    def set_snapshots(self, paths: Sequence[str | Path]) -> list[str]:
        """Make the pool's snapshots those saved at ``paths`` (see
        :meth:`OpponentPool.set_snapshots`); how worker processes receive new snapshots."""
        return self.pool.set_snapshots(paths)

    def _end(self, reward: float, terminated: bool, truncated: bool, extra: dict[str, Any]):
        obs, reward, terminated, truncated, info = super()._end(reward, terminated, truncated,
                                                                extra)
        info["outcome"] = {"seat": self.seat, "return": reward, "win": reward > 0,
                           "truncated": truncated,
                           "opponents": "+".join(sorted(k for k, _ in self.opponents.values()))}
        return obs, reward, terminated, truncated, info


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
                sync_snapshots(self.training_env, run_dir, pool)
                state["last_snapshot"] = self.num_timesteps
            if self.num_timesteps - self._last_ckpt >= args.checkpoint_every:
                self._last_ckpt = self.num_timesteps
                save_checkpoint(self.model, run_dir, pool, state)
            return True

        def _on_training_end(self) -> None:
            self._fh.close()

    return SelfPlayCallback()


def save_checkpoint(model: Any, run_dir: Path, pool: OpponentPool, state: dict) -> None:
    """Write ``checkpoints/latest.zip`` and ``checkpoints/state.json`` (atomically replaced),
    then delete the snapshot files that have left the pool (:func:`prune_snapshots`)."""
    ckpt = run_dir / "checkpoints"
    ckpt.mkdir(parents=True, exist_ok=True)
    model.save(ckpt / "latest_tmp")
    (ckpt / "latest_tmp.zip").replace(ckpt / "latest.zip")
    state = {**state, "timesteps": int(model.num_timesteps),
             "snapshots": [label for label, _ in pool.snapshots]}
    (ckpt / "state.json").write_text(json.dumps(state, indent=2))
    prune_snapshots(run_dir, state["snapshots"])


def prune_snapshots(run_dir: Path, keep: Sequence[str]) -> list[Path]:
    """Delete ``run_dir/snapshots/snapshot_*.zip`` files whose label is not in ``keep``.

    Called once the checkpoint naming the pool's snapshots (``keep``) is written, so a resumed
    run still finds every snapshot its checkpoint lists; the folder then holds ``--pool-size``
    snapshots, not one per ``--snapshot-every`` steps. Other files are left alone.
    Returns the deleted paths.
    """
    kept = set(keep)
    gone = [path for path in sorted((run_dir / "snapshots").glob("snapshot_*.zip"))
            if path.name.removesuffix(".zip") not in kept]
    for path in gone:
        path.unlink()
    return gone


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
    p = ArgumentParser(prog="python -m training.selfplay", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="prowl", choices=sorted(GAMES))
    p.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                   help="game keywords, e.g. num_players=4 beginner=true")
    p.add_argument("--nemesis", default=None, choices=("most_holy", "silver_guard"),
                   help="clandestine only: a Nemesis seat (solo play unless num_players is "
                        "given); same as --config nemesis=NAME num_players=1")
    p.add_argument("--difficulty", type=int, default=None,
                   help="the Nemesis's difficulty 1-6 (default 3; with --nemesis)")
    p.add_argument("--timesteps", type=int, default=200_000,
                   help="learner decisions to train on (default 200000)")
    p.add_argument("--run-dir", type=Path, default=None, help="default runs/<game>")
    p.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-envs", type=int, default=8,
                   help="parallel environments (default 8); each one a worker process with "
                        "--vec-env subproc")
    p.add_argument("--vec-env", choices=("dummy", "subproc"), default="dummy",
                   help="dummy (default): every env in this process, sharing one opponent "
                        "pool; subproc: one worker process per env (SB3 SubprocVecEnv), each "
                        "with its own pool that loads every new snapshot from snapshots/")
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
    p.add_argument("--imitation-teacher", default="heuristic",
                   help="agent spec whose moves the warm start fits (default heuristic; e.g. "
                        "heuristic:join_hand=4, a heuristic with changed rule parameters, or "
                        "any spec make_agent knows that acts from the observation); the advice "
                        "(--advice) stays the plain heuristic's")
    p.add_argument("--imitation-target", choices=("action", "tie-set"), default="action",
                   help="what the warm start fits: the heuristic's action (default), or "
                        "tie-set: the log of the total probability of its equally-best moves "
                        "(games whose heuristic has best_moves, e.g. clans, which breaks ties "
                        "between equal moves at random so its action alone cannot be fitted)")
    p.add_argument("--advice", choices=("none",) + ADVICE_KINDS, default="none",
                   help="give the learner the heuristic's recommended moves as extra inputs, "
                        "also added to its action logits (agents/advice.py, "
                        "agents/advised_policy.py; default none)")
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
    p.add_argument("--no-progress", action="store_true",
                   help="hide all progress output: the warm start's, training's and the final "
                        "evaluation's bars and the imitation epochs")
    p.add_argument("--overwrite", action="store_true",
                   help="let a run whose folder already holds a final evaluation "
                        "(evaluation.json) replace it; without it such a run is refused")
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
        if args.nemesis is not None or args.difficulty is not None:
            if args.game != "clandestine" or args.nemesis is None:
                raise ValueError("--nemesis (and --difficulty) are for --game clandestine; "
                                 "--difficulty needs --nemesis")
            for key, value in (("nemesis", args.nemesis),
                               ("difficulty", 3 if args.difficulty is None else args.difficulty)):
                if key in overrides and overrides[key] != value:
                    raise ValueError(f"--{key} and --config {key}= disagree")
                overrides[key] = value
            overrides.setdefault("num_players", 1)
        config = dict(state_class.from_config(0, **overrides).config)   # validated, resolved
        teacher = make_agent(args.imitation_teacher, args.game, config, seed=0)
        if (args.imitation_target == "tie-set" and args.imitation_games > 0
                and not hasattr(teacher, "best_moves")):
            raise ValueError(f"--imitation-target tie-set needs a teacher with best_moves "
                             f"(its equally-best moves); {args.imitation_teacher!r} for "
                             f"{args.game} has none: use --imitation-target action")
        if getattr(teacher, "needs_state", False):
            raise ValueError(f"--imitation-teacher {args.imitation_teacher!r} reads the game "
                             "state (needs_state); a teacher must act from the observation")
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

    advice = advice_of(args)
    run_dir = args.run_dir or Path("runs") / args.game
    if run_dir.exists() and not run_dir.is_dir():
        parser.error(f"--run-dir {run_dir} exists and is not a folder")
    if args.eval_games > 0 and not args.overwrite and (run_dir / "evaluation.json").exists():
        parser.error(f"{run_dir} already holds a final evaluation (evaluation.json) that this "
                     "run would replace: add --overwrite, or --eval-games 0, or choose another "
                     "--run-dir")
    ckpt = run_dir / "checkpoints" / "latest.zip"
    resume = ckpt.exists() and not args.fresh
    state: dict[str, Any] = {}
    if resume:
        state = json.loads((run_dir / "checkpoints" / "state.json").read_text())
        if state.get("game") != args.game or state.get("config") != config:
            parser.error(f"{run_dir} holds a run of {state.get('game')!r} with config "
                         f"{state.get('config')}, not {args.game!r} with {config}: use --fresh "
                         "to start over there, or another --run-dir")
        if state.get("advice") != advice:
            parser.error(f"{run_dir} holds a run with advice {state.get('advice')!r}, not "
                         f"{advice!r} (--advice): use --fresh to start over there, or another "
                         "--run-dir")
        # the warm start is not run again on a resume: a different teacher would be recorded
        # in config.json but never used
        taught = state.get("imitation")
        teacher = None if taught is None else taught.get("teacher", "heuristic")
        if teacher is not None and teacher != args.imitation_teacher:
            parser.error(f"{run_dir} holds a run warm-started from teacher "
                         f"{teacher!r}, not {args.imitation_teacher!r} "
                         "(--imitation-teacher; a resumed run keeps its warm start): use --fresh "
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
                        seed=args.seed, advice=advice)
    n_players = int(config["num_players"])
    vec = make_vec_env(args, state_class, config, weights, pool)
    if resume:
        model = MaskablePPO.load(ckpt, env=vec, device="cpu", tensorboard_log=str(run_dir / "tb"))
        for label in state.get("snapshots", []):
            snap = run_dir / "snapshots" / f"{label}.zip"
            if snap.exists():
                pool.add_snapshot(MaskablePPO.load(snap, device="cpu").policy, label)
        sync_snapshots(vec, run_dir, pool)
        print(f"resuming from {ckpt} at {model.num_timesteps} timesteps "
              f"({len(pool.snapshots)} snapshots in the pool)")
    else:
        if args.fresh and (run_dir / "episodes.csv").exists():
            (run_dir / "episodes.csv").unlink()
        # an advised policy's action head reads the advice directly (agents.advised_policy)
        policy_class: Any = "MlpPolicy"
        if advice is not None:
            from agents.advised_policy import AdvisedActorCriticPolicy
            policy_class = AdvisedActorCriticPolicy
        model = MaskablePPO(policy_class, vec, learning_rate=args.learning_rate,
                            n_steps=args.n_steps, batch_size=args.batch_size,
                            n_epochs=args.n_epochs, gamma=0.99, ent_coef=args.ent_coef,
                            policy_kwargs={"net_arch": net}, seed=args.seed, device="cpu",
                            tensorboard_log=str(run_dir / "tb"), verbose=0)
        model.advice = advice    # saved with the model: ppo:PATH rebuilds the advisor
        state = {"game": args.game, "config": config, "advice": advice, "last_snapshot": 0}
        if args.imitation_games > 0:
            state["imitation"] = warm_start(model, args, state_class, config)
        pool.add_snapshot(model.policy, "snapshot_0")
        model.save(run_dir / "snapshots" / "snapshot_0")
        sync_snapshots(vec, run_dir, pool)
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
            vec.close()
            print(f"\ninterrupted: checkpoint saved at {model.num_timesteps} timesteps; run the "
                  "same command again to resume")
            return 130
        save_checkpoint(model, run_dir, pool, state)
    train_seconds = time.perf_counter() - t0
    vec.close()
    model.save(run_dir / "final_model")
    speed = f", {remaining / train_seconds:.0f} steps/s" if remaining else ""
    print(f"trained {model.num_timesteps} timesteps ({remaining} this run, "
          f"{train_seconds:.0f} s{speed}); model: {run_dir / 'final_model.zip'}")
    if args.eval_games > 0:
        final_evaluation(args.game, config, run_dir, n_players, args.eval_games, args.seed,
                         progress=not args.no_progress)
    return 0


def advice_of(args: argparse.Namespace) -> str | None:
    """The advice kind of ``--advice`` (None for ``none``, or for a namespace made without it,
    as by callers of :func:`worker_env_fns` that predate advice)."""
    advice = getattr(args, "advice", "none")
    return None if advice == "none" else check_advice(advice)


def _worker_env(game: str, config: dict[str, Any], weights: dict[str, float], pool_size: int,
                pool_seed: int, seed: int, first_seat: int, advice: str | None = None
                ) -> LearnerEnv:
    """A :class:`LearnerEnv` with a pool of its own, built inside a worker process (one torch
    thread: the worker only acts with snapshots, on the numpy path)."""
    import torch

    torch.set_num_threads(1)
    pool = OpponentPool(game, config, weights, max_snapshots=pool_size, seed=pool_seed,
                        advice=advice)
    return LearnerEnv(env_module(game).raw_env.state_class, config, pool, seed=seed,
                      first_seat=first_seat)


def masks_from_infos(venv: Any) -> Any:
    """``venv`` (an SB3 VecEnv of :class:`SingleAgentEnv`) wrapped so that MaskablePPO's
    ``env_method("action_masks")`` is answered from the masks the envs already returned in
    ``info["action_mask"]`` (``reset_infos`` for an env that just started a new episode), not
    by asking every worker again: one round trip to the worker processes per step instead of
    two. Any other ``env_method`` call goes through.
    """
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class MasksFromInfos(VecEnvWrapper):
        def __init__(self, venv: Any) -> None:
            super().__init__(venv)
            self._masks: list[np.ndarray] | None = None

        def reset(self) -> Any:
            obs = self.venv.reset()
            self.reset_infos = self.venv.reset_infos
            self._masks = [info["action_mask"].astype(bool) for info in self.reset_infos]
            return obs

        def step_wait(self) -> Any:
            obs, rewards, dones, infos = self.venv.step_wait()
            self.reset_infos = self.venv.reset_infos
            self._masks = [(self.reset_infos[i] if done else info)["action_mask"].astype(bool)
                           for i, (done, info) in enumerate(zip(dones, infos))]
            return obs, rewards, dones, infos

        def env_method(self, method_name: str, *args: Any, indices: Any = None,
                       **kwargs: Any) -> list[Any]:
            if method_name == "action_masks" and not args and not kwargs and self._masks:
                return [self._masks[i] for i in self._get_indices(indices)]
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)

    return MasksFromInfos(venv)


def worker_env_fns(args: argparse.Namespace, config: dict[str, Any],
                   weights: dict[str, float]) -> list[Any]:
    """The ``--n-envs`` picklable env factories of ``--vec-env subproc``: env ``i`` is a
    :class:`LearnerEnv` with a pool of its own, seeded from ``--seed`` and ``i`` (so workers
    draw different opponents), env seed ``100 * --seed + i``, first seat ``i``."""
    from functools import partial

    return [partial(_worker_env, args.game, config, weights, args.pool_size,
                    int(np.random.SeedSequence([args.seed, i]).generate_state(1)[0]),
                    args.seed * 100 + i, i, advice_of(args)) for i in range(args.n_envs)]


def make_vec_env(args: argparse.Namespace, state_class: type[GameState], config: dict[str, Any],
                 weights: dict[str, float], pool: OpponentPool):
    """The ``--n-envs`` learner envs as an SB3 VecEnv.

    ``--vec-env dummy``: a ``DummyVecEnv`` in this process whose envs share ``pool`` (and its
    generator); env ``i`` is built with seed ``100 * --seed + i`` (MaskablePPO then reseeds it
    with ``--seed + i`` at its first reset) and starts the seat rotation at seat ``i``.
    ``--vec-env subproc``: a ``SubprocVecEnv``, one worker process per env
    (:func:`worker_env_fns`), each with a pool of its own that :func:`sync_snapshots` keeps
    equal to ``pool``'s snapshots.
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if args.vec_env == "subproc":
        return masks_from_infos(SubprocVecEnv(worker_env_fns(args, config, weights)))
    return DummyVecEnv([
        (lambda i=i: LearnerEnv(state_class, config, pool, seed=args.seed * 100 + i,
                                first_seat=i)) for i in range(args.n_envs)])


def sync_snapshots(vec: Any, run_dir: Path, pool: OpponentPool) -> None:
    """Send the pool's snapshots (as paths under ``run_dir/snapshots``) to every worker
    process of a ``SubprocVecEnv``, which loads the new ones (``LearnerEnv.set_snapshots``).
    Nothing to do for envs in this process: they share ``pool``."""
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecEnvWrapper

    while isinstance(vec, VecEnvWrapper):
        vec = vec.venv
    if isinstance(vec, SubprocVecEnv):
        paths = [str(run_dir / "snapshots" / f"{label}.zip") for label, _ in pool.snapshots]
        vec.env_method("set_snapshots", paths)


def warm_start(model: Any, args: argparse.Namespace, state_class: type[GameState],
               config: dict[str, Any]) -> dict[str, Any]:
    """Behaviour-clone the teacher (``--imitation-teacher``, default the heuristic) into
    ``model.policy`` (see :mod:`training.imitation`)."""
    from tqdm import tqdm

    from .imitation import collect_demonstrations, pretrain_policy

    t0 = time.perf_counter()
    with tqdm(total=args.imitation_games, desc=f"{args.imitation_teacher} demonstrations",
              unit="game", disable=args.no_progress) as bar:
        demos = collect_demonstrations(args.game, state_class, config, args.imitation_games,
                                       seed=args.seed + 17, progress=bar.update,
                                       tie_sets=args.imitation_target == "tie-set",
                                       advice=advice_of(args),
                                       teacher=args.imitation_teacher)
    stats = pretrain_policy(model.policy, demos, epochs=args.imitation_epochs, seed=args.seed,
                            log=(lambda line: None) if args.no_progress else print,
                            target=args.imitation_target)
    stats.update({"games": args.imitation_games, "decisions": len(demos),
                  "target": args.imitation_target, "teacher": args.imitation_teacher,
                  "seconds": time.perf_counter() - t0})
    print(f"warm start: {len(demos)} {args.imitation_teacher} decisions from "
          f"{args.imitation_games} games, "
          f"imitation accuracy {stats['accuracy']:.3f} ({stats['seconds']:.0f} s)")
    return stats


def final_evaluation(game: str, config: dict[str, Any], run_dir: Path, n_players: int,
                     games: int, seed: int, progress: bool = True) -> list[dict[str, Any]]:
    """Trained vs random, trained vs heuristic, heuristic vs random; tables, files and a chart.
    Solo (``n_players`` 1: one agent seat against Clandestine's Nemesis) the trained agent and
    the heuristic each play alone against the Nemesis (``trained_vs_nemesis``,
    ``heuristic_vs_nemesis``).

    ``progress``: show a progress bar per match-up (``--no-progress`` hides them).
    """
    from tqdm import tqdm

    from .arena import entry_labels, evaluate
    from .evaluate import print_report, write_report
    from .plots import read_learning_curve, save_chart, save_learning_curve, seat_parity

    trained = f"ppo:{run_dir / 'final_model.zip'}"
    if n_players == 1:
        # solo: one agent seat, the rest played by the rules (Clandestine's Nemesis), so there
        # are no random or heuristic opponents: each agent plays alone against the Nemesis
        matchups = [("trained_vs_nemesis", [trained]), ("heuristic_vs_nemesis", ["heuristic"])]
    else:
        matchups = [("trained_vs_random", [trained] + ["random"] * (n_players - 1)),
                    ("trained_vs_heuristic", [trained] + ["heuristic"] * (n_players - 1)),
                    ("heuristic_vs_random", ["heuristic"] + ["random"] * (n_players - 1))]
    rows, summary = [], []
    for name, lineup in matchups:
        labels = entry_labels(lineup)
        if lineup[0] == trained:
            labels[0] = "trained"
        with tqdm(total=games, desc=name.replace("_", " "), unit="game", leave=False,
                  disable=not progress) as bar:
            report = evaluate(game, lineup, games, seed=seed + 7, config=config,
                              progress=bar.update, labels=labels)
        write_report(report, run_dir, name=f"evaluation_{name}")
        first = report.entry_rows()[0]
        rows.append({**first, "matchup": f"{name}: "})
        summary.append({"matchup": name, **first, "summary": report.summary()})
        print_report(report, title=name.replace("_", " "))
    curve = read_learning_curve(run_dir / "episodes.csv")
    chance = seat_parity(game, config)   # none beside a seat the rules play
    png = save_chart(run_dir / "evaluation.png", rows, f"{game}, {n_players} players",
                     learning_curve=curve, chance=chance)
    if len(curve):
        save_learning_curve(run_dir / "learning_curve.png", curve,
                            f"{game}, {n_players} players", chance=chance)
    (run_dir / "evaluation.json").write_text(json.dumps(summary, indent=2))
    print(f"evaluation written to {run_dir}: evaluation.json and {png.name} (all match-ups), "
          "evaluation_<match-up>.json/.csv/_seats.csv/.png (each), learning_curve.png")
    return summary


if __name__ == "__main__":
    sys.exit(main())
