"""Clandestine's text view and action words (README "Play": your own view of the table with a
legend, actions in the rulebook's words), and what another seat is told of them."""

import io
import re

import numpy as np
import pytest
from rich.console import Console

from envs.clandestine.actions import decode
from envs.clandestine.city import load_content
from envs.clandestine.engine import MAP_ORDER, ClandestineState
from envs.clandestine.words import relic_card_words, relic_words
from envs.core.aec import seat_of
from envs.core.text import action_text_for

_C = load_content()
#: an engine code such as "window_pre: TRADE 15" (the words before the rulebook wording)
ENGINE_CODE = re.compile(r"^[a-z_]+: [A-Z]+ \d+$")
#: any "<decision kind>: " prefix
KIND_PREFIX = re.compile(r"^[a-z_]+: ")

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 3, "societies": ["serpent", "twilight", "garden"]},  # Primes
    {"num_players": 1, "nemesis": "most_holy", "difficulty": 3},
    {"num_players": 1, "nemesis": "silver_guard", "difficulty": 2},
]


def random_decisions(config, seed, steps):
    """``(state before, action)`` of ``steps`` random legal decisions of one game."""
    st = ClandestineState.from_config(seed, **config)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if st.is_over:
            return
        action = int(rng.choice(st.legal_actions()))
        yield st, action
        st.apply_action(action)


@pytest.mark.parametrize("config", CONFIGS)
def test_the_text_view_ends_with_a_legend(config):
    st = ClandestineState.from_config(1, **config)
    for seat in st.agent_seats:
        last = st.render_text(seat).splitlines()[-1].strip()
        assert last.startswith("Legend: ") and "pl = Public Leader" in last
    assert st.render_text().splitlines()[-1].strip().startswith("Legend: ")


def test_the_hand_is_named_by_its_cards():
    st = ClandestineState.from_config(1, num_players=3)
    secret = _C["secrets"][st.societies[0]][st.secret_hand[0][0]]
    mine, theirs = st.render_text(0), st.render_text(1)
    assert f"{secret['name']} [{secret['id']}]" in mine
    assert secret["id"] not in theirs  # another seat's hand only as a count


@pytest.mark.parametrize("config", CONFIGS)
def test_every_choice_is_worded_in_the_rulebooks_words(config):
    """A few hundred random decisions per configuration: no choice is an engine code, none is
    prefixed by the decision kind, and the choices of one decision have different words."""
    blocks = set()
    for n, (st, _action) in enumerate(random_decisions(config, 7, 400)):
        legal = st.legal_actions()
        words = [st.action_to_string(a) for a in legal]
        for a, w in zip(legal, words):
            blocks.add(decode(a).block)
            assert not ENGINE_CODE.match(w) and not KIND_PREFIX.match(w), (n, st.kind, w)
        assert len(set(words)) == len(words), (n, st.kind, words)
    assert {"PASS", "TRADE", "SPACE"} <= blocks


def test_trades_tiles_and_secrets_use_the_content_names():
    st = ClandestineState.from_config(1, num_players=1, nemesis="most_holy", difficulty=3)
    soc = st.societies[0]
    words = {decode(a): st.action_to_string(a) for a in st.legal_actions()}
    panels = _C["societies"][soc]["panels"]
    for (block, i), w in words.items():
        if block == "TRADE":
            panel, t = divmod(i, 3)
            gold = panels[panel]["trades"][t]["in"].get("gold")
            assert w.startswith(f"Trade ({panels[panel]['name']} panel): pay ")
            assert gold is None or f"pay {gold} Gold -> " in w
        elif block == "TILE":
            tile = _C["ascension"]["tiles"][i]
            assert w.startswith(f"Flip tile {tile['name']} [{tile['id']}]")
        elif block == "SECRET":
            card = _C["secrets"][soc][i]
            assert w == f"Play Secret {card['name']} [{card['id']}]"
        elif block == "PASS":
            assert w == "Done (end Alchemy before the Action)"
    assert {b for b, _ in words} >= {"TRADE", "TILE", "SECRET", "PASS"}


