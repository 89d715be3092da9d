"""The shared plumbing (engine contract, AEC wrapper, records) on a toy game."""

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs.core import ConfigError, IllegalActionError, Layout, RecordError
from tests.toy_game import ToyState, env, raw_env


def test_pettingzoo_api_seed_render():
    api_test(env(num_players=3), num_cycles=200)
    seed_test(lambda: env(num_players=2), num_cycles=50)
    render_test(lambda render_mode=None: env(render_mode=render_mode))


def test_bad_config_and_render_mode_named():
    with pytest.raises(ConfigError, match="num_players"):
        env(num_players=7)
    with pytest.raises(ConfigError, match="render_mode"):
        env(render_mode="rgb")
    with pytest.raises(ConfigError, match="max_cycles"):
        env(max_cycles=0)


def test_illegal_action_message_names_action_and_reason():
    s = ToyState(seed=1, target=3)
    s.apply_action(1)  # total 2: adding 2 would overshoot 3
    with pytest.raises(IllegalActionError, match=r"action 1 \(add 2\) is illegal for seat 1"):
        s.apply_action(1)
    with pytest.raises(IllegalActionError, match="out of range"):
        s.apply_action(5)
    with pytest.raises(IllegalActionError, match="integer"):
        s.apply_action(0.5)
    s.apply_action(0)
    assert s.is_terminal and s.returns().tolist() == [-1.0, 1.0]
    with pytest.raises(IllegalActionError, match="over"):
        s.apply_action(0)


def test_env_step_rejects_illegal_and_rewards_winner():
    e = raw_env(num_players=2, target=3)
    e.reset(seed=3)
    e.step(1)                       # player_0: total 2
    with pytest.raises(IllegalActionError):
        e.step(1)                   # player_1 cannot add 2
    e.step(0)                       # player_1 reaches 3 and wins
    assert e.terminations == {"player_0": True, "player_1": True}
    assert e.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert e.infos["player_0"]["action_mask"].sum() == 0


def test_max_cycles_truncates_everyone():
    e = raw_env(num_players=2, target=50, max_cycles=4)
    e.reset(seed=0)
    counts = {a: 0 for a in e.possible_agents}
    for a in e.agent_iter():
        counts[a] += 1
        _, r, term, trunc, _ = e.last()
        e.step(None if term or trunc else 0)
    assert counts == {"player_0": 3, "player_1": 3}  # 2 actions each + the final dead step
    assert e.num_steps == 4


def test_record_replays_exactly_and_rejects_mismatch():
    s = ToyState(seed=11, num_players=3)
    rng = np.random.default_rng(0)
    while not s.is_over:
        s.apply_action(int(rng.choice(s.legal_actions())))
    rec = json.loads(json.dumps(s.to_record()))
    r = ToyState.from_record(rec)
    assert r.history == s.history and r.coins.tolist() == s.coins.tolist()
    assert np.array_equal(r.returns(), s.returns())
    with pytest.raises(RecordError, match="not 'toy'"):
        ToyState.from_record({**rec, "game": "prowl"})
    with pytest.raises(RecordError, match="action #"):
        ToyState.from_record({**rec, "actions": rec["actions"] + [0]})


def test_layout_table_and_views():
    lay = Layout()
    lay.add("a", 3, "first")
    lay.add("b", (2, 2), "second")
    v = lay.zeros()
    lay.view(v, "b")[1, 0] = 1
    assert v.tolist() == [0, 0, 0, 0, 0, 1, 0]
    assert lay.field_of(5)[0].name == "b" and lay.field_of(5)[1] == (1, 0)
    assert "| 3–6 | `b` | 2×2 | second |" in lay.table()
    with pytest.raises(ValueError, match="already"):
        lay.add("a", 1, "dup")
    with pytest.raises(ValueError, match="unknown layout field"):
        lay["zz"]


def test_layout_views_of_several_vectors_stay_apart_and_copies_work():
    """Views are kept for the last vector viewed: writing through views of two vectors in turn
    touches each vector only; a pickled or copied layout views like the original."""
    import copy
    import pickle

    lay = Layout()
    lay.add("a", 3, "first")
    lay.add("b", (2, 2), "second")
    v1, v2 = lay.zeros(), lay.zeros()
    for k in range(3):
        lay.view(v1, "b")[0, k % 2] += 1
        lay.view(v2, "a")[k] = 2
    assert lay.view(v1, "b") is lay.view(v1, "b") and lay.view(v1, "b").shape == (2, 2)
    assert v1.tolist() == [0, 0, 0, 2, 1, 0, 0] and v2.tolist() == [2, 2, 2, 0, 0, 0, 0]
    with pytest.raises(ValueError, match="unknown layout field 'zz'"):
        lay.view(v1, "zz")
    for other in (pickle.loads(pickle.dumps(lay)), copy.deepcopy(lay)):
        assert other.view(v1, "b").tolist() == [[2, 1], [0, 0]] and other.size == 7


def test_unknown_keyword_and_bad_max_cycles_are_config_errors():
    with pytest.raises(ConfigError, match=r"unknown toy keyword\(s\) \['colour'\]"):
        env(colour="red")
    with pytest.raises(ConfigError, match="max_cycles"):
        env(max_cycles=True)
    assert raw_env(max_cycles=np.int64(3)).max_cycles == 3


def test_a_seed_among_an_envs_keywords_is_a_config_error():
    # the env seeds its game itself (reset(seed=...)); seed=3 among its keywords used to end in
    # "TypeError: from_config() got multiple values for argument 'seed'"
    with pytest.raises(ConfigError, match=r"seed is not a toy keyword: give the seed to "
                                          r"env\.reset\(seed=\.\.\.\)"):
        env(seed=3)
    assert ToyState.from_config(seed=5).seed == ToyState.from_config(5).seed == 5


