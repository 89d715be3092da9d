"""Prowl rules, each checked on a hand-worked position against the values the rulebook
(rules/prowl.txt) and the design rulings (design/prowl.md, docs/prowl.md "Rulings made here")
give: the track, hands, discards, the Dominance token, the winner, returns and masks.

Positions are built with ``tests.test_prowl_helpers.position``; seats are absolute, the track is
listed top first. Default clan cards (4 players): seat 0 Seer (Spring), 1 Raider (Summer),
2 Captain (Autumn), 3 Magistrate (Winter).
"""

import numpy as np
import pytest

from envs.core import IllegalActionError
from envs.prowl import ProwlState
from envs.prowl.engine import K_CLAN, K_OPP, K_REWARD, K_SETUP, K_SIDE, K_TURN, K_YESNO
from tests.test_prowl_helpers import act, cid, clan, opp, play, position, tid, track_names

OTHERS = [["Seer", "Hexer"]] * 3


def _attach(s, seat, name):
    s.attach[seat, tid(s, name)] += 1
    s._prot = None
    s._mask = None


def _opp_mask(s):
    """Absolute seats the current player's opponent decision allows."""
    m = s.legal_action_mask()
    p = s.current_player
    return {(p + 1 + v) % s.n for v in range(4) if m[s.off["opp"] + v]}


def _clan_mask(s):
    m = s.legal_action_mask()
    return {s.clan_names[c] for c in range(4) if m[s.off["clan"] + c]}


# ---------------------------------------------------------------- Summer
@pytest.mark.parametrize("track,order,glacier,expected", [
    # effect first: Winter (top) lowered, then Summer strengthened past it
    (("Winter", "Spring", "Summer", "Autumn"), 0, False, ["Spring", "Summer", "Winter", "Autumn"]),
    # strengthen first: Summer up to second, then Winter (still top) lowered below it
    (("Winter", "Spring", "Summer", "Autumn"), 1, False, ["Summer", "Winter", "Spring", "Autumn"]),
    # Summer on top: the Berserker lowers nothing
    (("Summer", "Spring", "Autumn", "Winter"), 0, False, ["Summer", "Spring", "Autumn", "Winter"]),
    # an opponent's Glacier keeps Winter on top against the effect, not the strengthening
    (("Winter", "Spring", "Summer", "Autumn"), 0, True, ["Winter", "Summer", "Spring", "Autumn"]),
])
def test_berserker_lowers_the_top_clan(track, order, glacier, expected):
    s = position(track=track, hands=[["Berserker", "Seer"]] + OTHERS)
    if glacier:
        _attach(s, 3, "Glacier")
    play(s, "Berserker", order)
    assert track_names(s) == expected
    assert s._dec[1] == K_TURN and s.current_player == 1        # nothing to decide
    assert s.discard[0, tid(s, "Berserker")] == 1 and s.hand[0, tid(s, "Seer")] == 1


def test_last_stand_as_the_last_card_raises_summer_by_two():
    for order in (0, 1):
        s = position(num_players=2, clans=["Seer", "Raider"], hands=[["Last Stand"], ["Hexer"]],
                     track=("Spring", "Autumn", "Winter", "Summer"))
        play(s, "Last Stand", order)
        # Summer: +2 (Final, last card) and +1 (strengthened), either order: on top
        assert track_names(s) == ["Summer", "Spring", "Autumn", "Winter"]
        assert s.hand[0].sum() == 0 and s.current_player == 1


def test_raider_correct_guess_reveals_and_rewards_with_the_token():
    s = position(dominance=2, hands=[["Raider", "Seer"]] + OTHERS)
    play(s, "Raider")
    assert _opp_mask(s) == {1, 2, 3}
    act(s, opp(s, 1), clan(s, "Summer"))             # seat 1's clan card is a Raider: correct
    assert s.face_up.tolist() == [False, True, False, False]
    assert (s.know[:, 1] == tid(s, "Raider")).all()  # face-up: everyone knows it
    assert s.accusations == [(0, 1, cid(s, "Summer"), True, True)]
    assert s._dec[1] == K_REWARD and s.current_player == 0
    act(s, s.off["reward"] + 0)
    assert s.dominance == 0
    assert track_names(s) == ["Summer", "Spring", "Autumn", "Winter"]   # then Summer +1
    assert s.discard[0].sum() == 1 and s.discard[0, tid(s, "Raider")] == 1   # no other discard
    assert s.hand[0, tid(s, "Seer")] == 1 and s.hand[0].sum() == 1
    assert s.current_player == 1 and not s.forced.any()


