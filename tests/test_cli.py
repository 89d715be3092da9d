"""The ``python -m training.*`` command lines as a newcomer meets them (fast, toy game)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from training.selfplay import main as selfplay_main

ROOT = Path(__file__).resolve().parents[1]


def test_selfplay_mistakes_are_one_line_with_a_hint_to_help(tmp_path, capsys):
    for argv, message in [
        (["--game", "toy", "--n-envs", "0"], "--n-envs must be >= 1"),
        (["--game", "chess"], "argument --game: invalid choice: 'chess'"),
        (["--game", "toy", "--opponents", "friends=1"], "unknown opponent kinds ['friends']"),
        (["--game", "toy", "--timesteps", "x"], "invalid int value: 'x'"),
    ]:
        with pytest.raises(SystemExit) as exc:
            selfplay_main(argv + ["--run-dir", str(tmp_path / "run")])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert err.startswith("python -m training.selfplay: error: ") and message in err
        assert err.rstrip().endswith("(try --help)")
        assert "usage" not in err
    assert not (tmp_path / "run").exists()   # nothing written before the arguments are checked


@pytest.mark.parametrize("content,message", [
    (b"PK\x03\x04\x14\x00\x00\x00binary model",
     "is a zip archive (a saved model?), not a game record"),
    (b"\xff\xfe\x00\x80\x81 not text", "is a binary file, not a game record"),
    (b"[1, 2]", "is not a JSON game record (it holds a JSON list, not an object)"),
    (b"{\"game\": ", "is not a JSON game record"),
])
def test_replay_of_a_file_that_is_no_record_is_a_one_line_error(tmp_path, capsys, content,
                                                                 message):
    from training import replay

    path = tmp_path / "final_model.zip"
    path.write_bytes(content)
    with pytest.raises(SystemExit) as exc:
        replay.main([str(path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err and message in err
    assert "expected a .json game record or a .jsonl file of records" in err


def test_replay_of_a_saved_model_through_the_command_line(tmp_path):
    """The file a newcomer tried: a real ``MaskablePPO.save`` zip."""
    import zipfile

    path = tmp_path / "final_model.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("policy.pth", bytes(range(256)) * 8)
    out = subprocess.run([sys.executable, "-m", "training.replay", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "zip archive" in out.stderr


def test_selfplay_no_progress_prunes_snapshots_and_refuses_to_overwrite(tmp_path, capsys):
    import json

    run = tmp_path / "run"
    args = ["--game", "toy", "--run-dir", str(run), "--n-envs", "1", "--n-steps", "64",
            "--batch-size", "64", "--n-epochs", "1", "--snapshot-every", "64",
            "--checkpoint-every", "128", "--pool-size", "2", "--timesteps", "640",
            "--eval-games", "4", "--imitation-games", "4", "--imitation-epochs", "2"]
    assert selfplay_main(args + ["--no-progress"]) == 0
    out, err = capsys.readouterr()
    # --no-progress: no bar of the warm start, of training or of the evaluation, no epoch lines
    assert "%|" not in err + out and "\r" not in err + out and "imitation epoch" not in out
    assert "warm start:" in out and "trained 640 timesteps" in out
    # the snapshots folder holds the pool's snapshots only (snapshot_0 and one every 64 steps
    # were taken: 11 in all), each listed by the checkpoint
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert len(state["snapshots"]) == 2
    assert state["snapshots"][-1] == f"snapshot_{state['last_snapshot']}"
    assert sorted(p.name for p in (run / "snapshots").iterdir()) == sorted(
        f"{label}.zip" for label in state["snapshots"])
    assert (run / "checkpoints" / "latest.zip").exists()
    before = (run / "evaluation.json").read_text()
    (run / "evaluation_trained_vs_random.json").write_text("earlier results")
    # re-running the finished command is refused in one line and changes nothing
    with pytest.raises(SystemExit) as exc:
        selfplay_main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already holds a final evaluation" in err
    assert "--overwrite" in err
    assert (run / "evaluation_trained_vs_random.json").read_text() == "earlier results"
    # --overwrite replaces it; without --no-progress the evaluation shows its bars
    assert selfplay_main(args + ["--overwrite"]) == 0
    out, err = capsys.readouterr()
    assert "resuming from" in out and "(2 snapshots in the pool)" in out
    assert "trained vs random" in err and "%|" in err
    assert json.loads((run / "evaluation_trained_vs_random.json").read_text())["game"] == "toy"
    def results(text):
        return [(s["matchup"], s["games"], s["wins"]) for s in json.loads(text)]

    assert results((run / "evaluation.json").read_text()) == results(before)   # same model


def write_episodes(run, rows, imitation=None):
    """An ``episodes.csv`` (and ``checkpoints/state.json``) as training.selfplay writes them."""
    import csv
    import json

    run.mkdir(parents=True, exist_ok=True)
    with (run / "episodes.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["timestep", "seat", "opponents", "return", "win", "truncated"])
        for t, opponents, win in rows:
            w.writerow([t, 0, opponents, 1.0 if win else -1.0, int(win), 0])
    (run / "checkpoints").mkdir(exist_ok=True)
    state = {"game": "prowl", "timesteps": rows[-1][0]}
    if imitation:
        state["imitation"] = imitation
    (run / "checkpoints" / "state.json").write_text(json.dumps(state))
    (run / "config.json").write_text(json.dumps({"game": "prowl",
                                                 "resolved_config": {"num_players": 4}}))


def test_learning_curve_win_rate_per_opponent_kind_weighted_by_its_seats(tmp_path):
    from training.plots import read_learning_curve

    write_episodes(tmp_path, [(10, "heuristic+random+random", 1), (20, "random+random+random", 0),
                              (30, "heuristic+heuristic+snapshot", 1),
                              (40, "snapshot+snapshot+snapshot", 0)], {"games": 5})
    curve = read_learning_curve(tmp_path / "episodes.csv")
    assert len(curve) == 4 and curve.warm_start == {"games": 5}
    assert list(curve.shares["random"]) == pytest.approx([2 / 3, 1, 0, 0])
    lines = curve.smoothed(window=1)
    # window 1: each episode that has the kind, as it came out
    assert list(lines["heuristic"][0]) == [10, 30] and list(lines["heuristic"][1]) == [1, 1]
    assert list(lines["snapshot"][1]) == [1, 0] and list(lines["all"][1]) == [1, 0, 1, 0]
    # on 10 episodes a window of 2 weights each win by the kind's share of the opponent seats
    rows = [(i, "heuristic+random+random" if i % 2 else "random+random+random", i % 2)
            for i in range(1, 11)]
    write_episodes(tmp_path, rows)
    t, rate = read_learning_curve(tmp_path / "episodes.csv").smoothed(window=2)["random"]
    # every pair of episodes holds a win with random share 2/3 and a loss with share 1:
    # (2/3) / (2/3 + 1) = 0.4, where the unweighted rate would be 0.5
    assert list(t) == list(range(2, 11)) and rate == pytest.approx([0.4] * 9)
    with pytest.raises(ValueError, match="window"):
        curve.smoothed(window=0)


def test_plots_command_draws_the_learning_curve_with_a_fitted_axis(tmp_path, monkeypatch,
                                                                  capsys):
    import matplotlib.pyplot as plt

    from training import plots

    rows, credit = [], {"snapshot": 0.0, "random": 0.0, "heuristic": 0.0}
    for i in range(600):   # win rate against the heuristic climbs from 0.1 to 0.4
        kind = ("snapshot", "random", "heuristic")[i % 3]
        credit[kind] += {"snapshot": 0.25, "random": 0.6, "heuristic": 0.1 + 0.3 * i / 600}[kind]
        win = credit[kind] >= 1     # wins spread evenly at the given rate
        credit[kind] -= win
        rows.append((20 * i, "+".join([kind] * 3), int(win)))
    write_episodes(tmp_path, rows, {"games": 40, "accuracy": 0.61})
    axes = []
    monkeypatch.setattr(plt, "close", lambda fig: axes.extend(fig.axes))
    assert plots.main([str(tmp_path), "--window", "60"]) == 0
    assert "wrote" in capsys.readouterr().out
    png = tmp_path / "learning_curve.png"
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 10_000
    (ax,) = axes
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    first, last = (float(x) for x in next(s for s in legend if s.startswith("vs heuristic"))
                   .split(": ")[1].split(" → "))
    assert 0.1 <= first < 0.2 and 0.3 < last <= 0.4, legend
    assert {s.split(":")[0] for s in legend} >= {"vs snapshot", "vs random", "vs heuristic",
                                                 "all games", "chance (0.25)"}
    lo, hi = ax.get_ylim()
    assert 0 < lo < 0.1 and 0.6 < hi < 0.9          # fitted to the curves, not 0..1
    assert any("warm start" in t.get_text() and "accuracy 0.61" in t.get_text()
               for t in ax.texts)
    for argv, message in [([str(tmp_path / "none")], "holds no episodes.csv"),
                          ([str(tmp_path), "--window", "0"], "--window must be >= 1")]:
        with pytest.raises(SystemExit):
            plots.main(argv)
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err


def test_charts_draw_no_chance_line_beside_a_seat_the_rules_play(tmp_path, monkeypatch,
                                                                  capsys):
    """The charts' chance line is a seat's win rate when all seats are equal, 1 / seats. Solo
    Clandestine drew it at 1.0 (one agent in the lineup, ``num_players=1``) though the rules'
    Nemesis seat can win too and is no equal seat; with a Nemesis there is no such line now,
    in training.evaluate's chart and in training.plots' learning curve."""
    import json

    import matplotlib.pyplot as plt

    from training import evaluate, plots

    solo = {"num_players": 1, "nemesis": "most_holy", "difficulty": 1}
    assert plots.seat_parity("clandestine", solo) is None
    assert plots.seat_parity("clandestine", {**solo, "num_players": 2}) is None
    assert plots.seat_parity("clandestine", {"num_players": 3}) == pytest.approx(1 / 3)
    assert plots.seat_parity("prowl", {"num_players": 4}) == pytest.approx(0.25)
    drawn = []
    real = evaluate.save_chart
    monkeypatch.setattr(evaluate, "save_chart",
                        lambda *a, **kw: drawn.append(kw.get("chance")) or real(*a, **kw))
    assert evaluate.main(["--game", "clandestine", "--agents", "random", "--games", "1",
                          "--config", 'nemesis="most_holy"', "difficulty=1", "--no-progress",
                          "--out", str(tmp_path / "ev")]) == 0
    assert drawn == [None]
    write_episodes(tmp_path / "run", [(10 * i, "random", 0) for i in range(1, 5)])
    (tmp_path / "run" / "config.json").write_text(json.dumps(
        {"game": "clandestine", "resolved_config": solo}))
    axes = []
    monkeypatch.setattr(plt, "close", lambda fig: axes.extend(fig.axes))
    assert plots.main([str(tmp_path / "run"), "--window", "2"]) == 0
    capsys.readouterr()
    legend = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert legend and not any(x.startswith("chance") for x in legend)


TRAINING_MODULES = sorted(p.stem for p in (ROOT / "training").glob("*.py")
                          if p.stem != "__init__")


@pytest.mark.parametrize("module", TRAINING_MODULES)
def test_every_training_module_answers_help(module, monkeypatch, capsys):
    """``python -m training.X --help`` (its ``__main__`` block, run in-process) prints usage for
    every module under training/: a command its options, a library the command to use instead;
    without arguments a library says so in a one-line error."""
    import runpy
    import warnings

    def run(*argv):
        monkeypatch.setattr(sys, "argv", [f"training/{module}.py", *argv])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # "found in sys.modules"
            with pytest.raises(SystemExit) as exc:
                runpy.run_module(f"training.{module}", run_name="__main__")
        return exc.value.code

    assert run("--help") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m training.{module}")
    assert "options:" in out or "It is a library, not a command: use python -m " in out
    if "options:" not in out:
        assert run() == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"python -m training.{module}: error:")


@pytest.mark.parametrize("module", ["arena", "imitation", "plots"])
def test_help_through_the_command_line(module):
    out = subprocess.run([sys.executable, "-m", f"training.{module}", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.startswith(f"usage: python -m training.{module}")
    assert len(out.stdout.splitlines()) >= 3


def test_evaluate_no_progress_hides_its_bar(tmp_path, capsys):
    from training import evaluate

    argv = ["--game", "toy", "--agents", "heuristic", "random", "--games", "4"]
    assert evaluate.main(argv + ["--out", str(tmp_path / "a")]) == 0
    assert "%|" in capsys.readouterr().err
    assert evaluate.main(argv + ["--out", str(tmp_path / "b"), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "%|" not in err + out and "wrote" in out


def _one_line_error(main, argv, capsys, prog):
    """Run ``main(argv)``; assert the one-line error with exit 2 and return its message."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"python -m training.{prog}: error: ")
    return err


