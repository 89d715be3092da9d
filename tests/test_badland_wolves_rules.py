"""Badland Wolves rules on hand-worked positions and the rulebook's own examples."""

import numpy as np
import pytest

from envs.badland_wolves import BadlandWolvesState
from envs.badland_wolves.cards import (
    ANTLER, BISON, BONE, COUGAR, CROW, CROWS_ALLY, DEER, FEATHER, FOX, FRENZY, GRIZZLY,
    JACKALOPE, PORCUPINE, RABBIT, RATTLESNAKE, RAVENOUS, SCRAP_COUNTS, SKULL, TC, THORN, WEASEL,
)
from envs.badland_wolves import engine as E
from envs.core import IllegalActionError


def position(n=4, lead=0, hands=None, tokens=None, scrap_top=(), hunt_top=None, seed=0):
    """A state at the start of ``lead``'s turn with the given hands/tokens (cards conserved).

    ``scrap_top``: Scrap types drawn next, in order; ``hunt_top``: the next Hunt card.
    """
    s = BadlandWolvesState(seed=seed, num_players=n)
    s.hands[:] = 0
    for p, h in (hands or {}).items():
        for k, c in h.items():
            s.hands[p, k] = c
    rest = np.array(SCRAP_COUNTS) - s.hands.sum(axis=0)
    for k in scrap_top:
        rest[k] -= 1
    assert (rest >= 0).all()
    deck = np.repeat(np.arange(9), rest).tolist()
    s.scrap_deck = deck + list(reversed(scrap_top))
    s.scrap_discard[:] = 0
    if tokens is not None:
        s.tokens = np.array(tokens, dtype=np.int64)
        assert (s.tokens.sum(axis=0) == 5).all()
    if hunt_top is not None:
        s.hunt_deck.remove(hunt_top)
        s.hunt_deck.append(hunt_top)
    s.known[:] = 0
    s.lead = lead
    s._start_turn()
    s._mask = None
    assert s.card_totals() == (60, 55, 5 * n)
    return s


def ids(s):
    return s.ids


def do(s, a):
    s.apply_action(a)
    assert s.card_totals() == (60, 55, 5 * s.num_players)


def test_card_counts_are_the_rulebooks():
    s = BadlandWolvesState(seed=3)
    assert len(s.scrap_deck) + s.hands.sum() == 60
    assert len(s.hunt_deck) == 55
    full = np.bincount(s.scrap_deck + np.repeat(np.arange(9), s.hands.sum(axis=0)).tolist(),
                       minlength=9)
    assert full.tolist() == [20, 5, 4, 4, 4, 6, 6, 6, 5]
    assert np.bincount(s.hunt_deck, minlength=12).tolist() == [6, 6, 6, 7, 4, 2, 4, 4, 4, 4, 4, 4]
    assert s.hands.sum(axis=1).tolist() == [2, 2, 2, 2]
    assert s.tokens.tolist() == (np.eye(4, dtype=int) * 5).tolist()


