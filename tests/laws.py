"""Law checks shared by the contract suite and the per-game tests (CONVENTIONS.md, "Engine").

Each function raises ``AssertionError`` with a message naming the step and what differs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core import GameState


def assert_history_consistent(real: GameState, seat: int, world: GameState) -> int:
    """History consistency: ``world`` (drawn by ``real.resample_from_infostate(seat, ...)``)
    carries a record that replays, step by step, to what ``seat`` saw in the real game.

    Replays ``real.to_record()`` and ``world.to_record()`` side by side and checks at set-up and
    after every action: the same ``current_player``; the same ``observation_tensor(seat)``; the
    same legal-action mask where ``seat`` decides; the same ``public_history()`` where the game
    has one. The world's actions may differ from the real ones only where another seat acts (a
    choice hidden from ``seat``, e.g. which card a player places face-down): the per-step checks
    show that ``seat`` cannot see the difference. At the end the replayed world equals
    ``world`` (every seat's observation, the mask and ``hidden_truth``).

    Returns:
        the number of steps compared (actions + 1).
    """
    rec_real, rec_world = real.to_record(), world.to_record()
    acts_real, acts_world = rec_real["actions"], rec_world["actions"]
    assert len(acts_world) == len(acts_real), "the world's history has another length"
    steps = 0
    world_replay = type(world).replay_steps(rec_world)
    last = None
    for i, (a, b) in enumerate(zip(type(real).replay_steps(rec_real), world_replay)):
        last = b
        steps += 1
        where = f"step {i} (after {i} actions)"
        assert a.current_player == b.current_player, \
            f"{where}: current player {b.current_player} in the world, {a.current_player} in reality"
        oa, ob = a.observation_tensor(seat), b.observation_tensor(seat)
        if not np.array_equal(oa, ob):
            idx = np.flatnonzero(oa != ob)[:10].tolist()
            raise AssertionError(f"{where}: seat {seat}'s observation differs at {idx}")
        if a.current_player == seat:
            assert np.array_equal(a.legal_action_mask(), b.legal_action_mask()), \
                f"{where}: seat {seat}'s mask differs"
        if i < len(acts_real) and acts_real[i] != acts_world[i]:
            assert a.current_player != seat, f"{where}: seat {seat}'s own action differs"
        try:
            ph_a = a.public_history()
        except NotImplementedError:
            ph_a = None
        if ph_a is not None:
            assert ph_a == b.public_history(), f"{where}: public history differs"
    assert steps == len(rec_real["actions"]) + 1, "the world's replay stopped early"
    assert last is not None
    for s in range(world.num_players):
        assert np.array_equal(last.observation_tensor(s), world.observation_tensor(s)), \
            f"the replayed world differs from the resampled state (seat {s}'s observation)"
    assert np.array_equal(last.legal_action_mask(), world.legal_action_mask()), \
        "the replayed world's mask differs from the resampled state's"
    assert last.hidden_truth() == world.hidden_truth(), \
        "the replayed world's hidden truth differs from the resampled state's"
    return steps


def hidden_truth_key(truth: dict[str, Any]) -> str:
    """A hashable key of a ``hidden_truth()`` dict (for counting resampled worlds)."""
    import json

    return json.dumps(truth, sort_keys=True)