def test_dataset_bad_arguments_are_one_line_errors(tmp_path, capsys):
    from training.dataset import main

    out = ["--out", str(tmp_path / "d")]
    cases = [
        (["--game", "prowl", "--games", "0"], "--games must be a positive integer, got 0"),
        (["--game", "prowl", "--games", "1", "--shard-size", "0"], "--shard-size must be a "
         "positive integer, got 0"),
        (["--game", "prowl", "--games", "1", "--agents", "heur"], "unknown agent spec 'heur'"),
        (["--game", "prowl", "--games", "1", "--agents", "ppo:"], "needs a path: ppo:PATH"),
        (["--game", "clans", "--games", "1", "--num-players", "9"], "num_players must be one of"),
        (["--game", "prowl", "--games", "1", "--config", "foo"], "KEY=VALUE, got 'foo'"),
        (["--game", "nope", "--games", "1"], "invalid choice: 'nope'"),
        (["--game", "prowl", "--games", "1", "--num-players", "3", "--config", "num_players=4"],
         "--num-players 3 and --config num_players=4 disagree: give one"),
    ]
    for argv, message in cases:
        assert message in _one_line_error(main, argv + out, capsys, "dataset")
    assert not (tmp_path / "d").exists()   # nothing written before the checks
    (tmp_path / "f").write_text("")
    err = _one_line_error(main, ["--game", "prowl", "--games", "1", "--out", str(tmp_path / "f")],
                          capsys, "dataset")
    assert "exists and is not a directory" in err


