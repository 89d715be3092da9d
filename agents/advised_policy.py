"""A MaskablePPO policy whose action logits add the advice directly (a residual policy).

An advised policy's input is the observation followed by the advice vector (float32, one entry
per action, :mod:`agents.advice`). Fed only through the hidden layers, the advice must pass a
bottleneck narrower than the action space (Clans: 276 actions through 64 units), and a
behaviour clone then followed the heuristic's advice at only about 86% of its decisions in play
though it fitted 99.9% of its training decisions. :class:`AdvisedActorCriticPolicy` gives the
action head the advice itself beside the last hidden layer:

    logits = W_h @ hidden(input) + W_a @ advice + b,      W_a initialised to advice_weight * I

so following the advice is the starting point, and training (imitation, then PPO) learns
where to depart from it. The critic is the standard one. Saved models name this class, so it
must stay importable at this path.
"""

from __future__ import annotations

import math
from typing import Any

import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor


class AdviceMlpExtractor(MlpExtractor):
    """SB3's ``MlpExtractor`` whose actor latent is ``[policy_net(features), advice]``.

    ``features``: float tensor (B, F), the flattened input, whose last ``num_actions`` entries
    are the advice. ``latent_dim_pi`` is the last hidden size plus ``num_actions``.

    Raises:
        ValueError: ``num_actions < 1`` or larger than ``feature_dim``.
    """

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: type[th.nn.Module],
                 device: Any, num_actions: int) -> None:
        if not 1 <= num_actions <= feature_dim:
            raise ValueError(f"num_actions must be in 1..{feature_dim} (the input holds the "
                             f"advice at its end), got {num_actions}")
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.num_actions = int(num_actions)
        self.hidden_dim_pi = int(self.latent_dim_pi)
        self.latent_dim_pi = self.hidden_dim_pi + self.num_actions

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        """``[policy_net(features), features[..., -num_actions:]]``, shape (B, latent_dim_pi)."""
        return th.cat([self.policy_net(features), features[..., -self.num_actions:]], dim=-1)

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """``(actor latent, critic latent)``."""
        return self.forward_actor(features), self.forward_critic(features)


class AdvisedActorCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO actor-critic for advised inputs: the advice reaches the action logits
    directly, with weight ``advice_weight`` at the start (see the module docstring).

    Used by ``training.selfplay --advice heuristic`` for new runs; takes the keywords of
    ``MaskableActorCriticPolicy`` (``net_arch`` etc.) plus ``advice_weight`` (float, logit
    added to each advised action at initialisation; 5.0 puts most of the probability on the
    advised moves among a few dozen legal ones).

    Raises:
        ValueError: the action space is not discrete, the input is shorter than the action
            count (no room for the advice), or ``advice_weight`` is not finite.
    """

    def __init__(self, observation_space: Any, action_space: Any, *args: Any,
                 advice_weight: float = 5.0, **kwargs: Any) -> None:
        # one advice entry per action: a Discrete space only (MultiBinary also has an ``n``)
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(f"an advised policy needs a discrete action space, got "
                             f"{action_space}")
        if not math.isfinite(float(advice_weight)):
            raise ValueError(f"advice_weight must be finite, got {advice_weight!r}")
        self.advice_weight = float(advice_weight)
        super().__init__(observation_space, action_space, *args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        n = self.action_space.n
        self.mlp_extractor = AdviceMlpExtractor(self.features_dim, net_arch=self.net_arch,
                                                activation_fn=self.activation_fn,
                                                device=self.device, num_actions=int(n))

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        h = self.mlp_extractor.hidden_dim_pi
        n = self.mlp_extractor.num_actions
        with th.no_grad():
            self.action_net.weight[:, h:] = self.advice_weight * th.eye(n)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["advice_weight"] = self.advice_weight
        return data
