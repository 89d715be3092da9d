"""OpenSpiel view of every game (envs/openspiel.py): OpenSpiel's own API checks, its bots.

Skipped where the optional extra ``openspiel`` (the ``open_spiel`` package) is not installed.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed "
                                                "(pip install -e '.[openspiel]')")

import envs
from envs import openspiel as osp
from envs.core.errors import ConfigError

# small configurations that keep OpenSpiel's checks quick (Badland Wolves games are long: a
# short Lead-Wolf turn limit, which also exercises the engine's truncation)
CONFIGS = {
    "prowl": [{}, {"players": 2}, {"players": 3, "reward": "zero_sum"}],
    "badland_wolves": [{"players": 3, "max_turns": 25}, {"players": 5, "max_turns": 10,
                                                         "reward": "win_only"}],
    "clans": [{}, {"players": 2, "reward": "score_margin"}],
    # Clandestine games run to about 1,400 decisions: a short round limit keeps them quick
    "clandestine": [{"players": 2, "max_rounds": 6}, {"players": 3, "max_rounds": 4,
                                                      "basic_preset": True},
                    # solo: one seat against the Nemesis, which the engine plays
                    {"players": 1, "nemesis": "most_holy", "difficulty": 3, "max_rounds": 4}],
}


def test_every_game_is_registered():
    names = {g.short_name for g in pyspiel.registered_games()}
    assert {f"cunning_{g}" for g in envs.GAMES} <= names
    assert set(CONFIGS) == set(envs.GAMES) - {"toy"}  # the test suite's toy game is registered too


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_game_type_and_parameters(game):
    g = osp.load_game(game)
    t = g.get_type()
    state_class = envs.env_module(game).raw_env.state_class
    engine = state_class.from_config(0)
    assert t.short_name == f"cunning_{game}"
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    params = g.get_parameters()
    assert params["players"] == engine.num_players == g.num_players()
    assert params["rng_seed"] == -1
    # every engine keyword with a default is a parameter; those defaulting to None (Clandestine's
    # variant flags, which basic_preset decides, its Societies, Nemesis and difficulty) are
    # offered with their "none" value: "" for a text parameter, -1 for an integer one
    offered = set(osp._engine_keywords(state_class))
    assert set(params) - {"players", "rng_seed", "max_game_length"} == offered - {"num_players"}
    assert offered <= set(engine.config) | {"difficulty"}  # recorded only with a Nemesis
    for k, v in osp._engine_keywords(state_class).items():
        if v is None:
            assert params[k] == ("" if k != "difficulty" else -1), k
    assert g.num_distinct_actions() == engine.num_actions
    assert g.information_state_tensor_size() == engine.observation_size
    assert g.observation_tensor_size() == engine.observation_size
    assert g.max_chance_outcomes() == 0
    assert g.max_game_length() == osp.DEFAULT_MAX_GAME_LENGTH[game]
    assert (t.min_num_players, t.max_num_players) == {
        "prowl": (2, 5), "badland_wolves": (3, 5), "clans": (2, 5), "clandestine": (1, 5)}[game]


def test_utility_follows_the_reward_configuration():
    util = pyspiel.GameType.Utility
    cases = [("prowl", {}, util.GENERAL_SUM), ("prowl", {"players": 2}, util.ZERO_SUM),
             ("prowl", {"reward": "zero_sum"}, util.ZERO_SUM),
             ("clans", {"players": 2, "reward": "score_margin"}, util.ZERO_SUM),
             ("clans", {"players": 3}, util.GENERAL_SUM),
             ("badland_wolves", {}, util.GENERAL_SUM)]
    for game, params, expected in cases:
        g = osp.load_game(game, **params)
        assert g.get_type().utility == expected, (game, params)
        assert g.utility_sum() == (0.0 if expected == util.ZERO_SUM else None)
    g = osp.load_game("badland_wolves", reward="win_only")
    assert (g.min_utility(), g.max_utility()) == (0.0, 1.0)


def test_list_keyword_and_bad_parameters():
    g = osp.load_game("prowl", clans="Winter/Autumn/Summer/Spring")
    assert g.engine_config["clans"] == ["Winter", "Autumn", "Summer", "Spring"]
    # the game string round-trips through OpenSpiel's parser
    assert str(pyspiel.load_game(str(g))) == str(g)
    with pytest.raises(ConfigError, match="num_players"):
        osp.load_game("prowl", players=7)
    with pytest.raises(ConfigError, match="max_game_length"):
        osp.load_game("clans", max_game_length=0)
    with pytest.raises(ValueError, match="unknown game"):
        osp.load_game("chess")


@pytest.mark.parametrize("humans", [1, 2])
def test_clandestine_against_a_nemesis_plays_and_round_trips(humans):
    """Solo Clandestine (rulebook "Solo Play"): OpenSpiel's players are the human seats; the
    Nemesis, seated last, plays inside the engine's transitions (no chance node, never a
    current player); its return is not one of the players'. The game's parameters give the
    same game back through pickle and ``load_game(str(game))``."""
    g = osp.load_game("clandestine", players=humans, nemesis="most_holy", difficulty=3,
                      max_rounds=3, rng_seed=7)
    assert g.num_players() == humans
    params = g.get_parameters()
    assert (params["players"], params["nemesis"], params["difficulty"]) == (humans, "most_holy", 3)
    assert g.engine_config["num_players"] == humans and g.engine_config["nemesis"] == "most_holy"
    engine = g.new_initial_state().engine
    assert engine.num_players == humans + 1 and engine.agent_seats == tuple(range(humans))
    assert g.information_state_tensor_size() == engine.observation_size
    for copy in (pickle.loads(pickle.dumps(g)), pyspiel.load_game(str(g))):
        assert copy.num_players() == humans and copy.get_parameters() == params
        assert copy.new_initial_state().engine.num_players == humans + 1
    s = g.new_initial_state()
    rng = np.random.default_rng(0)
    seats, nemesis_turns = set(), 0
    while not s.is_terminal():
        seats.add(s.current_player())
        s.apply_action(int(rng.choice(s.legal_actions())))
        nemesis_turns += any(w.startswith("flipped the Intent card ")
                             for _, w in s.engine.rules_words())
        if len(s.history()) == 20:
            mid = pickle.loads(pickle.dumps(s))
            assert str(mid) == str(s) and mid.history() == s.history()
            assert mid.get_game().num_players() == humans
    assert seats == set(range(humans)) and nemesis_turns >= 2
    assert s.engine.is_terminal and s.engine.end_reason == "round_limit"
    assert s.returns() == [float(r) for r in s.engine.returns()[:humans]]
    assert len(s.returns()) == humans and all(r in (-1.0, 1.0) for r in s.returns())


def test_clandestine_none_keywords_have_their_none_value_and_bad_values_are_named():
    # "" / -1 leave a keyword at None: the Societies drawn, the preset's flags, no Nemesis
    g = osp.load_game("clandestine", basic_preset=True)
    from envs.clandestine.engine import ClandestineState
    preset = ClandestineState.from_config(0, basic_preset=True).config
    assert g.engine_config == preset and g.engine_config["conjunctions"] is False
    g = osp.load_game("clandestine", basic_preset=True, conjunctions="true",
                      societies="blue/garden/serpent")
    assert g.engine_config["conjunctions"] is True
    assert g.engine_config["societies"] == ["blue", "garden", "serpent"]
    assert osp.load_game("clandestine", chaos="false").engine_config["chaos"] is False
    # Python values are taken for those keywords by load_game
    g = osp.load_game("clandestine", players=1, nemesis="silver_guard", difficulty=2,
                      conjunctions=False, societies=None)
    assert g.get_parameters()["conjunctions"] == "false" and g.get_parameters()["societies"] == ""
    with pytest.raises(ConfigError, match="nemesis must be .*got 'dragon'"):
        osp.load_game("clandestine", players=1, nemesis="dragon", difficulty=3)
    with pytest.raises(ConfigError, match="difficulty must be an integer in 1..6 with a Nemesis, "
                                          "got 9"):
        osp.load_game("clandestine", players=1, nemesis="most_holy", difficulty=9)
    with pytest.raises(ConfigError, match="difficulty=-1 .*is no difficulty"):
        osp.load_game("clandestine", players=1, nemesis="most_holy")
    with pytest.raises(ConfigError, match="difficulty=3 needs a Nemesis"):
        osp.load_game("clandestine", players=2, difficulty=3)
    with pytest.raises(ConfigError, match="conjunctions must be '' .*'true' or 'false', got "
                                          "'yes'"):
        osp.load_game("clandestine", conjunctions="yes")
    with pytest.raises(ConfigError, match="num_players"):
        osp.load_game("clandestine", players=1)  # one seat needs a Nemesis


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_openspiel_random_sim_test(game):
    """OpenSpiel's C++ API checks (clone, legal actions, masks, observables, returns, length)."""
    for params in CONFIGS[game]:
        g = osp.load_game(game, rng_seed=11, **params)
        pyspiel.random_sim_test(g, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_openspiel_python_games_sim_test(game):
    """OpenSpiel's Python ``games_sim_test`` simulation (clone, pickling, returns in range)."""
    games_sim_test = pytest.importorskip("open_spiel.python.tests.games_sim_test")
    g = osp.load_game(game, rng_seed=5, **CONFIGS[game][0])
    games_sim_test.GamesSimTest("test_pig").sim_game(g, check_pyspiel_serialization=False)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_state_is_the_engine(game):
    g = osp.load_game(game, rng_seed=3, **CONFIGS[game][0])
    s = g.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(8):
        e = s.engine
        assert s.current_player() == e.current_player
        assert s.legal_actions() == e.legal_actions()
        assert s.legal_actions_mask() == e.legal_action_mask().tolist()
        for p in range(g.num_players()):
            np.testing.assert_array_equal(np.asarray(s.information_state_tensor(p), np.float32),
                                          e.observation_tensor(p))
            np.testing.assert_array_equal(np.asarray(s.observation_tensor(p), np.float32),
                                          e.observation_tensor(p))
            text = s.information_state_string(p)
            assert text.startswith(e.render_text(p) + "\ninformation state ")
            assert s.observation_string(p) == text
            if p != e.current_player:
                assert s.legal_actions(p) == []
        a = int(rng.choice(s.legal_actions()))
        assert s.action_to_string(s.current_player(), a) == e.action_to_string(a)
        s.apply_action(a)
    assert s.to_record()["actions"] == s.history()


def test_same_rng_seed_same_games_and_pickles_keep_the_stream():
    a, b = osp.load_game("prowl", rng_seed=42), osp.load_game("prowl", rng_seed=42)
    assert str(a.new_initial_state()) == str(b.new_initial_state())
    c = pickle.loads(pickle.dumps(a))
    assert str(c.new_initial_state()) == str(a.new_initial_state())
    s = a.new_initial_state()
    s.apply_action(s.legal_actions()[0])
    s2 = pickle.loads(pickle.dumps(s))
    assert str(s2) == str(s) and s2.history() == s.history()
    s3 = a.deserialize_state(s.serialize())
    assert str(s3) == str(s)


def test_max_game_length_truncates_with_zero_returns():
    g = osp.load_game("clans", rng_seed=1, max_game_length=5)
    s = g.new_initial_state()
    for _ in range(5):
        s.apply_action(s.legal_actions()[0])
    assert s.is_terminal() and s.is_truncated
    assert s.current_player() == pyspiel.PlayerId.TERMINAL
    assert s.returns() == [0.0] * g.num_players()
    assert s.legal_actions() == []


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_resample_from_infostate(game):
    g = osp.load_game(game, rng_seed=7, **CONFIGS[game][0])
    s = g.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(12):
        s.apply_action(int(rng.choice(s.legal_actions())))
    seat = s.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for source in (sampler, np.random.default_rng(2)):
        seeds_before = g._rng.bit_generator.state
        r = s.resample_from_infostate(seat, source)
        # resampling never draws from the game's seed generator (rng_seed), so the games
        # new_initial_state deals next do not depend on how often a search resampled
        assert g._rng.bit_generator.state == seeds_before
        assert r.information_state_string(seat) == s.information_state_string(seat)
        assert r.information_state_tensor(seat) == s.information_state_tensor(seat)
        assert r.current_player() == seat and r.legal_actions() == s.legal_actions()
        assert [pa.player for pa in r.full_history()] == [pa.player for pa in s.full_history()]
        assert r.history() == r.engine.history
        # the resampled state plays on by itself
        r.apply_action(r.legal_actions()[0])
    with pytest.raises(TypeError, match="probability_sampler"):
        s.resample_from_infostate(seat, 0.5)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_ismcts_and_mcts_bots_play_with_evaluate_bots(game):
    from open_spiel.python.algorithms import evaluate_bots, mcts

    g = osp.load_game(game, rng_seed=1, **CONFIGS[game][0])
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [osp.ismcts_bot(g, evaluator, max_simulations=3, random_state=rs),
            mcts.MCTSBot(g, uct_c=2.0, max_simulations=3, evaluator=evaluator, random_state=rs)]
    bots += [pyspiel.make_uniform_random_bot(p, 5) for p in range(2, g.num_players())]
    state = g.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, rs)
    assert state.is_terminal()
    assert returns == state.returns() and len(returns) == g.num_players()
    assert all(g.min_utility() <= r <= g.max_utility() for r in returns)


@pytest.mark.exhaustive
@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_openspiel_random_sim_test_default_configurations(game):
    """OpenSpiel's C++ checks on full-length games of every player count."""
    t = osp.load_game(game).get_type()
    for n in range(t.min_num_players, t.max_num_players + 1):
        # one Clandestine seat plays against a Nemesis (the engine's seat, not a player)
        solo = {"nemesis": "most_holy", "difficulty": 3} if (game, n) == ("clandestine", 1) else {}
        g = osp.load_game(game, rng_seed=n, players=n, **solo)
        # Badland Wolves games run to hundreds of decisions: one each
        sims = 1 if game == "badland_wolves" else 2
        pyspiel.random_sim_test(g, num_sims=sims, serialize=False, verbose=False)
