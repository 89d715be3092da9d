"""Standard deduction metrics over game time: NLL of the truth, Brier score, top-1 accuracy.

Scores compare a belief row ``p`` (one other seat's role, see :mod:`agents.belief`) with the
truth row ``y``:

* categorical games (Prowl clan, Clans colour): ``y`` is one-hot; ``nll = -log max(p[y], 1e-6)``
  (natural log, floored so that a confident miss costs at most ``log 1e6 = 13.8``), ``brier =
  sum_k (p_k - y_k)^2`` (0..2), ``top1 = 1`` if ``argmax p`` is the true category (``1/m`` if
  ``m`` categories tie for the maximum and the truth is one of them: the expected accuracy of
  breaking the tie at random);
* counts (Badland Wolves hands): both rows are normalised to a composition of the hand; ``nll`` is
  the cross-entropy ``-sum_k y_k log max(p_k, 1e-6)`` (the mean NLL per card in the hand),
  ``brier`` the squared distance of the compositions, ``top1`` the share of the belief's tied
  maxima that are among the hand's most common types. Empty hands are skipped.

Per observing seat, a decision's score is the mean over the other seats whose truth is defined.

Game time: a game with ``N`` decisions has decision index ``t = 0..N-1``; the belief scored at
``t`` is the one held when decision ``t`` is due (after actions ``0..t-1``), at progress
``x_t = t / (N - 1)`` (0 for a one-decision game). Curves use 10 bins of ``x`` (``[0, 0.1)``,
..., ``[0.9, 1]``); checkpoints 25/50/75/100% take the decision ``t = round(p (N - 1))`` (100%:
the last decision, before the game's final action). Across games: mean and a 95% Student-t
interval (``t(0.975, games - 1) * sd / sqrt(games)``: 12.71 for 2 games, 2.09 for 20, 1.99 for
80; the normal 1.96 made intervals over a few games far too narrow).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np

METRICS = ("nll", "brier", "top1")
NLL_FLOOR = 1e-6
CHECKPOINTS = (0.25, 0.5, 0.75, 1.0)


def row_scores(p: np.ndarray, y: np.ndarray, kind: str = "categorical") -> np.ndarray:
    """Scores of belief rows ``p`` against truth rows ``y`` (both float ``(R, K)``).

    Returns:
        float64 ``(R, 3)``: nll, brier, top1 per row (see module doc); rows whose truth is all
        zeros get NaN.
    Raises:
        ValueError: shapes differ, ``kind`` is unknown, a belief row has negative or
            non-finite entries, or a row whose truth is defined has no mass (a NaN row was
            scored as the uniform row, an infinite one failed with a ZeroDivisionError).
    """
    p = np.atleast_2d(np.asarray(p, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    if p.shape != y.shape:
        raise ValueError(f"belief shape {p.shape} differs from truth shape {y.shape}")
    if kind not in ("categorical", "counts"):
        raise ValueError(f"kind must be 'categorical' or 'counts', got {kind!r}")
    bad = np.flatnonzero(~np.isfinite(p).all(axis=1))
    if bad.size:
        raise ValueError(f"belief row(s) {bad.tolist()} have non-finite entries (NaN or inf)")
    if (p < -1e-12).any():
        raise ValueError("belief rows must be non-negative")
    out = np.full((p.shape[0], 3), np.nan)
    for r in range(p.shape[0]):
        ys = y[r].sum()
        if ys <= 0:
            continue
        yr = y[r] / ys
        ps = p[r].sum()
        if not ps > 0:
            raise ValueError(f"belief row {r} has no mass (all zeros) while its truth is "
                             "defined: not a distribution")
        pr = p[r] / ps
        out[r, 0] = -float(np.sum(yr * np.log(np.maximum(pr, NLL_FLOOR))))
        out[r, 1] = float(np.sum((pr - yr) ** 2))
        best = y[r] == y[r].max()
        top = pr >= pr.max() - 1e-12
        out[r, 2] = float((top & best).sum()) / float(top.sum())
    return out


def belief_scores(belief: np.ndarray, truth: np.ndarray, seat: int,
                  kind: str = "categorical") -> np.ndarray:
    """Float64 ``(3,)``: nll, brier, top1 of one observer's belief ``(n, K)``, averaged over the
    other seats with a defined truth (NaN if none)."""
    s = row_scores(belief, truth, kind)
    s = np.delete(s, seat, axis=0)
    ok = ~np.isnan(s[:, 0])
    return s[ok].mean(axis=0) if ok.any() else np.full(3, np.nan)


def progress(num_decisions: int) -> np.ndarray:
    """Float64 ``(N,)``: normalised game time ``t / (N - 1)`` of each decision."""
    if num_decisions < 1:
        raise ValueError(f"a game has at least one decision, got {num_decisions}")
    if num_decisions == 1:
        return np.zeros(1)
    return np.arange(num_decisions) / (num_decisions - 1)


def binned(values: np.ndarray, bins: int = 10) -> np.ndarray:
    """Mean of per-decision ``values`` (``(N, ...)``) in ``bins`` equal bins of game time.

    Returns:
        float64 ``(bins, ...)``; NaN for a bin without decisions (short games).
    """
    values = np.asarray(values, dtype=np.float64)
    x = progress(values.shape[0])
    idx = np.minimum((x * bins).astype(int), bins - 1)
    out = np.full((bins,) + values.shape[1:], np.nan)
    for b in range(bins):
        sel = values[idx == b]
        if sel.size:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN columns stay NaN
                out[b] = np.nanmean(sel, axis=0)
    return out


def at_checkpoints(values: np.ndarray, points: Sequence[float] = CHECKPOINTS) -> np.ndarray:
    """Per-decision ``values`` (``(N, ...)``) at decisions ``round(p (N - 1))`` for each point.

    Raises:
        ValueError: no decisions, or a point outside [0, 1].
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0] if values.ndim else 0
    if n < 1:
        raise ValueError(f"a game has at least one decision, got {n}")
    outside = [p for p in points if not 0.0 <= p <= 1.0]
    if outside:
        raise ValueError(f"checkpoints are fractions of game time in [0, 1], got {outside}")
    return np.stack([values[int(round(p * (n - 1)))] for p in points])


