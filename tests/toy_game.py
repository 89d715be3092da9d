"""A tiny game used to test the shared plumbing without any real game's rules.

Race to 10: seats in turn add 1 or 2 to a running total; whoever reaches 10 wins. Each seat also
holds a private coin (0/1) dealt from the seed, which it can read and nobody else can.
"""

from __future__ import annotations

import numpy as np

from envs.core import ConfigError, GameState, Layout
from envs.core.aec import GameAECEnv, make_env_fn


class ToyState(GameState):
    game_name = "toy"

    def __init__(self, *, seed=None, num_players: int = 2, target: int = 10):
        if num_players not in (2, 3):
            raise ConfigError(f"num_players must be 2 or 3, got {num_players!r}")
        super().__init__(seed=seed, config={"num_players": num_players, "target": target})
        self._n = num_players
        self.target = target
        self.total = 0
        self.turn = 0
        self.coins = np.array([self.chance_integer("coin", 2) for _ in range(num_players)])
        self.layout = Layout()
        self.layout.add("total", target + 1, "one-hot running total")
        self.layout.add("coin", 2, "one-hot own coin")

    num_players = property(lambda self: self._n)
    num_actions = property(lambda self: 2)
    observation_size = property(lambda self: self.layout.size)

    @property
    def current_player(self):
        return None if self.is_terminal else self.turn

    @property
    def is_terminal(self):
        return self.total >= self.target

    def returns(self):
        r = np.zeros(self._n)
        if self.is_terminal:
            r[:] = -1.0
            r[(self.turn - 1) % self._n] = 1.0
        return r

    def legal_action_mask(self):
        m = np.zeros(2, dtype=np.int8)
        if not self.is_terminal:
            m[0] = 1
            m[1] = self.total + 2 <= self.target
        return m

    def _apply_action(self, a):
        self.total += a + 1
        self.turn = (self.turn + 1) % self._n

    def observation_tensor(self, seat):
        o = self.layout.zeros()
        self.layout.view(o, "total")[min(self.total, self.target)] = 1
        self.layout.view(o, "coin")[self.coins[seat]] = 1
        return o

    def action_to_string(self, a):
        return f"add {a + 1}"

    def render_text(self, seat=None):
        return f"total {self.total}/{self.target}, turn of seat {self.turn}"

    def resample_from_infostate(self, seat, rng):
        s = self.clone()
        for i in range(self._n):
            if i != seat:
                s.coins[i] = rng.integers(0, 2)
        s.set_chance_log([["coin", int(c)] for c in s.coins], int(rng.integers(2**62)))
        return s

    def public_history(self):
        # kind 0: (0, seat, amount added)
        return [(0, i % self._n, a + 1) for i, a in enumerate(self.history)]

    def hidden_truth(self):
        return {"coins": self.coins.tolist()}


class raw_env(GameAECEnv):
    state_class = ToyState
    metadata = {"name": "toy_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False,
                "render_fps": 1}


env = make_env_fn(raw_env)


class ToyHeuristic:
    """Adds 2 when that reaches the target or leaves the opponent no win, else 1 (toy only)."""

    name = "heuristic"

    def __init__(self, config, seed=None):
        self.layout = ToyState(seed=0, **config).layout
        self.target = config["target"]

    def reset(self):
        pass

    def act(self, observation, agent):
        total = int(self.layout.view(observation["observation"], "total").argmax())
        mask = observation["action_mask"]
        if mask[1] and (total + 2 == self.target or (self.target - total - 2) % 3 == 0):
            return 1
        return 0
