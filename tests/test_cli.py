"""The ``python -m training.*`` command lines as a newcomer meets them (fast, toy game)."""

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
    (b"PK\x03\x04\x14\x00\x00\x00binary model", "is a zip archive (a saved model?), not a game "
                                                "record"),
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
                         capture_output=True, text=True, timeout=120)
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
