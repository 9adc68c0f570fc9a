"""The house's shape (docs/architecture/index.md, "The layers"): the contracts
of .importlinter hold, they fail on the imports they forbid (tried on a
scratch copy of the tree), and no function is too long to hold in the head."""

from __future__ import annotations

import ast
import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = ["games", "tournaments", "ratings", "broadcast", "chat", "platform"]
ENGINES = {"core", "bleven", "doubting_love_letter", "higher_lower", "love_letter", "love_me_not"}
ENGINES |= {"love_letter_family"}
LONGEST_FUNCTION = 80


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{root / 'platform'}"}
    command = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"
    return subprocess.run(
        [sys.executable, "-c", command],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_contract_is_kept():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.fixture(scope="module")
def scratch_tree(tmp_path_factory) -> Path:
    """The project's packages and contracts, copied where a test may break them."""
    root = tmp_path_factory.mktemp("house")
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "locale", "static", "templates")
    for name in PACKAGE_DIRS:
        shutil.copytree(ROOT / name, root / name, ignore=skip)
    shutil.copy(ROOT / ".importlinter", root / ".importlinter")
    return root


BREAKS = {
    "the log imports a game": (
        "platform/eventlog/store.py",
        "from games import services  # noqa",
        "eventlog is not allowed to import games",
    ),
    "a rules engine imports Django": (
        "games/love_letter/rules.py",
        "import django.db  # noqa",
        "games.love_letter is not allowed to import django",
    ),
    "a game imports the tournaments": (
        "games/services.py",
        "import tournaments.models  # noqa",
        "games is not allowed to import tournaments",
    ),
    "two packages of one layer import each other": (
        "ratings/models.py",
        "import broadcast  # noqa",
        "ratings is not allowed to import broadcast",
    ),
}


@pytest.mark.parametrize("case", sorted(BREAKS))
def test_a_forbidden_import_breaks_a_contract(scratch_tree, case):
    path, line, complaint = BREAKS[case]
    target = scratch_tree / path
    before = target.read_text()
    target.write_text(f"{before}\n{line}\n")
    try:
        result = _lint_imports(scratch_tree)
    finally:
        target.write_text(before)
    assert result.returncode != 0
    assert complaint in result.stdout, result.stdout


def test_a_circle_of_files_breaks_a_contract(scratch_tree):
    shows = scratch_tree / "tournaments"
    (shows / "circle_a.py").write_text("from tournaments import circle_b  # noqa\n")
    (shows / "circle_b.py").write_text("from tournaments import circle_a  # noqa\n")
    try:
        result = _lint_imports(scratch_tree)
    finally:
        (shows / "circle_a.py").unlink()
        (shows / "circle_b.py").unlink()
    assert result.returncode != 0
    assert "No cycles are allowed in tournaments" in result.stdout, result.stdout


def test_the_scratch_tree_keeps_the_contracts_when_nothing_is_added(scratch_tree):
    result = _lint_imports(scratch_tree)
    assert result.returncode == 0, result.stdout


def test_the_engines_contract_names_every_module_of_games_outside_the_engines():
    contracts = configparser.ConfigParser()
    contracts.read(ROOT / ".importlinter")
    forbidden = contracts["importlinter:contract:engines"]["forbidden_modules"].split()
    named = {m.removeprefix("games.") for m in forbidden if m.startswith("games.")}
    children = {
        p.stem if p.is_file() else p.name
        for p in (ROOT / "games").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    }
    assert named == children - ENGINES


def _long_functions() -> list[str]:
    found = []
    for name in [*PACKAGE_DIRS, "bench"]:
        for path in sorted((ROOT / name).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > LONGEST_FUNCTION:
                        where = path.relative_to(ROOT)
                        found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_longer_than_80_lines():
    assert _long_functions() == []
