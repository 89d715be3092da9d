"""Prowl rules: rulebook examples, FAQ cases and hand-worked positions (rules/prowl.txt,
design/prowl.md rulings)."""

import numpy as np
import pytest

from envs.core import IllegalActionError
from envs.prowl.engine import K_CLAN, K_OPP, K_REWARD, K_SIDE, K_TURN, K_YESNO
from tests.test_prowl_helpers import act, cid, clan, opp, play, position, tid, track_names


def end(s):
    s.hand[:] = 0
    s._end_game()
    return s


# ---------------------------------------------------------------- Ending the Game (rulebook)
def test_rulebook_example_player_a_wins():
    # Winter (nobody), Spring (A), Autumn (C; D), Summer (B)
    s = position(track=("Winter", "Spring", "Autumn", "Summer"),
                 clans=["Seer", "Raider", "Captain", "Headstrong Scout"], dominance=2)
    end(s)
    assert s.winner == 0
    assert s.returns().tolist() == [1.0, -1.0, -1.0, -1.0]


def test_rulebook_example_player_b_wins_with_dominance():
    # Winter, Spring (A; B with Dominance), Autumn (D), Summer (C)
    s = position(track=("Winter", "Spring", "Autumn", "Summer"),
                 clans=["Seer", "Hexer", "Raider", "Captain"], dominance=1)
    end(s)
    assert s.winner == 1


def test_rulebook_example_player_d_wins_after_tie():
    # Winter (nobody), Spring (A; B), Autumn (D), Summer (C with Dominance)
    s = position(track=("Winter", "Spring", "Autumn", "Summer"),
                 clans=["Seer", "Hexer", "Raider", "Captain"], dominance=2)
    end(s)
    assert s.winner == 3


def test_tied_clan_out_next_clan_dominance_holder_wins():
    # Spring: seats 0, 1 tied without the token -> out; Summer: 2, 3 with 3 holding it
    s = position(track=("Spring", "Summer", "Autumn", "Winter"),
                 clans=["Seer", "Hexer", "Raider", "Wanderer"], dominance=3)
    end(s)
    assert s.winner == 3


def test_zero_sum_rewards():
    s = position(num_players=3, track=("Spring", "Summer", "Autumn", "Winter"),
                 clans=["Seer", "Raider", "Captain"], reward="zero_sum")
    end(s)
    assert s.winner == 0
    assert np.allclose(s.returns(), [1.0, -0.5, -0.5])


def test_game_ends_after_last_card_and_winner_by_track():
    s = position(num_players=2, clans=["Seer", "Raider"], hands=[["Hexer"], ["Drillmaster"]],
                 track=("Summer", "Spring", "Autumn", "Winter"), dominance=1)
    play(s, "Hexer")
    act(s, clan(s, "Summer"))            # Summer lowered below Spring; Spring strengthened
    assert track_names(s) == ["Spring", "Summer", "Autumn", "Winter"]
    assert not s.is_terminal
    play(s, "Drillmaster")               # Early: last card, no effect; Autumn strengthened
    assert s.is_terminal and s.winner == 0 and s.current_player is None
    assert track_names(s) == ["Spring", "Autumn", "Summer", "Winter"]
    assert s.legal_action_mask().sum() == 0


# ---------------------------------------------------------------- FAQ
def test_headstrong_scout_effect_first_triggers():
    s = position(track=("Spring", "Summer", "Winter", "Autumn"),
                 hands=[["Headstrong Scout", "Seer"]] * 4)
    play(s, "Headstrong Scout", order=0)
    assert track_names(s) == ["Autumn", "Spring", "Summer", "Winter"]


def test_headstrong_scout_strengthen_first_does_not_trigger():
    s = position(track=("Spring", "Summer", "Winter", "Autumn"),
                 hands=[["Headstrong Scout", "Seer"]] * 4)
    play(s, "Headstrong Scout", order=1)
    assert track_names(s) == ["Spring", "Summer", "Autumn", "Winter"]


