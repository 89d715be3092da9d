"""The league (``python -m training.league``): match-ups, tables recomputed from the games,
ratings, reproducibility, files and one-line errors (fast, Prowl with few games)."""

import json
from collections import defaultdict

import numpy as np
import pytest

from training.arena import rate_game, wilson_interval
from training.league import main, matchups, run_league, save_heatmap


def test_matchups_are_each_agent_alone_among_copies_of_each_other():
    assert matchups(["a", "b", "c"], 4) == [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"),
                                            ("b", "c"), ("c", "b")]
    assert matchups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]


def test_files_and_tables_agree_with_the_recorded_games(tmp_path, capsys):
    out = tmp_path / "league"
    assert main(["--game", "prowl", "--agents", "random", "heuristic", "ismcts:3",
                 "--players", "3", "--games", "3", "--seed", "5", "--out", str(out),
                 "--no-progress"]) == 0
    printed = capsys.readouterr().out
    md = (out / "league.md").read_text()
    assert md in printed and "| alone \\ among | random | heuristic | ismcts:3 |" in md
    assert (out / "league.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((out / "league.json").read_text())
    assert data["config"]["num_players"] == 3 and data["games_per_matchup"] == 3
    games = data["games"]
    assert len(games) == 6 * 3
    # every match-up: one lone agent, two copies of the other, the lone agent at every seat once
    per_seat = defaultdict(int)
    counts = defaultdict(lambda: [0, 0])
    seat_counts = defaultdict(lambda: [0, 0])
    for g in games:
        assert sorted(g["seats"]) == sorted([g["lone"], g["copies"], g["copies"]])
        lone_seat = g["seats"].index(g["lone"])
        per_seat[(g["lone"], g["copies"], lone_seat)] += 1
        counts[(g["lone"], g["copies"])][0] += 1
        counts[(g["lone"], g["copies"])][1] += g["returns"][lone_seat] > 0
        for s, a in enumerate(g["seats"]):
            for key in (a, "all"):
                seat_counts[(key, s)][0] += 1
                seat_counts[(key, s)][1] += g["returns"][s] > 0
    assert set(per_seat.values()) == {1} and len(per_seat) == 6 * 3
    # the cross-play matrix, recomputed from the games
    matrix = data["matrix"]
    assert sum(len(row) for row in matrix.values()) == 6
    for (a, b), (n, wins) in counts.items():
        cell = matrix[a][b]
        assert (cell["games"], cell["wins"]) == (n, wins)
        assert cell["win_rate"] == pytest.approx(wins / n)
        assert (cell["ci_low"], cell["ci_high"]) == pytest.approx(wilson_interval(wins, n))
        assert f"{wins / n:.3f} [{cell['ci_low']:.3f}, {cell['ci_high']:.3f}]" in md
    for (a, s), (n, wins) in seat_counts.items():
        assert (data["seats"][a][str(s)]["games"], data["seats"][a][str(s)]["wins"]) == (n, wins)
    for row in data["matchups"]:
        mine = [g for g in games if g["matchup"] == row["matchup"]]
        won = sum(r > 0 for g in mine for r in g["returns"])
        assert row["seat_win_share"] == pytest.approx(won / (3 * len(mine)))
        assert row["lone_win"]["wins"] + row["copies_win"]["wins"] == won
    assert set(data["ratings"]) == {"random", "heuristic", "ismcts:3"}


def test_with_two_seats_each_game_counts_for_both_agents():
    report = run_league("prowl", ["random", "heuristic"], 10, seed=1,
                        config={"num_players": 2})
    m = report.matrix()
    assert len(report.games) == 10
    assert m["random"]["heuristic"]["games"] == m["heuristic"]["random"]["games"] == 10
    wins = {a: sum(g.returns[g.seats.index(a)] > 0 for g in report.games)
            for a in ("random", "heuristic")}
    assert m["random"]["heuristic"]["wins"] == wins["random"]
    assert m["heuristic"]["random"]["wins"] == wins["heuristic"]


def _interleaved(report, games_per_matchup):
    """The league's games in its rating order: game k of every match-up (by match-up index)
    before game k + 1 of any."""
    by = defaultdict(list)
    for g in report.games:
        by[g.matchup].append(g)
    return [by[m][k] for k in range(games_per_matchup) for m in sorted(by)]


def test_two_seat_ratings_are_openskills_own_updates_in_the_interleaved_order():
    """With one seat per agent the league's rule for several seats does not apply: the ratings
    are Plackett-Luce's updates of the games, one match-up's game k after the other's."""
    from openskill.models import PlackettLuce

    report = run_league("prowl", ["random", "heuristic", "ismcts:2"], 4, seed=2,
                        config={"num_players": 2})
    model = PlackettLuce()
    r = {a: model.rating(name=a) for a in report.agents}
    for g in _interleaved(report, 4):
        ranks = [1 + (x < max(g.returns)) if len(set(g.returns)) > 1 else 1
                 for x in g.returns]
        (a,), (b,) = model.rate([[r[g.seats[0]]], [r[g.seats[1]]]], ranks=ranks)
        r[g.seats[0]], r[g.seats[1]] = a, b
    got = report.ratings()
    for a in report.agents:
        assert got[a]["mu"] == pytest.approx(r[a].mu) and got[a]["sigma"] == pytest.approx(
            r[a].sigma)


def test_rate_game_combines_a_players_seats_by_the_mean_change():
    """A key holding two seats moves by the mean of its two seats' Plackett-Luce changes and
    takes the mean of their new sigmas; a key with one seat takes its seat's update as is."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = {"a": model.rating(mu=27.0, sigma=6.0, name="a"),
              "b": model.rating(mu=22.0, sigma=7.0, name="b")}
    before = dict(rating)
    seats, returns = ["a", "b", "a"], [1.0, 0.0, -1.0]
    # two distinct rating objects for "a": openskill rates one object given twice as one
    # player updated twice (both its seats come back equal)
    a_twice = [model.rating(mu=27.0, sigma=6.0, name="a") for _ in range(2)]
    (a0,), (b1,), (a2,) = model.rate([[a_twice[0]], [before["b"]], [a_twice[1]]],
                                     ranks=[1, 2, 3])
    (s0,), _, (s2,) = model.rate([[before["a"]], [before["b"]], [before["a"]]], ranks=[1, 2, 3])
    assert s0.mu == s2.mu
    rate_game(model, rating, seats, returns)
    assert rating["a"].mu == pytest.approx(27.0 + ((a0.mu - 27.0) + (a2.mu - 27.0)) / 2)
    assert rating["a"].sigma == pytest.approx((a0.sigma + a2.sigma) / 2)
    assert rating["b"].mu == pytest.approx(b1.mu) and rating["b"].sigma == pytest.approx(
        b1.sigma)
    assert rating["a"].name == "a"
    # "a"'s first seat ranked first and its second last: the two changes differ
    assert a0.mu > a2.mu
    with pytest.raises(ValueError, match="3 seats but 2 returns"):
        rate_game(model, rating, seats, returns[:2])
    with pytest.raises(ValueError, match="no rating for 'c'"):
        rate_game(model, rating, ["a", "c"], [1.0, 0.0])


@pytest.mark.parametrize("returns, msg", [
    ([float("nan"), float("nan")], "seat 0 must be a finite real number, got nan"),
    ([1.0, float("inf")], "seat 1 must be a finite real number, got inf"),
    (["1", "-1"], "seat 0 must be a finite real number, got '1'"),
    ([True, False], "seat 0 must be a finite real number, got True"),
])
def test_rate_game_refuses_returns_that_are_not_finite_numbers(returns, msg):
    """Returns are ranked by sorting: a NaN compares false with everything, so two NaN seats
    were ranked apart at random (the first one lost), and strings ranked by their letters;
    both are refused now, and the ratings stay as they were."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = {k: model.rating(name=k) for k in "ab"}
    before = {k: (r.mu, r.sigma) for k, r in rating.items()}
    with pytest.raises(ValueError, match=msg):
        rate_game(model, rating, ["a", "b"], returns)
    assert {k: (r.mu, r.sigma) for k, r in rating.items()} == before
    with pytest.raises(ValueError, match="at least 2 seats, got 1"):
        rate_game(model, rating, ["a"], [1.0])
    rate_game(model, rating, ["a", "b"], [np.int64(1), np.float32(0.5)])
    assert rating["a"].mu > rating["b"].mu


def test_four_seat_ratings_rate_each_copy_as_its_own_seat():
    """With four seats the lone agent's opponent holds three: each of its seats is rated as a
    separate player from the same rating before the game, and the agent moves by their mean."""
    from openskill.models import PlackettLuce

    report = run_league("prowl", ["random", "heuristic"], 4, seed=3)
    model = PlackettLuce()
    r = {a: (model.rating(name=a).mu, model.rating(name=a).sigma) for a in report.agents}
    for g in _interleaved(report, 4):
        order = sorted(set(g.returns), reverse=True)
        new = model.rate([[model.rating(mu=r[a][0], sigma=r[a][1])] for a in g.seats],
                         ranks=[order.index(x) + 1 for x in g.returns])
        for a in set(g.seats):
            idx = [i for i, b in enumerate(g.seats) if b == a]
            r[a] = (r[a][0] + sum(new[i][0].mu - r[a][0] for i in idx) / len(idx),
                    sum(new[i][0].sigma for i in idx) / len(idx))
    got = report.ratings()
    assert any(len(set(g.seats)) < len(g.seats) for g in report.games)
    for a in report.agents:
        assert got[a]["mu"] == pytest.approx(r[a][0]) and got[a]["sigma"] == pytest.approx(
            r[a][1])


def test_ratings_order_random_below_heuristic_in_four_player_prowl():
    # the heuristic wins about 0.63 alone among three random seats, random about 0.05 alone
    # among three heuristics (1,000-game evaluations), so 32 games per match-up separate them
    report = run_league("prowl", ["random", "heuristic"], 32, seed=0)
    m = report.matrix()
    share = [r["seat_win_share"] for r in report.matchup_rows()]
    assert m["heuristic"]["random"]["ci_low"] > max(share)
    assert m["random"]["heuristic"]["ci_high"] < min(share)
    ratings = report.ratings()
    assert ratings["heuristic"]["ordinal"] > ratings["random"]["ordinal"]
    assert ratings["heuristic"]["mu"] - ratings["random"]["mu"] > 5
    assert ratings["random"]["sigma"] < 25 / 3   # the games lowered the uncertainty


def test_same_seed_same_league_and_match_ups_independent_of_the_other_agents():
    a = run_league("prowl", ["random", "ismcts:2"], 3, seed=7, config={"num_players": 3})
    b = run_league("prowl", ["random", "ismcts:2"], 3, seed=7, config={"num_players": 3})
    def strip(r):
        return {k: v for k, v in r.to_json().items() if k != "seconds"}

    assert strip(a) == strip(b)
    c = run_league("prowl", ["random", "ismcts:2"], 3, seed=8, config={"num_players": 3})
    assert [g.seed for g in c.games] != [g.seed for g in a.games]
    # adding an agent leaves the games of the existing pair as they were
    d = run_league("prowl", ["heuristic", "random", "ismcts:2"], 3, seed=7,
                   config={"num_players": 3})
    pair = [g.__dict__ | {"matchup": None} for g in d.games
            if {g.lone, g.copies} == {"random", "ismcts:2"}]
    assert pair == [g.__dict__ | {"matchup": None} for g in a.games]


def test_progress_bar_counts_every_game_and_no_progress_hides_it(tmp_path, capsys):
    argv = ["--game", "toy", "--agents", "random", "heuristic", "--players", "3", "--games", "2"]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "league games: 100%" in err and "| 4/4 [" in err   # 2 match-ups of 2 games
    assert main(argv + ["--out", str(tmp_path / "b"), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "%|" not in err + out and "wrote" in out


@pytest.mark.parametrize("args,message", [
    (["--agents", "random", "champion"], "unknown agent spec 'champion'"),
    (["--agents", "random"], "a league needs at least 2 agents, got 1"),
    (["--agents", "random", "random"], "agent 'random' is given twice"),
    (["--agents", "random", "heuristic", "--games", "0"], "--games must be a positive integer"),
    (["--agents", "random", "heuristic", "--games", "x"], "invalid int value: 'x'"),
    (["--agents", "random", "heuristic", "--players", "9"], "num_players must be an integer"),
    (["--agents", "random", "heuristic", "--players", "3", "--config", "num_players=4"],
     "--players 3 and --config num_players=4 disagree"),
    # the config's value as written (training.cli.set_num_players, as training.dataset and
    # benchmarks.deduction say it): this read "--players 4 and --config num_players=4"
    (["--agents", "random", "heuristic", "--players", "4", "--config", 'num_players="4"'],
     "--players 4 and --config num_players='4' disagree: give one"),
    (["--agents", "random", "ppo:missing.zip"], "missing.zip"),
])
def test_bad_input_is_a_one_line_error_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "league"
    with pytest.raises(SystemExit) as exc:
        main(["--game", "prowl", *args, "--out", str(out), "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("python -m training.league: error: ") and message in err
    assert not out.exists()


def test_an_unwritable_out_folder_is_a_one_line_error_before_any_game(tmp_path, capsys):
    """An --out under a file cannot be created: refused at once, not a traceback after the games."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SystemExit) as exc:
        main(["--game", "prowl", "--agents", "random", "heuristic", "--games", "2",
              "--out", str(blocker / "league"), "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("python -m training.league: error: --out ") and "cannot be created" in err


def test_an_out_folder_holding_an_earlier_league_is_refused_unless_overwrite(tmp_path, capsys):
    """A second league into the same --out is refused before any game (league.* left as they
    were); with --overwrite it replaces them."""
    out = tmp_path / "league"
    argv = ["--game", "prowl", "--agents", "random", "heuristic", "--games", "1",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    before = (out / "league.json").read_bytes()
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(argv[:6] + ["2"] + argv[7:])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already holds league.json, league.md, league.png" in err
    assert (out / "league.json").read_bytes() == before
    assert main(argv[:6] + ["2"] + argv[7:] + ["--overwrite"]) == 0
    assert (out / "league.json").read_bytes() != before



@pytest.mark.parametrize("exc", [ValueError("the agent failed"), KeyboardInterrupt()])
def test_overwrite_keeps_the_earlier_league_when_the_games_fail(tmp_path, capsys, monkeypatch,
                                                                exc):
    """--overwrite into an --out holding an earlier league, where the second game fails (a
    ValueError: a one-line error) or is interrupted (Ctrl-C): league.json, league.md and
    league.png are left as they were (they were deleted before the first game)."""
    from training import arena

    out = tmp_path / "league"
    argv = ["--game", "prowl", "--agents", "random", "heuristic", "--games", "2",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    names = ("league.json", "league.md", "league.png")
    before = {n: (out / n).read_bytes() for n in names}
    capsys.readouterr()
    real, calls = arena.play_game, []

    def play(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise exc
        return real(*args, **kwargs)

    monkeypatch.setattr(arena, "play_game", play)
    with pytest.raises(type(exc) if isinstance(exc, KeyboardInterrupt) else SystemExit):
        main(argv + ["--seed", "5", "--overwrite"])
    if isinstance(exc, ValueError):
        assert "the agent failed" in capsys.readouterr().err
    assert len(calls) == 2
    assert {n: (out / n).read_bytes() for n in names} == before

def test_run_league_refuses_bad_games_and_too_few_agents():
    with pytest.raises(ValueError, match="games must be a positive integer"):
        run_league("prowl", ["random", "heuristic"], 0)
    with pytest.raises(ValueError, match="at least 2 agents"):
        run_league("prowl", ["random"], 4)


def test_a_nemesis_win_is_no_match_up_game_without_a_winner():
    # Clandestine with the Most Holy beside two human seats: a game the Nemesis wins had a
    # winner, though no agent won it (it used to count under "no winner")
    report = run_league("clandestine", ["random", "heuristic"], 4, seed=2,
                        config={"num_players": 2, "nemesis": "most_holy", "difficulty": 6,
                                "max_rounds": 3})
    games = report.games
    assert any(g.rules_won for g in games)
    no_agent_won = sum(not any(x > 0 for x in g.returns) for g in games) / len(games)
    row, = report.matchup_rows()
    assert row["no_winner_share"] == sum(
        not g.rules_won and not any(x > 0 for x in g.returns) for g in games) / len(games)
    assert row["no_winner_share"] < no_agent_won


def test_the_heat_map_has_no_equal_seat_midpoint_beside_a_nemesis(tmp_path, monkeypatch):
    """The heat map is yellow at the equal seats' win rate 1 / n (4-player Prowl: 0.25), and
    beside a Clandestine Nemesis, where no seat is an equal one, runs from 0 to 1 without a
    midpoint (before, 1 / num_players: 0.5 with two human seats, as if the Nemesis's seat did
    not count)."""
    import matplotlib.colors

    centres: list[float | None] = []
    two_slope = matplotlib.colors.TwoSlopeNorm

    class Recording(two_slope):
        def __init__(self, vcenter, vmin=None, vmax=None):
            centres.append(vcenter)
            super().__init__(vcenter, vmin=vmin, vmax=vmax)

    monkeypatch.setattr(matplotlib.colors, "TwoSlopeNorm", Recording)
    solo = run_league("clandestine", ["random", "heuristic"], 1, seed=2,
                      config={"num_players": 2, "nemesis": "most_holy", "difficulty": 1,
                              "max_rounds": 2})
    save_heatmap(tmp_path / "solo.png", solo)
    assert centres == [] and (tmp_path / "solo.png").stat().st_size > 0
    prowl = run_league("prowl", ["random", "heuristic"], 1, seed=2)
    save_heatmap(tmp_path / "prowl.png", prowl)
    assert centres == [0.25]
