"""Train a belief probe: a small MLP from one seat's observation to the other seats' hidden roles.

Usage::

    python -m training.probe --game prowl --games 400 --out probes/prowl4.pt \\
        [--num-players 4] [--agents heuristic] [--epochs 8] [--hidden 128] [--seed 0] \\
        [--data DIR]

Data: ``--games`` games generated with :func:`training.dataset.generate` (engine seeds
``seed + 10_000 + g``, away from the benchmark's seeds ``seed + g``) into a temporary directory,
or an existing dataset directory ``--data``. Every decision gives one example per seat ``s``:
input ``obs[s]`` (float32 ``(D,)``), target the truth rows of relative seats ``1..n-1`` (absolute
``(s + r) % n``), each normalised to a distribution (one-hot role, or the hand's composition for
Badland Wolves); undefined rows (no clan yet, empty hand) are masked out.

Network: ``D -> hidden -> hidden -> (n - 1) * C`` with ReLU; loss the mean soft-target cross-entropy
of each row's softmax; Adam (lr 1e-3), batch 512. The last 10% of games are held out, the
held-out loss printed per epoch, and the weights of the epoch with the lowest held-out loss kept.
The ``.pt`` file holds ``{"meta": {...}, "state_dict": ...}``
(``meta``: game, config, obs_size, num_players, columns, hidden, kind, train/val sizes and loss);
:class:`agents.belief.ProbeTracker` loads it with :func:`load_probe`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .cli import ArgumentParser


def build_net(obs_size: int, out_size: int, hidden: int = 128):
    """The probe MLP (torch ``nn.Sequential``)."""
    import torch.nn as nn

    return nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, out_size))


def examples(data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-seat examples from a loaded dataset: ``x`` float32 ``(E, D)``, ``y`` float32
    ``(E, n-1, C)`` (normalised rows), ``ok`` bool ``(E, n-1)`` (defined rows) and the game
    index of each example, int ``(E,)``."""
    obs, truth, game = data["obs"], data["truth"], data["game"]
    K, n, _ = obs.shape
    xs, ys, oks, gs = [], [], [], []
    for s in range(n):
        rows = [(s + r) % n for r in range(1, n)]
        y = truth[:, rows, :].astype(np.float32)
        tot = y.sum(axis=2, keepdims=True)
        ok = tot[..., 0] > 0
        y = np.divide(y, tot, out=np.zeros_like(y), where=tot > 0)
        xs.append(obs[:, s, :])
        ys.append(y)
        oks.append(ok)
        gs.append(game)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(oks), np.concatenate(gs)


def _loss(net, x, y, ok):
    import torch

    n1, C = y.shape[1], y.shape[2]
    logp = torch.log_softmax(net(x).reshape(-1, n1, C), dim=-1)
    ce = -(y * logp).sum(dim=-1)
    return (ce * ok).sum() / ok.sum().clamp(min=1)


def train(data: dict[str, np.ndarray], index: dict[str, Any], epochs: int = 8,
          hidden: int = 128, seed: int = 0, log=print) -> tuple[Any, dict[str, Any]]:
    """Train the probe on a loaded dataset; returns ``(net, meta)``."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)   # small network: one thread is as fast and shares the machine
    x, y, ok, g = examples(data)
    games = int(index["games"])
    val = g >= int(games * 0.9) if games >= 10 else np.zeros(len(g), dtype=bool)
    xt, yt, okt = (torch.from_numpy(a[~val]) for a in (x, y, ok.astype(np.float32)))
    xv, yv, okv = (torch.from_numpy(a[val]) for a in (x, y, ok.astype(np.float32)))
    n1, C = y.shape[1], y.shape[2]
    net = build_net(x.shape[1], n1 * C, hidden)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    val_loss = best = float("nan")
    best_state = None
    for ep in range(epochs):
        perm = torch.from_numpy(rng.permutation(len(xt)))
        tot, cnt = 0.0, 0
        for i in range(0, len(perm), 512):
            b = perm[i:i + 512]
            loss = _loss(net, xt[b], yt[b], okt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(b)
            cnt += len(b)
        if len(xv):
            with torch.no_grad():
                val_loss = float(_loss(net, xv, yv, okv))
        log(f"epoch {ep + 1}/{epochs}: train loss {tot / max(cnt, 1):.4f}, held-out {val_loss:.4f}")
        if len(xv) and not best <= val_loss:
            best = val_loss
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    if best_state is not None:   # keep the epoch with the lowest held-out loss
        net.load_state_dict(best_state)
        val_loss = best
    meta = {"game": index["game"], "config": index["config"], "obs_size": int(x.shape[1]),
            "num_players": n1 + 1, "columns": index.get("truth_columns"), "hidden": hidden,
            "kind": index.get("truth_kind"), "train_examples": int(len(xt)),
            "val_examples": int(len(xv)), "val_loss": val_loss, "games": games}
    return net, meta


def save_probe(net, meta: dict[str, Any], path: str | Path) -> None:
    """Write ``{"meta", "state_dict"}`` to ``path`` (parent directories created)."""
    import torch

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"meta": meta, "state_dict": net.state_dict()}, p)


def load_probe(path: str | Path):
    """``(net, meta)`` from a file written by :func:`save_probe` (net in eval mode, CPU).

    Raises:
        FileNotFoundError: no file at ``path``.
    """
    import torch

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no probe file at {str(p)!r}")
    blob = torch.load(p, map_location="cpu", weights_only=False)
    meta = blob["meta"]
    net = build_net(meta["obs_size"], (meta["num_players"] - 1) * len(meta["columns"]),
                    meta["hidden"])
    net.load_state_dict(blob["state_dict"])
    net.eval()
    return net, meta


def main(argv: Sequence[str] | None = None) -> int:
    from agents.belief import ADAPTERS
    from training.dataset import check_cli_args, generate, load_dataset, read_index

    ap = ArgumentParser(prog="python -m training.probe", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--out", required=True)
    ap.add_argument("--num-players", type=int, default=None)
    ap.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                    help="extra game keywords: KEY=VALUE items (or one JSON object)")
    ap.add_argument("--agents", nargs="+", default=["heuristic"])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=None, help="an existing training.dataset directory")
    a = ap.parse_args(argv)
    for name in ("epochs", "hidden"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be a positive integer, got {getattr(a, name)}")
    if Path(a.out).is_dir():
        ap.error(f"--out {a.out} is a directory: give a file name")
    if a.data:
        try:
            index = read_index(a.data)
        except (ValueError, OSError) as exc:
            ap.error(f"--data: {exc}")
        if index["game"] != a.game:
            ap.error(f"--data {a.data} is a {index['game']!r} dataset, not {a.game!r}")
    else:
        config = check_cli_args(ap, a)
    t0 = time.perf_counter()
    if a.data:
        data = load_dataset(a.data, ("obs", "truth", "game"))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            index = generate(a.game, config, a.agents, a.games, tmp, seed=a.seed + 10_000)
            data = load_dataset(tmp, ("obs", "truth", "game"))
    print(f"{index['decisions']} decisions from {index['games']} games "
          f"({time.perf_counter() - t0:.1f} s)")
    net, meta = train(data, index, a.epochs, a.hidden, a.seed)
    save_probe(net, meta, a.out)
    print(f"saved {a.out} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