def test_high_mage_contract_broken_means_no_winner():
    s = position(clans=["Raider", "Seer", "Captain", "Magistrate"],
                 hands=[["High Mage", "Hexer"]] + [["Seer", "Hexer"]] * 3)
    play(s, "High Mage")
    assert s._dec[1] == K_CLAN
    act(s, clan(s, "Spring"))
    assert s.pact[0] == cid(s, "Spring") and s.attach[0, tid(s, "High Mage")] == 1
    s.track = [cid(s, c) for c in ("Summer", "Spring", "Autumn", "Winter")]
    end(s)
    assert s.winner is None
    assert s.returns().tolist() == [0.0, 0.0, 0.0, 0.0]


def test_high_mage_pact_kept_wins_despite_tie():
    s = position(clans=["Seer", "Hexer", "Captain", "Magistrate"], dominance=1,
                 hands=[["High Mage", "Hexer"]] + [["Seer", "Hexer"]] * 3)
    play(s, "High Mage")
    act(s, clan(s, "Spring"))
    s.track = [cid(s, c) for c in ("Spring", "Summer", "Autumn", "Winter")]
    end(s)
    assert s.winner == 0   # leader win: ties and the Dominance token ignored (ruling 8a)


def test_hooded_figure_simultaneous_pass_skips_bodyguard():
    s = position(clans=["Seer", "Raider", "Captain", "Magistrate"],
                 hands=[["Hooded Figure", "Hexer"]] + [["Seer", "Hexer"]] * 3)
    s.attach[2, tid(s, "Bodyguard")] = 1
    s._prot = None
    s.face_up[1] = True
    s.know[:, 1] = s.clan_card[1]
    before = s.clan_card.copy()
    play(s, "Hooded Figure")
    assert s._dec[1] == K_SIDE
    act(s, s.off["side"] + 0)   # pass left: 0 -> 1 -> 3 -> 0, seat 2 protected keeps its card
    assert s.clan_card.tolist() == [before[3], before[0], before[2], before[1]]
    assert s.face_up.tolist() == [False, False, False, True]   # facing travels with the card
    # each receiver looks at its card; the passer can track where its old card went
    assert s.know[0, 0] == before[3] and s.know[1, 1] == before[0]
    assert s.know[0, 1] == before[0]
    assert s.know[2, 3] == before[1]   # the face-up card stays known to everyone


def test_another_clan_hexer_wanderer_marshal():
    s = position(hands=[["Hexer", "Seer"]] * 4)
    play(s, "Hexer")
    m = s.legal_action_mask()
    assert m[clan(s, "Spring")] == 0 and m[clan(s, "Winter")] == 1
    with pytest.raises(IllegalActionError, match="another clan"):
        s.apply_action(clan(s, "Spring"))
    s = position(hands=[["Wanderer", "Seer"]] * 4)
    play(s, "Wanderer")
    assert s.legal_action_mask()[clan(s, "Summer")] == 0
    act(s, clan(s, "Spring"))
    m = s.legal_action_mask()
    assert m[clan(s, "Summer")] == 0 and m[clan(s, "Spring")] == 0 and m[clan(s, "Winter")] == 1
    act(s, clan(s, "Winter"))
    # Spring (top) and Winter (bottom) swapped; Summer then strengthened to the top
    assert track_names(s) == ["Summer", "Winter", "Autumn", "Spring"]
    s = position(hands=[["Marshal", "Seer"]] * 4)
    play(s, "Marshal")
    assert s.legal_action_mask()[clan(s, "Autumn")] == 1   # raise: any clan
    act(s, clan(s, "Winter"))
    assert s.legal_action_mask()[clan(s, "Autumn")] == 0   # lower: not Autumn
    act(s, clan(s, "Spring"))
    assert track_names(s) == ["Summer", "Spring", "Autumn", "Winter"]


