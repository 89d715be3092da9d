"""Badland Wolves rules on hand-worked positions, part 2: one value test per rule path.

Every test builds a position by hand (``position`` from ``test_badland_wolves_rules``), plays the
decisions the rule asks for and asserts the exact values the rulebook (``rules/badland_wolves.txt``)
and the rulings (``design/badland_wolves.md``; the engine's own rulings in
``docs/badland_wolves.md``) give: hands, token holdings, who is asked what (``current_player`` and
the legal actions), win state, returns and the ``known`` observation entries.

None of these tests depends on whether the engine asks a defender that holds no legal defence (a
decision whose only legal action is DECLINE): positions give the defender a defence, or
:func:`pass_if_only_decline` answers such a decision when it is asked.
"""

import numpy as np
import pytest

from envs.badland_wolves import BadlandWolvesState
from envs.badland_wolves import engine as E
from envs.badland_wolves.cards import (
    ANTLER, BONE, CROW, CROWS_ALLY, FOX, FRENZY, JACKALOPE, RAM, RATTLESNAKE, RAVENOUS,
    SCRAP_COUNTS, SKULL, TC, THORN, WEASEL,
)
from tests.test_badland_wolves_rules import do, position


def legal(s):
    """The set of legal action ids of the current decision."""
    return set(np.flatnonzero(s.legal_action_mask()).tolist())


def hand(**counts):
    """A 9-entry Scrap count list, e.g. ``hand(TC=1, BONE=2)``."""
    names = {"TC": TC, "FRENZY": FRENZY, "RAVENOUS": RAVENOUS, "CROWS_ALLY": CROWS_ALLY,
             "THORN": THORN, "ANTLER": ANTLER, "BONE": BONE, "SKULL": SKULL}
    out = [0] * 9
    for k, v in counts.items():
        out[names[k]] = v
    return out


def known_obs(s, seat):
    """``seat``'s observation entry ``known`` decoded to card counts, int (n, 9)."""
    v = s.layout.view(s.observation_tensor(seat), "known") * np.array(SCRAP_COUNTS)
    return np.rint(v).astype(int)


def pass_if_only_decline(s, seat):
    """Answer DECLINE if ``seat`` is asked a defence it cannot make (mask = DECLINE only).

    Whether such a decision is asked at all is an engine choice; either way the defence fails.
    """
    if s.phase == E.DEFEND and s.current_player == seat and legal(s) == {s.ids.DECLINE}:
        do(s, s.ids.DECLINE)


def hunt_alone(s, colour):
    """Lead a Hunt risking ``colour``; every other wolf asked stays out."""
    I = s.ids
    do(s, I.HUNT)
    do(s, I.COLOUR + colour)
    while s.phase == E.JOIN:
        do(s, I.DECLINE)


# ------------------------------------------------------------------------------------------------
# Crow's Ally (rulebook "Crow's Ally"; ruling 7)

def test_crows_ally_look_then_attack_the_wolf_looked_at():
    s = position(hands={0: {CROWS_ALLY: 1, TC: 1, FRENZY: 1}, 1: {TC: 1, BONE: 1}})
    I = s.ids
    do(s, I.CROWS_ALLY + 1)
    # the look: only wolf 0 learns wolf 1's hand; who was looked at is public
    assert s.phase == E.CA_FOLLOW and s.current_player == 0 and s.lead == 0
    assert legal(s) == {I.DECLINE, I.ATTACK_TC + 1, I.ATTACK_FR + 1}   # only the wolf looked at
    assert known_obs(s, 0)[1].tolist() == hand(TC=1, BONE=1)
    assert known_obs(s, 2).sum() == 0 and known_obs(s, 3).sum() == 0
    for seat in range(4):
        assert s.layout.view(s.observation_tensor(seat), "look_target").tolist() == [0, 1, 0, 0]
    assert s.scrap_discard[CROWS_ALLY] == 1 and s.hands[0].tolist() == hand(TC=1, FRENZY=1)
    do(s, I.ATTACK_TC + 1)
    assert s.phase == E.DEFEND and s.current_player == 1 and (s.att, s.dfd) == (0, 1)
    assert legal(s) == {I.DECLINE, I.DEFEND + 0}
    do(s, I.DEFEND + 0)
    # the defence held; wolf 0's bound on wolf 1 drops by the Tooth & Claw played face up
    assert s.lead == 1 and s.phase == E.TURN and s.tokens.tolist() == (np.eye(4) * 5).tolist()
    assert s.hands[0].tolist() == hand(FRENZY=1) and s.hands[1].tolist() == hand(BONE=1)
    assert known_obs(s, 0)[1].tolist() == hand(BONE=1)
    assert s.scrap_discard.tolist() == [2, 0, 0, 1, 0, 0, 0, 0, 0]


