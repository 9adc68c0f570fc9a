"""A player's reminder choices, their push subscriptions, and every reminder
made for them (one row per channel, so each is delivered once)."""

import secrets

from django.conf import settings
from django.db import models

CHECK_IN_OPEN, MATCH_READY, YOUR_TURN = "check_in_open", "match_ready", "your_turn"
DISPUTE_FILED = "dispute_filed"  # to a show's organizer and moderators
KINDS = (CHECK_IN_OPEN, MATCH_READY, YOUR_TURN, DISPUTE_FILED)
SITE, EMAIL, PUSH = "site", "email", "push"
CHANNELS = (SITE, EMAIL, PUSH)
# without a choice of their own a player is reminded on the site only
DEFAULT_CHANNELS = {kind: [SITE] for kind in KINDS}


def new_nonce() -> str:
    return secrets.token_hex(16)


class ReminderSettings(models.Model):
    """What a player chose: the channels of each kind of reminder, the time
    zone pages show times in (empty: the browser's), and the nonce their
    calendar link is made from (a new nonce revokes the old link)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reminder_settings"
    )
    channels = models.JSONField(default=dict)  # kind -> [channel, ...]
    time_zone = models.CharField(max_length=64, blank=True)
    calendar_nonce = models.CharField(max_length=32, default=new_nonce)

    def wants(self, kind: str) -> list[str]:
        return list(self.channels.get(kind, DEFAULT_CHANNELS[kind]))


class PushSubscription(models.Model):
    """A browser's push subscription (PushManager.subscribe()'s JSON)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=500, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)


class Reminder(models.Model):
    PENDING, SENT, FAILED = "pending", "sent", "failed"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reminders"
    )
    kind = models.CharField(max_length=20)
    channel = models.CharField(max_length=10)
    key = models.CharField(max_length=200)  # what it is about: one reminder per key and channel
    text = models.CharField(max_length=300)  # in English; pages say it in theirs (words.py)
    params = models.JSONField(default=dict)  # what words.py fills in
    url = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=10, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # being sent until then (a try claims it; a crash's claim runs out)
    claimed_until = models.DateTimeField(null=True, blank=True)
    seen = models.BooleanField(default=False)  # a site reminder the player dismissed

    class Meta:
        ordering = ["-id"]
        unique_together = [("user", "channel", "key")]
