import json

from django.core.management.base import BaseCommand, CommandError

from eventlog.readmodels import compare_with_rebuild, fingerprint


class Command(BaseCommand):
    help = (
        "Check that the read models equal a rebuild from the event log: the rebuild "
        "runs in a transaction that is rolled back, so nothing is changed. Exit 1 "
        "naming the tables that differ. --fingerprint prints each table's row count "
        "and hash instead, to compare two databases (a restored backup with its source)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
        parser.add_argument(
            "--fingerprint",
            action="store_true",
            help="print each table's rows and SHA-256 (JSON) and check nothing",
        )

    def handle(self, *args, **options):
        if options["fingerprint"]:
            self.stdout.write(json.dumps(fingerprint(), sort_keys=True))
            return
        result = compare_with_rebuild()
        if options["json"]:
            self.stdout.write(json.dumps({"equal": not result.differ, **result.__dict__}))
        if result.differ:
            raise CommandError(
                f"read models differ from a rebuild of {result.events} events in: "
                + ", ".join(result.differ)
            )
        if not options["json"]:
            self.stdout.write(
                self.style.SUCCESS(
                    f"read models equal a rebuild from the log ({result.events} events, "
                    f"{result.tables} tables)"
                )
            )
