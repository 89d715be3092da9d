"""The evaluation loop: any agents against any agents, seats rotated, win rates with intervals.

A *lineup* is a list of agent specs, one per seat (``random``, ``heuristic``, ``ppo:PATH``; see
:func:`agents.make_agent`). Game ``g`` seats lineup entry ``i`` at seat ``(i + g) % n``, so over a
multiple of ``n`` games every entry plays every seat equally often. An entry *wins* a game when
its return is positive (the game's winner, or a shared winner); games with no winner count as a
loss for everyone, so win rates need not add up to 1.

Win rates come with 95% Wilson score intervals (``scipy.stats.binomtest``); ratings use
openskill's Plackett-Luce model, one rating per lineup entry.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from agents import Agent, act_with_state, make_agent
from envs import make_raw_env
from envs.core.aec import seat_of


def wilson_interval(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a win rate ``wins / games`` (``(0, 1)`` when ``games == 0``).

    Raises:
        ValueError: ``wins`` outside ``0..games``.
    """
    if not 0 <= wins <= games:
        raise ValueError(f"wins must be in 0..games, got wins={wins}, games={games}")
    if games == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    ci = binomtest(wins, games).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


@dataclass
class GameResult:
    """One finished game: ``seating[s]`` is the lineup index at seat ``s``."""

    seed: int
    seating: list[int]
    returns: list[float]
    length: int
    truncated: bool
    record: dict[str, Any] | None = None
    #: a seat the rules play, not an agent (Clandestine's Nemesis), won the game
    rules_won: bool = False
    #: the returns of the seats the rules play, in seat order (empty when agents play all)
    rules_returns: list[float] = field(default_factory=list)


@dataclass
class EvaluationReport:
    """Outcome of :func:`evaluate`: per-entry and per-seat tables plus game statistics."""

    game: str
    config: dict[str, Any]
    lineup: list[str]
    labels: list[str]
    results: list[GameResult] = field(default_factory=list)
    seconds: float = 0.0
    ratings: dict[str, dict[str, float]] = field(default_factory=dict)
    #: the rating of the seats the rules play (Clandestine's Nemesis), rated as one more
    #: player against the entries (``mu``, ``sigma``, ``ordinal``); ``None`` when agents play
    #: every seat
    rules_rating: dict[str, float] | None = None

    @property
    def num_games(self) -> int:
        return len(self.results)

    def entry_rows(self) -> list[dict[str, Any]]:
        """One row per lineup entry: games, wins, win_rate, ci_low, ci_high, mean_return, rating."""
        rows = []
        for i, label in enumerate(self.labels):
            own = [r.returns[r.seating.index(i)] for r in self.results]
            wins = sum(x > 0 for x in own)
            mean_ret = float(np.mean(own)) if own else 0.0
            lo, hi = wilson_interval(wins, self.num_games)
            rows.append({"entry": label, "spec": self.lineup[i], "games": self.num_games,
                         "wins": int(wins), "win_rate": wins / max(1, self.num_games),
                         "ci_low": lo, "ci_high": hi, "mean_return": mean_ret,
                         **{f"rating_{k}": v for k, v in self.ratings.get(label, {}).items()}})
        return rows

    def seat_rows(self) -> list[dict[str, Any]]:
        """One row per (lineup entry, seat): games, wins, win_rate and its interval."""
        counts: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
        for r in self.results:
            for seat, i in enumerate(r.seating):
                counts[(i, seat)][0] += 1
                counts[(i, seat)][1] += r.returns[seat] > 0
        rows = []
        for (i, seat), (games, wins) in sorted(counts.items()):
            lo, hi = wilson_interval(wins, games)
            rows.append({"entry": self.labels[i], "seat": seat, "games": games, "wins": wins,
                         "win_rate": wins / games, "ci_low": lo, "ci_high": hi})
        return rows

    def summary(self) -> dict[str, Any]:
        """Game-level statistics: games, no-winner share, the share won by a seat the rules
        play (Clandestine's Nemesis; 0 in other games), truncated share, mean length, games/s."""
        n = max(1, self.num_games)
        return {
            "games": self.num_games,
            "no_winner_share": sum(all(x <= 0 for x in r.returns) and not r.rules_won
                                   for r in self.results) / n,
            "rules_seat_win_share": sum(r.rules_won for r in self.results) / n,
            "truncated_share": sum(r.truncated for r in self.results) / n,
            "mean_length": float(np.mean([r.length for r in self.results])) if self.results else 0,
            "seconds": self.seconds,
            "games_per_second": self.num_games / self.seconds if self.seconds else 0.0,
        }

    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable report (game records are omitted)."""
        out = {"game": self.game, "config": self.config, "lineup": self.lineup,
               "summary": self.summary(), "entries": self.entry_rows(), "seats": self.seat_rows()}
        if self.rules_rating is not None:
            out["rules_rating"] = self.rules_rating
        return out


def entry_labels(lineup: Sequence[str]) -> list[str]:
    """Unique labels for lineup entries: the spec, with ``#k`` added when a spec repeats."""
    totals = defaultdict(int)
    for spec in lineup:
        totals[spec] += 1
    seen: dict[str, int] = defaultdict(int)
    labels = []
    for spec in lineup:
        seen[spec] += 1
        labels.append(spec if totals[spec] == 1 else f"{spec}#{seen[spec]}")
    return labels