def test_bison_split_2_2_1_with_two_joiners_lead_orders_the_rest():
    # Rulebook "Hunting example": Bison with two joiners splits 2/2/1.
    s = position(hunt_top=BISON, scrap_top=(FRENZY, TC, THORN, BONE, SKULL))
    I = ids(s)
    do(s, I.HUNT)
    assert s.phase == E.RISK and s.current_player == 0
    do(s, I.COLOUR + 0)
    assert s.phase == E.JOIN and s.current_player == 1
    do(s, I.COLOUR + 1)
    assert s.current_player == 2
    do(s, I.COLOUR + 2)
    assert s.current_player == 3
    do(s, I.DECLINE)
    assert s.hunters == [0, 1, 2] and s.hunt_card == BISON
    assert s.drawn.tolist() == [1, 1, 0, 0, 1, 0, 1, 1, 0]
    # Lead takes a largest share (2); it orders the other two hunters: 2 then 1.
    assert s.phase == E.ORDER and s.current_player == 0 and s.share_size[0] == 2
    assert set(np.flatnonzero(s.legal_action_mask())) == {I.TARGET + 1, I.TARGET + 2}
    do(s, I.TARGET + 2)
    assert s.share_size[:3] == [2, 1, 2]
    assert s.phase == E.DEAL
    do(s, I.GIVE + 2 * 9 + BONE)
    do(s, I.GIVE + 2 * 9 + SKULL)
    with pytest.raises(IllegalActionError):
        s.apply_action(I.GIVE + 2 * 9 + TC)  # share of wolf 2 is full
    do(s, I.GIVE + 1 * 9 + TC)
    assert s.hands[0].tolist() == [0, 1, 0, 0, 1, 0, 0, 0, 0]
    assert s.hands[1].tolist() == [1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert s.hands[2].tolist() == [0, 0, 0, 0, 0, 0, 1, 1, 0]
    # only the dealer learns the shares' contents
    assert s.known[0, 2, BONE] == 1 and s.known[0, 1, TC] == 1 and s.known[3].sum() == 0
    assert s.lead == 1 and s.phase == E.TURN and s.hunt_discard[BISON] == 1


def test_allegiance_holder_gets_second_largest_share():
    tokens = [[2, 0, 0, 0], [3, 5, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(tokens=tokens, hunt_top=BISON, scrap_top=(TC,) * 5)
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.COLOUR + 2)
    do(s, I.DECLINE)
    # wolf 1 holds the Lead Wolf's Allegiance: no ordering decision, 2-2-1 with 1 getting 2
    assert s.phase == E.DEAL and s.share_size[:3] == [2, 2, 1]


def test_deer_two_cards_three_hunters_one_gets_none():
    s = position(hunt_top=DEER, scrap_top=(TC, FRENZY))
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.COLOUR + 2)
    do(s, I.DECLINE)
    assert s.phase == E.ORDER
    do(s, I.TARGET + 1)
    assert s.share_size[:3] == [1, 1, 0]
    do(s, I.GIVE + 9 + TC)
    assert s.hands[0, FRENZY] == 1 and s.hands[1, TC] == 1 and s.hands[2].sum() == 0


def test_antler_set_takes_a_loyalty_without_defence():
    # Appendix example: three Antlers against another wolf take any one Loyalty; no defence.
    tokens = [[5, 0, 0, 0], [0, 3, 2, 0], [0, 2, 3, 0], [0, 0, 0, 5]]
    s = position(hands={0: {ANTLER: 3}, 1: {TC: 2, FRENZY: 1}}, tokens=tokens)
    I = ids(s)
    do(s, I.COLLECT + 0 * 4 + 1)
    assert s.phase == E.TAKE and s.current_player == 0       # no defence decision for wolf 1
    assert set(np.flatnonzero(s.legal_action_mask())) == {I.COLOUR + 1, I.COLOUR + 2}
    do(s, I.COLOUR + 2)
    assert s.tokens[0].tolist() == [5, 0, 1, 0] and s.tokens[1].tolist() == [0, 3, 1, 0]
    assert s.hands[1].tolist()[:2] == [2, 1] and s.scrap_discard[ANTLER] == 3
    assert s.lead == 1 and s.phase == E.TURN


def test_collect_needs_target_with_tokens_and_three_matching():
    tokens = [[5, 5, 0, 0], [0, 0, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(hands={0: {BONE: 3, SKULL: 2}}, tokens=tokens)
    I = ids(s)
    m = s.legal_action_mask()
    assert m[I.COLLECT + 1 * 4 + 2] and not m[I.COLLECT + 1 * 4 + 1]   # wolf 1 holds nothing
    assert not m[I.COLLECT + 2 * 4 + 2]                                  # only two Skulls


@pytest.mark.parametrize("pair,extra", [
    ((TC, TC), None), ((TC, RAVENOUS), "steal"), ((TC, THORN), "reverse")])
def test_frenzy_answered_by_each_pair(pair, extra):
    hand1 = {TC: 2} if pair == (TC, TC) else {TC: 1, pair[1]: 1}
    s = position(hands={0: {FRENZY: 1, SKULL: 1}, 1: hand1})
    I = ids(s)
    do(s, I.ATTACK_FR + 1)
    assert s.phase == E.DEFEND and s.current_player == 1 and s.strength == 2
    legal = set(np.flatnonzero(s.legal_action_mask()))
    d = {(TC, TC): 4, (TC, THORN): 5, (TC, RAVENOUS): 6}[pair]
    assert legal == {I.DECLINE, I.DEFEND + d}       # a single Tooth & Claw does not answer
    do(s, I.DEFEND + d)
    assert s.hands[1].sum() == (1 if extra == "steal" else 0)
    assert s.scrap_discard[FRENZY] == 1 and s.scrap_discard[TC] == (2 if d == 4 else 1)
    if extra == "steal":                             # Ravenous: random Scrap from the attacker
        assert s.hands[1, SKULL] == 1 and s.hands[0].sum() == 0 and s.phase == E.TURN
    elif extra == "reverse":                         # Thorn Tied: attacker must defend
        # wolf 0 holds only a Skull: it is still asked, with only "no defence" in its mask,
        # and loses a Loyalty to wolf 1
        assert s.phase == E.DEFEND and s.current_player == 0
        assert s.legal_actions() == [I.DECLINE]
        do(s, I.DECLINE)
        assert s.phase == E.TURN and s.lead == 1
        assert s.tokens[1, 0] == 1 and s.tokens[0, 0] == 4
    else:
        assert s.phase == E.TURN and s.tokens.trace() == 20 and s.lead == 1


def test_thorn_tied_makes_the_attacker_defend_and_chains():
    s = position(hands={0: {TC: 2, THORN: 1}, 1: {THORN: 1, TC: 1}})
    I = ids(s)
    do(s, I.ATTACK_TC + 1)
    assert set(np.flatnonzero(s.legal_action_mask())) == {
        I.DECLINE, I.DEFEND + 0, I.DEFEND + 3}
    do(s, I.DEFEND + 3)                       # Thorn Tied: roles reverse
    assert (s.att, s.dfd, s.strength) == (1, 0, 1)
    assert s.phase == E.DEFEND and s.current_player == 0
    do(s, I.DEFEND + 3)                       # wolf 0 answers with its own Thorn Tied: chain
    assert (s.att, s.dfd) == (0, 1) and s.current_player == 1
    do(s, I.DECLINE)                          # wolf 1 gives up: wolf 0 takes a Loyalty
    assert s.tokens[0].tolist() == [5, 1, 0, 0] and s.tokens[1, 1] == 4
    assert s.lead == 1 and s.phase == E.TURN


def test_thorn_tied_attacker_declines_loses_loyalty_to_original_defender():
    s = position(hands={0: {TC: 2}, 1: {THORN: 1}})
    I = ids(s)
    do(s, I.ATTACK_TC + 1)
    do(s, I.DEFEND + 3)
    assert s.current_player == 0
    do(s, I.DECLINE)
    assert s.tokens[1].tolist() == [1, 5, 0, 0] and s.tokens[0, 0] == 4


def _guardian_position():
    # wolf 2 holds wolf 1's Allegiance (3 colour-1 tokens): they are in an Allegiance
    tokens = [[5, 0, 0, 0], [0, 2, 1, 0], [0, 3, 4, 0], [0, 0, 0, 5]]
    return position(hands={0: {TC: 1, BONE: 1}, 1: {SKULL: 1}, 2: {TC: 1}}, tokens=tokens)


def test_guardian_wins_takes_random_scrap_from_attacker_and_caller():
    s = _guardian_position()
    I = ids(s)
    do(s, I.ATTACK_TC + 1)
    assert s.phase == E.GUARD_CALL and s.current_player == 1
    assert set(np.flatnonzero(s.legal_action_mask())) == {I.DECLINE, I.TARGET + 2}
    do(s, I.TARGET + 2)
    assert s.phase == E.GUARD_ACCEPT and s.current_player == 2
    do(s, I.ACCEPT)
    assert s.phase == E.DEFEND and s.current_player == 2
    do(s, I.DEFEND + 0)
    # Guardian played its Tooth & Claw, then took the attacker's Bone and the caller's Skull
    assert s.hands[2].tolist() == [0, 0, 0, 0, 0, 0, 1, 1, 0]
    assert s.hands[0].sum() == 0 and s.hands[1].sum() == 0
    assert s.tokens[:, 1].tolist() == [0, 2, 3, 0] and s.lead == 1


def test_guardian_loses_attacker_takes_chosen_loyalty_from_both():
    s = _guardian_position()
    I = ids(s)
    do(s, I.ATTACK_TC + 1)
    do(s, I.TARGET + 2)
    do(s, I.ACCEPT)
    do(s, I.DECLINE)                          # the Guardian gives up the defence
    assert s.phase == E.TAKE and s.current_player == 0
    assert (s.att, s.dfd, s.guard) == (0, 1, 2)
    do(s, I.COLOUR + 2)                       # from the defender: a colour-2 token
    assert s.current_player == 0
    do(s, I.COLOUR + 1)                       # from the Guardian: a colour-1 token
    assert s.tokens[0].tolist() == [5, 1, 1, 0]
    assert s.tokens[1].tolist() == [0, 2, 0, 0] and s.tokens[2].tolist() == [0, 2, 4, 0]
    assert s.allegiance_holder(1) == -1       # wolf 2 dropped to 2 of wolf 1's tokens


def test_guardian_declines_defender_defends_alone():
    s = _guardian_position()
    I = ids(s)
    do(s, I.ATTACK_TC + 1)
    do(s, I.TARGET + 2)
    do(s, I.DECLINE)
    # wolf 1 holds only a Skull: asked anyway with only "no defence"; it loses a token
    # (only colours 1 and 2)
    assert s.phase == E.DEFEND and s.legal_actions() == [I.DECLINE]
    do(s, I.DECLINE)
    assert s.phase == E.TAKE and s.current_player == 0


def test_allegiance_flips_at_three_and_back_below():
    tokens = [[5, 2, 0, 0], [0, 3, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(hands={0: {ANTLER: 3}, 1: {SKULL: 3}}, tokens=tokens)
    I = ids(s)
    assert s.allegiance_holder(1) == -1
    do(s, I.COLLECT + 0 * 4 + 1)
    do(s, I.COLOUR + 1) if s.phase == E.TAKE else None
    assert s.tokens[0, 1] == 3 and s.allegiance_holder(1) == 0
    obs = s.observation_tensor(3)
    al = s.layout.view(obs, "allegiance")
    assert al[0, 1] == 1 and al.sum() == 1
    # wolf 1 retrieves one of its tokens with three Skulls: Allegiance is gone again
    do(s, I.COLLECT + 2 * 4 + 0)
    assert s.phase == E.TAKE
    do(s, I.COLOUR + 1)
    assert s.tokens[0, 1] == 2 and s.allegiance_holder(1) == -1
    assert s.layout.view(s.observation_tensor(3), "allegiance").sum() == 0


def test_allegiant_wolf_cannot_attack_its_holder_except_with_collect():
    tokens = [[5, 3, 0, 0], [0, 2, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(lead=1, hands={1: {TC: 1, FRENZY: 1, CROWS_ALLY: 1, BONE: 3}}, tokens=tokens)
    I = ids(s)
    m = s.legal_action_mask()
    assert not m[I.ATTACK_TC + 0] and not m[I.ATTACK_FR + 0]
    assert m[I.ATTACK_TC + 2] and m[I.ATTACK_FR + 3] and m[I.COLLECT + 1 * 4 + 0]
    with pytest.raises(IllegalActionError, match="Allegiance"):
        s.apply_action(I.ATTACK_TC + 0)
    # Crow's Ally may look at the holder, but not follow up with an attack on it
    do(s, I.CROWS_ALLY + 0)
    assert s.phase == E.TURN and s.lead == 2
    assert s.known[1, 0].tolist() == s.hands[0].tolist()


def test_allegiant_wolf_collect_on_holder():
    tokens = [[5, 3, 0, 0], [0, 2, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(lead=1, hands={1: {BONE: 3}}, tokens=tokens)
    I = ids(s)
    do(s, I.COLLECT + 1 * 4 + 0)
    do(s, I.COLOUR + 1)
    assert s.tokens[1, 1] == 3 and s.allegiance_holder(1) == -1


def test_win_at_second_allegiance():
    tokens = [[3, 3, 2, 0], [0, 2, 0, 0], [2, 0, 3, 0], [0, 0, 0, 5]]
    s = position(hands={0: {SKULL: 3}}, tokens=tokens)
    I = ids(s)
    assert not s.is_terminal
    do(s, I.COLLECT + 2 * 4 + 2)
    do(s, I.COLOUR + 2)
    assert s.is_terminal and s.winner == 0 and s.current_player is None
    assert s.returns().tolist() == [1.0, -1.0, -1.0, -1.0]
    assert not s.legal_action_mask().any()


def test_win_only_reward_variant():
    tokens = [[3, 3, 2, 0], [0, 2, 0, 0], [2, 0, 3, 0], [0, 0, 0, 5]]
    s = position(hands={0: {SKULL: 3}}, tokens=tokens)
    s.reward = "win_only"
    do(s, s.ids.COLLECT + 2 * 4 + 2)
    do(s, s.ids.COLOUR + 2)
    assert s.returns().tolist() == [1.0, 0.0, 0.0, 0.0]


def test_win_deficit_counts_the_two_smallest_shortfalls_less_wilds():
    tokens = [[3, 3, 2, 0], [0, 2, 0, 0], [2, 0, 3, 0], [0, 0, 0, 5]]
    s = position(tokens=tokens)
    # wolf 0 lacks 0 (colour 1), 1 (colour 2), 3 (colour 3); wolf 2: 1 (colour 0), 3, 3
    assert [s.win_deficit(p) for p in range(4)] == [1, 6, 4, 6]
    s.wild[2] = 1
    assert s.win_deficit(2) == 3
    s.wild[0] = 2                                     # more Wilds than needed: floored at 0
    assert s.win_deficit(0) == 0 and s.wins(0)
    assert [position(n=3).win_deficit(p) for p in range(3)] == [6, 6, 6]    # the start


def test_provisional_returns_from_the_win_deficits():
    """Mid-game: shares 2**-deficit normalised to 1, 2q-1 under win_loss, q under win_only."""
    tokens = [[3, 3, 2, 0], [0, 2, 0, 0], [2, 0, 3, 0], [0, 0, 0, 5]]
    s = position(tokens=tokens)                       # deficits 1, 6, 4, 6: weights 32, 1, 4, 1
    assert not s.is_over and s.returns().tolist() == [0.0] * 4
    q = [32 / 38, 1 / 38, 4 / 38, 1 / 38]
    assert s.provisional_returns().tolist() == pytest.approx([2 * x - 1 for x in q])
    assert s.provisional_returns("win_loss").tolist() == pytest.approx(
        [26 / 38, -36 / 38, -30 / 38, -36 / 38])
    assert s.provisional_returns("win_only").tolist() == pytest.approx(q)
    s.wild[2] = 1                                     # deficits 1, 6, 3, 6: 32, 1, 8, 1
    assert s.provisional_returns("win_only").tolist() == pytest.approx(
        [32 / 42, 1 / 42, 8 / 42, 1 / 42])
    s.reward = "win_only"                             # None: the configured reward
    assert s.provisional_returns().tolist() == pytest.approx([32 / 42, 1 / 42, 8 / 42, 1 / 42])
    start = BadlandWolvesState(seed=3, num_players=4)  # every wolf 6 short: a quarter each
    assert start.provisional_returns().tolist() == [-0.5, -0.5, -0.5, -0.5]
    assert BadlandWolvesState(seed=3, num_players=3).provisional_returns("win_only").tolist() \
        == pytest.approx([1 / 3] * 3)
    for bad in ("margin", "", 3, "Win_loss"):
        with pytest.raises(ValueError, match=repr(bad)):
            s.provisional_returns(bad)


def test_provisional_returns_with_hands():
    """kind "hands": the configured reward's scale (here win_loss), each deficit lowered by a quarter token per Scrap card in
    hand. Deficits 1, 6, 4, 6 with hands of 4, 8, 0, 0 cards: 0, 4, 4, 6, weights (halving
    per token) 64, 4, 4, 1 out of 73."""
    tokens = [[3, 3, 2, 0], [0, 2, 0, 0], [2, 0, 3, 0], [0, 0, 0, 5]]
    s = position(hands={0: {SKULL: 4}, 1: {SKULL: 2, ANTLER: 6}}, tokens=tokens)
    assert E.HAND_TOKEN_VALUE == 0.25 and "hands" in s.PROVISIONAL_KINDS
    q = np.array([64, 4, 4, 1]) / 73
    assert s.provisional_returns("hands").tolist() == pytest.approx((2 * q - 1).tolist())
    # without cards it is win_loss
    bare = position(tokens=tokens)
    assert bare.provisional_returns("hands").tolist() == pytest.approx(
        bare.provisional_returns("win_loss").tolist())
    # a game over pays its win_loss returns
    s.apply_action(s.ids.COLLECT + 2 * 4 + 2)      # three Skulls on wolf 2, then its colour 2
    s.apply_action(s.ids.COLOUR + 2)
    assert s.winner == 0
    assert s.provisional_returns("hands").tolist() == [1.0, -1.0, -1.0, -1.0]


def test_provisional_returns_with_hands_follow_the_configured_reward():
    """kind "hands" is on the scale of the configured reward, as the game's own returns are:
    under ``win_only`` the shares ``q`` (each in [0, 1], summing to 1) and a game over pays
    ``returns()`` (0 to the losers). Before, it was ``2q - 1`` under every reward, so ISMCTS
    (whose Badland Wolves default is ``cut=hands``) scored a cut rollout of a trailing wolf
    near -1 but a game that wolf lost 0: under ``win_only`` the search preferred losing."""
    tokens = [[3, 3, 2, 0], [0, 2, 0, 0], [2, 0, 3, 0], [0, 0, 0, 5]]
    s = position(hands={0: {SKULL: 4}, 1: {SKULL: 2, ANTLER: 6}}, tokens=tokens)
    s.reward = "win_only"
    q = np.array([64, 4, 4, 1]) / 73
    assert s.provisional_returns("hands").tolist() == pytest.approx(q.tolist())
    s.apply_action(s.ids.COLLECT + 2 * 4 + 2)      # three Skulls on wolf 2, then its colour 2
    s.apply_action(s.ids.COLOUR + 2)
    assert s.winner == 0
    assert s.provisional_returns("hands").tolist() == [1.0, 0.0, 0.0, 0.0]
    assert s.provisional_returns("hands").tolist() == s.returns().tolist()
    start = BadlandWolvesState(seed=3, num_players=5, reward="win_only")   # two cards each
    assert start.provisional_returns("hands").tolist() == pytest.approx([0.2] * 5)


def test_provisional_returns_equal_returns_once_over():
    tokens = [[3, 3, 2, 0], [0, 2, 0, 0], [2, 0, 3, 0], [0, 0, 0, 5]]
    s = position(hands={0: {SKULL: 3}}, tokens=tokens)
    do(s, s.ids.COLLECT + 2 * 4 + 2)
    do(s, s.ids.COLOUR + 2)
    assert s.winner == 0
    assert s.provisional_returns().tolist() == [1.0, -1.0, -1.0, -1.0] == s.returns().tolist()
    assert s.provisional_returns("win_only").tolist() == [1.0, 0.0, 0.0, 0.0]
    rng = np.random.default_rng(2)
    ends = set()
    for seed, n, max_turns in [(1, 4, 300), (2, 3, 300), (3, 5, 300), (4, 4, 3), (5, 3, 300)]:
        for reward in E.REWARDS:
            g = BadlandWolvesState(seed=seed, num_players=n, max_turns=max_turns, reward=reward)
            while not g.is_over:
                g.apply_action(int(rng.choice(g.legal_actions())))
            assert g.provisional_returns().tolist() == g.returns().tolist()
            ends.add(g.is_terminal)
    assert ends == {True, False}                      # both a won and a truncated game checked


def test_provisional_returns_read_only_public_facts():
    """The same on the real game and on worlds resampled for any seat (tokens and Wilds are
    public, ruling 12)."""
    g = BadlandWolvesState(seed=11, num_players=4)
    rng = np.random.default_rng(5)
    while g.turns < 10 or len(set(g.provisional_returns().tolist())) == 1:
        g.apply_action(int(rng.choice(g.legal_actions())))
    assert not g.is_over
    real = g.provisional_returns().tolist()
    for _ in range(3):
        world = g.resample_from_infostate(g.current_player, rng)
        assert world.provisional_returns().tolist() == real


def test_wild_loyalty_completes_a_win():
    tokens = [[3, 3, 2, 0], [0, 2, 0, 0], [2, 0, 3, 0], [0, 0, 0, 5]]
    s = position(hands={0: {TC: 2, BONE: 1, FRENZY: 1}}, tokens=tokens, hunt_top=JACKALOPE)
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0)
    for _ in range(3):
        do(s, I.DECLINE)                      # nobody joins
    assert s.phase == E.JACK
    do(s, I.ACCEPT)
    do(s, I.DISCARD + TC); do(s, I.DISCARD + TC)
    assert not s.is_terminal
    do(s, I.DISCARD + BONE)
    assert s.wild[0] == 1 and s.is_terminal and s.winner == 0
    assert s.hands[0].tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 0]


def test_wild_does_not_give_allegiance_benefits():
    # 2 colour-1 tokens + a Wild: counts for the win check only, not against attacks
    tokens = [[5, 2, 0, 0], [0, 3, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(lead=1, hands={1: {TC: 1}}, tokens=tokens)
    s.wild[0] = 1
    s.hunt_deck.remove(JACKALOPE)
    s._mask = None
    assert s.legal_action_mask()[s.ids.ATTACK_TC + 0]


def test_jackalope_redraw_reshuffles_it_into_the_hunt_deck():
    s = position(hands={0: {TC: 1}}, hunt_top=JACKALOPE, scrap_top=(BONE, SKULL))
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0)
    for _ in range(3):
        do(s, I.DECLINE)
    # fewer than three cards: it cannot be kept; two Scraps drawn, Jackalope back in the deck
    assert s.hands[0].tolist() == [1, 0, 0, 0, 0, 0, 1, 1, 0]
    assert s.hunt_deck.count(JACKALOPE) == 2 and len(s.hunt_deck) == 55
    assert s.hunt_discard.sum() == 0 and s.lead == 1


def test_rabbit_and_cougar_extra_turn():
    s = position(hunt_top=COUGAR, scrap_top=(FRENZY,))
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0)
    for _ in range(3):
        do(s, I.DECLINE)
    assert s.hands[0, FRENZY] == 1 and s.lead == 0 and s.phase == E.TURN and s.turns == 1
    s.hunt_deck.remove(RABBIT); s.hunt_deck.append(RABBIT)
    do(s, I.HUNT); do(s, I.COLOUR + 0)
    for _ in range(3):
        do(s, I.DECLINE)
    assert s.hands[0].sum() == 2 and s.lead == 1 and s.turns == 2


def test_rattlesnake_and_porcupine_each_hunter_chooses():
    s = position(hands={0: {TC: 1, BONE: 1}, 1: {SKULL: 1, FRENZY: 1}, 2: {}},
                 hunt_top=PORCUPINE)
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.COLOUR + 2)
    do(s, I.DECLINE)
    assert s.phase == E.DISCARD and s.current_player == 0
    do(s, I.DISCARD + BONE)
    assert s.current_player == 1             # wolf 1 decides its own discard
    assert set(np.flatnonzero(s.legal_action_mask())) == {I.DISCARD + SKULL, I.DISCARD + FRENZY}
    do(s, I.DISCARD + SKULL)
    # wolf 2 has no cards: nothing to discard; turn over
    assert s.lead == 1 and s.hands[:3].sum(axis=1).tolist() == [1, 1, 0]
    s.hunt_deck.remove(RATTLESNAKE); s.hunt_deck.append(RATTLESNAKE)
    do(s, I.HUNT); do(s, I.COLOUR + 1); do(s, I.COLOUR + 2); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.phase == E.DISCARD and s.current_player == 1 and s.discard_queue == [1]
    do(s, I.DISCARD + FRENZY)
    assert s.hands[1].sum() == 0 and s.lead == 2


def test_weasel_and_grizzly():
    s = position(hands={0: {TC: 1}, 1: {BONE: 1}, 2: {SKULL: 2, TC: 1}}, hunt_top=WEASEL)
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.DECLINE); do(s, I.DECLINE)
    assert set(np.flatnonzero(s.legal_action_mask())) == {I.TARGET + 1}
    do(s, I.TARGET + 1)
    assert s.hands[0].tolist() == [1, 0, 0, 0, 0, 0, 1, 0, 0] and s.hands[1].sum() == 0
    assert s.known[1, 0, BONE] == 1            # the victim knows what the Lead Wolf took
    s.hunt_deck.remove(GRIZZLY); s.hunt_deck.append(GRIZZLY)
    do(s, I.HUNT); do(s, I.COLOUR + 1); do(s, I.COLOUR + 2); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.phase == E.GRIZZLY_T and s.current_player == 1
    do(s, I.TARGET + 2)
    assert s.hands[2].sum() == 0 and s.scrap_discard[SKULL] == 2
    # hunting alone: the Lead Wolf discards its own hand
    s.hunt_deck.remove(GRIZZLY); s.hunt_deck.append(GRIZZLY)
    card = s.scrap_deck.pop()
    s.hands[2, card] += 1
    s._mask = None
    before = s.scrap_discard[card]
    do(s, I.HUNT)
    assert s.current_player == 2 and s.phase == E.RISK
    do(s, I.COLOUR + 2); do(s, I.DECLINE); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.lead == 3 and s.prev_hunt == GRIZZLY
    assert s.hands[2].sum() == 0 and s.scrap_discard[card] == before + 1


def test_crow_swap_and_fox_take():
    tokens = [[5, 0, 0, 0], [0, 5, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(tokens=tokens, hunt_top=CROW)
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.COLOUR + 1); do(s, I.COLOUR + 2)
    do(s, I.DECLINE)
    assert s.phase == E.CROW1
    do(s, I.TARGET + 1)
    assert not s.legal_action_mask()[I.TARGET + 1] and not s.legal_action_mask()[I.DECLINE]
    do(s, I.TARGET + 2)
    assert s.tokens[1].tolist() == [0, 4, 1, 0] and s.tokens[2].tolist() == [0, 1, 4, 0]
    s.hunt_deck.remove(FOX); s.hunt_deck.append(FOX)
    do(s, I.HUNT); do(s, I.COLOUR + 2); do(s, I.DECLINE); do(s, I.DECLINE); do(s, I.COLOUR + 0)
    assert s.phase == E.FOX_T and s.current_player == 1
    do(s, I.TARGET + 0)
    assert s.tokens[1].tolist() == [1, 4, 1, 0] and s.tokens[0, 0] == 4


def test_feather_retrieves_all_own_colour_loyalties():
    tokens = [[2, 0, 0, 0], [2, 5, 0, 0], [1, 0, 5, 0], [0, 0, 0, 5]]
    s = position(hands={0: {FEATHER: 3}}, tokens=tokens)
    do(s, s.ids.FEATHER)
    assert s.tokens[:, 0].tolist() == [5, 0, 0, 0] and s.scrap_discard[FEATHER] == 3


def test_failed_defence_with_no_tokens_takes_nothing_and_no_defence_is_automatic():
    tokens = [[5, 5, 0, 0], [0, 0, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(hands={0: {TC: 1}, 1: {BONE: 1}}, tokens=tokens)
    do(s, s.ids.ATTACK_TC + 1)
    # the defender is asked even without a defence: only "no defence" is legal
    assert s.phase == E.DEFEND and s.legal_actions() == [s.ids.DECLINE]
    do(s, s.ids.DECLINE)
    assert s.lead == 1 and s.tokens.tolist() == tokens


def test_lead_without_tokens_hunts_without_risk_and_cannot_join():
    tokens = [[0, 0, 0, 0], [5, 5, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(tokens=tokens, hunt_top=RABBIT)
    I = ids(s)
    do(s, I.HUNT)
    assert s.phase == E.JOIN and s.current_player == 1
    do(s, I.DECLINE); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.lead == 1
    s.hunt_deck.remove(RABBIT); s.hunt_deck.append(RABBIT)
    do(s, I.HUNT); do(s, I.COLOUR + 0)
    assert s.current_player == 2                # wolf 0 holds no token: not asked to join


def test_scrap_deck_reshuffles_discards_and_runs_dry():
    s = position(hands={0: {TC: 20, FRENZY: 5, RAVENOUS: 4, CROWS_ALLY: 4, THORN: 4,
                            ANTLER: 6, BONE: 6, SKULL: 6, FEATHER: 4}}, scrap_top=())
    assert len(s.scrap_deck) == 1
    s.hands[0, BONE] -= 1
    s.scrap_discard[BONE] += 1
    got = s._draw_scrap(3)
    assert sorted(got) == sorted([FEATHER, BONE]) and s.scrap_discard.sum() == 0
    assert s._draw_scrap(1) == []


def test_hunt_deck_reshuffles_discards():
    s = position()
    s.hunt_discard += np.bincount(s.hunt_deck, minlength=12)
    s.hunt_deck = []
    s.hunt_discard[RABBIT] -= 1
    s.hunt_deck = [RABBIT]
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0)
    for _ in range(3):
        do(s, I.DECLINE)
    assert len(s.hunt_deck) == 0 and s.hunt_discard.sum() == 55
    do(s, I.HUNT); do(s, I.COLOUR + 1)
    for _ in range(3):
        do(s, I.DECLINE)
    assert s.card_totals()[1] == 55 and len(s.hunt_deck) + s.hunt_discard.sum() >= 53


def test_max_turns_truncates_without_winner():
    s = BadlandWolvesState(seed=5, num_players=3, max_turns=4)
    rng = np.random.default_rng(0)
    while not s.is_over:
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert s.is_truncated and not s.is_terminal and s.turns == 4
    assert s.returns().tolist() == [0.0, 0.0, 0.0] and s.current_player is None


def test_illegal_actions_raise_with_reason():
    s = position(hands={0: {TC: 1}})
    I = ids(s)
    with pytest.raises(IllegalActionError, match="no such card"):
        s.apply_action(I.ATTACK_FR + 1)
    with pytest.raises(IllegalActionError, match="cannot attack itself"):
        s.apply_action(I.ATTACK_TC + 0)
    with pytest.raises(IllegalActionError, match="out of range"):
        s.apply_action(I.size)
    with pytest.raises(IllegalActionError, match="decision is"):
        s.apply_action(I.DECLINE)
    do(s, I.ATTACK_TC + 1)     # wolf 1 has no card: asked, only "no defence" is legal
    assert s.legal_actions() == [I.DECLINE]
    do(s, I.DECLINE)
    assert s.lead == 1 and s.tokens[0].tolist() == [5, 1, 0, 0]


def test_observation_fields_decode_the_state():
    tokens = [[3, 2, 0, 0], [2, 3, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    s = position(hands={0: {TC: 4, FEATHER: 1}, 1: {BONE: 2}, 2: {SKULL: 1}}, tokens=tokens)
    s.wild[3] = 1
    s.hunt_deck.remove(JACKALOPE)
    s.known[0, 1, BONE] = 1
    s.known[1, 0, TC] = 2
    s.scrap_discard[FRENZY] = 1
    s.scrap_deck.remove(FRENZY)
    s.played_now[2, FRENZY] = 1
    L = s.layout
    o = s.observation_tensor(0)
    v = lambda name: L.view(o, name)  # noqa: E731
    assert v("seat").tolist() == [1, 0, 0, 0] and v("lead").tolist() == [1, 0, 0, 0]
    assert v("phase")[E.TURN] == 1 and v("phase").sum() == 1
    assert np.allclose(v("hand") * np.array(SCRAP_COUNTS), [4, 0, 0, 0, 0, 0, 0, 0, 1])
    assert np.allclose(v("tokens") * 5, tokens)
    assert v("allegiance").tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert np.allclose(v("wild"), [0, 0, 0, 0.5])
    assert np.allclose(v("hand_sizes") * 60, [5, 2, 1, 0])
    assert np.allclose(v("deck_sizes"), [len(s.scrap_deck) / 60, 54 / 55])
    assert np.isclose(v("scrap_discard")[FRENZY], 1 / 5) and v("scrap_discard").sum() == 0.2
    assert np.isclose(v("played_now")[2, FRENZY], 1 / 5) and v("played_prev").sum() == 0
    kn = v("known") * np.array(SCRAP_COUNTS)
    assert np.allclose(kn[1], [0, 0, 0, 0, 0, 0, 1, 0, 0]) and kn[[0, 2, 3]].sum() == 0
    o1 = s.observation_tensor(1)
    assert np.allclose(L.view(o1, "known")[0] * np.array(SCRAP_COUNTS), [2, 0, 0, 0, 0, 0, 0, 0, 0])
    assert np.allclose(L.view(o1, "hand") * np.array(SCRAP_COUNTS), [0, 0, 0, 0, 0, 0, 2, 0, 0])
    s.tokens[0, 1], s.tokens[1, 1] = 3, 2
    assert s.layout.view(s.observation_tensor(2), "allegiance")[0].tolist() == [0, 1, 0, 0]


def test_mask_is_read_only_so_callers_cannot_change_what_is_legal():
    s = position(hands={0: {TC: 1}})
    I = ids(s)
    m = s.legal_action_mask()
    assert m[I.FEATHER] == 0 and m[I.ATTACK_TC + 1] == 1
    with pytest.raises(ValueError):
        m[:] = 1
    with pytest.raises(IllegalActionError, match="illegal"):
        s.apply_action(I.FEATHER)
    assert s.legal_action_mask()[I.FEATHER] == 0
    c = s.legal_action_mask().copy()       # a copy is the caller's to edit
    c[:] = 1
    assert s.legal_actions() == [I.HUNT, I.ATTACK_TC + 1, I.ATTACK_TC + 2, I.ATTACK_TC + 3]


def test_prev_hunt_is_cleared_after_a_scrap_turn():
    s = position(n=3, hands={1: {TC: 1}}, hunt_top=RABBIT, scrap_top=(BONE,))
    I = ids(s)
    F = s.layout["prev_hunt"]
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.lead == 1 and s.prev_hunt == RABBIT and s.hands[0, BONE] == 1
    assert s.observation_tensor(2)[F.slice].tolist() == [0, 0, 0, 1] + [0] * 8
    do(s, I.ATTACK_TC + 2)          # a Scrap turn; wolf 2 holds nothing: no defence
    assert s.legal_actions() == [I.DECLINE]
    do(s, I.DECLINE)
    assert s.lead == 2 and s.played_prev[1, TC] == 1
    assert s.prev_hunt == -1 and not s.observation_tensor(0)[F.slice].any()


def test_prev_hunt_after_a_cougar_extra_turn_is_the_cougar():
    s = position(n=3, hunt_top=COUGAR, scrap_top=(BONE,))
    I = ids(s)
    do(s, I.HUNT); do(s, I.COLOUR + 0); do(s, I.DECLINE); do(s, I.DECLINE)
    assert s.lead == 0 and s.prev_hunt == COUGAR
