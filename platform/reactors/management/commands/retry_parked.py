from django.core.management.base import BaseCommand

from reactors import parked
from reactors.models import ParkedAppend


class Command(BaseCommand):
    help = (
        "Try the appends a reactor parked (it kept failing on them) once more: all those "
        "not handled yet, or those named by --id."
    )

    def add_arguments(self, parser):
        parser.add_argument("--id", type=int, action="append", dest="ids", help="a parked row")

    def handle(self, *args, ids=None, **options):
        rows = ParkedAppend.objects.filter(handled=False).order_by("id")
        if ids:
            rows = rows.filter(pk__in=ids)
        handled = failed = 0
        for row in rows:
            if parked.retry(row):
                handled += 1
            else:
                failed += 1
                self.stderr.write(f"{row}: {row.error}")
        self.stdout.write(f"{handled} handled, {failed} failed again")