def test_crows_ally_look_then_end_the_turn():
    s = position(hands={0: {CROWS_ALLY: 1, TC: 1}, 1: {THORN: 1, SKULL: 2}})
    I = s.ids
    do(s, I.CROWS_ALLY + 1)
    assert s.phase == E.CA_FOLLOW and legal(s) == {I.DECLINE, I.ATTACK_TC + 1}
    do(s, I.DECLINE)        # no penalty: the turn simply ends, the Crow's Ally is spent
    assert s.lead == 1 and s.phase == E.TURN and s.current_player == 1
    assert s.hands[0].tolist() == hand(TC=1) and s.hands[1].tolist() == hand(THORN=1, SKULL=2)
    assert s.tokens.tolist() == (np.eye(4) * 5).tolist()
    assert s.scrap_discard.tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0]
    assert s.played_prev[0].tolist() == hand(CROWS_ALLY=1)
    # the knowledge outlives the turn
    assert known_obs(s, 0)[1].tolist() == hand(THORN=1, SKULL=2)
    assert sum(known_obs(s, p).sum() for p in (1, 2, 3)) == 0


# ------------------------------------------------------------------------------------------------
# Guardian Wolf (rulebook "Benefits of Holding a Wolf's Allegiance"; ruling 8; engine rulings 2-4)

# wolf 2 holds wolf 1's Allegiance (3 colour-1 tokens): 1 may call 2
_GUARD_TOKENS = [[5, 0, 0, 0], [0, 2, 1, 0], [0, 3, 4, 0], [0, 0, 0, 5]]


def test_defender_declines_to_call_a_guardian_and_defends_alone():
    s = position(hands={0: {TC: 1, BONE: 1}, 1: {TC: 1}, 2: {TC: 1, SKULL: 1}},
                 tokens=_GUARD_TOKENS)
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    assert s.phase == E.GUARD_CALL and s.current_player == 1
    assert legal(s) == {I.DECLINE, I.TARGET + 2}
    do(s, I.DECLINE)
    assert s.phase == E.DEFEND and s.current_player == 1
    assert (s.att, s.dfd, s.guard, s.guard_called) == (0, 1, -1, -1)
    assert legal(s) == {I.DECLINE, I.DEFEND + 0}
    do(s, I.DEFEND + 0)
    # a defence without a Guardian: no Scrap changes hands, nothing is taken
    assert s.hands[0].tolist() == hand(BONE=1) and s.hands[1].sum() == 0
    assert s.hands[2].tolist() == hand(TC=1, SKULL=1)
    assert s.tokens.tolist() == _GUARD_TOKENS and s.lead == 1


def test_defender_declines_to_call_a_guardian_and_loses_alone():
    s = position(hands={0: {TC: 1}, 1: {TC: 1}, 2: {TC: 1}}, tokens=_GUARD_TOKENS)
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    do(s, I.DECLINE)                       # no Guardian call
    do(s, I.DECLINE)                       # no defence
    assert s.phase == E.TAKE and s.current_player == 0
    assert legal(s) == {I.COLOUR + 1, I.COLOUR + 2}
    do(s, I.COLOUR + 2)
    # only the defender loses a token; the wolf it could have called is untouched
    assert s.tokens.tolist() == [[5, 0, 1, 0], [0, 2, 0, 0], [0, 3, 4, 0], [0, 0, 0, 5]]
    assert s.lead == 1


