"""The project's settings, unchanged, with the benchmarks' URLconf on top."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "benchsite.urls"

# the clock benchmark tells which path wrote a timeout (the armed task or the
# sweep): every log line a Celery task writes carries its task name and id
from benchsite.tasklog import tag_task_logs  # noqa: E402

tag_task_logs()
