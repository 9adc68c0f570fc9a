"""Every scenario file, the shared examples and the project's own rule cases,
must pass as written."""

from pathlib import Path

import pytest

from games.core.scenario import run_file

HERE = Path(__file__).parent
SHARED = HERE / "shared_scenarios"  # copies of the examples in FORMAT.md
FILES = sorted(HERE.glob("*/scenarios/*.json")) + sorted(SHARED.glob("*.json"))


def test_every_shared_example_is_collected():
    assert len([p for p in FILES if p.parent == SHARED]) >= 5


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_scenario(path):
    result, problems = run_file(path)
    assert problems == [], f"{path.name}: " + "; ".join(problems)