def test_dataset_config_takes_key_value_or_json():
    from training.dataset import parse_config_items

    assert parse_config_items(["num_players=4", "beginner=true"]) == {"num_players": 4,
                                                                      "beginner": True}
    assert parse_config_items(['{"num_players": 4}']) == {"num_players": 4}
    with pytest.raises(ValueError, match="not a JSON object"):
        parse_config_items(["{num_players"])


def test_probe_bad_arguments_are_one_line_errors(tmp_path, capsys):
    from training.probe import main

    out = ["--out", str(tmp_path / "p.pt")]
    err = _one_line_error(main, ["--game", "nope"] + out, capsys, "probe")
    assert "invalid choice: 'nope'" in err
    err = _one_line_error(main, ["--game", "prowl", "--data", str(tmp_path / "none")] + out,
                          capsys, "probe")
    assert "--data: no dataset index at" in err
    err = _one_line_error(main, ["--game", "prowl", "--games", "0"] + out, capsys, "probe")
    assert "--games must be a positive integer, got 0" in err
    err = _one_line_error(main, ["--game", "prowl", "--config", "foo"] + out, capsys, "probe")
    assert "KEY=VALUE, got 'foo'" in err
    err = _one_line_error(main, ["--game", "prowl", "--inputs", "hand,,seat"] + out, capsys,
                          "probe")
    assert "--inputs: 'hand,,seat' has an empty field name" in err
    err = _one_line_error(main, ["--game", "prowl", "--inputs", "hand,claws"] + out, capsys,
                          "probe")
    assert "--inputs: unknown observation field(s) of prowl: claws; known: seat, decision" in err


