"""Waiting for the next append (reactors.listen): polling, the portable way,
sleeps its timeout and has everything read; on PostgreSQL a LISTEN wakes at
the append's commit and names its stream and transaction, where polling over
the same append still only times out."""

import threading
import time
from types import SimpleNamespace

import pytest
from django.db import connection

from eventlog import store
from eventlog.store import NewEvent
from reactors import listen, positions

pytestmark = pytest.mark.django_db(transaction=True)


def _append(stream) -> int:
    return store.append(stream, store.stream_version(stream), [NewEvent("thing_done", {})])[0].id


def test_the_one_choice_of_waiting_is_by_the_database():
    assert type(listen.wakeup(SimpleNamespace(vendor="sqlite"))) is listen.Polling
    assert type(listen.wakeup(SimpleNamespace(vendor="postgresql"))) is listen.Listening


def test_polling_sleeps_its_timeout_and_has_everything_read():
    polling = listen.Polling()
    assert polling.listen() is None
    _append("t-polled")
    began = time.monotonic()
    assert polling.wait(0.05) is None  # no names: read everything
    assert time.monotonic() - began >= 0.05
    polling.close()


@pytest.mark.postgres
def test_listening_names_what_was_appended_where_polling_only_times_out():
    listening, polling = listen.wakeup(connection), listen.Polling()
    assert type(listening) is listen.Listening
    assert listening.listen() is not None
    try:
        event_id = _append("t-listened")
        began = time.monotonic()
        woken = listening.wait(30)
        assert time.monotonic() - began < 10  # woken by the commit, not the timeout
        assert polling.wait(0.01) is None
        tx = positions.position_of(event_id)[0]
        assert woken == listen.Woken(streams={"t-listened": tx})
        assert listening.wait(0.01) == listen.Woken()  # nothing since: an empty wake
    finally:
        listening.close()


@pytest.mark.postgres
def test_appends_close_together_wake_the_reactors_once(settings):
    """The appends of REACTOR_GATHER_S after the one that woke the reactors
    come with it, so one pass reads them all; one after the window wakes
    the next wait."""
    settings.REACTOR_GATHER_S = 0.5
    listening = listen.wakeup(connection)
    assert listening.listen() is not None
    try:
        _append("t-first")
        later = threading.Timer(0.1, _append_elsewhere, ["t-soon-after"])
        later.start()
        woken = listening.wait(30)
        later.join()
        assert set(woken.streams) == {"t-first", "t-soon-after"}
        settings.REACTOR_GATHER_S = 0.0
        _append("t-next")
        assert set(listening.wait(30).streams) == {"t-next"}
    finally:
        listening.close()


def _append_elsewhere(stream) -> None:
    """An append from another thread (its own connection), as another process's."""
    try:
        _append(stream)
    finally:
        connection.close()
