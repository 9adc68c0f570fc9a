"""Webhooks through an outbox: the log is the outbox. The webhooks reactor
writes a delivery row per event a hook asked for, due at the event's
recorded time + the show's spectator delay (at once only for the
organizer's own endpoint that asked to be live), and it is sent once by
whoever gets to it (the queued task, the sweeper), even when the process
died between the commit and the send."""

import json
import time

import pytest
from django.contrib.auth.models import User

from eventlog import store
from hooks import outbox
from hooks.delivery import attempt
from hooks.models import WebhookDelivery, WebhookEndpoint
from hooks.tasks import deliver
from reactors.follow import Follower
from tournaments import show_services as ss

from .test_hooks_embedded import _disqualify_one

pytestmark = pytest.mark.django_db


def _show(delay=300):
    olga = User.objects.create_user("olga")
    User.objects.create_user("mia")
    stream = ss.create_show(
        name="Hooked",
        organizer="olga",
        entrants=["ana", "ben", "cal", "dee"],
        options={"spectator_delay_s": delay},
    )
    return stream, olga


def _hook(stream, receiver, **kw):
    return WebhookEndpoint.objects.create(
        show_stream=stream, url=receiver.url, kinds=["elimination", "ruling"], secret="k" * 64, **kw
    )


def _follow_once():
    """What the reactors' next process does on its start: catch up from the checkpoints."""
    follower = Follower()
    follower.beat()
    follower.catch_up()
    follower.leave()


def _kinds(receiver):
    return sorted(json.loads(body)["kind"] for _h, body in receiver.got)


def test_a_crash_between_commit_and_send_loses_nothing_and_sends_once(
    committed_db, receiver, monkeypatch
):  # committed: the reactor reads what is committed
    stream, olga = _show(delay=0)
    hook = _hook(stream, receiver)
    # the process dies right after the commit: no after-commit callback runs
    monkeypatch.setattr(store, "_after_commit", [])
    _disqualify_one(stream)
    written = WebhookDelivery.objects.filter(endpoint=hook)
    assert not written.exists()
    _follow_once()  # the reactors pass over the log: the deliveries are written
    assert sorted(written.values_list("kind", flat=True)) == ["elimination", "ruling"]
    assert receiver.got == [] and set(written.values_list("status", flat=True)) == {"pending"}

    # a new worker starts: its sweep sends them; sweeps and tasks after it send nothing again
    assert outbox.sweep(older_than=0)[0] == 2
    for delivery in written:
        deliver.apply(args=[delivery.pk])
    outbox.sweep(time.time() + 3600, older_than=0)
    assert _kinds(receiver) == ["elimination", "ruling"]
    assert set(written.values_list("status", flat=True)) == {"delivered"}
    ids = [h["X-Showtable-Delivery"] for h, _b in receiver.got]
    assert len(set(ids)) == 2  # each its own delivery id, for a receiver to drop a repeat


def test_a_webhook_waits_the_spectator_delay(receiver, django_capture_on_commit_callbacks):
    stream, olga = _show(delay=300)
    hook = _hook(stream, receiver)
    # "live" asked for, but by an endpoint that is not the organizer's: still delayed
    stranger = User.objects.create_user("stranger")
    other = _hook(stream, receiver, live=True, owner_id=stranger.pk)
    with django_capture_on_commit_callbacks(execute=True):
        _disqualify_one(stream)
    for delivery in WebhookDelivery.objects.all():
        recorded = store.read(stream)[delivery.version - 1].recorded_at
        assert (delivery.due_at - recorded).total_seconds() == 300
    now = time.time()
    assert outbox.sweep(now + 5)[0] == 0 and receiver.got == []
    for delivery in WebhookDelivery.objects.all():  # a task run early waits (its retry)
        assert 294 < attempt(delivery.pk, now + 5) <= 295
    assert receiver.got == []
    assert outbox.sweep(now + 301)[0] == 4
    assert _kinds(receiver) == ["elimination", "elimination", "ruling", "ruling"]
    assert {hook.pk, other.pk} == set(WebhookDelivery.objects.values_list("endpoint", flat=True))


def test_the_organizers_live_endpoint_gets_events_at_once(
    receiver, django_capture_on_commit_callbacks
):
    stream, olga = _show(delay=300)
    _hook(stream, receiver, live=True, owner_id=olga.pk)
    with django_capture_on_commit_callbacks(execute=True):
        _disqualify_one(stream)
    assert outbox.sweep()[0] == 2 and _kinds(receiver) == ["elimination", "ruling"]