def test_raider_correct_guess_reward_force_change():
    s = position(dominance=2, hands=[["Raider", "Seer"]] + OTHERS)
    play(s, "Raider")
    act(s, opp(s, 2), clan(s, "Autumn"), s.off["reward"] + 1)
    assert s.forced.tolist() == [False, False, True, False] and s.dominance == 2
    assert s.face_up.tolist() == [False, False, True, False]


@pytest.mark.parametrize("glacier,expected", [
    (False, ["Summer", "Spring", "Autumn", "Winter"]),
    # the reward's raise comes from a card (Raider): an opponent's Glacier blocks Autumn
    # passing Winter (docs ruling 4); Summer's strengthening is not an effect
    (True, ["Summer", "Spring", "Winter", "Autumn"]),
])
def test_raider_reward_raise_when_the_token_is_held(glacier, expected):
    s = position(dominance=0, track=("Spring", "Summer", "Winter", "Autumn"),
                 hands=[["Raider", "Seer"]] + OTHERS)
    if glacier:
        _attach(s, 3, "Glacier")
    play(s, "Raider")
    act(s, opp(s, 1), clan(s, "Summer"), s.off["reward"] + 0)
    assert s._dec[1] == K_CLAN and _clan_mask(s) == {"Spring", "Summer", "Autumn", "Winter"}
    act(s, clan(s, "Autumn"))
    assert track_names(s) == expected and s.dominance == 0


def test_accuse_action_reward_raise_is_not_blocked_by_glacier():
    s = position(dominance=0, track=("Spring", "Summer", "Winter", "Autumn"))
    _attach(s, 3, "Glacier")
    act(s, s.off["accuse"] + tid(s, "Hexer"), opp(s, 1), clan(s, "Summer"),
        s.off["reward"] + 0, clan(s, "Autumn"))
    # the Accuse action is not a card effect: Autumn passes Winter; nothing is strengthened
    assert track_names(s) == ["Spring", "Summer", "Autumn", "Winter"]
    assert s.discard[0, tid(s, "Hexer")] == 1
    assert s.hand[0, tid(s, "Seer")] == 1 and s.hand[0].sum() == 1


# ---------------------------------------------------------------- Autumn
@pytest.mark.parametrize("dominance,expected", [
    (0, ["Spring", "Autumn", "Summer", "Winter"]),   # holder: Autumn +1 (effect) +1 (strengthened)
    (1, ["Spring", "Summer", "Autumn", "Winter"]),   # not the holder: only strengthened
])
def test_drillmaster_raises_autumn_for_the_token_holder(dominance, expected):
    s = position(dominance=dominance, track=("Spring", "Summer", "Winter", "Autumn"),
                 hands=[["Drillmaster", "Seer"]] + OTHERS)
    play(s, "Drillmaster")
    assert track_names(s) == expected and s.dominance == dominance


def test_herald_answered_no_peeks_without_forcing():
    s = position(hands=[["Herald", "Seer"]] + OTHERS)
    play(s, "Herald")
    act(s, opp(s, 1))
    assert s._dec[1] == K_YESNO
    act(s, s.off["yesno"] + 0)
    assert not s.forced.any() and s.know[0, 1] == tid(s, "Raider")
    assert track_names(s) == ["Spring", "Autumn", "Summer", "Winter"]
    assert s.current_player == 1
    m = s.legal_action_mask()                       # seat 1 may Play: not forced
    assert m[s.off["play"] + tid(s, "Seer")] == 1 and m[s.off["play"] + tid(s, "Hexer")] == 1


@pytest.mark.parametrize("glacier,expected", [
    (False, ["Autumn", "Spring", "Winter", "Summer"]),
    # the second step (Autumn past Winter) is blocked; Autumn's strengthening is not
    (True, ["Spring", "Autumn", "Winter", "Summer"]),
])
def test_headstrong_scout_against_glacier_step_by_step(glacier, expected):
    s = position(track=("Spring", "Winter", "Summer", "Autumn"),
                 hands=[["Headstrong Scout", "Seer"]] + OTHERS)
    if glacier:
        _attach(s, 3, "Glacier")
    play(s, "Headstrong Scout", order=0)
    assert track_names(s) == expected


