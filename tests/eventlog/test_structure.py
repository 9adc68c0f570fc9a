"""The log knows no game: nothing under platform/eventlog imports games."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_eventlog_imports_nothing_from_games_or_tournaments():
    offenders = []
    for path in (ROOT / "platform" / "eventlog").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.name}: {n}" for n in names if n.split(".")[0] in ("games", "tournaments")
            ]
    assert offenders == []
