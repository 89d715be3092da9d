"""Advice (agents/advice.py): the heuristic's recommended moves as extra inputs of a policy."""

import json

import numpy as np
import pytest

from agents import make_agent
from agents.advice import Advisor, advised, check_advice
from agents.learned import PolicyAgent
from envs import env_module, make_raw_env
from training.selfplay import LearnerEnv, OpponentPool
from training.selfplay import main as selfplay_main


def _views(game, num_players, games, seed):
    """(seat, view) of every decision of ``games`` heuristic-only games, in order."""
    cls = env_module(game).raw_env.state_class
    out = []
    for g in range(games):
        state = cls(seed=seed + g, num_players=num_players)
        players = [make_agent("heuristic", game, dict(state.config), seed=g * 10 + p)
                   for p in range(num_players)]
        views = []
        while not state.is_over:
            p = state.current_player
            view = {"observation": state.observation_tensor(p),
                    "action_mask": state.legal_action_mask()}
            views.append((p, view))
            state.apply_action(players[p].act(view, f"player_{p}"))
        out.append((dict(state.config), views))
    return out


def test_clans_advice_is_the_heuristics_tie_set_and_bw_advice_its_action():
    """Every decision of 3 games per game: Clans advice = best_moves of a heuristic that saw
    the same observations (its colour evidence grows over the game); Badland Wolves advice =
    the one action its heuristic plays."""
    for game, n in (("clans", 3), ("badland_wolves", 4)):
        for config, views in _views(game, n, 3, seed=40):
            advisors = [Advisor("heuristic", game, config, seed=p) for p in range(n)]
            twins = [make_agent("heuristic", game, config, seed=p) for p in range(n)]
            for a in advisors + twins:
                a.reset()
            multi = 0
            for p, view in views:
                vec = advisors[p](view, f"player_{p}")
                assert vec.dtype == np.float32 and vec.shape == view["action_mask"].shape
                assert set(np.unique(vec)) <= {0.0, 1.0}
                on = np.flatnonzero(vec)
                assert on.size >= 1 and view["action_mask"][on].all()
                if game == "clans":
                    assert on.tolist() == twins[p].best_moves(view, f"player_{p}").tolist()
                    multi += on.size > 1
                else:
                    assert on.tolist() == [twins[p].act(view, f"player_{p}")]
            if game == "clans":
                assert multi > 0          # ties happen in every Clans game


def test_advice_is_zero_without_a_decision_and_bad_kinds_are_refused():
    adv = Advisor("heuristic", "clans", {"num_players": 3})
    state = make_raw_env("clans", num_players=3)
    state.reset(seed=1)
    obs = state.observe("player_0")
    none = {"observation": obs["observation"], "action_mask": np.zeros_like(obs["action_mask"])}
    assert not adv(none, "player_0").any()
    with pytest.raises(ValueError, match="unknown advice 'oracle'"):
        check_advice("oracle")
    with pytest.raises(ValueError, match="unknown advice"):
        Advisor("oracle", "clans", {"num_players": 3})
    assert check_advice(None) is None and check_advice("heuristic") == "heuristic"
    np.testing.assert_array_equal(advised(np.ones(2), np.zeros(3)), [1, 1, 0, 0, 0])


def test_learner_env_observation_carries_the_advice_of_its_own_advisor():
    """Along two Clans episodes, obs = [the seat's observation_tensor, advice] where advice
    is what a fresh advisor reset at each game gives on the same observations."""
    from envs.clans import ClansState

    cfg = dict(ClansState(seed=0, num_players=3).config)
    pool = OpponentPool("clans", cfg, {"heuristic": 1.0}, advice="heuristic")
    env = LearnerEnv(ClansState, cfg, pool, seed=5)
    d, a_n = ClansState(seed=0, **cfg).observation_size, env.action_space.n
    assert env.observation_space.shape == (d + a_n,)
    twin = Advisor("heuristic", "clans", cfg)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(2):
        obs, info = env.reset()
        twin.reset()
        done = False
        while not done:
            base = env.state.observation_tensor(env.seat)
            np.testing.assert_array_equal(obs[:d], base)
            view = {"observation": base, "action_mask": info["action_mask"]}
            np.testing.assert_array_equal(obs[d:], twin(view, f"player_{env.seat}"))
            advised_moves = np.flatnonzero(obs[d:])
            checked += 1
            obs, _, term, trunc, info = env.step(int(rng.choice(advised_moves)))
            done = term or trunc
        assert not obs[d:].any()           # the last observation has no advice
    assert checked > 20


