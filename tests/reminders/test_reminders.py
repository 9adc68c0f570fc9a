"""Reminders: made from the show's log on the channels a player chose, a
site reminder at once, an e-mail by Django's mail, and a web push encrypted
for the browser's keys and signed with the site's VAPID key, sent to a
local receiver on 127.0.0.1 that decrypts it."""

import base64
import json

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from django.contrib.auth.models import User
from django.core import mail

from clocks.enforce import sweep
from reminders import delivery, push
from reminders.models import (
    CHECK_IN_OPEN,
    EMAIL,
    MATCH_READY,
    PUSH,
    SITE,
    PushSubscription,
    Reminder,
    ReminderSettings,
)
from tests.api.receiver import Receiver
from tournaments import show_services as ss

T0 = 2_000_000.0
START = T0 + 3600


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@pytest.fixture
def vapid_keys(settings, tmp_path):
    settings.VAPID_PRIVATE_KEY_FILE = str(tmp_path / "vapid.pem")
    assert push.make_keys() is True and push.make_keys() is False  # once
    return push.public_key()


@pytest.fixture
def receiver():
    r = Receiver(status=201)
    yield r
    r.close()


def browser_keys():
    """A browser's push keys: its P-256 key pair and auth secret."""
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return private, b64(public), b64(b"sixteen byte key")


def a_show_with_ana_in_a_ready_check():
    users = {n: User.objects.get_or_create(username=n)[0] for n in ("olga", "ana", "ben", "cal")}
    stream = ss.create_show(
        name="Friday night",
        organizer="olga",
        entrants=[],
        options={
            "registration": "open",
            "check_in_s": 600,
            "ready_check_s": 120,
            "step_deadline_s": 0,
            "game_pool": ["love-me-not", "higher-lower", "doubting-love-letter"],
        },
        now=T0,
        starts_at=START,
    )
    for n in ("ana", "ben", "cal"):
        ss.register(stream, users[n], now=T0 + 1)
    sweep(now=START - 600)  # check-in opens
    for n in ("ana", "ben", "cal"):
        ss.command(stream, {"type": "check_in"}, ss.acting_for(stream, users[n]), now=START - 60)
    sweep(now=START)
    org = ss.acting_for(stream, users["olga"])
    ss.command(
        stream, {"type": "enter_ranking", "ranking": [["cal"], ["ben"], ["ana"]]}, org, now=START
    )
    ss.command(
        stream, {"type": "nominate", "dmo": "ben"}, ss.acting_for(stream, users["ana"]), now=START
    )
    ss.command(stream, {"type": "pick_game", "game": "love-me-not"}, org, now=START + 1)
    return stream, users


@pytest.mark.django_db
def test_site_reminders_by_default_check_in_open_then_your_match_is_ready(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        stream, users = a_show_with_ana_in_a_ready_check()
    ana = Reminder.objects.filter(user=users["ana"]).order_by("id")
    assert [(r.kind, r.channel, r.status) for r in ana] == [
        (CHECK_IN_OPEN, SITE, Reminder.SENT),
        (MATCH_READY, SITE, Reminder.SENT),
    ]
    assert "Your match is ready" in ana[1].text and "within 120 s" in ana[1].text
    assert not Reminder.objects.filter(user=users["olga"]).exists()  # the organizer plays not
    assert not Reminder.objects.filter(user=users["cal"], kind=MATCH_READY).exists()


@pytest.mark.django_db
def test_email_on_the_channels_chosen_and_never_twice():
    users = {n: User.objects.get_or_create(username=n)[0] for n in ("ana",)}
    users["ana"].email = "ana@example.org"
    users["ana"].save()
    ReminderSettings.objects.create(user=users["ana"], channels={MATCH_READY: [EMAIL]})
    from reminders.dispatch import make

    item = (
        users["ana"].pk,
        MATCH_READY,
        "k1",
        {"show": "Night", "match": "m", "seconds": 60},
        "/x",
    )
    made = make([item, item])
    assert [(r.channel, r.status) for r in made] == [(EMAIL, Reminder.PENDING)]
    assert make([item]) == []  # the same key: made already
    assert delivery.attempt(made[0].pk) is None
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["ana@example.org"]
    assert "Your match is ready" in mail.outbox[0].subject
    assert "http://127.0.0.1:8000/x" in mail.outbox[0].body
    assert Reminder.objects.get(pk=made[0].pk).status == Reminder.SENT


@pytest.mark.django_db
def test_web_push_reaches_a_local_receiver_encrypted_and_signed(vapid_keys, receiver):
    ana = User.objects.create(username="ana")
    private, p256dh, auth = browser_keys()
    PushSubscription.objects.create(user=ana, endpoint=receiver.url, p256dh=p256dh, auth=auth)
    ReminderSettings.objects.create(user=ana, channels={MATCH_READY: [PUSH, SITE]})
    from reminders.dispatch import make

    made = make(
        [
            (
                ana.pk,
                MATCH_READY,
                "k",
                {"show": "Night", "match": "the final", "seconds": 90},
                "/s/1/",
            )
        ]
    )
    pushed = next(r for r in made if r.channel == PUSH)
    assert delivery.attempt(pushed.pk) is None
    assert Reminder.objects.get(pk=pushed.pk).status == Reminder.SENT

    ((headers, body),) = receiver.got
    headers = {k.lower(): v for k, v in headers.items()}
    assert headers["content-encoding"] == "aes128gcm" and int(headers["ttl"]) > 0
    plain = http_ece.decrypt(
        body, private_key=private, auth_secret=unb64(auth), version="aes128gcm"
    )
    message = json.loads(plain)
    assert message == {
        "title": "Your match is ready",
        "body": "Your match is ready: Night, the final. Confirm you are there within 90 s or you forfeit.",
        "url": "http://127.0.0.1:8000/s/1/",
    }
    # VAPID: a JWT for this receiver's origin, signed with the site's key, which is the k= given
    scheme, _, rest = headers["authorization"].partition(" ")
    fields = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert scheme == "vapid" and fields["k"] == vapid_keys
    head, claims, signature = fields["t"].split(".")
    assert json.loads(unb64(claims))["aud"] == receiver.url.rsplit("/", 1)[0]
    raw = unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(vapid_keys))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged


@pytest.mark.django_db
def test_a_subscription_the_push_service_says_is_gone_is_forgotten(vapid_keys):
    gone = Receiver(status=410)
    try:
        ana = User.objects.create(username="ana")
        _private, p256dh, auth = browser_keys()
        PushSubscription.objects.create(user=ana, endpoint=gone.url, p256dh=p256dh, auth=auth)
        ReminderSettings.objects.create(user=ana, channels={MATCH_READY: [PUSH]})
        from reminders.dispatch import make

        (r,) = make([(ana.pk, MATCH_READY, "k", {"show": "N", "match": "m"}, "/")])
        assert delivery.attempt(r.pk) is not None  # retried later
        assert not PushSubscription.objects.filter(user=ana).exists()
        assert "expired" in Reminder.objects.get(pk=r.pk).error
    finally:
        gone.close()


@pytest.mark.django_db
def test_push_never_reaches_an_internal_address_unless_allowed(vapid_keys, settings, receiver):
    settings.HOOKS_ALLOW_PRIVATE_ADDRESSES = False
    with pytest.raises(ValueError, match="internal address"):
        push.check_endpoint(receiver.url.replace("http://", "https://"))
