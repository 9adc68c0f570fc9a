"""Refresh both French catalogs from the code in one step: the site's
(locale/) and the games' (games/locale/, which holds games/**/*.py and
templates/games/). Needs GNU gettext (xgettext, msgcat, msgmerge).

The catalogs are written sorted by msgid, without source locations, and keep
their header dates: two branches that each add strings then touch different
lines, so they merge without conflicts. New entries come out untranslated;
the command lists them, and tests/i18n fails until each has its French."""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.core.management.commands import makemessages

LANG = "fr"
# never scanned for either catalog
ALWAYS_IGNORED = [
    ".venv/*",
    "var/*",
    "tests/*",
    "bench/*",
    "docker/*",
    "static/*",
    "node_modules/*",
]
SITE_IGNORED = ["games/*", "templates/games/*"]
HEADER_KEYS = ("POT-Creation-Date", "PO-Revision-Date")


class _MakeMessages(makemessages.Command):
    # the engines refuse in plain English, RuleError("words {value}", value=...),
    # without Django: their words are msgids all the same (games.engine_words.refusal)
    xgettext_options = [
        *makemessages.Command.xgettext_options,
        "--keyword=RuleError",
        "--keyword=RoleRequired",
    ]


def site_catalog(root: Path) -> Path:
    return root / "locale" / LANG / "LC_MESSAGES" / "django.po"


def games_catalog(root: Path) -> Path:
    return root / "games" / "locale" / LANG / "LC_MESSAGES" / "django.po"


def _gettext(*args: str) -> None:
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CommandError(f"{args[0]}: {proc.stderr.strip()}")


def _header_values(po: Path) -> dict[str, str]:
    text = po.read_text(encoding="utf-8")
    return {k: m.group(0) for k in HEADER_KEYS if (m := re.search(rf'"{k}: [^"]*"', text))}


def _restore_header(po: Path, kept: dict[str, str]) -> None:
    text = po.read_text(encoding="utf-8")
    for key, line in kept.items():
        text = re.sub(rf'"{key}: [^"]*"', lambda _m, line=line: line, text, count=1)
    po.write_text(text, encoding="utf-8")


def _entries(po: Path) -> dict[str, str]:
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f)
    return {
        (m.context or "", str(m.id)): m.string if isinstance(m.string, str) else "|".join(m.string)
        for m in catalog
        if m.id
    }


class Command(BaseCommand):
    help = "Refresh the site's and the games' French catalogs from the code (sorted, no locations)."

    def handle(self, *args, **options):
        for tool in ("xgettext", "msgcat", "msgmerge"):
            if not shutil.which(tool):
                raise CommandError(
                    f"{tool} not found: install GNU gettext (apt-get install gettext)"
                )
        root = Path(settings.BASE_DIR)
        site, games = site_catalog(root), games_catalog(root)
        before = {po: _entries(po) for po in (site, games)}
        headers = {po: _header_values(po) for po in (site, games)}
        with tempfile.TemporaryDirectory() as tmp:
            old_site, old_games = Path(tmp) / "old-site.po", Path(tmp) / "old-games.po"
            shutil.copy(site, old_site)
            shutil.copy(games, old_games)
            with contextlib.chdir(root):
                self._extract(ALWAYS_IGNORED + SITE_IGNORED)
            # the games' catalog is scanned from inside games/, so no other app's
            # strings (a new top-level app has no locale of its own) can reach it
            with contextlib.chdir(root / "games"):
                self._extract([])
            self._add_game_templates(root, games, old_games, Path(tmp))
            for po in (site, games):
                # a string that moved from one catalog to the other keeps its French
                _gettext(
                    "msgmerge",
                    "--quiet",
                    "--no-fuzzy-matching",
                    "-N",
                    "-C",
                    str(old_site),
                    "-C",
                    str(old_games),
                    "-o",
                    str(po),
                    str(po),
                    str(po),
                )
        for po in (site, games):
            # a guess of gettext's (fuzzy) is no translation: emptied, so it is listed
            _gettext(
                "msgattrib",
                "--clear-fuzzy",
                "--empty",
                "--no-obsolete",
                "--no-location",
                "--sort-output",
                "-o",
                str(po),
                str(po),
            )
            _restore_header(po, headers[po])
            self._report(root, po, before[po], _entries(po))

    def _extract(self, ignored: list[str]) -> None:
        call_command(
            _MakeMessages(), locale=[LANG], ignore_patterns=ignored, no_location=True, verbosity=0
        )

    def _add_game_templates(self, root: Path, games: Path, old: Path, tmp: Path) -> None:
        """templates/games/ has no locale folder of its own, so its strings are
        extracted in a temporary one and joined to the games' catalog, whose
        translations (old) fill in the entries that only the templates hold."""
        folder = root / "templates" / "games"
        made = folder / "locale"
        made.mkdir(exist_ok=True)
        try:
            with contextlib.chdir(folder):
                call_command(
                    "makemessages",
                    locale=[LANG],
                    ignore_patterns=[f"{LANG}/*"],
                    no_location=True,
                    verbosity=0,
                )
            # the templates' strings are obsolete in the games' scan: dropped before joining
            _gettext("msgattrib", "--no-obsolete", "-o", str(games), str(games))
            joined = tmp / "joined.po"
            _gettext(
                "msgcat",
                "--use-first",
                str(games),
                str(made / LANG / "LC_MESSAGES" / "django.po"),
                "-o",
                str(joined),
            )
            _gettext(
                "msgmerge",
                "--quiet",
                "--no-fuzzy-matching",
                "-N",
                str(old),
                str(joined),
                "-o",
                str(games),
            )
        finally:
            shutil.rmtree(made, ignore_errors=True)

    def _report(self, root: Path, po: Path, before: dict, after: dict) -> None:
        added = sorted(set(after) - set(before))
        removed = sorted(set(before) - set(after))
        untranslated = sorted(k for k, v in after.items() if not v.strip("|"))
        name = po.relative_to(root)
        self.stdout.write(f"{name}: {len(after)} entries, {len(added)} new, {len(removed)} gone")
        for msgid in untranslated:
            self.stdout.write(
                f"  to translate: {msgid[1]!r}" + (f" ({msgid[0]})" if msgid[0] else "")
            )