def test_cannot_accuse_face_up_clan():
    s = position(hands=[["Hexer", "Seer"]] * 4)
    s.face_up[1] = True
    act(s, s.off["accuse"] + tid(s, "Hexer"))
    m = s.legal_action_mask()
    assert m[opp(s, 1)] == 0 and m[opp(s, 2)] == 1 and m[opp(s, 3)] == 1
    with pytest.raises(IllegalActionError, match="face-up"):
        s.apply_action(opp(s, 1))
    s = position(hands=[["Hexer", "Seer"]] * 4)
    s.face_up[1:] = True
    s._mask = None
    assert s.legal_action_mask()[s.off["accuse"]:s.off["accuse"] + s.T].sum() == 0
    with pytest.raises(IllegalActionError, match="no opponent"):
        s.apply_action(s.off["accuse"] + tid(s, "Hexer"))


def test_raider_accuses_without_discard():
    s = position(clans=["Seer", "Raider", "Captain", "Magistrate"],
                 hands=[["Raider", "Hexer", "Seer"]] + [["Seer", "Hexer"]] * 3)
    play(s, "Raider")
    assert s._dec[1] == K_OPP
    act(s, opp(s, 2), clan(s, "Winter"))          # wrong: seat 2 is Autumn
    assert s.hand[0].sum() == 2                   # only the Raider left the hand
    assert s.discard[0].sum() == 1 and s.discard[0, tid(s, "Raider")] == 1
    assert s.excl[2, cid(s, "Winter")] and not s.face_up[2]
    assert s.accusations[-1] == (0, 2, cid(s, "Winter"), False, True)
    o = s.observation_tensor(3)
    ex = s.layout.view(o, "excluded")
    assert ex[(2 - 3) % 4, cid(s, "Winter")] == 1   # everyone saw the failed guess
    assert s.current_player == 1


def test_accuse_action_rewards():
    # correct guess, Dominance not held: gain it
    s = position(dominance=2)
    act(s, s.off["accuse"] + tid(s, "Hexer"), opp(s, 1), clan(s, "Summer"))
    assert s.face_up[1] and s._dec[1] == K_REWARD
    assert s.discard[0, tid(s, "Hexer")] == 1
    act(s, s.off["reward"] + 0)
    assert s.dominance == 0 and s.current_player == 1
    # already held: raise a clan of your choice instead
    s = position(dominance=0)
    act(s, s.off["accuse"] + tid(s, "Hexer"), opp(s, 1), clan(s, "Summer"))
    act(s, s.off["reward"] + 0)
    assert s._dec[1] == K_CLAN
    act(s, clan(s, "Winter"))
    assert track_names(s) == ["Spring", "Summer", "Winter", "Autumn"] and s.dominance == 0
    # force Change: the accused's next turn offers only Change
    s = position(dominance=2)
    act(s, s.off["accuse"] + tid(s, "Hexer"), opp(s, 1), clan(s, "Summer"), s.off["reward"] + 1)
    assert s.forced[1] and s.current_player == 1
    m = s.legal_action_mask()
    assert m[s.off["change"]:s.off["change"] + s.T].sum() == 2
    assert m.sum() == 2
    act(s, s.off["change"] + tid(s, "Seer"))
    assert not s.face_up[1] and not s.forced[1] and s.clan_card[1] == tid(s, "Seer")
    assert s.discard[1, tid(s, "Raider")] == 1


def test_magistrate_decides_now_and_forces_change():
    s = position(hands=[["Magistrate", "Seer"]] + [["Seer", "Hexer"]] * 3)
    play(s, "Magistrate")
    assert s._dec[1] == K_OPP and s.current_player == 0
    act(s, opp(s, 1))
    assert s.forced[1] and s.current_player == 1
    with pytest.raises(IllegalActionError, match="forced"):
        s.apply_action(s.off["play"] + tid(s, "Seer"))
    act(s, s.off["change"] + tid(s, "Hexer"))
    assert s.current_player == 2 and not s.forced[1]


