"""What a committed move sets off that its mover need not wait for: the
kept state's copy for the other processes, the announcement of the new
version. Within ``answer_first()`` (a move over the socket: the ack goes out
meanwhile) ``after_answer(fn)`` holds ``fn`` until the block ends, then runs
what it holds in the order given, on the same thread; anywhere else it runs
``fn`` at once. The order matters: a match's kept state is written before
its version is announced, so another process told of the version finds it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

_local = threading.local()


def after_answer(fn: Callable[[], None]) -> None:
    held = getattr(_local, "held", None)
    if held is None:
        fn()
    else:
        held.append(fn)


@contextmanager
def answer_first() -> Iterator[None]:
    if getattr(_local, "held", None) is not None:  # nested: the outer block runs them
        yield
        return
    _local.held = held = []
    try:
        yield
    finally:
        _local.held = None
        for fn in held:
            try:
                fn()
            except Exception:  # one failing must not keep the others back
                log.exception("after the answer, %s failed", getattr(fn, "__name__", fn))
