import logging
import signal
import threading

from django.core.management.base import BaseCommand

from reactors.follow import Follower, registered
from runtime.startup import freeze_startup

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Follow the event log with every reactor (webhook deliveries, ...): this process's "
        "share of the partitions, woken by LISTEN/NOTIFY; run one or more (production)."
    )

    def handle(self, *args, **options):
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        follower = Follower()
        freeze_startup()
        names = ", ".join(r.name for r in registered())
        log.info("reactors following the log as %s: %s", follower.owner, names)
        follower.run(stop)
        log.info("reactors stopped; partitions given back")