@pytest.mark.parametrize("order,raised,expected", [
    # effect first: raising Autumn past Winter is blocked; then Autumn strengthened past it
    (0, "Autumn", ["Spring", "Autumn", "Winter", "Summer"]),
    # strengthen first, then raising Summer past Winter: blocked
    (1, "Summer", ["Spring", "Autumn", "Winter", "Summer"]),
    # raising Winter itself moves no Winter down
    (0, "Winter", ["Winter", "Autumn", "Spring", "Summer"]),
])
def test_captain_raise_against_glacier(order, raised, expected):
    s = position(dominance=0, track=("Spring", "Winter", "Autumn", "Summer"),
                 hands=[["Captain", "Seer"]] + OTHERS)
    _attach(s, 3, "Glacier")
    play(s, "Captain", order)
    assert s._dec[1] == K_CLAN
    act(s, clan(s, raised))
    assert track_names(s) == expected and s.dominance == 0


# ---------------------------------------------------------------- Winter
@pytest.mark.parametrize("track,pair,expected", [
    # Winter is the higher of the two: the swap would move it down, so it does not happen
    (("Winter", "Spring", "Autumn", "Summer"), ("Winter", "Autumn"),
     ["Winter", "Spring", "Summer", "Autumn"]),
    # Winter not involved
    (("Winter", "Spring", "Autumn", "Summer"), ("Spring", "Autumn"),
     ["Winter", "Autumn", "Summer", "Spring"]),
    # Winter the lower of the two: it moves up, allowed
    (("Spring", "Winter", "Autumn", "Summer"), ("Spring", "Winter"),
     ["Winter", "Spring", "Summer", "Autumn"]),
])
def test_wanderer_against_glacier(track, pair, expected):
    s = position(track=track, hands=[["Wanderer", "Seer"]] + OTHERS)
    _attach(s, 3, "Glacier")
    play(s, "Wanderer")
    act(s, clan(s, pair[0]), clan(s, pair[1]))
    assert track_names(s) == expected


@pytest.mark.parametrize("track,target,expected", [
    (("Winter", "Spring", "Summer", "Autumn"), "Winter", ["Winter", "Spring", "Summer", "Autumn"]),
    (("Winter", "Spring", "Summer", "Autumn"), "Spring", ["Winter", "Summer", "Autumn", "Spring"]),
    # Spring lowered past Winter: Winter moves up, allowed
    (("Spring", "Winter", "Summer", "Autumn"), "Spring", ["Winter", "Summer", "Spring", "Autumn"]),
])
def test_assassin_against_glacier(track, target, expected):
    s = position(track=track, hands=[["Assassin", "Seer"]] + OTHERS)
    _attach(s, 3, "Glacier")
    play(s, "Assassin", order=0)
    assert _clan_mask(s) == {"Spring", "Summer", "Autumn", "Winter"}   # any clan
    act(s, clan(s, target))
    assert track_names(s) == expected


def test_glacier_played_protects_until_its_owner_next_turn_then_leaves():
    s = position(num_players=2, clans=["Seer", "Raider"], dominance=0,
                 hands=[["Glacier", "Seer"], ["Hexer", "Hexer"]],
                 track=("Winter", "Spring", "Summer", "Autumn"))
    play(s, "Glacier")
    assert s.attach[0, tid(s, "Glacier")] == 1 and s.discard[0].sum() == 0
    play(s, "Hexer")
    act(s, clan(s, "Winter"))              # blocked; Spring then strengthened past Winter
    assert track_names(s) == ["Spring", "Winter", "Summer", "Autumn"]
    # start of seat 0's turn: the Glacier goes to the discard pile
    assert s.current_player == 0
    assert s.attach[0].sum() == 0 and s.discard[0, tid(s, "Glacier")] == 1
    play(s, "Seer")
    act(s, opp(s, 1))
    play(s, "Hexer")
    act(s, clan(s, "Winter"))              # no Glacier any more: Winter lowered
    assert track_names(s) == ["Spring", "Summer", "Winter", "Autumn"]
    assert s.is_terminal and s.winner == 0 and s.returns().tolist() == [1.0, -1.0]


