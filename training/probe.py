"""Train a belief probe: a small MLP from one seat's observation to the other seats' hidden roles.

Usage::

    python -m training.probe --game prowl --games 400 --out probes/prowl4.pt \\
        [--num-players 4] [--agents heuristic] [--epochs 8] [--hidden 128] [--seed 0] \\
        [--data DIR] [--inputs FIELD,FIELD,...] [--overwrite]

``--out``: the probe file to write. A file already there is refused before any game is played
unless ``--overwrite`` is given (as ``training.selfplay`` refuses to replace a finished run's
evaluation and ``training.dataset`` a dataset), so re-running a command never replaces a
trained probe silently.

Data: ``--games`` games generated with :func:`training.dataset.generate` (engine seeds
``seed + 10_000 + g``, away from the benchmark's seeds ``seed + g``) into a temporary directory,
or an existing dataset directory ``--data``. Every decision gives one example per seat ``s``
that agents play (``state.agent_seats`` of a game with the dataset's config): input ``obs[s]``
(float32 ``(D,)``), target the truth rows of relative seats ``1..n-1`` (absolute
``(s + r) % n``), each normalised to a distribution (one-hot role, or the hand's composition for
Badland Wolves); undefined rows (no clan yet, empty hand) are masked out. A seat the rules play
(solo Clandestine's Nemesis, counted by ``n``, its view stored in the dataset) is no observer:
no agent reads its view, and no :class:`agents.belief.ProbeTracker` observes from it. Its truth
row stays a target of the others (its Relic hand, face up, as the deduction metrics score it).

Inputs (``--inputs``): by default the whole observation. ``--inputs seat_colour_points,
seat_colour_moved`` reads only the named fields of the game's observation layout (the
:class:`envs.core.layout.Layout` every game state exposes as ``state.layout``: Prowl
``build_layout``, Clans, Badland Wolves and Clandestine ``observation_layout``), their entries
concatenated in the order given (:func:`input_columns`); unknown or repeated names are refused
with the layout's known fields listed. With ``--inputs`` the dataset is read shard by shard keeping only
those entries (:func:`load_selected`), so memory grows with the selected width: 100 3-player
Clandestine games (about 170,000 decisions) would take 14 GB with the whole observation. The whole 6,312-entry 3-player Clans observation is too
wide for a few hundred games (300 games: calibrated back to the prior, 1.386 nats); its
public-history summaries ``seat_colour_points,seat_colour_moved`` (30 entries) gave a held-out
NLL of 0.148 on the same games (docs/deduction.md, Clans).

Network: ``D -> hidden -> hidden -> (n - 1) * C`` with ReLU; loss the mean soft-target cross-entropy
of each row's softmax; Adam (lr 1e-3), batch 512. Where the adapter declares
``distinct_roles`` (Clans: each colour held by one seat) the roles the observer holds itself are
masked out of the softmax, in training as in :class:`agents.belief.ProbeTracker`. The last 10%
of games are held out (the validation split), the held-out loss printed per epoch, and the
weights of the epoch with the lowest held-out loss kept (early stopping on the NLL).

Calibration (:func:`calibrate`): on the validation split, a temperature ``T`` and a mixture
weight ``lambda`` are fitted by grid search to minimise the NLL of
``(1 - lambda) * softmax(logits / T) + lambda * prior``, where ``prior`` is the reference prior the
probe falls back on: uniform over the roles the observer does not hold where roles are distinct,
else the training split's mean target row per relative seat. The fit is kept only when its gain
over the prior is above two standard errors over the validation games; otherwise
``lambda = 1`` (the prior alone). So the calibrated validation NLL is never above the prior's,
and a probe that learned nothing is the prior (a 60-game 3-player Clans probe read 1.41-1.43
nats against the uniform prior's 1.386 before calibration).

The ``.pt`` file holds ``{"meta": {...}, "state_dict": ...}``
(``meta``: game, config, obs_size (the whole observation's size), num_players, columns, hidden,
kind, train/val sizes and loss, ``temperature``, ``prior_weight``, ``prior`` (``(n-1, C)`` list
or None for distinct roles), ``distinct_roles``, ``val_nll_raw``, ``val_nll_prior``, ``inputs``
(the field names read, or None for the whole observation) and ``input_size`` (the network's
input width)); :class:`agents.belief.ProbeTracker` loads it with :func:`load_probe`. Probes saved
before ``inputs`` existed have neither key and read the whole observation.
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

from .cli import ArgumentParser, creatable_problem


def observation_layout_of(state) -> Any:
    """The observation :class:`envs.core.layout.Layout` of a game state: ``state.layout``,
    whose fields name every entry of ``state.observation_tensor(seat)`` (each game builds its
    observation from it; Prowl ``build_layout``, Clans, Badland Wolves and Clandestine
    ``observation_layout``).

    Raises:
        ValueError: the state has no ``layout`` that is a Layout of ``observation_size``
            entries (the probe cannot select fields of that game's observation).
    """
    from envs.core.layout import Layout

    lay = getattr(state, "layout", None)
    size = getattr(state, "observation_size", None)
    if not isinstance(lay, Layout) or lay.size != size:
        raise ValueError(f"{type(state).__name__} exposes no observation layout (a `layout` "
                         f"Layout of its {size} observation entries): observation fields "
                         f"cannot be selected (--inputs) for this game")
    return lay


def parse_inputs(text: str | None) -> list[str] | None:
    """Field names from ``--inputs`` text (``"a,b"``; spaces around names ignored), or None for
    None (the whole observation).

    Raises:
        ValueError: an empty name (``""``, ``"a,,b"``, a trailing comma).
    """
    if text is None:
        return None
    names = [t.strip() for t in text.split(",")]
    if not all(names):
        raise ValueError(f"{text!r} has an empty field name; give comma-separated "
                         f"observation field names")
    return names


def input_columns(layout, names: Sequence[str], game: str = "") -> np.ndarray:
    """Flat observation indices of the fields ``names``, in the order given: for each field its
    ``start..stop - 1`` range (the entries :meth:`Layout.view` reshapes), concatenated.

    Args:
        layout: the game's observation :class:`envs.core.layout.Layout`
            (:func:`observation_layout_of`).
        names: field names, at least one, none repeated.
        game: the game's name, for the error messages.

    Returns:
        int64 ``(sum of the fields' sizes,)``.

    Raises:
        ValueError: no names, a repeated name, or names that are not fields of the layout (the
            message lists them and the layout's known fields).
    """
    names = list(names)
    where = f" of {game}" if game else ""
    if not names:
        raise ValueError("no observation fields given: name at least one (or leave inputs "
                         "out for the whole observation)")
    repeated = sorted({x for x in names if names.count(x) > 1})
    if repeated:
        raise ValueError(f"observation field(s) given twice: {', '.join(repeated)}")
    unknown = [x for x in names if x not in layout]
    if unknown:
        raise ValueError(f"unknown observation field(s){where}: {', '.join(unknown)}; known: "
                         f"{', '.join(f.name for f in layout)}")
    return np.concatenate([np.arange(layout[x].start, layout[x].stop, dtype=np.int64)
                           for x in names])


def build_net(obs_size: int, out_size: int, hidden: int = 128):
    """The probe MLP (torch ``nn.Sequential``)."""
    import torch.nn as nn

    return nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, out_size))


def examples(data: dict[str, np.ndarray], cols: np.ndarray | None = None,
             observers: Sequence[int] | None = None) -> tuple[np.ndarray, ...]:
    """Per-seat examples from a loaded dataset: ``x`` float32 ``(E, D)`` (the observation, or
    only its entries ``cols`` (int ``(D,)``, :func:`input_columns`) when given), ``y`` float32
    ``(E, n-1, C)`` (normalised rows of relative seats ``1..n-1``), ``ok`` bool ``(E, n-1)``
    (defined rows), the game index of each example, int ``(E,)``, and the observer's own truth
    row, float32 ``(E, C)``; ``E = K * len(observers)``, observer by observer.

    ``observers``: the observing seats, in order; default every seat of ``obs``. :func:`train`
    gives the seats agents play (module docstring: a seat the rules play is no observer, its
    row stays a target).

    Raises:
        ValueError: no observer, or one that is not a seat ``0..n-1``.
    """
    obs, truth, game = data["obs"], data["truth"], data["game"]
    K, n, _ = obs.shape
    observers = list(range(n)) if observers is None else [int(s) for s in observers]
    if not observers or not all(0 <= s < n for s in observers):
        raise ValueError(f"observers must be seats 0..{n - 1} of the dataset, at least one; "
                         f"got {observers}")
    xs, ys, oks, gs, owns = [], [], [], [], []
    for s in observers:
        rows = [(s + r) % n for r in range(1, n)]
        y = truth[:, rows, :].astype(np.float32)
        tot = y.sum(axis=2, keepdims=True)
        ok = tot[..., 0] > 0
        y = np.divide(y, tot, out=np.zeros_like(y), where=tot > 0)
        xs.append(obs[:, s, :] if cols is None else obs[:, s, cols])
        ys.append(y)
        oks.append(ok)
        gs.append(game)
        owns.append(truth[:, s, :].astype(np.float32))
    return (np.concatenate(xs), np.concatenate(ys), np.concatenate(oks), np.concatenate(gs),
            np.concatenate(owns))


def _masked_logits(net, x, sup, n1: int, C: int):
    """Logits ``(B, n-1, C)``; roles outside the support ``sup`` (1/0, or None) set to -1e9."""
    z = net(x).reshape(-1, n1, C)
    if sup is not None:
        z = z.masked_fill(sup <= 0, -1e9)
    return z


def _loss(net, x, y, ok, sup=None):
    import torch

    n1, C = y.shape[1], y.shape[2]
    logp = torch.log_softmax(_masked_logits(net, x, sup, n1, C), dim=-1)
    ce = -(y * logp).sum(dim=-1)
    return (ce * ok).sum() / ok.sum().clamp(min=1)


#: calibration grids: temperatures (log-spaced 1/4..4, 1 included) and prior weights 0..1
TEMPERATURES = tuple(float(t) for t in np.exp(np.linspace(np.log(0.25), np.log(4.0), 25)))
PRIOR_WEIGHTS = tuple(float(w) for w in np.linspace(0.0, 1.0, 41))


def _mixture_ce(logits: np.ndarray, y: np.ndarray, ref: np.ndarray, temperature: float,
                weight: float) -> np.ndarray:
    """Cross-entropy ``(E, n-1)`` of each row of ``y`` under the mixture of :func:`mixture_nll`."""
    z = logits / temperature
    z = z - z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=-1, keepdims=True)
    q = (1.0 - weight) * p + weight * ref
    return -(y * np.log(np.maximum(q, 1e-12))).sum(axis=-1)


def mixture_nll(logits: np.ndarray, y: np.ndarray, ok: np.ndarray, ref: np.ndarray,
                temperature: float, weight: float) -> float:
    """Mean cross-entropy (nats) of the defined rows of ``y`` under
    ``(1 - weight) * softmax(logits / temperature) + weight * ref``.

    Args:
        logits: float ``(E, n-1, C)`` (masked roles at -1e9). y: float ``(E, n-1, C)`` target
        rows. ok: bool ``(E, n-1)``. ref: float ``(E, n-1, C)`` prior rows (each sums to 1).
    """
    ce = _mixture_ce(logits, y, ref, temperature, weight)
    return float(ce[ok].mean()) if ok.any() else float("nan")


def calibrate(logits: np.ndarray, y: np.ndarray, ok: np.ndarray, ref: np.ndarray,
              groups: np.ndarray | None = None, z: float = 2.0
              ) -> tuple[float, float, float, float, float]:
    """Fit temperature and prior weight on a validation split (grid search, least NLL), and
    keep the fit only where it beats the prior clearly.

    The fit is kept only if its NLL gain over the prior alone is above ``z`` standard errors,
    the standard error taken over ``groups`` (the examples' games: decisions of one game are
    correlated) or, without groups, over examples; otherwise the prior alone is returned
    (``weight = 1``): on a few validation games a grid fit of a network that learned nothing
    still finds a small chance gain (3-player Clans, 6 validation games: 1.381 against the
    prior's 1.386, then 1.40 on 20 other games).

    Args:
        logits, y, ok, ref: as :func:`mixture_nll`. groups: int ``(E,)`` or None. z: the
            required gain in standard errors.

    Returns:
        ``(temperature, weight, nll, nll_raw, nll_prior)``: the kept pair and the validation
        NLL with it, with ``(1, 0)`` (the network alone) and with ``weight = 1`` (the prior
        alone); ``nll <= nll_prior`` always.
    """
    lg = np.asarray(logits, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    raw = mixture_nll(lg, y, ok, ref, 1.0, 0.0)
    prior = mixture_nll(lg, y, ok, ref, 1.0, 1.0)
    best = (1.0, 0.0, raw)
    for t in TEMPERATURES:
        for w in PRIOR_WEIGHTS[:-1]:
            v = mixture_nll(lg, y, ok, ref, t, w)
            if v < best[2]:
                best = (t, w, v)
    if not best[2] < prior:
        return 1.0, 1.0, prior, raw, prior
    # per-example gain over the prior (mean over its defined rows), then per group
    gain_rows = (_mixture_ce(lg, y, ref, 1.0, 1.0) - _mixture_ce(lg, y, ref, best[0], best[1]))
    cnt = ok.sum(axis=1)
    keep = cnt > 0
    gain = (gain_rows * ok).sum(axis=1)[keep] / cnt[keep]
    if groups is not None:
        g = np.asarray(groups)[keep]
        _, inv = np.unique(g, return_inverse=True)
        gain = np.bincount(inv, weights=gain) / np.bincount(inv)
    se = float(gain.std(ddof=1) / np.sqrt(len(gain))) if len(gain) > 1 else float("inf")
    if not float(gain.mean()) > z * se:
        return 1.0, 1.0, prior, raw, prior
    return best[0], best[1], best[2], raw, prior


def load_selected(path: str | Path, cols: np.ndarray) -> dict[str, np.ndarray]:
    """A dataset's ``obs`` restricted to the entries ``cols`` (int ``(D,)``,
    :func:`input_columns`), with ``truth`` and ``game``, read shard by shard: memory grows with
    the selected width, not the observation's (a 3-player Clandestine observation has 8,811
    entries, 106 KB a decision for the three seats). ``obs`` is float32 ``(K, n, D)``;
    ``obs_size`` (0-d int64) keeps the whole observation's width for the probe's meta.

    Raises:
        ValueError: a column outside the observation.
    """
    from agents.belief import new_game
    from training.dataset import load_dataset, read_index

    out = load_dataset(path, ("obs", "truth", "game"), obs_columns=cols)
    index = read_index(path)
    size = new_game(index["game"], 0, **index["config"]).observation_size
    out["obs_size"] = np.asarray(size, dtype=np.int64)
    return out


def train(data: dict[str, np.ndarray], index: dict[str, Any], epochs: int = 8,
          hidden: int = 128, seed: int = 0, log=print, inputs: Sequence[str] | None = None
          ) -> tuple[Any, dict[str, Any]]:
    """Train the probe on a loaded dataset, then calibrate it on the validation split (module
    docstring); returns ``(net, meta)``. With fewer than 10 games there is no validation split:
    the last epoch is kept, uncalibrated (``temperature`` 1, ``prior_weight`` 0). The examples'
    observers are the seats agents play in a game built from ``index["config"]``
    (:func:`examples`).

    ``inputs``: observation field names the network reads (:func:`input_columns` on the layout
    of a game built from ``index["config"]``), or None for the whole observation. ``data`` is
    :func:`training.dataset.load_dataset`'s (the whole observation) or, with ``inputs``,
    :func:`load_selected`'s (only those fields' entries, with ``obs_size``).

    Raises:
        ValueError: ``inputs`` names no field, repeats one or names one the game's layout does
            not have, the game has no observation layout, or ``data`` was selected with other
            columns than ``inputs`` give.
    """
    import torch

    from agents.belief import adapter_for, new_game

    torch.manual_seed(seed)
    torch.set_num_threads(1)   # small network: one thread is as fast and shares the machine
    state = new_game(index["game"], 0, **index["config"])
    cols = None
    if inputs is not None:
        inputs = list(inputs)
        cols = input_columns(observation_layout_of(state), inputs, index["game"])
    if "obs_size" in data:     # already restricted to the inputs' entries (load_selected)
        if cols is None or data["obs"].shape[2] != len(cols):
            raise ValueError(f"data holds {data['obs'].shape[2]} selected entries a seat; the "
                             f"inputs {inputs} give {None if cols is None else len(cols)}")
        obs_size, cols = int(data["obs_size"]), None
    else:
        obs_size = int(data["obs"].shape[2])
    # observers: the seats agents play (a Clandestine Nemesis seat is the rules'; its row
    # stays a target)
    x, y, ok, g, own = examples(data, cols, state.agent_seats)
    n1, C = y.shape[1], y.shape[2]
    distinct = bool(getattr(adapter_for(index["game"]), "distinct_roles", False))
    sup = (np.repeat((own <= 0)[:, None, :], n1, axis=1).astype(np.float32) if distinct
           else None)
    games = int(index["games"])
    val = g >= int(games * 0.9) if games >= 10 else np.zeros(len(g), dtype=bool)
    xt, yt, okt = (torch.from_numpy(a[~val]) for a in (x, y, ok.astype(np.float32)))
    xv, yv, okv = (torch.from_numpy(a[val]) for a in (x, y, ok.astype(np.float32)))
    supt = None if sup is None else torch.from_numpy(sup[~val])
    supv = None if sup is None else torch.from_numpy(sup[val])
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
            loss = _loss(net, xt[b], yt[b], okt[b], None if supt is None else supt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(b)
            cnt += len(b)
        if len(xv):
            with torch.no_grad():
                val_loss = float(_loss(net, xv, yv, okv, supv))
        log(f"epoch {ep + 1}/{epochs}: train loss {tot / max(cnt, 1):.4f}, held-out {val_loss:.4f}")
        if len(xv) and not best <= val_loss:
            best = val_loss
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    if best_state is not None:   # keep the epoch with the lowest held-out loss
        net.load_state_dict(best_state)
        val_loss = best
    # the prior the probe falls back on
    okn = ok[~val]
    if distinct:
        prior = None
    else:
        m = (y[~val] * okn[..., None]).sum(axis=0) + 1e-6
        prior = m / m.sum(axis=-1, keepdims=True)
    temperature, weight, nll_raw, nll_prior = 1.0, 0.0, float("nan"), float("nan")
    if len(xv) and okv.sum() > 0:
        with torch.no_grad():
            zv = _masked_logits(net, xv, supv, n1, C).numpy()
        if distinct:
            ref = sup[val] / sup[val].sum(axis=-1, keepdims=True)
        else:
            ref = np.broadcast_to(prior, zv.shape)
        temperature, weight, val_loss, nll_raw, nll_prior = calibrate(zv, y[val], ok[val], ref,
                                                                      groups=g[val])
        log(f"calibrated on the validation split: temperature {temperature:.3f}, prior weight "
            f"{weight:.3f}: NLL {val_loss:.4f} (network alone {nll_raw:.4f}, prior alone "
            f"{nll_prior:.4f})")
    meta = {"game": index["game"], "config": index["config"], "obs_size": obs_size,
            "inputs": inputs, "input_size": int(x.shape[1]),
            "num_players": n1 + 1, "columns": index.get("truth_columns"), "hidden": hidden,
            "kind": index.get("truth_kind"), "train_examples": int(len(xt)),
            "val_examples": int(len(xv)), "val_loss": val_loss, "games": games,
            "temperature": temperature, "prior_weight": weight,
            "prior": None if prior is None else prior.tolist(), "distinct_roles": distinct,
            "val_nll_raw": nll_raw, "val_nll_prior": nll_prior}
    return net, meta


def save_probe(net, meta: dict[str, Any], path: str | Path) -> None:
    """Write ``{"meta", "state_dict"}`` to ``path`` (parent directories created)."""
    import torch

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"meta": meta, "state_dict": net.state_dict()}, p)


def load_probe(path: str | Path):
    """``(net, meta)`` from a file written by :func:`save_probe` (net in eval mode, CPU).

    The file is read with ``weights_only=True``: tensors and plain Python values only, as
    :func:`save_probe` writes them, so a file that is not a probe cannot run code when loaded
    (a pickle can).

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: the file is not a probe written by :func:`save_probe` (unreadable, holding
            other objects than tensors and plain values, or without ``meta`` and
            ``state_dict``).
    """
    import pickle

    import torch

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no probe file at {str(p)!r}")
    try:
        blob = torch.load(p, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, AttributeError) as exc:
        raise ValueError(f"{str(p)!r} is not a probe saved by training.probe (not readable "
                         f"as tensors and plain values: {type(exc).__name__})") from None
    if not isinstance(blob, dict) or not {"meta", "state_dict"} <= set(blob):
        raise ValueError(f"{str(p)!r} is not a probe saved by training.probe (no meta and "
                         f"state_dict)")
    meta = blob["meta"]
    # input_size: the selected fields' width (absent before --inputs: the whole observation)
    net = build_net(int(meta.get("input_size", meta["obs_size"])),
                    (meta["num_players"] - 1) * len(meta["columns"]), meta["hidden"])
    net.load_state_dict(blob["state_dict"])
    net.eval()
    return net, meta


def main(argv: Sequence[str] | None = None) -> int:
    from agents.belief import ADAPTERS
    from training.dataset import check_cli_args, generate, load_dataset, \
        parse_config_items, read_index

    ap = ArgumentParser(prog="python -m training.probe", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--games", type=int, default=None,
                    help="games to generate (default 400; not with --data)")
    ap.add_argument("--out", required=True, help="the probe file to write (.pt)")
    ap.add_argument("--overwrite", action="store_true",
                    help="let --out replace an existing file; without it one is refused")
    ap.add_argument("--num-players", type=int, default=None)
    ap.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                    help="extra game keywords: KEY=VALUE items (or one JSON object)")
    ap.add_argument("--agents", nargs="+", default=None,
                    help="agent specs of the generated games (default heuristic; not with "
                         "--data)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=None, help="an existing training.dataset directory")
    ap.add_argument("--inputs", default=None, metavar="FIELD,FIELD,...",
                    help="read only these fields of the game's observation layout, in this "
                         "order (default: the whole observation)")
    a = ap.parse_args(argv)
    for name in ("epochs", "hidden"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be a positive integer, got {getattr(a, name)}")
    if Path(a.out).is_dir():
        ap.error(f"--out {a.out} is a directory: give a file name")
    # a dangling symlink counts as an existing file: saving would write through it
    exists = Path(a.out).exists() or Path(a.out).is_symlink()
    if exists and not a.overwrite:
        ap.error(f"--out {a.out} already exists and this run would replace it: add "
                 "--overwrite, or choose another --out")
    if not exists:
        problem = creatable_problem("--out", Path(a.out))
        if problem:     # found before the games are played and the network trained
            ap.error(problem)
    if a.data:
        try:
            index = read_index(a.data)
        except (ValueError, OSError) as exc:
            ap.error(f"--data: {exc}")
        if index["game"] != a.game:
            ap.error(f"--data {a.data} is a {index['game']!r} dataset, not {a.game!r}")
        # the options that describe generated games may be given only where they agree
        # with the dataset (they were silently ignored)
        have = index["config"].get("num_players")
        if a.num_players is not None and a.num_players != have:
            ap.error(f"--num-players {a.num_players}: --data {a.data} holds {have}-player "
                     f"games")
        if a.games is not None and a.games != index["games"]:
            ap.error(f"--games {a.games}: --data {a.data} holds {index['games']} games (the "
                     f"dataset's games are used; drop --games)")
        if a.agents is not None:
            n = len(index["agents"])
            if len(a.agents) > n or [a.agents[s % len(a.agents)]
                                     for s in range(n)] != index["agents"]:
                ap.error(f"--agents {' '.join(a.agents)}: --data {a.data} was played by "
                         f"{' '.join(index['agents'])} (drop --agents)")
        if a.config:
            try:
                given = parse_config_items(a.config)
            except ValueError as exc:
                ap.error(str(exc))
            differ = {k: v for k, v in given.items() if index["config"].get(k, v) != v
                      or k not in index["config"]}
            if differ:
                ap.error(f"--config {differ} disagrees with the config of --data {a.data} "
                         f"({index['config']}); drop --config")
    else:
        a.games = 400 if a.games is None else a.games
        a.agents = ["heuristic"] if a.agents is None else a.agents
        config = check_cli_args(ap, a)
    inputs = None
    if a.inputs is not None:   # checked before any game is generated
        from agents.belief import new_game

        try:
            inputs = parse_inputs(a.inputs)
            state = new_game(a.game, 0, **(index["config"] if a.data else config))
            input_columns(observation_layout_of(state), inputs, a.game)
        except ValueError as exc:
            ap.error(f"--inputs: {exc}")
    t0 = time.perf_counter()

    def load(path):   # with --inputs only the selected entries are kept, shard by shard
        if inputs is None:
            return load_dataset(path, ("obs", "truth", "game"))
        return load_selected(path, input_columns(observation_layout_of(state), inputs))

    if a.data:
        data = load(a.data)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            index = generate(a.game, config, a.agents, a.games, tmp, seed=a.seed + 10_000)
            data = load(tmp)
    print(f"{index['decisions']} decisions from {index['games']} games "
          f"({time.perf_counter() - t0:.1f} s)")
    net, meta = train(data, index, a.epochs, a.hidden, a.seed, inputs=inputs)
    save_probe(net, meta, a.out)
    print(f"saved {a.out} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