def test_guardian_defends_with_ravenous_steals_then_takes_from_both():
    s = position(hands={0: {TC: 1, BONE: 1, SKULL: 1}, 1: {ANTLER: 1}, 2: {RAVENOUS: 1}},
                 tokens=_GUARD_TOKENS)
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    do(s, I.TARGET + 2)
    assert s.phase == E.GUARD_ACCEPT and s.current_player == 2
    do(s, I.ACCEPT)
    assert s.phase == E.DEFEND and s.current_player == 2
    assert legal(s) == {I.DECLINE, I.DEFEND + 2}
    do(s, I.DEFEND + 2)
    # Ravenous steal from the attacker, then the Guardian-win steals (attacker, then caller):
    # the attacker's Bone and Skull and the caller's Antler all end in the Guardian's hand
    assert s.hands[2].tolist() == hand(ANTLER=1, BONE=1, SKULL=1)
    assert s.hands[0].sum() == 0 and s.hands[1].sum() == 0
    assert s.scrap_discard.tolist() == [1, 0, 1, 0, 0, 0, 0, 0, 0]
    assert s.tokens.tolist() == _GUARD_TOKENS and s.lead == 1
    # each robbed wolf knows the Guardian holds what it lost
    assert known_obs(s, 0)[2].tolist() == hand(BONE=1, SKULL=1)
    assert known_obs(s, 1)[2].tolist() == hand(ANTLER=1)
    assert known_obs(s, 3).sum() == 0


def test_guardian_thorn_tied_makes_the_guardian_the_attacker():
    s = position(hands={0: {TC: 3}, 1: {ANTLER: 1}, 2: {THORN: 1}}, tokens=_GUARD_TOKENS)
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    do(s, I.TARGET + 2)
    do(s, I.ACCEPT)
    assert legal(s) == {I.DECLINE, I.DEFEND + 3}
    do(s, I.DEFEND + 3)
    # Guardian won: a Tooth & Claw from the attacker, the Antler from the caller; then the roles
    # reverse with the Guardian as the attacker (Tooth & Claw strength)
    assert s.hands[2].tolist() == hand(TC=1, ANTLER=1) and s.hands[1].sum() == 0
    assert (s.att, s.dfd, s.guard, s.strength) == (2, 0, -1, 1)
    assert s.phase == E.DEFEND and s.current_player == 0
    assert legal(s) == {I.DECLINE, I.DEFEND + 0}
    do(s, I.DECLINE)
    # wolf 0 holds only colour 0: the Guardian takes one at once
    assert s.tokens.tolist() == [[4, 0, 0, 0], [0, 2, 1, 0], [1, 3, 4, 0], [0, 0, 0, 5]]
    assert s.hands[0].tolist() == hand(TC=1) and s.lead == 1 and s.phase == E.TURN


def test_guardian_accepting_without_a_defence_loses_for_both():
    s = position(hands={0: {TC: 1}, 1: {TC: 1}, 2: {BONE: 1}}, tokens=_GUARD_TOKENS)
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    do(s, I.TARGET + 2)
    do(s, I.ACCEPT)
    pass_if_only_decline(s, 2)
    # the Guardian lost: the attacker chooses a token from the defender, then from the Guardian
    assert s.phase == E.TAKE and s.current_player == 0 and (s.att, s.dfd, s.guard) == (0, 1, 2)
    assert legal(s) == {I.COLOUR + 1, I.COLOUR + 2}
    do(s, I.COLOUR + 1)
    assert s.phase == E.TAKE and s.current_player == 0
    assert legal(s) == {I.COLOUR + 1, I.COLOUR + 2}
    do(s, I.COLOUR + 2)
    assert s.tokens.tolist() == [[5, 1, 1, 0], [0, 1, 1, 0], [0, 3, 3, 0], [0, 0, 0, 5]]
    # the defender's own Tooth & Claw was never played; nothing was stolen
    assert s.hands[1].tolist() == hand(TC=1) and s.hands[2].tolist() == hand(BONE=1)
    assert s.lead == 1


def test_guardian_call_after_a_thorn_tied_reversal():
    # wolf 2 holds wolf 0's Allegiance; wolf 1 is in no Allegiance
    tokens = [[2, 0, 0, 0], [0, 5, 0, 0], [3, 0, 5, 0], [0, 0, 0, 5]]
    s = position(hands={0: {TC: 1, BONE: 1}, 1: {THORN: 1, SKULL: 1}, 2: {TC: 1}},
                 tokens=tokens)
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    assert s.phase == E.DEFEND and s.current_player == 1       # no Guardian for wolf 1
    do(s, I.DEFEND + 3)
    # reversed: wolf 1 attacks wolf 0, who may call the wolf it is in an Allegiance with
    assert (s.att, s.dfd) == (1, 0)
    assert s.phase == E.GUARD_CALL and s.current_player == 0
    assert legal(s) == {I.DECLINE, I.TARGET + 2}
    do(s, I.TARGET + 2)
    assert s.phase == E.GUARD_ACCEPT and s.current_player == 2
    do(s, I.ACCEPT)
    assert s.phase == E.DEFEND and s.current_player == 2
    do(s, I.DEFEND + 0)
    # the Guardian wins: wolf 1's Skull (attacker) and wolf 0's Bone (caller)
    assert s.hands[2].tolist() == hand(BONE=1, SKULL=1)
    assert s.hands[0].sum() == 0 and s.hands[1].sum() == 0
    assert s.tokens.tolist() == tokens and s.lead == 1