def test_forced_twice_does_not_stack():
    s = position(hands=[["Magistrate", "Seer"], ["Seer", "Hexer", "Hexer"],
                        ["Magistrate", "Seer"], ["Seer", "Hexer"]])
    s.forced[1] = True
    play(s, "Magistrate")
    act(s, opp(s, 1))
    act(s, s.off["change"] + tid(s, "Hexer"))   # one Change clears it
    assert not s.forced[1]


def test_herald_peek_then_force_chosen_now():
    s = position(hands=[["Herald", "Seer"]] + [["Seer", "Hexer"]] * 3)
    play(s, "Herald")
    act(s, opp(s, 2))
    assert s.know[0, 2] == s.clan_card[2] and s._dec[1] == K_YESNO
    o = s.observation_tensor(0)
    assert s.layout.view(o, "known_clan")[2, s.clan_card[2]] == 1
    assert s.layout.view(o, "pending_opp")[2] == 1
    act(s, s.off["yesno"] + 1)
    assert s.forced[2]


# ---------------------------------------------------------------- leaders (ruling 8a)
def _leader(name, clans=None, **kw):
    s = position(clans=clans or ["Glacier", "Seer", "Raider", "Captain"], **kw)
    s.attach[0, tid(s, name)] = 1
    return s


def test_warmonger_wins_when_all_opponents_face_up():
    s = _leader("Warmonger", track=("Spring", "Summer", "Autumn", "Winter"))
    s.face_up[1:] = True
    end(s)
    assert s.winner == 0
    s = _leader("Warmonger", track=("Spring", "Summer", "Autumn", "Winter"))
    s.face_up[1:3] = True
    end(s)
    assert s.winner == 1


def test_warlord_needs_dominance_and_autumn_on_top():
    s = _leader("Warlord", track=("Autumn", "Spring", "Summer", "Winter"), dominance=0)
    end(s)
    assert s.winner == 0
    s = _leader("Warlord", track=("Autumn", "Spring", "Summer", "Winter"), dominance=1)
    end(s)
    assert s.winner == 3   # seat 3 backs Autumn alone


def test_regent_needs_face_down_and_winter_second():
    s = _leader("Regent", track=("Spring", "Winter", "Summer", "Autumn"))
    end(s)
    assert s.winner == 0
    s = _leader("Regent", track=("Spring", "Winter", "Summer", "Autumn"))
    s.face_up[0] = True
    end(s)
    assert s.winner == 1


def test_two_leader_winners_dominance_decides_else_normal():
    def make(dom):
        s = position(clans=["Glacier", "Seer", "Raider", "Wanderer"], dominance=dom,
                     track=("Summer", "Winter", "Spring", "Autumn"))
        s.attach[0, tid(s, "Regent")] = 1          # face-down, Winter second: holds
        s.attach[2, tid(s, "High Mage")] = 1       # Pact Summer, Summer on top: holds
        s.pact[2] = cid(s, "Summer")
        return end(s)
    assert make(2).winner == 2    # the leader winner holding the token
    assert make(0).winner == 0
    assert make(3).winner == 3    # no leader win; Summer tie 2, 3 broken by the token
    # the token holder (seat 1) is outside the leader tie: no leader win; down the track,
    # Summer's tie 2, 3 is unbroken (both out) and seat 0 backs Winter, next, alone
    assert make(1).winner == 0


def test_leaders_stay_other_attachments_expire():
    s = position(num_players=2, clans=["Seer", "Raider"],
                 hands=[["Warlord", "Bodyguard", "Seer"], ["Seer", "Hexer", "Hexer"]])
    play(s, "Warlord")
    play(s, "Seer")
    act(s, opp(s, 0))
    play(s, "Bodyguard")
    assert s.attach[0, tid(s, "Warlord")] == 1 and s.attach[0, tid(s, "Bodyguard")] == 1
    play(s, "Hexer")
    act(s, clan(s, "Winter"))
    # start of seat 0's turn: Bodyguard to discard, Warlord stays
    assert s.attach[0, tid(s, "Bodyguard")] == 0 and s.discard[0, tid(s, "Bodyguard")] == 1
    assert s.attach[0, tid(s, "Warlord")] == 1