def test_selfplay_with_advice_saves_a_policy_that_rebuilds_its_advisor(tmp_path, capsys):
    """--advice heuristic on the toy game: the warm start fits the advice, the saved model
    carries the kind, ppo:PATH builds an advisor per instance and takes game-sized
    observations; a resume with other advice and a belief model of it are refused."""
    args = ["--game", "toy", "--run-dir", str(tmp_path), "--n-envs", "2", "--n-steps", "64",
            "--batch-size", "64", "--eval-games", "10", "--no-progress", "--imitation-games",
            "30", "--imitation-epochs", "3", "--advice", "heuristic", "--timesteps", "128",
            "--opponents", "heuristic=0.5,snapshot=0.5", "--snapshot-every", "64"]
    assert selfplay_main(args) == 0
    state = json.loads((tmp_path / "checkpoints" / "state.json").read_text())
    assert state["advice"] == "heuristic"
    spec = f"ppo:{tmp_path / 'final_model.zip'}"
    from tests.toy_game import ToyState

    agent = make_agent(spec, "toy", dict(ToyState(seed=0).config))
    assert agent.advice == "heuristic" and agent.obs_size == 13 and agent.input_size == 15
    obs = {"observation": np.zeros(13, np.float32), "action_mask": np.array([1, 1], np.int8)}
    assert agent.act(obs, "player_0") in (0, 1)
    twin = agent.spawn(3)
    assert twin.advisor is not agent.advisor and twin.advisor.agent is not agent.advisor.agent
    with pytest.raises(ValueError, match="needs the game and its config"):
        PolicyAgent.load(tmp_path / "final_model.zip")
    with pytest.raises(ValueError, match="policy 'ppo:.*' expects observations of shape"):
        make_agent(spec, "clans", {"num_players": 3})   # another game: refused up front
    with pytest.raises(SystemExit):
        selfplay_main([a for a in args if a not in ("--advice", "heuristic")]
                      + ["--timesteps", "256", "--overwrite"])
    assert "advice 'heuristic', not None" in capsys.readouterr().err
    from agents.belief import SoftmaxPolicyAgent

    with pytest.raises(ValueError, match="reads 'heuristic' advice"):
        SoftmaxPolicyAgent(agent)


def test_every_seat_of_an_advised_policy_has_its_own_advisor():
    """One instance per seat and game (CONVENTIONS.md, "Agents"): the shipped advised Clans
    policy as two opponent seats of the single-agent env holds two advisors with their own
    heuristics, its spawn copies share no advisor, and one object at two seats is refused."""
    from envs.core.single_agent import SingleAgentEnv
    from training.arena import play_game

    env = SingleAgentEnv("clans", opponents="ppo:clans", num_players=3, seed=0)
    for ep in range(2):
        env.reset(seed=ep)
        done = False
        while not done:
            _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            done = term or trunc
        ops = [a for _, a in env.opponents.values()]
        assert len(ops) == 2 and ops[0] is not ops[1]
        assert ops[0].advisor is not ops[1].advisor
        assert ops[0].advisor.agent is not ops[1].advisor.agent
    a = make_agent("ppo:clans", "clans", {"num_players": 3}, seed=0)
    b = a.spawn(1)
    assert b.advisor is not a.advisor and b.advisor.agent is not a.advisor.agent
    assert (b.advisor.advice, b.advisor.game, b.advisor.config) == ("heuristic", "clans",
                                                                    a.advisor.config)
    h = make_agent("heuristic", "clans", {"num_players": 3}, seed=0)
    with pytest.raises(ValueError, match="same agent object"):
        play_game(make_raw_env("clans", num_players=3), [a, a, h], 0)


def _advised_policy(obs_dim, n_actions, net, advice_weight=5.0, seed=0):
    import gymnasium as gym
    import torch

    from agents.advised_policy import AdvisedActorCriticPolicy

    torch.manual_seed(seed)
    space = gym.spaces.Box(0.0, 1.0, (obs_dim + n_actions,), np.float32)
    return AdvisedActorCriticPolicy(space, gym.spaces.Discrete(n_actions), lambda _: 1e-3,
                                    net_arch=net, advice_weight=advice_weight)