def _hidden_names(st, viewer, acted):
    """Ids and names of cards hidden from ``viewer`` in ``st``: the other seats' hands (but the
    card ``acted`` on, which the action itself shows, unless it is primed face-down, and the
    publicly known Relics, ``relic_known``) and every deck."""
    out = set()
    for s in range(st.num_players):
        soc = st.societies[s]
        secrets = _C["secrets"].get(soc, [])
        cards = list(st.secret_deck[s]) if s < len(st.secret_deck) else []
        if s != viewer:
            cards += [i for i in st.secret_hand[s] if ("SECRET", i) != acted]
        for i in cards:
            if 0 <= i < len(secrets):
                out |= {f"[{secrets[i]['id']}]", secrets[i]["name"]}
        if s != viewer:
            for r in st.relic_hand[s]:
                if ("RELIC", r) != acted and r not in st.relic_known[s]:
                    out.add(f"[{_C['relics'][r]['id']}]")
    for r in st.relic_deck:
        out.add(f"[{_C['relics'][r]['id']}]")
    return out


@pytest.mark.parametrize("config", CONFIGS[:4] + [
    {"num_players": 2, "nemesis": "silver_guard", "difficulty": 2}])
def test_another_seat_is_never_told_a_hidden_card(config):
    """What another seat is told (``action_text_for``) names no card of a hand it cannot see
    (blind draws included) nor of a deck; a primed Secret is named to no one else."""
    told = primes = 0
    for st, action in random_decisions(config, 11, 300):
        actor = st.current_player
        blk = decode(action)
        primed = st.is_prime_pick(action)
        acted = None if primed else (blk.block, blk.index)
        for viewer in st.agent_seats:
            if viewer == actor:
                continue
            text = action_text_for(st, action, viewer)
            leaked = [n for n in _hidden_names(st, viewer, acted) if n in text]
            assert not leaked, (st.kind, text, leaked)
            if primed:
                assert text == "primed a Secret (face-down)"
                primes += 1
            told += 1
    assert told and (primes or "serpent" not in config.get("societies", ()))


def test_the_first_line_of_the_view_of_the_first_decision():
    """Hand-worked: seed 1, 3 players (Garden Club, Blue Army, Twilight Masks), seat 0's first
    decision is its window before the Action; it used to read "phase PRE, decision
    window_pre" and list the tiles as "T-START-blue-1 T-START-blue-2"."""
    st = ClandestineState.from_config(1, num_players=3)
    view = st.render_text(1).splitlines()
    assert view[0] == ("Clandestine, 3 players, round 1, turn of seat 0 (The Garden Club), before "
                       "the Action (a Secret, Alchemy); seat 0 decides Alchemy trades, tile flips "
                       "or a Secret before the Action")
    assert view[2].startswith("  seat 1 The Blue Army      L1 gold 4 energy 1 ")
    assert "  seat 1 slots 1 -; 2 -; 3 -; 4 -; 5 -; 6 - tiles Call to Arms [T-START-blue-1]; " \
           "Old Colours [T-START-blue-2]" in view
    # the Relic Map, one line per Route, each Relic with its value, icons and suits
    at = view.index("  Map (Relic deck 95)")
    assert [line.split()[0] for line in view[at + 1:at + 7]] == ["H", "R1.0", "R2.0", "R3.0",
                                                               "R4.0", "E1"]
    assert view[at + 6] == "    E1 -; E2 -; E3 -; E4 -"
    for line in view[at + 1:at + 6]:
        for part in line.strip().split("; "):
            space, _, card = part.partition(" ")
            r = st.relic_map[MAP_ORDER.index(space)]
            assert card == relic_card_words(r)


def test_relic_card_words_hand_worked():
    """A Bright and a Dark Relic as the text view writes them (content data R001, R019)."""
    assert relic_card_words(0) == "Ashwood Staff [R001] (value 1: 1 Rod)"
    assert relic_card_words(18) == ("Bone Scepter of the Tyrant [R019] (Dark, value 3: 2 Rod "
                                    "or 1 Sword)")



