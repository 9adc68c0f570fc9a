"""Webhooks of show hosts: registered by the organizer, delivered signed to a
receiver on loopback, retried with backoff, disabled after repeated failures."""

import json
import random
import time

import pytest
from django.contrib.auth.models import Permission, User
from django.test import override_settings

from games.models import Match
from hooks import signing
from hooks.delivery import backoff_s
from hooks.models import KINDS, WebhookDelivery, WebhookEndpoint
from hooks.tasks import deliver
from tournaments import autopilot
from tournaments import show_services as ss
from tournaments.models import ShowRecord

from .receiver import Receiver

ENTRANTS = ["ana", "ben", "cal", "dee"]


def organizer(name, *perms):
    """A user with the organizer's permissions named (no staff flag needed)."""
    user = User.objects.create_user(name)
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    return User.objects.get(pk=user.pk)  # a fresh instance: no stale permission cache


@pytest.fixture
def people(db, ana):
    return {
        "anonymous": None,
        "other": User.objects.create_user("olaf"),
        "player": ana,
        "moderator": User.objects.create_user("mia"),
        "organizer": organizer("olga", "add_showrecord"),
        "staff": User.objects.create_user("stan", is_staff=True),
    }


def make_show(holders):
    stream = ss.create_show(
        name="Hooked",
        organizer="olga",
        entrants=ENTRANTS,
        holders=holders,
        # no spectator delay: deliveries are due at once (the delay: test_hooks_outbox.py)
        options={
            "step_deadline_s": 0,
            "death_match_first_to": 1,
            "final_first_to": 1,
            "spectator_delay_s": 0,
        },
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia"}, ss.Acting("olga", "organizer")
    )
    return ShowRecord.objects.get(stream=stream)


@pytest.fixture
def show(people):
    """ana is held by a person (the player); the rest by bots."""
    return make_show({"ana": people["player"].pk, **{e: "bot:random" for e in ENTRANTS[1:]}})


@pytest.fixture
def bot_show(people):
    """Every entrant a bot: the autopilot plays it to the end."""
    return make_show({e: "bot:random" for e in ENTRANTS})


def register(client, post, show, **body):
    return post(client, f"/api/shows/{show.pk}/webhooks", {"url": "http://127.0.0.1:9/", **body})


@pytest.mark.django_db
@pytest.mark.parametrize(
    "caller,code",
    [
        ("anonymous", 401),
        ("other", 403),
        ("player", 403),
        ("moderator", 403),
        ("staff", 403),
        ("organizer", 201),
    ],
)
def test_only_the_organizer_manages_webhooks(people, as_user, post, show, caller, code):
    client = as_user(people[caller])
    made = register(client, post, show, kinds=["result", "champion"])
    assert made.status_code == code, made.content
    listed = client.get(f"/api/shows/{show.pk}/webhooks")
    if code != 201:
        assert listed.status_code == code and not WebhookEndpoint.objects.exists()
        hook = WebhookEndpoint.objects.create(show_stream=show.stream, url="http://x/", secret="s")
        gone = client.delete(f"/api/shows/{show.pk}/webhooks/{hook.pk}")
        assert gone.status_code == code and WebhookEndpoint.objects.filter(pk=hook.pk).exists()
        return
    hook = made.json()
    assert len(hook["secret"]) == 64 and hook["kinds"] == ["champion", "result"]
    assert WebhookEndpoint.objects.get(pk=hook["id"]).secret == hook["secret"]
    # the secret is shown once
    assert [h["id"] for h in listed.json()] == [hook["id"]]
    assert "secret" not in listed.json()[0] and hook["secret"] not in listed.content.decode()
    assert client.delete(f"/api/shows/{show.pk}/webhooks/{hook['id']}").status_code == 204
    assert client.delete(f"/api/shows/{show.pk}/webhooks/{hook['id']}").status_code == 404
    assert client.delete(f"/api/shows/{show.pk}/webhooks/{2**64}").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body,field",
    [
        ({"url": "ftp://127.0.0.1/x"}, "url"),
        ({"url": "not a url"}, "url"),
        ({"kinds": ["everything"]}, "kinds"),
        ({"format": "slack"}, "format"),
    ],
)
def test_bad_webhooks_are_refused(people, as_user, post, show, body, field):
    resp = register(as_user(people["organizer"]), post, show, **body)
    assert resp.status_code == 400 and field in resp.json()["fields"]
    assert not WebhookEndpoint.objects.exists()


def play_to_first_death_match(show, capture):
    rng = random.Random(8)
    with capture(execute=True):
        for _ in range(60):
            if Match.objects.filter(show_stream=show.stream).exists():
                break
            assert autopilot.step(show.stream, rng)
    return Match.objects.get(show_stream=show.stream)


