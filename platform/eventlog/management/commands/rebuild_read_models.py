import sys

from django.core.management.base import BaseCommand
from django.db import transaction

from eventlog.models import StoredEvent
from eventlog.readmodels import rebuild_all


class Command(BaseCommand):
    help = (
        "Rebuild every read model from the event log, in one transaction; safe while "
        "the site runs (appends wait for it), and every match, show and bracket keeps its id."
    )

    def handle(self, *args, **options):
        total = StoredEvent.objects.count()
        out = self.stdout
        width = 30

        def progress(done: int) -> None:
            if not total:
                return
            filled = width * done // total
            out.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} events",
                ending="",
            )
            out.flush()

        with transaction.atomic():
            n = rebuild_all(progress=progress)
        if total:
            out.write("")
        self.stdout.write(self.style.SUCCESS(f"rebuilt read models from {n} events"))
        sys.stdout.flush()
