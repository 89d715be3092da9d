"""Learned-policy agents: a MaskablePPO (sb3-contrib) policy behind the agent protocol."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from .advice import Advisor, check_advice
from .base import SeatBound, legal_ids


def _numpy_actor(policy: Any) -> list[tuple[np.ndarray, np.ndarray, str | None]] | None:
    """The actor of a standard ``MlpPolicy`` as numpy layers ``(W, b, activation)``, or None.

    A frozen policy then acts with a few numpy matrix products (tens of microseconds) instead of
    a torch call per decision; policies of any other shape keep the torch path.
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from agents.advised_policy import AdviceMlpExtractor

    if not isinstance(getattr(policy, "features_extractor", None), FlattenExtractor):
        return None
    if isinstance(policy.mlp_extractor, AdviceMlpExtractor):
        return None    # the action head also reads the advice: see _numpy_residual
    return _numpy_layers(list(policy.mlp_extractor.policy_net) + [policy.action_net])


def _numpy_residual(policy: Any) -> tuple[list[tuple[np.ndarray, np.ndarray, str | None]],
                                          np.ndarray, np.ndarray, np.ndarray] | None:
    """The actor of an :class:`agents.advised_policy.AdvisedActorCriticPolicy` in numpy, or None.

    Returns ``(hidden layers, W_h, W_a, b)``: logits = ``hidden(x) @ W_h + advice @ W_a + b``
    with ``advice`` the input's last ``num_actions`` entries (float32 arrays, ``W_h`` of shape
    (H, A), ``W_a`` (A, A), ``b`` (A,)).
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from agents.advised_policy import AdviceMlpExtractor

    ext = getattr(policy, "mlp_extractor", None)
    if (not isinstance(ext, AdviceMlpExtractor)
            or not isinstance(getattr(policy, "features_extractor", None), FlattenExtractor)):
        return None
    hidden = _numpy_layers(list(ext.policy_net))
    if hidden is None:
        return None
    w = policy.action_net.weight.detach().cpu().numpy().T.astype(np.float32)
    b = policy.action_net.bias.detach().cpu().numpy().astype(np.float32).copy()
    h = ext.hidden_dim_pi
    return hidden, w[:h].copy(), w[h:].copy(), b


def _numpy_layers(modules: list[Any]) -> list[tuple[np.ndarray, np.ndarray, str | None]] | None:
    """Linear layers with tanh/ReLU activations as numpy ``(W, b, activation)``, or None."""
    from torch import nn

    acts = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    layers: list[tuple[np.ndarray, np.ndarray, str | None]] = []
    for m in modules:
        if isinstance(m, nn.Linear):
            layers.append((m.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
                           m.bias.detach().cpu().numpy().astype(np.float32).copy(), None))
        elif type(m) in acts and layers and layers[-1][2] is None:
            w, b, _ = layers[-1]
            layers[-1] = (w, b, acts[type(m)])
        else:
            return None
    return layers


def _forward(x: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray, str | None]]
             ) -> np.ndarray:
    for w, b, act in layers:
        x = x @ w + b
        if act == "tanh":
            x = np.tanh(x)
        elif act == "relu":
            x = np.maximum(x, 0.0)
    return x


def sampling_rng(seed: int | None) -> np.random.Generator:
    """The generator a :class:`PolicyAgent` made with ``seed`` samples its moves from.

    A child of ``numpy.random.SeedSequence(seed)`` (its first ``spawn``), not
    ``default_rng(seed)`` itself: the agent's advisor seeds its heuristic with ``seed``, and the
    two must not draw the same stream. ``None`` gives fresh entropy.
    """
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


class PolicyAgent(SeatBound):
    """Acts with a MaskablePPO policy, masked to the legal actions.

    Args:
        policy: an sb3-contrib ``MaskableActorCriticPolicy`` (kept on the CPU, in eval mode).
        deterministic: take the most probable legal action (default) or sample from the masked
            distribution.
        name: label used in evaluation tables.
        seed: seeds the agent's generators: :attr:`rng`, which samples its moves when
            ``deterministic=False`` (deterministic play draws nothing), and its advisor's (with
            ``advice``), as independent streams (see :func:`sampling_rng`).
        advice: ``None`` (the policy reads the observation only) or the advice kind the policy
            was trained with (:mod:`agents.advice`): its input is then the observation followed
            by the advice vector, which this agent computes with an advisor of its own (one per
            agent instance, reset with it). Needs ``game`` and ``config``.
        game, config: the game and configuration the advisor plays (with ``advice`` only).

    A policy without advice is memoryless and may act for any agent. With an advisor that
    remembers the game (:attr:`remembers_game`, e.g. the Clans heuristic's), the agent binds to
    the first agent it acts for after construction or :meth:`reset` and refuses any other until
    reset (:class:`agents.base.SeatBound`: one instance per seat and game).

    Attributes:
        rng: the agent's own ``numpy.random.Generator``: every sampled move is drawn from it
            (never from torch's global generator), so a sampling agent's moves depend on its
            seed and the observations it is asked about only, and a copy plays as the original.
        obs_size: length of the game observation the agent takes (the policy's input length
            less the advice vector's ``num_actions`` when ``advice`` is set).

    Raises:
        ValueError: ``advice`` without ``game`` and ``config``, an unknown ``advice``; (from
            :meth:`act`) an observation whose length differs from :attr:`obs_size`, e.g. a
            policy trained for another game or player count, logits that are not finite, or
            (with an advisor that remembers the game) another agent than the one it acts for
            in this game.
    """

    def __init__(self, policy: Any, deterministic: bool = True, name: str = "ppo",
                 seed: int | None = None, advice: str | None = None, game: str | None = None,
                 config: dict[str, Any] | None = None) -> None:
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = deterministic
        self.name = name
        self.num_actions = int(policy.action_space.n)
        self.input_size = int(np.prod(policy.observation_space.shape))
        self.advice = check_advice(advice)
        self.advisor: Advisor | None = None
        if advice is not None:
            if game is None or config is None:
                raise ValueError(f"a policy trained with {advice!r} advice needs the game and "
                                 "its config to build its advisor")
            self.advisor = Advisor(advice, game, config, seed=seed)
        self.obs_size = self.input_size - (self.num_actions if advice is not None else 0)
        self.rng = sampling_rng(seed)
        self._layers = _numpy_actor(policy)
        self._residual = _numpy_residual(policy)

    @classmethod
    def load(cls, path: str | Path, deterministic: bool = True, seed: int | None = None,
             game: str | None = None, config: dict[str, Any] | None = None) -> PolicyAgent:
        """Load a model saved by ``MaskablePPO.save`` (``.zip``) onto the CPU.

        A model trained with advice carries its kind (the model's ``advice`` attribute, saved
        with it by ``training.selfplay``); it then needs ``game`` and ``config``.

        Raises:
            FileNotFoundError: no file at ``path``.
            ValueError: an advised model loaded without ``game`` and ``config``.
        """
        p = Path(path)
        if not p.is_file() and not Path(f"{p}.zip").is_file():
            raise FileNotFoundError(f"no saved policy file at {str(p)!r}")
        from sb3_contrib import MaskablePPO  # slow to import: only once a file is there

        model = MaskablePPO.load(str(p), device="cpu")
        return cls(model.policy, deterministic=deterministic, name=f"ppo:{p.name}", seed=seed,
                   advice=getattr(model, "advice", None), game=game, config=config)

    def __copy__(self) -> PolicyAgent:
        """A copy that acts exactly as this agent would from here on, with memory of its own:
        the frozen policy shared, the generator and the advisor (its memory of the game so
        far) copied, so the two can play two seats (CONVENTIONS.md, "Agents": an agent that
        remembers the game is one instance per seat)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.rng = copy.deepcopy(self.rng)
        if self.advisor is not None:
            new.advisor = copy.deepcopy(self.advisor)
        return new

    def spawn(self, seed: int | None = None) -> PolicyAgent:
        """A new agent acting with the same policy (weights shared, not copied) and its own
        generators seeded by ``seed`` as a new agent's are: one per seat when sampling
        (``deterministic=False``)."""
        new = object.__new__(type(self))      # not copy.copy: its advisor copy would be dropped
        new.__dict__.update(self.__dict__)
        new.rng = sampling_rng(seed)
        new.bound_agent = None                # a new agent: not yet bound to a seat
        if self.advisor is not None:
            new.advisor = self.advisor.spawn(seed)
        return new

    @property
    def remembers_game(self) -> bool:  # type: ignore[override]
        """Whether the agent remembers the game: only through an advisor that does."""
        return self.advisor is not None and self.advisor.remembers_game

    def reset(self) -> None:
        """The policy is memoryless; an advisor forgets the previous game."""
        self.unbind_seat()
        if self.advisor is not None:
            self.advisor.reset()

    def act(self, observation: dict[str, np.ndarray], agent: str) -> int:
        """The policy's legal action for ``observation`` (see class doc for errors)."""
        if self.remembers_game:
            self.bind_seat(agent)
        obs = observation["observation"]
        mask = observation["action_mask"]
        if obs.shape != (self.obs_size,) or mask.shape != (self.num_actions,):
            raise ValueError(
                f"policy expects an observation of shape ({self.obs_size},) and a mask of "
                f"({self.num_actions},), got {obs.shape} and {mask.shape}: was it trained for "
                "another game or player count?"
            )
        if self.advisor is not None:    # asked at every decision, as the heuristic would be
            obs = self.advisor.policy_input(observation, agent)
        legal = legal_ids(observation)
        if legal.size == 1:
            return int(legal[0])
        if self._layers is not None or self._residual is not None:
            x = obs.astype(np.float32, copy=False)
            if self._residual is not None:
                hidden, w_h, w_a, b = self._residual
                out = _forward(x, hidden) @ w_h + x[-self.num_actions:] @ w_a + b
            else:
                out = _forward(x, self._layers)
            logits = self._finite(out[legal].astype(np.float64), legal)
            if self.deterministic:
                return int(legal[int(np.argmax(logits))])
            return self._sample(logits, legal)
        if self.deterministic:
            action, _ = self.policy.predict(obs, deterministic=True,
                                            action_masks=mask.astype(bool))
            return int(action)
        logits = self._finite(self._torch_logits(obs, mask)[legal].astype(np.float64), legal)
        return self._sample(logits, legal)

    def _torch_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float32 (A,): the masked logits of a policy off the numpy path, computed by torch."""
        import torch

        obs_t, _ = self.policy.obs_to_tensor(obs)
        with torch.no_grad():
            dist = self.policy.get_distribution(obs_t, action_masks=mask.astype(bool)[None])
        return dist.distribution.logits[0].cpu().numpy()

    def _finite(self, logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``logits`` (float64 (L,), one per id of ``legal``), checked finite: argmax would play
        the first NaN silently and sampling would fail obscurely.

        Raises:
            ValueError: a logit is not finite, naming the legal actions concerned.
        """
        if not np.isfinite(logits).all():
            raise ValueError(f"{self.name}: the policy's logits are not finite at legal "
                             f"actions {legal[~np.isfinite(logits)].tolist()} (NaN or "
                             "infinite weights?)")
        return logits

    def _sample(self, logits: np.ndarray, legal: np.ndarray) -> int:
        """A legal action drawn from ``softmax(logits)`` (float64 (L,), finite, one per id of
        ``legal``: :meth:`_finite`) with :attr:`rng`."""
        p = np.exp(logits - logits.max())
        return int(legal[int(self.rng.choice(legal.size, p=p / p.sum()))])