# ---------------------------------------------------------------- Winter passives
def test_glacier_blocks_opponent_effect_movement_only():
    s = position(track=("Winter", "Spring", "Summer", "Autumn"),
                 hands=[["Hexer", "Marshal", "Seer"]] + [["Seer", "Hexer"]] * 3)
    s.attach[3, tid(s, "Glacier")] = 1
    play(s, "Hexer")
    act(s, clan(s, "Winter"))                 # blocked; then Spring strengthened -> Winter down
    assert track_names(s) == ["Spring", "Winter", "Summer", "Autumn"]
    s = position(track=("Spring", "Winter", "Summer", "Autumn"),
                 hands=[["Marshal", "Seer"]] + [["Seer", "Hexer"]] * 3)
    s.attach[3, tid(s, "Glacier")] = 1
    play(s, "Marshal", order=1)               # strengthen first: Autumn up 1, past Summer
    assert track_names(s) == ["Spring", "Winter", "Autumn", "Summer"]
    act(s, clan(s, "Autumn"))                 # raise Autumn past Winter: blocked
    act(s, clan(s, "Spring"))                 # lower Spring: Winter moves up (allowed)
    assert track_names(s) == ["Winter", "Spring", "Autumn", "Summer"]
    # the Glacier's owner's own effects are not blocked
    s = position(track=("Winter", "Spring", "Summer", "Autumn"),
                 hands=[["Hexer", "Seer"]] * 4)
    s.attach[0, tid(s, "Glacier")] = 1
    play(s, "Hexer")
    act(s, clan(s, "Winter"))
    assert track_names(s) == ["Spring", "Winter", "Summer", "Autumn"]


def test_bodyguard_protects_from_targeting_and_accusation():
    s = position(hands=[["Seer", "Hexer"]] * 4)
    s.attach[1, tid(s, "Bodyguard")] = 1
    s._prot = None
    play(s, "Seer")
    m = s.legal_action_mask()
    assert m[opp(s, 1)] == 0 and m[opp(s, 2)] == 1
    with pytest.raises(IllegalActionError, match="Bodyguard"):
        s.apply_action(opp(s, 1))
    assert s.observation_tensor(0)[s.layout["protected"].start + 1] == 1
    act(s, opp(s, 2))
    s = position(hands=[["Seer", "Hexer"]] * 4)
    s.attach[1, tid(s, "Bodyguard")] = 1
    s._prot = None
    act(s, s.off["accuse"] + tid(s, "Hexer"))
    assert s.legal_action_mask()[opp(s, 1)] == 0


def test_bodyguard_expires_at_owner_turn():
    s = position(num_players=2, clans=["Seer", "Raider"],
                 hands=[["Bodyguard", "Seer"], ["Seer", "Hexer"]])
    play(s, "Bodyguard")
    assert s.protected(0)
    play(s, "Seer")
    assert s._dec[1] == K_TURN   # no target: the only opponent is protected, effect fizzles
    assert not s.protected(0)     # start of seat 0's turn


def test_changeling_swaps_and_both_look():
    s = position(clans=["Seer", "Raider", "Captain", "Magistrate"],
                 hands=[["Changeling", "Seer"]] + [["Seer", "Hexer"]] * 3)
    s.face_up[2] = True
    s.know[:, 2] = s.clan_card[2]
    play(s, "Changeling")
    act(s, opp(s, 2))
    assert s.clan_card[0] == tid(s, "Captain") and s.clan_card[2] == tid(s, "Seer")
    assert s.face_up[0] and not s.face_up[2]
    assert s.know[0, 0] == tid(s, "Captain") and s.know[2, 2] == tid(s, "Seer")
    assert s.know[0, 2] == tid(s, "Seer")     # seat 0 knows where its old card went
    assert s.know[1, 2] == -1 and s.know[1, 0] == tid(s, "Captain")
    assert track_names(s) == ["Spring", "Summer", "Autumn", "Winter"]