def test_relic_words_refuse_an_index_that_is_no_relic():
    """A negative index would name a card from the end of the list (-1: R108): refused, as are
    108, a bool and a float; numpy ints (the engine's) are accepted."""
    assert relic_card_words(np.int64(107)) == ("Veil of the Dead [R108] (Dark, value 5: "
                                               "3 Chalice or 1 Disk)")
    assert relic_words(np.int64(0)) == "Ashwood Staff [R001]"
    for bad in (-1, 108, True, 1.0, "3", None):
        with pytest.raises(ValueError, match="a Relic index is an int in 0..107"):
            relic_card_words(bad)
        with pytest.raises(ValueError, match="a Relic index is an int in 0..107"):
            relic_words(bad)

#: engine codes of the first line: the phases and the decision kinds
_PHASE_CODE = re.compile(r"\b(START|PRE|SELECT_LEADER|ACTION|POST|END|REACT|FINAL|OVER)\b")
_DECISION_CODE = re.compile(r"\b[a-z]+_[a-z_]+\b")


@pytest.mark.parametrize("config", CONFIGS)
def test_the_views_first_line_and_tiles_are_in_the_rulebooks_words(config):
    """Every seat's view of a few hundred random positions: the first line names no phase or
    decision code (it said "phase PRE, decision window_pre"), says the part of the turn and
    what the seat to act decides in words; every tile on the table is listed by name and id,
    a spent one starred."""
    from envs.clandestine.words import DECISION_WORDS, PHASE_WORDS, decision_words

    tiles = _C["ascension"]["tiles"]
    phases, decided = set(), set()
    for n, (st, _action) in enumerate(random_decisions(config, 5, 300)):
        for seat in st.agent_seats:
            view = st.render_text(seat).splitlines()
            first = view[0]
            assert not _PHASE_CODE.search(first) and not _DECISION_CODE.search(first), (n, first)
            assert PHASE_WORDS[st.phase] in first
            assert first.endswith(f"; seat {st.current_player} decides {decision_words(st)}")
            for s in range(st.num_players):
                line = next(x for x in view if x.startswith(f"  seat {s} slots "))
                listed = [f"{tiles[t]['name']} [{tiles[t]['id']}]"
                          + ("*" if t in st.tiles_spent[s] else "") for t in st.tiles[s]]
                assert line.partition(" tiles ")[2].partition(" Conjunction ")[0] == \
                    "; ".join(listed), (n, line)
        phases.add(st.phase)
        decided.add(decision_words(st))
    assert {"PRE", "ACTION"} <= phases and len(decided) >= 5
    assert decided - {""} <= set(DECISION_WORDS.values()) | {
        "which Route refills the Harbor", "where to add a Universal Follower", "where to Invest",
        "which space to Initiate", "where to place Chaos", "where to Extend the Map"}


def test_the_first_line_of_a_finished_game_says_why_it_ended():
    st = ClandestineState.from_config(3, num_players=1, nemesis="most_holy", difficulty=3)
    rng = np.random.default_rng(0)
    while not st.is_over:
        st.apply_action(int(rng.choice(st.legal_actions())))
    first = st.render_text(0).splitlines()[0]
    assert first == ("Clandestine, 1 player against the Nemesis The Most Holy (P1, difficulty 3), "
                     f"round {st.rounds_done + 1}, game over (a Society reached Level V), scores "
                     f"{st.final_scores().tolist()}")
    assert st.end_reason == "level_v"


@pytest.mark.parametrize("config", CONFIGS)
def test_a_seats_view_never_names_a_hidden_card(config):
    """Each seat's text view (``render_text(seat)``, what the terminal play and the text
    observation show) names no card of another seat's hand nor of a deck."""
    views = 0
    for st, _action in random_decisions(config, 13, 250):
        for viewer in st.agent_seats:
            text = st.render_text(viewer)
            leaked = [n for n in _hidden_names(st, viewer, None) if n in text]
            assert not leaked, (viewer, leaked)
            views += 1
    assert views > 100


