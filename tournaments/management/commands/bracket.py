"""``manage.py bracket FILE.json [FILE ...]``: a bracket dry run (TOURNAMENTS.md).

Thin: the work is ``tournaments.brackets.main``. Exit 0; 1 when a result is
refused or the file's ``expect`` does not match; 2 when a file is malformed.
"""

import sys

from django.core.management.base import BaseCommand

from tournaments.brackets import main


class Command(BaseCommand):
    help = "Play a bracket from a JSON file and print its series, standings and champion."
    requires_system_checks = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE.json")

    def handle(self, *args, files, **options):
        code = main(files, stdout=self.stdout, stderr=self.stderr)
        if code:
            sys.exit(code)
