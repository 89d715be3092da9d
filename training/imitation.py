"""Warm start for self-play: behaviour cloning of the scripted heuristic.

Before PPO, ``training.selfplay --imitation-games N`` plays ``N`` games with the game's heuristic
in every seat agents play (``state.agent_seats``: a Clandestine Nemesis seat is played by the
rules, never decides and takes no heuristic), records every decision (observation, action
mask, action, and the deciding seat's final return), and fits the MaskablePPO policy to it:
cross-entropy of the heuristic's action under the masked action distribution for the actor,
mean squared error to the final return for the critic. With ``--imitation-target tie-set`` (for a heuristic with ``best_moves``, e.g. the
Clans one, which breaks ties between equal moves at random) each decision also records the
heuristic's set of equally-best moves and the actor is fitted to the log of the set's total
probability instead, so any of the tied moves counts as right. PPO then starts from heuristic-level play instead of from uniform play, which a short
run could not get past on its own in a game with sparse, noisy terminal rewards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from agents import act_with_state, make_agent
from agents.advice import Advisor, check_advice
from envs.core import GameState
from envs.core.text import rules_seats_note


@dataclass
class Demonstrations:
    """Recorded decisions: ``obs`` float32 (N, D), ``masks`` bool (N, A), ``actions`` int64 (N,),
    ``returns`` float32 (N,) — the deciding seat's final return in that game; ``best`` bool
    (N, A) or None — the heuristic's equally-best moves (``best_moves``), each row holding
    at least one legal action."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    best: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def collect_demonstrations(game: str, state_class: type[GameState], config: dict[str, Any],
                           games: int, seed: int = 0,
                           progress: Callable[[int], None] | None = None,
                           tie_sets: bool = False, advice: str | None = None,
                           teacher: str = "heuristic") -> Demonstrations:
    """Play ``games`` games of the teacher against itself at engine level and record every
    decision.

    ``teacher``: agent spec of every seat agents play (:func:`agents.make_agent`; default
    ``heuristic``, or e.g. ``heuristic:join_hand=4``), one instance per such seat ``i`` (seed
    ``seed + i``), reset before each game. A seat the rules play (not in ``agent_seats``: the
    Nemesis of solo Clandestine, counted by ``num_players``) takes no teacher and no advisor
    and is never the deciding seat of a recorded decision; its return is not recorded.

    ``tie_sets``: also record each decision's equally-best moves (the heuristic's
    ``best_moves(observation, agent)``, asked before it acts) in ``Demonstrations.best``.
    ``advice``: an advice kind (:mod:`agents.advice`): each recorded observation is then
    float32 (D + A,), followed by the advice vector of an advisor of the deciding seat's own
    (one per seat agents play, reset before each game, asked at every decision of its seat).

    Raises:
        ValueError: ``games < 1``, ``tie_sets`` for a teacher without ``best_moves``, or a
            bad teacher spec (:func:`agents.make_agent`).
        RuntimeError: the engine asks a seat the rules play to decide (it breaks the
            ``agent_seats`` contract of :class:`envs.core.GameState`).
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    rng = np.random.default_rng(seed)
    probe = state_class(seed=0, **config)
    n = probe.num_players   # every seat's return; a seat the rules play takes no teacher
    agents = {i: make_agent(teacher, game, config, seed=seed + i) for i in probe.agent_seats}
    advisors = ({i: Advisor(advice, game, config, seed=seed + n + i) for i in probe.agent_seats}
                if check_advice(advice) is not None else None)
    if tie_sets and not hasattr(agents[probe.agent_seats[0]], "best_moves"):
        raise ValueError(f"the {game} teacher {teacher!r} has no best_moves (its set of "
                         "equally-best moves): use the action target for this game")
    obs, masks, actions, seats, game_ids, final, best = [], [], [], [], [], [], []
    for g in range(games):
        state = state_class(seed=int(rng.integers(2**62)), **config)
        for agent in [*agents.values(), *(advisors or {}).values()]:
            agent.reset()
        while not state.is_over:
            p = state.current_player
            if p not in agents:   # the engine contract: never a seat the rules play
                raise RuntimeError(f"{game}: seat {p} is to decide, but it is no seat agents "
                                   f"play{rules_seats_note(state)}")
            o = state.observation_tensor(p)
            m = state.legal_action_mask()
            view = {"observation": o, "action_mask": m}
            if tie_sets:
                row = np.zeros(m.shape, dtype=bool)
                row[agents[p].best_moves(view, f"player_{p}")] = True
                best.append(row)
            a = act_with_state(agents[p], view, f"player_{p}", state)
            if advisors is not None:
                o = advisors[p].policy_input(view, f"player_{p}")
            obs.append(o)
            masks.append(m.astype(bool))
            actions.append(a)
            seats.append(p)
            game_ids.append(g)
            state.apply_action(a)
        final.append(state.returns() if state.is_terminal else np.zeros(n))
        if progress:
            progress(1)
    finals = np.asarray(final, dtype=np.float32)
    return Demonstrations(np.asarray(obs, dtype=np.float32), np.asarray(masks),
                          np.asarray(actions, dtype=np.int64),
                          finals[np.asarray(game_ids), np.asarray(seats)],
                          np.asarray(best) if tie_sets else None)


def tie_set_loss(log_probs: Any, best: Any) -> Any:
    """Mean over decisions of ``-log(sum of the policy's probabilities of the best moves)``.

    ``log_probs``: float tensor (B, A), the masked policy's log-probabilities (illegal actions
    at a very low value); ``best``: bool tensor (B, A), each row non-empty. With one best move
    per row this is the cross-entropy of that move.

    Raises:
        ValueError: a row of ``best`` is empty or the shapes differ.
    """
    import torch

    if log_probs.shape != best.shape:
        raise ValueError(f"log_probs {tuple(log_probs.shape)} and best {tuple(best.shape)} "
                         "differ in shape")
    if not bool(best.any(dim=1).all()):
        raise ValueError("every decision needs at least one best move")
    masked = log_probs.masked_fill(~best, float("-inf"))
    return -torch.logsumexp(masked, dim=1).mean()


def pretrain_policy(policy: Any, demos: Demonstrations, epochs: int = 8, batch_size: int = 512,
                    learning_rate: float = 1e-3, value_coef: float = 0.5, seed: int = 0,
                    log: Callable[[str], None] = print, target: str = "action"
                    ) -> dict[str, float]:
    """Fit a MaskablePPO policy to ``demos`` in place (actor: cross-entropy, critic: MSE).

    ``target``: ``"action"`` fits the heuristic's action (cross-entropy); ``"tie-set"`` fits
    its set of equally-best moves (:func:`tie_set_loss`, needs ``demos.best``).

    Returns the final epoch's ``{"accuracy", "policy_loss", "value_loss"}`` (accuracy: share of
    decisions where the policy's most probable legal action is the target: the heuristic's
    action, or one of its equally-best moves).

    Raises:
        ValueError: unknown ``target``, or ``"tie-set"`` without ``demos.best``.
    """
    import torch

    if target not in ("action", "tie-set"):
        raise ValueError(f"target must be 'action' or 'tie-set', got {target!r}")
    if target == "tie-set" and demos.best is None:
        raise ValueError("the tie-set target needs demonstrations recorded with tie_sets=True")

    gen = torch.Generator().manual_seed(seed)
    obs = torch.as_tensor(demos.obs)
    masks = torch.as_tensor(demos.masks)
    acts = torch.as_tensor(demos.actions)
    rets = torch.as_tensor(demos.returns)
    best = torch.as_tensor(demos.best) if target == "tie-set" else None
    optim = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        perm = torch.randperm(len(demos), generator=gen)
        tot_pl = tot_vl = correct = 0.0
        for start in range(0, len(demos), batch_size):
            idx = perm[start:start + batch_size]
            if best is None:
                values, log_prob, _ = policy.evaluate_actions(obs[idx], acts[idx],
                                                              action_masks=masks[idx])
                policy_loss = -log_prob.mean()
            else:
                dist = policy.get_distribution(obs[idx], action_masks=masks[idx])
                values = policy.predict_values(obs[idx])
                policy_loss = tie_set_loss(dist.distribution.logits, best[idx])
            value_loss = torch.nn.functional.mse_loss(values.flatten(), rets[idx])
            loss = policy_loss + value_coef * value_loss
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optim.step()
            with torch.no_grad():
                dist = policy.get_distribution(obs[idx], action_masks=masks[idx])
                top = dist.distribution.probs.argmax(dim=1)
                if best is None:
                    correct += (top == acts[idx]).sum().item()
                else:
                    correct += best[idx].gather(1, top[:, None]).sum().item()
            tot_pl += policy_loss.item() * len(idx)
            tot_vl += value_loss.item() * len(idx)
        stats = {"accuracy": correct / len(demos), "policy_loss": tot_pl / len(demos),
                 "value_loss": tot_vl / len(demos)}
        log(f"imitation epoch {epoch + 1}/{epochs}: accuracy {stats['accuracy']:.3f}, "
            f"policy loss {stats['policy_loss']:.3f}, value loss {stats['value_loss']:.3f}")
    policy.set_training_mode(False)
    return stats


if __name__ == "__main__":
    import sys

    from training.cli import library_main

    sys.exit(library_main("imitation",
                          "The warm start of self-play (behaviour cloning of the heuristic).",
                          "python -m training.selfplay --imitation-games N"))