def test_assassin_when_winter_is_not_in_the_top_two():
    s = position(track=("Spring", "Summer", "Winter", "Autumn"),
                 hands=[["Assassin", "Seer"]] + OTHERS)
    play(s, "Assassin", order=0)           # Winter third: no effect, then strengthened
    assert track_names(s) == ["Spring", "Winter", "Summer", "Autumn"]
    assert s._dec[1] == K_TURN and s.current_player == 1
    s = position(track=("Spring", "Summer", "Winter", "Autumn"),
                 hands=[["Assassin", "Seer"]] + OTHERS)
    play(s, "Assassin", order=1)           # strengthened first: Winter second, the effect fires
    assert s._dec[1] == K_CLAN and s.current_player == 0
    act(s, clan(s, "Spring"))
    assert track_names(s) == ["Winter", "Summer", "Spring", "Autumn"]


@pytest.mark.parametrize("order,dominance,expected", [
    (0, 1, ["Spring", "Winter", "Summer", "Autumn"]),   # Winter third when the effect resolves
    (1, 0, ["Winter", "Spring", "Summer", "Autumn"]),   # strengthened to second first: fires
])
def test_usurper_when_winter_is_not_in_the_top_two(order, dominance, expected):
    s = position(num_players=2, clans=["Seer", "Raider"], dominance=1,
                 track=("Spring", "Summer", "Winter", "Autumn"), hands=[["Usurper"], ["Seer"]])
    play(s, "Usurper", order)
    assert track_names(s) == expected and s.dominance == dominance


def test_firebrand_skips_protected_and_face_up_opponents():
    s = position(num_players=5, clans=["Captain", "Herald", "Headstrong Scout", "Drillmaster",
                                       "Seer"],
                 hands=[["Firebrand", "Seer"]] + [["Seer", "Hexer"]] * 4)
    _attach(s, 1, "Bodyguard")
    s.face_up[2] = True
    s.know[:, 2] = s.clan_card[2]
    play(s, "Firebrand")
    act(s, clan(s, "Autumn"))
    # seat 0 is not an opponent, seat 1 is protected, seat 2 already face-up: only seat 3 flips
    assert s.face_up.tolist() == [False, False, True, True, False]
    assert s.excl[:, cid(s, "Autumn")].tolist() == [0, 0, 0, 0, 1]
    assert s.know[4, 3] == tid(s, "Drillmaster") and s.know[4, 1] == -1
    assert s.dominance == 0 and s.current_player == 1 and not s.accusations   # no reward
    assert track_names(s) == ["Summer", "Spring", "Autumn", "Winter"]


# ---------------------------------------------------------------- Bodyguard
@pytest.mark.parametrize("card", ["Changeling", "Magistrate", "Herald", "Whisperer", "Raider"])
def test_bodyguard_shields_from_targeting_effects(card):
    s = position(hands=[[card, "Seer"]] + OTHERS)
    _attach(s, 1, "Bodyguard")
    play(s, card)
    assert s._dec[1] == K_OPP and _opp_mask(s) == {2, 3}
    with pytest.raises(IllegalActionError, match="Bodyguard"):
        s.apply_action(opp(s, 1))


@pytest.mark.parametrize("card", ["Changeling", "Magistrate", "Herald", "Whisperer", "Raider",
                                  "Firebrand"])
def test_bodyguard_on_the_only_opponent_leaves_it_untouched(card):
    s = position(num_players=2, clans=["Seer", "Raider"], hands=[[card, "Seer"], ["Seer", "Hexer"]])
    _attach(s, 1, "Bodyguard")
    play(s, card)
    if card == "Firebrand":                # a clan is named; the protected opponent is skipped
        act(s, clan(s, "Summer"))
    # no opponent decision; nothing of seat 1 changes; seat 1's turn (its Bodyguard expires)
    assert s._dec[1] == K_TURN and s.current_player == 1
    assert s.clan_card.tolist() == [tid(s, "Seer"), tid(s, "Raider")]
    assert not s.face_up.any() and not s.forced.any() and not s.excl.any()
    assert s.know[0, 1] == -1 and not s.wvalid.any() and not s.accusations
    assert s.discard[1, tid(s, "Bodyguard")] == 1 and not s.protected(1)


