"""The order the suite's files are handed out in (tests/conftest.py): every
browser file after every other test, the longest browser files first, each
of them a file that exists."""

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import LONG_BROWSER_FILES, _run_order

E2E = Path(__file__).parent / "e2e"


def _item(path: Path):
    return SimpleNamespace(path=path)


def test_the_long_browser_files_exist_and_come_first_longest_first():
    assert LONG_BROWSER_FILES, "the longest browser files are handed out first"
    for name in LONG_BROWSER_FILES:
        assert (E2E / name).is_file(), f"{name} is not a browser test file"
    others = sorted(p for p in E2E.glob("test_*.py") if p.name not in LONG_BROWSER_FILES)
    files = [E2E / n for n in reversed(LONG_BROWSER_FILES)] + others
    order = sorted(files, key=lambda p: _run_order(_item(p)))
    assert [p.name for p in order[: len(LONG_BROWSER_FILES)]] == list(LONG_BROWSER_FILES)


def test_the_browser_files_come_after_every_other_test():
    plain = _item(Path(__file__).parent / "games" / "test_services.py")
    for name in (LONG_BROWSER_FILES[0], "test_chat.py"):
        assert _run_order(plain) < _run_order(_item(E2E / name))