def test_wrapped_env_names_bad_actions():
    e = env(num_players=2)
    e.reset(seed=0)
    for bad in (-1, 2, 10**20, 1.0, "0", None):
        with pytest.raises(IllegalActionError):
            e.step(bad)


def test_editing_a_handed_out_mask_cannot_make_an_action_legal():
    e = raw_env(num_players=2, target=3)
    e.reset(seed=0)
    e.step(1)                                    # total 2: only "add 1" is legal now
    obs, *_ = e.last()
    obs["action_mask"][:] = 1
    e.infos["player_1"]["action_mask"][:] = 1
    with pytest.raises(IllegalActionError):
        e.step(1)


def test_seat_arguments_are_checked_for_every_game_method():
    s = ToyState(seed=0)
    for bad in (-1, 2, True, 1.0, "0"):
        with pytest.raises(ValueError, match="seat must be an integer in 0..1"):
            s.observation_tensor(bad)
        with pytest.raises(ValueError, match="seat must be an integer"):
            s.resample_from_infostate(bad, np.random.default_rng(0))
    assert s.observation_tensor(np.int64(1)).shape == (13,)



@pytest.mark.parametrize("game", ["toy", "prowl", "badland_wolves", "clans", "clandestine"])
def test_render_text_refuses_a_seat_that_is_not_one(game):
    """``render_text(seat)``: None is the full picture, any other seat must name one (-1 showed
    the last seat's knowledge with every hand hidden, a seat past the end showed no hand or
    raised an IndexError, True and 1.0 showed seat 1's hand)."""
    from envs import make_raw_env

    s = ToyState(seed=0) if game == "toy" else make_raw_env(game, num_players=3).game
    n = s.num_players
    for bad in (-1, n, True, 1.0, "0"):
        with pytest.raises(ValueError, match=f"seat must be an integer in 0..{n - 1}, got"):
            s.render_text(bad)
        with pytest.raises(ValueError, match="seat must be an integer"):
            s.render_text(seat=bad)
    assert s.render_text(np.int64(1)) == s.render_text(seat=1) == s.render_text(1)
    assert s.render_text() == s.render_text(None)
    if game != "toy":  # the toy game hides nothing; every real game hides a hand from seat 0
        assert s.render_text(None) != s.render_text(0)

def test_malformed_records_raise_record_errors():
    rec = ToyState(seed=1).to_record()
    for bad in ({**rec, "config": {"colour": 1}}, {**rec, "config": None},
                {**rec, "actions": "01"}, {**rec, "seed": -4}, {**rec, "config": {"num_players": 9}}):
        with pytest.raises(RecordError):
            ToyState.from_record(bad)


def test_records_carry_chance_and_replay_counterfactual_outcomes():
    from envs.core.errors import RecordError
    from tests.laws import assert_history_consistent

    s = ToyState(seed=3, num_players=3)
    truth = s.coins.tolist()
    rec = s.to_record()
    assert rec["chance"] == [["coin", c] for c in truth]
    flipped = [1 - c for c in truth]
    rec2 = dict(rec, chance=[["coin", c] for c in flipped])
    assert ToyState.from_record(rec2).coins.tolist() == flipped
    # a record without chance draws from the seed, as before
    rec3 = {k: v for k, v in rec.items() if k != "chance"}
    assert ToyState.from_record(rec3).coins.tolist() == truth
    bad = [dict(rec, chance=[["coin", 2]] * 3), dict(rec, chance=[["card", 0]] * 3),
           dict(rec, chance=[["coin", 0]] * 4), dict(rec, chance="x")]
    for r in bad:
        with pytest.raises(RecordError):
            ToyState.from_record(r)
    s.apply_action(0)
    rng = np.random.default_rng(0)
    for seat in range(3):
        w = s.resample_from_infostate(seat, rng)
        assert w.coins[seat] == s.coins[seat]
        assert assert_history_consistent(s, seat, w) == 2


def test_public_history_in_infos_when_asked():
    e = raw_env(public_history=True)
    e.reset(seed=1)
    assert e.infos["player_0"]["public_history"] == []
    e.step(1)
    e.step(0)
    assert e.infos["player_0"]["public_history"] == [(0, 0, 2), (0, 1, 1)]
    assert e.infos["player_1"]["public_history"] == e.infos["player_0"]["public_history"]
    plain = raw_env()
    plain.reset(seed=1)
    plain.step(1)
    assert "public_history" not in plain.infos["player_0"]
    with pytest.raises(ConfigError, match="public_history"):
        raw_env(public_history="yes")


def test_bad_seeds_are_named_in_envs_and_states():
    import gymnasium

    import envs  # noqa: F401  (registers the Gymnasium ids)

    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            raw_env().reset(seed=bad)
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            ToyState(seed=bad)
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            gymnasium.make("cunning/Prowl-v0", num_players=4).reset(seed=bad)


def test_single_agent_env_takes_ppo_opponents_and_checks_illegal_reward(tmp_path):
    import gymnasium

    import envs  # noqa: F401

    with pytest.raises(FileNotFoundError):
        gymnasium.make("cunning/Prowl-v0", num_players=4, opponents=[str("ppo:" + str(tmp_path))])
    for bad in ("x", None, float("nan"), True):
        with pytest.raises(ConfigError, match="illegal_reward"):
            gymnasium.make("cunning/Prowl-v0", num_players=4, illegal_reward=bad)