@pytest.mark.parametrize("how", ["Captain", "Usurper", "Accuse", "Raider"])
def test_dominance_token_taken_from_a_protected_holder(how):
    """Design ruling 11: the token moves even from a Bodyguard-protected player."""
    hand = {"Captain": ["Captain", "Seer"], "Usurper": ["Usurper"], "Accuse": ["Hexer", "Seer"],
            "Raider": ["Raider", "Seer"]}[how]
    s = position(dominance=1, track=("Spring", "Winter", "Summer", "Autumn"),
                 hands=[hand] + OTHERS)
    _attach(s, 1, "Bodyguard")
    assert s.protected(1)                 # attached until the start of seat 1's next turn
    if how == "Accuse":
        act(s, s.off["accuse"] + tid(s, "Hexer"), opp(s, 2), clan(s, "Autumn"))
    elif how == "Raider":
        play(s, "Raider")
        act(s, opp(s, 2), clan(s, "Autumn"))
    else:
        play(s, how)
    if how in ("Accuse", "Raider"):
        assert s._dec[1] == K_REWARD and s.legal_action_mask()[s.off["reward"]] == 1
        act(s, s.off["reward"] + 0)
    assert s.dominance == 0 and s.current_player == 1
    expected = {"Captain": ["Spring", "Winter", "Autumn", "Summer"],
                "Usurper": ["Winter", "Spring", "Summer", "Autumn"],
                "Accuse": ["Spring", "Winter", "Summer", "Autumn"],
                "Raider": ["Spring", "Summer", "Winter", "Autumn"]}[how]
    assert track_names(s) == expected


# ---------------------------------------------------------------- Spring
def test_hooded_figure_passes_right_in_four_player_game():
    s = position(hands=[["Hooded Figure", "Seer"]] + OTHERS)
    s.face_up[2] = True
    s.know[:, 2] = s.clan_card[2]
    s.excl[1, cid(s, "Winter")] = 1        # seat 1's card publicly not Winter
    play(s, "Hooded Figure")
    assert s._dec[1] == K_SIDE
    act(s, s.off["side"] + 1)              # right: each card goes to the previous seat
    names = [s.type_names[t] for t in s.clan_card]
    assert names == ["Raider", "Captain", "Magistrate", "Seer"]
    assert s.face_up.tolist() == [False, True, False, False]     # facing travels
    assert s.excl[0, cid(s, "Winter")] == 1 and s.excl[1].sum() == 0   # exclusion travels
    assert [s.know[q, q] for q in range(4)] == list(s.clan_card)       # receivers look
    assert s.know[0, 3] == tid(s, "Seer")        # seat 0 knows where its card went
    assert s.know[3, 2] == tid(s, "Magistrate")
    assert s.know[3, 1] == tid(s, "Captain")     # the face-up card: known to everyone
    assert s.know[1, 3] == -1
    assert track_names(s) == ["Spring", "Summer", "Autumn", "Winter"]


@pytest.mark.parametrize("side", [0, 1])
def test_hooded_figure_in_the_two_player_game_swaps_either_way(side):
    s = position(num_players=2, clans=["Seer", "Raider"],
                 hands=[["Hooded Figure", "Hexer"], ["Seer", "Hexer"]])
    play(s, "Hooded Figure")
    assert s.legal_action_mask()[s.off["side"]:s.off["side"] + 2].tolist() == [1, 1]
    act(s, s.off["side"] + side)
    assert s.clan_card.tolist() == [tid(s, "Raider"), tid(s, "Seer")]
    assert s.know.tolist() == [[tid(s, "Raider"), tid(s, "Seer")],
                               [tid(s, "Raider"), tid(s, "Seer")]]


