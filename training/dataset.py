"""Deduction dataset generator: every decision of many games, every seat's view, the truth.

Usage::

    python -m training.dataset --game prowl --num-players 4 --agents heuristic random \\
        --games 1000 --out data/prowl4 [--seed 0] [--shard-size 4096] \\
        [--config '{"beginner": true}']

``--agents`` gives one spec per seat (``random``, ``heuristic``, ``ppo:PATH``;
:func:`agents.make_agent`), or fewer, repeated cyclically over the seats; a seat the rules play
(Clandestine's Nemesis) takes none. Game ``g`` has engine
seed ``seed + g``; the agent at seat ``s`` in game ``g`` is built with seed
``(seed + g) * 64 + s``; so a run is reproducible from its command line.

Output: a directory holding ``index.json`` and shards ``shard-00000.npz``, ... (compressed numpy,
``numpy.savez_compressed``), each with at most ``shard-size`` decisions, written as they fill
(memory stays at one shard whatever the number of games). Schema of a shard, ``K`` decisions,
``n`` seats, ``D`` = observation size, ``A`` = number of actions, ``C`` = columns of the game's
belief target (:mod:`agents.belief`):

==============  ==================  ============================================================
array           dtype, shape        meaning
==============  ==================  ============================================================
``obs``         float32 (K, n, D)   every seat's ``observation_tensor`` when the decision is due
``mask``        int8 (K, A)         legal action mask of the acting seat
``action``      int32 (K,)          action taken
``actor``       int8 (K,)           acting seat (``current_player``)
``truth``       float32 (K, n, C)   hidden truth as arrays (``BeliefAdapter.truth``: clan one-hot,
                                    colour one-hot, hand counts; a zero row = undefined yet)
``game``        int32 (K,)          game index ``g`` in this run (engine seed ``seed + g``)
``step``        int32 (K,)          decision index within the game (0-based)
==============  ==================  ============================================================

``index.json``: ``{"format": 1, "game", "config" (resolved), "agents", "seed", "games",
"decisions", "shard_size", "shards": [{"file", "decisions"}], "game_lengths": [N_g],
"game_returns": [[...]], "truncated": [bool], "schema": {...}}``.

:func:`load_dataset` reads it back (all shards concatenated, or chosen fields);
:func:`iter_shards` streams shard by shard.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from .cli import ArgumentParser, creatable_problem, set_num_players, spec_count_problem

FORMAT = 1
FIELDS = ("obs", "mask", "action", "actor", "truth", "game", "step")
SCHEMA = {
    "obs": ["float32", "(K, n, D)", "every seat's observation when the decision is due"],
    "mask": ["int8", "(K, A)", "legal action mask of the acting seat"],
    "action": ["int32", "(K,)", "action taken"],
    "actor": ["int8", "(K,)", "acting seat"],
    "truth": ["float32", "(K, n, C)", "hidden truth as arrays (agents.belief adapters)"],
    "game": ["int32", "(K,)", "game index in this run (engine seed = seed + game)"],
    "step": ["int32", "(K,)", "decision index within the game"],
}


class _ShardWriter:
    """Buffers decisions and writes a compressed shard each ``shard_size`` decisions."""

    def __init__(self, out: Path, shard_size: int, n: int, D: int, A: int, C: int) -> None:
        self.out, self.K = out, shard_size
        self.buf = {"obs": np.zeros((shard_size, n, D), np.float32),
                    "mask": np.zeros((shard_size, A), np.int8),
                    "action": np.zeros(shard_size, np.int32),
                    "actor": np.zeros(shard_size, np.int8),
                    "truth": np.zeros((shard_size, n, C), np.float32),
                    "game": np.zeros(shard_size, np.int32),
                    "step": np.zeros(shard_size, np.int32)}
        self.fill = 0
        self.shards: list[dict[str, Any]] = []

    def add(self, obs, mask, action, actor, truth, game, step) -> None:
        i = self.fill
        b = self.buf
        b["obs"][i] = obs
        b["mask"][i] = mask
        b["action"][i] = action
        b["actor"][i] = actor
        b["truth"][i] = truth
        b["game"][i] = game
        b["step"][i] = step
        self.fill += 1
        if self.fill == self.K:
            self.flush()

    def flush(self) -> None:
        if self.fill == 0:
            return
        name = f"shard-{len(self.shards):05d}.npz"
        np.savez_compressed(self.out / name, **{k: v[:self.fill] for k, v in self.buf.items()})
        self.shards.append({"file": name, "decisions": self.fill})
        self.fill = 0


def generate(game: str, config: dict[str, Any], agent_specs: Sequence[str], games: int,
             out: str | Path, seed: int = 0, shard_size: int = 4096,
             max_decisions: int = 100_000) -> dict[str, Any]:
    """Play ``games`` games and write the dataset to directory ``out`` (module doc).

    Returns:
        the index dict (also written to ``out/index.json``).
    Raises:
        ValueError: no agent spec, more specs than seats, ``games`` or ``shard_size`` < 1, or
            ``out`` already holds an index (never overwritten).
    """
    from agents import act_with_state, make_agent
    from agents.belief import adapter_for, new_game

    if games < 1 or shard_size < 1:
        raise ValueError(f"games and shard_size must be positive, got {games}, {shard_size}")
    if not agent_specs:
        raise ValueError("give at least one agent spec")
    out = Path(out)
    if (out / "index.json").exists():
        raise ValueError(f"{out} already holds a dataset (index.json); choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    adapter = adapter_for(game)
    probe = new_game(game, seed, **config)
    n = probe.num_players
    problem = spec_count_problem(len(agent_specs), probe)
    if problem:
        raise ValueError(problem)
    # one spec per seat that agents play (a Clandestine Nemesis, seated last, is played by
    # the rules); every seat's observation is stored
    specs = [agent_specs[s % len(agent_specs)] for s in range(len(probe.agent_seats))]
    C = adapter.truth(probe).shape[1]
    writer = _ShardWriter(out, shard_size, n, probe.observation_size, probe.num_actions, C)
    lengths, rets, truncs = [], [], []
    for g in range(games):
        state = new_game(game, seed + g, **config)
        agents = [make_agent(specs[s], game, state.config, seed=(seed + g) * 64 + s)
                  for s in range(len(specs))]
        for ag in agents:
            ag.reset()
        t = 0
        while not state.is_over and t < max_decisions:
            actor = state.current_player
            obs = np.stack([state.observation_tensor(s) for s in range(n)])
            mask = state.legal_action_mask()
            # agents that read the live game (heuristic:belief, ismcts:N) are given it
            a = int(act_with_state(agents[actor], {"observation": obs[actor],
                                                   "action_mask": mask},
                                   f"player_{actor}", state))
            writer.add(obs, mask, a, actor, adapter.truth(state), g, t)
            state.apply_action(a)
            t += 1
        lengths.append(t)
        rets.append([float(r) for r in state.returns()])
        truncs.append(bool(not state.is_over or state.is_truncated))
    writer.flush()
    index = {"format": FORMAT, "game": game, "config": probe.config, "agents": specs,
             "seed": seed, "games": games, "decisions": int(sum(lengths)),
             "shard_size": shard_size, "shards": writer.shards, "game_lengths": lengths,
             "game_returns": rets, "truncated": truncs, "schema": SCHEMA,
             "truth_columns": adapter.categories(probe), "truth_kind": adapter.kind}
    (out / "index.json").write_text(json.dumps(index, indent=1))
    return index


def read_index(path: str | Path) -> dict[str, Any]:
    """The ``index.json`` of dataset directory ``path``.

    Raises:
        FileNotFoundError: no index there; ValueError: an unsupported format, or an index that
            is not JSON or lacks one of the keys the readers use.
    """
    p = Path(path) / "index.json"
    if not p.is_file():
        raise FileNotFoundError(f"no dataset index at {p}")
    try:
        index = json.loads(p.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p} is not a dataset index: not JSON ({exc.msg})") from None
    if not isinstance(index, dict):
        raise ValueError(f"{p} is not a dataset index: not a JSON object")
    if index.get("format") != FORMAT:
        raise ValueError(f"dataset format {index.get('format')!r} is not {FORMAT}")
    missing = [k for k in ("game", "config", "games", "decisions", "shards", "agents")
               if k not in index]
    if missing:
        raise ValueError(f"{p} is not a dataset index: no {', '.join(missing)}")
    return index


def iter_shards(path: str | Path, fields: Sequence[str] = FIELDS,
                obs_columns: np.ndarray | None = None) -> Iterator[dict[str, np.ndarray]]:
    """Stream the dataset shard by shard: dicts of the requested ``fields`` (schema above).
    With ``obs_columns`` (int ``(D',)``) each shard's ``obs`` keeps only those entries of every
    seat's observation (float32 ``(K, n, D')``), so a reader holds the selected width only.

    Raises:
        ValueError: an unknown field name, no fields, or one name given as a string (it was
            read letter by letter: "unknown dataset field(s) ['o', 'b', 's']"); an
            ``obs_columns`` entry outside the observation.
    """
    _check_fields(fields)
    yield from _shards(path, read_index(path), fields, obs_columns)


def _check_fields(fields: Sequence[str]) -> None:
    """Refuse a field list :func:`iter_shards` cannot read (its Raises)."""
    if isinstance(fields, str):
        raise ValueError(f"fields is a sequence of field names, got the string {fields!r}; "
                         f"give ({fields!r},)")
    if not list(fields):
        raise ValueError(f"no dataset fields requested; fields are {list(FIELDS)}")
    bad = [f for f in fields if f not in FIELDS]
    if bad:
        raise ValueError(f"unknown dataset field(s) {bad}; fields are {list(FIELDS)}")


def _shards(path: str | Path, index: dict[str, Any], fields: Sequence[str],
            obs_columns: np.ndarray | None) -> Iterator[dict[str, np.ndarray]]:
    """The shards listed in ``index`` (already read), as :func:`iter_shards` yields them."""
    for sh in index["shards"]:
        with np.load(Path(path) / sh["file"]) as z:
            out = {f: z[f] for f in fields}
        if obs_columns is not None and "obs" in out:
            size = out["obs"].shape[2]
            if len(obs_columns) and (int(np.max(obs_columns)) >= size
                                     or int(np.min(obs_columns)) < 0):
                raise ValueError(f"input columns outside the {size}-entry observation")
            out["obs"] = np.ascontiguousarray(out["obs"][:, :, obs_columns])
        yield out


def load_dataset(path: str | Path, fields: Sequence[str] = FIELDS,
                 obs_columns: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The whole dataset (requested ``fields`` of every shard, concatenated; ``obs`` restricted
    to ``obs_columns`` shard by shard when given, :func:`iter_shards`).

    Each field's array is allocated once at its full length (the index's ``decisions``) and
    filled shard by shard, so the peak memory is the result plus one shard (not twice the
    result, as concatenating the list of shards needed).

    Raises:
        ValueError: as :func:`iter_shards`, no decision at all, or the shards hold another
            number of decisions than the index says (a damaged dataset).
    """
    _check_fields(fields)
    index = read_index(path)
    total = int(sum(int(sh["decisions"]) for sh in index["shards"]))
    out: dict[str, np.ndarray] = {}
    at = 0
    for part in _shards(path, index, fields, obs_columns):
        k = len(part[fields[0]])
        if at + k > total:
            raise ValueError(f"the shards of {path} hold more decisions than its index's "
                             f"{total}")
        for f in fields:
            if f not in out:
                out[f] = np.empty((total, *part[f].shape[1:]), dtype=part[f].dtype)
            out[f][at:at + k] = part[f]
        at += k
    if at != total:
        raise ValueError(f"the shards of {path} hold {at} decisions, its index says {total}")
    if not out:
        raise ValueError(f"{path} holds no decisions")
    return out


