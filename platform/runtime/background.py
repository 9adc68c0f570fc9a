"""One daemon thread of embedded mode (`make run`: the clock, the webhook
deliveries): it runs a step that says how long to sleep, and wakes early
when told to (an append, a new delivery)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class Background:
    def __init__(self, name: str, step: Callable[[], float], *, retry_s: float):
        self.name, self.step, self.retry_s = name, step, retry_s
        self._wakeup = threading.Event()
        self._started = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def wake(self) -> None:
        self._wakeup.set()

    def start(self) -> threading.Event:
        """Start the thread once; returns its stop flag."""
        with self._started:
            if self._thread is not None and self._stop.is_set():  # stopping: let it end
                self._wakeup.set()
                self._thread.join(timeout=10)
            if self._thread is None or not self._thread.is_alive():
                self._stop = threading.Event()
                self._thread = threading.Thread(
                    target=self._loop, args=(self._stop,), name=self.name, daemon=True
                )
                self._thread.start()
        return self._stop

    def _loop(self, stop: threading.Event) -> None:
        from django.db import close_old_connections

        while not stop.is_set():
            try:
                close_old_connections()
                wait = self.step()
            except Exception:
                log.exception("%s loop failed; retrying", self.name)
                wait = self.retry_s
            self._wakeup.wait(wait)
            self._wakeup.clear()