@pytest.mark.parametrize("opponents,config,expected", [
    ([], {"nemesis": "most_holy", "difficulty": 3},
     ("clandestine, 1 player against the Nemesis The Most Holy (P1, difficulty 3), seed 5: "
      "you are P0; P1 played by the rules")),
    (["random"], {"nemesis": "silver_guard", "difficulty": 1},
     ("clandestine, 2 players against the Nemesis The Silver Guard (P2, difficulty 1), "
      "seed 5: you are P0; P1 random, P2 played by the rules")),
    (["random", "random"], {},
     "clandestine, 3 players, seed 5: you are P0; P1 random, P2 random"),
])
def test_the_play_header_names_the_nemesis(opponents, config, expected):
    from training.play import Quit, play

    console = Console(record=True, width=400, file=io.StringIO())

    def read(prompt):
        raise Quit

    state, _labels, finished = play("clandestine", 0, opponents, seed=5, config=config,
                                    console=console, read=read)
    assert not finished
    lines = console.export_text().splitlines()
    assert lines[0] == expected
    players = len(state.agent_seats)
    view = next(line for line in lines if "Clandestine, " in line)
    assert f"Clandestine, {players} player{'s' if players != 1 else ''}" in view
    if config:
        assert "against the Nemesis" in view


@pytest.mark.parametrize("nemesis, expected", [
    ("most_holy", {"P1C1": "Add a Tithe token", "P1C2": "Gain Gold per Tithe token",
                   "P1C3": "Convert Pawns", "P1C4": "Add a Tithe token, then Convert Pawns"}),
    ("silver_guard", {"P1C1": "Place Agents on the Relics of the Target Suit",
                      "P1C2": "Place an Agent on the next open space",
                      "P1C3": "Place Agents on the Relics of the Target Suit",
                      "P1C4": "Place an Agent on the next open space"})])
def test_a_nemesis_chambers_actions_are_in_the_rulebooks_words(nemesis, expected):
    """The spaces of the Nemesis's Chambers name their Actions in the rulebook's words (the
    view showed the content codes: "P1C4  tithe_convert sl1", "P1C2  deploy uf")."""
    st = ClandestineState.from_config(1, num_players=1, nemesis=nemesis, difficulty=2)
    rng = np.random.default_rng(4)
    seen = set()
    for _ in range(600):
        if st.is_over:
            break
        for line in st.render_text(0).splitlines():
            sid = line.split()[0] if line.startswith("  P1C") else None
            if sid in expected:
                assert line.startswith(f"  {sid}  {expected[sid]} "), line
                seen.add(sid)
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert seen, "no pawn on the Nemesis's Chambers"


@pytest.mark.parametrize("config", [CONFIGS[1], CONFIGS[4]])
def test_a_seats_view_names_the_publicly_known_relics_of_other_hands(config):
    """Relics another seat took face up from the Map (and a Nemesis's whole hand) are in its
    ``relic_known``, public: every other seat's view lists each of them under that seat, by
    name, id, value and suits, with the count of the unseen rest; a seat with none known gets
    no such line, and the view with everything shown lists whole hands instead."""
    shown = 0
    for st, _action in random_decisions(config, 21, 400):
        for viewer in st.agent_seats:
            view = st.render_text(viewer).splitlines()
            for s in range(st.num_players):
                if s == viewer:
                    continue
                at = next(i for i, x in enumerate(view) if x.startswith(f"  seat {s} ")
                          and " L" in x)
                known = st.relic_known[s]
                if not known:
                    assert not view[at + 1].startswith("      known R: ")
                    continue
                unseen = len(st.relic_hand[s]) - len(known)
                expected = ("      known R: " + "; ".join(relic_card_words(r) for r in known)
                            + (f" (+{unseen} unseen)" if unseen else ""))
                assert view[at + 1] == expected
                shown += 1
        assert "known R:" not in st.render_text()
    assert shown > 20


# ------------------------------------------------------------------------------------------------
# the Nemesis's turn in the text feeds (rulebook "Solo Play"; design §10.2): it runs inside the
# engine, so its public events reach each seat's "since your last decision" lines through
# ``rules_words`` (the words of the rules-played turns the last action caused) and SeatLogs
def _before_first_nemesis_turn(seed, **config):
    """Random legal decisions (generator seeded ``seed``) up to the one after which the
    Nemesis plays its first turn; returns ``(state before it, that action)``."""
    st = ClandestineState.from_config(seed, **config)
    rng = np.random.default_rng(seed)
    while True:
        a = int(rng.choice(st.legal_actions()))
        after = st.clone()
        after.apply_action(a)
        if after.nem.top >= 0 or after.nem.pile != st.nem.pile:  # its turn began or ended
            return st, a
        st.apply_action(a)