def test_a_rebuild_of_the_read_models_sends_nothing_again(receiver):
    from eventlog.readmodels import rebuild_all

    stream, olga = _show(delay=0)
    _hook(stream, receiver)
    _disqualify_one(stream)
    before = list(WebhookDelivery.objects.values_list("pk", flat=True))
    WebhookEndpoint.objects.create(
        show_stream=stream, url=receiver.url, kinds=["elimination"], secret="s" * 64
    )
    rebuild_all()
    assert list(WebhookDelivery.objects.values_list("pk", flat=True)) == before


def test_the_api_registers_a_live_endpoint_for_its_owner(as_user, post, receiver):
    from django.contrib.auth.models import Permission

    stream, olga = _show()
    olga.user_permissions.add(*Permission.objects.filter(codename="add_showrecord"))
    from tournaments.models import ShowRecord

    pk = ShowRecord.objects.get(stream=stream).pk
    made = post(as_user(olga), f"/api/shows/{pk}/webhooks", {"url": receiver.url, "live": True})
    assert made.status_code == 201, made.content
    hook = WebhookEndpoint.objects.get(pk=made.json()["id"])
    assert hook.live and hook.owner_id == olga.pk and made.json()["live"] is True
    default = post(as_user(olga), f"/api/shows/{pk}/webhooks", {"url": receiver.url})
    assert default.json()["live"] is False