def play_game(env: Any, seated: Sequence[Agent], seed: int, keep_record: bool = False
              ) -> tuple[list[float], int, bool, dict | None]:
    """Play one game through the AEC API; ``seated[s]`` acts for seat ``s``.

    Returns ``(returns per agent seat, number of actions, truncated, record or None)``.

    Raises:
        ValueError: one agent object at two seats (an agent that remembers the game is one
            instance per seat: CONVENTIONS.md, "Agents").
    """
    _check_distinct(seated)
    env.reset(seed=seed)
    for agent in seated:
        agent.reset()
    truncated = False
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            truncated = truncated or trunc
            env.step(None)
            continue
        env.step(act_with_state(seated[seat_of(name)], obs, name, env.game))
    game = env.game
    returns = game.returns() if game.is_terminal else np.zeros(game.num_players)
    record = game.to_record() if keep_record else None
    # the agents' seats only (a rules-driven seat such as Clandestine's Nemesis is no entry)
    return [float(returns[s]) for s in game.agent_seats], len(game.history), truncated, record


def rules_won(game: Any) -> bool:
    """Whether a seat the rules play, not an agent (Clandestine's Nemesis, in
    ``game.rules_seats``), won the finished ``game`` (its return is positive)."""
    if not game.is_terminal:
        return False
    returns = game.returns()
    return any(returns[q] > 0 for q in game.rules_seats)


def rating_dict(rating: Any) -> dict[str, float]:
    """An openskill rating as ``{"mu", "sigma", "ordinal"}`` floats (ordinal = mu - 3 sigma),
    as the evaluation and league reports give it."""
    return {"mu": float(rating.mu), "sigma": float(rating.sigma),
            "ordinal": float(rating.ordinal())}


def rate_game(model: Any, rating: dict[Any, Any], seats: Sequence[Any],
              returns: Sequence[float]) -> None:
    """One OpenSkill update of ``rating`` (key -> openskill rating, changed in place) for one
    finished game: ``seats[i]`` is the key of the player at seat ``i``, ``returns[i]`` its
    return; each seat is a team of one, ranked by return (rank 1 best, equal returns tie).

    A key holding several seats enters each with its rating before the game; its new ``mu``
    is its old ``mu`` plus the mean of its seats' changes and its new ``sigma`` the mean of its
    seats' new ``sigma`` (one game is one observation of a player, however many seats it
    holds).

    Raises:
        ValueError: ``seats`` and ``returns`` differ in length, fewer than 2 seats, a return
            is not a finite real number (a NaN would rank at random), or a key is not in
            ``rating``.
    """
    if len(seats) != len(returns):
        raise ValueError(f"{len(seats)} seats but {len(returns)} returns")
    if len(seats) < 2:
        raise ValueError(f"a rated game needs at least 2 seats, got {len(seats)}")
    for i, x in enumerate(returns):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer,
                                                                 np.floating)) \
                or not np.isfinite(x):
            raise ValueError(f"the return of seat {i} must be a finite real number, got {x!r}")
    missing = [k for k in seats if k not in rating]
    if missing:
        raise ValueError(f"no rating for {missing[0]!r}")
    order = sorted(set(returns), reverse=True)
    ranks = [order.index(x) + 1 for x in returns]
    # a fresh rating object per seat: openskill copies the teams together, so one object at
    # two seats would be one player updated twice, not two seats rated side by side
    teams = [[model.rating(mu=rating[k].mu, sigma=rating[k].sigma, name=rating[k].name)]
             for k in seats]
    new = model.rate(teams, ranks=ranks)
    changes: dict[Any, list[tuple[float, float]]] = {}
    for k, team in zip(seats, new):
        changes.setdefault(k, []).append((team[0].mu - rating[k].mu, team[0].sigma))
    for k, ch in changes.items():
        rating[k] = model.rating(mu=rating[k].mu + float(np.mean([c[0] for c in ch])),
                                 sigma=float(np.mean([c[1] for c in ch])), name=rating[k].name)


