"""Text views (envs/core/text.py), the env's text_observation keyword, and the leak tests of the
terminal screen: nothing shown to a seat names another seat's secrets."""

import io

import numpy as np
import pytest
from rich.console import Console

from envs import GAMES, env_module, make_env
from envs.badland_wolves.engine import BadlandWolvesState
from envs.core import ConfigError
from envs.core.aec import seat_of
from envs.core.text import (HIDDEN_ACTION_TEXT, LEGAL_HEADER, SeatLogs, action_text_for,
                            seat_label, text_observation)
from envs.prowl.engine import ProwlState
from training.play import decision_screen

REAL_GAMES = [g for g in GAMES if g != "toy"]


def state_class(game):
    return env_module(game).raw_env.state_class


def random_position(game, seed, steps):
    """A state after up to ``steps`` uniformly random actions, and the SeatLogs of the way."""
    s = state_class(game).from_config(seed)
    logs = SeatLogs(s.num_players)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if s.is_over:
            break
        a = int(rng.choice(s.legal_actions()))
        logs.note(s, a)
        s.apply_action(a)
    return s, logs


def screen_text(state, seat, events, game):
    console = Console(record=True, width=120, file=io.StringIO())
    console.print(decision_screen(state, seat, events, game, 1))
    return console.export_text()


# ------------------------------------------------------------------------------ text views
@pytest.mark.parametrize("game", REAL_GAMES)
def test_text_observation_lists_the_legal_actions_only_for_the_seat_to_act(game):
    s, logs = random_position(game, seed=5, steps=15)
    actor = s.current_player
    text = logs.text(s, actor)
    lines = text.splitlines()
    assert lines[0] == f"== {s.game_name} · you are seat {actor} ({seat_label(actor, game)}) =="
    assert s.render_text(actor) in text
    listed = lines[lines.index(LEGAL_HEADER) + 1:-1]
    assert listed == [f"  {a}: {s.action_to_string(a)}" for a in s.legal_actions()]
    assert lines[-1] == "Reply with one action id."
    other = (actor + 1) % s.num_players
    assert LEGAL_HEADER not in logs.text(s, other)
    assert s.render_text(other) in logs.text(s, other)


def test_prowl_set_up_choices_are_told_without_the_card():
    # hand-worked: seed 2, 3 players; set-up order P2, P0, P1 (P2: Hooded Figure, P0:
    # Changeling, P1: Wanderer, each the first card of its hand)
    s = ProwlState(seed=2, num_players=3)
    logs = SeatLogs(3)
    while s.setup_done < 3:
        p = s.current_player
        a = s.off["setup"] + int(np.flatnonzero(s.hand[p])[0])
        logs.note(s, a)
        s.apply_action(a)
    assert s.hidden_truth()["clan_cards"] == ["Changeling", "Wanderer", "Hooded Figure"]
    assert logs.events == [["P1: chose a clan card (face-down)"], [],
                           ["P0: chose a clan card (face-down)",
                            "P1: chose a clan card (face-down)"]]
    text = logs.text(s, 2)     # P2 acts next: it was told of P0 and P1, not their cards
    assert "Since your last decision:\n  - P0: chose a clan card (face-down)" in text
    assert "Changeling" not in text and "Wanderer" not in text


def test_badland_wolves_deal_is_told_in_full_only_to_the_receiving_hunter():
    # seed 4, 3 wolves, random play (generator seed 0): at action 28 wolf 2 (Lead Wolf) deals
    # a Feather to hunter 1; hunters [2, 1]
    s = BadlandWolvesState(seed=4, num_players=3)
    rng = np.random.default_rng(0)
    while True:
        a = int(rng.choice(s.legal_actions()))
        if s.ids.decode(a)[0] == "GIVE":
            break
        s.apply_action(a)
    assert (s.current_player, s.action_to_string(a), s.hunters) == (2, "give a Feather to "
                                                                    "hunter 1", [2, 1])
    assert action_text_for(s, a, 1) == "give a Feather to hunter 1"
    assert action_text_for(s, a, 0) == "give a Scrap card to hunter 1"
    assert action_text_for(s, a, 2) == "give a Feather to hunter 1"      # the dealer itself
    assert action_text_for(s, a, None) == "give a Feather to hunter 1"   # full truth


