"""Terminal play (training/play.py) driven through a pseudo-terminal as a person would: typed
choices, the screen read back, the saved record replayed."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from envs import env_module

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent
PROMPT = r"Your choice \(1-(\d+), q quits\): "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn(*args):
    env = dict(os.environ, COLUMNS="110", LINES="50", TERM="xterm")
    return pexpect.spawn(sys.executable, ["-m", "training.play", *args], cwd=str(ROOT), env=env,
                         encoding="utf-8", timeout=120, dimensions=(50, 110))


def screen(child):
    """What the terminal showed since the last match, without colour codes."""
    return ANSI.sub("", child.before or "")


LINEUPS = {"prowl": ["heuristic", "random", "random"],
           "badland_wolves": ["heuristic", "random"],
           "clans": ["heuristic", "random"]}


@pytest.mark.parametrize("game", ["prowl", "badland_wolves", "clans"])
def test_a_person_plays_a_whole_game_in_the_terminal(game, tmp_path):
    record_path = tmp_path / "game.json"
    child = spawn("--game", game, "--seat", "1", "--opponents", *LINEUPS[game], "--seed", "3",
                  "--record", str(record_path))
    person = np.random.default_rng(0)
    first = True
    decisions = 0
    while True:
        i = child.expect([PROMPT, "Game record saved in"])
        if i == 1:
            break
        shown = screen(child)
        count = int(child.match.group(1))
        decisions += 1
        assert "your view (" in shown and "your choices" in shown
        assert re.search(rf"(^|\s){count}\.\s+\S", shown, re.M), "the choices are numbered"
        if first:                     # bad input is asked again, with the reason
            child.sendline("xyzzy")
            child.expect(PROMPT)
            assert "'xyzzy' is not a number and is part of no choice" in screen(child)
            name = re.search(r"\b1\.\s+(\S+(?: \S+)*)", shown).group(1)
            child.sendline(name.upper())      # words of a choice list the matching choices
            child.expect(PROMPT)
            listed = screen(child)
            assert re.search(rf"^\s*1\. {re.escape(name)}\s*$", listed, re.M)
            assert f"contain {name.upper()!r} (listed above)" in listed
            child.sendline(str(count + 1))
            child.expect(PROMPT)
            assert f"{count + 1} is not one of the choices" in screen(child)
            first = False
        child.sendline(str(int(person.integers(1, count + 1))))
    final = screen(child)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert decisions > 3
    record = json.loads(record_path.read_text())
    assert record["agents"] == [LINEUPS[game][0], "you", *LINEUPS[game][1:]]
    state = env_module(game).raw_env.state_class.from_record(record)
    assert state.is_over and state.returns().tolist() == record["returns"]
    # the final screen: the reveal, the full position and every seat's return
    assert "reveal: every secret" in final and "final position (full truth, scores)" in final
    for key in state.hidden_truth():
        assert f"{key}: " in final
    rows = re.findall(r"│\s*(\S+(?: \d)?)\s*│\s*(\S+)\s*│\s*([+-]?[\d.]+)\s*│", final)
    assert [(who, float(r)) for _, who, r in rows] == \
        [(label, r) for label, r in zip(record["agents"], record["returns"])]


@pytest.mark.parametrize("how", ["q", "eof"])
def test_quitting_is_clean_and_keeps_the_game_so_far(how, tmp_path):
    record_path = tmp_path / "quit.json"
    child = spawn("--game", "prowl", "--opponents", "random", "random", "--seed", "1",
                  "--record", str(record_path))
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    if how == "q":
        child.sendline("q")
    else:
        child.sendeof()
    child.expect("You quit after")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in screen(child)
    record = json.loads(record_path.read_text())
    assert "returns" not in record and len(record["actions"]) >= 1
    state = env_module("prowl").raw_env.state_class.from_record(record)
    assert not state.is_over


@pytest.mark.parametrize("args,message", [
    (["--opponents", "genius"], "unknown agent spec 'genius'"),
    (["--opponents", "random", "--seat", "2"], "--seat must be in 0..1 for 2 players"),
    (["--opponents", "random", "--config", "colour=red"], "unknown prowl keyword(s) ['colour']"),
    (["--opponents", "random", "--config", "num_players=4"],
     "--config num_players=4 but 1 opponent(s) and you make 2 players"),
    (["--opponents", "random", "--config", "beginner"], "--config items are KEY=VALUE"),
    ([], "the player count is you plus one --opponents spec per other seat (0 given)"),
])
def test_bad_commands_get_one_line_errors(args, message):
    out = subprocess.run([sys.executable, "-m", "training.play", "--game", "prowl", *args],
                         cwd=ROOT, capture_output=True, text=True, input="", timeout=120)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("python -m training.play: error:") and message in last


# ------------------------------------------------------------------------------ screens, in-process
def play_recorded(game, seat, opponents, seed):
    """Play with a person typing random valid numbers; return (state, decision screens, final)."""
    import io

    from rich.console import Console

    from training.play import play

    console = Console(record=True, width=120, file=io.StringIO())
    person = np.random.default_rng(seed)

    def read(prompt):
        count = int(re.search(r"1-(\d+)", prompt).group(1))
        return str(int(person.integers(1, count + 1)))

    state, labels, finished = play(game, seat, opponents, seed=seed, console=console, read=read)
    assert finished and labels[seat] == "you"
    text = console.export_text()
    body, final = text.split(f"{game} · game over", 1)
    screens = re.split(rf"{game} · you are .* · your decision \d+", body)[1:]
    return state, screens, final


@pytest.mark.parametrize("seed", [0, 1])
def test_clans_screens_never_show_another_seats_colour(seed):
    state, screens, final = play_recorded("clans", 0, ["random", "random"], seed)
    colours = state.hidden_truth()["colours"]
    assert len(screens) > 5
    for shown in screens:
        assert f"seat0[{colours[0]}]" in shown
        for q in (1, 2):
            assert f"seat{q}[?]" in shown and f"seat{q}[{colours[q]}]" not in shown
    for q in (1, 2):                                  # the reveal at the end shows them
        assert f"seat{q}[{colours[q]}]" in final


@pytest.mark.parametrize("game,lineup", [("prowl", ["random"] * 3),
                                         ("badland_wolves", ["random"] * 2)])
def test_screens_show_another_seats_hand_only_as_a_count(game, lineup):
    state, screens, final = play_recorded(game, 1, lineup, 4)
    who = "P{}: clan " if game == "prowl" else "wolf {}: tokens "   # the seat's line
    hand_field = re.compile(r"hand:? ([^|]*?)\s*(\||│|$)")
    assert len(screens) > 3
    own_cards_shown = 0
    for shown in screens:
        for q in range(state.num_players):
            line = next(line for line in shown.splitlines()
                        if who.format(q) in line and "hand" in line)
            hand = hand_field.search(line).group(1)
            if q != 1:   # a count, and (Badland Wolves) the cards seat 1 knows it holds
                assert re.fullmatch(r"\d+ cards( \(you know of [^)]*\))?", hand), (q, line)
            else:
                assert "cards" not in hand, line
                own_cards_shown += bool(re.search(r"x\d", hand))
    assert own_cards_shown > 3
    assert "hands: [" in final                        # the reveal at the end shows them


@pytest.mark.parametrize("opponents", [[], ["random"]])
def test_a_nemesis_seat_gets_its_row_in_the_returns_and_the_record(opponents, tmp_path):
    # Clandestine against the Most Holy (rulebook "Solo Play"): the Nemesis sits after the
    # human seats; the end shows its return too and the record names every seat's player
    import io

    from rich.console import Console

    from training.play import play, save_record

    console = Console(record=True, width=120, file=io.StringIO())
    person = np.random.default_rng(0)

    def read(prompt):
        return str(int(person.integers(1, int(re.search(r"1-(\d+)", prompt).group(1)) + 1)))

    config = {"nemesis": "most_holy", "difficulty": 3, "max_rounds": 2}
    state, labels, finished = play("clandestine", 0, opponents, seed=4, config=config,
                                   console=console, read=read)
    assert finished and state.num_players == len(opponents) + 2
    assert labels == ["you"] + opponents + ["played by the rules"]
    shown = console.export_text()
    final = shown.split("clandestine · game over", 1)[1]
    assert "played by the rules" in final
    # every Nemesis turn is told once, on the screen after it (the decision or the final one)
    nemesis = f"P{state.num_players - 1}: flipped the Intent card "
    turns = sum(e[0] == "intent_flip" for e in state.chance_log) - 1  # one flip at set-up
    assert turns >= 2 and shown.count(nemesis) == turns
    record = json.loads(save_record(state, labels, tmp_path / "r.json").read_text())
    assert len(record["agents"]) == len(record["returns"]) == state.num_players
    with pytest.raises(ValueError, match=r"--seat must be in 0\.\.0 for 1 player, got 1"):
        play("clandestine", 1, [], config=config, console=console, read=read)


def _reveal_panel(state) -> str:
    """The "reveal: every secret" panel of the final screen, as plain text."""
    import io

    from rich.console import Console

    from training.play import final_screen

    console = Console(record=True, width=2000, file=io.StringIO())
    labels = ["you"] + ["random"] * (state.num_players - 1)
    console.print(final_screen(state, 0, [], labels, state.game_name or "clandestine"))
    text = console.export_text()
    return text.split("reveal: every secret", 1)[1].split("final position", 1)[0]


@pytest.mark.parametrize("nemesis", ["most_holy", "silver_guard"])
def test_clandestine_reveal_names_the_cards_in_rulebook_words(nemesis):
    # the reveal printed the engine's truth as JSON (relic_hands: [[64, 102], ...],
    # intent_deck: [...]); it names every card as the text view does
    from envs.clandestine.engine import ClandestineState
    from envs.clandestine.nemesis import INTENTS
    from envs.clandestine.words import intent_words, relic_words, secret_words

    st = ClandestineState(seed=7, num_players=1, nemesis=nemesis, difficulty=4)
    rng = np.random.default_rng(7)
    while not st.is_over:
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
    panel = _reveal_panel(st)
    for word in ("relic_hands", "secret_hands", "relic_deck", "secret_decks", "intent_deck",
                 "primed:"):
        assert word not in panel
    assert not re.search(r"\[\s*\d+\s*(,\s*\d+\s*)*\]", panel), "no raw list of ids"
    assert st.nem.deck and st.relic_hand[st.nem.seat]
    for s in (0, st.nem.seat):
        hand = st.relic_hand[s]
        shown = "; ".join(relic_words(r) for r in hand) if hand else "none"
        assert f"seat {s} " in panel and shown in panel
    assert "; ".join(secret_words(st.societies[0], i) for i in st.secret_deck[0]) in panel
    assert "; ".join(intent_words(c) for c in st.nem.deck) in panel
    card = INTENTS[st.nem.deck[0]]
    assert f"{card['name']} [{card['id']}] ({card['type'].capitalize()})" in panel


def test_clandestine_reveal_names_primed_secrets_by_space():
    from envs.clandestine.engine import ClandestineState
    from envs.clandestine.words import secret_words

    st = next(s for s in (ClandestineState(seed=k, num_players=3) for k in range(40))
              if "serpent" in s.societies)
    keepers = st.societies.index("serpent")
    space = st.city.space("K0a")
    st.primed[space] = [0, 5]
    panel = _reveal_panel(st)
    want = f"K0a: {secret_words('serpent', 0)}; {secret_words('serpent', 5)}"
    assert want in panel and "Primed Secrets: none" not in panel
    assert f"seat {keepers} " in panel


def test_other_games_keep_their_readable_reveal():
    # Prowl, Badland Wolves and Clans already name their secrets (clan cards, Scrap cards,
    # colours): their reveal is hidden_truth line by line, the base class's default
    from envs import make_raw_env

    for game in ("prowl", "badland_wolves", "clans"):
        env = make_raw_env(game)
        env.reset(seed=2)
        st = env.game
        truth = st.hidden_truth()
        assert st.reveal_text() == "\n".join(f"{k}: {json.dumps(v)}" for k, v in truth.items())
        assert any(isinstance(v, (list, dict)) and v for v in truth.values())
        assert not re.search(r"\[\s*\d+\s*(,\s*\d+\s*)*\]", st.reveal_text())