def _assert_residual_matches(agent, logits, obs_dim, n, rng, draws, advised):
    """``agent``'s numpy residual actor gives ``logits(x)`` (torch's, up to a constant) on
    ``draws`` random inputs, each action advised with probability ``advised``."""
    hidden, w_h, w_a, b = agent._residual
    for _ in range(draws):
        x = np.concatenate([rng.random(obs_dim), (rng.random(n) < advised)]).astype(np.float32)
        x_h = x
        for w, bb, act in hidden:
            x_h = np.tanh(x_h @ w + bb) if act == "tanh" else x_h @ w + bb
        mine = x_h @ w_h + x[-n:] @ w_a + b
        ref = logits(x)
        assert np.allclose(mine - mine.max(), ref - ref.max(), atol=1e-4)


def test_advised_policy_adds_the_advice_to_its_logits_and_numpy_matches_torch():
    """The residual head: at initialisation each advised action's logit is raised by
    advice_weight over the same input without advice (the head's advice block is
    advice_weight * I); the agent's numpy actor gives torch's logits on 200 random inputs
    (also after the weights are perturbed), so ppo:PATH acts as the trained policy."""
    import torch

    obs_dim, n = 11, 7
    policy = _advised_policy(obs_dim, n, [16, 16], advice_weight=5.0)
    h = policy.mlp_extractor.hidden_dim_pi
    assert h == 16 and policy.mlp_extractor.latent_dim_pi == 16 + n
    assert torch.equal(policy.action_net.weight[:, h:], 5.0 * torch.eye(n))
    rng = np.random.default_rng(0)
    obs = rng.random(obs_dim).astype(np.float32)
    advice = np.zeros(n, np.float32)
    advice[[1, 4]] = 1.0

    def logits(x):
        with torch.no_grad():
            d = policy.get_distribution(torch.as_tensor(x[None]))
        return d.distribution.logits.numpy()[0].astype(np.float64)

    x = torch.as_tensor(np.concatenate([obs, advice])[None])
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(
            x, policy.features_extractor))
        assert torch.equal(latent[0, h:], torch.as_tensor(advice))    # the advice, unchanged
        assert torch.equal(latent[0, :h], policy.mlp_extractor.policy_net(x)[0])
        head = policy.action_net(latent)[0].numpy().astype(np.float64)
        blind = latent.clone()
        blind[0, h:] = 0.0                    # the same hidden layer, the advice left out
        base = policy.action_net(blind)[0].numpy().astype(np.float64)
    assert np.allclose(head - base, 5.0 * advice, atol=1e-5)   # +5 on actions 1 and 4 only
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(0.3 * torch.randn_like(p))
    agent = PolicyAgent(policy)
    assert agent._layers is None and agent._residual is not None
    _assert_residual_matches(agent, logits, obs_dim, n, rng, draws=200, advised=0.3)


