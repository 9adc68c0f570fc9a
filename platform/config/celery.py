"""The Celery app. With REDIS_URL: a real broker, separate worker and beat.
Without: a memory broker; the embedded server runs the clock loop itself."""

import logging.config
import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gameshow")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["clocks", "hooks", "reminders", "tournaments"])


def _survive_redis_restart() -> None:
    """kombu 5.7: when Redis goes away, the worker closes its channel and
    restores its unacked messages through a connection already released
    (``conninfo.hostname`` of None), and the AttributeError kills the worker
    instead of letting it reconnect. A task still running then (the clocks'
    watching loop runs for up to a minute) acks through the same released
    connection when it ends, with the same AttributeError. Those messages stay
    in Redis's unacked set (restored after the visibility timeout, and a
    deadline's command id writes its timeout once, the sweep enforcing what is
    due anyway), so skipping the restore or the ack is safe."""
    from kombu.transport import redis as kombu_redis

    restore, ack = kombu_redis.QoS.restore_unacked, kombu_redis.QoS.ack
    if getattr(restore, "survives_restart", False):
        return

    def released(qos) -> bool:
        return getattr(qos.channel.connection, "client", None) is None

    def restore_unacked(self, client=None):
        if client is None and released(self):
            self._delivered.clear()
            return None
        return restore(self, client)

    def ack_unless_released(self, delivery_tag):
        if released(self):
            self._delivered.pop(delivery_tag, None)
            return None
        return ack(self, delivery_tag)

    restore_unacked.survives_restart = True
    kombu_redis.QoS.restore_unacked = restore_unacked
    kombu_redis.QoS.ack = ack_unless_released


_survive_redis_restart()


@signals.setup_logging.connect
def _log_through_django_settings(**_kwargs) -> None:
    """Worker and beat log through the project's LOGGING and nothing else: with a
    receiver on this signal Celery adds no handler or format of its own (its
    root, task and pool loggers included), so a shutdown in any order writes
    JSON under LOG_FORMAT=json."""
    from billiard.util import get_logger as pool_logger
    from django.conf import settings

    pool_logger()  # created now, so the configuration below reaches it
    logging.config.dictConfig(settings.LOGGING)
    _say_through_logging()


def _say_through_logging() -> None:
    """Celery writes a few lines straight to the terminal, bypassing logging
    (``worker: Warm shutdown (MainProcess)`` from its SIGTERM handler): they
    become records of the ``celery.worker`` logger. The handler runs in the main
    thread, where the logging locks are reentrant."""
    from celery.apps import worker as worker_program

    say = logging.getLogger("celery.worker")

    def safe_say(msg, f=None):
        say.info(str(msg).strip())

    worker_program.safe_say = safe_say


@signals.worker_process_init.connect
def _freeze_startup(**_kwargs) -> None:
    """Each pool process, once forked: its start out of the collector's way."""
    from runtime.startup import freeze_startup

    freeze_startup()
