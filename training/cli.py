"""Shared pieces of the ``python -m training.*`` command lines.

Every command reports a mistake in its arguments as one line on standard error,
``python -m training.X: error: MESSAGE (try --help)``, and exits with status 2, instead of
argparse's usage block (about 20 lines for ``training.selfplay``) followed by the error.
Modules that are libraries, not commands, answer ``python -m training.X`` (with or without
``--help``) with one line saying what they are and which command to use instead
(:func:`library_main`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose :meth:`error` prints one line, not the usage block.

    ``--help`` is unchanged (usage, description, options on standard output, exit 0).
    """

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE (try --help)`` to standard error and exit with 2."""
        self.exit(2, f"{self.prog}: error: {message} (try --help)\n")


def library_main(module: str, summary: str, instead: str,
                 argv: Sequence[str] | None = None) -> int:
    """The ``__main__`` of a library module ``training.<module>``.

    ``--help`` (or ``-h``) prints a usage line and ``summary`` plus ``instead`` (the command to
    use) on standard output and returns 0; anything else prints the same as a one-line error on
    standard error and returns 2.

    Args:
        module: the module's name under ``training`` (``"arena"``).
        summary: one sentence saying what the module is.
        instead: the command to run instead, e.g. ``"python -m training.evaluate"``.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = f"python -m training.{module}"
    line = f"{summary} It is a library, not a command: use {instead} (see its --help)."
    if argv and all(a in ("-h", "--help") for a in argv):
        print(f"usage: {prog} --help\n\n{line}")
        return 0
    print(f"{prog}: error: {line}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(library_main("cli", "The shared pieces of the training command lines.",
                          "python -m training.selfplay, evaluate, play, web, replay or plots"))


def _uncreatable_reason(path: Path, folder_word: str = "folder") -> str | None:
    """Why the missing ``path`` cannot be created (see :func:`creatable_problem`), or None."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        if parent.is_symlink():   # mkdir would fail on it after the games
            return f"{parent} is a symlink to the missing {os.readlink(parent)}"
        parent = parent.parent
    if not parent.is_dir():
        return f"a parent of {path} ({parent}) is not a {folder_word}"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"no permission to write in the folder {parent}"
    return None


def creatable_problem(option: str, path: Path, folder_word: str = "folder") -> str | None:
    """Why the missing ``path`` given as ``option`` cannot be created, or None when it can: its
    nearest existing ancestor must be a folder (``folder_word`` names one in the message) that
    this process may write in. The missing folders between are created when saving."""
    reason = _uncreatable_reason(path, folder_word)
    return None if reason is None else f"{option} {path}: {reason}"


def check_out_folder(ap: argparse.ArgumentParser, out: Path, option: str = "--out") -> None:
    """Refuse (``ap.error``, one line, exit 2) an output folder ``out`` given as ``option``
    that exists and is not a folder, is a folder this process may not write in, is a dangling
    symlink, or is missing and cannot be created
    (a parent that is not a folder or is a dangling symlink, or a folder this process may not
    write in). Creates nothing: the folder is made when the results are written. The one check of ``training.evaluate`` and
    ``training.league``, called before any game is played."""
    if out.exists() and not out.is_dir():
        ap.error(f"{option} {out} exists and is not a folder")
    if out.is_symlink() and not out.exists():   # mkdir would fail on it after the games
        ap.error(f"{option} {out} is a symlink to the missing {os.readlink(out)}: create "
                 "that folder or choose another --out")
    if out.is_dir() and not os.access(out, os.W_OK | os.X_OK):
        ap.error(f"{option} {out}: no permission to write in the folder {out}")
    if not out.exists():
        reason = _uncreatable_reason(out)
        if reason is not None:
            ap.error(f"{option} {out} cannot be created: {reason}")


def refuse_to_replace(ap: argparse.ArgumentParser, out: Path, names: Sequence[str],
                      overwrite: bool) -> list[str]:
    """Refuse (``ap.error``, one line, exit 2) an output folder ``out`` that already holds one
    of the files ``names`` this command writes, unless ``overwrite``; a folder of one of those
    names is refused even with ``overwrite`` (it is not an earlier output). Called before any
    game is played; deletes nothing.

    Returns:
        the names of the earlier outputs found (files or symlinks, dangling ones included),
        which the command deletes with :func:`remove_outputs` only once its new results are
        ready to be written: games that fail or are interrupted leave the earlier run intact,
        and none of its outputs (``records.jsonl`` of a run with ``--records``, say) is left
        beside the new ones.
    """
    found = [n for n in names if (out / n).exists() or (out / n).is_symlink()]
    if not found:
        return []
    folders = [n for n in found if (out / n).is_dir() and not (out / n).is_symlink()]
    if folders:   # not an earlier run's output: never deleted, and nothing can be written there
        ap.error(f"--out {out}: {', '.join(folders)} is a folder, not an output of an earlier "
                 "run: move it away or choose another --out")
    if not overwrite:
        ap.error(f"--out {out} already holds {', '.join(found)} from an earlier run: add "
                 "--overwrite to replace them, or choose another --out")
    return found


def remove_outputs(out: Path, names: Sequence[str]) -> None:
    """Delete the earlier outputs ``names`` (from :func:`refuse_to_replace`) in ``out``, just
    before the new results are written; a name already gone is skipped. A symlink is removed,
    never followed (nothing is written through it to a file outside ``out``)."""
    for n in names:
        (out / n).unlink(missing_ok=True)


def set_num_players(ap: argparse.ArgumentParser, config: dict[str, Any],
                    num_players: int | None, option: str = "--num-players") -> dict[str, Any]:
    """``config`` with ``num_players`` set from the player-count option (unchanged when it is
    None); ``option`` is that option's name in messages (``training.league`` calls it
    ``--players``).

    A ``--config`` that already names another player count ends in ``ap.error`` (one line,
    exit 2) naming both, the config's value as written (``'4'`` for a JSON string)."""
    if num_players is not None:
        if config.get("num_players", num_players) != num_players:
            ap.error(f"{option} {num_players} and --config num_players="
                     f"{config['num_players']!r} disagree: give one")
        config["num_players"] = num_players
    return config


def agent_seats_text(state: Any) -> str:
    """The seats of ``state`` that agents play, in words: ``"3 seats"``, or with a seat the
    rules play ``"1 seat played by agents (seat 1 is played by the rules)"``."""
    from envs.core.text import rules_seats_note

    seats = len(state.agent_seats)
    note = rules_seats_note(state)
    return f"{seats} seat{'' if seats == 1 else 's'}" + (f" played by agents{note}" if note else "")


def spec_count_problem(count: int, state: Any, what: str = "agent specs") -> str | None:
    """Why ``count`` agent specs (``what``, as the command calls them) are too many for the
    seats of ``state`` that agents play (``state.agent_seats``; a Clandestine Nemesis seat is
    played by the rules, though ``state.num_players`` counts it), or None when they fit."""
    if count <= len(state.agent_seats):
        return None
    return f"{count} {what} for {agent_seats_text(state)}"