def test_advised_policy_follows_the_advice_after_a_short_clone_and_survives_save_load(tmp_path):
    """A behaviour clone of a 60-action advice (one advised move among 60, hidden size 8,
    far narrower than the action count) on 2,000 random inputs follows the advice on 500
    fresh inputs; MaskablePPO save/load keeps the class, advice_weight and the choices."""
    import torch

    from agents.advised_policy import AdviceMlpExtractor, AdvisedActorCriticPolicy

    obs_dim, n = 20, 60
    policy = _advised_policy(obs_dim, n, [8], seed=1)
    rng = np.random.default_rng(1)

    def batch(size):
        x = rng.random((size, obs_dim)).astype(np.float32)
        best = rng.integers(n, size=size)
        adv = np.zeros((size, n), np.float32)
        adv[np.arange(size), best] = 1.0
        return np.concatenate([x, adv], axis=1), best

    x, best = batch(2000)
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for _ in range(30):
        d = policy.get_distribution(torch.as_tensor(x))
        loss = -d.log_prob(torch.as_tensor(best)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    agent = PolicyAgent(policy)
    x2, best2 = batch(500)
    mask = np.ones(n, np.int8)
    acts = [agent.act({"observation": row, "action_mask": mask}, "player_0") for row in x2]
    assert np.mean(np.array(acts) == best2) == 1.0
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from envs.core.single_agent import SingleAgentEnv

    class Advised(gym.ObservationWrapper):      # the toy game's 13 entries + 2 advice entries
        observation_space = gym.spaces.Box(0.0, 1.0, (15,), np.float32)

        def observation(self, o):
            return np.concatenate([o, np.zeros(2, np.float32)])

        def action_masks(self):
            return self.env.action_masks()

    env = SingleAgentEnv("toy", opponents="random", seed=0)
    model = MaskablePPO(AdvisedActorCriticPolicy, Advised(env), n_steps=32, batch_size=32,
                        policy_kwargs={"net_arch": [8], "advice_weight": 3.0}, device="cpu")
    model.save(tmp_path / "m")
    back = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert isinstance(back.policy, AdvisedActorCriticPolicy)
    assert isinstance(back.policy.mlp_extractor, AdviceMlpExtractor)
    assert back.policy.advice_weight == 3.0
    for a, b in zip(model.policy.state_dict().values(), back.policy.state_dict().values()):
        assert torch.equal(a, b)
    with pytest.raises(ValueError, match="num_actions must be in 1..4"):
        AdviceMlpExtractor(4, [8], torch.nn.Tanh, "cpu", num_actions=5)


def test_advice_agreement_benchmark_counts_the_moves_on_the_advice(capsys):
    """benchmarks/advice_agreement.py over 2 Clans games of the shipped advised policy: the
    counts it prints equal a count made here from a twin heuristic's best_moves on the same
    observations; a policy without advice is refused."""
    from benchmarks.advice_agreement import AgreementAgent
    from benchmarks.advice_agreement import main as agreement_main
    from training.arena import evaluate

    config = {"num_players": 3, "epoch_chart": "rulebook", "reward": "win_loss"}
    policy = make_agent("ppo:clans", "clans", config, seed=5)
    twin = make_agent("heuristic", "clans", config, seed=5)
    mine = {"decisions": 0, "agreed": 0}

    class Checked(AgreementAgent):
        def reset(self):
            super().reset()
            twin.reset()

        def act(self, observation, agent):
            best = twin.best_moves(observation, agent)
            a = super().act(observation, agent)
            assert self.agent.advisor.last[best].all() and self.agent.advisor.last.sum() == best.size
            mine["decisions"] += 1
            mine["agreed"] += int(a in best)
            return a

    wrapped = Checked(policy)
    others = [make_agent("heuristic", "clans", config, seed=i) for i in (1, 2)]
    evaluate("clans", ["ppo:clans", "heuristic", "heuristic"], 2, seed=3, config=config,
             agents=[wrapped] + others)
    assert mine["decisions"] == wrapped.decisions > 10
    assert mine["agreed"] == wrapped.agreed
    assert agreement_main(["--game", "clans", "--spec", "ppo:clans", "--games", "2"]) == 0
    assert "| ppo:clans | 2 |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        agreement_main(["--game", "clans", "--spec", "heuristic", "--games", "1"])


def test_copies_of_an_advised_policy_act_as_the_original_and_share_no_advisor():
    """copy.copy, copy.deepcopy and pickling of the shipped advised Clans policy: a copy made
    mid-game of a sampling agent (deterministic=False) takes the original's moves on the rest
    of the game (its generator state and advisor memory copied, not shared), and a copy at a
    second seat plays the same 2 games as a second agent made alike (one advisor per seat:
    CONVENTIONS.md, "Agents")."""
    import copy
    import pickle

    from agents import shipped_policy_path
    from training.arena import play_game

    config = {"num_players": 3}
    copiers = {"copy": copy.copy, "deepcopy": copy.deepcopy,
               "pickle": lambda a: pickle.loads(pickle.dumps(a))}
    for kind, copier in copiers.items():
        sampler = PolicyAgent.load(shipped_policy_path("clans"), deterministic=False, seed=7,
                                   game="clans", config=config)
        seated = [sampler] + [make_agent("heuristic", "clans", config, seed=s) for s in (1, 2)]
        env = make_raw_env("clans", num_players=3)
        env.reset(seed=4)
        for a in seated:
            a.reset()
        twin, compared = None, 0
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(name.split("_")[1])
            if seat == 0 and twin is None and len(env.game.history) > 12:
                twin = copier(sampler)
            action = seated[seat].act(obs, name)
            if seat == 0 and twin is not None:
                assert twin.act(obs, name) == action, (kind, compared)
                compared += 1
            env.step(action)
        assert compared > 5
    policy = sampler.policy

    def fresh():
        return PolicyAgent(policy, advice="heuristic", game="clans", config=config, seed=0)

    def record(first, second, seed):
        env = make_raw_env("clans", num_players=3)
        h = make_agent("heuristic", "clans", config, seed=1)
        return play_game(env, [first, second, h], seed, keep_record=True)[3]["actions"]

    for g in range(2):
        ref = record(fresh(), fresh(), g)
        for kind, copier in copiers.items():
            a = fresh()
            assert record(a, copier(a), g) == ref, (kind, g)


def test_a_copy_of_an_advisor_has_a_heuristic_of_its_own():
    """copy.copy of a Clans advisor (whose heuristic gathers colour evidence over the game)
    asked at seat 1 while the original advises seat 0, over 3 heuristic games: the original's
    advice is that of an advisor made alike that never had a copy, at every seat-0 decision
    (a shallow copy shared the heuristic: the seat-1 calls moved seat 0's advice at 11 of 81
    decisions of 6 games). copy.deepcopy and pickling likewise."""
    import copy
    import pickle

    copiers = {"copy": copy.copy, "deepcopy": copy.deepcopy,
               "pickle": lambda a: pickle.loads(pickle.dumps(a))}
    for kind, copier in copiers.items():
        checked = 0
        for config, views in _views("clans", 3, 3, seed=40):
            original = Advisor("heuristic", "clans", config, seed=1)
            alike = Advisor("heuristic", "clans", config, seed=1)
            original.reset()
            alike.reset()
            twin = copier(original)
            assert twin.agent is not original.agent
            for p, view in views:
                if p == 1:
                    twin(view, "player_1")
                elif p == 0:
                    want = alike(view, "player_0")
                    assert original(view, "player_0").tolist() == want.tolist(), (kind, checked)
                    checked += 1
        assert checked > 30


def test_advised_policy_refuses_an_action_space_that_is_not_discrete():
    """The advice is one entry per action of a Discrete space: MultiBinary (which also has an
    ``n``), MultiDiscrete and Box action spaces are refused with a ValueError naming the
    space, and an input with no room for the advice names the sizes."""
    import gymnasium as gym

    from agents.advised_policy import AdvisedActorCriticPolicy

    space = gym.spaces.Box(0.0, 1.0, (10,), np.float32)
    for actions in (gym.spaces.MultiBinary(4), gym.spaces.MultiDiscrete([3, 4]),
                    gym.spaces.Box(-1.0, 1.0, (3,))):
        with pytest.raises(ValueError, match="needs a discrete action space, got"):
            AdvisedActorCriticPolicy(space, actions, lambda _: 1e-3, net_arch=[8])
    with pytest.raises(ValueError, match="num_actions must be in 1..10"):
        AdvisedActorCriticPolicy(space, gym.spaces.Discrete(11), lambda _: 1e-3, net_arch=[8])


@pytest.mark.parametrize("argv, message", [
    (["--game", "clans", "--spec", "ppo:clans", "--games", "0"], "--games must be >= 1"),
    (["--game", "clans", "--spec", "ppo:clans", "--num-players", "0"],
     "--num-players must be >= 1"),
    (["--game", "nosuch", "--spec", "ppo:clans"], "unknown game 'nosuch'"),
    (["--game", "clans", "--spec", "ppo:clans", "--num-players", "4"],
     "the shipped policy plays 3-player games"),
    (["--game", "clans", "--spec", "ppo:clans", "--opponents", "bogus"],
     "unknown agent spec 'bogus'"),
    (["--game", "clans", "--spec", "ppo:/no/such/policy.zip"], "no saved policy file"),
])
def test_advice_agreement_refuses_bad_arguments_by_name(argv, message, capsys):
    """benchmarks/advice_agreement.py: a game count or player count under 1 (0 players was
    read as the default 3), an unknown game, a policy of another player count and an unknown
    opponent spec and a missing policy file end in a usage error naming the problem, before any game is played."""
    from benchmarks.advice_agreement import main as agreement_main

    with pytest.raises(SystemExit) as exc:
        agreement_main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_a_run_saved_with_the_plain_mlp_policy_and_advice_resumes_with_its_class(tmp_path):
    """Runs made before the residual head saved a plain ``MlpPolicy`` reading the advice
    through its hidden layers: resuming one (toy game) trains on with that class (new runs
    use AdvisedActorCriticPolicy), and ppo:PATH plays it with its advisor on the plain numpy
    path."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.advised_policy import AdvisedActorCriticPolicy
    from tests.toy_game import ToyState

    cfg = dict(ToyState(seed=0).config)
    pool = OpponentPool("toy", cfg, {"heuristic": 1.0}, advice="heuristic")
    vec = DummyVecEnv([lambda: LearnerEnv(ToyState, cfg, pool, seed=1)])
    old = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, device="cpu",
                      policy_kwargs={"net_arch": [8]})
    old.advice = "heuristic"
    (tmp_path / "checkpoints").mkdir()
    old.save(tmp_path / "checkpoints" / "latest")
    (tmp_path / "checkpoints" / "state.json").write_text(json.dumps(
        {"game": "toy", "config": cfg, "advice": "heuristic", "last_snapshot": 0,
         "snapshots": []}))
    assert selfplay_main(["--game", "toy", "--run-dir", str(tmp_path), "--n-envs", "2",
                          "--n-steps", "64", "--batch-size", "64", "--eval-games", "0",
                          "--no-progress", "--advice", "heuristic", "--timesteps", "128",
                          "--opponents", "heuristic=1", "--net", "8"]) == 0
    back = MaskablePPO.load(tmp_path / "final_model.zip", device="cpu")
    assert back.num_timesteps == 128 and back.advice == "heuristic"
    assert type(back.policy) is MaskableActorCriticPolicy
    assert not isinstance(back.policy, AdvisedActorCriticPolicy)
    agent = make_agent(f"ppo:{tmp_path / 'final_model.zip'}", "toy", cfg)
    assert agent._layers is not None and agent._residual is None and agent.advisor is not None
    obs = {"observation": ToyState(seed=0).observation_tensor(0),
           "action_mask": np.array([1, 1], np.int8)}
    x = agent.advisor.policy_input(obs, "player_0")
    agent.reset()
    torch_action, _ = agent.policy.predict(x, deterministic=True,
                                           action_masks=np.array([True, True]))
    assert agent.act(obs, "player_0") == int(torch_action)


def test_non_finite_weights_are_refused_not_played_as_the_first_legal_action():
    """A non-finite advice_weight is refused at construction; a policy whose logits are not
    finite (NaN weights, e.g. after a diverged run) makes PolicyAgent.act raise on the numpy
    path, residual or plain, as torch's distribution does, instead of playing argmax(NaN) =
    the first legal action."""
    import gymnasium as gym
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    for w in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="advice_weight must be finite"):
            _advised_policy(6, 4, [8], advice_weight=w)
    space = gym.spaces.Box(0.0, 1.0, (10,), np.float32)
    plain = MaskableActorCriticPolicy(space, gym.spaces.Discrete(4), lambda _: 1e-3,
                                      net_arch=[8])
    obs = {"observation": np.r_[np.zeros(6), 1, 0, 0, 1].astype(np.float32),
           "action_mask": np.array([1, 1, 1, 1], np.int8)}
    for policy in (_advised_policy(6, 4, [8]), plain):
        with torch.no_grad():
            policy.action_net.bias[2] = float("nan")
        for deterministic in (True, False):
            agent = PolicyAgent(policy, deterministic=deterministic, seed=0)
            assert agent._residual is not None or agent._layers is not None
            with pytest.raises(ValueError, match="not finite"):
                agent.act(obs, "player_0")


def test_a_subclass_of_the_advice_extractor_takes_the_residual_numpy_path():
    """The numpy fast path recognises the advice extractor by its class, subclasses included:
    a renamed subclass (which a check on the class name missed, so the plain path fed the
    (H + A)-wide head an H-wide layer and failed at the first move) acts as torch does."""
    import torch

    from agents.advised_policy import AdviceMlpExtractor

    class RenamedExtractor(AdviceMlpExtractor):
        pass

    obs_dim, n = 9, 5
    policy = _advised_policy(obs_dim, n, [8], seed=3)
    policy.mlp_extractor.__class__ = RenamedExtractor
    agent = PolicyAgent(policy)
    assert agent._layers is None and agent._residual is not None

    def logits(x):
        with torch.no_grad():
            return policy.get_distribution(torch.as_tensor(x[None])).distribution.logits.numpy()[0]

    _assert_residual_matches(agent, logits, obs_dim, n, np.random.default_rng(1), draws=50,
                             advised=0.4)
