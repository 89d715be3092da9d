"""Deduction toolkit: metrics on hand-computed values, consistent posteriors against exact ones,
the policy tracker against exact Bayes, the dataset generator's schema and reproducibility."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from agents.belief import (
    ADAPTERS, ConsistentTracker, PolicyTracker, RandomPolicy, UniformTracker, adapter_for,
    new_game, sample_action,
)
from training.belief_metrics import (
    at_checkpoints, belief_scores, binned, mean_ci, progress, row_scores,
)


# ----------------------------------------------------------------------------------- metrics
def test_row_scores_categorical_hand_computed():
    s = row_scores([[0.5, 0.25, 0.25, 0.0]], [[1, 0, 0, 0]])[0]
    assert s[0] == pytest.approx(math.log(2))
    assert s[1] == pytest.approx(0.25 + 0.0625 + 0.0625)
    assert s[2] == 1.0
    # two categories tie for the maximum, the truth is one of them: expected accuracy 1/2
    s = row_scores([[0.4, 0.4, 0.2]], [[0, 1, 0]])[0]
    assert s[0] == pytest.approx(-math.log(0.4))
    assert s[1] == pytest.approx(0.16 + 0.36 + 0.04)
    assert s[2] == 0.5
    # a confident miss is floored at log(1e6)
    s = row_scores([[1.0, 0.0]], [[0, 1]])[0]
    assert s[0] == pytest.approx(math.log(1e6))
    assert s[1] == pytest.approx(2.0)
    assert s[2] == 0.0


def test_row_scores_counts_hand_computed():
    # expected counts (2, 1, 1) -> composition (.5, .25, .25); true hand (1, 1, 0) -> (.5, .5, 0)
    s = row_scores([[2.0, 1.0, 1.0]], [[1, 1, 0]], kind="counts")[0]
    assert s[0] == pytest.approx(-(0.5 * math.log(0.5) + 0.5 * math.log(0.25)))
    assert s[1] == pytest.approx(0.0 + 0.0625 + 0.0625)
    assert s[2] == 1.0          # type 0 is one of the hand's most common types
    assert np.isnan(row_scores([[1.0, 1.0]], [[0, 0]], kind="counts")[0]).all()   # empty hand


def test_belief_scores_skip_observer_and_undefined_rows():
    belief = np.array([[1.0, 0.0], [0.5, 0.5], [0.9, 0.1], [0.5, 0.5]])
    truth = np.array([[1, 0], [1, 0], [1, 0], [0, 0]], dtype=float)
    s = belief_scores(belief, truth, seat=0)
    assert s[0] == pytest.approx((math.log(2) - math.log(0.9)) / 2)
    assert s[1] == pytest.approx((0.5 + 0.02) / 2)
    assert s[2] == pytest.approx((0.5 + 1.0) / 2)


def test_metric_errors_are_clear():
    with pytest.raises(ValueError, match="shape"):
        row_scores([[0.5, 0.5]], [[1, 0, 0]])
    with pytest.raises(ValueError, match="kind"):
        row_scores([[0.5, 0.5]], [[1, 0]], kind="other")
    with pytest.raises(ValueError, match="at least one decision"):
        progress(0)
    # a NaN row was scored as the uniform row (NLL log 4), an infinite one raised
    # ZeroDivisionError, an all-zero row was scored as uniform too
    with pytest.raises(ValueError, match=r"belief row\(s\) \[1\] have non-finite entries"):
        row_scores([[1, 0, 0, 0], [np.nan, 0.5, 0, 0]], [[1, 0, 0, 0], [1, 0, 0, 0]])
    with pytest.raises(ValueError, match="non-finite"):
        row_scores([[np.inf, 0, 0, 0]], [[1, 0, 0, 0]])
    with pytest.raises(ValueError, match="belief row 0 has no mass"):
        row_scores([[0.0, 0.0, 0.0]], [[1, 1, 0]], kind="counts")
    # a zero row is fine where the truth is undefined (not scored)
    assert np.isnan(row_scores([[0.0, 0.0]], [[0, 0]])).all()
    with pytest.raises(ValueError, match="at least one decision, got 0"):
        at_checkpoints(np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"in \[0, 1\], got \[1.5\]"):
        at_checkpoints(np.zeros((4, 3)), points=(0.5, 1.5))


def test_game_time_bins_checkpoints_and_intervals():
    v = np.arange(11, dtype=float)           # 11 decisions: progress t / 10
    np.testing.assert_allclose(progress(11), np.arange(11) / 10)
    b = binned(v)
    np.testing.assert_allclose(b[:9], np.arange(9))
    assert b[9] == pytest.approx(9.5)         # decisions 9 and 10 share the last bin
    np.testing.assert_allclose(at_checkpoints(np.arange(5.0)), [1, 2, 3, 4])
    assert np.isnan(binned(np.arange(3.0))[1])   # a 3-decision game leaves bins empty
    mean, half = mean_ci(np.array([1.0, 2.0, 3.0]))
    assert mean == pytest.approx(2.0)
    assert half == pytest.approx(4.302653 / math.sqrt(3))     # Student t(0.975, 2 df)
    mean, half = mean_ci(np.array([[1.0, np.nan], [3.0, 5.0]]))
    np.testing.assert_allclose(mean, [2.0, 5.0])
    assert half[0] == pytest.approx(12.706205)   # t(0.975, 1 df) * sd sqrt(2) / sqrt(2 samples)
    assert np.isnan(half[1])
    _, half = mean_ci(np.tile([0.0, 1.0], 40))                      # 80 samples: t = 1.9905
    assert half == pytest.approx(1.990450 * np.std(np.tile([0.0, 1.0], 40), ddof=1) / math.sqrt(80))


# ------------------------------------------------------------------------- consistent posterior
def _play(state, n_actions, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n_actions):
        if state.is_over:
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def _apply_tracked(state, tracker, action):
    """Play ``action`` in ``state`` and show it to ``tracker`` (actor taken before the move)."""
    actor = state.current_player
    state.apply_action(action)
    tracker.update(state, action, actor)


def test_prowl_two_player_after_setup_matches_hand_count():
    """2-player Prowl, 2 cards each, after set-up: the opponent's clan card is one of the 29
    cards seat 0 has not seen (its 2 cards and the public pile's first card are seen), so
    P(clan c) = (8 - seen cards of clan c) / 29 (each clan has 8 cards)."""
    for seed in range(3):
        st = _play(new_game("prowl", seed, num_players=2, cards_per_player=2), 2, seed)
        ad = adapter_for("prowl")
        mine = np.zeros(4)
        for t in np.flatnonzero(st.hand[0]):
            mine[st.type_clan[t]] += st.hand[0, t]
        mine[st.clan_of(0)] += 1
        for t in np.flatnonzero(st.pile):
            mine[st.type_clan[t]] += st.pile[t]
        assert mine.sum() == 3
        exact = (8 - mine) / 29
        b = ad.exact_consistent(st, 0)
        np.testing.assert_allclose(b[1], exact, atol=1e-12)
        tr = ConsistentTracker("prowl", samples=4000, exact=False, seed=seed)
        tr.reset(st, 0)
        est = tr.belief()[1]
        assert 0.5 * np.abs(est - exact).sum() < 0.02
        assert np.all(np.abs(est - exact) <= 4 * tr.stderr[1] + 1e-9)


def test_prowl_exact_consistent_agrees_with_resampler_mid_game():
    """4-player Prowl positions after random play (exclusions from failed Accusations,
    peeks, swaps): the enumerated clan posterior agrees with resample_from_infostate draws."""
    checked = 0
    for seed in range(4):
        st = _play(new_game("prowl", seed, num_players=4), 30 + 5 * seed, seed)
        if st.is_over:
            continue
        ad = adapter_for("prowl")
        for seat in range(4):
            b = ad.exact_consistent(st, seat)
            np.testing.assert_allclose(b.sum(axis=1), 1.0)
            tr = ConsistentTracker("prowl", samples=800, exact=False, seed=seed)
            tr.reset(st, seat)
            est = tr.belief()
            others = [q for q in range(4) if q != seat]
            assert np.all(np.abs(est[others] - b[others]) <= 4.5 * tr.stderr[others] + 0.01)
            checked += 1
    assert checked >= 8


def test_clans_consistent_is_uniform_over_other_colours():
    st = _play(new_game("clans", 3, num_players=2), 6, 3)
    tr = ConsistentTracker("clans", samples=4000, exact=False, seed=1)
    tr.reset(st, 0)
    est = tr.belief()
    exact = adapter_for("clans").exact_consistent(st, 0)
    own = int(np.argmax(adapter_for("clans").truth(st)[0]))
    expected = np.full(5, 0.25)
    expected[own] = 0.0
    np.testing.assert_allclose(exact[1], expected)
    assert 0.5 * np.abs(est[1] - expected).sum() < 0.02


def test_badland_wolves_consistent_belief_respects_what_the_seat_knows():
    """No closed form (the tracker samples the resampler): each row sums to the wolf's hand
    size, holds at least the cards the observer knows in that hand, and the observer's own row
    is its hand."""
    checked = 0
    for seed in range(3):
        st = _play(new_game("badland_wolves", seed, num_players=4), 40 * (seed + 1), seed)
        if st.is_over:
            continue
        ad = adapter_for("badland_wolves")
        assert ad.exact_consistent(st, 0) is None
        tr = ConsistentTracker("badland_wolves", samples=300, exact=False, seed=seed)
        tr.reset(st, 0)
        est = tr.belief()
        np.testing.assert_allclose(est.sum(axis=1), ad.row_totals(st))
        np.testing.assert_array_equal(est[0], st.hands[0])
        for q in range(1, 4):
            assert np.all(est[q] >= st.known[0, q] - 1e-9)
        checked += 1
    assert checked >= 2


def test_uniform_prior_rows():
    st = new_game("prowl", 0, num_players=4)
    tr = UniformTracker("prowl")
    tr.reset(st, 2)
    np.testing.assert_allclose(tr.belief()[[0, 1, 3]], 0.25)
    st = new_game("badland_wolves", 0, num_players=4)
    tr = UniformTracker("badland_wolves")
    tr.reset(st, 0)
    b = tr.belief()
    np.testing.assert_allclose(b.sum(axis=1), ADAPTERS["badland_wolves"].row_totals(st))


def test_uniform_counts_row_of_a_hand_empty_at_set_up():
    """Clandestine, 2 players, random play (engine seed 11): seat 0 holds no Relic at set-up and
    its first at decision 57; the uniform row is then the suit composition (a quarter of each
    suit) times its one card, not the zero row rescaled from set-up."""
    st = new_game("clandestine", 11, num_players=2)
    ad = adapter_for("clandestine")
    assert ad.row_totals(st).tolist() == [0.0, 1.0]
    tr = UniformTracker("clandestine")
    tr.reset(st, 1)
    rng = np.random.default_rng(11)
    for _ in range(58):
        _apply_tracked(st, tr, int(rng.choice(st.legal_actions())))
    assert ad.row_totals(st).tolist() == [1.0, 3.0]
    b = tr.belief()
    np.testing.assert_allclose(b[0], [0.25] * 4)
    np.testing.assert_array_equal(b[1], ad.truth(st)[1])


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_tracker_copied_mid_game_continues_like_the_original(how):
    """3-player Prowl, the consistent tracker sampling worlds (4 per belief) and the policy
    tracker (4 particles, random model), copied after 6 random actions: the copy, asked first at
    each of the next 10 actions, gives the original's beliefs (a shallow ``copy.copy`` shared the
    generator: the original's first belief then differed by 0.25)."""
    import copy
    import pickle

    copier = {"copy": copy.copy, "deepcopy": copy.deepcopy,
              "pickle": lambda t: pickle.loads(pickle.dumps(t))}[how]
    for make in (lambda: ConsistentTracker("prowl", samples=4, exact=False, seed=5),
                 lambda: PolicyTracker("prowl", RandomPolicy(), particles=4, seed=5)):
        st = new_game("prowl", 11, num_players=3)
        tr = make()
        tr.reset(st, 1)
        rng = np.random.default_rng(11)
        for _ in range(6):
            _apply_tracked(st, tr, int(rng.choice(st.legal_actions())))
        tr.belief()
        twin = copier(tr)
        for _ in range(10):
            a, actor = int(rng.choice(st.legal_actions())), st.current_player
            st.apply_action(a)
            twin.update(st, a, actor)
            b_twin = twin.belief()
            tr.update(st, a, actor)
            np.testing.assert_array_equal(tr.belief(), b_twin)


def test_tracker_counts_must_be_integers():
    """Particles, samples and refresh intervals that are not integers were truncated (2.5
    particles ran 2, ``True`` ran 1): now refused with the name and value."""
    from agents.belief import EpsilonAgentPolicy

    for make, message in (
            (lambda: PolicyTracker("prowl", RandomPolicy(), particles=2.5),
             "particles must be an integer of at least 1, got 2.5"),
            (lambda: PolicyTracker("prowl", RandomPolicy(), particles=True),
             "particles must be an integer of at least 1, got True"),
            (lambda: PolicyTracker("prowl", RandomPolicy(), particles=0),
             "particles must be an integer of at least 1, got 0"),
            (lambda: ConsistentTracker("prowl", samples=3.7),
             "samples must be an integer of at least 2, got 3.7"),
            (lambda: ConsistentTracker("prowl", samples=1),
             "samples must be an integer of at least 2, got 1"),
            (lambda: ConsistentTracker("prowl", refresh=2.0),
             "refresh must be an integer of at least 1, got 2.0"),
            (lambda: EpsilonAgentPolicy(None, samples=1.5),
             "samples must be an integer of at least 1, got 1.5"),
            (lambda: PolicyTracker("prowl", RandomPolicy(), move_steps=-1),
             "move_steps must be an integer of at least 0, got -1"),
            (lambda: PolicyTracker("prowl", RandomPolicy(), move_steps=True),
             "move_steps must be an integer of at least 0, got True"),
            (lambda: PolicyTracker("prowl", RandomPolicy(), move_steps=1.5),
             "move_steps must be an integer of at least 0, got 1.5")):
        with pytest.raises(ValueError) as exc:
            make()
        assert str(exc.value) == message
    assert PolicyTracker("prowl", RandomPolicy(), particles=np.int64(3)).M == 3
    assert PolicyTracker("prowl", RandomPolicy(), move_steps=np.int64(2)).move_steps == 2


@pytest.mark.parametrize("game,steps", [("prowl", 30), ("clans", 30), ("badland_wolves", 30),
                                        ("badland_wolves", 60)])
def test_trackers_read_nothing_the_seat_cannot_see(game, steps):
    """3 players, ``steps`` random actions, seat 1: the game's record and the record of a world
    resampled from seat 1's information set are replayed step by step to two trackers with the
    same seed (sampled consistent, 4 worlds; policy, 4 particles, random model): they give the
    same belief at every step, though the worlds' hidden roles differ."""
    st = new_game(game, 3, num_players=3)
    rng = np.random.default_rng(3)
    for _ in range(steps):
        if st.is_over:
            break
        st.apply_action(int(rng.choice(st.legal_actions())))
    world = st.resample_from_infostate(1, np.random.default_rng(100))
    assert world.hidden_truth() != st.hidden_truth()
    cls = type(st)
    runs = []
    for g in (st, world):
        rec = g.to_record()
        runs.append(([s.clone() for s in cls.replay_steps(rec)], rec["actions"]))
    for make in (lambda: ConsistentTracker(game, samples=4, exact=False, seed=7),
                 lambda: PolicyTracker(game, RandomPolicy(), particles=4, seed=7)):
        trs = [make(), make()]
        for tr, (states, _) in zip(trs, runs):
            tr.reset(states[0], 1)
        for i in range(len(runs[0][0])):
            if i:
                for tr, (states, actions) in zip(trs, runs):
                    tr.update(states[i], actions[i - 1], states[i - 1].current_player)
            np.testing.assert_array_equal(trs[0].belief(), trs[1].belief())


def test_make_tracker_gives_the_policy_mix_to_every_policy_tracker():
    """``--policy-mix`` was silently dropped for ``policy-exact`` and ``policy-random``. With
    mix 0.2 the Clans ``policy-exact`` belief after the heuristic opponent's first move (0.998
    on black without the mixture) is 0.8 times the plain one plus 0.2 times the consistent
    posterior (uniform over the four other colours)."""
    from agents import make_agent
    from agents.belief import make_tracker

    st = new_game("clans", 4, num_players=2)
    cfg = st.config
    assert make_tracker("policy-random", "clans", cfg, policy_mix=0.2).mix == 0.2
    plain = make_tracker("policy-exact", "clans", cfg, seed=1)
    mixed = make_tracker("policy-exact", "clans", cfg, seed=1, policy_mix=0.2)
    for tr in (plain, mixed):
        tr.reset(st, 0)
    ags = [make_agent("heuristic", "clans", cfg, seed=s) for s in range(2)]
    for _ in range(2):
        actor = st.current_player
        a = int(ags[actor].act({"observation": st.observation_tensor(actor),
                                "action_mask": st.legal_action_mask()}, f"player_{actor}"))
        st.apply_action(a)
        plain.update(st, a, actor)
        mixed.update(st, a, actor)
    b0 = plain.belief()
    c = adapter_for("clans").exact_consistent(st, 0)
    assert not np.allclose(b0[1], c[1])
    np.testing.assert_allclose(mixed.belief()[1], 0.8 * b0[1] + 0.2 * c[1])


def test_tracker_refuses_bad_seat_and_game():
    # belief or update before reset: one clear error (belief failed on a missing attribute)
    from agents.belief import ExactPolicyTracker

    for tr in (UniformTracker("prowl"), ConsistentTracker("prowl"),
               PolicyTracker("prowl", RandomPolicy()), ExactPolicyTracker("clans", RandomPolicy())):
        with pytest.raises(RuntimeError, match=r"call reset\(state0, seat\) before belief"):
            tr.belief()
        with pytest.raises(RuntimeError, match=r"call reset\(state0, seat\) before update"):
            tr.update(new_game("prowl", 0), 0, 0)
    st = new_game("clans", 0, num_players=2)
    tr = ConsistentTracker("clans")
    tr.reset(st, 0)
    with pytest.raises(ValueError, match="follows a 2-player clans game, got a 4-player prowl"):
        tr.update(new_game("prowl", 0, num_players=4), 0, 0)
    with pytest.raises(ValueError, match="follows a 2-player clans game, got a 3-player clans"):
        tr.update(new_game("clans", 0, num_players=3), 0, 0)
    with pytest.raises(ValueError, match=r"seat must be an integer in 0..1, got 2"):
        tr.update(st, 0, 2)
    with pytest.raises(ValueError, match="seat"):
        ConsistentTracker("clans").reset(st, 5)
    with pytest.raises(ValueError, match="tracker is for"):
        ConsistentTracker("prowl").reset(st, 0)
    with pytest.raises(ValueError, match="no belief adapter"):
        adapter_for("chess")


# ------------------------------------------------------------------ policy tracker vs exact Bayes
class ColourSeekingPolicy:
    """A known stochastic Clans policy that depends on the hidden colour: a move's logit is
    ``beta`` times the share of the mover's own colour among the huts of its destination."""

    def __init__(self, num_players: int, beta: float = 0.5) -> None:
        from envs.clans import board as B
        from envs.clans.engine import observation_layout

        self.lay = observation_layout(num_players)
        self.dst = np.asarray(B.EDGE_DST)
        self.nm = len(self.dst)
        self.beta = beta

    def reset(self) -> None:
        pass

    def probs(self, obs, mask, seat):
        own = int(np.argmax(self.lay.view(obs, "own_colour")))
        huts = self.lay.view(obs, "huts")
        legal = np.flatnonzero(mask)
        z = np.zeros(legal.size)
        mv = legal < self.nm
        d = self.dst[legal[mv]]
        tot = huts[d].sum(axis=1)
        z[mv] = self.beta * huts[d, own] / np.maximum(tot, 1e-9)
        p = np.zeros(mask.shape[0])
        e = np.exp(z - z.max())
        p[legal] = e / e.sum()
        return p


def _exact_clans_posterior(state, seat, model):
    """Exact Bayes over the opponent's colour (2 players): for each colour a world with a
    replayable history (from the resampler), weighted by the model's probability of every
    action the opponent took in it."""
    cls = type(state)
    worlds = {}
    rng = np.random.default_rng(123)
    while len(worlds) < 4:
        w = state.resample_from_infostate(seat, rng)
        worlds.setdefault(int(w.colours[1 - seat]), w)
    post = np.full(5, -np.inf)       # log posterior; the observer's own colour stays impossible
    for c, w in worlds.items():
        rec = w.to_record()
        ll = 0.0
        prev = None
        for i, st in enumerate(cls.replay_steps(rec)):
            if i > 0 and prev.current_player != seat:
                p = model.probs(prev.observation_tensor(prev.current_player),
                                prev.legal_action_mask(), prev.current_player)
                ll += math.log(p[rec["actions"][i - 1]])
            prev = st.clone()
        post[c] = ll
    post = np.exp(post - post.max())
    return post / post.sum()


@pytest.mark.parametrize("move_steps", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_policy_tracker_matches_exact_bayes_on_two_player_clans(move_steps):
    """Particles 3000: total variation to the exact posterior below 0.02 after 4, 8 and 14
    moves, while the exact posterior moves away from uniform (0.58 on one colour at 14); with
    the resample-move step too (its proposals accepted and rejected), rejuvenating below an
    effective sample size of 90% (at 30% this game never rejuvenates)."""
    st = new_game("clans", 11, num_players=2)
    model = ColourSeekingPolicy(2)
    tr = PolicyTracker("clans", model, particles=3000, seed=5, move_steps=move_steps,
                       ess_fraction=0.9 if move_steps else 0.3)
    tr.reset(st, 0)
    rng = np.random.default_rng(7)
    for k in range(14):
        a = sample_action(model, st, rng)
        _apply_tracked(st, tr, a)
        if k + 1 in (4, 8, 14):
            exact = _exact_clans_posterior(st, 0, model)
            b = tr.belief()[1]
            assert 0.5 * np.abs(b - exact).sum() < 0.02, (k, b, exact)
    assert exact.max() > 0.5          # the policy has moved the posterior far from uniform
    assert tr.stats["unreplayable"] == 0
    if move_steps:
        assert tr.stats["moves"] == 3000 * tr.stats["rejuvenations"] > 0
        assert 0 < tr.stats["accepted"] < tr.stats["moves"]


class _ScriptedLoglik:
    """``history_loglik`` replaced by a script: the values in order, one per call."""

    def __init__(self, values):
        self.values = list(values)

    def __call__(self, world):
        return self.values.pop(0)


def test_policy_tracker_move_step_accepts_by_the_likelihood_ratio():
    """The independence Metropolis-Hastings step on four particles of 2-player Clans, with
    scripted log-likelihoods: a proposal at least as likely is accepted, one with L = 0 is not,
    a particle whose own L is unknown or 0 takes the first proposal with L > 0, and one at
    ratio exp(-50) is (all but surely) refused; each accepted proposal is a new origin."""
    st = new_game("clans", 3, num_players=2)
    tr = PolicyTracker("clans", RandomPolicy(), particles=4, seed=0, move_steps=2)
    tr.reset(st, 0)
    before = list(tr.particles)
    # particle 0 (ll -1): -inf refused, then -1 accepted (equal); particle 1 (None): -5
    # accepted, then -60 refused (ratio exp(-55)); particle 2 (-inf): -inf refused, -3
    # accepted; particle 3 (-2): -52 refused, -2.5 accepted or refused by the draw
    tr.history_loglik = _ScriptedLoglik([-math.inf, -1.0, -5.0, -60.0, -math.inf, -3.0,
                                         -52.0, -2.5])
    origin = tr._move(st, [-1.0, None, -math.inf, -2.0], np.array([0, 0, 1, 2]))
    assert tr.stats["moves"] == 8 and tr.stats["unreplayable"] == 0
    moved = [p is not b for p, b in zip(tr.particles, before)]
    assert moved[:3] == [True, True, True]
    assert tr.stats["accepted"] == 3 + moved[3]
    assert origin[:3].tolist() == [3, 4, 5] and origin[3] == (6 if moved[3] else 2)


def test_policy_tracker_move_step_stops_at_an_unreplayable_proposal():
    """A proposal whose record does not replay is refused and counted, and no proposal is
    drawn again in the game (keeping only the replayable ones would be biased)."""
    st = new_game("clans", 3, num_players=2)
    tr = PolicyTracker("clans", RandomPolicy(), particles=3, seed=0, move_steps=2)
    tr.reset(st, 0)
    before = list(tr.particles)
    tr.history_loglik = _ScriptedLoglik([-1.0, None])
    origin = tr._move(st, [-2.0, -2.0, -2.0], np.array([0, 1, 1]))
    assert tr.stats == {"rejuvenations": 0, "fresh": 0, "unreplayable": 1, "moves": 2,
                        "accepted": 1}
    assert not tr.replayable and origin.tolist() == [2, 1, 1]
    assert tr.particles[0] is not before[0] and tr.particles[1:] == before[1:]


def test_policy_tracker_move_step_adds_distinct_worlds_in_badland_wolves():
    """3-player Badland Wolves played by the heuristic, the tracker assuming the
    epsilon-heuristic with 40 particles. After 40 actions the tracker is copied and the copy
    given one move step; both see the same actions up to their next rejuvenation, whose draws
    and resampling are the same (same generator state): the resampling leaves copies of few
    worlds, and the move step replaces most of them by new ones."""
    import copy

    from agents import make_agent
    from agents.belief import heuristic_policy

    st = new_game("badland_wolves", 7, num_players=3)
    agents = [make_agent("heuristic", "badland_wolves", st.config, seed=s) for s in range(3)]
    model = heuristic_policy("badland_wolves", st.config, 0.1, 0, None)
    plain = PolicyTracker("badland_wolves", model, particles=40, seed=3)
    plain.reset(st, 0)

    def play():
        seat = st.current_player
        obs = {"observation": st.observation_tensor(seat), "action_mask": st.legal_action_mask()}
        a = int(agents[seat].act(obs, f"player_{seat}"))
        actor = st.current_player
        st.apply_action(a)
        for tr in trackers:
            tr.update(st, a, actor)

    trackers = [plain]
    while len(st.history) < 40:
        play()
    moved = copy.copy(plain)
    moved.move_steps = 1
    trackers.append(moved)
    before = plain.stats["rejuvenations"]
    while plain.stats["rejuvenations"] == before:
        play()
    assert moved.stats["rejuvenations"] == before + 1 and moved.stats["fresh"] == \
        plain.stats["fresh"]
    n_plain, n_moved = len(np.unique(plain.origin)), len(np.unique(moved.origin))
    assert moved.stats["moves"] == 40 and moved.stats["unreplayable"] == 0
    # 12 rejuvenations in the first 40 actions, the 13th at action 46: 7 distinct worlds among
    # the 40 resampled particles; 5 of the 40 proposals accepted (worlds drawn from the
    # consistent posterior are mostly far less likely under the model), so 10 distinct worlds
    assert before == 12 and len(st.history) == 46 and moved.stats["accepted"] == 5
    assert (n_plain, n_moved) == (7, 10)
    assert moved.distinct_ess() > plain.distinct_ess()


def test_policy_tracker_with_random_policy_stays_consistent():
    """Under the uniform random policy, Clans moves say nothing about colours: the policy
    posterior stays near the consistent one."""
    st = new_game("clans", 2, num_players=2)
    tr = PolicyTracker("clans", RandomPolicy(), particles=400, seed=0)
    tr.reset(st, 1)
    rng = np.random.default_rng(0)
    for _ in range(6):
        a = int(rng.choice(st.legal_actions()))
        _apply_tracked(st, tr, a)
    b = tr.belief()[0]
    exact = adapter_for("clans").exact_consistent(st, 1)[0]
    assert 0.5 * np.abs(b - exact).sum() < 0.1
    assert tr.ess() > 0.9 * 400


# ----------------------------------------------------------------------------------- dataset
def test_dataset_round_trip_schema_and_reproducibility(tmp_path):
    from training.dataset import FIELDS, SCHEMA, generate, load_dataset, main, read_index

    out = tmp_path / "ds"
    assert main(["--game", "prowl", "--num-players", "2", "--agents", "random",
                 "--games", "3", "--out", str(out), "--shard-size", "40", "--seed", "9"]) == 0
    index = read_index(out)
    d = load_dataset(out)
    K = index["decisions"]
    assert K == sum(index["game_lengths"]) and len(index["shards"]) == -(-K // 40)
    st = new_game("prowl", 9, num_players=2)
    n, D, A = st.num_players, st.observation_size, st.num_actions
    shapes = {"obs": (K, n, D), "mask": (K, A), "action": (K,), "actor": (K,),
              "truth": (K, n, 4), "game": (K,), "step": (K,)}
    for f in FIELDS:
        assert d[f].shape == shapes[f], f
        assert str(d[f].dtype) == SCHEMA[f][0], f
    # replaying game 0 from its seed and actions reproduces every stored array
    sel = d["game"] == 0
    np.testing.assert_array_equal(d["step"][sel], np.arange(sel.sum()))
    ad = adapter_for("prowl")
    for i, a in enumerate(d["action"][sel]):
        np.testing.assert_array_equal(d["obs"][sel][i], [st.observation_tensor(s) for s in range(n)])
        np.testing.assert_array_equal(d["mask"][sel][i], st.legal_action_mask())
        assert d["actor"][sel][i] == st.current_player
        np.testing.assert_array_equal(d["truth"][sel][i], ad.truth(st))
        st.apply_action(int(a))
    assert st.is_over
    # same command, same bytes
    out2 = tmp_path / "ds2"
    main(["--game", "prowl", "--num-players", "2", "--agents", "random", "--games", "3",
          "--out", str(out2), "--shard-size", "40", "--seed", "9"])
    d2 = load_dataset(out2)
    for f in FIELDS:
        np.testing.assert_array_equal(d[f], d2[f])
    with pytest.raises(ValueError, match="already holds"):
        generate("prowl", {}, ["random"], 1, out)
    with pytest.raises(SystemExit) as exc:   # the command: a one-line error, exit 2
        main(["--game", "prowl", "--agents", "random", "--games", "1", "--out", str(out)])
    assert exc.value.code == 2


def test_dataset_fields_must_be_a_sequence_of_names(tmp_path):
    """``load_dataset(path, "obs")`` was read letter by letter ("unknown dataset field(s) ['o',
    'b', 's']") and ``fields=[]`` gave an empty dict; both are refused by name. A 2-game random
    Clans dataset read back whole and shard by shard gives the same arrays."""
    from training.dataset import generate, iter_shards, load_dataset

    generate("clans", {"num_players": 2}, ["random"], 2, tmp_path, seed=1, shard_size=30)
    with pytest.raises(ValueError, match=r"got the string 'obs'; give \('obs',\)"):
        load_dataset(tmp_path, "obs")
    with pytest.raises(ValueError, match="no dataset fields requested"):
        load_dataset(tmp_path, [])
    whole = load_dataset(tmp_path, ("action", "step"))
    parts = list(iter_shards(tmp_path, ("action", "step")))
    assert [len(p["step"]) for p in parts][:-1] == [30] * (len(parts) - 1)
    np.testing.assert_array_equal(np.concatenate([p["action"] for p in parts]), whole["action"])


def test_read_index_refuses_a_broken_index(tmp_path):
    """An index that is not JSON said only "Expecting property name ..."; one without ``game``
    ended ``training.probe --data`` in a KeyError traceback. Both name the file now."""
    from training.dataset import read_index
    from training.probe import main as probe_main

    p = tmp_path / "index.json"
    p.write_text("{oops")
    with pytest.raises(ValueError, match=f"{p} is not a dataset index: not JSON"):
        read_index(tmp_path)
    p.write_text('{"format": 1}')
    with pytest.raises(ValueError, match=f"{p} is not a dataset index: no game, config, "
                                         "games, decisions, shards, agents"):
        read_index(tmp_path)
    with pytest.raises(SystemExit) as exc:
        probe_main(["--game", "prowl", "--data", str(tmp_path), "--out",
                    str(tmp_path / "p.pt")])
    assert exc.value.code == 2


def test_dataset_with_agents_that_read_the_live_game(tmp_path):
    """``--agents heuristic:belief`` (an agent declaring ``needs_state``) failed at the first
    decision ("call act(observation, agent, state=<GameState>)"): the generator now gives it the
    game. One 2-player Clans game against a random agent, each decision the belief agent's own
    answer."""
    from agents import act_with_state, make_agent
    from training.dataset import generate, load_dataset

    index = generate("clans", {"num_players": 2}, ["heuristic:belief", "random"], 1, tmp_path,
                     seed=2)
    d = load_dataset(tmp_path)
    assert index["decisions"] == len(d["action"]) > 0
    st = new_game("clans", 2, num_players=2)
    again = [make_agent(spec, "clans", st.config, seed=2 * 64 + s)
             for s, spec in enumerate(["heuristic:belief", "random"])]
    for ag in again:
        ag.reset()
    for i in range(len(d["action"])):
        p = st.current_player
        a = act_with_state(again[p], {"observation": st.observation_tensor(p),
                                      "action_mask": st.legal_action_mask()}, f"player_{p}", st)
        assert a == d["action"][i]
        st.apply_action(a)
    assert st.is_over


def test_dataset_specs_are_for_the_seats_agents_play(tmp_path, capsys):
    """Clandestine solo: ``state.num_players`` counts the Nemesis seat (played by the rules),
    so two specs for one human seat were taken, the second one recorded in the index as the
    Nemesis's agent and never asked to act. The specs are for the agent seats: a second one is
    refused (by ``generate`` and by the command, one line), and a valid run records one spec per
    human seat while every seat's observation is still stored."""
    from training.dataset import generate, load_dataset, main

    config = {"num_players": 1, "nemesis": "most_holy", "difficulty": 1}
    with pytest.raises(ValueError, match=r"2 agent specs for 1 seat played by agents \(seat 1 "
                                         r"is played by the rules\)"):
        generate("clandestine", config, ["heuristic", "random"], 1, tmp_path / "a")
    with pytest.raises(SystemExit) as exc:
        main(["--game", "clandestine", "--agents", "heuristic", "random", "--games", "1",
              "--num-players", "1", "--config", "nemesis=\"most_holy\"", "difficulty=1",
              "--out", str(tmp_path / "b")])
    assert exc.value.code == 2
    assert "2 agent specs for 1 seat played by agents (seat 1 is played by the rules)" in \
        capsys.readouterr().err
    index = generate("clandestine", {**config, "num_players": 2}, ["random", "heuristic"], 1,
                     tmp_path / "c", seed=3)
    assert index["agents"] == ["random", "heuristic"]
    d = load_dataset(tmp_path / "c", ("obs", "actor"))
    assert d["obs"].shape[1] == 3 and set(np.unique(d["actor"])) == {0, 1}


@pytest.mark.parametrize("humans", [1, 2])
def test_probe_observers_are_the_seats_agents_play(tmp_path, humans):
    """Solo Clandestine: the dataset stores every seat's view, the Nemesis's (the last seat,
    played by the rules) included, and the probe was trained on examples observed from it too
    (``K * (humans + 1)`` examples). The observers are the human seats (``K * humans``
    examples, observer by observer), while each example's targets stay every other seat's
    row in relative order, the Nemesis's Relic hand among them."""
    from training.dataset import generate, load_dataset
    from training.probe import examples, train

    config = {"num_players": humans, "nemesis": "most_holy", "difficulty": 1, "max_rounds": 3}
    index = generate("clandestine", config, ["heuristic"], 3, tmp_path / "d", seed=2)
    data = load_dataset(tmp_path / "d", ("obs", "truth", "game"))
    K, n = data["obs"].shape[:2]
    assert n == humans + 1 and K == index["decisions"] > 0
    _, meta = train(data, index, epochs=1, hidden=8, seed=0, log=lambda *_: None)
    assert meta["train_examples"] + meta["val_examples"] == K * humans
    assert meta["num_players"] == n
    x, y, ok, g, own = examples(data, None, range(humans))
    assert x.shape[0] == y.shape[0] == ok.shape[0] == K * humans
    for s in range(humans):
        rows = slice(s * K, (s + 1) * K)
        np.testing.assert_array_equal(x[rows], data["obs"][:, s])
        np.testing.assert_array_equal(own[rows], data["truth"][:, s])
        np.testing.assert_array_equal(g[rows], data["game"])
        nem = n - 1 - s   # the Nemesis's relative seat from observer s
        hand = data["truth"][:, n - 1]
        held = hand.sum(axis=1) > 0
        assert held.any()   # the Nemesis took Relics: its row is a defined target
        np.testing.assert_array_equal(ok[rows, nem - 1], held)
        np.testing.assert_allclose(y[rows, nem - 1][held],
                                   hand[held] / hand[held].sum(axis=1, keepdims=True))
    for bad in ([], [n]):
        with pytest.raises(ValueError, match=rf"observers must be seats 0..{n - 1}"):
            examples(data, None, bad)


def test_load_dataset_fills_the_whole_length_shard_by_shard(tmp_path, monkeypatch):
    """``load_dataset`` allocates each field at the index's length and fills it shard by shard:
    the same arrays as concatenating the streamed shards (several shards, obs columns
    selected), and a damaged index (a shard's count changed) is refused naming the counts."""
    import json as _json

    from training.dataset import generate, iter_shards, load_dataset

    index = generate("clans", {"num_players": 3}, ["random"], 3, tmp_path, seed=4, shard_size=50)
    assert len(index["shards"]) >= 3
    columns = np.array([0, 5, 7])
    shards = list(iter_shards(tmp_path, ("obs", "action", "actor"), columns))
    whole = load_dataset(tmp_path, ("obs", "action", "actor"), columns)
    for f in ("obs", "action", "actor"):
        expected = np.concatenate([sh[f] for sh in shards])
        assert whole[f].dtype == expected.dtype and np.array_equal(whole[f], expected)
    assert whole["obs"].shape == (index["decisions"], 3, 3)
    # the index is read once: the lengths allocated and the shards read come from one reading
    import training.dataset as dataset_module
    reads = []
    real_read_index = dataset_module.read_index
    monkeypatch.setattr(dataset_module, "read_index",
                        lambda p: reads.append(p) or real_read_index(p))
    assert np.array_equal(load_dataset(tmp_path, ("action",))["action"], whole["action"])
    assert len(reads) == 1
    monkeypatch.undo()
    path = tmp_path / "index.json"
    damaged = _json.loads(path.read_text())
    damaged["shards"][0]["decisions"] += 1
    path.write_text(_json.dumps(damaged))
    with pytest.raises(ValueError, match=f"hold {index['decisions']} decisions, its index says "
                                         f"{index['decisions'] + 1}"):
        load_dataset(tmp_path, ("action",))
    damaged["shards"][0]["decisions"] -= 2
    path.write_text(_json.dumps(damaged))
    with pytest.raises(ValueError, match="hold more decisions than its index's"):
        load_dataset(tmp_path, ("action",))


def test_probe_trains_and_tracks(tmp_path):
    from agents.belief import ProbeTracker
    from training.probe import main

    path = tmp_path / "p.pt"
    assert main(["--game", "prowl", "--num-players", "2", "--agents", "random", "--games", "12",
                 "--epochs", "2", "--hidden", "16", "--out", str(path)]) == 0
    st = new_game("prowl", 0, num_players=2)
    tr = ProbeTracker("prowl", str(path))
    tr.reset(st, 0)
    _play(st, 3, 0)
    tr.update(st, st.history[-1], 0)
    b = tr.belief()
    assert b.shape == (2, 4)
    np.testing.assert_allclose(b[1].sum(), 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="observations of size"):
        ProbeTracker("prowl", str(path)).reset(new_game("prowl", 0, num_players=3), 0)


def test_epsilon_agent_policy_probabilities():
    from agents.belief import EpsilonAgentPolicy

    class Fixed:
        def __init__(self):
            self.calls = 0

        def act(self, observation, agent):
            self.calls += 1
            return 2 if self.calls % 2 else 4      # alternates: a tie broken two ways

    mask = np.array([0, 1, 1, 0, 1], dtype=np.int8)
    obs = np.zeros(3, dtype=np.float32)
    p = EpsilonAgentPolicy(lambda seat: Fixed(), epsilon=0.3).probs(obs, mask, 0)
    np.testing.assert_allclose(p, [0, 0.1, 0.8, 0, 0.1])
    p = EpsilonAgentPolicy(lambda seat: Fixed(), epsilon=0.3, samples=2).probs(obs, mask, 0)
    np.testing.assert_allclose(p, [0, 0.1, 0.45, 0, 0.45])
    with pytest.raises(ValueError, match="epsilon"):
        EpsilonAgentPolicy(lambda seat: Fixed(), epsilon=0.0)
    np.testing.assert_allclose(RandomPolicy().probs(obs, mask, 0), [0, 1 / 3, 1 / 3, 0, 1 / 3])


@pytest.mark.slow
def test_policy_tracker_matches_exact_bayes_under_the_clans_heuristic():
    """The epsilon-heuristic (0.2) as the known policy, 2-player Clans, 3000 particles."""
    from agents.belief import heuristic_policy

    st = new_game("clans", 21, num_players=2)
    model = heuristic_policy("clans", st.config, epsilon=0.2, samples=1)
    tr = PolicyTracker("clans", model, particles=3000, seed=2)
    tr.reset(st, 1)
    rng = np.random.default_rng(3)
    for k in range(10):
        a = sample_action(model, st, rng)
        _apply_tracked(st, tr, a)
    exact = _exact_clans_posterior(st, 1, model)
    assert 0.5 * np.abs(tr.belief()[0] - exact).sum() < 0.02


# ------------------------------------------- 2-player Prowl, 2 cards each: exact enumeration
class LinearSoftmaxPolicy:
    """A known stochastic policy that reads the whole observation (own clan card and hand
    included): ``softmax(observation @ W)`` over the legal ids, ``W`` fixed normal(0, scale)."""

    def __init__(self, obs_size: int, num_actions: int, scale: float, seed: int) -> None:
        self.W = np.random.default_rng(seed).normal(0.0, scale, (obs_size, num_actions))

    def reset(self) -> None:
        pass

    def probs(self, obs, mask, seat):
        legal = np.flatnonzero(mask)
        z = obs.astype(np.float64) @ self.W[:, legal]
        e = np.exp(z - z.max())
        p = np.zeros(mask.shape[0])
        p[legal] = e / e.sum()
        return p


def _exact_prowl_posterior(real, seat, model=None):
    """Exact posterior over the opponent's clan card in 2-player Prowl, by enumeration.

    Given what ``seat`` saw, the opponent's dealt hand is a uniformly drawn set of
    ``cards_per_player`` physical cards among those ``seat`` has not seen (its own and the
    revealed 2-player pile cards excluded): every such set is enumerated (the deal rewritten in
    the record's chance log), and from the deal every branch of the opponent's choices that
    gives ``seat`` the observations it saw (a public choice must be the real one), weighted by the
    choice's probability: ``model.probs`` on the opponent's observation, or with ``model=None``
    the consistent model (a face-down placement is a uniformly drawn physical card of the hand,
    other choices uniform over the legal ids)."""
    cls = type(real)
    ad = adapter_for("prowl")
    rec = real.to_record()
    n, cpp = real.n, real.cpp
    assert n == 2
    opp = 1 - seat
    real_obs = [s.observation_tensor(seat).copy() for s in cls.replay_steps(rec)]
    chance = [list(e) for e in rec["chance"]]
    k = [i for i, e in enumerate(chance) if e[0] == "deck"][0]
    perm = list(chance[k][1])
    r = int(real.pile.sum())
    own = perm[seat * cpp:(seat + 1) * cpp]
    tail = perm[len(perm) - r:] if r else []
    unseen = [x for x in perm if x not in own and x not in tail]
    acc, total = np.zeros(4), 0.0
    for hand in itertools.combinations(unseen, cpp):
        deal = [0] * len(perm)
        deal[seat * cpp:(seat + 1) * cpp] = own
        deal[opp * cpp:(opp + 1) * cpp] = list(hand)
        deal[n * cpp:] = [x for x in unseen if x not in hand] + tail
        ch = [list(e) for e in chance]
        ch[k] = ["deck", deal]
        s0 = next(cls.replay_steps(dict(rec, chance=ch, actions=[]))).clone()
        if not np.array_equal(s0.observation_tensor(seat), real_obs[0]):
            continue
        stack = [(s0, 0, 1.0)]
        while stack:
            st, i, w = stack.pop()
            if i == len(rec["actions"]):
                acc += w * ad.truth(st)[opp]
                total += w
                continue
            a, actor = rec["actions"][i], st.current_player
            mask = st.legal_action_mask()
            if actor == seat:
                cands = {a: 1.0} if mask[a] else {}
            else:
                legal = np.flatnonzero(mask)
                if model is None:
                    cands = {}
                    for c in legal.tolist():
                        h = ad.resampled_choice_prob(st, c)
                        cands[c] = 1.0 / len(legal) if h is None else h
                else:
                    p = model.probs(st.observation_tensor(actor), mask, actor)
                    cands = {c: p[c] for c in legal.tolist()}
                if ad.public_action(st, a):
                    cands = {a: cands[a]} if a in cands else {}
            for c, pc in cands.items():
                if pc <= 0:
                    continue
                q = st.clone()
                q.apply_action(c)
                if np.array_equal(q.observation_tensor(seat), real_obs[i + 1]):
                    stack.append((q, i + 1, w * pc))
    return acc / total


def test_prowl_consistent_equals_enumeration_two_players_two_cards():
    """Every position of two 2-player, 2-card games (plays, Accusations, peeks, the pile's
    reveals): the adapter's consistent posterior equals the enumerated one."""
    checked = 0
    for seed in (0, 2):
        st = new_game("prowl", seed, num_players=2, cards_per_player=2)
        model = LinearSoftmaxPolicy(st.observation_size, st.num_actions, 0.3, seed)
        rng = np.random.default_rng(seed)
        while not st.is_over:
            st.apply_action(sample_action(model, st, rng))
            if st.is_over or st.clan_card[1] < 0:
                continue
            exact = _exact_prowl_posterior(st, 0)
            np.testing.assert_allclose(adapter_for("prowl").exact_consistent(st, 0)[1], exact,
                                       atol=1e-12)
            checked += 1
    assert checked >= 10


@pytest.mark.slow
@pytest.mark.parametrize("move_steps", [0, 1])
def test_policy_tracker_matches_exact_bayes_on_two_player_prowl(move_steps):
    """2-player Prowl, 2 cards each, a known stochastic policy that reads the hidden cards
    (LinearSoftmaxPolicy, scale 0.3): with 5000 particles (fresh worlds only at a
    rejuvenation) the policy posterior over the opponent's clan card is within total variation
    0.02 of exact Bayes by enumeration after every action, while exact Bayes is far from the
    consistent posterior (the policy is informative); with the resample-move step too."""
    st = new_game("prowl", 0, num_players=2, cards_per_player=2)
    model = LinearSoftmaxPolicy(st.observation_size, st.num_actions, 0.3, 0)
    tr = PolicyTracker("prowl", model, particles=5000, fresh_fraction=1.0, seed=0,
                       move_steps=move_steps)
    tr.reset(st, 0)
    rng = np.random.default_rng(0)
    gap = 0.0
    while True:
        a = sample_action(model, st, rng)
        _apply_tracked(st, tr, a)
        if st.is_over:
            break
        exact = _exact_prowl_posterior(st, 0, model)
        assert 0.5 * np.abs(tr.belief()[1] - exact).sum() < 0.02, (len(st.history), exact)
        cons = adapter_for("prowl").exact_consistent(st, 0)[1]
        gap = max(gap, 0.5 * np.abs(exact - cons).sum())
    assert gap > 0.15
    assert tr.stats["rejuvenations"] >= 1 and tr.stats["unreplayable"] == 0
    if move_steps:
        assert tr.stats["moves"] == 5000 * tr.stats["rejuvenations"]
        assert 0 < tr.stats["accepted"] < tr.stats["moves"]


def test_policy_tracker_weighs_badland_wolves_worlds_whose_records_replay():
    """A fresh world's full-history likelihood tries, at another wolf's hidden choice, every
    legal action on the replayed state. That state still holds the world record's later chance
    outcomes (a Scrap reshuffle, a steal, a Jackalope's place), which belong to the recorded
    action only: another action drew them and raised RecordError, so a history-consistent
    world counted as unreplayable (2 of these 5, 17 of 80 over six games) and the tracker
    stopped drawing fresh worlds for the rest of the game."""
    st = new_game("badland_wolves", 1, num_players=3)
    tr = PolicyTracker("badland_wolves", RandomPolicy(), particles=1, seed=1)
    tr.reset(st, 0)
    rng = np.random.default_rng(1)
    for _ in range(150):
        a = int(rng.choice(np.flatnonzero(st.legal_action_mask())))
        _apply_tracked(st, tr, a)
    wr = np.random.default_rng(150)
    worlds = [st.resample_from_infostate(0, wr) for _ in range(5)]
    lls = [tr.history_loglik(w) for w in worlds]
    assert all(ll is not None and ll < 0 for ll in lls), lls


def test_belief_prowl_heuristic_plays_legal_games_and_reads_the_consistent_posterior():
    from agents import act_with_state, make_agent

    st = new_game("prowl", 4, num_players=4)
    ags = [make_agent("heuristic:belief" if s == 0 else "heuristic", "prowl", st.config, seed=s)
           for s in range(4)]
    assert ags[0].needs_state
    checked = False
    while not st.is_over:
        p = st.current_player
        obs = {"observation": st.observation_tensor(p), "action_mask": st.legal_action_mask()}
        a = act_with_state(ags[p], obs, f"player_{p}", st)
        assert obs["action_mask"][a]
        if p == 0 and st.clan_card.min() >= 0:   # its beliefs are the adapter's posterior
            b = adapter_for("prowl").exact_consistent(st, 0)
            np.testing.assert_allclose(ags[0].P[1:], b[[1, 2, 3]])
            checked = True
        st.apply_action(a)
    assert checked
    obs = {"observation": st.observation_tensor(0), "action_mask": np.ones(st.num_actions)}
    with pytest.raises(ValueError, match="state="):
        ags[0].act(obs, "player_0")
    with pytest.raises(ValueError, match="no belief-reading heuristic"):
        make_agent("heuristic:belief", "badland_wolves", new_game("badland_wolves", 0).config)


def test_clandestine_relic_suit_belief():
    """Clandestine (3 players, heuristic play): the consistent belief, sampled from the
    resampler, keeps every row at the public Relic hand size, the Relics known in a hand
    (taken face up) and the observer's own hand; its suits of blind Relics vary across worlds."""
    from agents import make_agent

    st = new_game("clandestine", 0)      # seat 2 starts with a blind-drawn Relic
    ags = [make_agent("heuristic", "clandestine", st.config, seed=s) for s in range(3)]
    for _ in range(40):
        p = st.current_player
        st.apply_action(ags[p].act({"observation": st.observation_tensor(p),
                                    "action_mask": st.legal_action_mask()}, f"player_{p}"))
    ad = adapter_for("clandestine")
    suits = ["Rod", "Sword", "Disk", "Chalice"]
    assert ad.categories(st) == suits
    tr = ConsistentTracker("clandestine", samples=12, seed=0, refresh=5)
    tr.reset(st, 0)
    b = tr.belief()
    assert b.shape == (3, 4) and not tr.last_exact
    np.testing.assert_allclose(b.sum(axis=1), [len(h) for h in st.relic_hand])
    np.testing.assert_array_equal(b[0], ad.truth(st)[0])
    suit_of = ad._suit_of()
    for q in (1, 2):
        known = np.bincount([suit_of[r] for r in st.relic_known[q]], minlength=4)
        assert np.all(b[q] >= known - 1e-9)
        blind = len(st.relic_hand[q]) - len(st.relic_known[q])
        if blind:
            assert tr.stderr[q].max() > 0      # a blind Relic's suit differs between worlds
    assert sum(len(st.relic_hand[q]) - len(st.relic_known[q]) for q in (1, 2)) > 0
    # within the refresh interval the estimate is reused (no new worlds drawn)
    p = st.current_player
    a = ags[p].act({"observation": st.observation_tensor(p),
                    "action_mask": st.legal_action_mask()}, f"player_{p}")
    st.apply_action(a)
    tr.update(st, a, p)
    state_before = tr.rng.bit_generator.state
    b2 = tr.belief()
    assert tr.rng.bit_generator.state == state_before
    np.testing.assert_allclose(b2.sum(axis=1), [len(h) for h in st.relic_hand])
    u = UniformTracker("clandestine")
    u.reset(st, 0)
    np.testing.assert_allclose(u.belief()[1], len(st.relic_hand[1]) / 4)
    with pytest.raises(ValueError, match="refresh"):
        ConsistentTracker("clandestine", refresh=0)


def test_probe_puts_no_mass_on_roles_ruled_out(tmp_path):
    """The Clans probe's rows give the observer's own colour probability 0 (colours are dealt
    without replacement); without ``support`` the network's raw softmax is returned."""
    from agents.belief import ProbeTracker
    from training.probe import main

    path = tmp_path / "c.pt"
    assert main(["--game", "clans", "--num-players", "2", "--agents", "random", "--games", "2",
                 "--epochs", "1", "--hidden", "8", "--out", str(path)]) == 0
    st = _play(new_game("clans", 5, num_players=2), 4, 5)
    own = int(np.argmax(adapter_for("clans").truth(st)[0]))
    tr = ProbeTracker("clans", str(path))
    tr.reset(st, 0)
    b = tr.belief()
    assert b[1, own] == 0.0
    np.testing.assert_allclose(b[1].sum(), 1.0)
    raw = ProbeTracker("clans", str(path), support=False)
    raw.reset(st, 0)
    r = raw.belief()
    assert r[1, own] > 0
    np.testing.assert_allclose(b[1], r[1] * (np.arange(5) != own) / (1 - r[1, own]), rtol=1e-6)


# ------------------------------------------------- exact policy posterior, Clans belief heuristic
def test_exact_policy_tracker_matches_enumerated_bayes_on_three_player_clans():
    """3-player Clans: the tracker's 12 worlds (every assignment of the four other colours)
    give the exact posterior under a known colour-seeking policy, checked against an
    independent enumeration that replays each assignment's record."""
    from agents.belief import ExactPolicyTracker

    st = new_game("clans", 21, num_players=3)
    model = ColourSeekingPolicy(3, beta=3.0)
    tr = ExactPolicyTracker("clans", model, seed=2)
    tr.reset(st, 1)
    assert tr.M == 12
    rng = np.random.default_rng(3)
    for _ in range(15):
        a = sample_action(model, st, rng)
        _apply_tracked(st, tr, a)
    # independent enumeration: joint log-likelihood of each assignment from its replayed record
    cls = type(st)
    worlds = {}
    wrng = np.random.default_rng(9)
    while len(worlds) < 12:
        w = st.resample_from_infostate(1, wrng)
        worlds.setdefault(tuple(int(c) for c in w.colours), w)
    marg = np.zeros((3, 5))
    lls = {}
    for key, w in worlds.items():
        rec = w.to_record()
        ll, prev = 0.0, None
        for i, s in enumerate(cls.replay_steps(rec)):
            if i > 0 and prev.current_player != 1:
                p = model.probs(prev.observation_tensor(prev.current_player),
                                prev.legal_action_mask(), prev.current_player)
                ll += math.log(p[rec["actions"][i - 1]])
            prev = s.clone()
        lls[key] = ll
    top = max(lls.values())
    z = sum(math.exp(v - top) for v in lls.values())
    for key, v in lls.items():
        for q in (0, 2):
            marg[q, key[q]] += math.exp(v - top) / z
    b = tr.belief()
    np.testing.assert_allclose(b[[0, 2]], marg[[0, 2]], atol=1e-9)
    assert marg[[0, 2]].max() > 0.45        # the moves said something about the colours
    assert b[[0, 2], int(st.colours[1])].max() == 0.0


def test_belief_clans_heuristic_reads_the_tracker():
    """``heuristic:belief`` for Clans: refuses to act without the game; follows the game through
    its state (its tracker has seen every action) and starts again on a new game."""
    from agents import make_agent
    from agents.clans_heuristic import BeliefClansHeuristic, ClansHeuristic

    st = new_game("clans", 4, num_players=3)
    agent = make_agent("heuristic:belief", "clans", st.config, seed=0)
    assert isinstance(agent, BeliefClansHeuristic) and agent.needs_state
    others = {s: ClansHeuristic(st.config, seed=s) for s in (1, 2)}
    obs = {"observation": st.observation_tensor(st.current_player),
           "action_mask": st.legal_action_mask()}
    with pytest.raises(ValueError, match="state"):
        agent.act(obs, f"player_{st.current_player}")
    for _ in range(12):
        p = st.current_player
        o = {"observation": st.observation_tensor(p), "action_mask": st.legal_action_mask()}
        a = agent.act(o, f"player_{p}", state=st) if p == 0 else others[p].act(o, f"player_{p}")
        assert o["action_mask"][a]
        st.apply_action(a)
    assert agent.tracker.calls == len(agent._game.history) > 0
    b = agent.tracker.belief()
    np.testing.assert_allclose(b[[1, 2]].sum(axis=1), 1.0)
    assert b[[1, 2], int(st.colours[0])].max() == 0.0
    with pytest.raises(ValueError, match="player_"):
        agent.act(o, "player_0" if st.current_player else "player_1", state=st)
    st2 = new_game("clans", 5, num_players=3)    # a new game: the tracker starts again
    while st2.current_player != 0:
        p = st2.current_player
        st2.apply_action(others[p].act({"observation": st2.observation_tensor(p),
                                        "action_mask": st2.legal_action_mask()}, f"player_{p}"))
    agent.act({"observation": st2.observation_tensor(0),
               "action_mask": st2.legal_action_mask()}, "player_0", state=st2)
    assert agent._game.history == st2.history


# -------------------------------------------------------------------------- probe calibration
def test_calibrate_falls_back_on_the_prior_and_keeps_information():
    """Confidently random logits: the fitted mixture is no worse than the prior (and far
    better than the raw network); informative logits: the prior weight stays below 1."""
    from training.probe import calibrate

    rng = np.random.default_rng(0)
    E, C = 400, 4
    y = np.eye(C)[rng.integers(C, size=E)][:, None, :]
    ok = np.ones((E, 1), dtype=bool)
    ref = np.full((E, 1, C), 1.0 / C)
    noise = 5.0 * rng.normal(size=(E, 1, C))
    t, w, nll, raw, prior = calibrate(noise, y, ok, ref)
    assert prior == pytest.approx(math.log(C))
    assert (t, w, nll) == (1.0, 1.0, prior) and raw > 2.0   # no clear gain: the prior alone
    good = noise * 0.1 + 2.0 * y
    t, w, nll, raw, prior = calibrate(good, y, ok, ref, groups=np.arange(E) // 40)
    assert w < 1.0 and nll < prior - 0.3 and nll <= raw
    # right on two games, confidently wrong on two: the pooled fit gains, but not clearly
    # over the games, so the prior is kept; counted over examples the gain is clear
    grp = np.arange(E) // 100
    mixed = np.where((grp < 2)[:, None, None], 3.0 * y, 2.0 * np.roll(y, 1, axis=2))
    t, w, nll, raw, prior = calibrate(mixed, y, ok, ref, groups=grp)
    assert (t, w, nll) == (1.0, 1.0, prior)
    t, w, nll, raw, prior = calibrate(mixed, y, ok, ref)
    assert w < 1.0 and nll < prior - 0.1


def test_calibrated_clans_probe_is_no_worse_than_the_prior(tmp_path):
    """A probe trained on a tiny dataset (12 random 2-player Clans games) is calibrated on its
    validation games: its NLL there is at most the prior's (uniform over the four colours that
    are not the observer's, log 4), and the tracker's rows still exclude the own colour."""
    from agents.belief import ProbeTracker
    from training.probe import load_probe, main

    path = tmp_path / "c.pt"
    assert main(["--game", "clans", "--num-players", "2", "--agents", "random", "--games", "12",
                 "--epochs", "3", "--hidden", "16", "--out", str(path)]) == 0
    _, meta = load_probe(path)
    assert meta["val_examples"] > 0 and meta["distinct_roles"]
    assert meta["val_nll_prior"] == pytest.approx(math.log(4), abs=1e-6)
    assert meta["val_loss"] <= meta["val_nll_prior"] + 1e-12
    assert meta["val_loss"] <= meta["val_nll_raw"] + 1e-12
    st = _play(new_game("clans", 5, num_players=2), 4, 5)
    tr = ProbeTracker("clans", str(path))
    tr.reset(st, 0)
    b = tr.belief()
    assert b[1, int(st.colours[0])] == 0.0
    np.testing.assert_allclose(b[1].sum(), 1.0)
    if meta["prior_weight"] == 1.0:   # nothing learned: the tracker is the prior exactly
        np.testing.assert_allclose(b[1], adapter_for("clans").prior(st, 0)[1])


def test_deduction_benchmark_follows_the_first_decisions_only():
    """``max_decisions``: every tracker is scored on the first K decisions of each game (the
    checkpoint at 100% is decision K - 1), and K < 2 is refused."""
    from benchmarks.deduction import main, run

    logged = []
    res = run("clans", {"num_players": 3}, ["random"], 0, 2, ["uniform", "policy-exact"],
              seed=3, max_decisions=6, log=logged.append)
    assert [m.split(":")[1].split("(")[0].strip() for m in logged] == ["6 decisions"] * 2
    assert res["uniform"]["checkpoints"][0][:, 0] == pytest.approx([math.log(4)] * 4)
    assert res["policy-exact"]["games"] == 2
    with pytest.raises(ValueError, match="max_decisions"):
        run("clans", {}, ["random"], 0, 1, ["uniform"], max_decisions=1)
    with pytest.raises(SystemExit) as exc:
        main(["--game", "clans", "--max-decisions", "1"])
    assert exc.value.code == 2



def test_deduction_benchmark_refuses_a_tracker_given_twice():
    """``--trackers uniform uniform`` merged both trackers' rows under one name: with
    ``--max-decisions 5`` the one game was scored on 10 decisions. ``run`` and ``track_game``
    now refuse it, and ``run`` refuses no games or more player specs than seats."""
    from agents import make_agent
    from benchmarks.deduction import run
    from training.belief_metrics import track_game

    with pytest.raises(ValueError, match="given twice: uniform"):
        run("clans", {"num_players": 2}, ["random"], 0, 1, ["uniform", "uniform"],
            max_decisions=5)
    with pytest.raises(ValueError, match="games must be a positive integer, got 0"):
        run("clans", {"num_players": 2}, ["random"], 0, 0, ["uniform"])
    with pytest.raises(ValueError, match="1 to 2 player specs for 2 seats, got 3"):
        run("clans", {"num_players": 2}, ["random"] * 3, 0, 1, ["uniform"])
    st = new_game("clans", 0, num_players=2)
    agents = [make_agent("random", "clans", st.config, seed=s) for s in range(2)]
    with pytest.raises(ValueError, match="distinct names; given twice: uniform"):
        track_game("clans", {"num_players": 2}, agents,
                   [UniformTracker("clans"), UniformTracker("clans")], 0, 0, 5)


def test_deduction_benchmark_observes_and_seats_agents_at_the_seats_agents_play(capsys):
    """Clandestine solo: ``state.num_players`` counts the Nemesis seat, which the rules play.
    The benchmark took ``--observer-seat 1`` (the Nemesis, which deduces nothing) and a second
    player spec (recorded for the Nemesis, never asked to act), and ``track_game`` wanted an
    agent for the Nemesis seat. Now the observer and the specs are for the agent seats, and
    ``track_game`` plays one agent per agent seat."""
    from agents import make_agent
    from benchmarks.deduction import main, run
    from training.belief_metrics import track_game

    solo = ["--game", "clandestine", "--num-players", "1", "--config", "nemesis=\"most_holy\"",
            "difficulty=1", "--games", "1", "--trackers", "uniform", "--max-decisions", "3"]
    for extra, message in (
            (["--observer-seat", "1"], ("--observer-seat must be a seat in 0..0 of this "
                                        "1-player game (seat 1 is played by the rules), got 1")),
            (["--players", "heuristic", "random"], ("2 player specs for 1 seat played by agents "
                                                    "(seat 1 is played by the rules)"))):
        with pytest.raises(SystemExit) as exc:
            main(solo + extra)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err
    config = {"num_players": 1, "nemesis": "most_holy", "difficulty": 1}
    with pytest.raises(ValueError, match=r"give 1 to 1 player specs for 1 seat played by agents "
                                         r"\(seat 1 is played by the rules\), got 2"):
        run("clandestine", config, ["heuristic", "random"], 0, 1, ["uniform"], max_decisions=3)
    st = new_game("clandestine", 4, **config)
    one = [make_agent("heuristic", "clandestine", st.config, seed=0)]
    with pytest.raises(ValueError, match=r"observer 1 is not a seat agents play: 1 seat played "
                                         r"by agents \(seat 1 is played by the rules\)"):
        track_game("clandestine", config, one, [UniformTracker("clandestine")], 1, 4, 3)
    with pytest.raises(ValueError, match=r"has 1 seat played by agents \(seat 1 is played by "
                                         r"the rules\), got 2 agents"):
        track_game("clandestine", config, one * 2, [UniformTracker("clandestine")], 0, 4, 3)
    rows = track_game("clandestine", config, one, [UniformTracker("clandestine")], 0, 4, 5)
    assert rows["uniform"].shape == (5, 3)
    res = run("clandestine", config, ["heuristic"], 0, 1, ["uniform"], seed=4, max_decisions=5,
              log=lambda line: None)
    assert res["uniform"]["updates"] == 5


@pytest.fixture(scope="module")
def prowl2_probe(tmp_path_factory):
    """A tiny 2-player Prowl probe (2 games, 1 epoch, 4 hidden units)."""
    from training.probe import main as probe_main

    path = tmp_path_factory.mktemp("probe") / "prowl2.pt"
    assert probe_main(["--game", "prowl", "--num-players", "2", "--games", "2", "--epochs", "1",
                       "--hidden", "4", "--out", str(path)]) == 0
    return path


@pytest.mark.parametrize("args,message", [
    (["--game", "chess"], "argument --game: invalid choice: 'chess'"),
    (["--games", "0"], "--games must be at least 1, got 0"),
    (["--observer-seat", "2"], "--observer-seat must be a seat in 0..1 of this 2-player game, "
                               "got 2"),
    (["--observer-seat", "-1"], "--observer-seat must be a seat in 0..1"),
    (["--config", "{bad"], "--config '{bad' is not a JSON object (Expecting property name"),
    (["--config", "[1]"], "--config items are KEY=VALUE, got '[1]'"),
    (["--config", '{"zzz": 1}'], "--config: unknown prowl keyword(s) ['zzz']"),
    (["--config", "zzz=1"], "--config: unknown prowl keyword(s) ['zzz']"),
    (["--config", '{"num_players": 3}'], "--num-players 2 and --config num_players=3 disagree"),
    (["--config", "num_players=3"], "--num-players 2 and --config num_players=3 disagree"),
    (["--players", "bogus"], "--players: unknown agent spec 'bogus'"),
    (["--players", "random", "random", "random"], "3 player specs for 2 seats"),
    (["--trackers", "bogus"], "--trackers bogus: unknown tracker 'bogus'"),
    (["--trackers", "uniform", "uniform"], "--trackers: uniform given twice"),
    (["--trackers", "probe", "--probe", "/nonexistent/p.pt"],
     "--trackers probe: no probe file at '/nonexistent/p.pt'"),
    (["--particles", "0"], "--particles must be at least 1, got 0"),
    (["--samples", "1"], "--samples must be at least 2, got 1"),
    (["--refresh", "0"], "--refresh must be at least 1, got 0"),
    (["--policy-samples", "0"], "--policy-samples must be at least 1, got 0"),
    (["--epsilon", "0"], "--epsilon must be in (0, 1], got 0.0"),
    (["--policy-mix", "1"], "--policy-mix must be in [0, 1), got 1.0"),
    (["--seed", "-1"], "--seed must be at least 0, got -1"),
    (["--max-decisions", "1"], "--max-decisions must be at least 2, got 1"),
    (["--move-steps", "-1"], "--move-steps must be at least 0, got -1"),
])
def test_deduction_benchmark_command_line_mistakes(args, message, capsys):
    """Each mistake is one line naming it (exit 2) before any game is played; they were
    tracebacks (or, for a repeated tracker, merged rows)."""
    from benchmarks.deduction import main

    base = {"--game": "prowl", "--num-players": "2", "--games": "1", "--trackers": "uniform"}
    argv = []
    for k, v in base.items():
        if k not in args:
            argv += [k, v]
    with pytest.raises(SystemExit) as exc:
        main(argv + args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


@pytest.mark.parametrize("args,trackers,readers", [
    (["--probe", "p.pt"], ["uniform", "consistent"], "the probe tracker(s)"),
    (["--particles", "50"], ["uniform", "consistent", "policy-exact"],
     "the policy, policy-random, policy-ppo:PATH tracker(s)"),
    (["--samples", "200"], ["uniform", "policy"], "the consistent tracker(s)"),
    (["--refresh", "2"], ["policy-random"], "the consistent tracker(s)"),
    (["--epsilon", "0.2"], ["consistent", "policy-random"], "the policy, policy-exact tracker(s)"),
    (["--policy-samples", "3"], ["policy-random", "probe"], "the policy, policy-exact tracker(s)"),
    (["--policy-mix", "0.1"], ["uniform", "consistent"],
     "the policy, policy-exact, policy-random, policy-ppo:PATH tracker(s)"),
    (["--move-steps", "1"], ["uniform", "consistent", "policy-exact"],
     "the policy, policy-random, policy-ppo:PATH tracker(s)"),
])
def test_deduction_benchmark_refuses_a_tracker_option_no_tracker_reads(args, trackers, readers,
                                                                      capsys):
    """A tracker option given (even at its default value) while no tracker in ``--trackers``
    reads it is refused in one line, before any game: ``--probe p.pt --trackers uniform
    consistent`` ran without the probe and said nothing, and so did the others."""
    from benchmarks.deduction import main

    with pytest.raises(SystemExit) as exc:
        main(["--game", "clans", "--num-players", "2", "--games", "1", "--trackers", *trackers,
              *args])
    assert exc.value.code == 2
    out = capsys.readouterr()
    option = args[0]
    assert out.err.count("\n") == 1, out.err
    assert (f"{option} is read only by {readers}, none of which is in --trackers "
            f"({' '.join(trackers)})") in out.err
    assert "decisions" not in out.out + out.err



def test_deduction_benchmark_builds_the_game_once_before_running(tmp_path, monkeypatch):
    """The command line builds the game once to check its arguments and resolve its
    configuration, then runs (it built the same game a second time for the configuration it
    writes with --json); the configuration written is the game's resolved one."""
    import json

    from agents import belief
    from benchmarks import deduction

    built, ran = [], []
    real = belief.new_game

    def counting(*args, **kw):
        built.append(args)
        return real(*args, **kw)

    def run(*args, **kw):
        ran.append(len(built))
        return real_run(*args, **kw)

    real_run = deduction.run
    monkeypatch.setattr(belief, "new_game", counting)
    monkeypatch.setattr(deduction, "run", run)
    out = tmp_path / "d.json"
    assert deduction.main(["--game", "clans", "--num-players", "2", "--players", "random",
                           "--games", "1", "--max-decisions", "3", "--trackers", "uniform",
                           "--seed", "4", "--png", str(tmp_path / "d.png"),
                           "--json", str(out)]) == 0
    assert ran == [1] and built[0] == ("clans", 4)
    written = json.loads(out.read_text())
    assert written["uniform"]["config"] == json.loads(json.dumps(dict(
        real("clans", 4, num_players=2).config)))

def test_deduction_benchmark_takes_tracker_options_their_trackers_read(tmp_path, capsys):
    """The tracker options given with the trackers that read them (and none given with
    ``uniform`` alone) run, with the values given: the policy tracker's particle count and
    the consistent tracker's sample count are those of the command line."""
    from agents import belief
    from benchmarks.deduction import main

    made = []
    real = belief.make_tracker

    def spy(spec, *args, **kw):
        made.append((spec, kw))
        return real(spec, *args, **kw)

    belief.make_tracker = spy
    try:
        assert main(["--game", "clans", "--num-players", "2", "--players", "random",
                     "--games", "1", "--max-decisions", "3", "--trackers", "consistent",
                     "policy", "--particles", "7", "--samples", "9", "--refresh", "2",
                     "--epsilon", "0.3", "--policy-samples", "2", "--policy-mix", "0.1",
                     "--move-steps", "2", "--png", str(tmp_path / "p.png")]) == 0
        assert main(["--game", "clans", "--num-players", "2", "--players", "random",
                     "--games", "1", "--max-decisions", "3", "--trackers", "uniform",
                     "--png", str(tmp_path / "p.png")]) == 0
    finally:
        belief.make_tracker = real
    capsys.readouterr()
    given = {"particles": 7, "samples": 9, "refresh": 2, "epsilon": 0.3, "policy_samples": 2,
             "policy_mix": 0.1, "move_steps": 2}
    defaults = {"particles": 100, "samples": 200, "refresh": 1, "epsilon": 0.1,
                "policy_samples": None, "policy_mix": 0.0, "move_steps": 0}
    for spec, kw in made:
        expect = defaults if spec == "uniform" else given
        assert {k: kw[k] for k in expect} == expect, spec
    assert {spec for spec, _ in made} == {"consistent", "policy", "uniform"}


def test_tracker_options_table_agrees_with_make_tracker():
    """``TRACKER_OPTIONS``: each tracker refuses a bad value of exactly the keywords the table
    says it reads, and builds (and resets) with a bad value of every other keyword."""
    from agents.belief import TRACKER_OPTIONS, make_tracker, tracker_reads

    bad = {"particles": 0, "samples": 1, "refresh": 0, "epsilon": 0.0, "policy_samples": 0,
           "policy_mix": 1.0, "move_steps": -1}
    assert set(bad) | {"probe_path"} == set(TRACKER_OPTIONS)
    cases = [("clans", 2, spec) for spec in ("uniform", "consistent", "policy",
                                             "policy-exact", "policy-random")]
    cases.append(("prowl", 4, "policy-ppo:agents/checkpoints/prowl.zip"))
    for game, n, spec in cases:
        st = new_game(game, 0, num_players=n)
        assert not tracker_reads(spec, "probe_path")
        make_tracker(spec, game, st.config, probe_path="/nonexistent.pt").reset(st, 0)
        for key, value in bad.items():
            if tracker_reads(spec, key):
                with pytest.raises(ValueError):
                    make_tracker(spec, game, st.config, **{key: value}).reset(st, 0)
            else:
                make_tracker(spec, game, st.config, **{key: value}).reset(st, 0)
    assert tracker_reads("probe", "probe_path") and tracker_reads("policy-ppo:x", "particles")
    with pytest.raises(KeyError, match="'seed' is not a make_tracker option"):
        tracker_reads("uniform", "seed")


def test_deduction_benchmark_refuses_a_probe_or_output_it_cannot_use(prowl2_probe, tmp_path,
                                                                    capsys):
    """A probe for another player count or another game, a file that is not a probe, and a
    ``--png`` / ``--json`` that is a directory or under a file are refused before any game."""
    from benchmarks.deduction import main

    afile = tmp_path / "afile"
    afile.write_text("not a probe")
    cases = [
        (["--game", "prowl", "--num-players", "4", "--probe", str(prowl2_probe)],
         "--trackers probe: probe expects observations of size 779, the game has 1607"),
        (["--game", "clans", "--num-players", "2", "--probe", str(prowl2_probe)],
         f"--trackers probe: probe {str(prowl2_probe)!r} is for 'prowl', not 'clans'"),
        (["--game", "prowl", "--num-players", "2", "--probe", str(afile)],
         f"--trackers probe: {str(afile)!r} is not a probe saved by training.probe (not "
         "readable as tensors and plain values: UnpicklingError)"),
        (["--game", "prowl", "--num-players", "2", "--png", str(tmp_path)],
         f"--png {tmp_path} is a directory: give a file name"),
        (["--game", "prowl", "--num-players", "2", "--json", str(afile / "d.json")],
         f"is not a folder"),
    ]
    for args, message in cases:
        with pytest.raises(SystemExit) as exc:
            main(["--games", "1", "--trackers", "uniform", "probe"] + args)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


def test_probe_tracker_refuses_a_game_whose_columns_are_in_another_order(prowl2_probe):
    """A Prowl probe trained with the default clan order, on a game with ``clans`` reordered:
    the observation has the same size (779 entries), so it was accepted and its first column,
    Spring, was reported as Winter's probability."""
    from agents.belief import ProbeTracker

    st = new_game("prowl", 0, num_players=2, clans=["Winter", "Summer", "Autumn", "Spring"])
    tr = ProbeTracker("prowl", str(prowl2_probe))
    assert st.observation_size == tr.meta["obs_size"] == 779
    with pytest.raises(ValueError, match=r"probe predicts the columns \['Spring', 'Summer', "
                                         r"'Autumn', 'Winter'\], this game's belief has "
                                         r"\['Winter'"):
        tr.reset(st, 0)
    tr.reset(new_game("prowl", 0, num_players=2), 0)       # the default order is accepted
    assert tr.belief().shape == (2, 4)


def test_probe_files_cannot_run_code_when_loaded(prowl2_probe, tmp_path):
    """``load_probe`` read files with ``weights_only=False``: a crafted ``--probe`` file ran
    its pickle's code (here: writing a file). It now reads tensors and plain values only, and
    refuses anything else by name; real probes load as before."""
    import pickle

    from training.probe import load_probe

    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    bad = tmp_path / "bad.pt"
    bad.write_bytes(pickle.dumps({"meta": Payload(), "state_dict": {}}, protocol=2))
    with pytest.raises(ValueError, match=r"is not a probe saved by training.probe"):
        load_probe(bad)
    assert not marker.exists()
    other = tmp_path / "other.pt"
    import torch

    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(ValueError, match="no meta and state_dict"):
        load_probe(other)
    net, meta = load_probe(prowl2_probe)
    assert meta["game"] == "prowl" and meta["num_players"] == 2


def test_deduction_benchmark_png_is_written_at_the_path_given(tmp_path):
    """``--png out`` (no suffix) writes ``out``, the path it prints (matplotlib appended
    ``.png`` and wrote another file)."""
    from benchmarks.deduction import main

    out = tmp_path / "plot"
    assert main(["--game", "clans", "--num-players", "2", "--players", "random", "--games", "1",
                 "--trackers", "uniform", "--max-decisions", "3", "--png", str(out)]) == 0
    assert out.is_file() and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "plot.png").exists()


def test_dataset_and_probe_refuse_an_out_path_under_a_file(tmp_path, capsys):
    """``--out`` under a file: ``training.probe`` trained the network and then failed with a
    FileExistsError traceback when saving; ``training.dataset`` said only "[Errno 20] Not a
    directory". Both now name the file in one line before any game is played."""
    from training.dataset import main as dataset_main
    from training.probe import main as probe_main

    afile = tmp_path / "afile"
    afile.write_text("")
    for main, out in ((probe_main, afile / "p.pt"), (dataset_main, afile / "data")):
        with pytest.raises(SystemExit) as exc:
            main(["--game", "prowl", "--num-players", "2", "--games", "1", "--out", str(out)])
        assert exc.value.code == 2
        err = capsys.readouterr()
        assert f"--out {out}: a parent of {out} ({afile}) is not a" in err.err
        assert "decisions" not in err.out      # no game was played


def test_probe_refuses_to_replace_an_existing_out_file_without_overwrite(tmp_path, capsys):
    """``--out`` naming an existing file: ``training.probe`` played the games, trained and
    replaced it silently. It is now refused in one line before any game is played, the file
    left as it was; with ``--overwrite`` the new probe replaces it."""
    from training.probe import load_probe
    from training.probe import main as probe_main

    out = tmp_path / "p.pt"
    base = ["--game", "clans", "--num-players", "2", "--games", "2", "--epochs", "1",
            "--out", str(out)]
    assert probe_main(base + ["--hidden", "4"]) == 0
    before = out.read_bytes()
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        probe_main(base + ["--hidden", "5"])
    assert exc.value.code == 2
    err = capsys.readouterr()
    assert err.err.count("\n") == 1
    assert (f"--out {out} already exists and this run would replace it: add --overwrite, or "
            "choose another --out") in err.err
    assert "decisions" not in err.out          # no game was played
    assert out.read_bytes() == before and load_probe(out)[1]["hidden"] == 4
    assert probe_main(base + ["--hidden", "5", "--overwrite"]) == 0
    assert load_probe(out)[1]["hidden"] == 5


def test_probe_refuses_a_dangling_symlink_out_without_overwrite(tmp_path, capsys):
    """``--out`` a symlink to a missing file outside its folder counted as free, so the probe
    was written through the link; it is now an existing file (refused without --overwrite),
    and nothing is written."""
    from training.probe import main as probe_main

    target = tmp_path / "elsewhere" / "t.pt"
    target.parent.mkdir()
    link = tmp_path / "p.pt"
    link.symlink_to(target)
    with pytest.raises(SystemExit) as exc:
        probe_main(["--game", "clans", "--num-players", "2", "--games", "2", "--epochs", "1",
                    "--out", str(link)])
    assert exc.value.code == 2
    assert "already exists and this run would replace it" in capsys.readouterr().err
    assert not target.exists() and link.is_symlink()


def test_probe_with_data_refuses_the_options_of_generated_games(tmp_path, capsys):
    """With ``--data`` (2 random 2-player Clans games) ``--num-players 3``, ``--games``,
    ``--agents`` and ``--config`` were silently ignored (a 2-player probe was saved for
    ``--num-players 3``); each is now refused in one line, before training, unless it agrees
    with the dataset."""
    from training.dataset import generate
    from training.probe import main as probe_main

    data = tmp_path / "d"
    generate("clans", {"num_players": 2}, ["random"], 2, data, seed=1)
    out = tmp_path / "p.pt"
    base = ["--game", "clans", "--data", str(data), "--epochs", "1", "--hidden", "4",
            "--out", str(out)]
    for extra, message in ((["--num-players", "3"], "--num-players 3: --data "
                            f"{data} holds 2-player games"),
                           (["--games", "5"], f"--games 5: --data {data} holds 2 games"),
                           (["--agents", "heuristic"], "--agents heuristic: --data "
                            f"{data} was played by random random"),
                           (["--config", "num_players=3"], "--config {'num_players': 3} "
                            "disagrees with the config of --data")):
        with pytest.raises(SystemExit) as exc:
            probe_main(base + extra)
        assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not out.exists()
    assert probe_main(base + ["--num-players", "2", "--games", "2", "--agents", "random",
                              "--config", "num_players=2"]) == 0 and out.is_file()


def test_deduction_benchmark_paired_differences_by_hand():
    """``paired``: per-game differences a - b at each checkpoint and of the bin mean, with the
    95% Student-t half-width over games; worked by hand on three games of two trackers."""
    from benchmarks.deduction import markdown, paired
    from training.belief_metrics import mean_ci

    nan = np.nan
    cp_b = np.zeros((3, 4, 3))
    cp_a = np.zeros((3, 4, 3))
    cp_a[:, 3, 0] = [-0.1, -0.2, -0.3]               # a's NLL at 100% lower in every game
    bins_b = np.ones((3, 10, 3))
    bins_a = np.ones((3, 10, 3))
    bins_a[0, :, 0] = 2.0                            # game 0: a's NLL one nat higher in every bin
    bins_a[1, 9, :] = nan                            # game 1 never reached the last bin
    bins_a[1, :9, 0] = 0.5
    res = {t: {"per_game_checkpoints": cp, "per_game_bins": bins, "ms_per_update": 1.0,
               "checkpoints": mean_ci(cp), "games": 3}
           for t, cp, bins in (("b", cp_b, bins_b), ("a", cp_a, bins_a))}
    diffs = paired(res)
    assert list(diffs) == [("a", "b")]
    mean, half = diffs[("a", "b")]
    assert mean.shape == half.shape == (5, 3)
    assert mean[3, 0] == pytest.approx(-0.2)
    assert half[3, 0] == pytest.approx(4.302653 * 0.1 / math.sqrt(3))  # sd of -0.1, -0.2, -0.3
    assert mean[4, 0] == pytest.approx((1.0 - 0.5 + 0.0) / 3)         # bin means: 2-1, .5-1, 0
    assert mean[:3].tolist() == [[0.0] * 3] * 3 and half[0, 0] == 0.0
    text = markdown(res)
    # three games: Student's t (4.30) makes the interval hold 0; the normal 1.96 gave
    # -0.200 ± 0.113 and a star
    assert "| a - b | +0.000 ± 0.000 | +0.000 ± 0.000 | +0.000 ± 0.000 | -0.200 ± 0.248 |" in text
    bad = dict(res, a=dict(res["a"], per_game_checkpoints=cp_a[:2], per_game_bins=bins_a[:2]))
    with pytest.raises(ValueError, match="different games"):
        paired(bad)


def test_deduction_benchmark_merges_chunks_of_seeds_into_the_one_run(tmp_path):
    """Two runs on engine seeds 3 and 4 written with ``--json`` and merged with ``--merge`` give
    the per-game values, means and intervals of the one 2-game run from seed 3; merging runs of
    other trackers, a file without per-game values or a missing file is refused."""
    import json
    from pathlib import Path

    from benchmarks.deduction import main, merge, run

    kw = dict(max_decisions=6, log=lambda *_: None)
    whole = run("clans", {"num_players": 3}, ["random"], 0, 2, ["uniform", "policy-exact"],
                seed=3, **kw)
    files = []
    for seed in (3, 4):
        f = tmp_path / f"part{seed}.json"
        assert main(["--game", "clans", "--num-players", "3", "--players", "random", "--games",
                     "1", "--trackers", "uniform", "policy-exact", "--max-decisions", "6",
                     "--seed", str(seed), "--png", str(tmp_path / "p.png"), "--json",
                     str(f)]) == 0
        files.append(str(f))
    out = tmp_path / "merged.json"
    assert main(["--game", "clans", "--merge", *files, "--png", str(tmp_path / "m.png"),
                 "--json", str(out)]) == 0
    merged = json.loads(out.read_text())
    for t in ("uniform", "policy-exact"):
        np.testing.assert_allclose(merged[t]["per_game_checkpoints"],
                                   whole[t]["per_game_checkpoints"])
        np.testing.assert_allclose(merged[t]["cp_mean"], whole[t]["checkpoints"][0])
        np.testing.assert_allclose(merged[t]["cp_half"], whole[t]["checkpoints"][1])
        assert merged[t]["games"] == 2
        assert merged[t]["updates"] == sum(json.loads(Path(f).read_text())[t]["updates"]
                                           for f in files)
    parts = [json.loads(Path(f).read_text()) for f in files]
    with pytest.raises(ValueError, match="same trackers"):
        merge([parts[0], {"uniform": parts[1]["uniform"]}])
    old = {t: {k: v for k, v in r.items() if not k.startswith("per_game")}
           for t, r in parts[0].items()}
    with pytest.raises(ValueError, match="no per-game values"):
        merge([old])
    with pytest.raises(SystemExit) as exc:
        main(["--game", "clans", "--merge", str(tmp_path / "nope.json")])
    assert exc.value.code == 2


@pytest.mark.parametrize("extra, named", [
    (["--games", "5"], "--games"),
    (["--trackers", "uniform"], "--trackers"),
    (["--particles", "10"], "--particles"),
    (["--seed", "7", "--num-players", "3"], "--num-players --seed"),
])
def test_deduction_merge_refuses_run_options_it_would_ignore(tmp_path, capsys, extra, named):
    """``--merge`` reads only --game, --png and --json: a run option given with it (games,
    trackers, a tracker option, seed, player count) is refused with its name, before any file is
    read, instead of being silently ignored."""
    from benchmarks.deduction import main

    with pytest.raises(SystemExit) as exc:
        main(["--game", "clans", "--merge", str(tmp_path / "a.json"), *extra])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"drop {named}" in err
    assert "a.json" not in err


def test_deduction_benchmark_json_keeps_per_game_values(tmp_path):
    """``--json`` writes each tracker's per-game checkpoint and bin values (games x 4 x 3 and
    games x 10 x 3), so paired comparisons can be recomputed; uniform's Clans NLL is log 4 at
    every checkpoint of every game."""
    import json

    from benchmarks.deduction import main

    out = tmp_path / "d.json"
    assert main(["--game", "clans", "--num-players", "3", "--players", "random", "--games", "2",
                 "--trackers", "uniform", "policy-exact", "--max-decisions", "5", "--seed", "3",
                 "--png", str(tmp_path / "d.png"), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    cp = np.array(data["uniform"]["per_game_checkpoints"])
    assert cp.shape == (2, 4, 3) and np.array(data["policy-exact"]["per_game_bins"]).shape[:2] == (2, 10)
    np.testing.assert_allclose(cp[:, :, 0], math.log(4))

def test_deduction_benchmark_json_is_strict_json_with_nulls(tmp_path):
    """One 3-decision game: most bins are empty and every half-width is undefined. They were
    written as Python's ``NaN`` token, which strict JSON readers refuse; they are null now,
    and the defined values are kept (uniform's Clans NLL log 4 in bins 0, 5 and 9)."""
    import json

    from benchmarks.deduction import main

    out = tmp_path / "d.json"
    assert main(["--game", "clans", "--num-players", "2", "--players", "random", "--games", "1",
                 "--trackers", "uniform", "--max-decisions", "3", "--png",
                 str(tmp_path / "d.png"), "--json", str(out)]) == 0

    def refuse(token):
        raise ValueError(f"not strict JSON: {token}")

    data = json.loads(out.read_text(), parse_constant=refuse)["uniform"]
    assert [row[0] is None for row in data["bins_mean"]] == [
        b not in (0, 5, 9) for b in range(10)]
    assert data["bins_mean"][5][0] == pytest.approx(math.log(4))
    assert data["cp_half"] == [[None] * 3] * 4
    assert data["per_game_bins"][0][1] == [None] * 3


# ------------------------------------------------------------------ probe inputs (layout fields)
@pytest.mark.parametrize("game,names", [
    ("clans", ["seat_colour_moved", "own_colour", "seat_colour_points"]),
    ("prowl", ["hand", "seat"]),
    ("badland_wolves", ["phase", "seat"]),
    ("clandestine", ["round", "phase"]),
])
def test_probe_input_columns_are_the_layout_fields(game, names):
    """The selected entries of a real observation are the named fields' ``Layout.view``s,
    flattened and concatenated in the order given (every game exposes ``state.layout``)."""
    from training.probe import input_columns, observation_layout_of

    st = _play(new_game(game, 4), 6, 4)
    lay = observation_layout_of(st)
    obs = st.observation_tensor(1)
    cols = input_columns(lay, names, game)
    want = np.concatenate([lay.view(obs, x).ravel() for x in names])
    assert cols.dtype == np.int64 and len(cols) == sum(lay[x].size for x in names)
    np.testing.assert_array_equal(obs[cols], want)
    assert want.any()


def test_probe_input_columns_on_three_player_clans_summaries():
    """3-player Clans: the two public-history summaries are 2 x 3 seats x 5 colours = 30
    entries, indices ``start..stop - 1`` of each field; after six moves the observer's own
    relative seat 0 has moved huts, so its ``seat_colour_moved`` row is not all zero."""
    from envs.clans.engine import observation_layout
    from training.probe import input_columns

    lay = observation_layout(3)
    cols = input_columns(lay, ["seat_colour_points", "seat_colour_moved"])
    p, m = lay["seat_colour_points"], lay["seat_colour_moved"]
    np.testing.assert_array_equal(cols, list(range(p.start, p.start + 15))
                                  + list(range(m.start, m.start + 15)))
    st = _play(new_game("clans", 4, num_players=3), 6, 4)
    obs = st.observation_tensor(0)
    assert obs[cols][15:20].sum() > 0


def test_probe_inputs_refuse_unknown_repeated_and_empty_fields(capsys):
    from training.probe import input_columns, main, observation_layout_of, parse_inputs

    lay = new_game("clans", 0).layout
    with pytest.raises(ValueError, match=r"unknown observation field\(s\) of clans: nope, "
                                         r"alas; known: huts, area_total"):
        input_columns(lay, ["seat_colour_points", "nope", "alas"], "clans")
    with pytest.raises(ValueError, match="given twice: own_colour"):
        input_columns(lay, ["own_colour", "huts", "own_colour"])
    with pytest.raises(ValueError, match="no observation fields"):
        input_columns(lay, [])
    assert parse_inputs(" huts, own_colour") == ["huts", "own_colour"]
    assert parse_inputs(None) is None
    with pytest.raises(ValueError, match="empty field name"):
        parse_inputs("huts,,own_colour")

    class NoLayout:
        observation_size = 7

    with pytest.raises(ValueError, match="NoLayout exposes no observation layout"):
        observation_layout_of(NoLayout())
    # the command refuses before generating any game: a one-line error, exit 2
    with pytest.raises(SystemExit) as exc:
        main(["--game", "clans", "--games", "1", "--inputs", "seat_colour_points,nope",
              "--out", "unused.pt"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--inputs: unknown observation field(s) of clans: nope; known: huts" in err


def test_probe_with_inputs_saves_them_and_tracks_a_clans_game(tmp_path):
    """A 3-player Clans probe on the two public-history summaries: its meta names the fields
    and the 30-entry input, the network reads 30 entries, and the tracker's rows on a real
    game sum to 1 with no mass on the observer's own colour; a meta naming a field the game
    lacks is refused at reset."""
    import torch

    from agents.belief import ProbeTracker
    from training.probe import load_probe, main

    names = ["seat_colour_points", "seat_colour_moved"]
    path = tmp_path / "f.pt"
    assert main(["--game", "clans", "--num-players", "3", "--agents", "random", "--games", "3",
                 "--epochs", "1", "--hidden", "8", "--inputs", ",".join(names),
                 "--out", str(path)]) == 0
    net, meta = load_probe(path)
    assert meta["inputs"] == names and meta["input_size"] == 30 and meta["obs_size"] == 6312
    assert net[0].in_features == 30
    st = new_game("clans", 7, num_players=3)
    tr = ProbeTracker("clans", str(path))
    tr.reset(st, 2)
    rng = np.random.default_rng(7)
    for _ in range(8):
        a = int(rng.choice(st.legal_actions()))
        _apply_tracked(st, tr, a)
        b = tr.belief()
        assert b.shape == (3, 5)
        np.testing.assert_allclose(b[[0, 1]].sum(axis=1), 1.0)
        assert (b[[0, 1], int(st.colours[2])] == 0.0).all()
    np.testing.assert_array_equal(st.observation_tensor(2)[tr.cols],
                                  np.concatenate([st.layout.view(st.observation_tensor(2), x)
                                                  .ravel() for x in names]))
    blob = torch.load(path, weights_only=False)
    blob["meta"]["inputs"] = ["seat_colour_points", "nope"]
    torch.save(blob, tmp_path / "bad.pt")
    with pytest.raises(ValueError, match="unknown observation field"):
        ProbeTracker("clans", str(tmp_path / "bad.pt")).reset(new_game("clans", 7), 0)


def test_probe_on_selected_columns_read_shard_by_shard_trains_the_same_network(tmp_path):
    """``load_selected`` keeps only the inputs' entries of each shard; training on it gives the
    same weights and meta (the whole observation's ``obs_size`` included) as training on the
    whole loaded dataset with the same inputs, and data selected with other columns is
    refused."""
    import torch

    from training.dataset import generate, load_dataset
    from training.probe import input_columns, load_selected, observation_layout_of, train

    names = ["hand", "seat"]
    index = generate("prowl", {"num_players": 3}, ["random"], 12, tmp_path / "d", seed=4,
                     shard_size=50)
    assert len(index["shards"]) > 2
    cols = input_columns(observation_layout_of(new_game("prowl", 0, num_players=3)), names)
    full = load_dataset(tmp_path / "d", ("obs", "truth", "game"))
    sel = load_selected(tmp_path / "d", cols)
    np.testing.assert_array_equal(sel["obs"], full["obs"][:, :, cols])
    assert int(sel["obs_size"]) == full["obs"].shape[2]
    quiet = lambda *_: None   # noqa: E731
    net_a, meta_a = train(full, index, epochs=2, hidden=8, seed=1, log=quiet, inputs=names)
    net_b, meta_b = train(sel, index, epochs=2, hidden=8, seed=1, log=quiet, inputs=names)
    assert meta_a == meta_b and meta_b["obs_size"] == full["obs"].shape[2]
    for (ka, va), (kb, vb) in zip(net_a.state_dict().items(), net_b.state_dict().items()):
        assert ka == kb and torch.equal(va, vb)
    with pytest.raises(ValueError, match="selected entries a seat"):
        train(sel, index, epochs=1, hidden=8, log=quiet, inputs=["hand"])
    with pytest.raises(ValueError, match="outside the"):
        load_selected(tmp_path / "d", np.array([full["obs"].shape[2]]))


def test_probe_saved_without_inputs_reads_the_whole_observation(tmp_path):
    """A probe whose meta has no ``inputs`` nor ``input_size`` (saved before the option) loads
    with the whole observation as input and gives the same beliefs as the same network saved
    with ``inputs`` None."""
    import torch

    from agents.belief import ProbeTracker
    from training.probe import main

    path = tmp_path / "w.pt"
    assert main(["--game", "clans", "--num-players", "2", "--agents", "random", "--games", "2",
                 "--epochs", "1", "--hidden", "8", "--out", str(path)]) == 0
    blob = torch.load(path, weights_only=False)
    assert blob["meta"]["inputs"] is None
    assert blob["meta"]["input_size"] == blob["meta"]["obs_size"] == 6116   # 2-player Clans
    del blob["meta"]["inputs"], blob["meta"]["input_size"]
    torch.save(blob, tmp_path / "old.pt")
    st = _play(new_game("clans", 5, num_players=2), 4, 5)
    beliefs = []
    for p in (path, tmp_path / "old.pt"):
        tr = ProbeTracker("clans", str(p), support=False)
        tr.reset(st, 0)
        assert tr.cols is None
        beliefs.append(tr.belief())
    np.testing.assert_array_equal(beliefs[0], beliefs[1])
    np.testing.assert_allclose(beliefs[1][1].sum(), 1.0)


def test_policy_tracker_divides_out_the_redrawn_badland_wolves_share_deal():
    """Seed 0, four wolves: Lead Wolf 2 deals one of its two drawn cards (a Feather and a
    Thorn Tied) into hunter 1's share. The resampler's worlds for wolves 0 and 3 deal a
    uniformly drawn one of the Lead Wolf's two drawn cards (of the world), so here the adapter
    gives the tracker probability 1/2 for either type (the dealer and the receiver see the real
    deal: None); the worlds deal several types, and their history likelihoods are finite."""
    from envs.badland_wolves import BadlandWolvesState
    from envs.badland_wolves.cards import NUM_SCRAP_TYPES
    from tests.test_badland_wolves_recall import _after_first_share_deal, _dealt

    real = _after_first_share_deal(4, 0)
    st = BadlandWolvesState(seed=0, num_players=4)
    while not st.legal_action_mask()[st.ids.GIVE:st.ids.GIVE + 4 * NUM_SCRAP_TYPES].any():
        st.apply_action(real.history[len(st.history)])
    assert st.lead == 2 and st.drawn.tolist() == [0, 0, 0, 0, 0, 1, 0, 0, 1]
    ad = adapter_for("badland_wolves")
    give = st.ids.GIVE + NUM_SCRAP_TYPES
    assert [ad.resampled_choice_prob(st, give + 8, s) for s in range(4)] == [0.5, None, None, 0.5]
    assert ad.resampled_choice_prob(st, give + 5, 3) == 0.5
    assert ad.resampled_choice_prob(st, st.ids.HUNT, 0) is None
    tr = PolicyTracker("badland_wolves", RandomPolicy(), particles=1, seed=1)
    st = BadlandWolvesState(seed=0, num_players=4)
    tr.reset(st, 0)
    for a in real.history:
        _apply_tracked(st, tr, a)
    rng = np.random.default_rng(3)
    worlds = [real.resample_from_infostate(0, rng) for _ in range(20)]
    assert len({tuple(_dealt(w)) for w in worlds}) > 1
    lls = [tr.history_loglik(w) for w in worlds]
    assert all(ll is not None and math.isfinite(ll) for ll in lls), lls


def test_deduction_merge_refuses_runs_of_another_game_or_config_and_odd_files(tmp_path, capsys):
    """--merge of a Prowl and a Clans run (same trackers) was merged silently, as were runs at
    two player counts; a JSON file that is not an object of trackers ended in a traceback
    (AttributeError, StopIteration), as did --json naming a folder with --merge. Each is one
    line (exit 2) now, and a merge of runs of one configuration still goes through."""
    import json

    from benchmarks.deduction import main

    def one(game, players, seed, name):
        f = tmp_path / name
        assert main(["--game", game, "--num-players", str(players), "--players", "random",
                     "--games", "1", "--trackers", "uniform", "--max-decisions", "4",
                     "--seed", str(seed), "--png", str(tmp_path / "p.png"),
                     "--json", str(f)]) == 0
        return str(f)

    c3, c3b = one("clans", 3, 1, "c3.json"), one("clans", 3, 2, "c3b.json")
    c4, p4 = one("clans", 4, 1, "c4.json"), one("prowl", 4, 1, "p4.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "empty.json").write_text("{}")
    png = ["--png", str(tmp_path / "m.png")]
    capsys.readouterr()
    for files, extra, words in (
            ([c4, p4], [], "only runs of the same game and configuration merge"),
            ([c3, c4], [], "only runs of the same game and configuration merge"),
            ([p4], [], "the files are runs of prowl, not --game clans"),
            ([str(tmp_path / "list.json")], [], "is not a --json file of this benchmark"),
            ([str(tmp_path / "empty.json")], [], "is not a --json file of this benchmark"),
            ([c3], ["--json", str(tmp_path)], "is a directory: give a file name")):
        with pytest.raises(SystemExit) as exc:
            main(["--game", "clans", "--merge", *files, *png, *extra])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err
    out = tmp_path / "m.json"
    assert main(["--game", "clans", "--merge", c3, c3b, *png, "--json", str(out)]) == 0
    merged = json.loads(out.read_text())
    assert merged["uniform"]["game"] == "clans" and merged["uniform"]["games"] == 2
    assert merged["uniform"]["config"]["num_players"] == 3


def _deduction_part(tmp_path, name, *extra, seed=1):
    """A one-game (unless ``extra`` says otherwise), 4-decision Clans run of the uniform and
    policy trackers written with --json; returns the file's path and its heading line."""
    import contextlib
    import io

    from benchmarks.deduction import main

    f = tmp_path / name
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["--game", "clans", "--num-players", "3", "--players", "random",
                     "--games", "1", "--trackers", "uniform", "policy", "--max-decisions", "4",
                     "--seed", str(seed), "--png", str(tmp_path / "p.png"), "--json", str(f),
                     *extra]) == 0
    return str(f), buf.getvalue().splitlines()[0]


def test_deduction_merge_refuses_parts_run_with_other_options(tmp_path, capsys):
    """The run options that change what a tracker computes were not written with --json, so
    --merge averaged runs of 5 and 7 particles (or of two observer seats) as one run. Each
    tracker's entry records them now, and parts whose options differ are refused, naming the
    parts, the options and their values; --seed and --games may differ."""
    import json
    from pathlib import Path

    from benchmarks.deduction import merge

    a, head = _deduction_part(tmp_path, "a.json", "--particles", "5", seed=1)
    b, _ = _deduction_part(tmp_path, "b.json", "--particles", "7", seed=2)
    s, _ = _deduction_part(tmp_path, "s.json", "--particles", "5", "--observer-seat", "2", seed=2)
    pa, pb, ps = (json.loads(Path(f).read_text()) for f in (a, b, s))
    assert pa["policy"]["options"] == pa["uniform"]["options"] == {
        "players": ["random", "random", "random"], "observer_seat": 0, "max_decisions": 4,
        "particles": 5, "samples": 200, "epsilon": 0.1, "policy_samples": None,
        "policy_mix": 0.0, "refresh": 1, "move_steps": 0, "probe": None}
    # the heading shows them, leaving out the options no tracker of the run reads (--samples)
    assert head == ("## clans {'num_players': 3}, 1 games; --players random random random "
                    "--observer-seat 0 --max-decisions 4 --particles 5 --epsilon 0.1 "
                    "--policy-mix 0.0 --move-steps 0")
    with pytest.raises(ValueError) as exc:
        merge([pa, pb])
    assert str(exc.value) == ("part 1 was run with other options than part 0: particles 7 "
                              "(part 0: 5); only runs with the same options merge")
    with pytest.raises(ValueError) as exc:
        merge([pa, pa, ps])
    assert str(exc.value).startswith("part 2 was run with other options than part 0: "
                                     "observer_seat 2 (part 0: 0)")
    from benchmarks.deduction import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["--game", "clans", "--merge", a, b, "--png", str(tmp_path / "m.png")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "particles 7 (part 0: 5)" in err, err


def test_deduction_merge_keeps_the_options_of_parts_run_alike(tmp_path, capsys):
    """Parts of other seeds and game counts run with the same options merge; the merged --json
    carries the options (so it merges again, with a third part) and the heading shows them."""
    import json
    from pathlib import Path

    from benchmarks.deduction import main

    a, _ = _deduction_part(tmp_path, "a.json", "--particles", "5", seed=1)
    b, _ = _deduction_part(tmp_path, "b.json", "--particles", "5", "--games", "2",
                           "--players", "random", "random", "random",   # spelt per seat
                           seed=2)
    options = json.loads(Path(a).read_text())["policy"]["options"]
    out = tmp_path / "m.json"
    capsys.readouterr()
    assert main(["--game", "clans", "--merge", a, b, "--png", str(tmp_path / "m.png"),
                 "--json", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "## clans, 3 games merged from 2 files; --players random random random "
        "--observer-seat 0 --max-decisions 4 --particles 5 --epsilon 0.1 --policy-mix 0.0 "
        "--move-steps 0")
    merged = json.loads(out.read_text())
    assert merged["uniform"]["options"] == merged["policy"]["options"] == options
    assert merged["policy"]["games"] == 3
    again = tmp_path / "m2.json"
    assert main(["--game", "clans", "--merge", str(out), a, "--png", str(tmp_path / "m.png"),
                 "--json", str(again)]) == 0
    again = json.loads(again.read_text())
    assert again["policy"]["games"] == 4 and again["policy"]["options"] == options


def test_deduction_merge_of_files_without_options(tmp_path, capsys):
    """Files written before the run options were recorded (no "options") still merge with each
    other, unchecked, and the heading says the options are not recorded; a file without options
    and one with them are refused, naming the part that lacks them."""
    import json
    from pathlib import Path

    from benchmarks.deduction import main, merge

    a, _ = _deduction_part(tmp_path, "a.json", seed=1)
    b, _ = _deduction_part(tmp_path, "b.json", seed=2)
    olds = []
    for f in (a, b):
        data = json.loads(Path(f).read_text())
        for r in data.values():
            del r["options"]
        old = tmp_path / ("old_" + f.rsplit("/", 1)[1])
        old.write_text(json.dumps(data))
        olds.append(str(old))
    out = tmp_path / "m.json"
    capsys.readouterr()
    assert main(["--game", "clans", "--merge", *olds, "--png", str(tmp_path / "m.png"),
                 "--json", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "## clans, 2 games merged from 2 files; run options not recorded")
    merged = json.loads(out.read_text())
    assert merged["policy"]["games"] == 2 and "options" not in merged["policy"]
    new, old = json.loads(Path(a).read_text()), json.loads(Path(olds[1]).read_text())
    with pytest.raises(ValueError) as exc:
        merge([new, old, new])
    assert str(exc.value) == (
        "part(s) 1 record no run options (written before they were recorded), part 0 does: a "
        "run whose options are unknown does not merge with one whose options are known")
    with pytest.raises(ValueError, match=r"^part\(s\) 0 record no run options .* part 1 does"):
        merge([old, new])
    with pytest.raises(SystemExit) as exit_:
        main(["--game", "clans", "--merge", olds[0], b, "--png", str(tmp_path / "m.png")])
    assert exit_.value.code == 2
    assert "part(s) 0 record no run options" in capsys.readouterr().err


def _stepwise_history_loglik(tr, world):
    """The whole-history likelihood by its step-by-step definition: every replayed state kept
    as a copy, every step's likelihood from ``PolicyTracker._step_likelihood`` (all matching
    candidates, the recorded one included, tried on copies). The reference the faster
    ``history_loglik`` must equal."""
    from envs.core.state import IllegalActionError, RecordError

    seat, rec = tr.seat, world.to_record()
    ll, prev = 0.0, None
    try:
        for i, st in enumerate(type(world).replay_steps(rec)):
            if i > 0:
                a = rec["actions"][i - 1]
                actor = prev.current_player
                if actor != seat:
                    h = tr.adapter.resampled_choice_prob(prev, a, seat)
                    if h is not None:
                        like = tr.model.probs(prev.observation_tensor(actor),
                                              prev.legal_action_mask(), actor)[a] / h
                    else:
                        like, _ = tr._step_likelihood(prev, a, actor, tr.real_obs[i],
                                                      tr.adapter.public_action(prev, a), False)
                    if like <= 0:
                        return -math.inf
                    ll += math.log(like)
            if i >= len(tr.real_obs) or not np.array_equal(st.observation_tensor(seat),
                                                           tr.real_obs[i]):
                return None
            prev = st.clone()
    except (RecordError, IllegalActionError):
        return None
    if prev is None or not np.array_equal(tr.adapter.truth(prev), tr.adapter.truth(world)):
        return None
    return ll


class _TwoLowestLegal:
    """Action model: 1/2 on each of the two lowest legal ids (1 on a single legal id), so that
    worlds where another seat played otherwise have likelihood 0."""

    def reset(self):
        pass

    def probs(self, observation, mask, seat):
        legal = np.flatnonzero(mask)[:2]
        p = np.zeros(len(mask))
        p[legal] = 1.0 / len(legal)
        return p


@pytest.mark.parametrize("model", ["epsilon", "two-lowest"])
@pytest.mark.parametrize("game,num_players,steps", [
    ("badland_wolves", 3, 120), ("badland_wolves", 4, 200), ("prowl", 4, 40), ("clans", 3, 30),
])
def test_history_loglik_equals_its_stepwise_definition(game, num_players, steps, model):
    """``history_loglik`` advances the replayed state itself and tries only the other
    candidate actions on copies (it kept a copy of every step and tried the recorded action on
    another before); its value must be the step-by-step definition's, exactly, on resampled
    worlds (finite under the epsilon-heuristic), on worlds that contradict the play (``-inf``:
    heuristic players, a model that never plays most moves) and on a world drawn for another
    seat (None or ``-inf``, whichever check of the definition fails first)."""
    from agents import act_with_state, make_agent
    from agents.belief import heuristic_policy

    st = new_game(game, 7, num_players=num_players)
    ags = [make_agent("heuristic", game, st.config, seed=s) for s in range(num_players)]
    for ag in ags:
        ag.reset()
    am = heuristic_policy(game, st.config, epsilon=0.1) if model == "epsilon" else _TwoLowestLegal()
    tr = PolicyTracker(game, am, particles=1, seed=1)
    tr.reset(st, 0)
    for _ in range(steps):
        if st.is_over:
            break
        actor = st.current_player
        obs = {"observation": st.observation_tensor(actor), "action_mask": st.legal_action_mask()}
        _apply_tracked(st, tr, int(act_with_state(ags[actor], obs, f"player_{actor}", st)))
    rng = np.random.default_rng(5)
    worlds = [st.resample_from_infostate(0, rng) for _ in range(12)]
    got = [tr.history_loglik(w) for w in worlds]
    want = [_stepwise_history_loglik(tr, w) for w in worlds]
    assert got == want
    if model == "epsilon":   # every world has positive likelihood under an epsilon model
        assert all(v is not None and math.isfinite(v) for v in got), got
    else:                    # the heuristic players' moves are not all among the two lowest
        assert -math.inf in got, got
    # another seat's view of the same game is not seat 0's history: no replay to it
    other = st.resample_from_infostate(1, rng)
    assert tr.history_loglik(other) == _stepwise_history_loglik(tr, other)
    assert tr.history_loglik(other) in (None, -math.inf)


def _other_seat_steps(world, seat):
    """``(step, first illegal id, chance-log length before)`` of every step of ``world``'s
    record where a seat other than ``seat`` decides, and whether that step draws chance (the
    length, else None)."""
    rec = world.to_record()
    out = []
    for i, s in enumerate(type(world).replay_steps(rec)):
        if i < len(rec["actions"]) and s.current_player != seat:
            before = len(s.chance_log)
            q = s.clone()
            q.apply_action(rec["actions"][i])
            out.append((i, int(np.flatnonzero(s.legal_action_mask() == 0)[0]),
                        before if len(q.chance_log) > before else None))
    return out


def test_history_loglik_is_none_when_the_record_does_not_replay():
    """A world whose record does not replay gets None, as by the step-by-step definition
    (the replay fails before that step's likelihood is counted), whatever the likelihood of
    the step would be: another seat's action replaced by an illegal id (Badland Wolves, whose
    public actions have no other matching candidate) and the chance outcome another seat's
    step draws renamed (Clandestine with a Nemesis, whose turn draws an Intent card after the
    other human's action)."""
    from agents import act_with_state, make_agent
    from agents.belief import heuristic_policy
    from envs.clandestine.engine import ClandestineState

    st = new_game("badland_wolves", 7, num_players=3)
    ags = [make_agent("heuristic", "badland_wolves", st.config, seed=s) for s in range(3)]
    for ag in ags:
        ag.reset()
    tr = PolicyTracker("badland_wolves", heuristic_policy("badland_wolves", st.config),
                       particles=1, seed=1)
    tr.reset(st, 0)
    for _ in range(30):
        actor = st.current_player
        obs = {"observation": st.observation_tensor(actor), "action_mask": st.legal_action_mask()}
        _apply_tracked(st, tr, int(act_with_state(ags[actor], obs, f"player_{actor}", st)))
    world = st.resample_from_infostate(0, np.random.default_rng(5))
    assert math.isfinite(tr.history_loglik(world))
    steps = _other_seat_steps(world, 0)
    for i, illegal, _ in steps[-3:] + steps[:1]:
        bad = world.clone()
        bad.history[i] = illegal
        assert _stepwise_history_loglik(tr, bad) is None
        assert tr.history_loglik(bad) is None, f"illegal id at step {i}"

    st = ClandestineState(seed=1, num_players=2, nemesis="most_holy", difficulty=1)
    tr = PolicyTracker("clandestine", RandomPolicy(), particles=1, seed=1)
    tr.reset(st, 0)
    rng = np.random.default_rng(1)
    for _ in range(80):
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
        tr.real_obs.append(st.observation_tensor(0))   # seat 0's view (no particle moved)
    world = st.resample_from_infostate(0, rng)
    assert math.isfinite(tr.history_loglik(world))
    drawn = [(i, k) for i, _, k in _other_seat_steps(world, 0) if k is not None]
    assert len(drawn) >= 3, drawn
    for i, k in drawn[-2:]:
        bad = world.clone()
        bad.chance_log[k] = ["bogus", bad.chance_log[k][1]]
        assert _stepwise_history_loglik(tr, bad) is None
        assert tr.history_loglik(bad) is None, f"renamed chance outcome at step {i}"