def test_clans_moves_are_public():
    s, _ = random_position("clans", seed=1, steps=3)
    a = s.legal_actions()[0]
    for v in range(s.num_players):
        assert action_text_for(s, a, v) == s.action_to_string(a)


# ------------------------------------------------------------------------------ the env keyword
@pytest.mark.parametrize("game", REAL_GAMES)
def test_env_text_observation_is_the_seats_text_view(game):
    env = make_env(game, text_observation=True)
    env.reset(seed=11)
    ref = SeatLogs(env.unwrapped.game.num_players)
    rng = np.random.default_rng(11)
    for step, name in enumerate(env.agent_iter()):
        obs, _, term, trunc, info = env.last()
        game_state = env.unwrapped.game
        for agent, agent_info in env.unwrapped.infos.items():
            assert agent_info["text"] == ref.text(game_state, seat_of(agent))
        if term or trunc:
            assert "Your return:" in info["text"]
            env.step(None)
            continue
        assert LEGAL_HEADER in info["text"]
        if step >= 30:
            break
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        ref.note(game_state, a)
        env.step(a)


def test_env_text_observation_is_off_by_default_and_checked():
    env = make_env("prowl")
    env.reset(seed=0)
    assert "text" not in env.unwrapped.infos["player_0"]
    with pytest.raises(ConfigError, match="text_observation must be True or False"):
        make_env("prowl", text_observation="yes")


# ------------------------------------------------------------------------------ leak tests
def check_action_twins(state, action):
    """For every viewer: a legal alternative that the viewer cannot tell apart (same
    observation) but that changes the hidden truth must be told in the same words. Returns how
    many such twin pairs had different full words (the leaks a naive log would show)."""
    naive_leaks = 0
    after = state.clone()
    after.apply_action(action)
    for v in range(state.num_players):
        if v == state.current_player:
            continue
        told = action_text_for(state, action, v)
        seen = after.observation_tensor(v)
        for other in state.legal_actions():
            if other == action:
                continue
            alt = state.clone()
            alt.apply_action(other)
            if np.array_equal(alt.observation_tensor(v), seen) \
                    and alt.hidden_truth() != after.hidden_truth():
                assert action_text_for(state, other, v) == told, (
                    f"seat {v} is told {told!r} or {action_text_for(state, other, v)!r}: it "
                    "learns which secret choice was made")
                naive_leaks += state.action_to_string(other) != state.action_to_string(action)
    return naive_leaks


def check_screen_under_resampling(state, game, rng, events=("P9: something",)):
    """Every seat's decision screen is the same in a world resampled from its information
    (other seats' secrets redrawn). Returns how many worlds had a different hidden truth and
    a different full-truth render (those a leaking screen would give away)."""
    differing = 0
    for v in range(state.num_players):
        mine = screen_text(state, v, events, game)
        for _ in range(3):
            world = state.resample_from_infostate(v, rng)
            assert screen_text(world, v, events, game) == mine, (
                f"seat {v}'s screen changes when only what it cannot know changes")
            differing += world.hidden_truth() != state.hidden_truth() \
                and world.render_text() != state.render_text()
    return differing


