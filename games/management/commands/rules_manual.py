from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.rules_manual import FOLDER, pages


class Command(BaseCommand):
    help = (
        "Write the manual's rules pages (docs/games/<slug>.md) from the site's rules "
        "templates; --check only says whether they are current (exit 1 if not)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="compare, write nothing")

    def handle(self, *args, **options):
        folder = Path(settings.BASE_DIR) / FOLDER
        stale = []
        for name, text in pages().items():
            path = folder / name
            if options["check"]:
                if not path.is_file() or path.read_text() != text:
                    stale.append(name)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            self.stdout.write(f"wrote {FOLDER / name}")
        if stale:
            raise CommandError(
                f"out of date in {FOLDER}: {', '.join(stale)}: run `manage.py rules_manual`"
            )
        if options["check"]:
            self.stdout.write(f"{FOLDER} is current")
