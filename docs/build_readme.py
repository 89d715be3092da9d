"""Write README.md's "The games" section from the per-game references ``docs/<game>.md``.

    python docs/build_readme.py          # rewrite README.md between the games markers
    python docs/build_readme.py --check  # exit 1 if README.md is out of date

The README is the front page: for each game it carries the reference's title (one level down)
and its first paragraph, then a link to the full reference (configuration, the action and
observation tables index by index, rewards, rulings), which stays in ``docs/``. The test suite
runs the check, so the README cannot drift from the references (which are themselves checked
against the code's layouts).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("prowl", "badland_wolves", "clans", "clandestine")
START, END = "<!-- games:start -->", "<!-- games:end -->"


def games_section() -> str:
    """The generated text between the markers: title, first paragraph and link per game."""
    parts = []
    for game in GAMES:
        text = (ROOT / "docs" / f"{game}.md").read_text().strip()
        title, _, body = text.partition("\n")
        first = body.strip().split("\n\n", 1)[0]
        first = first.replace("](", "](docs/").replace("](docs/http", "](http") \
            .replace("](docs/#", f"](docs/{game}.md#").replace("](docs/docs/", "](docs/")
        parts.append(f"##{title}\n\n{first}\n\nFull reference: [docs/{game}.md](docs/{game}.md).")
    return "\n\n".join(parts)


def build(readme: str) -> str:
    """``readme`` with the games section regenerated. Raises ValueError without the markers."""
    if START not in readme or END not in readme:
        raise ValueError(f"README.md needs the markers {START} and {END}")
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{games_section()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    path = ROOT / "README.md"
    current = path.read_text()
    new = build(current)
    if "--check" in argv:
        if new != current:
            print("README.md is out of date: run python docs/build_readme.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
