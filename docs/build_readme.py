"""Copy the per-game references ``docs/<game>.md`` into README.md's "The games" section.

    python docs/build_readme.py          # rewrite README.md between the games markers
    python docs/build_readme.py --check  # exit 1 if README.md is out of date

Each game file's headings move down two levels so they sit under README's "The games" heading.
The test suite runs the check, so README's observation and action tables cannot drift from the
per-game references (which are themselves checked against the code's layouts).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("prowl", "badland_wolves", "clans", "clandestine")
START, END = "<!-- games:start -->", "<!-- games:end -->"


def games_section() -> str:
    """The generated text between the markers."""
    parts = []
    for game in GAMES:
        text = (ROOT / "docs" / f"{game}.md").read_text().strip()
        text = re.sub(r"^(#+) ", lambda m: "##" + m.group(1) + " ", text, flags=re.M)
        text = text.replace("](", "](docs/").replace("](docs/http", "](http") \
            .replace("](docs/#", "](#").replace("](docs/docs/", "](docs/")
        parts.append(text)
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