def run_leak_checks(game, games, stride, max_checks=None, twin_stride=1):
    """Play ``games`` random games, checking the screens at every ``stride``-th position (at
    most ``max_checks`` per game) and the words of every ``twin_stride``-th action; return
    (naive leaks, differing worlds)."""
    naive_leaks = differing = 0
    rng = np.random.default_rng(2026)
    for g in range(games):
        s = state_class(game).from_config(100 + g)
        play = np.random.default_rng(g)
        k = 0
        while not s.is_over:
            a = int(play.choice(s.legal_actions()))
            if k % twin_stride == 0:
                naive_leaks += check_action_twins(s, a)
            if k % stride == 0 and (max_checks is None or k // stride < max_checks):
                differing += check_screen_under_resampling(s, game, rng)
            s.apply_action(a)
            k += 1
    return naive_leaks, differing


@pytest.mark.parametrize("game,games,stride,twin_stride", [
    ("prowl", 2, 3, 1), ("badland_wolves", 1, 5, 1), ("clans", 1, 12, 12)])
def test_no_screen_names_another_seats_secret(game, games, stride, twin_stride):
    naive_leaks, differing = run_leak_checks(game, games, stride, max_checks=25,
                                             twin_stride=twin_stride)
    # the checks have teeth: the full-truth render differs in many resampled worlds, and in
    # Prowl and Badland Wolves the naive words (action_to_string) would have told secrets
    assert differing > 10
    if game != "clans":        # every Clans action is public: there is nothing to hide
        assert naive_leaks > 0


@pytest.mark.slow
@pytest.mark.parametrize("game", REAL_GAMES)
def test_no_screen_names_another_seats_secret_many_games(game):
    # Clandestine's games run to ~1,400 decisions: 2 games, every 25th decision (about 70 s)
    games, stride, twin_stride = {"prowl": (6, 1, 1), "badland_wolves": (6, 4, 2),
                                  "clans": (6, 3, 3), "clandestine": (2, 25, 25)}[game]
    naive_leaks, differing = run_leak_checks(game, games=games, stride=stride,
                                             twin_stride=twin_stride)
    assert differing > 100


def test_the_leak_check_catches_a_screen_that_tells_a_secret(monkeypatch):
    # the same check on a screen that shows the full-truth render must fail
    full_render = ProwlState.render_text
    monkeypatch.setattr(ProwlState, "render_text", lambda self, seat=None: full_render(self))
    s, _ = random_position("prowl", seed=3, steps=12)
    with pytest.raises(AssertionError, match="screen changes"):
        check_screen_under_resampling(s, "prowl", np.random.default_rng(0))


def test_the_leak_check_catches_words_that_tell_a_secret(monkeypatch):
    import envs.core.text as text_mod

    monkeypatch.setattr(text_mod, "PRIVATE_ACTIONS", {})
    monkeypatch.setattr(text_mod, "private_text", lambda state, action, viewer: None)
    s = ProwlState(seed=2, num_players=3)
    a = s.off["setup"] + int(np.flatnonzero(s.hand[s.current_player])[0])
    with pytest.raises(AssertionError, match="learns which secret choice"):
        check_action_twins(s, a)
    monkeypatch.undo()
    assert check_action_twins(s, a) > 0
    assert action_text_for(s, a, 0) != HIDDEN_ACTION_TEXT   # told in the game's own words


def test_clandestine_prime_pick_is_covered_for_the_other_seats():
    """Clandestine: the Serpent Keepers prime a Secret face down (design §1.5 "Actions": a Prime
    shows only its space); every other seat is told the same words whichever Secret it is, the
    Keepers see the card named; the Prime's space pick that follows is public."""
    from envs.clandestine import actions as A
    from tests.test_clandestine_engine import act, give_secrets, new, refresh

    st = new(6, num_players=3, societies=["serpent", "garden", "twilight"], society_powers=True)
    give_secrets(st, 0, ["serpent-1-10", "serpent-1-02"])
    st.energy[0] = 3
    refresh(st)
    panel = [p["id"] for p in st.society(0)["panels"]].index("cult")
    act(st, "TRADE", 3 * panel)  # 1 Energy: Initiate a space
    act(st, "SPACE", st.legal_actions()[0] - A.encode("SPACE", 0))
    st.panel_tokens[0][panel] = 0
    refresh(st)
    act(st, "TRADE", 3 * panel + 1)  # 2 Energy: prime
    picks = [a for a in st.legal_actions() if A.decode(a).block == "SECRET"]
    assert len(picks) == 2 and all(st.is_prime_pick(a) for a in picks)
    for viewer in (1, 2):
        assert {action_text_for(st, a, viewer) for a in picks} == {"primed a Secret (face-down)"}
    assert {action_text_for(st, a, 0) for a in picks} == {st.action_to_string(a) for a in picks}
    assert all("serpent-1-" in st.action_to_string(a) for a in picks)
    st.apply_action(picks[0])
    if st.kind == "effect":  # the space: public
        a = st.legal_actions()[0]
        assert not st.is_prime_pick(a) and action_text_for(st, a, 1) == st.action_to_string(a)