def mean_ci(samples: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Mean and 95% half-width (``t(0.975, m - 1) sd / sqrt(m)``, Student's t quantile from
    ``scipy.stats.t``, ``m`` non-NaN samples) along ``axis``.

    NaN samples (bins a short game did not reach) are left out; the half-width is NaN for fewer
    than two samples.
    """
    from scipy.stats import t as student_t

    a = np.asarray(samples, dtype=np.float64)
    m = np.sum(~np.isnan(a), axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN or single-sample slices
        mean = np.nanmean(a, axis=axis) if a.size else np.nan
        sd = np.nanstd(a, axis=axis, ddof=1)
        q = student_t.ppf(0.975, np.maximum(m - 1, 1))
        half = q * sd / np.sqrt(m)
    half = np.where(m >= 2, half, np.nan)
    return mean, half


def track_game(game: str, config: dict[str, Any], agents: Sequence[Any], trackers: Sequence[Any],
               observer: int, seed: int, max_decisions: int = 100_000) -> dict[str, np.ndarray]:
    """Play one game with ``agents`` (one per seat agents play: a seat the rules play, such as
    Clandestine's Nemesis, takes none) and score every tracker for ``observer`` (one of those
    seats).

    Returns:
        tracker name -> float64 ``(N, 3)``: nll, brier, top1 at each decision (module doc).
    Raises:
        ValueError: the number of agents is not the number of seats agents play, ``observer``
            is not one of them, or two trackers share a
            name (their scores would be merged).
    """
    names = [tr.name for tr in trackers]
    repeated = sorted({x for x in names if names.count(x) > 1})
    if repeated:
        raise ValueError(f"trackers must have distinct names; given twice: {', '.join(repeated)}")
    from agents import act_with_state
    from agents.belief import adapter_for, new_game
    from training.cli import agent_seats_text

    state = new_game(game, seed, **config)
    # one agent per seat agents play (a Clandestine Nemesis, seated last, is played by the
    # rules, though state.num_players counts it)
    if len(agents) != len(state.agent_seats):
        raise ValueError(f"{game} with this config has {agent_seats_text(state)}, got "
                         f"{len(agents)} agents")
    if observer not in state.agent_seats:
        raise ValueError(f"observer {observer!r} is not a seat agents play: "
                         f"{agent_seats_text(state)}")
    adapter = adapter_for(game)
    for ag in agents:
        ag.reset()
    for tr in trackers:
        tr.reset(state, observer)
    rows: dict[str, list[np.ndarray]] = {tr.name: [] for tr in trackers}
    k = 0
    while not state.is_over and k < max_decisions:
        truth = adapter.truth(state)
        for tr in trackers:
            rows[tr.name].append(belief_scores(tr.timed_belief(), truth, observer,
                                               adapter.kind))
        actor = state.current_player
        obs = {"observation": state.observation_tensor(actor),
               "action_mask": state.legal_action_mask()}
        action = int(act_with_state(agents[actor], obs, f"player_{actor}", state))
        state.apply_action(action)
        k += 1
        if state.is_over:
            break
        for tr in trackers:
            tr.update(state, action, actor)
    return {name: np.array(v) for name, v in rows.items()}


__all__ = ["CHECKPOINTS", "METRICS", "at_checkpoints", "belief_scores", "binned", "mean_ci",
           "progress", "row_scores", "track_game"]


if __name__ == "__main__":
    import sys

    from training.cli import library_main

    sys.exit(library_main("belief_metrics",
                          "Metrics of a belief over game time (NLL, Brier, top-1, 10 bins, 95% "
                          "intervals).",
                          "python -m benchmarks.deduction"))