# ---------------------------------------------------------------- 2-player game (ruling 7)
def test_two_player_reveal_on_the_first_turn():
    s = ProwlState(seed=4, num_players=2)
    holder = s.start_player
    assert s.dominance == holder and s._dec[1] == K_SETUP
    s.apply_action(s.off["setup"] + int(np.flatnonzero(s.hand[holder])[0]))
    # a hand-worked deck top and track before the last set-up choice
    where = [i for i, t in enumerate(s.deck2p) if s.type_clan[t] == cid(s, "Winter")]
    assert where
    i = where[0]
    s.deck2p[i], s.deck2p[-1] = s.deck2p[-1], s.deck2p[i]
    top = s.deck2p[-1]
    s.track = [cid(s, c) for c in ("Spring", "Summer", "Autumn", "Winter")]
    s.pos = [s.track.index(c) for c in range(4)]
    size = len(s.deck2p)
    assert size == 20
    other = 1 - holder
    s.apply_action(s.off["setup"] + int(np.flatnonzero(s.hand[other])[0]))
    # the first turn is the holder's: the top card is revealed, Winter raised, card to the pile
    assert s.current_player == holder and s._dec[1] == K_TURN
    assert track_names(s) == ["Spring", "Summer", "Winter", "Autumn"]
    assert len(s.deck2p) == size - 1 and s.pile[top] == 1 and s.pile.sum() == 1
    assert s.layout.view(s.observation_tensor(other), "deck_left")[0] == pytest.approx(19 / 20)
    # the other player's turn: no reveal
    legal = [a for a in s.legal_actions() if a >= s.off["change"] and a < s.off["accuse"]]
    s.apply_action(legal[0])               # the holder Changes (no effect, no decision)
    assert s.current_player == other and len(s.deck2p) == size - 1
    assert track_names(s) == ["Spring", "Summer", "Winter", "Autumn"]


def test_two_player_reveal_is_not_blocked_by_glacier():
    s = position(num_players=2, clans=["Seer", "Raider"], dominance=0, turn=1,
                 hands=[["Seer", "Hexer"], ["Glacier", "Seer"]],
                 track=("Spring", "Autumn", "Winter", "Summer"))
    s.deck2p = [tid(s, "Seer"), tid(s, "Captain")]     # top: Captain (Autumn)
    play(s, "Glacier")                                 # Winter strengthened past Autumn
    assert s.attach[1, tid(s, "Glacier")] == 1
    # seat 0's turn: it holds the token, the Captain is revealed, Autumn raised past Winter
    assert s.current_player == 0
    assert track_names(s) == ["Spring", "Autumn", "Winter", "Summer"]
    assert s.deck2p == [tid(s, "Seer")] and s.pile[tid(s, "Captain")] == 1


# ---------------------------------------------------------------- turns, hand sizes, Leaders
def test_forced_change_on_a_player_with_no_cards_left_has_no_effect():
    s = position(num_players=2, clans=["Seer", "Raider"], hands=[["Seer"], ["Magistrate"]])
    play(s, "Seer")
    act(s, opp(s, 1))
    play(s, "Magistrate")
    assert _opp_mask(s) == {0}
    act(s, opp(s, 0))
    # docs ruling 12: seat 0 has no next turn; the game ends with its clan card in place
    assert s.is_terminal and s.forced[0] and s.clan_card[0] == tid(s, "Seer")
    assert track_names(s) == ["Spring", "Summer", "Winter", "Autumn"]
    assert s.winner == 0 and s.returns().tolist() == [1.0, -1.0]


@pytest.mark.parametrize("cpp,hand,card,dominance,expected_track,expected_dom", [
    # 3 cards dealt: 2 turns. Drillmaster (Early) on the first fires, on the last does not
    (3, ["Drillmaster", "Seer"], "Drillmaster", 0, ["Spring", "Autumn", "Summer", "Winter"], 0),
    (3, ["Drillmaster"], "Drillmaster", 0, ["Spring", "Summer", "Autumn", "Winter"], 0),
    # 8 cards dealt: 7 turns. Drillmaster on the 6th turn (past "the first 4") still fires
    (8, ["Drillmaster", "Seer"], "Drillmaster", 0, ["Spring", "Autumn", "Summer", "Winter"], 0),
    # Usurper (Final, strengthened first so Winter is second) fires only as the last card
    (8, ["Usurper", "Seer"], "Usurper", 1, ["Spring", "Winter", "Summer", "Autumn"], 1),
    (8, ["Usurper"], "Usurper", 1, ["Winter", "Spring", "Summer", "Autumn"], 0),
    (3, ["Usurper"], "Usurper", 1, ["Winter", "Spring", "Summer", "Autumn"], 0),
])
def test_early_and_final_with_other_hand_sizes(cpp, hand, card, dominance, expected_track,
                                               expected_dom):
    s = position(num_players=2, clans=["Seer", "Raider"], dominance=dominance,
                 cards_per_player=cpp, track=("Spring", "Summer", "Winter", "Autumn"),
                 hands=[hand, ["Seer"] * len(hand)])
    play(s, card, order=1 if card == "Usurper" else 0)
    assert track_names(s) == expected_track and s.dominance == expected_dom