def _check_distinct(agents: Sequence[Agent]) -> None:
    """Raise ValueError when one agent object appears at two seats."""
    seen: dict[int, int] = {}
    for i, agent in enumerate(agents):
        if id(agent) in seen:
            raise ValueError(
                f"the same agent object is given for seats {seen[id(agent)]} and {i}: give one "
                "instance per seat (an agent that remembers the game must not play two seats)")
        seen[id(agent)] = i


def evaluate(game: str, lineup: Sequence[str], num_games: int, seed: int = 0,
             config: dict[str, Any] | None = None, keep_records: bool = False,
             progress: Callable[[int], None] | None = None,
             agents: Sequence[Agent] | None = None,
             labels: Sequence[str] | None = None) -> EvaluationReport:
    """Play ``num_games`` games of ``game`` with ``lineup`` (one spec per seat), seats rotated.

    Args:
        game: registered game name. lineup: agent specs, ``len == num_players``.
        config: game keywords (``num_players`` is taken from ``len(lineup)`` when absent).
        agents: ready-made agents matching ``lineup`` (used instead of building from the specs),
            distinct objects: one instance per entry.
        labels: names of the lineup entries in the tables (default: the specs, ``#k`` on repeats).
        progress: called with 1 after each game (e.g. a progress bar's ``update``).

    Raises:
        ValueError: lineup length differs from ``num_players``, ``num_games < 1``, bad spec,
            the same agent object given for two entries.
    """
    config = dict(config or {})
    config.setdefault("num_players", len(lineup))
    if config["num_players"] != len(lineup):
        raise ValueError(f"lineup has {len(lineup)} agents but num_players is "
                         f"{config['num_players']}: give one agent per seat")
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    env = make_raw_env(game, **config)
    resolved = dict(env.game.config)
    n = len(lineup)
    if agents is None:
        agents = [make_agent(spec, game, resolved, seed=seed * 1000 + i)
                  for i, spec in enumerate(lineup)]
    if len(agents) != n:
        raise ValueError(f"agents must hold one agent per lineup entry ({n}), got {len(agents)}")
    _check_distinct(agents)
    if labels is not None and (len(labels) != n or len(set(labels)) != n):
        raise ValueError(f"labels must be {n} distinct names, got {list(labels)}")
    report = EvaluationReport(game, resolved, list(lineup),
                              list(labels) if labels is not None else entry_labels(lineup))
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for g in range(num_games):
        seating = [(s - g) % n for s in range(n)]          # entry i sits at seat (i + g) % n
        game_seed = int(rng.integers(2**62))
        rets, length, trunc, rec = play_game(env, [agents[i] for i in seating], game_seed,
                                             keep_records)
        finished = env.game.returns() if env.game.is_terminal else None
        report.results.append(GameResult(
            game_seed, seating, rets, length, trunc, rec, rules_won(env.game),
            [float(finished[q]) if finished is not None else 0.0 for q in env.game.rules_seats]))
        if progress:
            progress(1)
    report.seconds = time.perf_counter() - t0
    report.ratings, report.rules_rating = _ratings(report)
    return report


def _ratings(report: EvaluationReport
             ) -> tuple[dict[str, dict[str, float]], dict[str, float] | None]:
    """Openskill Plackett-Luce ratings per entry from the games' ranks (higher return = better),
    and the rating of the seats the rules play (``None`` when agents play every seat).

    Each seat is a team of one. The seats the rules play (Clandestine's Nemesis) are one more
    player, rated against the entries, so in solo play an entry's rating measures it against
    the Nemesis (with one agent seat there is no other entry to rank it against).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    # keys: entry index, and -1 for the seats the rules play (one player however many seats)
    rating: dict[int, Any] = {i: model.rating(name=label) for i, label in enumerate(report.labels)}
    has_rules = any(r.rules_returns for r in report.results)
    if has_rules:
        rating[-1] = model.rating(name="rules")
    for r in report.results:
        rate_game(model, rating, list(r.seating) + [-1] * len(r.rules_returns),
                  list(r.returns) + list(r.rules_returns))
    ratings = {label: rating[i] for i, label in enumerate(report.labels)}
    rules = rating[-1] if has_rules else None
    return ({k: rating_dict(v) for k, v in ratings.items()},
            rating_dict(rules) if rules is not None else None)


if __name__ == "__main__":
    import sys

    from training.cli import library_main

    sys.exit(library_main("arena",
                          "The evaluation loop (any agents against any agents, seats rotated, "
                          "win rates with 95% intervals).",
                          "python -m training.evaluate"))
