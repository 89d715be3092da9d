"""Play a seat yourself against agents, in the terminal: ``python -m training.play``.

Examples::

    python -m training.play --game prowl --seat 0 --opponents heuristic random random
    python -m training.play --game clans --seat 1 --opponents ppo:runs/clans/final_model.zip \\
        heuristic --seed 7 --record my_game.json
    python -m training.play --game badland_wolves --opponents heuristic heuristic \\
        --config reward=win_only
    python -m training.play --game clandestine --config nemesis=most_holy difficulty=3
        (solo: no opponents; the Nemesis is played by the rules)

One agent spec per other seat, in seat order (``random``, ``heuristic``, ``ppo:PATH`` or any other
spec :func:`agents.make_agent` knows); the number of opponents plus one sets ``num_players``.
Each opponent seat gets its own agent instance.

At each of your decisions the screen shows, in this order: what every other seat did since your
last decision, in the rulebook's words (a choice you cannot see, such as a card placed
face-down, is told without the card); your seat's view (``render_text(seat)``: your own cards,
everything public, never another seat's secrets); and your legal choices, numbered from 1.
Type a number and Enter. Words instead of a number list the choices whose names contain them
(``area 40`` in Clans, ``Seer`` in Prowl); anything else is asked again with the reason; ``q``
(or Ctrl-D) quits.
At the end the screen shows the reveal (every secret, the full position with the scores) and
every seat's return, and the game is saved as a replayable record (``GameState.to_record()``
plus ``"agents"``, the player in each seat), readable by ``python -m training.replay`` and
``GameState.from_record``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from envs import GAMES, env_module
from envs.core import ConfigError, GameState
from envs.core.aec import agent_name
from envs.core.text import SeatLogs, legal_action_lines, seat_label

from .cli import ArgumentParser, creatable_problem
from .evaluate import parse_config
from .seatview import RULES_LABEL

QUIT_WORDS = ("q", "quit", "exit")


class Quit(Exception):
    """The person asked to stop (``q``, end of input or Ctrl-C)."""


def game_header(state: GameState, seat: int, labels: Sequence[str], game: str) -> str:
    """The first line of a game: the game, who plays, the seed and every other seat's player.

    A seat played by the rules (Clandestine's solo Nemesis) is named by the game's
    ``rules_seat_label(seat)`` when it has one, e.g. ``"clandestine, 1 player against the
    Nemesis The Most Holy (P1, difficulty 3), seed 1: you are P0; P1 played by the rules"``.
    """
    agents = list(state.agent_seats)
    describe = getattr(state, "rules_seat_label", None)
    others = []
    rules = []
    for q in range(state.num_players):
        if q == seat:
            continue
        name = describe(q) if describe is not None and q not in agents else None
        if name is not None:
            rules.append(name)
        others.append(f"{seat_label(q, game)} {labels[q]}")
    players = f"{len(agents)} player{'s' if len(agents) != 1 else ''}"
    if rules:
        players += " against " + " and ".join(rules)
    head = f"{game}, {players}, seed {state.seed}: you are {seat_label(seat, game)}"
    return head + ("; " + ", ".join(others) if others else "")


def decision_screen(state: GameState, seat: int, events: Sequence[str], game: str,
                    decision: int, last_own: str | None = None) -> Group:
    """What the person at ``seat`` sees at a decision (a rich renderable).

    Built only from ``events`` (already worded for ``seat``, see :class:`envs.core.text.SeatLogs`),
    ``last_own`` (the words of the person's own previous action), ``state.render_text(seat)``
    and the legal actions' names: nothing of another seat's secrets.
    """
    parts: list[Any] = [Text(f"{game} · you are {seat_label(seat, game)} · your decision "
                             f"{decision}", style="bold")]
    if last_own is not None:
        parts.append(Text(f"your last action: {last_own}"))
    if events:
        parts.append(Panel("\n".join(escape(e) for e in events),
                           title="since your last decision", title_align="left"))
    parts.append(Panel(escape(state.render_text(seat)), title_align="left",
                       title=f"your view ({seat_label(seat, game)})"))
    if state.current_player == seat:      # never another seat's choices (they name its cards)
        parts.append(choices_table(state))
    return Group(*parts)


def choices_table(state: GameState, columns: int | None = None) -> Table:
    """The legal actions of the seat to act, numbered from 1 in id order.

    ``columns``: how many (number, action) column pairs, filled top to bottom; default one up
    to 20 choices, two above (a Clans turn has over a hundred moves).
    """
    options = legal_action_lines(state)
    if columns is None:
        columns = 1 if len(options) <= 20 else 2
    rows = -(-len(options) // columns)
    table = Table(title="your choices", title_justify="left", show_header=False, box=None,
                  padding=(0, 1))
    for _ in range(columns):
        table.add_column("no.", justify="right", style="bold cyan")
        table.add_column("action")
    for r in range(rows):
        cells: list[str] = []
        for c in range(columns):
            i = c * rows + r
            cells += [f"{i + 1}.", escape(options[i][1])] if i < len(options) else ["", ""]
        table.add_row(*cells)
    return table


def parse_answer(answer: str, names: Sequence[str]) -> tuple[int | None, str, list[int]]:
    """A typed answer to ``(choice index, "", [])`` or ``(None, reason, matches)``.

    ``names`` are the choices' names in order. A number picks a choice; words that are part of
    some names (case-insensitive) pick nothing but return those choices' indices as
    ``matches``, so the person can be shown a shorter list.

    Raises:
        Quit: the answer is ``q``, ``quit`` or ``exit``.
    """
    count = len(names)
    a = answer.strip().lower()
    if a in QUIT_WORDS:
        raise Quit
    if not a:
        return None, f"type a number from 1 to {count} (q quits)", []
    if not (a.isdigit() or a[:1] in "+-" and a[1:].isdigit()):
        matches = [i for i, n in enumerate(names) if a in n.lower()]
        if matches:
            return None, f"{len(matches)} choice(s) contain {answer.strip()!r} (listed above): " \
                         "type the number of one", matches
        return None, f"{answer.strip()!r} is not a number and is part of no choice: type a " \
                     f"number from 1 to {count}, or words of a choice to list those (q quits)", []
    k = int(a)
    if not 1 <= k <= count:
        return None, f"{k} is not one of the choices (out of range): type a number from 1 to " \
                     f"{count} (q quits)", []
    return k - 1, "", []


def ask_person(console: Console, state: GameState, read: Callable[[str], str]) -> int:
    """Ask until the person types a valid choice; return the chosen action id.

    Raises:
        Quit: ``q``, end of input (EOF) or Ctrl-C while typing.
    """
    options = legal_action_lines(state)
    while True:
        try:
            answer = read(f"Your choice (1-{len(options)}, q quits): ")
        except (EOFError, KeyboardInterrupt):
            raise Quit from None
        index, reason, matches = parse_answer(answer, [words for _, words in options])
        if index is not None:
            return options[index][0]
        for i in matches:
            console.print(f"  [bold cyan]{i + 1}.[/bold cyan] {escape(options[i][1])}")
        console.print(f"[red]Not a choice:[/red] {escape(reason)}")


def final_screen(state: GameState, seat: int, events: Sequence[str], labels: Sequence[str],
                 game: str) -> Group:
    """The end of the game: last events, the reveal (every secret, the full position with the
    scores) and every seat's return."""
    parts: list[Any] = [Text(f"{game} · game over", style="bold")]
    if events:
        parts.append(Panel("\n".join(escape(e) for e in events),
                           title="since your last decision", title_align="left"))
    parts.append(Panel(escape(state.reveal_text()), title="reveal: every secret",
                       title_align="left"))
    parts.append(Panel(escape(state.render_text()), title="final position (full truth, scores)",
                       title_align="left"))
    returns = state.returns() if state.is_terminal else [0.0] * state.num_players
    table = Table(title="Returns" + ("" if state.is_terminal else
                                     " (game cut off by its length limit: no winner)"),
                  title_justify="left")
    for col in ("seat", "player", "return"):
        table.add_column(col, justify="right" if col == "return" else "left")
    for q, label in enumerate(labels):
        table.add_row(seat_label(q, game), label,
                      f"{float(returns[q]):+g}")
    parts.append(table)
    return Group(*parts)


def play(game: str, seat: int, opponents: Sequence[str], seed: int | None = None,
         config: dict[str, Any] | None = None, console: Console | None = None,
         read: Callable[[str], str] | None = None) -> tuple[GameState, list[str], bool]:
    """Play one game with a person at ``seat`` and ``opponents`` (one spec per other seat).

    Args:
        game: registered game name. seat: the person's seat.
        opponents: agent specs for the other seats in seat order.
        seed: the game's seed (``None``: drawn from the OS). config: game keywords.
        console: where screens go (default: the terminal). read: reads one line after printing
            its prompt (default ``console.input``); EOFError or KeyboardInterrupt quit.

    Returns:
        ``(state, labels, finished)``: the final state, the player label of every seat, and
        False when the person quit before the end.
    Raises:
        ValueError: bad seat, opponent count or spec; ConfigError: bad game keyword;
        FileNotFoundError: a ``ppo:`` path that does not exist.
    """
    from agents import make_agent

    console = console or Console()
    read = read or console.input
    config = dict(config or {})
    n = len(opponents) + 1
    given = config.get("num_players", n)
    if isinstance(given, bool) or not isinstance(given, int):
        raise ValueError(f"--config num_players={given!r} is not an integer ({len(opponents)} "
                         f"opponent(s) and you make {n} players)")
    from_opponents = "num_players" not in config
    if config.setdefault("num_players", n) != n:
        raise ValueError(f"--config num_players={config['num_players']} but {len(opponents)} "
                         f"opponent(s) and you make {n} players")
    state_class = env_module(game).raw_env.state_class
    try:
        state = state_class.from_config(seed, **config)
    except ConfigError as e:
        if from_opponents and "num_players" in str(e):
            raise ConfigError(f"{e}: the player count is you plus one --opponents spec per "
                              f"other seat ({len(opponents)} given)") from e
        raise
    seats = state.agent_seats   # a rules-driven seat (Clandestine's Nemesis) is no one's
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in seats:
        raise ValueError(f"--seat must be in 0..{n - 1} for {n} player{'s' if n != 1 else ''}, "
                         f"got {seat!r}")
    others = [q for q in seats if q != seat]
    agents = {q: make_agent(spec, game, dict(state.config), seed=state.seed % 2**32 + q)
              for q, spec in zip(others, opponents)}
    labels = ["you" if q == seat else RULES_LABEL for q in range(state.num_players)]
    for q, spec in zip(others, opponents):
        labels[q] = spec
    for agent in agents.values():
        agent.reset()
    # a Nemesis seat included: its turns (``rules_words``) are told like the other seats' moves
    logs = SeatLogs(state.num_players, seats=[seat])
    decisions = 0
    last_own = None
    console.print(Text(game_header(state, seat, labels, game), style="bold"))
    try:
        while not state.is_over:
            actor = state.current_player
            if actor == seat:
                decisions += 1
                console.print(decision_screen(state, seat, logs.pending(state, seat), game,
                                              decisions, last_own))
                action = ask_person(console, state, read)
                last_own = state.action_to_string(action)
            else:
                obs = {"observation": state.observation_tensor(actor),
                       "action_mask": state.legal_action_mask()}
                agent = agents[actor]
                if getattr(agent, "needs_state", False):   # search agents (CONVENTIONS)
                    action = agent.act(obs, agent_name(actor), state=state)
                else:
                    action = agent.act(obs, agent_name(actor))
            logs.note(state, action)
            state.apply_action(action)
    except (Quit, KeyboardInterrupt):
        return state, labels, False
    console.print(final_screen(state, seat, logs.pending(state, seat), labels, game))
    return state, labels, True


def save_record(state: GameState, labels: Sequence[str], path: Path) -> Path:
    """Write ``state.to_record()`` plus ``"agents"`` (the player of each seat) as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**state.to_record(), "agents": list(labels)}, indent=1))
    return path


def record_path_problem(path: Path) -> str | None:
    """Why the game record cannot be written at ``path``, or None when it can.

    Checked before the game starts so that a bad ``--record`` does not lose a played game:
    ``path`` must not be a folder nor an unwritable file, and its nearest existing ancestor must
    be a writable folder (the missing folders between are created when saving).
    """
    path = Path(path)
    if path.is_dir():
        return f"--record {path} is a folder: give a file name"
    if path.exists():
        return None if os.access(path, os.W_OK) else f"--record {path} is not writable"
    return creatable_problem("--record", path, folder_word="directory")


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring); returns the exit status (0, or 2 after a
    one-line error)."""
    parser = ArgumentParser(prog="python -m training.play", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--opponents", nargs="*", default=[], metavar="SPEC",
                        help="one agent spec per other seat: random | heuristic | ppo:PATH | ... "
                             "(none for solo play against a Nemesis: --game clandestine "
                             "--config nemesis=most_holy difficulty=3)")
    parser.add_argument("--seed", type=int, default=None,
                        help="the game's seed (default: a fresh one, shown and recorded)")
    parser.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                        help="game keywords, e.g. beginner=true; values are read as JSON, "
                             "so a list is written societies='[\"garden\",\"blue\"]'")
    parser.add_argument("--record", type=Path, default=None,
                        help="where to save the game record (default runs/play/<game>-<time>.json)")
    args = parser.parse_args(argv)
    record = args.record or Path("runs") / "play" / \
        f"{args.game}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    problem = record_path_problem(record)
    if problem:
        parser.error(problem)
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    console = Console(highlight=False)
    try:
        config = parse_config(args.config)
        state, labels, finished = play(args.game, args.seat, args.opponents, seed=args.seed,
                                       config=config, console=console)
    except (ValueError, ConfigError, OSError) as exc:
        parser.error(str(exc))
    try:
        path = save_record(state, labels, record)
    except OSError as exc:
        parser.error(f"cannot write the record {record}: {exc.strerror or exc}")
    if not finished:
        console.print(f"You quit after {len(state.history)} actions. The game so far is saved "
                      f"in {path}")
    else:
        console.print(f"Game record saved in {path} (replay: python -m training.replay {path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
