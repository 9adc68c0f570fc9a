import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from api.reference import markdown, schema

PAGE = Path("docs") / "api" / "reference.md"


class Command(BaseCommand):
    help = (
        "Write the manual's API reference (docs/api/reference.md) from the OpenAPI "
        "schema; --check only says whether the page is current (exit 1 if not)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="compare, write nothing")

    def handle(self, *args, **options):
        page = Path(settings.BASE_DIR) / PAGE
        text = markdown(schema())
        if options["check"]:
            if not page.is_file() or page.read_text() != text:
                raise CommandError(f"{PAGE} is out of date: run `manage.py api_reference`")
            self.stdout.write(f"{PAGE} is current")
            return
        page.write_text(text)
        self.stdout.write(self.style.SUCCESS(f"wrote {PAGE}"))
        sys.stdout.flush()
