import sys

from django.core.management.base import BaseCommand

from eventlog.models import StoredEvent
from eventlog.readmodels import rebuild_all


class Command(BaseCommand):
    help = (
        "Rebuild every read model from the event log, one stream at a time: the site "
        "keeps running (only appends to the stream being rebuilt wait, for that "
        "stream's moment), and every match, show and bracket keeps its id."
    )

    def handle(self, *args, **options):
        total = StoredEvent.objects.count()  # appends meanwhile are projected live
        out = self.stdout
        width = 30

        def progress(done: int) -> None:
            if not total:
                return
            filled = width * min(done, total) // total
            out.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} events",
                ending="",
            )
            out.flush()

        n = rebuild_all(progress=progress)
        if total:
            out.write("")
        self.stdout.write(self.style.SUCCESS(f"rebuilt read models from {n} events"))
        sys.stdout.flush()