def test_two_player_deck_reveal_for_dominance_holder():
    s = position(num_players=2, clans=["Seer", "Raider"], dominance=0,
                 hands=[["Hexer", "Seer"], ["Drillmaster", "Seer"]],
                 track=("Summer", "Autumn", "Winter", "Spring"))
    s.deck2p = [tid(s, "Usurper"), tid(s, "Seer")]
    play(s, "Hexer")
    act(s, clan(s, "Summer"))            # Autumn, Summer, Winter, Spring -> Spring +1
    assert track_names(s) == ["Autumn", "Summer", "Spring", "Winter"]
    assert s.deck2p == [tid(s, "Usurper"), tid(s, "Seer")]   # seat 1 has no Dominance
    play(s, "Drillmaster")
    # seat 0's turn started: top card (Seer) revealed, Spring raised, to the public pile
    assert s.pile[tid(s, "Seer")] == 1 and s.deck2p == [tid(s, "Usurper")]
    assert track_names(s) == ["Autumn", "Spring", "Summer", "Winter"]


def test_early_and_final_gate_the_effect_only():
    s = position(num_players=2, clans=["Seer", "Raider"],
                 hands=[["Last Stand", "Whisperer"], ["Seer", "Hexer"]],
                 track=("Spring", "Autumn", "Winter", "Summer"))
    play(s, "Last Stand")                # not last: no effect, Summer strengthened by 1
    assert track_names(s) == ["Spring", "Autumn", "Summer", "Winter"]
    play(s, "Seer")
    act(s, opp(s, 0))
    play(s, "Whisperer")                 # last card: Early, no Peek decision
    assert s.current_player == 1 and s._dec[1] == K_TURN
    assert not s.wvalid[0].any()


def test_whisperer_peeks_hand_and_tracks_public_plays():
    s = position(num_players=2, clans=["Seer", "Raider"],
                 hands=[["Whisperer", "Seer", "Hexer"], ["Seer", "Hexer", "Captain"]])
    play(s, "Whisperer")
    act(s, opp(s, 1))
    assert s.wvalid[0, 1] and s.whisper[0, 1].tolist() == s.hand[1].tolist()
    play(s, "Captain")
    assert s.whisper[0, 1].tolist() == s.hand[1].tolist()
    o = s.observation_tensor(0)
    wh = s.layout.view(o, "whisper_hand")
    assert wh[1, tid(s, "Seer")] == 0.5 and wh[1, tid(s, "Captain")] == 0


def test_firebrand_reveals_and_excludes():
    s = position(clans=["Seer", "Raider", "Captain", "Headstrong Scout"],
                 hands=[["Firebrand", "Seer"]] + [["Seer", "Hexer"]] * 3)
    play(s, "Firebrand")
    act(s, clan(s, "Autumn"))
    assert s.face_up.tolist() == [False, False, True, True]
    assert s.excl[1, cid(s, "Autumn")] and s.dominance == 0   # no reward


def test_assassin_and_usurper_conditions():
    s = position(track=("Spring", "Winter", "Summer", "Autumn"),
                 hands=[["Assassin", "Seer"]] + [["Seer", "Hexer"]] * 3)
    play(s, "Assassin")
    act(s, clan(s, "Spring"))
    assert track_names(s) == ["Winter", "Summer", "Spring", "Autumn"]
    s = position(num_players=2, clans=["Seer", "Raider"], dominance=1,
                 track=("Spring", "Winter", "Summer", "Autumn"), hands=[["Usurper"], ["Seer"]])
    play(s, "Usurper", order=1)           # strengthen: Winter top; Final, top two: Dominance
    assert s.dominance == 0 and track_names(s)[0] == "Winter"