def test_play_checks_the_record_path_before_the_game(tmp_path, capsys):
    from training.play import main, record_path_problem

    (tmp_path / "somefile").write_text("")
    assert record_path_problem(tmp_path / "new" / "deeper" / "g.json") is None   # can be created
    assert record_path_problem(tmp_path / "somefile") is None   # a file is overwritten
    assert "is a folder" in record_path_problem(tmp_path)
    bad = tmp_path / "somefile" / "x.json"
    # no read function is given: reaching the game would block on the console, so the error
    # must come first
    err = _one_line_error(main, ["--game", "prowl", "--opponents", "random", "random",
                                 "--record", str(bad)], capsys, "play")
    assert f"a parent of {bad} ({tmp_path / 'somefile'}) is not a directory" in err


def test_play_num_players_not_an_integer_and_signed_answers(capsys):
    from training.play import main, parse_answer

    err = _one_line_error(main, ["--game", "prowl", "--opponents", "random", "random",
                                 "--config", "num_players=x"], capsys, "play")
    assert "num_players='x' is not an integer" in err
    for answer in ("-1", "0", "4", "+9"):
        index, reason, matches = parse_answer(answer, ["a", "b", "c"])
        assert index is None and matches == []
        assert f"{int(answer)} is not one of the choices (out of range): type a number from 1 " \
               "to 3" in reason
    assert parse_answer("+2", ["a", "b", "c"])[0] == 1
    assert "is not a number" in parse_answer("x", ["a", "b", "c"])[1]


