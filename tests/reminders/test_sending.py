"""Reminders sent by e-mail or push under Celery: queued only after the
commit that made them (a worker that runs at once finds the row), swept
when their task was lost or their channel failed, and sent once however
often a task is redelivered."""

import threading

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import connection, transaction

from reminders import delivery, tasks
from reminders.dispatch import make
from reminders.models import EMAIL, MATCH_READY, Reminder, ReminderSettings

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def under_celery(settings):
    """Reminders queued as Celery tasks (not the embedded thread)."""
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"


def _ana_by_email() -> tuple:
    ana = User.objects.create_user("ana", email="ana@example.org")
    ReminderSettings.objects.create(user=ana, channels={MATCH_READY: [EMAIL]})
    item = (ana.pk, MATCH_READY, "k1", {"show": "Night", "match": "m", "seconds": 60}, "/x")
    return ana, item


def _in_thread(fn):
    """``fn`` on a thread of its own (its own database connection), started."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def test_a_reminder_is_queued_after_its_commit_so_a_worker_at_once_sends_it(
    under_celery, monkeypatch
):
    def a_worker_takes_it_at_once(args):
        thread, _out = _in_thread(lambda: delivery.attempt(args[0]))
        thread.join(10)

    monkeypatch.setattr(tasks.deliver, "apply_async", a_worker_takes_it_at_once)
    _ana, item = _ana_by_email()
    with transaction.atomic():  # the reminders reactor's
        (made,) = make([item])
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]
    assert Reminder.objects.get(pk=made.pk).status == Reminder.SENT


def test_a_lost_task_and_a_failing_channel_lose_nothing_the_sweep_sends_it_once(
    under_celery, settings, monkeypatch
):
    monkeypatch.setattr(tasks.deliver, "apply_async", lambda args: None)  # the task is lost
    assert "reminders.sweep" in {e["task"] for e in settings.CELERY_BEAT_SCHEDULE.values()}
    _ana, item = _ana_by_email()
    (made,) = make([item])

    def down(*args, **kw):
        raise OSError("the mail server is down")

    monkeypatch.setattr(delivery, "send_mail", down)
    tasks.sweep.apply()  # beat's sweep: the channel fails, the reminder waits its backoff
    reminder = Reminder.objects.get(pk=made.pk)
    assert reminder.status == Reminder.PENDING and "mail server is down" in reminder.error
    monkeypatch.undo()
    monkeypatch.setattr(tasks.deliver, "apply_async", lambda args: None)
    monkeypatch.setattr(delivery, "BACKOFF_S", 0)
    tasks.sweep.apply()
    tasks.sweep.apply()
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]
    assert Reminder.objects.get(pk=made.pk).status == Reminder.SENT


def test_a_task_redelivered_while_its_reminder_is_sent_sends_nothing(under_celery, monkeypatch):
    monkeypatch.setattr(tasks.deliver, "apply_async", lambda args: None)
    _ana, item = _ana_by_email()
    (made,) = make([item])
    sent, sending, answer = [], threading.Event(), threading.Event()

    def slow_mail(subject, body, sender, to):
        sent.append(to)
        sending.set()
        answer.wait(10)  # a slow mail server

    monkeypatch.setattr(delivery, "send_mail", slow_mail)
    first, out = _in_thread(lambda: delivery.attempt(made.pk))
    assert sending.wait(10)
    assert delivery.attempt(made.pk) is None  # the redelivered task: it is being sent
    answer.set()
    first.join(10)
    assert out == {"value": None} and sent == [["ana@example.org"]]
    assert Reminder.objects.get(pk=made.pk).status == Reminder.SENT
