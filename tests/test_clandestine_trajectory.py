"""Trajectory hashes of seeded random Clandestine games through the AEC env (2-5 players,
default configuration and ``basic_preset``): speed work on the engine, the effect interpreter or
the generic AEC layer must leave every value unchanged.

Two SHA-256 hashes per configuration, over one seeded game each:

- ``play``: for every agent turn of ``agent_iter()``, the agent, its reward, its termination and
  truncation flags, and when it acts its action mask and the random legal action taken (a
  ``np.random.default_rng(seed)`` choice among the mask's legal ids); the final scores.
- ``obs``: the acting seat's observation vector (float32 bytes) at every decision.

A change of the rules or of the observation's contents changes these on purpose: regenerate the
table with ``python -m tests.test_clandestine_trajectory`` and say in the commit why the values
moved (a change of the observation alone moves only the ``obs`` hashes).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from envs import make_env

#: (num_players, basic_preset) -> (play hash, obs hash), first 16 hex digits of SHA-256
EXPECTED: dict[tuple[int, bool], tuple[str, str]] = {
    (2, False): ('78e640e86b448e13', '597d5a6c209ed9ab'),
    (2, True): ('aabf3bc5670947b2', '3c7c477b3c9fd565'),
    (3, False): ('60643d91ca51634b', '91a6bbb1dfb60826'),
    (3, True): ('2d2ba24fbf55c42c', '2fead6d0789884db'),
    (4, False): ('905a7ea98600eeb3', 'ef87adeb8ead5120'),
    (4, True): ('830a40274d44ebe0', 'ae311aea0b14b8ca'),
    (5, False): ('b1cc3b03a2960c5f', '788c9fe9314948c1'),
    (5, True): ('9d391f33a26eaab5', '5c47744868c1ce40'),
}


def trajectory_hashes(num_players: int, basic_preset: bool) -> tuple[str, str]:
    """The ``play`` and ``obs`` hashes (see the module docstring) of the game seeded
    ``100 * num_players + basic_preset``."""
    seed = 100 * num_players + int(basic_preset)
    env = make_env("clandestine", num_players=num_players, basic_preset=basic_preset)
    rng = np.random.default_rng(seed)
    play, obs_h = hashlib.sha256(), hashlib.sha256()
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        play.update(agent.encode())
        play.update(np.float64(reward).tobytes())
        play.update(bytes([bool(term), bool(trunc)]))
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        play.update(mask.tobytes())
        obs_h.update(obs["observation"].tobytes())
        action = int(rng.choice(np.flatnonzero(mask)))
        play.update(action.to_bytes(2, "little"))
        env.step(action)
    play.update(np.asarray(env.unwrapped.game.final_scores(), dtype=np.int64).tobytes())
    return play.hexdigest()[:16], obs_h.hexdigest()[:16]


@pytest.mark.parametrize("num_players,basic_preset", sorted(EXPECTED))
def test_trajectory_hash(num_players: int, basic_preset: bool) -> None:
    assert trajectory_hashes(num_players, basic_preset) == EXPECTED[num_players, basic_preset]


if __name__ == "__main__":  # print the EXPECTED table
    for n in (2, 3, 4, 5):
        for bp in (False, True):
            print(f"    ({n}, {bp}): {trajectory_hashes(n, bp)!r},")