def parse_config_items(items: Sequence[str]) -> dict[str, Any]:
    """``--config`` of ``training.dataset`` / ``training.probe`` to a dict.

    Either ``KEY=VALUE`` items (read as :func:`training.evaluate.parse_config` reads them) or a
    single JSON object (``'{"beginner": true}'``).

    Raises:
        ValueError: an item that is neither, naming the expected form.
    """
    from .evaluate import parse_config

    if len(items) == 1 and items[0].lstrip().startswith("{"):
        try:
            config = json.loads(items[0])
        except json.JSONDecodeError as exc:
            raise ValueError(f"--config {items[0]!r} is not a JSON object ({exc.msg}); give "
                             "KEY=VALUE items or one JSON object") from None
        if not isinstance(config, dict):
            raise ValueError(f"--config {items[0]!r} is not a JSON object")
        return config
    return parse_config(items)


def check_cli_args(ap: argparse.ArgumentParser, a: argparse.Namespace) -> dict[str, Any]:
    """Check the arguments ``training.dataset`` and ``training.probe`` share; the game config.

    Every mistake ends in ``ap.error`` (one line, exit 2): ``--games``/``--shard-size`` below 1,
    a negative ``--seed``, a bad ``--config``, ``--num-players`` and ``--config num_players``
    that disagree, an unknown agent spec, more specs than seats, or
    a config the game refuses (its ``ConfigError`` message). Agents are built once to check
    their specs (``ppo:`` files are read), then dropped.
    """
    from agents import make_agent
    from agents.belief import new_game

    for name in ("games", "shard_size"):
        value = getattr(a, name, None)
        if value is not None and value < 1:
            ap.error(f"--{name.replace('_', '-')} must be a positive integer, got {value}")
    if a.seed < 0:
        ap.error(f"--seed must be a non-negative integer, got {a.seed}")
    try:
        config = parse_config_items(a.config)
    except ValueError as exc:
        ap.error(str(exc))
    set_num_players(ap, config, a.num_players)
    try:
        state = new_game(a.game, a.seed, **config)
    except (ValueError, TypeError) as exc:
        ap.error(str(exc))
    problem = spec_count_problem(len(a.agents), state)
    if problem:
        ap.error(problem)
    for spec in a.agents:
        try:
            make_agent(spec, a.game, state.config, seed=0)
        except (ValueError, OSError) as exc:
            ap.error(f"--agents: {exc}")
    return config


