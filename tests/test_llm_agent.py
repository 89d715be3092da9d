"""The language-model agent adapter (agents/llm.py), driven by scripted callables (no network)."""

import re

import numpy as np
import pytest

from agents.llm import LanguageModelAgent, parse_choice
from envs import GAMES, make_env
from envs.core.text import LEGAL_HEADER, text_observation
from envs.prowl.engine import ProwlState

REAL_GAMES = [g for g in GAMES if g != "toy"]
NAMES = {4: "Play Seer (Spring)", 7: "Play Wanderer (Summer)", 12: "clan Spring",
         31: "Change to Seer (Spring)"}


@pytest.mark.parametrize("reply,expected", [
    ("4", 4), ("  **7**", 7), ("action 12", 12), ("Action: 31", 31), ("I choose 12 because", 12),
    ("id=7", 7), ("12: clan Spring", 12), ("play seer (spring)", 4),
    ("I'd rather Change to Seer (Spring), thanks", 31),     # the longest name found wins
    ("hmm, 31 looks best", 31),                             # the one legal id among the numbers
])
def test_parse_choice_reads_ids_names_and_extra_words(reply, expected):
    assert parse_choice(reply, NAMES) == (expected, "")


@pytest.mark.parametrize("reply,reason", [
    ("", "the reply is empty"),
    ("99", "99 is not the id of a legal action"),
    ("action 5", "5 is not the id of a legal action"),
    ("no idea", "the reply names no action id and no action name"),
    ("between 4 and 7", "the reply holds several legal ids (4, 7)"),
    ("maybe 3 or 5", "none of the numbers [3, 5] is the id of a legal action"),
])
def test_parse_choice_gives_the_reason_of_an_unusable_reply(reply, reason):
    assert parse_choice(reply, NAMES) == (None, reason)


class Scripted:
    """A 'model' that answers from a list and keeps the prompts it was given."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.prompts = []

    def __call__(self, prompt):
        self.prompts.append(prompt)
        return self.replies.pop(0)


def prowl_decision():
    """Prowl, seed 2, 3 players: P2's set-up decision, its observation and text view."""
    s = ProwlState(seed=2, num_players=3)
    seat = s.current_player
    obs = {"observation": s.observation_tensor(seat), "action_mask": s.legal_action_mask()}
    return s, seat, obs, text_observation(s, seat)


def test_unusable_replies_are_asked_again_with_the_reason():
    s, seat, obs, text = prowl_decision()
    legal = s.legal_actions()
    model = Scripted(["I am not sure", "999", f"action {legal[1]}"])
    agent = LanguageModelAgent(model, max_retries=3)
    assert agent.act(obs, f"player_{seat}", text=text) == legal[1]
    assert len(model.prompts) == 3 and not agent.last_fell_back
    assert model.prompts[0] == agent.build_prompt(text)
    assert text in model.prompts[0] and LEGAL_HEADER in model.prompts[0]
    assert "It could not be used: the reply names no action id and no action name" \
        in model.prompts[1]
    assert "It could not be used: 999 is not the id of a legal action" in model.prompts[2]
    assert agent.last_replies == ["I am not sure", "999", f"action {legal[1]}"]


@pytest.mark.parametrize("fallback", ["first", "random"])
def test_after_the_last_retry_the_stated_fallback_is_played(fallback):
    s, seat, obs, text = prowl_decision()
    model = Scripted(["pass"] * 3)
    agent = LanguageModelAgent(model, max_retries=2, fallback=fallback, seed=5)
    a = agent.act(obs, f"player_{seat}", text=text)
    assert len(model.prompts) == 3 and agent.last_fell_back and agent.fallbacks == 1
    legal = s.legal_actions()
    if fallback == "first":
        assert a == legal[0]
    else:
        assert a == int(np.random.default_rng(5).choice(legal))
    agent.reset()
    assert agent.fallbacks == 0