@pytest.mark.django_db
def test_deliveries_are_signed_and_carry_only_public_facts(
    people, as_user, post, bot_show, receiver, django_capture_on_commit_callbacks
):
    show = bot_show
    client = as_user(people["organizer"])
    hook = register(client, post, show, url=receiver.url).json()
    discord = register(client, post, show, url=receiver.url, format="discord", kinds=["ruling"])
    match = play_to_first_death_match(show, django_capture_on_commit_callbacks)
    opened = WebhookDelivery.objects.get(endpoint_id=hook["id"], kind="match_opened")
    turns = WebhookDelivery.objects.filter(endpoint_id=hook["id"], kind="your_turn")
    assert turns.exists()
    assert not WebhookDelivery.objects.filter(endpoint_id=discord.json()["id"]).exists()
    deliver.apply(args=[opened.pk])
    opened.refresh_from_db()
    assert (opened.status, opened.status_code, opened.attempts) == ("delivered", 200, 1)
    headers, body = receiver.got[-1]
    assert signing.verify(hook["secret"], body, headers[signing.HEADER])
    assert not signing.verify("another secret", body, headers[signing.HEADER])
    assert headers["X-Showtable-Event"] == "match_opened"
    sent = json.loads(body)
    assert sent["kind"] == "match_opened" and sent["data"]["match_stream"] == match.stream
    # whose turn: seats and steps, never a card
    turn = json.loads(turns.first().body)
    assert set(turn) == {"kind", "show", "stream", "version", "seats", "pending", "text"}
    assert turn["stream"] == match.stream and set(turn["seats"]) <= set(match.seats)


@pytest.mark.django_db
def test_discord_payloads_are_content_only(
    people, as_user, post, bot_show, receiver, django_capture_on_commit_callbacks
):
    show = bot_show
    client = as_user(people["organizer"])
    hook = register(client, post, show, url=receiver.url, format="discord", kinds=["elimination"])
    rng = random.Random(8)
    with django_capture_on_commit_callbacks(execute=True):
        autopilot.run(show.stream, rng, start=time.time())
    rows = WebhookDelivery.objects.filter(endpoint_id=hook.json()["id"])
    assert rows.count() == len(ENTRANTS) - 1  # every elimination, the final's loser too
    for row in rows:
        body = json.loads(row.body)
        assert list(body) == ["content", "allowed_mentions"]
        assert body["content"].endswith("is eliminated")
        assert body["allowed_mentions"] == {"parse": []}  # a name never pings anyone


@pytest.mark.django_db
@override_settings(HOOKS_MAX_ATTEMPTS=3, HOOKS_DISABLE_AFTER=2)
def test_failing_receivers_are_retried_then_disabled(show):
    failing = Receiver(status=500)
    try:
        hook = WebhookEndpoint.objects.create(
            show_stream=show.stream, url=failing.url, kinds=["result"], secret="s" * 64
        )
        rows = [
            WebhookDelivery.objects.create(
                endpoint=hook, kind="result", stream=show.stream, version=v, body="{}"
            )
            for v in (1, 2, 3)
        ]
        deliver.apply(args=[rows[0].pk])  # eager: the retries run at once
        rows[0].refresh_from_db()
        hook.refresh_from_db()
        assert (rows[0].status, rows[0].attempts, rows[0].status_code) == ("failed", 3, 500)
        assert rows[0].error == "the receiver answered 500"
        assert hook.active and hook.consecutive_failures == 1
        deliver.apply(args=[rows[1].pk])
        hook.refresh_from_db()
        assert not hook.active and "2 failed deliveries" in hook.disabled_reason
        assert len(failing.got) == 6
        deliver.apply(args=[rows[2].pk])  # a disabled endpoint gets nothing more
        rows[2].refresh_from_db()
        assert rows[2].status == "failed" and rows[2].error == "the endpoint is disabled"
        assert len(failing.got) == 6
    finally:
        failing.close()


@pytest.mark.django_db
def test_an_unreachable_receiver_is_an_error_not_a_crash(show, receiver):
    url = receiver.url
    receiver.close()  # nothing listens there now
    hook = WebhookEndpoint.objects.create(show_stream=show.stream, url=url, secret="s")
    row = WebhookDelivery.objects.create(
        endpoint=hook, kind="result", stream=show.stream, version=1, body="{}"
    )
    with override_settings(HOOKS_MAX_ATTEMPTS=1):
        deliver.apply(args=[row.pk])
    row.refresh_from_db()
    assert row.status == "failed" and row.error.startswith("could not deliver")


def test_backoff_doubles():
    assert [backoff_s(n) for n in (1, 2, 3, 4)] == [10, 20, 40, 80]


def test_signatures_hold_within_the_replay_window_only():
    body, now = b'{"kind":"result"}', 1_800_000_000
    header = signing.sign("k", body, now)
    assert header.startswith(f"t={now},v1=")
    assert signing.verify("k", body, header, now=now + 299)
    assert not signing.verify("k", body, header, now=now + 301)  # a replay, later
    assert not signing.verify("k", body + b" ", header, now=now)  # tampered
    assert not signing.verify("k", body, "t=x,v1=y", now=now)
    assert not signing.verify("k", body, "garbage", now=now)


@pytest.mark.django_db
def test_another_shows_events_reach_only_its_own_hooks(
    bot_show, receiver, django_capture_on_commit_callbacks
):
    other = make_show({e: "bot:random" for e in ENTRANTS})
    mine = WebhookEndpoint.objects.create(
        show_stream=bot_show.stream, url=receiver.url, kinds=list(KINDS), secret="s"
    )
    theirs = WebhookEndpoint.objects.create(
        show_stream=other.stream, url=receiver.url, kinds=list(KINDS), secret="s"
    )
    play_to_first_death_match(bot_show, django_capture_on_commit_callbacks)
    assert WebhookDelivery.objects.filter(endpoint=mine).exists()
    assert not WebhookDelivery.objects.filter(endpoint=theirs).exists()
