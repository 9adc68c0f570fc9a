"""`manage.py update_catalogs` on a copy of the project: the committed
catalogs already hold every string the code marks for translation (nothing
new, nothing left to translate), and a string added to the code comes out as
a new entry to translate, in the catalog of the part of the code it is in."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "var", "node_modules", "__pycache__", "*.mo", "tests", "bench", "docs"
)
SITE_PO = "locale/fr/LC_MESSAGES/django.po"
GAMES_PO = "games/locale/fr/LC_MESSAGES/django.po"


@pytest.fixture
def copy(tmp_path, settings):
    tree = tmp_path / "project"
    shutil.copytree(ROOT, tree, ignore=NOT_COPIED)
    settings.BASE_DIR = tree
    settings.LOCALE_PATHS = [tree / "locale"]
    return tree


def update(copy: Path) -> str:
    out = StringIO()
    call_command("update_catalogs", stdout=out)
    return out.getvalue()


def test_the_committed_catalogs_are_up_to_date(copy):
    report = update(copy)
    assert "to translate" not in report, report
    assert report.count(" 0 new") == 2, report


def test_a_new_string_is_listed_in_its_own_catalog(copy):
    (copy / "tournaments" / "catalog_probe.py").write_text(
        "from django.utils.translation import gettext as _\n\n"
        "SITE_WORD = _('A site probe nobody translated')\n"
    )
    (copy / "games" / "catalog_probe.py").write_text(
        "from django.utils.translation import gettext as _\n\n"
        "GAME_WORD = _('A game probe nobody translated')\n"
    )
    report = update(copy)
    site, games = report.split("games/locale")
    assert "'A site probe nobody translated'" in site
    assert "'A game probe nobody translated'" in games
    assert "A game probe" not in (copy / SITE_PO).read_text()
    assert "A site probe" not in (copy / GAMES_PO).read_text()
