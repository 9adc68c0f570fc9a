"""Under the embedded defaults (`make run`: memory broker, no Celery worker)
the server's own thread sends webhook deliveries: a hook fired by a show
event reaches a receiver on loopback, signed, and a failed try waits its
backoff."""

import json
import time

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from hooks import embedded, signing
from hooks.models import WebhookDelivery, WebhookEndpoint
from tournaments import show_services as ss

from .receiver import Receiver


def _disqualify_one(stream):
    """A ruling on the show itself, proposed by olga and approved by mia: an
    elimination and a ruling event."""
    olga, mia = ss.Acting("olga", "organizer"), ss.Acting("mia", "moderator")
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, olga)
    ss.command(
        stream,
        {"type": "file_dispute", "target_stream": stream, "target_version": 1, "text": "cheating"},
        olga,
    )
    ss.command(stream, {"type": "claim_dispute", "dispute_id": "d-1"}, olga)
    ss.command(
        stream,
        {
            "type": "rule_dispute",
            "dispute_id": "d-1",
            "ruling": "disqualify",
            "params": {"entrant": "cal"},
            "reason": "cheating",
        },
        olga,
    )
    ss.command(stream, {"type": "approve_ruling", "dispute_id": "d-1", "reason": "agreed"}, mia)


def _hooked_show(receiver):
    olga = User.objects.create_user("olga")
    User.objects.create_user("mia")
    stream = ss.create_show(
        name="Hooked", organizer="olga", entrants=["ana", "ben", "cal", "dee"], options={}
    )
    # the organizer's own endpoint, live: not held for the spectator delay (test_hooks_outbox)
    hook = WebhookEndpoint.objects.create(
        show_stream=stream,
        url=receiver.url,
        kinds=["elimination", "ruling"],
        secret="k" * 64,
        owner_id=olga.pk,
        live=True,
    )
    return stream, hook


def _check_received(receiver, hook):
    kinds = set()
    for headers, body in receiver.got:
        assert signing.verify(hook.secret, body, headers[signing.HEADER])
        kinds.add(json.loads(body)["kind"])
    assert kinds == {"elimination", "ruling"}
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {"delivered"}


@pytest.mark.django_db
def test_under_the_memory_broker_a_delivery_wakes_the_embedded_sender(
    settings, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    settings.CELERY_BROKER_URL = "memory://"  # the embedded defaults
    woken = []
    monkeypatch.setattr(embedded, "wake", lambda: woken.append(1))
    stream, hook = _hooked_show(receiver)
    with django_capture_on_commit_callbacks(execute=True):
        _disqualify_one(stream)
    assert woken and receiver.got == []  # queued for the sender, not sent by the request
    embedded.deliver_due()  # what the woken thread does
    _check_received(receiver, hook)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_hook_fired_under_make_run_reaches_a_loopback_receiver(settings, receiver, wait_for):
    """The thread itself, as `make run` starts it (transactional: PostgreSQL)."""
    settings.CELERY_BROKER_URL = "memory://"
    stream, hook = _hooked_show(receiver)
    stop = embedded.start()
    try:
        _disqualify_one(stream)  # commits: dispatch writes the rows and wakes the thread
        assert wait_for(
            lambda: (
                len(receiver.got) >= 2
                and not WebhookDelivery.objects.filter(endpoint=hook, status="pending").exists()
            )
        ), list(WebhookDelivery.objects.values("kind", "status", "error"))
    finally:
        stop.set()
        embedded.wake()
    _check_received(receiver, hook)


@pytest.mark.django_db
@override_settings(HOOKS_BACKOFF_S=10)
def test_a_failed_try_waits_its_backoff(db):
    failing = Receiver(status=503)
    try:
        hook = WebhookEndpoint.objects.create(
            show_stream="show-x", url=failing.url, kinds=["result"], secret="s"
        )
        row = WebhookDelivery.objects.create(
            endpoint=hook, kind="result", stream="show-x", version=1, body="{}"
        )
        now = time.time()
        wait = embedded.deliver_due(now)
        assert len(failing.got) == 1 and wait == min(embedded.IDLE_S, 10)
        assert embedded.deliver_due(time.time()) > 0 and len(failing.got) == 1  # not yet due
        embedded.deliver_due(time.time() + 11)  # its backoff has passed
        row.refresh_from_db()
        assert len(failing.got) == 2 and row.attempts == 2 and row.status == "pending"
    finally:
        failing.close()
