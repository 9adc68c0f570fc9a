"""A library's loop that logs the same failure every second (channels-redis's
pub/sub reader while Redis restarts) writes it once a minute, saying how
many it held back (runtime.logging.HeldRepeats, wired by logging_config)."""

import logging
import logging.config

import pytest

from runtime.logging import HeldRepeats, logging_config


def _record(msg: str, at: float, name: str = "channels_redis.pubsub") -> logging.LogRecord:
    record = logging.LogRecord(name, logging.ERROR, __file__, 1, msg, None, None)
    record.created = at
    return record


def test_a_repeated_record_passes_once_a_minute_and_says_how_many_it_held():
    held = HeldRepeats(60)
    passed = [r for t in range(0, 130) if held.filter(r := _record("receive task failed", t))]
    assert [r.created for r in passed] == [0, 60, 120]
    assert passed[0].getMessage() == "receive task failed"
    assert passed[1].getMessage() == ("receive task failed (and 59 more like it in the last 60 s)")


def test_other_messages_and_loggers_are_held_apart():
    held = HeldRepeats(60)
    assert held.filter(_record("a", 0))
    assert held.filter(_record("b", 1))
    assert held.filter(_record("a", 2, name="other"))
    assert not held.filter(_record("a", 3))


@pytest.fixture
def configured():
    from django.conf import settings

    logging.config.dictConfig(logging_config("plain", "INFO"))  # as production's
    yield
    logging.config.dictConfig(settings.LOGGING)  # as the tests run


def test_the_pub_sub_reader_logs_a_failure_once_while_it_repeats(configured, caplog):
    log = logging.getLogger("channels_redis.pubsub")
    with caplog.at_level(logging.ERROR):
        for _ in range(5):
            try:
                raise ConnectionError("Redis is restarting")
            except ConnectionError:
                log.exception("Unexpected exception in receive task")
    assert [r.getMessage() for r in caplog.records] == ["Unexpected exception in receive task"]
