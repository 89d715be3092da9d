"""Heuristics with changed rule parameters (``heuristic:KEY=VALUE``) and the warm start's teacher
(``training.selfplay --imitation-teacher``)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from agents import heuristic_parameters, make_agent
from agents.badland_wolves_heuristic import BadlandWolvesHeuristic
from envs.badland_wolves import BadlandWolvesState
from envs.badland_wolves import engine as E


def _play(specs: list[str], seed: int) -> tuple[list[int], list[tuple[int, int, int]]]:
    """Actions of one 4-wolf game, and (seat, hand size, action) at every Join Hunt decision."""
    s = BadlandWolvesState(seed=seed, num_players=4)
    agents = [make_agent(spec, "badland_wolves", s.config, seed=i) for i, spec in enumerate(specs)]
    actions, joins = [], []
    while not s.is_over:
        p = s.current_player
        view = {"observation": s.observation_tensor(p), "action_mask": s.legal_action_mask()}
        a = agents[p].act(view, f"player_{p}")
        if s.phase == E.JOIN and view["action_mask"].sum() > 1:
            joins.append((p, int(s.hands[p].sum()), a))
        actions.append(a)
        s.apply_action(a)
    return actions, joins


def test_default_parameters_play_as_the_heuristic():
    """Every parameter given at its default value plays the same game, move for move."""
    table = BadlandWolvesHeuristic.PARAMETERS
    spec = "heuristic:" + ":".join(f"{k}={v[1]}" for k, v in table.items())
    for seed in (0, 1, 2):
        assert _play([spec] * 4, seed)[0] == _play(["heuristic"] * 4, seed)[0]


def test_join_hand_changes_exactly_the_join_decisions_it_names():
    """``join_hand=4``: a wolf declines to Join a Hunt with 4 or 5 cards where the heuristic
    joins; below 4 cards both follow the same rule (the cheapest risk cost)."""
    I = E.action_layout(4)
    seen = {4: 0, 5: 0}
    for seed in range(6):
        _, joins = _play(["heuristic:join_hand=4"] * 4, seed)
        for p, size, a in joins:
            if size >= 4:
                assert a == I.DECLINE, (seed, p, size, a)
                seen[min(size, 5)] += size < 6
        _, plain = _play(["heuristic"] * 4, seed)
        assert all(a == I.DECLINE for _, size, a in plain if size >= 6)
    assert sum(seen.values()) > 0
    # and the plain heuristic does join with 4-5 cards somewhere
    joined = [a != I.DECLINE for seed in range(6) for _, size, a in _play(["heuristic"] * 4, seed)[1]
              if size in (4, 5)]
    assert any(joined)


def test_parameter_spec_errors_name_the_problem():
    cfg = BadlandWolvesState(seed=0, num_players=4).config
    assert heuristic_parameters("heuristic:join_hand=4:join_cost=3.5", "badland_wolves") == {
        "join_hand": 4, "join_cost": 3.5}
    agent = make_agent("heuristic:join_hand=4", "badland_wolves", cfg, seed=0)
    assert agent.parameters["join_hand"] == 4 and agent.parameters["jack_hand"] == 4
    assert agent.name == "heuristic:join_hand=4"
    for spec, msg in [("heuristic:join_hand", "not KEY=VALUE"),
                      ("heuristic:=4", "not KEY=VALUE"),
                      ("heuristic:hand=4", "unknown badland_wolves heuristic parameter 'hand'"),
                      ("heuristic:join_hand=4.5", "join_hand must be int"),
                      ("heuristic:join_cost=x", "join_cost must be float"),
                      ("heuristic:join_cost=nan", "join_cost must be finite"),
                      ("heuristic:join_hand=4:join_hand=5", "given twice"),
                      ("heuristic:join_hand=-1", "must be a non-negative int")]:
        with pytest.raises(ValueError, match=msg):
            make_agent(spec, "badland_wolves", cfg, seed=0)
    with pytest.raises(ValueError, match="use 'random', 'heuristic', 'heuristic:belief', "
                                         "'heuristic:KEY=VALUE', 'ppo:PATH'"):
        make_agent("Heuristic:join_hand=4", "badland_wolves", cfg, seed=0)
    with pytest.raises(ValueError, match="'heuristic:KEY=VALUE'"):
        make_agent(4, "badland_wolves", cfg, seed=0)
    with pytest.raises(ValueError, match="the clans heuristic has no rule parameters"):
        make_agent("heuristic:x=1", "clans", {"num_players": 3}, seed=0)
    with pytest.raises(ValueError, match="unknown Badland Wolves heuristic parameter 'bogus'"):
        BadlandWolvesHeuristic(cfg, bogus=1)
    with pytest.raises(ValueError, match="must be a non-negative int, got True"):
        BadlandWolvesHeuristic(cfg, join_hand=True)


def test_parameter_values_are_plain_ascii_numbers():
    """A value is a plain ASCII number: spaces, '+', '_', hex and other scripts' digits are
    refused (Python's int() and float() accept most of them, and the agent's label kept the
    text as written), and a number too large for the heuristic is a ValueError naming the
    parameter, not a numpy TypeError."""
    cfg = BadlandWolvesState(seed=0, num_players=4).config
    for spec in ("heuristic:join_hand=4 ", "heuristic:join_hand= 4", "heuristic:join_hand=+4",
                 "heuristic:join_hand=1_0", "heuristic:join_hand=\u0664",
                 "heuristic:join_cost=1_0.5", "heuristic:join_cost= 2.5",
                 "heuristic:join_cost=0x10"):
        with pytest.raises(ValueError, match="plain ASCII digits"):
            make_agent(spec, "badland_wolves", cfg, seed=0)
    assert heuristic_parameters("heuristic:join_cost=.5:attack_threshold=2e-1",
                                "badland_wolves") == {"join_cost": 0.5, "attack_threshold": 0.2}
    for spec in ("heuristic:join_cost=inf", "heuristic:join_cost=-Infinity",
                 "heuristic:join_cost=1e400"):
        with pytest.raises(ValueError, match="join_cost must be finite"):
            make_agent(spec, "badland_wolves", cfg, seed=0)
    big = make_agent("heuristic:join_hand=99999999999999999999999", "badland_wolves", cfg, seed=0)
    assert big.parameters["join_hand"] == 99999999999999999999999
    with pytest.raises(ValueError, match="join_cost must be a finite number"):
        BadlandWolvesHeuristic(cfg, join_cost=10 ** 400)
    assert BadlandWolvesHeuristic(cfg, join_hand=np.int64(5), join_cost=np.float64(3.0)
                                  ).parameters == BadlandWolvesHeuristic(
        cfg, join_hand=5, join_cost=3.0).parameters
    with pytest.raises(ValueError, match="must be a non-negative int, got np.True_"):
        BadlandWolvesHeuristic(cfg, join_hand=np.True_)


def test_heuristic_parameters_reads_only_heuristic_specs():
    """``ppo:join_hand=4`` or ``random`` is no heuristic spec: refused, not read as one (or as
    no parameters); ``heuristic`` alone is every default."""
    assert heuristic_parameters("heuristic", "badland_wolves") == {}
    for spec in ("random", "ppo:join_hand=4", "ismcts:join_hand=4", "heuristics:join_hand=4",
                 None, 4):
        with pytest.raises(ValueError, match="not a heuristic spec"):
            heuristic_parameters(spec, "badland_wolves")


def test_a_heuristic_with_parameters_copies_and_pickles():
    cfg = BadlandWolvesState(seed=0, num_players=4).config
    agent = make_agent("heuristic:join_hand=4:attack_threshold=0.9", "badland_wolves", cfg,
                       seed=3)
    s = BadlandWolvesState(seed=5, num_players=4)
    for other in (copy.copy(agent), copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))):
        assert other.parameters == agent.parameters and other.parameters is not agent.parameters
        assert other.name == agent.name
        view = {"observation": s.observation_tensor(s.current_player),
                "action_mask": s.legal_action_mask()}
        assert other.act(view, "player_0") == agent.act(view, "player_0")


def test_the_warm_start_fits_the_teacher_it_is_given():
    """``collect_demonstrations(teacher=...)`` records the teacher's moves: with
    ``join_hand=4`` no recorded Join Hunt with 4+ cards is a join; the plain heuristic's
    demonstrations on the same games hold some."""
    from training.imitation import collect_demonstrations

    cfg = dict(BadlandWolvesState(seed=0, num_players=4).config)
    L, I = E.observation_layout(4), E.action_layout(4)

    def joins_with_four(demos) -> tuple[int, int]:
        phase = np.argmax(np.stack([L.view(o, "phase") for o in demos.obs]), axis=1)
        size = np.rint(np.stack([L.view(o, "hand") for o in demos.obs])
                       * np.asarray(E.SCRAP_COUNTS_ARR)).sum(axis=1)
        at = (phase == E.JOIN) & (size >= 4) & (demos.masks.sum(axis=1) > 1)
        return int(at.sum()), int((demos.actions[at] != I.DECLINE).sum())

    taught = collect_demonstrations("badland_wolves", BadlandWolvesState, cfg, games=4, seed=1,
                                    teacher="heuristic:join_hand=4")
    plain = collect_demonstrations("badland_wolves", BadlandWolvesState, cfg, games=4, seed=1)
    asked, joined = joins_with_four(taught)
    assert asked > 0 and joined == 0
    assert joins_with_four(plain)[1] > 0
    with pytest.raises(ValueError, match="unknown agent spec"):
        collect_demonstrations("badland_wolves", BadlandWolvesState, cfg, games=1,
                               teacher="teacher")


def test_selfplay_refuses_a_bad_teacher_before_writing_anything(tmp_path, capsys):
    from training.selfplay import main as selfplay_main

    args = ["--game", "toy", "--run-dir", str(tmp_path / "run"), "--n-envs", "1", "--n-steps",
            "64", "--batch-size", "64", "--eval-games", "0", "--no-progress",
            "--imitation-games", "2", "--timesteps", "64"]
    for teacher, msg in [("heuristic:x=1", "the toy heuristic has no rule parameters"),
                         ("bogus", "unknown agent spec 'bogus'"),
                         ("ismcts:5", "reads the game state")]:
        with pytest.raises(SystemExit):
            selfplay_main(args + ["--imitation-teacher", teacher])
        assert msg in capsys.readouterr().err
        assert not (tmp_path / "run").exists()


def test_selfplay_refuses_to_resume_a_run_with_another_teacher(tmp_path, capsys):
    """A resumed run keeps its warm start: another --imitation-teacher is refused (config.json
    would otherwise record a teacher the policy never learned from), the same one resumes."""
    import json

    from training.selfplay import main as selfplay_main

    run = tmp_path / "run"
    args = ["--game", "badland_wolves", "--config", "num_players=3", "--run-dir", str(run),
            "--n-envs", "1", "--n-steps", "64", "--batch-size", "64", "--eval-games", "0",
            "--no-progress", "--imitation-games", "1", "--imitation-epochs", "1",
            "--checkpoint-every", "64"]
    assert selfplay_main(args + ["--timesteps", "64",
                                 "--imitation-teacher", "heuristic:join_hand=4"]) == 0
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert state["imitation"]["teacher"] == "heuristic:join_hand=4"
    before = (run / "config.json").read_text()
    with pytest.raises(SystemExit):
        selfplay_main(args + ["--timesteps", "128", "--imitation-teacher", "heuristic:join_hand=2"])
    err = capsys.readouterr().err
    assert "warm-started from teacher 'heuristic:join_hand=4', not 'heuristic:join_hand=2'" in err
    assert (run / "config.json").read_text() == before
    assert selfplay_main(args + ["--timesteps", "128",
                                 "--imitation-teacher", "heuristic:join_hand=4"]) == 0
    assert json.loads((run / "config.json").read_text())["imitation_teacher"] == \
        "heuristic:join_hand=4"
