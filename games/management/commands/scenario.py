import json
import sys

from django.core.management.base import BaseCommand

from games.core.scenario import MalformedScenario, run_file


class Command(BaseCommand):
    help = "Play scenario files (shared/scenarios/FORMAT.md) and check their expectations."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args, files, **options):
        results, failed, malformed = [], False, False
        for path in files:
            try:
                result, problems = run_file(path)
            except MalformedScenario as exc:
                self.stderr.write(f"malformed: {exc}")
                malformed = True
                continue
            for p in problems:
                self.stderr.write(f"{result['file']}: {p}")
            failed = failed or bool(problems)
            results.append(result)
        out = results[0] if len(files) == 1 and results else results
        self.stdout.write(json.dumps(out, indent=1))
        if malformed:
            sys.exit(2)
        if failed:
            sys.exit(1)