@pytest.mark.parametrize("n,cpp", [(2, 6), (3, 6), (4, 6), (5, 6), (3, 3), (2, 10), (4, 8)])
def test_a_game_lasts_exactly_hand_size_minus_one_rounds(n, cpp):
    """Set-up: one choice per player; then n × (cpp − 1) turns in clockwise order from the
    starting player (rulebook "Ending the Game": 5 turns each with 6 cards)."""
    s = ProwlState(seed=n * 100 + cpp, num_players=n, cards_per_player=cpp)
    rng = np.random.default_rng(cpp)
    setups, turns = [], []
    while not s.is_terminal:
        kind, p = s._dec[1], s._dec[2]
        if kind == K_SETUP:
            setups.append(p)
        elif kind == K_TURN:
            turns.append(p)
        s.apply_action(int(rng.choice(s.legal_actions())))
    start = s.start_player
    assert setups == [(start + k) % n for k in range(n)]
    assert turns == [(start + k) % n for k in range(n * (cpp - 1))]


def test_a_leader_as_the_clan_card_has_no_leader_win():
    # Regent face-down as seat 0's clan card, Winter second: not played, so no Leader win
    s = position(clans=["Regent", "Seer", "Raider", "Captain"],
                 track=("Spring", "Winter", "Summer", "Autumn"))
    s.hand[:] = 0
    s._end_game()
    assert s.winner == 1 and s.returns().tolist() == [-1.0, 1.0, -1.0, -1.0]
    # Warmonger as the clan card with every opponent face-up: Spring's backer wins
    s = position(clans=["Warmonger", "Seer", "Captain", "Magistrate"])
    s.face_up[1:] = True
    s.hand[:] = 0
    s._end_game()
    assert s.winner == 1


def test_a_leader_clan_card_changed_away_goes_to_the_discard_pile():
    s = position(clans=["Regent", "Raider", "Captain", "Magistrate"])
    act(s, s.off["change"] + tid(s, "Seer"))
    assert s.discard[0, tid(s, "Regent")] == 1 and s.attach[0].sum() == 0
    assert s.clan_card[0] == tid(s, "Seer") and not s.face_up[0]
    assert s.hand[0, tid(s, "Hexer")] == 1 and s.hand[0].sum() == 1


def test_a_leader_discarded_to_accuse_is_not_played():
    s = position(dominance=0, track=("Autumn", "Spring", "Summer", "Winter"),
                 hands=[["Warlord", "Seer"]] + OTHERS)
    act(s, s.off["accuse"] + tid(s, "Warlord"), opp(s, 2), clan(s, "Spring"))   # wrong guess
    assert s.discard[0, tid(s, "Warlord")] == 1 and s.attach[0].sum() == 0
    assert track_names(s) == ["Autumn", "Spring", "Summer", "Winter"]    # not strengthened
    assert s.excl[2, cid(s, "Spring")] == 1 and s.current_player == 1
    s.hand[:] = 0
    s._end_game()
    # the Warlord's condition (token, Autumn on top) would hold for seat 0 had it been played;
    # discarded, it is not checked: Autumn's only backer, seat 2, wins
    assert s.winner == 2


# ---------------------------------------------------------------- custom content validated
def _rows(*extra, filler=7):
    from envs.prowl import CardSpec
    return [CardSpec("Filler", filler, frozenset(), "seer"), *extra]