def test_the_text_view_is_built_from_the_state_when_no_text_is_given():
    s, seat, obs, text = prowl_decision()
    name = s.action_to_string(s.legal_actions()[-1])
    model = Scripted([f"I pick {name}."])
    agent = LanguageModelAgent(model)
    assert LanguageModelAgent.needs_state
    assert agent.act(obs, f"player_{seat}", state=s) == s.legal_actions()[-1]
    assert model.prompts[0] == agent.build_prompt(text)


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="callable"):
        LanguageModelAgent("gpt")
    with pytest.raises(ValueError, match="max_retries"):
        LanguageModelAgent(str, max_retries=-1)
    with pytest.raises(ValueError, match="fallback"):
        LanguageModelAgent(str, fallback="best")
    _, seat, obs, _ = prowl_decision()
    with pytest.raises(ValueError, match="text_observation=True"):
        LanguageModelAgent(str).act(obs, f"player_{seat}")


@pytest.mark.parametrize("game", REAL_GAMES)
def test_a_model_plays_through_the_env_text(game):
    # the 'model' answers with the name of the last listed action, then, every third decision,
    # with nonsense first: 60 decisions of every game are legal, with no fallback
    calls = {"n": 0}

    def model(prompt):
        calls["n"] += 1
        if calls["n"] % 3 == 0 and "previous reply" not in prompt:
            return "let me think"
        lines = prompt.split(LEGAL_HEADER, 1)[1].strip().splitlines()
        listed = [m.group(2) for m in map(re.compile(r"(\d+): (.+)").match,
                                          (line.strip() for line in lines)) if m]
        return f"I will take: {listed[-1]}"

    env = make_env(game, text_observation=True)
    env.reset(seed=3)
    agents = {a: LanguageModelAgent(model, fallback="first") for a in env.possible_agents}
    steps = 0
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(agents[name].act(obs, name, text=info["text"]))
        steps += 1
        if steps >= 60:
            break
    assert steps > 10
    assert all(a.fallbacks == 0 for a in agents.values())


def test_a_copy_falls_back_with_a_generator_of_its_own():
    """copy.copy of an agent whose model never gives a usable reply (every move is the random
    fallback): over a 4-player Prowl game against random seats, the copy made at seat 0's 2nd
    decision plays, and then the original, at each of seat 0's decisions; the original plays
    exactly the moves of an agent made alike that was never copied, and the copy the same (a
    shallow copy shared the fallback's generator, so the copy's draws moved the original's).
    The model itself (``ask``) is shared: it is the caller's client."""
    import copy

    from agents.base import RandomAgent

    def play(copy_at):
        s = ProwlState(seed=3, num_players=4)
        agent = LanguageModelAgent(lambda prompt: "pass", max_retries=0, seed=9)
        others = [RandomAgent(seed=q) for q in range(1, 4)]
        twin, mine, twins, decisions = None, [], [], 0
        while not s.is_over:
            p = s.current_player
            obs = {"observation": s.observation_tensor(p), "action_mask": s.legal_action_mask()}
            if p != 0:
                s.apply_action(others[p - 1].act(obs, f"player_{p}"))
                continue
            decisions += 1
            if decisions == copy_at:
                twin = copy.copy(agent)
                assert twin.ask is agent.ask
            if twin is not None:
                twins.append(twin.act(obs, "player_0", state=s))
            mine.append(agent.act(obs, "player_0", state=s))
            s.apply_action(mine[-1])
        return mine, twins

    ref, _ = play(None)
    mine, twins = play(2)
    assert len(ref) > 5
    assert mine == ref
    assert twins == ref[1:]


SOLO_1 = {"num_players": 1, "nemesis": "most_holy", "difficulty": 1, "max_rounds": 3}
SOLO_2 = {"num_players": 2, "nemesis": "silver_guard", "difficulty": 1, "max_rounds": 3}


