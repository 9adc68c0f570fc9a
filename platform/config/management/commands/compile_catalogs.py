"""Compile every French (and any other) gettext catalog of the project into
its .mo: the project's locale/ and each app's (games/locale/).

Django's compilemessages needs GNU gettext's msgfmt, which a fresh machine
may lack; without it each .po is compiled with Babel (pure Python). A .mo
newer than its .po is left as it is, so `make install` stays fast."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

SKIP_DIRS = {".venv", "var", "node_modules", ".git"}


def catalogs(root: Path) -> list[Path]:
    """Every locale/<lang>/LC_MESSAGES/*.po under ``root``, never walking into
    the virtualenv (whose packages bring catalogs of their own)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        here = Path(folder)
        if here.name == "LC_MESSAGES" and here.parent.parent.name == "locale":
            found.extend(here / f for f in files if f.endswith(".po"))
    return sorted(found)


def stale(po: Path) -> bool:
    mo = po.with_suffix(".mo")
    return not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime


def compile_with_babel(po: Path) -> None:
    """One .po to its .mo without msgfmt; fuzzy entries are left out, as msgfmt does."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, abort_invalid=True)
    tmp = po.with_suffix(".mo.tmp")
    with tmp.open("wb") as f:
        write_mo(f, catalog, use_fuzzy=False)
    tmp.replace(po.with_suffix(".mo"))


class Command(BaseCommand):
    help = "Compile the project's gettext catalogs (.po to .mo), with or without msgfmt."

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-msgfmt",
            action="store_true",
            help="compile with Babel even where msgfmt exists (the fresh-machine path)",
        )
        parser.add_argument("--force", action="store_true", help="recompile up-to-date ones too")

    def handle(self, *args, no_msgfmt=False, force=False, **options):
        root = Path(settings.BASE_DIR)
        todo = [po for po in catalogs(root) if force or stale(po)]
        if not todo:
            self.stdout.write("catalogs: all compiled and up to date")
            return
        if not no_msgfmt and shutil.which("msgfmt"):
            for po in todo:
                po.with_suffix(".mo").unlink(missing_ok=True)  # --force: stale for Django too
            with contextlib.chdir(root):  # compilemessages walks the working folder
                call_command("compilemessages", ignore_patterns=sorted(SKIP_DIRS), verbosity=0)
            how = "msgfmt"
        else:
            for po in todo:
                try:
                    compile_with_babel(po)
                except Exception as exc:
                    raise CommandError(f"{po.relative_to(root)}: {exc}") from exc
            how = "Babel, no msgfmt"
        for po in todo:
            self.stdout.write(f"compiled {po.relative_to(root)} ({how})")