def _bad_clans():
    from envs.prowl import CardSpec
    return [
        (_rows(CardSpec("Boss", 1, frozenset({"Leader"}), "warlord")),
         "'Boss' of clan 'Gloam' is a Leader without the Attachment keyword"),
        (_rows(CardSpec("Odd", 1, frozenset({"Early", "Final"}), "seer")),
         "'Odd' of clan 'Gloam' is both Early and Final"),
        (_rows(CardSpec("Boss", 1, frozenset({"Leader", "Attachment"}), "warlord"),
               CardSpec("Chief", 1, frozenset({"Leader", "Attachment"}), "regent"), filler=6),
         "at most one Leader"),
        (_rows(CardSpec("Filler", 1, frozenset(), "hexer")), "'Filler' is listed twice"),
        (_rows(CardSpec("Spy", 1, "Peek", "seer")), "'Spy' of clan 'Gloam': keywords must be"),
        (_rows(CardSpec("Spy", 1, frozenset({"Sneaky"}), "seer")), r"unknown keywords \['Sneaky'\]"),
        (_rows(CardSpec("Spy", 1.0, frozenset(), "seer")), "'Spy' of clan 'Gloam' needs copies"),
        (_rows(CardSpec("Spy", 0, frozenset(), "seer"), filler=8), "'Spy'.*needs copies >= 1"),
        (_rows(CardSpec("Spy", 1, frozenset(), "")), "'Spy'.*non-empty effect_id"),
        (_rows(CardSpec("", 1, frozenset(), "seer")), "row 1 needs a non-empty card name"),
        (_rows(("Spy", 1, frozenset(), "seer")), "row 1 is not a CardSpec"),
        (_rows(filler=6), "must have 8 cards, its rows total 6"),
        ("Seer", "must be a list of CardSpec rows"),
    ]


@pytest.mark.parametrize("case", range(13))
def test_register_clan_refuses_invalid_content_naming_card_and_problem(case, monkeypatch):
    from envs.prowl import CLANS, register_clan
    monkeypatch.setitem(CLANS, "Gloam", CLANS["Summer"])     # removed again after the test
    before = CLANS["Gloam"]
    rows, message = _bad_clans()[case]
    with pytest.raises(ValueError, match=message):
        register_clan("Gloam", rows)
    assert CLANS["Gloam"] is before                          # nothing registered


def test_clans_put_into_the_table_directly_are_checked_when_a_state_is_built(monkeypatch):
    from envs.core import ConfigError
    from envs.prowl import CLANS, CardSpec
    monkeypatch.setitem(CLANS, "Gloam", _rows(CardSpec("Boss", 1, frozenset({"Leader"}),
                                                       "warlord")))
    with pytest.raises(ConfigError, match="'Boss' of clan 'Gloam' is a Leader without the "
                                          "Attachment keyword"):
        ProwlState(clans=["Spring", "Gloam", "Autumn", "Winter"])


def test_unregistered_effect_or_leader_condition_refused_when_a_state_is_built(monkeypatch):
    from envs.core import ConfigError
    from envs.prowl import CLANS, CardSpec, register_clan
    from envs.prowl.cards import EFFECTS
    monkeypatch.setitem(CLANS, "Gloam", CLANS["Summer"])     # restored after the test
    register_clan("Gloam", _rows(CardSpec("Shade", 1, frozenset(), "test_nowhere")))
    with pytest.raises(ConfigError, match="card 'Shade' of clan 'Gloam' has effect "
                                          "'test_nowhere', not registered"):
        ProwlState(clans=["Spring", "Gloam", "Autumn", "Winter"])
    monkeypatch.setitem(EFFECTS, "test_boss", lambda state, player, card_type: None)
    register_clan("Gloam", _rows(CardSpec("Boss", 1, frozenset({"Leader", "Attachment"}),
                                          "test_boss")))
    with pytest.raises(ConfigError, match="Leader 'Boss' of clan 'Gloam' has no win condition"):
        ProwlState(clans=["Spring", "Gloam", "Autumn", "Winter"])
    s = ProwlState(clans=["Spring", "Gloam", "Autumn", "Winter"], beginner=True)  # no Leaders
    assert "Boss" not in s.type_names and s.T == 16 and s.copies.sum() == 28


def test_a_registered_leader_is_an_attachment_kept_to_the_end():
    from tests.test_prowl_helpers import register_equinox
    register_equinox()
    s = ProwlState(seed=0, clans=["Spring", "Equinox", "Autumn", "Winter"])
    t = tid(s, "Oracle")
    assert s.is_leader[t] and s.is_attach[t] and s.effect_ids[t] == "warlord"