def test_thorn_tied_reversal_onto_the_allegiance_holder():
    # wolf 0 holds wolf 1's Allegiance: wolf 1 may not initiate an attack on it, but a Thorn Tied
    # reversal is not initiated by wolf 1 (engine ruling 2)
    tokens = [[5, 3, 0, 0], [0, 2, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(hands={0: {TC: 2}, 1: {THORN: 1}}, tokens=tokens)
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    assert s.phase == E.DEFEND and s.current_player == 1
    do(s, I.DEFEND + 3)
    assert (s.att, s.dfd, s.strength) == (1, 0, 1)
    assert s.phase == E.DEFEND and s.current_player == 0
    assert legal(s) == {I.DECLINE, I.DEFEND + 0}
    do(s, I.DECLINE)
    assert s.phase == E.TAKE and s.current_player == 1
    assert legal(s) == {I.COLOUR + 0, I.COLOUR + 1}
    do(s, I.COLOUR + 1)                     # wolf 1 takes back its own token
    assert s.tokens.tolist() == [[5, 2, 0, 0], [0, 3, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    assert s.allegiance_holder(1) == -1 and s.lead == 1


def test_collect_set_against_a_wolf_with_a_guardian_is_not_defended():
    s = position(hands={0: {BONE: 3}, 1: {TC: 2, THORN: 1}, 2: {TC: 1, FRENZY: 1}},
                 tokens=_GUARD_TOKENS)
    I = s.ids
    do(s, I.COLLECT + 1 * 4 + 1)            # three Bones on wolf 1
    # no Guardian call, no defence: the Lead Wolf chooses the token at once
    assert s.phase == E.TAKE and s.current_player == 0
    assert legal(s) == {I.COLOUR + 1, I.COLOUR + 2}
    do(s, I.COLOUR + 1)
    assert s.tokens.tolist() == [[5, 1, 0, 0], [0, 1, 1, 0], [0, 3, 4, 0], [0, 0, 0, 5]]
    assert s.hands[1].tolist() == hand(TC=2, THORN=1)
    assert s.hands[2].tolist() == hand(TC=1, FRENZY=1)
    assert s.scrap_discard.tolist() == [0, 0, 0, 0, 0, 0, 3, 0, 0] and s.lead == 1


# ------------------------------------------------------------------------------------------------
# single-card defences (ruling 8)

def test_ravenous_alone_answers_tooth_and_claw_and_steals():
    s = position(hands={0: {TC: 1, SKULL: 1}, 1: {RAVENOUS: 1, BONE: 1}})
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    assert s.phase == E.DEFEND and s.current_player == 1
    assert legal(s) == {I.DECLINE, I.DEFEND + 2}
    do(s, I.DEFEND + 2)
    assert s.hands[1].tolist() == hand(BONE=1, SKULL=1) and s.hands[0].sum() == 0
    assert s.scrap_discard.tolist() == [1, 0, 1, 0, 0, 0, 0, 0, 0]
    assert s.tokens.tolist() == (np.eye(4) * 5).tolist() and s.lead == 1
    assert known_obs(s, 0)[1].tolist() == hand(SKULL=1)      # the robbed attacker knows


def test_frenzy_as_a_defence_against_tooth_and_claw():
    s = position(hands={0: {TC: 1, BONE: 1}, 1: {FRENZY: 1, RAVENOUS: 1}})
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    assert legal(s) == {I.DECLINE, I.DEFEND + 1, I.DEFEND + 2}
    do(s, I.DEFEND + 1)
    # the attack fails; a Frenzy has no special outcome in defence (no steal)
    assert s.hands[1].tolist() == hand(RAVENOUS=1) and s.hands[0].tolist() == hand(BONE=1)
    assert s.scrap_discard.tolist() == [1, 1, 0, 0, 0, 0, 0, 0, 0]
    assert s.tokens.tolist() == (np.eye(4) * 5).tolist() and s.lead == 1


def test_against_frenzy_ravenous_alone_is_no_answer_but_frenzy_is():
    s = position(hands={0: {FRENZY: 1}, 1: {FRENZY: 1, RAVENOUS: 1}})
    I = s.ids
    do(s, I.ATTACK_FR + 1)
    assert s.phase == E.DEFEND and s.strength == 2
    assert legal(s) == {I.DECLINE, I.DEFEND + 1}
    do(s, I.DEFEND + 1)
    assert s.hands[1].tolist() == hand(RAVENOUS=1) and s.scrap_discard[FRENZY] == 2


# ------------------------------------------------------------------------------------------------
# Loyalty takes and wins (rulings 2, 3; engine ruling 5)

def test_automatic_single_colour_take_wins():
    # wolf 0 holds wolf 2's Allegiance and 2 colour-1 tokens; wolf 1 holds only colour 1
    tokens = [[5, 2, 3, 0], [0, 3, 0, 0], [0, 0, 2, 0], [0, 0, 0, 5]]
    s = position(hands={0: {TC: 1}, 1: {TC: 1}}, tokens=tokens)
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    assert s.phase == E.DEFEND and s.current_player == 1
    do(s, I.DECLINE)
    # no TAKE decision: the only colour is taken, and that take wins
    assert s.tokens[0].tolist() == [5, 3, 3, 0] and s.tokens[1].tolist() == [0, 2, 0, 0]
    assert s.is_terminal and s.winner == 0 and s.current_player is None
    assert s.returns().tolist() == [1.0, -1.0, -1.0, -1.0]
    assert not s.legal_action_mask().any()


def test_fox_take_wins():
    tokens = [[3, 2, 3, 0], [0, 3, 0, 0], [2, 0, 2, 0], [0, 0, 0, 5]]
    s = position(tokens=tokens, hunt_top=FOX)
    I = s.ids
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.phase == E.FOX_T and s.current_player == 0
    assert legal(s) == {I.DECLINE, I.TARGET + 1}
    assert not s.is_terminal
    do(s, I.TARGET + 1)
    assert s.tokens[0].tolist() == [3, 3, 3, 0] and s.tokens[1].tolist() == [0, 2, 0, 0]
    assert s.is_terminal and s.winner == 0 and s.current_player is None
    assert s.returns().tolist() == [1.0, -1.0, -1.0, -1.0]


# five wolves; a Crow swap of wolf 1's colour-0 token with wolf 2's colour-3 token gives wolf 1
# the Allegiance of wolves 3 and 4 and wolf 2 the Allegiance of wolves 0 and 1 at once
_CROW_TOKENS = [[2, 0, 0, 0, 0],
                [1, 2, 0, 2, 3],
                [2, 3, 5, 1, 0],
                [0, 0, 0, 2, 0],
                [0, 0, 0, 0, 2]]


@pytest.mark.parametrize("lead,winner", [(0, 1), (2, 2)])
def test_crow_swap_two_winners_first_from_the_lead_clockwise_wins(lead, winner):
    s = position(n=5, lead=lead, tokens=_CROW_TOKENS, hunt_top=CROW)
    I = s.ids
    assert not any(s.wins(p) for p in range(5))
    do(s, I.HUNT)
    do(s, I.COLOUR + (0 if lead == 0 else 3))
    while s.phase == E.JOIN:                 # wolf 1 joins with colour 0 (wolf 2 with colour 3)
        p = s.current_player
        do(s, I.COLOUR + 0 if p == 1 else I.COLOUR + 3 if p == 2 else I.DECLINE)
    assert sorted(s.hunters) == ([0, 1, 2] if lead == 0 else [1, 2])
    assert s.phase == E.CROW1 and s.current_player == lead
    do(s, I.TARGET + 1)
    assert s.phase == E.CROW2 and I.TARGET + 2 in legal(s)
    do(s, I.TARGET + 2)
    assert s.tokens[1].tolist() == [0, 2, 0, 3, 3] and s.tokens[2].tolist() == [3, 3, 5, 0, 0]
    assert s.wins(1) and s.wins(2)
    assert s.is_terminal and s.winner == winner and s.current_player is None
    expected = [-1.0] * 5
    expected[winner] = 1.0
    assert s.returns().tolist() == expected


def test_wild_fills_a_colour_whose_allegiance_another_wolf_holds():
    # wolf 3 holds wolf 1's Allegiance; wolf 0 holds 2 colour-1 tokens and wolf 2's Allegiance
    tokens = [[5, 2, 3, 0], [0, 0, 0, 0], [0, 0, 2, 0], [0, 3, 0, 5]]
    s = position(hands={0: {TC: 2, BONE: 1, SKULL: 1}}, tokens=tokens, hunt_top=JACKALOPE)
    I = s.ids
    assert s.allegiance_holder(1) == 3 and not s.wins(0)
    probe = s.clone()
    probe.tokens[0, 1] = 1                   # one Wild fills in one token, not two
    probe.wild[0] = 1
    assert not probe.wins(0)
    do(s, I.HUNT); do(s, I.COLOUR + 0)
    assert s.current_player == 2             # wolf 1 holds no token: not asked to join
    do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.phase == E.JACK
    do(s, I.ACCEPT)
    for k in (TC, TC, BONE):
        do(s, I.DISCARD + k)
    assert s.wild.tolist() == [1, 0, 0, 0]
    assert s.is_terminal and s.winner == 0 and s.returns().tolist() == [1.0, -1.0, -1.0, -1.0]
    assert s.allegiance_holder(1) == 3 and s.tokens.tolist() == tokens


# ------------------------------------------------------------------------------------------------
# Hunt cards (rulebook "Hunt Cards"; ruling 6)

def test_bighorn_ram_alone_keeps_three():
    s = position(hands={0: {TC: 1}}, hunt_top=RAM, scrap_top=(BONE, SKULL, FRENZY))
    hunt_alone(s, 0)
    assert s.hands[0].tolist() == hand(TC=1, FRENZY=1, BONE=1, SKULL=1)
    assert s.lead == 1 and s.hunt_discard[RAM] == 1 and len(s.scrap_deck) == 60 - 4


def test_bighorn_ram_three_hunters_one_each_without_ordering():
    s = position(hunt_top=RAM, scrap_top=(BONE, SKULL, FRENZY))
    I = s.ids
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.DECLINE); do(s, I.COLOUR + 3)
    assert s.hunters == [0, 1, 3]
    # 3 cards among 3 hunters: 1/1/1, nothing to order, straight to dealing
    assert s.phase == E.DEAL and s.current_player == 0
    assert s.share_size == [1, 1, 0, 1] and s.share_left == [0, 1, 0, 1]
    assert s.drawn.tolist() == hand(FRENZY=1, BONE=1, SKULL=1)
    do(s, I.GIVE + 3 * 9 + SKULL)
    do(s, I.GIVE + 1 * 9 + FRENZY)
    assert s.hands[0].tolist() == hand(BONE=1) and s.hands[1].tolist() == hand(FRENZY=1)
    assert s.hands[3].tolist() == hand(SKULL=1) and s.hands[2].sum() == 0
    assert known_obs(s, 0)[1].tolist() == hand(FRENZY=1)
    assert known_obs(s, 0)[3].tolist() == hand(SKULL=1)
    assert known_obs(s, 1).sum() == 0 and s.lead == 1


def test_bighorn_ram_two_hunters_split_two_one():
    s = position(n=3, hunt_top=RAM, scrap_top=(BONE, SKULL, FRENZY))
    I = s.ids
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.DECLINE); do(s, I.COLOUR + 2)
    assert s.phase == E.DEAL and s.share_size == [2, 0, 1] and s.share_left == [0, 0, 1]
    do(s, I.GIVE + 2 * 9 + BONE)
    assert s.hands[0].tolist() == hand(FRENZY=1, SKULL=1) and s.hands[2].tolist() == hand(BONE=1)


def test_jackalope_redraw_by_choice_shuffles_it_back_into_the_hunt_deck():
    s = position(hands={0: {TC: 2, BONE: 1}}, hunt_top=JACKALOPE, scrap_top=(SKULL, FRENZY))
    hunt_alone(s, 0)
    I = s.ids
    assert s.phase == E.JACK and s.current_player == 0 and legal(s) == {I.ACCEPT, I.DECLINE}
    assert len(s.hunt_deck) == 54
    do(s, I.DECLINE)
    assert s.hands[0].tolist() == hand(TC=2, FRENZY=1, BONE=1, SKULL=1)
    assert s.hunt_deck.count(JACKALOPE) == 2 and len(s.hunt_deck) == 55
    assert s.hunt_discard.sum() == 0 and s.wild.sum() == 0
    assert s.lead == 1 and s.phase == E.TURN


def test_jackalope_kept_without_winning():
    s = position(hands={0: {TC: 2, BONE: 1, SKULL: 1}}, hunt_top=JACKALOPE)
    hunt_alone(s, 0)
    I = s.ids
    do(s, I.ACCEPT)
    assert s.phase == E.DISCARD and s.current_player == 0
    assert legal(s) == {I.DISCARD + TC, I.DISCARD + BONE, I.DISCARD + SKULL}
    do(s, I.DISCARD + SKULL)
    left = s.layout.view(s.observation_tensor(2), "discards_left")
    assert left.tolist() == [pytest.approx(2 / 3)]
    do(s, I.DISCARD + TC)
    do(s, I.DISCARD + BONE)
    assert s.wild.tolist() == [1, 0, 0, 0] and not s.is_terminal and s.winner == -1
    assert s.hands[0].tolist() == hand(TC=1)
    assert s.scrap_discard.tolist() == [1, 0, 0, 0, 0, 0, 1, 1, 0]
    # caught: neither in the Hunt deck nor in the discards
    assert s.hunt_deck.count(JACKALOPE) == 1 and s.hunt_discard.sum() == 0
    assert len(s.hunt_deck) == 54 and s.card_totals()[1] == 55
    assert s.tokens.tolist() == (np.eye(4) * 5).tolist() and s.lead == 1
    assert s.layout.view(s.observation_tensor(3), "wild").tolist() == [0.5, 0, 0, 0]


def test_crow_no_swap_and_fox_no_take():
    s = position(hunt_top=CROW)
    I = s.ids
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.COLOUR + 2); do(s, I.DECLINE)
    assert s.phase == E.CROW1 and s.current_player == 0
    assert legal(s) == {I.DECLINE, I.TARGET + 0, I.TARGET + 1, I.TARGET + 2}
    do(s, I.DECLINE)
    assert s.tokens.tolist() == (np.eye(4) * 5).tolist()
    assert s.lead == 1 and s.hunt_discard[CROW] == 1 and s.phase == E.TURN
    s.hunt_deck.remove(FOX); s.hunt_deck.append(FOX)
    do(s, I.HUNT); do(s, I.COLOUR + 1); do(s, I.COLOUR + 2); do(s, I.DECLINE); do(s, I.COLOUR + 0)
    assert s.phase == E.FOX_T and s.current_player == 1
    assert legal(s) == {I.DECLINE, I.TARGET + 0, I.TARGET + 2}
    do(s, I.DECLINE)
    assert s.tokens.tolist() == (np.eye(4) * 5).tolist()
    assert s.lead == 2 and s.hunt_discard[FOX] == 1 and s.phase == E.TURN


def test_rattlesnake_with_an_empty_hand_hits_no_other_hunter():
    s = position(hands={1: {TC: 1, BONE: 1}}, hunt_top=RATTLESNAKE)
    I = s.ids
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.DECLINE); do(s, I.DECLINE)
    # only the Lead Wolf discards, and it has nothing: no decision, the turn ends
    assert s.phase == E.TURN and s.lead == 1
    assert s.hands[1].tolist() == hand(TC=1, BONE=1) and s.scrap_discard.sum() == 0
    assert s.hunt_discard[RATTLESNAKE] == 1