@pytest.mark.parametrize("game,config", [
    ("prowl", {}), ("badland_wolves", {"num_players": 3}), ("clans", {"num_players": 2}),
    ("clandestine", {"num_players": 2, "max_rounds": 2}), ("clandestine", SOLO_1),
    ("clandestine", SOLO_2)], ids=["prowl", "badland_wolves", "clans", "clandestine",
                                   "clandestine-solo-1", "clandestine-solo-2"])
def test_the_text_from_the_state_is_the_env_feed_at_every_decision(game, config):
    """Two full games through the AEC env with ``text_observation=True``, every seat played by
    a language-model agent given only the live state (a scripted model picking a random listed
    id): at every decision the agent's prompt holds exactly ``info["text"]``, the "since your
    last decision" lines included (the other seats' actions, hidden ones in their hidden
    words, and in solo Clandestine the Nemesis's turns, ``state.rules_words()``); it had the
    bare view only. Between games, an agent not reset refuses the new game, and after
    ``reset()`` its log starts afresh (the second game matches from its first decision)."""
    from envs.core.aec import seat_of

    rng = np.random.default_rng(7)
    prompts = []

    def model(prompt):
        prompts.append(prompt)
        listed = [int(m.group(1)) for m in re.finditer(
            r"^  (\d+): ", prompt.split(LEGAL_HEADER, 1)[1], re.MULTILINE)]
        return str(listed[rng.integers(len(listed))])

    env = make_env(game, text_observation=True, **config)
    agents = {a: LanguageModelAgent(model) for a in env.possible_agents}
    nemesis = f"  - P{env.unwrapped.game.num_players - 1}: "
    for g, seed in enumerate((1, 2)):
        env.reset(seed=seed)
        if g:
            first = env.agent_selection
            obs, *_ = env.last()
            with pytest.raises(ValueError, match=r"is not a later point of the game it has "
                                                 r"been playing .*call reset\(\) between games"):
                agents[first].act(obs, first, state=env.unwrapped.game)
            for agent in agents.values():
                agent.reset()
        decisions = told = rules_told = 0
        for name in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            state, agent = env.unwrapped.game, agents[name]
            action = agent.act(obs, name, state=state)
            assert agent.last_replies and not agent.last_fell_back
            assert prompts[-1] == agent.build_prompt(info["text"])
            assert agent.text_from_state(state, seat_of(name)) == info["text"]
            told += "Since your last decision:" in info["text"]
            rules_told += nemesis in info["text"]
            decisions += 1
            env.step(action)
        assert decisions > 10 and env.unwrapped.game.is_terminal and told > 0
        if "nemesis" in config:   # the Nemesis's turns were told (its seat is no agent's)
            assert rules_told > 0


def test_the_text_of_a_resampled_world_replays_its_logged_chance():
    """A state whose chance is not its seed's (a world drawn by ``resample_from_infostate``,
    with counterfactual chance outcomes and a fresh seed) is replayed with its logged
    outcomes: the seat is told what an env playing that record would tell it. A history that
    cannot be replayed is refused naming the game."""
    from envs.core.text import SeatLogs

    s = ProwlState(seed=4, num_players=3)
    rng = np.random.default_rng(0)
    while len(s.history) < 9 or s.current_player != 1:
        s.apply_action(int(rng.choice(s.legal_actions())))
    world = s.resample_from_infostate(1, np.random.default_rng(3))
    assert world.seed != s.seed and len(world.history) == len(s.history)
    logs = SeatLogs(3)
    steps = ProwlState.replay_steps(world.to_record())
    replayed = next(steps)
    for a in world.history:
        logs.note(replayed, a)
        replayed = next(steps)
        logs.catch_up(replayed)
    expected = logs.text(world, 1)
    assert "Since your last decision:" in expected
    assert LanguageModelAgent(str).text_from_state(world, 1) == expected
    broken = s.clone()
    broken.history[2] = broken.history[0]   # a set-up choice made twice: not legal then
    with pytest.raises(ValueError, match=rf"the prowl game's {len(s.history)} actions cannot "
                                         r"be replayed from its set-up \(seed 4\)"):
        LanguageModelAgent(str).text_from_state(broken, 1)
