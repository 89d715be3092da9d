"""Deduction benchmark: belief trackers side by side on the same games.

Usage::

    python -m benchmarks.deduction --game prowl --players heuristic --observer-seat 0 \\
        --games 20 [--num-players 4] [--trackers uniform consistent policy probe] \\
        [--probe probes/prowl4.pt] [--particles 100] [--samples 200] [--epsilon 0.1] \\
        [--policy-samples 1] [--move-steps 0] [--refresh 1] [--max-decisions K] [--seed 0] [--png deduction_prowl.png] [--json out.json]
    python -m benchmarks.deduction --game prowl --merge a.json b.json [--png P] [--json out.json]

Plays ``--games`` games (engine seeds ``seed + g``; ``--players`` one agent spec per seat or
fewer, repeated), runs every tracker for the observing seat on the same games
(:func:`training.belief_metrics.track_game`) and prints

* a markdown table: NLL / Brier / top-1 at 25, 50, 75 and 100% of game time per tracker, as
  ``mean ± 95% half-width`` over games (:mod:`training.belief_metrics` defines every term);
* the trackers' cost: milliseconds per update (update and belief time over the decisions);
* paired differences: for every two trackers ``a`` (later in ``--trackers``) and ``b``, the
  per-game difference ``a - b`` of each metric at the checkpoints and over the 10 bins' mean, as
  ``mean ± 95% half-width`` over games (:func:`paired`). The trackers score the same decisions of
  the same games, so the difference's interval is far narrower than the two trackers' intervals
  side by side: an interval that excludes 0 says which tracker is better on these games;

and writes a PNG (matplotlib) of the three metrics over game time (10 bins), one line per
tracker with its interval shaded. The ``policy`` tracker assumes the other seats play the game's
heuristic made stochastic (``--epsilon``, :class:`agents.belief.EpsilonAgentPolicy`); ``probe``
needs a model from ``python -m training.probe`` (``--probe``; skipped with a note without one).
A tracker option given while no tracker in ``--trackers`` reads it (``--probe`` without
``probe``, ``--particles`` or ``--move-steps`` without ``policy``, ``policy-random`` or
``policy-ppo:PATH``,
``--samples`` or ``--refresh`` without ``consistent``, ``--epsilon`` or ``--policy-samples``
without ``policy`` or ``policy-exact``, ``--policy-mix`` without a ``policy*`` tracker) is
refused, not ignored.

``--merge`` prints and plots the results of several ``--json`` files as one run (:func:`merge`):
run chunks of engine seeds in parallel processes (``--seed 50000 --games 20``, ``--seed 50020
--games 20``, ...), then merge them. Every tracker's entry in a ``--json`` file records the game
and its whole configuration (``game``, ``config``) and the run options that change what the
trackers compute (``options``, :func:`run_options`: the players, observer seat, decisions
followed and the tracker options, all but ``--seed`` and ``--games``); ``--merge`` refuses files
of other trackers, of another game or configuration, or run with other options, and a file
written before the options were recorded merges only with other such files. The heading printed
by a run and by ``--merge`` shows the options.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from training.belief_metrics import CHECKPOINTS, METRICS, at_checkpoints, binned, mean_ci, \
    track_game


def run(game: str, config: dict[str, Any], players: Sequence[str], observer: int, games: int,
        trackers: Sequence[str], seed: int = 0, particles: int = 100, samples: int = 200,
        epsilon: float = 0.1, probe: str | None = None, policy_samples: int | None = None,
        policy_mix: float = 0.0, refresh: int = 1, max_decisions: int = 100_000,
        log=print, move_steps: int = 0) -> dict[str, Any]:
    """Run the benchmark; returns per tracker the binned and checkpoint means/intervals, the
    per-game values and the cost (``{"bins": (mean, half) (10, 3), "checkpoints": (mean, half)
    (4, 3), "per_game_bins": (games, 10, 3), "per_game_checkpoints": (games, 4, 3),
    "ms_per_update", "games"}``; metrics in :data:`training.belief_metrics.METRICS` order).
    With ``max_decisions`` the trackers follow only each game's first that many decisions, and
    game time is measured over those.

    Raises:
        ValueError: ``max_decisions`` < 2, ``games`` < 1, no player spec or more specs than
            seats, or a tracker given twice (their scores would be merged under one name).
    """
    if max_decisions < 2:
        raise ValueError(f"max_decisions must be at least 2, got {max_decisions!r}")
    if games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    repeated = sorted({t for t in trackers if list(trackers).count(t) > 1})
    if repeated:
        raise ValueError(f"tracker(s) given twice: {', '.join(repeated)}")
    from agents import make_agent
    from agents.belief import make_tracker, new_game
    from training.cli import agent_seats_text

    probe_state = new_game(game, seed, **config)
    # one spec per seat agents play (a Clandestine Nemesis, seated last, is played by the rules)
    n = len(probe_state.agent_seats)
    if not players or len(players) > n:
        raise ValueError(f"give 1 to {n} player specs for {agent_seats_text(probe_state)}, got "
                         f"{len(players)}")
    specs = [players[s % len(players)] for s in range(n)]
    per: dict[str, dict[str, list]] = {t: {"bins": [], "cp": [], "time": 0.0, "calls": 0}
                                       for t in trackers}
    t_start = time.perf_counter()
    for g in range(games):
        state0 = new_game(game, seed + g, **config)
        agents = [make_agent(specs[s], game, state0.config, seed=(seed + g) * 64 + s)
                  for s in range(n)]
        trs = [make_tracker(t, game, state0.config, seed=seed + g, particles=particles,
                            samples=samples, epsilon=epsilon, probe_path=probe,
                            policy_samples=policy_samples, policy_mix=policy_mix,
                            refresh=refresh, move_steps=move_steps)
               for t in trackers]
        res = track_game(game, config, agents, trs, observer, seed + g, max_decisions)
        for tr in trs:
            r = res[tr.name]
            per[tr.name]["bins"].append(binned(r))
            per[tr.name]["cp"].append(at_checkpoints(r))
            per[tr.name]["time"] += tr.time_s
            per[tr.name]["calls"] += tr.calls
        log(f"game {g + 1}/{games}: {len(next(iter(res.values())))} decisions "
            f"({time.perf_counter() - t_start:.0f} s)")
    out = {}
    for t, d in per.items():
        bins, cp = np.stack(d["bins"]), np.stack(d["cp"])
        out[t] = {"bins": mean_ci(bins), "checkpoints": mean_ci(cp), "per_game_bins": bins,
                  "per_game_checkpoints": cp,
                  "ms_per_update": 1000.0 * d["time"] / max(1, d["calls"]), "games": games,
                  "updates": d["calls"]}
    return out


#: The run options recorded with ``--json`` (:func:`run_options`), in the order shown: every
#: command-line option that changes what a tracker computes (``--seed`` and ``--games`` only
#: choose which games are played, and differ between chunks of one run).
RUN_OPTIONS = ("players", "observer_seat", "max_decisions", "particles", "samples", "epsilon",
               "policy_samples", "policy_mix", "refresh", "move_steps", "probe")


def run_options(a: argparse.Namespace, num_players: int) -> dict[str, Any]:
    """The run options of the command line ``a`` (tracker options' defaults filled in) as plain
    JSON values, keyed by :data:`RUN_OPTIONS`: ``players`` is one spec per seat of the
    ``num_players``-seat game (``--players random`` and ``--players random random random`` are
    the same run of a 3-player game), ``probe`` the model path as given (None: no probe) and
    ``policy_samples`` None for the tracker's own default."""
    players = [a.players[s % len(a.players)] for s in range(num_players)]
    options = {k: getattr(a, k) for k in RUN_OPTIONS if k != "players"}
    return json.loads(json.dumps({"players": players, **options}, allow_nan=False))


def options_text(options: dict[str, Any] | None,
                 trackers: Sequence[str] | None = None) -> str:
    """``options`` compactly, as the command-line options that give them; says so when they were
    not recorded. Left out: an option that is None (the tracker's default, or no probe) and,
    with ``trackers``, a tracker option (:data:`TRACKER_ARGS`) none of them reads."""
    from agents.belief import tracker_reads

    if options is None:
        return "run options not recorded"
    words = []
    for k, v in options.items():
        if v is None or (trackers is not None and k in TRACKER_ARGS and not any(
                tracker_reads(t, TRACKER_ARGS[k]) for t in trackers)):
            continue
        words.append(f"--{k.replace('_', '-')} "
                     + (" ".join(map(str, v)) if isinstance(v, list) else str(v)))
    return " ".join(words)


def merge(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One result from several ``--json`` files of runs on different games (e.g. chunks of
    seeds run in parallel): per-game values concatenated in the order given, means and 95%
    intervals recomputed over all games, cost per update weighted by each part's updates (by
    its games where a file has no ``updates``). The game, configuration and run options of the
    parts (where recorded) are kept with every tracker, so a merged ``--json`` merges again.

    Raises:
        ValueError: no parts, a part that is not an object of trackers' results, parts with
            different trackers, a part without per-game values (written before ``--json`` kept
            them), parts of different games or configurations, parts run with different
            options (:data:`RUN_OPTIONS`; the message names the parts, the options and their
            values), or a part with run options and one without (written before they were
            recorded; parts that all lack them merge unchecked).
    """
    if not parts:
        raise ValueError("nothing to merge")
    for i, part in enumerate(parts):
        if (not isinstance(part, dict) or not part
                or not all(isinstance(r, dict) for r in part.values())):
            raise ValueError(f"part {i} is not a --json file of this benchmark (an object of "
                             "trackers' results)")
    names = list(parts[0])
    for i, part in enumerate(parts):
        if list(part) != names:
            raise ValueError(f"part {i} has trackers {list(part)}, part 0 has {names}: only runs "
                             "of the same trackers merge")
        for t, r in part.items():
            if "per_game_checkpoints" not in r:
                raise ValueError(f"part {i}, tracker {t!r}: no per-game values (a --json "
                                 "file written before they were kept)")
    runs = {i: (part[names[0]].get("game"), part[names[0]].get("config"))
            for i, part in enumerate(parts) if "game" in part[names[0]]}
    key = {i: json.dumps(r, sort_keys=True) for i, r in runs.items()}
    j = min(runs, default=None)
    for i in runs:
        if key[i] != key[j]:
            raise ValueError(f"part {i} is a run of {runs[i][0]} {runs[i][1]}, part {j} of "
                             f"{runs[j][0]} {runs[j][1]}: only runs of the same game and "
                             "configuration merge")
    options = {i: part[names[0]]["options"] for i, part in enumerate(parts)
               if "options" in part[names[0]]}
    if options and len(options) < len(parts):
        lacking = [i for i in range(len(parts)) if i not in options]
        raise ValueError(f"part(s) {', '.join(map(str, lacking))} record no run options (written "
                         f"before they were recorded), part {min(options)} does: a run whose "
                         "options are unknown does not merge with one whose options are known")
    j = min(options, default=None)
    for i, opts in options.items():
        if not isinstance(opts, dict) or not opts:
            raise ValueError(f"part {i}: run options {opts!r} are not an object of options "
                             "(not a --json file of this benchmark)")
        differ = [k for k in dict.fromkeys([*options[j], *opts])
                  if k not in opts or k not in options[j] or opts[k] != options[j][k]]
        if differ:
            def value(o: dict[str, Any], k: str) -> str:
                return repr(o[k]) if k in o else "not recorded"

            shown = ", ".join(f"{k} {value(opts, k)} (part {j}: {value(options[j], k)})"
                              for k in differ)
            raise ValueError(f"part {i} was run with other options than part {j}: {shown}; only "
                             "runs with the same options merge")
    out = {}
    for t in names:
        bins = np.concatenate([np.asarray(p[t]["per_game_bins"], dtype=np.float64)
                               for p in parts])
        cp = np.concatenate([np.asarray(p[t]["per_game_checkpoints"], dtype=np.float64)
                             for p in parts])
        w = np.array([p[t].get("updates") or len(p[t]["per_game_checkpoints"])
                      for p in parts], dtype=np.float64)
        ms = float(np.dot(w, [p[t]["ms_per_update"] for p in parts]) / w.sum())
        updates = [p[t].get("updates") for p in parts]
        out[t] = {"bins": mean_ci(bins), "checkpoints": mean_ci(cp), "per_game_bins": bins,
                  "per_game_checkpoints": cp, "ms_per_update": ms, "games": len(cp),
                  "updates": None if None in updates else int(sum(updates))}
        if runs:
            out[t]["game"], out[t]["config"] = next(iter(runs.values()))
        if options:
            out[t]["options"] = options[j]
    return out


def paired(results: dict[str, Any]) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    """Paired differences between trackers scored on the same games.

    For every two trackers ``b`` before ``a`` in ``results``' order, the per-game difference
    ``a - b`` of each metric at the 4 checkpoints and of the mean over the 10 bins (a game's bins
    it did not reach are left out of its mean), averaged over games with a 95% Student-t interval
    (:func:`training.belief_metrics.mean_ci`).

    Returns:
        ``{(a, b): (mean, half)}``, each float64 ``(5, 3)``: rows the checkpoints 25/50/75/100%
        then the bin mean, columns NLL, Brier, top-1 (lower is better for the first two, higher
        for top-1).

    Raises:
        ValueError: two trackers were scored on different numbers of games.
    """
    names = list(results)
    per = {}
    for t in names:
        r = results[t]
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # a bin no game reached
            bin_mean = np.nanmean(np.asarray(r["per_game_bins"], dtype=np.float64), axis=1)
        per[t] = np.concatenate([np.asarray(r["per_game_checkpoints"], dtype=np.float64),
                                 bin_mean[:, None, :]], axis=1)
    out = {}
    for j, a in enumerate(names):
        for b in names[:j]:
            if per[a].shape != per[b].shape:
                raise ValueError(f"trackers {a!r} and {b!r} were scored on different games: "
                                 f"{per[a].shape[0]} and {per[b].shape[0]}")
            out[(a, b)] = mean_ci(per[a] - per[b])
    return out


def markdown(results: dict[str, Any]) -> str:
    """The checkpoint table and the cost table as markdown."""
    head = "| tracker | " + " | ".join(f"{m} @{int(p * 100)}%" for m in METRICS
                                      for p in CHECKPOINTS) + " |"
    lines = [head, "|" + "---|" * (1 + len(METRICS) * len(CHECKPOINTS))]
    for t, r in results.items():
        mean, half = r["checkpoints"]
        cells = [f"{mean[i, j]:.3f} ± {half[i, j]:.3f}" for j in range(len(METRICS))
                 for i in range(len(CHECKPOINTS))]
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    lines += ["", "| tracker | ms per update |", "|---|---|"]
    lines += [f"| {t} | {r['ms_per_update']:.2f} |" for t, r in results.items()]
    diffs = paired(results)
    if diffs:
        cols = [f"@{int(p * 100)}%" for p in CHECKPOINTS] + ["bin mean"]
        for k, m in enumerate(METRICS):
            better = "higher" if m == "top1" else "lower"
            title = (f"Paired differences, {m} (a - b over the same games; {better} is "
                     f"better for a; * the interval excludes 0)")
            lines += ["", title, "",
                      "| a - b | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
            for (a, b), (mean, half) in diffs.items():
                cells = [f"{mean[i, k]:+.3f} ± {half[i, k]:.3f}"
                         + ("*" if abs(mean[i, k]) > half[i, k] else "")
                         for i in range(len(cols))]
                lines.append(f"| {a} - {b} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _nan_to_none(a: np.ndarray) -> Any:
    """``a`` as nested lists with NaN as None (JSON null)."""
    a = np.asarray(a, dtype=np.float64)
    return np.where(np.isnan(a), None, a.astype(object)).tolist()


def json_results(results: dict[str, Any], game: str | None = None,
                 config: dict[str, Any] | None = None,
                 options: dict[str, Any] | None = None) -> dict[str, Any]:
    """What ``--json`` writes: per tracker the bins' and checkpoints' means and half-widths, the
    cost and the per-game values; a value that is not defined (a bin no game reached, the
    half-width over fewer than two games) is null, so the file is strict JSON (Python's NaN
    token is not). :func:`merge` reads these files back (null as NaN). ``game`` and ``config``
    (the game's keywords) and ``options`` (:func:`run_options`) are written with every tracker
    (default: the results' own, kept by :func:`merge`), so that runs of another game,
    configuration or run options are not merged."""
    def run_of(r: dict[str, Any]) -> dict[str, Any]:
        g, c, o = r.get("game", game), r.get("config", config), r.get("options", options)
        return {**({} if g is None else {"game": g}), **({} if c is None else {"config": c}),
                **({} if o is None else {"options": o})}

    return {t: {**run_of(r),
                "bins_mean": _nan_to_none(r["bins"][0]), "bins_half": _nan_to_none(r["bins"][1]),
                "cp_mean": _nan_to_none(r["checkpoints"][0]),
                "cp_half": _nan_to_none(r["checkpoints"][1]),
                "ms_per_update": r["ms_per_update"], "games": r["games"],
                "updates": r.get("updates"),
                "per_game_bins": _nan_to_none(r["per_game_bins"]),
                "per_game_checkpoints": _nan_to_none(r["per_game_checkpoints"])}
            for t, r in results.items()}


def plot(results: dict[str, Any], path: str | Path, title: str = "") -> None:
    """PNG of the three metrics over game time (10 bins), one line per tracker."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    x = (np.arange(10) + 0.5) / 10
    for t, r in results.items():
        mean, half = r["bins"]
        for j, ax in enumerate(axes):
            line, = ax.plot(x, mean[:, j], marker="o", ms=3, label=t)
            ax.fill_between(x, mean[:, j] - np.nan_to_num(half[:, j]),
                            mean[:, j] + np.nan_to_num(half[:, j]), alpha=0.2,
                            color=line.get_color())
    for ax, m, lab in zip(axes, METRICS, ("NLL of the truth (nats)", "Brier score",
                                          "top-1 accuracy")):
        ax.set_xlabel("game progress (decision index / game length)")
        ax.set_title(lab)
        ax.set_xlim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, format="png")   # at ``path`` as given (no suffix appended)
    plt.close(fig)


#: Command-line tracker options (``argparse`` dests) -> the :func:`agents.belief.make_tracker`
#: keyword each sets: one given while no tracker in ``--trackers`` reads it is refused.
TRACKER_ARGS = {"probe": "probe_path", "particles": "particles", "samples": "samples",
                "epsilon": "epsilon", "refresh": "refresh", "policy_mix": "policy_mix",
                "policy_samples": "policy_samples", "move_steps": "move_steps"}

#: The values of the tracker options left out (``--policy-samples`` and ``--probe`` stay None:
#: the tracker's own default, and no probe model).
TRACKER_DEFAULTS = {"particles": 100, "samples": 200, "epsilon": 0.1, "refresh": 1,
                    "policy_mix": 0.0, "move_steps": 0}


def check_cli_args(ap: argparse.ArgumentParser, a: argparse.Namespace
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Check the command line before any game is played; returns the game config as given and
    as the game resolved it (defaults filled in), from the one game built to check it.

    Every mistake ends in ``ap.error`` (one line, exit 2): a count out of range (``--games``,
    ``--particles``, ``--policy-samples``, ``--refresh`` below 1, ``--samples`` below 2,
    ``--max-decisions`` below 2, ``--move-steps`` below 0), ``--epsilon`` outside (0, 1], ``--policy-mix`` outside
    [0, 1), a negative ``--seed``, a ``--config`` that is neither ``KEY=VALUE`` items nor one
    JSON object, or that the game refuses, ``--num-players`` and ``--config`` that disagree, an
    ``--observer-seat`` that is not
    a seat, an unknown or surplus player spec, an unknown or repeated tracker, a tracker that
    cannot follow this game (a ``--probe`` file that is missing, for another game or another
    player count), a tracker option given while no tracker in ``--trackers`` reads it
    (:data:`TRACKER_ARGS`: e.g. ``--probe`` without ``probe``, ``--particles`` without a
    particle filter), and a ``--png`` or ``--json`` that is a directory or cannot be created.

    The tracker options default to None on the command line, so that one given is told from one
    left out; this fills those left out with :data:`TRACKER_DEFAULTS` (in ``a``).
    """
    from agents import make_agent
    from agents.belief import TRACKER_OPTIONS, make_tracker, new_game, tracker_reads
    from envs.core.text import rules_seats_note
    from training.cli import set_num_players, spec_count_problem
    from training.dataset import parse_config_items

    for name, low in (("games", 1), ("particles", 1), ("samples", 2), ("refresh", 1),
                      ("max_decisions", 2), ("policy_samples", 1), ("seed", 0),
                      ("move_steps", 0)):
        value = getattr(a, name)
        if value is not None and value < low:
            ap.error(f"--{name.replace('_', '-')} must be at least {low}, got {value}")
    if a.epsilon is not None and not 0.0 < a.epsilon <= 1.0:
        ap.error(f"--epsilon must be in (0, 1], got {a.epsilon}")
    if a.policy_mix is not None and not 0.0 <= a.policy_mix < 1.0:
        ap.error(f"--policy-mix must be in [0, 1), got {a.policy_mix}")
    try:
        config = parse_config_items(a.config)
    except ValueError as exc:
        ap.error(str(exc))
    set_num_players(ap, config, a.num_players)
    try:
        state = new_game(a.game, a.seed, **config)
    except (ValueError, TypeError) as exc:
        ap.error(f"--config: {exc}")
    n = len(state.agent_seats)    # a seat the rules play (Clandestine's Nemesis) observes nothing
    if not 0 <= a.observer_seat < n:
        ap.error(f"--observer-seat must be a seat in 0..{n - 1} of this {n}-player game"
                 f"{rules_seats_note(state)}, got {a.observer_seat}")
    problem = spec_count_problem(len(a.players), state, "player specs")
    if problem:
        ap.error(problem)
    for spec in a.players:
        try:
            make_agent(spec, a.game, state.config, seed=0)
        except (ValueError, OSError) as exc:
            ap.error(f"--players: {exc}")
    repeated = sorted({t for t in a.trackers if a.trackers.count(t) > 1})
    if repeated:
        ap.error(f"--trackers: {', '.join(repeated)} given twice")
    for option, keyword in TRACKER_ARGS.items():
        if getattr(a, option) is not None and not any(tracker_reads(t, keyword)
                                                      for t in a.trackers):
            readers = ", ".join(t + ("PATH" if t.endswith(":") else "")
                                for t in TRACKER_OPTIONS[keyword])
            ap.error(f"--{option.replace('_', '-')} is read only by the {readers} tracker(s), "
                     f"none of which is in --trackers ({' '.join(a.trackers)})")
    for option, value in TRACKER_DEFAULTS.items():
        if getattr(a, option) is None:
            setattr(a, option, value)
    for spec in a.trackers:
        if spec == "probe" and a.probe is None:
            continue                # skipped with a note
        try:
            make_tracker(spec, a.game, state.config, particles=a.particles, samples=a.samples,
                         epsilon=a.epsilon, probe_path=a.probe, policy_samples=a.policy_samples,
                         policy_mix=a.policy_mix, refresh=a.refresh, move_steps=a.move_steps
                         ).reset(state, a.observer_seat)
        except (ValueError, OSError) as exc:
            ap.error(f"--trackers {spec}: {exc}")
        except (EOFError, RuntimeError, KeyError, pickle.UnpicklingError) as exc:
            # a model file torch cannot read (not a saved probe or policy)
            ap.error(f"--trackers {spec}: cannot read its model ({type(exc).__name__}: {exc})")
    check_output_args(ap, a)
    return config, dict(state.config)


def check_output_args(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """``--png`` and ``--json`` must name files that can be written (``ap.error`` otherwise),
    checked before any game is played or file merged."""
    from training.cli import creatable_problem

    for option, path in (("--png", a.png), ("--json", a.json)):
        if path is None:
            continue
        p = Path(path)
        if p.is_dir():
            ap.error(f"{option} {path} is a directory: give a file name")
        problem = None if p.exists() else creatable_problem(option, p)
        if problem:
            ap.error(problem)


MERGE_READS = ("game", "merge", "png", "json")


def check_merge_args(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """With ``--merge`` only ``--game``, ``--png`` and ``--json`` are read (the games, trackers
    and their options are those of the merged files): any other option given (differing from its
    default) ends in ``ap.error`` naming it, rather than being silently ignored."""
    given = [f"--{k.replace('_', '-')}" for k, v in vars(a).items()
             if k not in MERGE_READS and v != ap.get_default(k)]
    if given:
        ap.error(f"--merge reads only --game, --png and --json (the runs are those of the "
                 f"merged files); drop {' '.join(given)}")


def main(argv: Sequence[str] | None = None) -> int:
    from agents.belief import ADAPTERS
    from training.cli import ArgumentParser

    ap = ArgumentParser(prog="python -m benchmarks.deduction", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--players", nargs="+", default=["heuristic"])
    ap.add_argument("--observer-seat", type=int, default=0)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--num-players", type=int, default=None)
    ap.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                    help="extra game keywords: KEY=VALUE items (values read as JSON, as in "
                         "training.evaluate) or one JSON object such as '{\"beginner\": true}'")
    ap.add_argument("--trackers", nargs="+", default=["uniform", "consistent", "policy", "probe"])
    ap.add_argument("--probe", default=None, help="probe model from python -m training.probe")
    ap.add_argument("--particles", type=int, default=None,
                    help="particles of the policy, policy-random and policy-ppo trackers "
                         "(default 100)")
    ap.add_argument("--samples", type=int, default=None,
                    help="worlds of the sampled consistent tracker (default 200)")
    ap.add_argument("--epsilon", type=float, default=None,
                    help="weight of uniform play mixed into the heuristic that the policy and "
                         "policy-exact trackers assume the other seats play (default 0.1)")
    ap.add_argument("--refresh", type=int, default=None,
                    help="the sampled consistent tracker resamples every this many actions "
                         "(default 1; long Clandestine histories make a world cost ~40 ms)")
    ap.add_argument("--policy-mix", type=float, default=None,
                    help="defensive mixture weight of the consistent posterior in the policy "
                         "trackers' belief (default 0: plain Bayes)")
    ap.add_argument("--move-steps", type=int, default=None,
                    help="independence Metropolis-Hastings steps per particle after each "
                         "resampling of the policy, policy-random and policy-ppo trackers "
                         "(resample-move; default 0: none)")
    ap.add_argument("--policy-samples", type=int, default=None,
                    help="heuristic calls per observation in the policy model (default: "
                         "agents.belief.HEURISTIC_SAMPLES)")
    ap.add_argument("--max-decisions", type=int, default=100_000,
                    help="follow only each game's first this many decisions (game time is "
                         "then measured over them; for trackers too slow for whole games)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--png", default=None, help="output PNG (default deduction_<game>.png)")
    ap.add_argument("--json", default=None,
                    help="also write the numbers as JSON (undefined values as null)")
    ap.add_argument("--merge", nargs="+", default=None, metavar="JSON",
                    help="print and plot the merged results of these --json files (runs of "
                         "the same trackers on different games) instead of running")
    a = ap.parse_args(argv)
    if a.merge:
        check_merge_args(ap, a)
        check_output_args(ap, a)
        try:
            res = merge([json.loads(Path(f).read_text()) for f in a.merge])
        except OSError as exc:
            ap.error(f"--merge: {exc.filename}: {exc.strerror or exc}")
        except ValueError as exc:
            ap.error(f"--merge: {exc}")
        merged_game = next(iter(res.values())).get("game")
        resolved = None        # the merged files' own (kept by merge)
        if merged_game is not None and merged_game != a.game:
            ap.error(f"--merge: the files are runs of {merged_game}, not --game {a.game}")
        games = next(iter(res.values()))["games"]
        options = None         # the merged files' own (kept by merge)
        heading = (f"{a.game}, {games} games merged from {len(a.merge)} files; "
                   f"{options_text(next(iter(res.values())).get('options'), list(res))}")
        title = f"{a.game}, {games} games"
    else:
        config, resolved = check_cli_args(ap, a)
        # the game's whole configuration (defaults filled in), written with --json for --merge
        resolved = json.loads(json.dumps(resolved))
        options = run_options(a, resolved["num_players"])
        trackers = list(a.trackers)
        if "probe" in trackers and a.probe is None:
            print("note: no --probe model given; the probe tracker is skipped")
            trackers.remove("probe")
        res = run(a.game, config, a.players, a.observer_seat, a.games, trackers, a.seed,
                  a.particles, a.samples, a.epsilon, a.probe, a.policy_samples, a.policy_mix,
                  a.refresh, a.max_decisions, log=lambda s: print(s, file=sys.stderr),
                  move_steps=a.move_steps)
        heading = f"{a.game} {config}, {a.games} games; {options_text(options, trackers)}"
        title = (f"{a.game} {config} players {' '.join(a.players)}, seat {a.observer_seat}, "
                 f"{a.games} games")
    print(f"## {heading}\n")
    print(markdown(res))
    png = a.png or f"deduction_{a.game}.png"
    plot(res, png, title)
    print(f"\nplot: {png}")
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(json_results(res, a.game, resolved, options),
                                           allow_nan=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
