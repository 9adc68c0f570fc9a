"""The Celery app. With REDIS_URL: a real broker, separate worker and beat.
Without: a memory broker; the embedded server runs the clock loop itself."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gameshow")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["clocks"])


def _survive_redis_restart() -> None:
    """kombu 5.7: when Redis goes away, the worker closes its channel and
    restores its unacked messages through a connection already released
    (``conninfo.hostname`` of None), and the AttributeError kills the worker
    instead of letting it reconnect. Those messages stay in Redis's unacked
    set (restored after the visibility timeout, and the clocks' sweep
    enforces what is due anyway), so skipping the restore is safe."""
    from kombu.transport import redis as kombu_redis

    restore = kombu_redis.QoS.restore_unacked
    if getattr(restore, "survives_restart", False):
        return

    def restore_unacked(self, client=None):
        if client is None and getattr(self.channel.connection, "client", None) is None:
            self._delivered.clear()
            return None
        return restore(self, client)

    restore_unacked.survives_restart = True
    kombu_redis.QoS.restore_unacked = restore_unacked


_survive_redis_restart()