def main(argv: Sequence[str] | None = None) -> int:
    from agents.belief import ADAPTERS

    ap = ArgumentParser(prog="python -m training.dataset", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--agents", nargs="+", default=["heuristic"])
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--num-players", type=int, default=None)
    ap.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                    help="extra game keywords: KEY=VALUE items (or one JSON object)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shard-size", type=int, default=4096)
    a = ap.parse_args(argv)
    out = Path(a.out)
    if out.exists() and not out.is_dir():
        ap.error(f"--out {out} exists and is not a directory")
    if (out / "index.json").exists():
        ap.error(f"--out {out} already holds a dataset (index.json); choose another --out")
    if not out.exists():
        problem = creatable_problem("--out", out, folder_word="directory")
        if problem:
            ap.error(problem)
    config = check_cli_args(ap, a)
    t0 = time.perf_counter()
    try:
        index = generate(a.game, config, a.agents, a.games, a.out, a.seed, a.shard_size)
    except (ValueError, OSError) as exc:
        ap.error(str(exc))
    dt = time.perf_counter() - t0
    size = sum((Path(a.out) / s["file"]).stat().st_size for s in index["shards"])
    print(f"{index['decisions']} decisions of {a.games} {a.game} games in {dt:.1f} s "
          f"({index['decisions'] / dt:.0f}/s), {len(index['shards'])} shards, "
          f"{size / 1e6:.1f} MB -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