def test_the_nemesis_turn_is_told_to_the_seat_in_its_words():
    """Hand-worked: seed 10, one seat (the Twilight Masks) against the Most Holy at difficulty
    3. Seat 0 ends its first turn ("Done" after its Action); the Intent deck is made to hold the
    one card Quiet Vespers [N09] (Moon: no Ascension, Target Suit Sword, Routes R3, R4), so the
    flip is known. The method row is the face-up Crown of Day [N08]: from seat 0's S3 (P0S3)
    counterclockwise, a Public Leader on a Fundraise space, the strongest: only P0S1 (pl pf,
    Strength 3) qualifies (the other Public Leader, on P1S3, is on a Discover space), so it
    Fundraises 3 Gold; Alchemy 'unique' is its C1 Action at Strength 0, one Tithe token: the
    Fundraise spaces off its own path hold K0a 1, P0S1 1, K1b 1, P0S3 0, so P0S3. The deck is
    then empty: the pile under Quiet Vespers (Crown of Day) is the new deck (step 11)."""
    from envs.clandestine.nemesis import INTENT_IDS
    from envs.core.text import SeatLogs

    st, a = _before_first_nemesis_turn(10, num_players=1, nemesis="most_holy", difficulty=3)
    assert st.action_to_string(a) == "Done (end Alchemy after the Action)"
    assert [INTENT_IDS[c] for c in st.nem.pile] == ["N08"]
    st.nem.deck = [INTENT_IDS.index("N09")]
    logs = SeatLogs(st.num_players)
    logs.note(st, a)
    st.apply_action(a)
    assert st.gold[1] == 3 and st.nem.tithes[st.city.space_ids.index("P0S3")] == 1
    expected = [
        ("P1: flipped the Intent card Quiet Vespers [N09] (Moon): no Ascension; Target Suit "
         "Sword; Target Routes R3, R4"),
        "P1: Action with the Public Leader on P0S1 (Fundraise), Strength 3: gained 3 Gold",
        "P1: Alchemy, its C1 Action at Strength 0: a Tithe token on P0S3 (Fundraise)",
        ("P1: Intent deck empty: the 1 card under Quiet Vespers [N09] (Moon) shuffled into a "
         "new deck")]
    assert logs.pending(st, 0) == expected
    text = logs.text(st, 0).splitlines()
    at = text.index("Since your last decision:")
    assert text[at + 1:at + 5] == [f"  - {e}" for e in expected]
    assert st.rules_words() == [(1, e[len("P1: "):]) for e in expected]
    # the seat's next decision clears its log; the next action causes no rules-played turn
    b = st.legal_actions()[0]
    logs.note(st, b)
    st.apply_action(b)
    assert logs.pending(st, 0) == [] and st.rules_words() == []


def test_the_nemesis_turn_comes_after_the_action_that_ends_the_turn_before_it():
    """Two seats against the Most Holy through the AEC env with text observations: the last
    decision before the Nemesis's turn (the end of seat 1's turn, or seat 0's Any Time Alchemy
    after it) is listed for the other seat, then the Nemesis's turn (P2), which the seat that
    just decided is told too."""
    import envs.clandestine_v0 as C

    env = C.raw_env(num_players=2, nemesis="most_holy", difficulty=3, text_observation=True)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while True:
        agent = env.agent_selection
        assert not (env.terminations[agent] or env.truncations[agent])
        a = int(rng.choice(np.flatnonzero(env.infos[agent]["action_mask"])))
        words = env.game.action_to_string(a)
        env.step(a)
        nem = env.game.rules_words()
        if nem:
            break
    assert nem[0][0] == 2 and nem[0][1].startswith("flipped the Intent card ")
    actor = seat_of(agent)
    other = 1 - actor
    lines = [f"  - P2: {w}" for _, w in nem]

    def told(viewer):
        text = env.infos[f"player_{viewer}"]["text"].splitlines()
        at = text.index("Since your last decision:") + 1
        end = next(i for i in range(at, len(text)) if not text[i].startswith("  - "))
        return text[at:end]

    assert told(actor) == lines  # its own decision cleared its log
    assert told(other)[-len(lines) - 1:] == [f"  - P{actor}: {words}"] + lines


