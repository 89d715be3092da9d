"""What `pip install -e ".[test]"` brings is enough to run every test file: a file skipped as a
whole by a module-level `pytest.importorskip` needs a package that the core dependencies or the
test extra install, or a reason naming the extra that does."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# import name -> distribution name, where they differ
DISTRIBUTIONS = {"pyspiel": "open_spiel"}


def _names(requirements):
    """Distribution names of requirement strings ('pettingzoo[classic]>=1.27' -> 'pettingzoo')."""
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower().replace("_", "-")
            for r in requirements}


def module_level_skips(text):
    """(module, reason or '') of every `pytest.importorskip` call starting at column 0 or
    assigned there, i.e. run at import of the test file."""
    found = []
    for match in re.finditer(r'^(?:\w+ = )?pytest\.importorskip\(\s*"([\w.]+)"(.*?)\)\s*$', text,
                             re.M | re.S):
        found.append((match.group(1), match.group(2)))
    return found


def test_module_level_skips_finds_calls_and_reasons():
    text = ('x = 1\npexpect = pytest.importorskip("pexpect")\n'
            'pytest.importorskip("fastapi")\n'
            '    pytest.importorskip("torchrl")\n'
            'pyspiel = pytest.importorskip("pyspiel",'
            ' reason="no (pip install -e \'.[openspiel]\')")\n')
    assert module_level_skips(text) == [
        ("pexpect", ""), ("fastapi", ""),
        ("pyspiel", ', reason="no (pip install -e \'.[openspiel]\')"')]


def test_whole_file_skips_are_installed_by_the_test_extra():
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    installed = _names(project["dependencies"]) | _names(extras["test"])
    missing = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for module, reason in module_level_skips(path.read_text()):
            dist = DISTRIBUTIONS.get(module, module.split(".")[0]).lower().replace("_", "-")
            named = re.findall(r"\.\[(\w+)\]", reason)
            if dist in installed or any(dist in _names(extras.get(e, [])) for e in named):
                continue
            missing.append(f"{path.name}: {module}")
    assert missing == []