def test_evaluate_refuses_an_out_folder_holding_an_earlier_evaluation(tmp_path, capsys):
    """A second evaluation into the same --out is refused before any game, leaving the earlier
    files as they were; with --overwrite the earlier files are deleted first, so a records.jsonl
    of an earlier run with --records is not left beside results without it."""
    from training.evaluate import main

    out = tmp_path / "ev"
    argv = ["--game", "prowl", "--agents", "heuristic", "random", "random", "random",
            "--games", "2", "--out", str(out), "--no-progress"]
    assert main(argv + ["--records"]) == 0
    before = (out / "evaluation.json").read_bytes()
    assert (out / "records.jsonl").exists()
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--seed", "3"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already holds evaluation.json" in err
    assert (out / "evaluation.json").read_bytes() == before
    assert main(argv + ["--seed", "3", "--overwrite"]) == 0
    assert (out / "evaluation.json").read_bytes() != before
    assert not (out / "records.jsonl").exists()


def test_evaluate_checks_specs_and_numbers_before_the_bar(tmp_path, capsys):
    from training.evaluate import main

    base = ["--game", "prowl", "--out", str(tmp_path / "e")]
    cases = [
        (["--agents", "heur", "random"], "unknown agent spec 'heur'"),
        (["--agents", "ppo:", "random"], "agent spec 'ppo:' needs a path: ppo:PATH"),
        (["--agents", f"ppo:{tmp_path / 'none.zip'}", "random"], "no saved policy file at"),
        (["--agents", "random", "random", "--games", "0"], "--games must be a positive integer"),
        (["--agents", "random", "random", "--seed", "-1"],
         "--seed must be a non-negative integer, got -1"),
        (["--agents", "random", "random", "--config", "num_players=3"],
         "--agents gives 2 agents but num_players is 3"),
    ]
    for argv, message in cases:
        err = _one_line_error(main, base + argv, capsys, "evaluate")   # one line: no bar drawn
        assert message in err and "%|" not in err
    assert not (tmp_path / "e").exists()


def test_evaluate_out_checks_before_any_game(tmp_path, capsys):
    """An --out whose parent is a file, or holding a folder of one of the output names, is
    refused in one line before any game (with --overwrite too: the folder is not deleted); a
    dangling symlink of an output name counts as an earlier output (nothing is written through
    it to a file outside --out)."""
    from training.evaluate import main

    base = ["--game", "prowl", "--agents", "random", "random", "random", "random",
            "--games", "1", "--no-progress"]
    (tmp_path / "file").write_text("x")
    held = tmp_path / "held"
    (held / "records.jsonl").mkdir(parents=True)
    (held / "records.jsonl" / "keep.txt").write_text("keep")
    for out, extra, words in ((tmp_path / "file" / "sub", [], "is not a folder"),
                              (held, ["--overwrite"], "records.jsonl is a folder")):
        with pytest.raises(SystemExit) as exc:
            main(base + ["--out", str(out)] + extra)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err
    assert (held / "records.jsonl" / "keep.txt").read_text() == "keep"
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "evaluation.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(SystemExit):
        main(base + ["--out", str(linked)])
    assert "already holds evaluation.json" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere.json").exists()
    assert main(base + ["--out", str(linked), "--overwrite"]) == 0
    assert not (tmp_path / "elsewhere.json").exists()
    assert not (linked / "evaluation.json").is_symlink()


def _failing_play_game(exc):
    """A stand-in for training.arena.play_game that plays one game, then raises ``exc``."""
    from training import arena

    real = arena.play_game

    def play(*args, **kwargs):
        play.calls += 1
        if play.calls > 1:
            raise exc
        return real(*args, **kwargs)
    play.calls = 0
    return play


@pytest.mark.parametrize("exc", [ValueError("the agent failed"), KeyboardInterrupt()])
def test_evaluate_overwrite_keeps_the_earlier_files_when_the_games_fail(tmp_path, capsys,
                                                                        monkeypatch, exc):
    """--overwrite into an --out holding an earlier evaluation (with records.jsonl), where the
    second game fails (a ValueError: a one-line error) or is interrupted (Ctrl-C): every
    earlier file is left as it was (they were deleted before the first game)."""
    from training import arena
    from training.evaluate import OUTPUT_NAMES, main

    out = tmp_path / "ev"
    argv = ["--game", "prowl", "--agents", "heuristic", "random", "random", "random",
            "--games", "3", "--out", str(out), "--no-progress"]
    assert main(argv + ["--records"]) == 0
    before = {n: (out / n).read_bytes() for n in OUTPUT_NAMES}
    capsys.readouterr()
    play = _failing_play_game(exc)
    monkeypatch.setattr(arena, "play_game", play)
    with pytest.raises(type(exc) if isinstance(exc, KeyboardInterrupt) else SystemExit):
        main(argv + ["--seed", "3", "--overwrite"])
    assert play.calls == 2
    if isinstance(exc, ValueError):
        assert "the agent failed" in capsys.readouterr().err
    assert {n: (out / n).read_bytes() for n in OUTPUT_NAMES} == before


