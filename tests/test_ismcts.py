"""ISMCTS (agents/ismcts.py): information hygiene, reproducibility, tactics and strength.

* The search learns about hidden information only through ``resample_from_infostate``: (a) on a
  guarded view of the state that exposes nothing but the seat's public reads and the resampler,
  its choice is the same whether the view wraps the real state or a resampled one; (b) on the raw
  engines whose resampler depends on the information state alone (toy, Clans), its choice on the
  real state equals its choice on states resampled from the seat's information set.
* Same seed, same moves.
* Hand-worked positions of the toy race-to-10 game where the winning move is forced.
* ``ismcts:50`` beats random: a smoke run of a few games by default; 200 Prowl, 150 Clans and
  16 Badland Wolves games (slow; Badland Wolves games are ~600 actions long).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from agents import make_agent
from agents.base import act_with_state
from agents.ismcts import ISMCTSAgent, parse_spec
from envs import env_module
from tests.toy_game import ToyState
from training.arena import evaluate, wilson_interval

PLAYERS = {"prowl": 4, "badland_wolves": 4, "clans": 3}


def state_class(game: str):
    return ToyState if game == "toy" else env_module(game).raw_env.state_class


def positions(game: str, count: int, seed: int = 0, max_steps: int = 120,
              config: dict | None = None) -> list:
    """``count`` undecided states with at least two legal actions, by seeded random play
    (``config``: the game's keywords; default the player count of :data:`PLAYERS`)."""
    cls = state_class(game)
    if config is None:
        config = {"num_players": 2 if game == "toy" else PLAYERS[game]}
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = cls.from_config(int(rng.integers(1 << 30)), **config)
        for _ in range(int(rng.integers(0, max_steps))):
            if s.is_over:
                break
            s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
        if not s.is_over and s.legal_action_mask().sum() > 1:
            out.append(s)
    return out


def decision(state) -> tuple[dict, str]:
    """The observation dict (tensor and action mask) of the seat to act at ``state``, and that
    seat's agent name ``player_<seat>``: what the arena hands an agent."""
    p = state.current_player
    return ({"observation": state.observation_tensor(p), "action_mask": state.legal_action_mask()},
            f"player_{p}")


def choose(state, seed: int, iterations: int = 30, seen=None, **kw) -> int:
    """The move of a fresh ``ISMCTSAgent(seed=seed)`` (random rollouts) at ``state``, acting
    through the arena's path (:func:`act_with_state`); ``seen`` is the state the observation is
    taken from (default ``state``)."""
    seen = state if seen is None else seen
    agent = ISMCTSAgent(seen.game_name, seen.config, iterations=iterations, seed=seed, **kw)
    obs, name = decision(seen)
    return act_with_state(agent, obs, name, state)


def assert_choice_identical_on_resampled(s, seed: int, rng, **kw) -> None:
    """The move of ``choose(s, seed, **kw)`` on the real state ``s`` equals the move on two
    states resampled from the seat's information set (raw, and behind guarded views that
    expose only their public reads and ``s``'s resampler) and on the guarded view of ``s``."""
    seat = s.current_player
    real = choose(s, seed=seed, **kw)
    for _ in range(2):
        other = s.resample_from_infostate(seat, rng)
        assert choose(other, seed=seed, **kw) == real
        assert choose(InfostateView(other, s), seed=seed, seen=other, **kw) == real
    assert choose(InfostateView(s, s), seed=seed, seen=s, **kw) == real


class InfostateView:
    """The live game as the searching seat may see it, and nothing more.

    Public reads (``current_player``, ``is_over``, ``num_players``, ``legal_action_mask``) come
    from ``state``; ``resample_from_infostate`` is served by ``resampler`` (so two views of
    states in one information set can share one resampler). Reading anything else raises.
    """

    _PUBLIC = ("current_player", "is_over", "num_players", "legal_action_mask")

    def __init__(self, state, resampler) -> None:
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_resampler", resampler)
        object.__setattr__(self, "seat", state.current_player)

    def __getattr__(self, name):
        if name in self._PUBLIC:
            return getattr(self._state, name)
        raise AttributeError(f"the search read {name!r}, which is not part of the information "
                             "state")

    def resample_from_infostate(self, seat, rng):
        assert seat == self.seat, "the search resampled for another seat"
        return self._resampler.resample_from_infostate(seat, rng)


@pytest.mark.parametrize("game", ["toy", "clans", "prowl", "badland_wolves"])
def test_search_reads_only_the_information_state(game):
    """Guarded views of the real state and of resampled states give the same choice."""
    rng = np.random.default_rng(3)
    count = 8 if game != "badland_wolves" else 4
    for k, s in enumerate(positions(game, count, seed=1)):
        seat = s.current_player
        iters = 20 if game == "badland_wolves" else 30
        real = choose(InfostateView(s, s), seed=k, iterations=iters, seen=s,
                      max_rollout_depth=300)
        for _ in range(2):
            other = s.resample_from_infostate(seat, rng)
            assert np.array_equal(other.observation_tensor(seat), s.observation_tensor(seat))
            got = choose(InfostateView(other, s), seed=k, iterations=iters, seen=other,
                         max_rollout_depth=300)
            assert got == real


@pytest.mark.parametrize("game", ["toy", "clans", "prowl"])
def test_choice_identical_on_resampled_states(game):
    """On the raw engine: the move from the real state equals the move from any state resampled
    from the seat's information set (same agent seed), over many positions."""
    rng = np.random.default_rng(5)
    for k, s in enumerate(positions(game, 25, seed=2)):
        seat = s.current_player
        real = choose(s, seed=100 + k)
        for _ in range(3):
            other = s.resample_from_infostate(seat, rng)
            assert choose(other, seed=100 + k) == real


def test_hidden_fields_matter_to_a_search_that_reads_them():
    """Sanity check of the invariance test: a search on the full state (cheating: it clones the
    real state instead of resampling) does change its choice across the resampled states."""

    class Cheat:
        def __init__(self, s):
            self.s = s
            self.current_player, self.is_over = s.current_player, s.is_over
            self.num_players = s.num_players

        def legal_action_mask(self):
            return self.s.legal_action_mask()

        def resample_from_infostate(self, seat, rng):
            c = self.s.clone()
            c.rng = np.random.default_rng(int(rng.integers(2**62)))
            return c

    rng = np.random.default_rng(5)
    differs = 0
    for k, s in enumerate(positions("clans", 12, seed=2)):
        seat = s.current_player
        real = choose(Cheat(s), seed=100 + k, iterations=60, seen=s)
        for _ in range(3):
            other = s.resample_from_infostate(seat, rng)
            differs += choose(Cheat(other), seed=100 + k, iterations=60, seen=other) != real
    assert differs > 0


@pytest.mark.parametrize("game", ["clans", "prowl", "badland_wolves"])
def test_reproducible_with_a_seed(game):
    for s in positions(game, 3, seed=4):
        a = ISMCTSAgent(game, s.config, iterations=25, seed=9, max_rollout_depth=300)
        b = ISMCTSAgent(game, s.config, iterations=25, seed=9, max_rollout_depth=300)
        assert a.search(s, s.current_player) == b.search(s, s.current_player)
        assert a.last_stats == b.last_stats
        # the live state is not touched by the search
        before = s.to_record()
        a.search(s, s.current_player)
        assert s.to_record() == before


@pytest.mark.parametrize("game", ["clans", "prowl", "badland_wolves"])
def test_root_statistics(game):
    """Every iteration passes through exactly one root child; only legal actions are searched."""
    for s in positions(game, 3, seed=6):
        agent = ISMCTSAgent(game, s.config, iterations=40, seed=1, max_rollout_depth=200)
        move = agent.search(s, s.current_player)
        legal = set(np.flatnonzero(s.legal_action_mask()).tolist())
        assert set(agent.last_stats) <= legal and move in legal
        assert sum(v for v, _ in agent.last_stats.values()) == 40 == agent.last_iterations
        assert all(-1.0 <= m <= 1.0 for _, m in agent.last_stats.values())
        assert agent.last_stats[move][0] == max(v for v, _ in agent.last_stats.values())


def toy_at(total: int, num_players: int = 2, turn: int = 0) -> ToyState:
    s = ToyState(seed=0, num_players=num_players)
    s.total, s.turn = total, turn
    return s


@pytest.mark.parametrize("num_players", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_takes_an_immediate_win(num_players, seed):
    """Race to 10 at 8: adding 2 wins now; adding 1 lets the next seat win by adding 1."""
    assert choose(toy_at(8, num_players), seed=seed, iterations=50) == 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finds_the_two_ply_win(seed):
    """2 players, race to 10 at 6: adding 1 (to 7) wins whatever the reply (8 -> +2, 9 -> +1);
    adding 2 (to 8) hands the opponent an immediate win."""
    agent = ISMCTSAgent("toy", toy_at(6).config, iterations=200, seed=seed)
    assert agent.search(toy_at(6), 0) == 0
    visits_win, mean_win = agent.last_stats[0]
    visits_loss, mean_loss = agent.last_stats[1]
    assert visits_win > visits_loss and mean_win > 0.5 > mean_loss


def test_heuristic_rollouts_and_time_budget():
    s = positions("clans", 1, seed=8)[0]
    agent = make_agent("ismcts:20:rollout=heuristic", "clans", s.config, seed=3)
    assert agent.rollout == "heuristic"
    assert agent.search(s, s.current_player) in np.flatnonzero(s.legal_action_mask())
    timed = ISMCTSAgent("clans", s.config, iterations=None, seconds=0.05, seed=3)
    timed.search(s, s.current_player)
    assert timed.last_iterations >= 1


def test_spec_and_errors():
    assert parse_spec("ismcts:200") == {"iterations": 200}
    assert parse_spec("ismcts:50:rollout=heuristic:c=1.5:max_depth=none:seconds=2") == {
        "iterations": 50, "rollout": "heuristic", "c": 1.5, "max_rollout_depth": None,
        "seconds": 2.0}
    for bad, msg in [("ismcts:", "ismcts:N"), ("ismcts:x", "integer"),
                     ("ismcts:5:depth=3", "unknown ISMCTS option"),
                     ("ismcts:5:c=1:c=2", "twice"), ("ismcts:5:c=abc", "not a float")]:
        with pytest.raises(ValueError, match=msg):
            parse_spec(bad)
    config = ToyState(seed=0).config
    with pytest.raises(ValueError, match="rollout"):
        make_agent("ismcts:5:rollout=greedy", "clans", config)
    with pytest.raises(ValueError, match="iterations"):
        make_agent("ismcts:0", "clans", config)
    with pytest.raises(ValueError, match="budget"):
        ISMCTSAgent("clans", config, iterations=None)
    s = toy_at(3)
    agent = ISMCTSAgent("toy", s.config, iterations=5)
    obs = {"observation": s.observation_tensor(0), "action_mask": s.legal_action_mask()}
    with pytest.raises(ValueError, match="live game"):
        agent.act(obs, "player_0")
    with pytest.raises(ValueError, match="not of player_1"):
        agent.act(obs, "player_1", state=s)


@pytest.mark.parametrize("spec,message", [
    ("ismcts:none:seconds=inf", "seconds must be a positive finite number"),
    ("ismcts:4:seconds=inf", "seconds must be a positive finite number"),
    ("ismcts:4:seconds=nan", "seconds must be a positive finite number"),
    ("ismcts:4:c=inf", "c .UCB exploration constant. must be a finite number >= 0"),
    ("ismcts:4:c=-inf", "c .UCB exploration constant. must be a finite number >= 0"),
])
def test_infinite_budgets_and_constants_are_refused(spec, message):
    """An infinite time budget with no iteration budget is a search that never returns, and
    an infinite ``c`` makes every explored move's UCB score infinite (the search then keeps
    the first move it expanded): both are refused when the agent is made, naming the option
    (both were accepted before)."""
    with pytest.raises(ValueError, match=message):
        make_agent(spec, "clans", ToyState(seed=0).config)


@pytest.mark.parametrize("spec", ["ismcts:4_0", "ismcts: 4", "ismcts:\uff14", "ismcts:+4",
                                  "ismcts:4:max_depth=1_0", "ismcts:4:max_depth= 9"])
def test_counts_in_a_spec_are_plain_digits(spec):
    """An iteration count or ``max_depth`` is written in ASCII digits only: Python's int()
    also reads ``4_0`` as 40, a full-width digit, a sign or surrounding spaces, which a spec
    took silently before (``ismcts:4_0`` searched 40 iterations)."""
    with pytest.raises(ValueError, match="integer"):
        parse_spec(spec)


@pytest.mark.parametrize("game", ["clans", "prowl"])
def test_smoke_games_against_random(game):
    """A handful of full games through the arena (seats rotated): legal play to the end."""
    n = PLAYERS[game]
    report = evaluate(game, ["ismcts:50"] + ["random"] * (n - 1), n, seed=0)
    assert report.num_games == n
    assert all(not r.truncated for r in report.results)


@pytest.mark.exhaustive
@pytest.mark.parametrize("game,games", [("prowl", 200), ("clans", 150), ("badland_wolves", 16)])
def test_ismcts_50_beats_random(game, games):
    """ismcts:50 in one seat, random in the others, seats rotated: its win rate's 95% Wilson
    interval lies above the 1/n a random seat wins."""
    n = PLAYERS[game]
    report = evaluate(game, ["ismcts:50"] + ["random"] * (n - 1), games, seed=11)
    row = report.entry_rows()[0]
    lo, _ = wilson_interval(row["wins"], row["games"])
    assert lo > 1 / n, row


def test_evaluate_command_line_takes_ismcts(tmp_path):
    from training.evaluate import main

    assert main(["--game", "clans", "--agents", "ismcts:10", "random", "random", "--games", "1",
                 "--out", str(tmp_path)]) == 0
    import json

    report = json.loads((tmp_path / "evaluation.json").read_text())
    assert report["lineup"] == ["ismcts:10", "random", "random"]
    assert report["summary"]["games"] == 1


def test_selfplay_opponents_may_search():
    """The training env hands the live state to an opponent that declares ``needs_state``."""
    from training.selfplay import LearnerEnv, OpponentPool

    config = env_module("clans").raw_env.state_class(seed=0, num_players=3).config
    pool = OpponentPool("clans", config, {"random": 1.0}, seed=0)
    calls = []

    def make(label, seed=None):   # one searching instance per seat, as the pool gives
        searcher = ISMCTSAgent("clans", config, iterations=5, seed=seed)
        searcher.search = lambda state, seat: calls.append(seat) or ISMCTSAgent.search(
            searcher, state, seat)
        return searcher

    pool.make = make
    env = LearnerEnv(state_class("clans"), config, pool, seed=0)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc
    assert calls and 0 not in calls   # the learner sits at seat 0 in the first episode


# --- cut rollouts, provisional evaluation, per-game constants ------------------------------
def clans_with_scores(seed: int = 0):
    """A Clans game played at random until some village has scored points but the game goes on
    (seat scores not all equal)."""
    rng = np.random.default_rng(seed)
    s = state_class("clans").from_config(seed, num_players=3)
    while not (s.final_scores().max() > s.final_scores().min() + 3):
        s.apply_action(int(rng.choice(np.flatnonzero(s.legal_action_mask()))))
    assert not s.is_over
    return s


def test_spec_cut_and_final_options():
    assert parse_spec("ismcts:200:c=0.5:max_depth=20:cut=score_margin:final=mean") == {
        "iterations": 200, "c": 0.5, "max_rollout_depth": 20, "cut": "score_margin",
        "final": "mean"}
    config = state_class("clans")(seed=0).config
    agent = make_agent("ismcts:10:cut=zeros:final=mean", "clans", config)
    assert (agent.cut, agent.final) == ("zeros", "mean")
    for spec, bad in [("ismcts:5:cut=foo", "'foo'"), ("ismcts:5:final=best", "'best'"),
                      ("ismcts:5:cut=Win_loss", "'Win_loss'"), ("ismcts:5:cut=", "''")]:
        with pytest.raises(ValueError, match=bad):
            make_agent(spec, "clans", config)
    # engine kind names exist only where the engine declares them
    with pytest.raises(ValueError, match=r"cut must be one of \['zeros', 'provisional'\] "
                                         "for prowl, got 'score_margin'"):
        make_agent("ismcts:5:cut=score_margin", "prowl",
                   state_class("prowl")(seed=0, num_players=4).config)
    with pytest.raises(ValueError, match="twice"):
        parse_spec("ismcts:5:final=mean:final=visits")


def test_spec_values_are_case_sensitive_none_included():
    """``none`` is lower case like every other value: ``prior=NONE`` is refused as
    ``prior=HEURISTIC`` is, and so are ``worlds=None`` and ``ismcts:NONE``."""
    assert parse_spec("ismcts:none:seconds=0.5:worlds=none:prior=none") == {
        "iterations": None, "seconds": 0.5, "max_world_samples": None, "prior": None}
    config = state_class("prowl")(seed=0, num_players=4).config
    for spec, bad in [("ismcts:5:prior=NONE", "'NONE'"),
                      ("ismcts:5:prior=HEURISTIC", "'HEURISTIC'")]:
        with pytest.raises(ValueError, match=bad):
            make_agent(spec, "prowl", config)
    with pytest.raises(ValueError, match=r"worlds='None'.*not an integer"):
        parse_spec("ismcts:5:worlds=None")
    with pytest.raises(ValueError, match=r"iterations must be an integer.*'NONE'"):
        parse_spec("ismcts:NONE:seconds=1")


def test_cut_rollout_scores_the_determinized_world_provisionally():
    """A rollout cut after one action returns the determinized world's provisional returns
    (configured kind, or the kind named by ``cut``); ``cut=zeros`` keeps the old zeros; an
    engine without ``provisional_returns`` (the toy) gives zeros."""
    s = clans_with_scores(3)
    seat = s.current_player
    for cut, kind in [("provisional", None), ("win_loss", "win_loss"),
                      ("score_margin", "score_margin")]:
        agent = ISMCTSAgent("clans", s.config, iterations=5, max_rollout_depth=1, cut=cut, seed=0)
        world = s.resample_from_infostate(seat, np.random.default_rng(1))
        before = len(world.history)
        got = agent._rollout(world, agent.rng)
        assert len(world.history) == before + 1 and not world.is_over
        assert got == world.provisional_returns(kind).tolist()
        assert any(v != 0.0 for v in got)
    zeros = ISMCTSAgent("clans", s.config, iterations=5, max_rollout_depth=1, cut="zeros", seed=0)
    world = s.resample_from_infostate(seat, np.random.default_rng(1))
    assert zeros._rollout(world, zeros.rng) == [0.0, 0.0, 0.0]
    toy = ISMCTSAgent("toy", toy_at(0).config, iterations=5, max_rollout_depth=1, seed=0)
    assert toy._rollout(toy_at(0), toy.rng) == [0.0, 0.0]


def test_cut_rollout_in_badland_wolves_scores_the_win_deficits():
    """Badland Wolves has a provisional evaluation too: a rollout cut after one action returns
    the determinized world's ``provisional_returns`` (the configured win_loss, or win_only)."""
    g = state_class("badland_wolves")(seed=11, num_players=4)
    rng = np.random.default_rng(5)
    while len(set(g.provisional_returns().tolist())) == 1:
        g.apply_action(int(rng.choice(np.flatnonzero(g.legal_action_mask()))))
    seat = g.current_player
    for cut, kind in [("provisional", None), ("win_only", "win_only")]:
        agent = ISMCTSAgent("badland_wolves", g.config, iterations=5, max_rollout_depth=1,
                            cut=cut, seed=0)
        world = g.resample_from_infostate(seat, np.random.default_rng(1))
        got = agent._rollout(world, agent.rng)
        assert not world.is_over
        assert got == world.provisional_returns(kind).tolist()
        assert len(set(got)) > 1
        assert sum(got) == pytest.approx(1.0 if kind == "win_only" else -2.0)


def test_cut_rollouts_keep_the_choice_identical_on_resampled_states():
    """The provisional evaluation reads only the determinization: with every rollout cut (and
    scored from the world's scores), the move from the real Clans state still equals the move
    from states resampled from the seat's information set."""
    rng = np.random.default_rng(7)
    for k, s in enumerate(positions("clans", 10, seed=3)):
        assert_choice_identical_on_resampled(s, 200 + k, rng, max_rollout_depth=6,
                                             cut="score_margin", c=0.5)


def test_final_mean_picks_the_best_mean():
    s = clans_with_scores(5)
    agent = ISMCTSAgent("clans", s.config, iterations=60, max_rollout_depth=4, c=0.5,
                        cut="score_margin", final="mean", seed=2)
    move = agent.search(s, s.current_player)
    best = max(m for _, m in agent.last_stats.values())
    assert agent.last_stats[move][1] == best


def test_per_game_defaults_and_repr():
    from agents.ismcts import BASE_DEFAULTS, GAME_DEFAULTS, game_defaults

    for game in ("prowl", "clandestine"):
        assert game not in GAME_DEFAULTS
        assert game_defaults(game) == {"c": 2.0, "max_rollout_depth": 2000,
                                       "cut": "provisional", "final": "visits",
                                       "max_world_samples": None, "prior": None,
                                       "prior_weight": 1.0} == BASE_DEFAULTS
    config = state_class("prowl")(seed=0, num_players=4).config
    agent = make_agent("ismcts:200", "prowl", config)
    assert (agent.c, agent.max_rollout_depth, agent.cut, agent.final) == (2.0, 2000,
                                                                         "provisional", "visits")
    assert ("c=2.0, max_rollout_depth=2000, cut='provisional', final='visits', "
            "max_world_samples=None" in repr(agent))
    # Clans: the constants measured in docs/training.md ("Clans: the searcher's constants")
    clans = make_agent("ismcts:200", "clans", state_class("clans")(seed=0).config)
    assert game_defaults("clans") == {"c": 0.5, "max_rollout_depth": 5, "cut": "score_margin",
                                      "final": "visits", "max_world_samples": None,
                                      "prior": None, "prior_weight": 1.0}
    assert (clans.c, clans.max_rollout_depth, clans.cut, clans.final) == (0.5, 5, "score_margin",
                                                                         "visits")
    assert "c=0.5, max_rollout_depth=5, cut='score_margin', final='visits'" in repr(clans)
    # Badland Wolves: the constants measured in docs/training.md ("Badland Wolves: the
    # searcher's constants")
    assert game_defaults("badland_wolves") == {
        "c": 0.5, "max_rollout_depth": 10, "cut": "hands", "final": "visits",
        "max_world_samples": 20, "prior": "heuristic", "prior_weight": 1.0}
    bw = make_agent("ismcts:200", "badland_wolves",
                    state_class("badland_wolves")(seed=0, num_players=4).config)
    assert (bw.c, bw.max_rollout_depth, bw.cut, bw.max_world_samples, bw.prior,
            bw.prior_weight) == (0.5, 10, "hands", 20, "heuristic", 1.0)
    assert "max_world_samples=20, prior='heuristic', prior_weight=1.0" in repr(bw)
    # an option in the spec wins over the game's default
    assert make_agent("ismcts:200:c=3", "clans", state_class("clans")(seed=0).config).c == 3.0
    bare = make_agent("ismcts:200:prior=none:worlds=none:cut=provisional", "badland_wolves",
                      state_class("badland_wolves")(seed=0, num_players=4).config)
    assert (bare.prior, bare.max_world_samples, bare.cut) == (None, None, "provisional")


class CountingResampler:
    """Serves ``state``'s resampler and counts the calls."""

    def __init__(self, state) -> None:
        self.state, self.calls = state, 0

    def resample_from_infostate(self, seat, rng):
        self.calls += 1
        return self.state.resample_from_infostate(seat, rng)


@pytest.mark.parametrize("game,worlds,iterations,expected", [
    ("clans", None, 30, 30), ("clans", 7, 30, 7), ("clans", 40, 30, 30), ("clans", 1, 12, 1),
    ("prowl", 5, 25, 5)])
def test_world_samples_bound_the_resamples(game, worlds, iterations, expected):
    """``max_world_samples=K`` (OpenSpiel's ``max_world_samples``): the search draws
    ``min(K, iterations)`` worlds, each from the resampler, and still runs every iteration;
    ``None`` draws one world per iteration."""
    s = positions(game, 1, seed=11)[0]
    counter = CountingResampler(s)
    view = InfostateView(s, counter)
    agent = ISMCTSAgent(game, s.config, iterations=iterations, max_world_samples=worlds,
                        seed=4, max_rollout_depth=50)
    move = agent.search(view, s.current_player)
    assert counter.calls == expected
    assert agent.last_iterations == iterations
    assert sum(v for v, _ in agent.last_stats.values()) == iterations
    assert s.legal_action_mask()[move]


@pytest.mark.parametrize("game", ["toy", "clans", "prowl"])
def test_world_samples_keep_the_choice_identical_on_resampled_states(game):
    """With a pool of held worlds the search still learns only through the resampler: its
    move from the real state equals its move from states resampled from the seat's
    information set (same agent seed), on the raw engines and on guarded views."""
    rng = np.random.default_rng(9)
    for k, s in enumerate(positions(game, 10, seed=4)):
        assert_choice_identical_on_resampled(s, 300 + k, rng, max_world_samples=4)


def test_world_samples_spec_matches_the_keyword():
    """``ismcts:40:worlds=3`` is the agent ``max_world_samples=3``: same moves and root
    statistics from the same seed, and the pool size shows in ``repr``; two searches with a
    held pool from one position are reproducible (the held worlds are cloned, never played
    on)."""
    s = positions("clans", 1, seed=12)[0]
    spec = make_agent("ismcts:40:worlds=3", "clans", s.config, seed=5)
    direct = ISMCTSAgent("clans", s.config, iterations=40, max_world_samples=3, seed=5)
    assert spec.max_world_samples == 3
    assert spec.search(s, s.current_player) == direct.search(s, s.current_player)
    assert spec.last_stats == direct.last_stats
    assert "max_world_samples=3" in repr(spec)


def test_world_samples_spec_and_errors():
    assert parse_spec("ismcts:200:worlds=20") == {"iterations": 200, "max_world_samples": 20}
    assert parse_spec("ismcts:200:worlds=none") == {"iterations": 200,
                                                    "max_world_samples": None}
    for spec in ["ismcts:5:worlds=1.5", "ismcts:5:worlds=-2", "ismcts:5:worlds=2_0"]:
        with pytest.raises(ValueError, match="integer"):
            parse_spec(spec)
    config = state_class("clans")(seed=0).config
    with pytest.raises(ValueError, match="max_world_samples must be a positive integer or "
                                         "None, got 0"):
        make_agent("ismcts:5:worlds=0", "clans", config)
    for bad in (True, 2.5, -1):
        with pytest.raises(ValueError, match="max_world_samples"):
            ISMCTSAgent("clans", config, iterations=5, max_world_samples=bad)


@pytest.mark.parametrize("keyword", ["iterations", "max_rollout_depth", "max_world_samples"])
def test_integer_keywords_refuse_non_integers_by_name(keyword):
    """The count keywords refuse infinity, NaN, strings and bools with a ValueError naming the
    keyword (``int()`` raised OverflowError for infinity and took True as 1 for
    ``max_rollout_depth``); integral floats and numpy integers are taken as ints."""
    config = state_class("clans")(seed=0).config
    for bad in (math.inf, math.nan, "x", "3", True, np.bool_(True), 2.5, 0, -1):
        with pytest.raises(ValueError, match=f"{keyword} must be a positive integer"):
            ISMCTSAgent("clans", config, **{"iterations": 5, keyword: bad})
    for good in (3, 3.0, np.int64(3), np.float32(3.0)):
        agent = ISMCTSAgent("clans", config, **{"iterations": 5, keyword: good})
        assert getattr(agent, keyword) == 3 and type(getattr(agent, keyword)) is int


def test_real_keywords_refuse_non_numbers_by_name():
    """``c`` and ``seconds`` refuse a string, None and a bool with a ValueError naming the
    keyword (a string or None raised TypeError from the range check, True passed as 1)."""
    config = state_class("clans")(seed=0).config
    for keyword, bad in (("c", "x"), ("c", None), ("c", True), ("seconds", "x"),
                         ("seconds", True), ("seconds", np.bool_(True))):
        with pytest.raises(ValueError, match=f"{keyword}.* must be a"):
            ISMCTSAgent("clans", config, **{"iterations": 5, keyword: bad})
    agent = ISMCTSAgent("clans", config, iterations=5, c=np.float32(1.5), seconds=2)
    assert (agent.c, agent.seconds) == (1.5, 2)


def test_real_keywords_refuse_ints_too_large_for_a_float_by_name():
    """``c``, ``seconds`` and ``prior_weight`` given an int beyond the float range (10**400)
    are refused with a ValueError naming the keyword. Before, ``c`` and ``prior_weight`` raised
    OverflowError ("int too large to convert to float", naming nothing) and ``seconds`` was
    taken, to raise that OverflowError at the first search."""
    config = state_class("badland_wolves")(seed=0).config
    huge = 10**400
    for keyword, message in (("c", "c .*must be a finite number"),
                             ("seconds", "seconds must be a positive finite number"),
                             ("prior_weight", "prior_weight must be a finite number")):
        with pytest.raises(ValueError, match=message):
            ISMCTSAgent("badland_wolves", config, **{"iterations": 5, keyword: huge})
    agent = ISMCTSAgent("badland_wolves", config, iterations=5, c=10**300, seconds=10**6,
                        prior_weight=10**300)
    assert (agent.c, agent.seconds, agent.prior_weight) == (1e300, 10**6, 1e300)


# ---- the heuristic prior at the root (progressive bias) --------------------------------------
@pytest.mark.parametrize("game", ["clans", "prowl"])
def test_prior_keeps_the_choice_identical_on_resampled_states(game):
    """The prior heuristic reads the searching seat's observation only, so with it the move
    from the real state still equals the move from states resampled from the seat's
    information set (same agent seed), on the raw engines and on guarded views."""
    rng = np.random.default_rng(21)
    for k, s in enumerate(positions(game, 8, seed=6)):
        assert_choice_identical_on_resampled(s, 400 + k, rng, prior="heuristic",
                                             prior_weight=2.0)


@pytest.mark.parametrize("game", ["clans", "prowl", "badland_wolves"])
def test_prior_is_the_heuristic_playing_the_seat(game):
    """Over a whole game the prior is a heuristic player of the searching seat: its move at
    every decision equals that of a heuristic with the same seed fed the same observations
    (its memory of the game included); with an overwhelming bias (1e9) the search plays that
    move at every decision, and the prior's move is always among the root's children."""
    from agents import heuristic_class
    from training.arena import play_game

    n = PLAYERS[game]
    env = env_module(game).env(num_players=n)
    env.reset(seed=11)
    config = env.unwrapped.game.config
    searcher = ISMCTSAgent(game, config, iterations=12, max_rollout_depth=4, prior="heuristic",
                           prior_weight=1e9, seed=7)
    twin = heuristic_class(game)(dict(config), seed=7 * 1013 + 3)
    decisions = []
    original_act = searcher.act

    def act(observation, agent, state=None):
        expected = twin.act(observation, agent)
        move = original_act(observation, agent, state=state)
        assert searcher.last_prior_action == expected
        assert move == expected
        if np.asarray(observation["action_mask"]).sum() > 1:
            assert expected in searcher.last_stats
            decisions.append(move)
        return move

    searcher.act = act
    others = [make_agent("random", game, config, seed=50 + p) for p in range(1, n)]
    play_game(env.unwrapped, [searcher, *others], seed=11)
    assert len(decisions) >= 5


def test_prior_bias_moves_the_choice_towards_the_heuristic():
    """Across Prowl positions, a weak search agrees with the heuristic's move more often with
    the bias than without it (the bias only adds to the heuristic move's UCB score)."""
    agree = {0.0: 0, 3.0: 0}
    states = positions("prowl", 30, seed=8)
    for weight in agree:
        for k, s in enumerate(states):
            agent = ISMCTSAgent("prowl", s.config, iterations=30, prior="heuristic",
                                prior_weight=weight, seed=600 + k)
            obs, name = decision(s)
            move = act_with_state(agent, obs, name, s)
            agree[weight] += move == agent.last_prior_action
    assert agree[3.0] > agree[0.0]
    assert agree[3.0] >= 20


def test_prior_spec_and_errors():
    """``prior=heuristic:bias=W`` equals the keywords; bad values are refused by name; a
    search given an illegal prior action refuses it."""
    assert parse_spec("ismcts:200:prior=heuristic:bias=2.5") == {
        "iterations": 200, "prior": "heuristic", "prior_weight": 2.5}
    assert parse_spec("ismcts:200:prior=none") == {"iterations": 200, "prior": None}
    s = positions("clans", 1, seed=13)[0]
    spec = make_agent("ismcts:20:prior=heuristic:bias=2", "clans", s.config, seed=4)
    direct = ISMCTSAgent("clans", s.config, iterations=20, prior="heuristic", prior_weight=2.0,
                         seed=4)
    obs, name = decision(s)
    assert act_with_state(spec, obs, name, s) == act_with_state(direct, obs, name, s)
    assert spec.last_stats == direct.last_stats
    assert "prior='heuristic', prior_weight=2.0" in repr(spec)
    assert ISMCTSAgent("clans", s.config, iterations=5).prior is None
    for bad in ("ppo", "Heuristic", 1, True):
        with pytest.raises(ValueError, match="prior must be one of"):
            ISMCTSAgent("clans", s.config, iterations=5, prior=bad)
    for bad in (-1.0, math.inf, math.nan, "2", True, None):
        with pytest.raises(ValueError, match="prior_weight must be a finite number"):
            ISMCTSAgent("clans", s.config, iterations=5, prior="heuristic", prior_weight=bad)
    with pytest.raises(ValueError, match="not a float"):
        parse_spec("ismcts:5:bias=lots")
    illegal = int(np.flatnonzero(s.legal_action_mask() == 0)[0])
    with pytest.raises(ValueError, match=f"prior_action {illegal} is not a legal action"):
        direct.search(s, s.current_player, prior_action=illegal)


def test_bias_without_a_prior_is_refused():
    """``bias=W`` (``prior_weight``) only weighs the prior's move: given without
    ``prior=heuristic`` it was silently ignored (``ismcts:20:bias=3`` searched like
    ``ismcts:20``); now it is refused by name, in the spec and the keywords alike. Left out,
    the default weight stays harmless without a prior."""
    config = state_class("clans")(seed=0).config
    for spec in ("ismcts:20:bias=3", "ismcts:20:prior=none:bias=3", "ismcts:20:bias=0"):
        with pytest.raises(ValueError, match="prior_weight=.* given without a prior"):
            make_agent(spec, "clans", config, seed=1)
    with pytest.raises(ValueError, match="prior_weight=2.0 given without a prior"):
        ISMCTSAgent("clans", config, iterations=5, prior=None, prior_weight=2.0)
    agent = make_agent("ismcts:20:prior=heuristic:bias=3", "clans", config, seed=1)
    assert (agent.prior, agent.prior_weight) == ("heuristic", 3.0)
    plain = make_agent("ismcts:20", "clans", config, seed=1)
    assert (plain.prior, plain.prior_weight) == (None, 1.0)


def test_a_cut_without_a_depth_is_refused():
    """``cut=K`` scores rollouts cut at ``max_depth``; with ``max_depth=none`` nothing is cut,
    and the spec searched as if ``cut`` were not there (``ismcts:20:max_depth=none:cut=zeros``
    took the option silently). Now it is refused by name; a game's default cut (Badland
    Wolves: ``hands``) stays allowed with ``max_depth=none``."""
    config = state_class("clans")(seed=0).config
    for spec in ("ismcts:20:max_depth=none:cut=zeros", "ismcts:20:cut=score_margin:max_depth=none"):
        with pytest.raises(ValueError, match="cut=.* max_rollout_depth is None"):
            make_agent(spec, "clans", config, seed=1)
    with pytest.raises(ValueError, match="cut='provisional' scores rollouts cut"):
        ISMCTSAgent("prowl", {"num_players": 4}, iterations=5, max_rollout_depth=None,
                    cut="provisional")
    bw = make_agent("ismcts:20:max_depth=none", "badland_wolves", {"num_players": 4}, seed=1)
    assert (bw.max_rollout_depth, bw.cut) == (None, "hands")


@pytest.mark.parametrize("spec", ["ismcts:5:prior=heuristic:bias=1_0",
                                  "ismcts:5:prior=heuristic:bias= 2",
                                  "ismcts:5:prior=heuristic:bias=\u0663",
                                  "ismcts:5:c=1_5", "ismcts:5:seconds=\uff12"])
def test_reals_in_a_spec_are_plain_ascii(spec):
    """A real option (``bias``, ``c``, ``seconds``) is written in ASCII decimal: Python's
    float() also reads ``1_0`` as 10, surrounding spaces and other scripts' digits, which a
    spec took silently before (``c=1_5`` searched with c=15.0, ``bias=\u0663`` weighed 3)."""
    with pytest.raises(ValueError, match="not a float written in ASCII digits"):
        parse_spec(spec)
    assert parse_spec("ismcts:5:prior=heuristic:bias=2.5e-1:c=.5:seconds=+3") == {
        "iterations": 5, "prior": "heuristic", "prior_weight": 0.25, "c": 0.5, "seconds": 3.0}


def test_search_refuses_a_prior_action_that_is_not_an_int():
    """``search(prior_action=...)`` takes an int action id: a float raised numpy's IndexError,
    a string a TypeError and True an "ambiguous truth value" error naming nothing; now each is
    a ValueError naming ``prior_action``. A numpy integer is taken."""
    s = positions("clans", 1, seed=13)[0]
    p = s.current_player
    legal = np.flatnonzero(s.legal_action_mask())
    agent = ISMCTSAgent("clans", s.config, iterations=5, prior="heuristic", seed=2)
    for bad in (float(legal[0]), 1.5, True, np.bool_(True), str(legal[0])):
        with pytest.raises(ValueError, match="prior_action must be an int action id"):
            agent.search(s, p, prior_action=bad)
    move = agent.search(s, p, prior_action=np.int64(legal[1]))
    assert move in set(legal.tolist()) and int(legal[1]) in agent.last_stats


@pytest.mark.parametrize("game", ["prowl", "clans"])
def test_prior_bias_with_final_mean_moves_the_choice_towards_the_heuristic(game):
    """With ``final="mean"`` the prior's move is chosen by its mean plus its progressive bias.
    Before, the bias sent nearly every iteration to the prior's move and the final choice took
    the highest of the other moves' one-visit means: on these 30 Prowl positions a weight of 3
    agreed with the heuristic 9 times and a weight of 1e9 10 times, against 15 without bias.
    Now an overwhelming bias always plays the heuristic's move and a weight of 3 agrees at
    least as often as none."""
    states = positions(game, 30, seed=8)
    agree = {}
    for weight in (0.0, 3.0, 1e9):
        agree[weight] = 0
        for k, s in enumerate(states):
            agent = ISMCTSAgent(game, s.config, iterations=30, prior="heuristic",
                                prior_weight=weight, final="mean", seed=600 + k)
            obs, name = decision(s)
            move = act_with_state(agent, obs, name, s)
            agree[weight] += move == agent.last_prior_action
            if weight == 0.0:    # no bias: the plain highest mean (ties: more visits)
                best = max(agent.last_stats.values(), key=lambda vm: vm[1])[1]
                assert agent.last_stats[move][1] == best
    assert agree[1e9] == 30
    assert agree[3.0] >= agree[0.0]


@pytest.mark.parametrize("game,config,cut", [
    ("badland_wolves", {"num_players": 4}, "hands"),
    ("badland_wolves", {"num_players": 3}, "provisional"),
    ("clandestine", {"num_players": 3}, "provisional"),
    ("clandestine", {"num_players": 1, "nemesis": "most_holy", "difficulty": 3}, "provisional"),
])
def test_prior_and_cuts_keep_the_choice_identical_on_resampled_states(game, config, cut):
    """With the heuristic prior, reused worlds and cut rollouts (Badland Wolves ``cut=hands``
    reads the hands of the sampled world only; Clandestine's heuristic, solo Nemesis game
    included), the move from the real state equals the move from states resampled from the
    seat's information set (same agent seed), on the raw engines and on guarded views that
    expose only the seat's public reads and the real state's resampler."""
    rng = np.random.default_rng(3)
    for k, s in enumerate(positions(game, 6, seed=3, max_steps=150, config=config)):
        assert_choice_identical_on_resampled(s, 50 + k, rng, iterations=20, prior="heuristic",
                                             prior_weight=2.0, max_rollout_depth=10,
                                             max_world_samples=5, cut=cut)


def test_badland_wolves_cut_scores_on_the_configured_reward_scale():
    """Under ``reward=win_only`` a finished rollout pays 0 to a loser, so the default search
    (``cut=hands``) must score its cut rollouts on the same [0, 1] scale: every root mean lies
    in [0, 1]. Before, cut rollouts were scored on the win_loss scale (about -0.5 for an
    average wolf of four), below a lost game, and the root means were negative."""
    for k, s in enumerate(positions("badland_wolves", 3, seed=4, max_steps=200,
                                    config={"num_players": 4, "reward": "win_only"})):
        agent = make_agent("ismcts:30:worlds=5", "badland_wolves", s.config, seed=k)
        assert agent.cut == "hands"
        obs, name = decision(s)
        act_with_state(agent, obs, name, s)
        means = [mean for _, mean in agent.last_stats.values()]
        assert len(means) >= 2 and all(0.0 <= m <= 1.0 for m in means), agent.last_stats


def badland_wolves_measured_specs() -> list[str]:
    """The ``ismcts`` specs of docs/training.md's Badland Wolves measurements: the spec column
    of the tables and the benchmark's ``--spec``, from the paragraph on 4-player Badland
    Wolves to the Clans constants."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "training.md").read_text()
    section = doc.split("4-player Badland\nWolves `ismcts:200`", 1)[1]
    section = section.split("#### Clans: the searcher's constants", 1)[0]
    specs = [m.group(1) for m in re.finditer(r"^\| `([^`]+)`", section, re.MULTILINE)
             if m.group(1) != "SPEC"]      # a table's header
    specs += re.findall(r"--spec (ismcts:\S+?)`", section)
    return specs


def test_badland_wolves_measured_specs_read_as_they_were_measured(monkeypatch):
    """Every Badland Wolves search measured in docs/training.md ran before the game had its own
    defaults (c=0.5, max_depth=10, worlds=20, cut=hands, prior=heuristic), so each spec must
    build the same agent under today's defaults as under the base ones it was measured with.
    Before, ``ismcts:200:c=0.5:max_depth=10:worlds=20:cut=hands`` (the "hands alone" row) also
    took today's heuristic prior, the "prior alone" rows today's ``cut=hands``, and
    ``ismcts:200`` (random rollouts to the end) every new default: rerun as written, a row
    measured another searcher."""
    from agents import ismcts

    specs = badland_wolves_measured_specs()
    assert len(specs) == 11, specs
    config = state_class("badland_wolves")(seed=0).config
    for spec in specs:
        assert spec.startswith("ismcts:"), spec
        today = repr(make_agent(spec, "badland_wolves", config, seed=1))
        with monkeypatch.context() as m:
            m.setitem(ismcts.GAME_DEFAULTS, "badland_wolves", {})
            measured = repr(make_agent(spec, "badland_wolves", config, seed=1))
        assert today == measured, spec


@pytest.mark.parametrize("num_players", [3, 5])
def test_player_count_from_the_state_when_the_config_lacks_it(num_players):
    """A config without ``num_players`` leaves the player count to the first state searched
    (the rollout heuristics were meant to be built then). The Badland Wolves heuristic assumes
    four players when not told, so before, in a 3- or 5-player game the default prior failed
    at its first decision with a choice ("observation of shape (426,), expected (576,) for 4
    players"), and so did ``rollout=heuristic``. Now both are built for the state's player
    count and play the moves of an agent given the full config."""
    full = {"num_players": num_players, "max_turns": 300, "reward": "win_loss"}
    for kw in ({}, {"rollout": "heuristic", "prior": None, "max_world_samples": 3}):
        s = state_class("badland_wolves")(seed=1, num_players=num_players)
        bare = ISMCTSAgent("badland_wolves", {}, iterations=6, seed=2, **kw)
        told = ISMCTSAgent("badland_wolves", full, iterations=6, seed=2, **kw)
        choices = 0
        for _ in range(12):
            obs, name = decision(s)
            move = act_with_state(bare, obs, name, s)
            assert move == act_with_state(told, obs, name, s)
            assert bare.last_prior_action == told.last_prior_action
            choices += int(s.legal_action_mask().sum() > 1)
            s.apply_action(move)
        assert choices >= 3


def play_decisions(agent, state, moves: int) -> int:
    """Let ``agent`` play every seat of ``state`` for ``moves`` actions (each checked legal) and
    return how many of them were choices (more than one legal action)."""
    choices = 0
    for _ in range(moves):
        obs, name = decision(state)
        move = act_with_state(agent, obs, name, state)
        assert state.legal_action_mask()[move]
        choices += int(state.legal_action_mask().sum() > 1)
        state.apply_action(move)
    return choices


def test_a_searcher_without_a_player_count_follows_each_game_s_count():
    """One searcher with a config that names no player count, reset between a 3-player and a
    5-player game, builds its prior and rollout heuristics again for the second game's count
    (before, it kept the first game's and failed on the 5-player observation)."""
    for kw in ({}, {"rollout": "heuristic", "prior": None, "max_world_samples": 3}):
        bare = ISMCTSAgent("badland_wolves", {}, iterations=4, seed=2, **kw)
        for n in (3, 5):
            bare.reset()
            s = state_class("badland_wolves")(seed=4, num_players=n)
            assert play_decisions(bare, s, 10) >= 2
            if kw:
                assert len(bare._heuristics) == n
            else:
                assert bare._prior_agent.n == n


def test_a_searcher_without_a_player_count_builds_clandestine_solo_heuristics_for_the_humans():
    """Clandestine solo: ``state.num_players`` counts the Nemesis seat, the config's
    ``num_players`` (what a heuristic is told) does not. A searcher whose config names no player
    count builds its prior and rollout heuristics for the game's configured count, one rollout
    heuristic per seat (before, it told the prior 2 players for a 1-player solo game, and the
    prior refused the observation: "observation of shape (6065,), expected (7588,)")."""
    config = {"nemesis": "most_holy", "difficulty": 1}
    for kw in ({"prior": "heuristic"}, {"rollout": "heuristic", "prior": None,
                                        "max_rollout_depth": 6, "max_world_samples": 2}):
        bare = ISMCTSAgent("clandestine", config, iterations=2, seed=5, **kw)
        s = state_class("clandestine")(seed=6, num_players=1, **config)
        assert s.num_players == 2 and s.config["num_players"] == 1
        assert play_decisions(bare, s, 12) >= 2
        if "rollout" in kw:
            assert len(bare._heuristics) == 2 and bare._rollout_players == 1
            assert all(h.n == 2 for h in bare._heuristics)     # one path per seat, Nemesis's too
        else:
            assert bare._prior_agent.n == 2 and bare.last_prior_action is not None


def test_a_prior_that_remembers_the_game_binds_the_searcher_to_one_seat():
    """The Clans heuristic remembers the game, one seat's, so a searcher with it as prior is
    one instance per seat and game: asked for a second seat it refuses with an error naming the
    searcher and its prior (before, the error named only "clans_heuristic", which the user
    never made); after ``reset()`` it may play another seat."""
    s = positions("clans", 1, seed=13)[0]
    agent = make_agent("ismcts:5:prior=heuristic", "clans", s.config, seed=3)

    obs, name = decision(s)
    s.apply_action(act_with_state(agent, obs, name, s))
    while f"player_{s.current_player}" == name:
        obs, _ = decision(s)
        s.apply_action(act_with_state(agent, obs, name, s))
    obs, other = decision(s)
    with pytest.raises(ValueError, match=f"ISMCTS with prior=heuristic acted for {name} in this "
                                         f"game and is now asked to act for {other}"):
        act_with_state(agent, obs, other, s)
    agent.reset()
    assert act_with_state(agent, obs, other, s) in set(np.flatnonzero(obs["action_mask"]))