def test_weasel_with_nothing_to_steal():
    s = position(hands={0: {TC: 1}, 2: {BONE: 1}}, hunt_top=WEASEL)
    I = s.ids
    # wolf 1 joins with an empty hand; wolf 2 (holding a card) stays out
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.phase == E.TURN and s.lead == 1 and s.hunt_discard[WEASEL] == 1
    assert s.hands[0].tolist() == hand(TC=1) and s.hands[2].tolist() == hand(BONE=1)
    # hunting alone: nobody to steal from
    s.hunt_deck.remove(WEASEL); s.hunt_deck.append(WEASEL)
    hunt_alone(s, 1)
    assert s.phase == E.TURN and s.lead == 2 and s.hunt_discard[WEASEL] == 2
    assert s.hands.sum(axis=1).tolist() == [1, 0, 1, 0]


def test_crow_and_fox_with_nothing_to_act_on():
    # alone: a Crow has only one risked token, a Fox no other hunter
    for card in (CROW, FOX):
        s = position(hunt_top=card)
        hunt_alone(s, 0)
        assert s.phase == E.TURN and s.lead == 1 and s.hunt_discard[card] == 1
        assert s.tokens.tolist() == (np.eye(4) * 5).tolist()
    # a Lead Wolf without tokens and one joiner: still one risked token, no Crow swap
    tokens = [[0, 0, 0, 0], [5, 5, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(tokens=tokens, hunt_top=CROW)
    I = s.ids
    do(s, I.HUNT)
    assert s.phase == E.JOIN and s.current_player == 1
    do(s, I.COLOUR + 0); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.phase == E.TURN and s.lead == 1 and s.tokens.tolist() == tokens


# ------------------------------------------------------------------------------------------------
# knowledge after random steals (ruling 12)

def test_knowledge_after_a_weasel_steal():
    seen = set()
    for seed in range(12):
        s = position(hands={1: {BONE: 2, SKULL: 1}}, hunt_top=WEASEL, seed=seed)
        I = s.ids
        s.known[0, 1] = hand(BONE=2, SKULL=1)     # the thief looked at the victim's hand
        s.known[2, 1] = hand(BONE=2, SKULL=1)     # so did a third wolf
        s.known[3, 1] = hand(SKULL=1)
        do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.DECLINE)
        do(s, I.DECLINE)
        assert legal(s) == {I.TARGET + 1}
        do(s, I.TARGET + 1)
        stolen = int(np.flatnonzero(s.hands[0])[0])
        seen.add(stolen)
        assert s.hands[0].sum() == 1 and (s.hands[0] + s.hands[1]).tolist() == hand(BONE=2, SKULL=1)
        # the thief knows exactly what is left; the victim knows the thief holds the card;
        # a third wolf cannot tell which card went: each of its bounds drops by one
        assert known_obs(s, 0)[1].tolist() == s.hands[1].tolist()
        assert known_obs(s, 1)[0].tolist() == s.hands[0].tolist()
        assert known_obs(s, 2)[1].tolist() == hand(BONE=1)
        assert known_obs(s, 3)[1].tolist() == [0] * 9
        assert known_obs(s, 2)[0].sum() == 0 and known_obs(s, 3)[0].sum() == 0
    assert seen == {BONE, SKULL}                  # the card is random


def test_knowledge_after_a_ravenous_steal():
    s = position(hands={0: {TC: 1, BONE: 1, SKULL: 1}, 1: {RAVENOUS: 1}})
    s.known[2, 0] = hand(TC=1, BONE=1, SKULL=1)   # wolf 2 looked at the attacker's hand
    I = s.ids
    do(s, I.ATTACK_TC + 1)
    assert known_obs(s, 2)[0].tolist() == hand(BONE=1, SKULL=1)   # the played card drops out
    do(s, I.DEFEND + 2)
    stolen = int(np.flatnonzero(s.hands[1])[0])
    assert s.hands[1].sum() == 1 and stolen in (BONE, SKULL)
    assert known_obs(s, 2)[0].tolist() == [0] * 9
    assert known_obs(s, 0)[1].tolist() == s.hands[1].tolist()
    assert known_obs(s, 1).sum() == 0           # the thief had no bound on the attacker


# ------------------------------------------------------------------------------------------------
# start player (ruling 1)

@pytest.mark.parametrize("n", [3, 4, 5])
def test_start_player_is_random_and_drawn_from_the_seed(n):
    leads = []
    for seed in range(60 * n):
        s = BadlandWolvesState(seed=seed, num_players=n)
        assert s.current_player == s.lead and s.phase == E.TURN and s.turns == 0
        assert s.layout.view(s.observation_tensor(0), "lead").tolist() == \
            np.eye(n)[s.lead].tolist()
        leads.append(s.lead)
    counts = np.bincount(leads, minlength=n)
    # every seat starts sometimes, about equally often (60 expected each)
    assert (counts >= 35).all() and (counts <= 85).all(), counts
    # the same seed gives the same start player (and the same deal)
    for seed in (0, 7, 123):
        a = BadlandWolvesState(seed=seed, num_players=n)
        b = BadlandWolvesState(seed=seed, num_players=n)
        assert a.lead == b.lead and a.hands.tolist() == b.hands.tolist()
