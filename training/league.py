"""A league: every pair of agents across the table, a cross-play matrix and ratings.

``python -m training.league``. Examples::

    python -m training.league --game prowl --agents random heuristic ismcts:200 --games 100
    python -m training.league --game clans --agents heuristic ppo:runs/clans/final_model.zip \\
        --games 300 --out runs/league-clans

For every pair of agents A and B the league plays two *match-ups* of ``--games`` games each: A
alone among ``n - 1`` copies of B, and B alone among ``n - 1`` copies of A (the "add one agent to a
table" test, as in DeepRole's evaluation with humans; with two seats the pair is one match-up).
Seats are rotated game by game (the arena's :func:`training.arena.evaluate`), so the lone agent
plays every seat equally often over a multiple of ``n`` games. Every copy is its own agent
instance (CONVENTIONS.md, "Agents"). A seat *wins* a game when its return is positive; a game with
no winner is a loss for every seat.

Written into ``--out`` (and the tables printed):

* ``league.md``: the cross-play matrix (row agent's win rate alone among copies of the column
  agent, 95% Wilson interval), the match-ups (lone and copies' win rates and the share of seats
  that win, the no-skill reference), the OpenSkill ratings and the per-seat win rates;
* ``league.png``: the cross-play matrix as a heat map;
* ``league.json``: everything above plus every game (seats, returns, seed, length), from which
  the tables can be recomputed.

An ``--out`` that already holds one of them is refused before any game is played unless
``--overwrite`` is given, which deletes them once the new results are ready to be written
(games that fail or are interrupted leave the earlier files in place).

Ratings: OpenSkill's Plackett-Luce model (Weng & Lin 2011), one rating per agent; each game ranks
its seats by their returns (equal returns tie); the games are rated in an interleaved order (game 0
of every match-up, then game 1, ...), so no match-up is rated wholly before another.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from envs import GAMES, make_raw_env

from .arena import evaluate, rate_game, rating_dict, wilson_interval
from .cli import (
    ArgumentParser,
    check_out_folder,
    refuse_to_replace,
    remove_outputs,
    set_num_players,
)


@dataclass
class LeagueGame:
    """One game of the league.

    ``seats[s]`` is the agent (its spec) at seat ``s``; ``lone`` the agent alone at the table,
    ``copies`` the agent in the other ``n - 1`` seats; ``returns[s]`` the seat's return.
    """

    matchup: int
    lone: str
    copies: str
    seats: list[str]
    returns: list[float]
    seed: int
    length: int
    truncated: bool
    #: a seat the rules play, not an agent (Clandestine's Nemesis), won the game
    rules_won: bool = False

    def won(self, seat: int) -> bool:
        """Whether ``seat`` won (its return is positive)."""
        return self.returns[seat] > 0


@dataclass
class LeagueReport:
    """Outcome of :func:`run_league`: the games and the tables computed from them."""

    game: str
    config: dict[str, Any]
    agents: list[str]
    games_per_matchup: int
    seed: int
    games: list[LeagueGame] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def num_players(self) -> int:
        """Seats at the table (the game's resolved ``num_players``)."""
        return int(self.config["num_players"])

    def matrix(self) -> dict[str, dict[str, dict[str, float]]]:
        """The cross-play matrix: ``matrix()[a][b]`` is ``a``'s record alone among copies of ``b``.

        Each cell holds ``games``, ``wins``, ``win_rate``, ``ci_low``, ``ci_high`` (95% Wilson).
        With two seats both agents sit alone, so a game of the pair counts in both cells.
        The diagonal is absent.
        """
        counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        for g in self.games:
            for agent, other in ((g.lone, g.copies), (g.copies, g.lone)):
                held = [s for s, a in enumerate(g.seats) if a == agent]
                if len(held) == 1:
                    counts[(agent, other)][0] += 1
                    counts[(agent, other)][1] += g.won(held[0])
        out: dict[str, dict[str, dict[str, float]]] = {a: {} for a in self.agents}
        for (a, b), (games, wins) in counts.items():
            out[a][b] = _cell(wins, games)
        return out

    def matchup_rows(self) -> list[dict[str, Any]]:
        """One row per match-up: the lone agent's and the copies' per-seat win rates.

        ``seat_win_share`` is the share of all seats that won: what the lone agent scores when it
        is no better and no worse than the copies (the no-skill reference).
        """
        by: dict[int, list[LeagueGame]] = defaultdict(list)
        for g in self.games:
            by[g.matchup].append(g)
        rows = []
        n = self.num_players
        for m in sorted(by):
            games = by[m]
            lone_seat = [g.seats.index(g.lone) for g in games]
            lone_wins = sum(g.won(s) for g, s in zip(games, lone_seat))
            copy_wins = sum(g.won(s) for g, ls in zip(games, lone_seat) for s in range(n)
                            if s != ls)
            all_wins = sum(g.won(s) for g in games for s in range(n))
            rows.append({"matchup": m, "lone": games[0].lone, "copies": games[0].copies,
                         "games": len(games),
                         "lone_win": _cell(lone_wins, len(games)),
                         "copies_win": _cell(copy_wins, len(games) * (n - 1)),
                         "seat_win_share": all_wins / (len(games) * n),
                         "no_winner_share": sum(not any(x > 0 for x in g.returns)
                                                and not g.rules_won
                                                for g in games) / len(games),
                         "truncated_share": sum(g.truncated for g in games) / len(games),
                         "mean_length": float(np.mean([g.length for g in games]))})
        return rows

    def seat_table(self) -> dict[str, dict[int, dict[str, float]]]:
        """Win rate per agent and seat over every seat the agent held (alone or as a copy),
        plus the row ``"all"``: any agent at that seat (the advantage of the position)."""
        counts: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
        for g in self.games:
            for s, a in enumerate(g.seats):
                for key in (a, "all"):
                    counts[(key, s)][0] += 1
                    counts[(key, s)][1] += g.won(s)
        out: dict[str, dict[int, dict[str, float]]] = {a: {} for a in [*self.agents, "all"]}
        for (a, s), (games, wins) in sorted(counts.items(), key=lambda kv: kv[0][1]):
            out[a][s] = _cell(wins, games)
        return out

    def ratings(self) -> dict[str, dict[str, float]]:
        """OpenSkill Plackett-Luce ratings per agent: ``mu``, ``sigma``, ``ordinal`` (mu - 3 sigma).

        Every game is one rating update in which each seat is a team of one, ranked by its
        return (rank 1 best, equal returns tie). An agent holding several seats of a game enters
        each with its rating before the game; its new ``mu`` is its old ``mu`` plus the mean of
        its seats' changes, its new ``sigma`` the mean of its seats' new ``sigma`` (one game is
        one observation of the agent, however many seats it holds). Games are rated in the
        interleaved order (game ``k`` of every match-up before game ``k + 1`` of any).
        """
        from openskill.models import PlackettLuce

        model = PlackettLuce()
        rating = {a: model.rating(name=a) for a in self.agents}
        by: dict[int, list[LeagueGame]] = defaultdict(list)
        for g in self.games:
            by[g.matchup].append(g)
        longest = max((len(v) for v in by.values()), default=0)
        for k in range(longest):
            for m in sorted(by):
                if k >= len(by[m]):
                    continue
                g = by[m][k]
                rate_game(model, rating, g.seats, g.returns)
        return {a: rating_dict(r) for a, r in rating.items()}

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable report: settings, tables and every game."""
        return {"game": self.game, "config": self.config, "agents": self.agents,
                "games_per_matchup": self.games_per_matchup, "seed": self.seed,
                "seconds": self.seconds, "matrix": self.matrix(),
                "matchups": self.matchup_rows(), "ratings": self.ratings(),
                "seats": {a: {str(s): c for s, c in row.items()}
                          for a, row in self.seat_table().items()},
                "games": [g.__dict__ for g in self.games]}

    def markdown(self) -> str:
        """The tables as markdown: matrix, match-ups, ratings (best first), seats."""
        n = self.num_players
        m = self.matrix()
        lines = [(f"# League: {self.game}, {n} players, {self.games_per_matchup} games per "
                  f"match-up, seed {self.seed}"), "",
                 (f"Cross-play: the row agent's win rate alone among {n - 1} "
                  f"cop{'y' if n == 2 else 'ies'} of the column agent, 95% Wilson interval, seats "
                  "rotated."), "",
                 "| alone \\ among | " + " | ".join(self.agents) + " |",
                 "|---|" + "---|" * len(self.agents)]
        for a in self.agents:
            lines.append(f"| {a} | " + " | ".join("—" if b == a else _fmt(m[a].get(b))
                                                   for b in self.agents) + " |")
        lines += ["", ("Match-ups (seat win share: the share of all seats that won, what an agent "
                       "no better than the others scores):"), "",
                  ("| alone | among | games | alone wins | copies win (per seat) | seat win share "
                   "| no winner | mean length |"), "|---|---|---|---|---|---|---|---|"]
        for r in self.matchup_rows():
            lines.append(f"| {r['lone']} | {r['copies']} | {r['games']} | {_fmt(r['lone_win'])} "
                         f"| {_fmt(r['copies_win'])} | {r['seat_win_share']:.3f} "
                         f"| {r['no_winner_share']:.1%} | {r['mean_length']:.1f} |")
        ratings = sorted(self.ratings().items(), key=lambda kv: -kv[1]["ordinal"])
        lines += ["", "OpenSkill (Plackett-Luce) ratings, best first (ordinal = mu - 3 sigma):", "",
                  "| agent | mu | sigma | ordinal |", "|---|---|---|---|"]
        lines += [f"| {a} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |"
                  for a, r in ratings]
        seats = self.seat_table()
        lines += ["", "Win rate by seat (every seat the agent held, alone or as a copy):", "",
                  "| agent | " + " | ".join(f"seat {s}" for s in range(n)) + " |",
                  "|---|" + "---|" * n]
        for a, row in seats.items():
            lines.append(f"| {a} | " + " | ".join(_fmt(row.get(s)) for s in range(n)) + " |")
        s = self.seconds
        lines += ["", f"{len(self.games)} games in {s:.0f} s."]
        return "\n".join(lines) + "\n"


def _cell(wins: int, games: int) -> dict[str, float]:
    lo, hi = wilson_interval(int(wins), int(games))
    return {"games": int(games), "wins": int(wins), "win_rate": wins / games if games else 0.0,
            "ci_low": lo, "ci_high": hi}


def _fmt(cell: dict[str, float] | None) -> str:
    if not cell:
        return ""
    return f"{cell['win_rate']:.3f} [{cell['ci_low']:.3f}, {cell['ci_high']:.3f}]"


def matchups(agents: Sequence[str], num_players: int) -> list[tuple[str, str]]:
    """The match-ups ``(lone, copies)`` of a league: for each pair ``a`` before ``b`` in
    ``agents``, ``(a, b)`` then ``(b, a)``; with two seats only ``(a, b)`` (the same table).

    Raises:
        ValueError: fewer than two agents, an agent given twice, ``num_players < 2``.
    """
    if len(agents) < 2:
        raise ValueError(f"a league needs at least 2 agents, got {len(agents)}: {list(agents)}")
    seen = set()
    for a in agents:
        if a in seen:
            raise ValueError(f"agent {a!r} is given twice: give each agent once")
        seen.add(a)
    if num_players < 2:
        raise ValueError(f"a league needs at least 2 seats, got num_players={num_players}")
    out = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            out.append((a, b))
            if num_players > 2:
                out.append((b, a))
    return out


def matchup_seed(seed: int, lone: str, copies: str) -> int:
    """The seed of one match-up, from the league's seed and the two specs only, so a match-up
    plays the same games whatever other agents are in the league."""
    words = [int(seed)] + list((lone + "\x00" + copies).encode())
    return int(np.random.SeedSequence(words).generate_state(1, dtype=np.uint32)[0])


def run_league(game: str, agents: Sequence[str], games: int, seed: int = 0,
               config: dict[str, Any] | None = None,
               progress: Callable[[int], None] | None = None) -> LeagueReport:
    """Play the league: ``games`` games per match-up (:func:`matchups`), seats rotated.

    Args:
        game: registered game name. agents: specs (:func:`agents.make_agent`), distinct.
        config: game keywords (``num_players`` defaults to the game's own default).
        progress: called with 1 after each game.

    Raises:
        ValueError: fewer than 2 agents, a repeated agent, ``games < 1``, a bad spec or config;
        FileNotFoundError: a ``ppo:`` path is missing.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    resolved = dict(make_raw_env(game, **dict(config or {})).game.config)
    n = int(resolved["num_players"])
    pairs = matchups(agents, n)
    report = LeagueReport(game, resolved, list(agents), int(games), int(seed))
    t0 = time.perf_counter()
    for m, (lone, copies) in enumerate(pairs):
        lineup = [lone] + [copies] * (n - 1)
        ev = evaluate(game, lineup, games, seed=matchup_seed(seed, lone, copies),
                      config=resolved, progress=progress)
        for r in ev.results:
            report.games.append(LeagueGame(m, lone, copies, [lineup[i] for i in r.seating],
                                           r.returns, r.seed, r.length, r.truncated,
                                           r.rules_won))
    report.seconds = time.perf_counter() - t0
    return report


def save_heatmap(path: str | Path, report: LeagueReport) -> Path:
    """Write the cross-play matrix as a heat-map PNG (row agent's win rate alone among copies
    of the column agent, the interval in each cell; diagonal blank). The colour scale is yellow
    at ``1 / num_players`` (one winner per game, all seats equal), red below, green above;
    beside a seat the rules play (a Clandestine Nemesis) no seat win rate is the equal one, and
    the scale runs from red at 0 to green at 1 (:func:`training.plots.seat_parity`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = report.agents
    k = len(names)
    m = report.matrix()
    values = np.full((k, k), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if b in m[a]:
                values[i, j] = m[a][b]["win_rate"]
    size = 1.6 + 1.5 * k
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    cmap = plt.get_cmap("RdYlGn").with_extremes(bad="lightgrey")
    from .plots import seat_parity

    # yellow: the win rate of a seat when all seats are equal (none beside a Nemesis)
    parity = seat_parity(report.game, report.config)
    norm = (matplotlib.colors.Normalize(vmin=0, vmax=1) if parity is None
            else matplotlib.colors.TwoSlopeNorm(vmin=0, vcenter=parity, vmax=1))
    im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, norm=norm)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if b in m[a]:
                c = m[a][b]
                ax.text(j, i, f"{c['win_rate']:.2f}\n[{c['ci_low']:.2f}, {c['ci_high']:.2f}]",
                        ha="center", va="center", fontsize=8,
                        color="white" if not 0.15 < norm(c["win_rate"]) < 0.85 else "black")
    ax.set_xticks(range(k), names, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(k), names, fontsize=8)
    ax.set_xlabel(f"among {report.num_players - 1} copies of")
    ax.set_ylabel("alone")
    fig.colorbar(im, ax=ax, label="win rate")
    ax.set_title(f"{report.game}, {report.num_players} players, "
                 f"{report.games_per_matchup} games per match-up")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def write_league(report: LeagueReport, out: Path) -> dict[str, Path]:
    """Write ``league.json``, ``league.md`` and ``league.png`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "league.json", "md": out / "league.md", "png": out / "league.png"}
    paths["json"].write_text(json.dumps(report.to_json(), indent=1))
    paths["md"].write_text(report.markdown())
    save_heatmap(paths["png"], report)
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    from .evaluate import parse_config

    parser = ArgumentParser(prog="python -m training.league", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--agents", nargs="+", required=True,
                        help="two or more specs: random | heuristic | ppo:PATH | ismcts:N")
    parser.add_argument("--games", type=int, default=100,
                        help="games per match-up (default 100)")
    parser.add_argument("--players", type=int, default=None,
                        help="number of seats (default: the game's default)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                        help="game keywords, e.g. beginner=true; values are read as JSON, "
                             "so a list is written societies='[\"garden\",\"blue\"]'")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default runs/league-<game>-<time>)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the outputs of an earlier league in --out (refused "
                             "without it)")
    args = parser.parse_args(argv)
    out = args.out or Path("runs") / f"league-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    check_out_folder(parser, out)    # found before the games are played, not when writing
    if args.games < 1:
        parser.error(f"--games must be a positive integer, got {args.games}")
    if args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    from agents import make_agent

    try:   # specs, ppo: files and the game's configuration are checked before the bar is drawn
        config = set_num_players(parser, parse_config(args.config), args.players,
                                 option="--players")
        resolved = dict(make_raw_env(args.game, **config).game.config)
        pairs = matchups(args.agents, int(resolved["num_players"]))
        for i, spec in enumerate(args.agents):
            make_agent(spec, args.game, resolved, seed=i)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    earlier = refuse_to_replace(parser, out, ("league.json", "league.md", "league.png"),
                                args.overwrite)
    from tqdm import tqdm

    try:
        with tqdm(total=len(pairs) * args.games, desc="league games", unit="game",
                  disable=args.no_progress) as bar:
            report = run_league(args.game, args.agents, args.games, seed=args.seed,
                                config=resolved, progress=bar.update)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    text = report.markdown()
    print(text, end="")
    remove_outputs(out, earlier)      # only now: failed or interrupted games left them in place
    paths = write_league(report, out)
    print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
