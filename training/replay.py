"""Replay a game record step by step: ``python -m training.replay records.jsonl --index 0``.

A record is what ``GameState.to_record()`` returns (``training.evaluate --records`` writes one per
line). The replay rebuilds the game from its config and seed, applies its actions in order and
prints each decision (``seat: action``), then the final state and returns. Replaying reproduces
the game exactly; a record that does not replay raises ``envs.core.RecordError``.

``--html OUT.html`` writes instead a self-contained replay viewer (one HTML file, no network):
a slider and the arrow keys step through the decisions, a menu switches between the full truth
and each seat's view (what that seat saw; cards placed face-down stay covered), the Clans board per
step (:mod:`training.replay_html`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from envs import env_module
from envs.core import GameState, RecordError

from .cli import ArgumentParser


def replay_lines(record: dict[str, Any]) -> tuple[GameState, list[str]]:
    """Replay ``record``; return the final state and one text line per decision, each
    followed by the unnumbered lines of what the seats the rules play (a Clandestine Nemesis)
    did after it (``GameState.rules_words``).

    Raises:
        RecordError: malformed record, unknown game, or an action that is illegal on replay.
    """
    if "game" not in record:
        raise RecordError("game record has no 'game' field")
    try:
        state_class = env_module(record["game"]).raw_env.state_class
    except ValueError as exc:
        raise RecordError(str(exc)) from exc
    final = state_class.from_record(record)   # checks every action and the stored outcome
    agents = record.get("agents")
    lines = []
    steps = state_class.replay_steps(record)   # one state, stepped (chance outcomes replayed)
    state = next(steps)

    def who(seat: int) -> str:
        return f"player_{seat}" + (f" ({agents[seat]})" if agents else "")

    for i, a in enumerate(record["actions"]):
        lines.append(f"{i:4d}  {who(state.current_player)}: {state.action_to_string(a)}")
        next(steps)
        lines += [f"      {who(q)}: {words}" for q, words in state.rules_words()]
    return final, lines


def main(argv: Sequence[str] | None = None) -> int:
    p = ArgumentParser(prog="python -m training.replay", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, help="a .json record or a .jsonl file of records")
    p.add_argument("--index", type=int, default=0, help="which record of a .jsonl file")
    p.add_argument("--html", type=Path, default=None, metavar="OUT.html",
                   help="write a self-contained HTML replay viewer to OUT.html instead of "
                        "printing the replay")
    args = p.parse_args(argv)
    expected = "expected a .json game record or a .jsonl file of records"
    try:
        data = args.path.read_bytes()
    except OSError as exc:
        p.error(f"cannot read {args.path}: {exc.strerror or exc}")
    if data.startswith(b"PK\x03\x04"):
        p.error(f"{args.path} is a zip archive (a saved model?), not a game record: {expected}")
    try:
        lines = data.decode("utf-8").splitlines()
        if args.path.suffix == ".jsonl":
            if not lines:
                p.error(f"{args.path} holds no records")
            if not 0 <= args.index < len(lines):
                p.error(f"--index must be in 0..{len(lines) - 1} for {args.path}")
            record = json.loads(lines[args.index])
        else:
            record = json.loads("\n".join(lines))
    except UnicodeDecodeError:
        p.error(f"{args.path} is a binary file, not a game record: {expected}")
    except json.JSONDecodeError as exc:
        p.error(f"{args.path} is not a JSON game record ({exc}): {expected}")
    if not isinstance(record, dict):
        p.error(f"{args.path} is not a JSON game record (it holds a JSON "
                f"{type(record).__name__}, not an object): {expected}")
    try:
        state, steps = replay_lines(record)
    except RecordError as exc:
        p.error(f"{args.path}: {exc}")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        p.error(f"{args.path} is not a well-formed game record ({type(exc).__name__}: {exc}): "
                f"{expected}")
    if args.html is not None:
        from .replay_html import replay_html

        page = replay_html(type(state), record, title=f"Cunning replay: {args.path.name}")
        try:
            args.html.write_text(page, encoding="utf-8")
        except OSError as exc:
            p.error(f"cannot write {args.html}: {exc.strerror or exc}")
        print(f"wrote {args.html} ({len(page.encode()) / 1e6:.2f} MB, {len(steps)} decisions)")
        return 0
    print("\n".join(steps))
    print(state.render_text())
    if state.is_over:
        print("returns:", [float(x) for x in state.returns()]
              + ([] if state.is_terminal else ["(truncated: no winner)"]))
    else:   # a game quit before its end: it has no returns yet
        n = len(state.history)
        print(f"unfinished: the record stops after {n} action{'' if n == 1 else 's'}, before "
              f"the game's end (no returns yet; seat {state.current_player} to decide)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