def test_captain_gains_dominance_or_raises():
    s = position(dominance=1, hands=[["Captain", "Seer"]] * 4)
    play(s, "Captain")
    assert s.dominance == 0
    s = position(dominance=0, hands=[["Captain", "Seer"]] * 4,
                 track=("Spring", "Summer", "Winter", "Autumn"))
    play(s, "Captain", order=1)
    assert s._dec[1] == K_CLAN
    act(s, clan(s, "Winter"))
    assert track_names(s) == ["Spring", "Summer", "Winter", "Autumn"]


def test_who_peeked_whom_is_public_but_not_the_card():
    s = position(hands=[["Seer", "Hexer"]] * 4)
    play(s, "Seer")
    act(s, opp(s, 2))
    o3 = s.observation_tensor(3)
    kc = s.layout.view(o3, "knows_clan")
    assert kc[(0 - 3) % 4, (2 - 3) % 4] == 1          # seat 3 sees that seat 0 knows seat 2
    assert s.layout.view(o3, "known_clan")[(2 - 3) % 4].sum() == 0   # but not the card
    act(s, s.off["change"] + tid(s, "Hexer"))         # seat 1 Changes: unrelated
    act(s, s.off["change"] + tid(s, "Hexer"))         # seat 2 Changes: the peek is void
    kc = s.layout.view(s.observation_tensor(3), "knows_clan")
    assert kc[(0 - 3) % 4, (2 - 3) % 4] == 0


def test_high_mage_contract_applies_to_a_leader_winner():
    # seat 0 played the High Mage (Pact Spring) and the Warlord; it backs Summer. The Warlord's
    # condition holds (Dominance token, Autumn on top), but ruling 8c is checked after 8a: the
    # winner's clan is not the Pact clan, so they lose and nobody wins (FAQ "High Mage").
    s = position(clans=["Raider", "Seer", "Captain", "Magistrate"], dominance=0,
                 track=("Autumn", "Spring", "Summer", "Winter"))
    s.attach[0, tid(s, "High Mage")] = 1
    s.pact[0] = cid(s, "Spring")
    s.attach[0, tid(s, "Warlord")] = 1
    end(s)
    assert s.winner is None and s.returns().tolist() == [0.0, 0.0, 0.0, 0.0]
    # the same Leader win with the Pact clan kept stands
    s = position(clans=["Seer", "Raider", "Captain", "Magistrate"], dominance=0,
                 track=("Autumn", "Spring", "Summer", "Winter"))
    s.attach[0, tid(s, "High Mage")] = 1
    s.pact[0] = cid(s, "Spring")
    s.attach[0, tid(s, "Warlord")] = 1
    end(s)
    assert s.winner == 0 and s.returns().tolist() == [1.0, -1.0, -1.0, -1.0]


def test_hooded_figure_asks_nothing_when_every_opponent_is_protected():
    s = position(clans=["Seer", "Raider", "Captain", "Magistrate"],
                 hands=[["Hooded Figure", "Hexer"]] + [["Seer", "Hexer"]] * 3)
    s.attach[1:, tid(s, "Bodyguard")] = 1
    s._prot = None
    before = s.clan_card.tolist()
    play(s, "Hooded Figure")
    assert s._dec[1] == K_TURN and s.current_player == 1   # ruling 3: no side decision
    assert s.clan_card.tolist() == before
    assert track_names(s) == ["Spring", "Summer", "Autumn", "Winter"]