def _unseen_intent_names(st):
    from envs.clandestine.nemesis import INTENTS

    return {n for c, card in enumerate(INTENTS) if not st.nem.seen[c]
            for n in (card["name"], f"[{card['id']}]")}


@pytest.mark.parametrize("config", [
    {"num_players": 1, "nemesis": "most_holy", "difficulty": 3},
    {"num_players": 2, "nemesis": "most_holy", "difficulty": 6},
    {"num_players": 1, "nemesis": "silver_guard", "difficulty": 2},
    {"num_players": 2, "nemesis": "silver_guard", "difficulty": 5}])
def test_the_nemesis_turns_name_no_hidden_card(config):
    """Random games: every Nemesis turn is told (one flip line per Intent card flipped after
    set-up), to every human seat, and its words name no card a human seat cannot see: no other
    seat's hidden hand, no deck (the Relic deck, Secret decks), no Intent card never face up."""
    st = ClandestineState.from_config(5, **config)
    rng = np.random.default_rng(5)
    flips = told = 0
    while not st.is_over and len(st.history) < 1500:
        st.apply_action(int(rng.choice(st.legal_actions())))
        words = st.rules_words()
        assert all(seat == st.nem.seat for seat, _ in words)
        flips += sum(w.startswith("flipped the Intent card ") for _, w in words)
        hidden_intents = _unseen_intent_names(st)
        for viewer in st.agent_seats:
            hidden = _hidden_names(st, viewer, None) | hidden_intents
            for _, w in words:
                leaked = [n for n in hidden if n in w]
                assert not leaked, (w, leaked)
                told += 1
    setup_flips = 1
    assert flips == sum(e[0] == "intent_flip" for e in st.chance_log) - setup_flips > 5
    assert told > 3 * flips


def test_a_seats_view_shows_the_nemesis_board():
    """The Nemesis's public board is in every seat's text view (design §1.5: its state is
    public; the observation holds it): the face-up Intent card and its method row (which
    picks its next Leader), the face-down count, its Level slots, the Most Holy's Tithes by
    space and its Choir. Hand-worked on the position of
    test_the_nemesis_turn_is_told_to_the_seat_in_its_words after the Nemesis's turn: Quiet
    Vespers [N09] face up (method: from the S1 of the seat after it, P0S1, clockwise, a Society
    Leader on a Chamber, the first found; no Alchemy), Crown of Day the one card face down;
    Tithes K0a, P0S1, P0S3, K1b one each; the upper Choir holds 2 Universal Followers (the
    leftmost empty slot, the third, costs 7 Gold), the Lower Choir none and 4 Society Leaders."""
    from envs.clandestine.nemesis import INTENT_IDS

    st, a = _before_first_nemesis_turn(10, num_players=1, nemesis="most_holy", difficulty=3)
    st.nem.deck = [INTENT_IDS.index("N09")]
    st.apply_action(a)
    view = st.render_text(0).splitlines()
    at = view.index("  Nemesis The Most Holy (seat 1, difficulty 3):")
    assert view[at + 1:at + 5] == [
        ("    face-up Intent Quiet Vespers [N09] (Moon): next Leader from P0S1 clockwise, a "
         "Society Leader on a Chamber, the first found; Alchemy: none"),
        "    Intent deck 1 face down; Level slots II -; III -; IV -; V -",
        "    Tithes K0a 1; P0S1 1; P0S3 1; K1b 1 (4 of 12)",
        ("    upper Choir 2 Universal Followers (next Conversion 7 Gold); Lower Choir 0 "
         "Universal Followers, 4 Society Leaders")]
    assert "face-up Intent" not in ClandestineState.from_config(1, num_players=3).render_text(0)
