"""Structured logs: with LOG_FORMAT=json every record is one JSON object on
one line (time, level, logger, message, and the match and stream it is about
when known), ready for a log collector. Plain text otherwise (`make run`).

The ids come from the record's ``extra`` (``log.info("...", extra={"stream":
s})``) or from ``log_context(stream=..., match_id=...)`` around a piece of
work (a clock task, a command), which every record inside it carries."""

from __future__ import annotations

import contextvars
import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

# the ids a record may carry, in the order they are written
CONTEXT_KEYS = ("stream", "match_id", "show_stream", "command_id", "task_id")

_context: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "log_context", default=None
)


@contextmanager
def log_context(**ids: Any) -> Iterator[None]:
    """Every record logged inside the block carries these ids."""
    token = _context.set(
        {**(_context.get() or {}), **{k: v for k, v in ids.items() if v is not None}}
    )
    try:
        yield
    finally:
        _context.reset(token)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        ctx = _context.get() or {}
        for key in CONTEXT_KEYS:
            value = getattr(record, key, None)
            if value is None:
                value = ctx.get(key)
            if value is not None:
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, default=str, ensure_ascii=False)


class HeldRepeats(logging.Filter):
    """One record per ``seconds`` for each logger and message: a loop that
    logs the same failure every second (channels-redis's pub/sub reader
    while Redis restarts) writes it once, then once a minute saying how
    many it held back."""

    def __init__(self, seconds: float = 60.0):
        super().__init__()
        self.seconds = seconds
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        with self._lock:
            last, held = self._seen.get(key, (None, 0))
            if last is not None and record.created - last < self.seconds:
                self._seen[key] = (last, held + 1)
                return False
            self._seen[key] = (record.created, 0)
        if held:
            record.msg = f"{record.msg} (and {held} more like it in the last {self.seconds:.0f} s)"
        return True


# loggers of libraries that repeat a failure in a loop, each record held to one a minute
HELD_REPEATS = ("channels_redis.pubsub",)


def logging_config(fmt: str, level: str) -> dict:
    """The LOGGING setting: one console handler, JSON or plain. The servers'
    and Celery's own loggers go through it too, so one process writes one
    format."""
    formatter = "json" if fmt == "json" else "plain"
    # Python's warnings become records too, so a JSON stream stays JSON
    logging.captureWarnings(fmt == "json")
    through_root = {"handlers": [], "propagate": True}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {"()": "runtime.logging.JsonFormatter"},
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        },
        "filters": {"held_repeats": {"()": "runtime.logging.HeldRepeats"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": formatter}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            **{
                name: through_root
                for name in ("gunicorn.error", "gunicorn.access", "uvicorn", "uvicorn.access")
            },
            **{name: {"filters": ["held_repeats"]} for name in HELD_REPEATS},
            # billiard's pool logger never propagates (it reports pool children that
            # exit, e.g. on a SIGTERM from outside): it gets the console handler itself
            "multiprocessing": {"handlers": ["console"], "propagate": False, "level": "WARNING"},
        },
    }
