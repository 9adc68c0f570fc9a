"""The Celery app. With REDIS_URL: a real broker, separate worker and beat.
Without: a memory broker; the embedded server runs the clock loop itself."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gameshow")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["clocks"])