def test_whisperer_knowledge_survives_a_change_as_hand_plus_clan_card():
    s = position(clans=["Seer", "Raider", "Captain", "Magistrate"],
                 hands=[["Whisperer", "Seer", "Hexer"], ["Hexer", "Captain", "Glacier"],
                        ["Seer", "Hexer", "Hexer"], ["Seer", "Hexer", "Hexer"]])
    play(s, "Whisperer")
    act(s, opp(s, 1))                                  # seat 0 sees {Hexer, Captain, Glacier}
    act(s, s.off["change"] + tid(s, "Captain"))        # seat 1: Raider face-up to the discards
    assert s.clan_card[1] == tid(s, "Captain") and s.wvalid[0, 1] and s.wclan[0, 1]
    o = s.observation_tensor(0)
    wh = s.layout.view(o, "whisper_hand")[1]
    # the three known cards are still known to be seat 1's (hand plus the new clan card)
    assert wh[tid(s, "Hexer")] == 0.5 and wh[tid(s, "Captain")] == 0.5   # counts / copies
    assert wh[tid(s, "Glacier")] == 1.0 and wh.sum() == 2.0
    assert s.layout.view(o, "whisper_valid")[1] == 0.5
    assert s.layout.view(o, "known_clan")[1].sum() == 0      # which one is the clan: unknown
    poss = s.layout.view(o, "possible")[1]
    assert poss.tolist() == [1.0, 0.0, 1.0, 1.0]        # Spring, Autumn, Winter; never Summer
    # the same observation whichever of the three cards seat 1 placed face-down
    m = s.clone()
    m.clan_card[1] = tid(m, "Glacier")
    m.hand[1, tid(m, "Glacier")] -= 1
    m.hand[1, tid(m, "Captain")] += 1
    m.know[1, 1] = m.clan_card[1]
    assert np.array_equal(m.observation_tensor(0), o)
    # a later Peek at the clan card splits the multiset into the exact hand again
    act(s, s.off["play"] + tid(s, "Seer"), s.off["order"])     # seat 2 Peeks at seat 3
    act(s, opp(s, 3))
    act(s, s.off["play"] + tid(s, "Seer"), s.off["order"])     # seat 3 Peeks at seat 0
    act(s, opp(s, 0))
    play(s, "Seer")                                             # seat 0 Peeks at seat 1
    act(s, opp(s, 1))
    assert not s.wclan[0, 1] and s.know[0, 1] == tid(s, "Captain")
    assert s.whisper[0, 1].tolist() == s.hand[1].tolist()
    # and the resample law holds while the multiset is known
    rng = np.random.default_rng(0)
    s2 = m
    for _ in range(30):
        r = s2.resample_from_infostate(0, rng)
        assert np.array_equal(r.observation_tensor(0), s2.observation_tensor(0))
        assert r.clan_card[1] in (tid(s, "Hexer"), tid(s, "Captain"), tid(s, "Glacier"))


def test_whisperer_multiset_forgotten_when_the_clan_card_moves():
    s = position(clans=["Seer", "Raider", "Captain", "Magistrate"],
                 hands=[["Whisperer", "Seer", "Hexer"], ["Hexer", "Captain", "Glacier"],
                        ["Changeling", "Hexer", "Hexer"], ["Seer", "Hexer", "Hexer"]])
    play(s, "Whisperer")
    act(s, opp(s, 1))
    act(s, s.off["change"] + tid(s, "Captain"))
    play(s, "Changeling")                   # seat 2 swaps clan cards with seat 1
    act(s, opp(s, 1))
    assert not s.wvalid[0, 1] and not s.wclan[0, 1] and s.whisper[0, 1].sum() == 0
    assert s.layout.view(s.observation_tensor(0), "whisper_valid")[1] == 0


def test_played_card_is_seen_by_everyone_while_it_resolves():
    s = position(clans=["Hexer", "Raider", "Captain", "Magistrate"],
                 hands=[["Seer", "Wanderer"], ["Seer", "Hexer"], ["Herald", "Marshal"],
                        ["Glacier", "Assassin"]])
    play(s, "Seer")                        # the opponent decision is due: the Seer is in play
    unseen = [s.layout.view(s.observation_tensor(q), "unseen")[tid(s, "Seer")] for q in range(4)]
    # two Seers: one on the table (public), the other in seat 1's hand
    assert unseen == [0.5, 0.0, 0.5, 0.5]
    act(s, opp(s, 2))
    assert s.discard[0, tid(s, "Seer")] == 1 and s.pub[tid(s, "Seer")] == 1   # counted once
    assert s.layout.view(s.observation_tensor(2), "unseen")[tid(s, "Seer")] == 0.5