_DIES_AFTER_COMMIT = """
import os, sys
sys.path[:0] = ["platform", "."]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from eventlog import store
from tournaments import show_services as ss

def die(rows):  # committed, and the process dies before any delivery is queued or sent
    if any(r.type == "entrant_disqualified" for r in rows):
        os._exit(17)

store._after_commit.insert(0, die)
stream = sys.argv[1]
olga, mia = ss.Acting("olga", "organizer"), ss.Acting("mia", "moderator")
ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, olga)
ss.command(stream, {"type": "file_dispute", "target_stream": stream, "target_version": 1,
                    "text": "cheating"}, olga)
ss.command(stream, {"type": "claim_dispute", "dispute_id": "d-1"}, olga)
ss.command(stream, {"type": "rule_dispute", "dispute_id": "d-1", "ruling": "disqualify",
                    "params": {"entrant": "cal"}, "reason": "cheating"}, olga)
ss.command(stream, {"type": "approve_ruling", "dispute_id": "d-1", "reason": "agreed"}, mia)
"""


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_process_killed_between_commit_and_send_still_delivers_once(receiver):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from django.db import connection

    stream, olga = _show(delay=0)
    hook = _hook(stream, receiver)
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": "memory://",
        "DJANGO_DEBUG": "1",
    }
    root = Path(__file__).resolve().parents[2]
    died = subprocess.run(
        [sys.executable, "-c", _DIES_AFTER_COMMIT, stream],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert died.returncode == 17, died.stderr.decode()[-2000:]
    written = WebhookDelivery.objects.filter(endpoint=hook)
    assert not written.exists()
    _follow_once()  # a reactors process follows the log from its checkpoints
    assert sorted(written.values_list("kind", flat=True)) == ["elimination", "ruling"]
    assert receiver.got == []
    outbox.sweep(older_than=0)  # the next worker's sweep on start
    outbox.sweep(older_than=0)
    assert _kinds(receiver) == ["elimination", "ruling"]
    assert set(written.values_list("status", flat=True)) == {"delivered"}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_with_reactors_in_their_own_processes_the_request_leaves_hooks_to_them(settings, receiver):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    inline_stream, _olga = _show(delay=0)
    _hook(inline_stream, receiver)
    with CaptureQueriesContext(connection) as inline:
        _disqualify_one(inline_stream)

    settings.REACTORS_INLINE = False  # production: `run_reactors` follows the log
    User.objects.all().delete()  # the next show has its own olga and mia
    stream, _olga = _show(delay=0)
    hook = _hook(stream, receiver)
    with CaptureQueriesContext(connection) as request:
        _disqualify_one(stream)
    assert not [q for q in request.captured_queries if "hooks_" in q["sql"]]
    assert len(request.captured_queries) < len(inline.captured_queries)
    written = WebhookDelivery.objects.filter(endpoint=hook)
    assert not written.exists()
    _follow_once()
    assert sorted(written.values_list("kind", flat=True)) == ["elimination", "ruling"]
    outbox.sweep(older_than=0)
    assert _kinds(receiver) == ["elimination", "elimination", "ruling", "ruling"]  # both shows


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_reactor_processes_share_the_log_and_one_takes_over_a_killed_one(
    settings, receiver, wait_for
):
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from django.db import connection

    from reactors.models import ReactorPartition
    from reactors.positions import partition_of

    settings.REACTORS_INLINE = False  # as in production: only the reactors' processes
    stream, olga = _show(delay=0)
    hook = _hook(stream, receiver)
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": "memory://",
        "DJANGO_DEBUG": "1",
        "REACTORS_INLINE": "0",
        "REACTOR_LEASE_S": "1",
    }
    root = Path(__file__).resolve().parents[2]
    procs = [
        subprocess.Popen(
            [sys.executable, "manage.py", "run_reactors"],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    held = ReactorPartition.objects.filter(reactor="webhooks").exclude(owner="")
    try:
        assert wait_for(
            lambda: held.count() == 8 and len(set(held.values_list("owner", flat=True))) == 2, 90
        ), list(held.values_list("partition", "owner"))
        owner = held.get(partition=partition_of(stream)).owner
        victim = next(p for p in procs if p.pid == int(owner.split(":")[1]))
        victim.send_signal(signal.SIGKILL)  # no chance to give anything back
        victim.wait(30)
        _disqualify_one(stream)
        written = WebhookDelivery.objects.filter(endpoint=hook)
        assert wait_for(lambda: written.count() == 2, 90)
        assert held.get(partition=partition_of(stream)).owner != owner
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait(30)
    assert sorted(written.values_list("kind", flat=True)) == ["elimination", "ruling"]
    assert held.count() == 0  # the survivor, stopped cleanly, gave every partition back


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_slow_receiver_and_a_failing_reminder_channel_delay_no_live_push_and_lose_nothing(
    settings, monkeypatch, seated_match, wait_for
):
    """A receiver that takes 10 s to answer: while it is being sent to, a move
    is pushed live by the reactors (the delivery holds no transaction open,
    which would hold back every reader of the log), and the "your turn"
    e-mail whose mail server is down waits to be tried again; then the
    deliveries are delivered once, and the e-mail sent once the server is back."""
    import threading

    from django.db import connection

    from live import publisher
    from reminders import delivery as reminders
    from reminders import tasks
    from reminders.models import EMAIL, YOUR_TURN, Reminder, ReminderSettings

    from .receiver import Receiver

    settings.REACTORS_INLINE = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"  # reminders go by a task

    def mail_server_down(*args, **kw):
        raise OSError("the mail server is down")

    monkeypatch.setattr(reminders, "send_mail", mail_server_down)
    monkeypatch.setattr(tasks.deliver, "apply_async", lambda args: reminders.attempt(args[0]))
    slow = Receiver(slow_s=10)
    try:
        stream, _olga = _show(delay=0)
        hook = _hook(stream, slow)
        _disqualify_one(stream)
        _follow_once()
        written = WebhookDelivery.objects.filter(endpoint=hook)
        assert written.count() == 2

        def send_all():
            try:
                outbox.sweep(older_than=0)
            finally:
                connection.close()

        sending = threading.Thread(target=send_all)
        sending.start()
        assert wait_for(lambda: slow.got)  # the receiver has the first, and holds it
        announced = []
        monkeypatch.setattr(publisher, "send", lambda layer, sends: announced.extend(sends))
        ana, ben = (User.objects.create_user(n, email=f"{n}@example.org") for n in ("ana", "ben"))
        for user in (ana, ben):
            ReminderSettings.objects.create(user=user, channels={YOUR_TURN: [EMAIL]})
        match = seated_match(ana, ben)
        _follow_once()
        assert sending.is_alive() and len(slow.got) == 1  # still waiting on the receiver
        assert {m["version"] for _group, m in announced} == {match.version}
        waiting = Reminder.objects.filter(kind=YOUR_TURN)
        assert waiting.exists()
        for reminder in waiting:
            assert reminder.status == Reminder.PENDING and "mail server is down" in reminder.error
        slow.answer()
        sending.join(15)
        assert not sending.is_alive()
        outbox.sweep(older_than=0)  # a later sweep (or a redelivered task) sends nothing again
        assert _kinds(slow) == ["elimination", "ruling"]
        assert set(written.values_list("status", flat=True)) == {"delivered"}
        monkeypatch.setattr(reminders, "send_mail", lambda *args, **kw: 1)  # the server is back
        assert reminders.send_due(time.time() + 3600) == waiting.count()
        assert set(waiting.values_list("status", flat=True)) == {Reminder.SENT}
    finally:
        slow.close()