def _out_refusals(tmp_path, monkeypatch):
    """(--out, expected message) for the three --out refusals, the setup done."""
    (tmp_path / "file").write_text("x")
    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != locked and real(p, mode))
    under_file = tmp_path / "file" / "sub"
    return [
        (tmp_path / "file", f"--out {tmp_path / 'file'} exists and is not a folder"),
        (under_file, (f"--out {under_file} cannot be created: a parent of {under_file} "
                      f"({tmp_path / 'file'}) is not a folder")),
        (locked / "new", (f"--out {locked / 'new'} cannot be created: no permission to write "
                          f"in the folder {locked}")),
    ]


def test_evaluate_and_league_refuse_an_uncreatable_out_with_one_message(tmp_path, capsys,
                                                                         monkeypatch):
    """training.evaluate and training.league share one --out check (training.cli.
    check_out_folder): an --out that is a file, under a file, or in a folder this process may
    not write in is refused in one line before any game with the same message from both, and
    nothing is created (the league created the folder at once and said "cannot be created:
    Not a directory" where the evaluation said "--out X: a parent of X (P) is not a folder")."""
    from training.evaluate import main as evaluate_main
    from training.league import main as league_main

    commands = {"evaluate": (evaluate_main, ["--agents", "random", "random", "random", "random"]),
                "league": (league_main, ["--agents", "random", "heuristic"])}
    for out, message in _out_refusals(tmp_path, monkeypatch):
        for prog, (main, agents) in commands.items():
            err = _one_line_error(main, ["--game", "prowl", *agents, "--games", "1",
                                         "--out", str(out), "--no-progress"], capsys, prog)
            assert err == f"python -m training.{prog}: error: {message} (try --help)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "locked"]
    assert list((tmp_path / "locked").iterdir()) == []


def test_evaluate_and_league_refuse_a_dangling_symlink_out_before_any_game(tmp_path, capsys):
    """An --out that is a dangling symlink, or lies under one, is refused in one line before
    any game (both commands played every game, then raised FileExistsError from mkdir)."""
    from training.evaluate import main as evaluate_main
    from training.league import main as league_main

    link = tmp_path / "link"
    link.symlink_to(tmp_path / "missing")
    commands = {"evaluate": (evaluate_main, ["--agents", "random", "random", "random", "random"]),
                "league": (league_main, ["--agents", "random", "heuristic"])}
    missing = tmp_path / "missing"
    for out, message in (
            (link, (f"--out {link} is a symlink to the missing {missing}: create that folder "
                    "or choose another --out")),
            (link / "sub", (f"--out {link / 'sub'} cannot be created: {link} is a symlink to "
                            f"the missing {missing}"))):
        for prog, (main, agents) in commands.items():
            err = _one_line_error(main, ["--game", "prowl", *agents, "--games", "1",
                                         "--out", str(out), "--no-progress"], capsys, prog)
            assert err == f"python -m training.{prog}: error: {message} (try --help)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link"]


def test_evaluate_and_league_refuse_an_existing_out_they_may_not_write_in(tmp_path, capsys,
                                                                          monkeypatch):
    """An existing --out folder this process may not write in is refused in one line before
    any game, as a missing one under such a folder is (both commands played every game, then
    failed with a PermissionError traceback when writing), and its earlier outputs are kept."""
    from training.evaluate import main as evaluate_main
    from training.league import main as league_main

    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "league.json").write_text("earlier")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != locked and real(p, mode))
    commands = {"evaluate": (evaluate_main, ["--agents", "random", "random", "random", "random"]),
                "league": (league_main, ["--agents", "random", "heuristic"])}
    for prog, (main, agents) in commands.items():
        err = _one_line_error(main, ["--game", "prowl", *agents, "--games", "1", "--out",
                                     str(locked), "--no-progress", "--overwrite"], capsys, prog)
        assert err == (f"python -m training.{prog}: error: --out {locked}: no permission to "
                       f"write in the folder {locked} (try --help)\n")
    assert [p.name for p in locked.iterdir()] == ["league.json"]
    assert (locked / "league.json").read_text() == "earlier"
