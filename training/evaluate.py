"""Evaluate any agents against any agents: ``python -m training.evaluate``.

Examples::

    python -m training.evaluate --game prowl --agents heuristic random random random --games 1000
    python -m training.evaluate --game prowl --agents ppo:runs/prowl/final_model.zip \\
        heuristic heuristic heuristic --games 500 --out runs/eval_vs_heuristic

One agent spec per seat (``random``, ``heuristic``, ``ppo:PATH``, ``ismcts:N``); the number of
agents sets ``num_players``. Seats are rotated game by game. Writes ``evaluation.json``,
``evaluation.csv`` (per entry), ``evaluation_seats.csv`` (per entry and seat) and
``evaluation.png`` into ``--out``,
and prints the table: win rate with its 95% Wilson interval, mean return, openskill rating (in solo
Clandestine the Nemesis is rated as one more player, so the ratings measure the agents against it).
``--records`` adds ``records.jsonl``: every game's replayable record with the agent in each seat.
An ``--out`` that already holds any of these files is refused before any game is played unless
``--overwrite`` is given, which deletes them once the new results are ready to be written (no
earlier ``records.jsonl`` is left beside new results; games that fail or are interrupted leave
the earlier files in place).
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from agents import make_agent
from envs import GAMES, make_raw_env

from .arena import EvaluationReport, evaluate
from .cli import ArgumentParser, check_out_folder, refuse_to_replace, remove_outputs
from .plots import save_chart, seat_parity
from .seatview import RULES_LABEL


def parse_config(pairs: Sequence[str]) -> dict[str, Any]:
    """``["key=value", ...]`` to a dict.

    Values are read as JSON (``true``, ``4``, ``["Spring", ...]``) or as Python literals
    (``True``, ``None``), and otherwise kept as strings (``reward=zero_sum``).

    Raises:
        ValueError: an item without ``=`` or a key given twice.
    """
    config: dict[str, Any] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--config items are KEY=VALUE, got {item!r}")
        if key in config:
            raise ValueError(f"--config gives {key!r} twice")
        try:
            config[key] = json.loads(value)
        except json.JSONDecodeError:
            try:
                config[key] = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                config[key] = value
    return config


def print_report(report: EvaluationReport, title: str | None = None) -> None:
    """Print the per-entry table (rich) and the game statistics."""
    from rich.console import Console
    from rich.table import Table

    s = report.summary()
    table = Table(title=title or f"{report.game}: {' vs '.join(report.lineup)}")
    for col in ("agent", "games", "wins", "win rate", "95% CI", "mean return", "rating (mu)"):
        table.add_column(col, justify="right" if col != "agent" else "left")
    for row in report.entry_rows():
        table.add_row(row["entry"], str(row["games"]), str(row["wins"]),
                      f"{row['win_rate']:.3f}", f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]",
                      f"{row['mean_return']:+.3f}", f"{row.get('rating_mu', float('nan')):.2f}")
    console = Console(width=110)
    console.print(table)
    nemesis = (f", won by the seat the rules play {s['rules_seat_win_share']:.1%}"
               if s["rules_seat_win_share"] else "")
    if report.rules_rating is not None:   # the Nemesis, rated as one more player
        nemesis += f", rating of the seat the rules play (mu) {report.rules_rating['mu']:.2f}"
    console.print(f"games {s['games']}, no winner {s['no_winner_share']:.1%}{nemesis}, truncated "
                  f"{s['truncated_share']:.1%}, mean length {s['mean_length']:.1f} actions, "
                  f"{s['games_per_second']:.1f} games/s")


#: the files an evaluation writes in ``--out`` (``records.jsonl`` with ``--records``)
OUTPUT_NAMES = ("evaluation.json", "evaluation.csv", "evaluation_seats.csv", "evaluation.png",
                "records.jsonl")


def write_report(report: EvaluationReport, out: Path, name: str = "evaluation",
                 learning_curve: Any = None) -> dict[str, Path]:
    """Write ``<name>.json``, ``<name>.csv``, ``<name>_seats.csv`` and ``<name>.png`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / f"{name}.json", "csv": out / f"{name}.csv",
             "seats": out / f"{name}_seats.csv", "png": out / f"{name}.png"}
    paths["json"].write_text(json.dumps(report.to_json(), indent=2))
    for key, rows in (("csv", report.entry_rows()), ("seats", report.seat_rows())):
        with paths[key].open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    save_chart(paths["png"], report.entry_rows(), f"{report.game}: {' vs '.join(report.lineup)}",
               learning_curve=learning_curve, chance=seat_parity(report.game, report.config))
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.evaluate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--agents", nargs="+", required=True,
                        help="one spec per seat: random | heuristic | ppo:PATH | ismcts:N")
    parser.add_argument("--games", type=int, default=400, help="number of games (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                        help="game keywords, e.g. beginner=true cards_per_player=7; values are "
                             "read as JSON, so a list is written "
                             "societies='[\"garden\",\"blue\"]'")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default runs/eval-<game>-<time>)")
    parser.add_argument("--records", action="store_true",
                        help="also write every game's replayable record to records.jsonl")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the outputs of an earlier evaluation in --out (refused "
                             "without it)")
    args = parser.parse_args(argv)
    out = args.out or Path("runs") / f"eval-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    check_out_folder(parser, out)    # found before the games are played, not when writing
    if args.games < 1:
        parser.error(f"--games must be a positive integer, got {args.games}")
    if args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    from tqdm import tqdm

    try:   # the lineup is built (specs and ppo: files checked) before the bar is drawn
        config = parse_config(args.config)
        config.setdefault("num_players", len(args.agents))
        if config["num_players"] != len(args.agents):
            raise ValueError(f"--agents gives {len(args.agents)} agents but num_players is "
                             f"{config['num_players']}: give one agent per seat")
        resolved = dict(make_raw_env(args.game, **config).game.config)
        agents = [make_agent(spec, args.game, resolved, seed=args.seed * 1000 + i)
                  for i, spec in enumerate(args.agents)]
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    earlier = refuse_to_replace(parser, out, OUTPUT_NAMES, args.overwrite)
    try:
        with tqdm(total=args.games, desc="games", unit="game", disable=args.no_progress) as bar:
            report = evaluate(args.game, args.agents, args.games, seed=args.seed,
                              config=config, keep_records=args.records,
                              progress=bar.update, agents=agents)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    print_report(report)
    remove_outputs(out, earlier)      # only now: failed or interrupted games left them in place
    paths = write_report(report, out)
    if args.records:
        with (out / "records.jsonl").open("w") as fh:
            for r in report.results:
                seats = [report.labels[i] for i in r.seating]
                # a seat the rules play (Clandestine's Nemesis, seated last) has no agent
                seats += [RULES_LABEL] * (len(r.record.get("returns", seats)) - len(seats))
                fh.write(json.dumps({**r.record, "agents": seats}) + "\n")
    print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
