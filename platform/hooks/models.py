"""A show's webhooks and every delivery made to them."""

import secrets

from django.db import models

KINDS = ("match_opened", "your_turn", "result", "elimination", "champion", "ruling", "chat")
# an endpoint registered without kinds: every kind but the show room's chat (asked by name)
DEFAULT_KINDS = tuple(k for k in KINDS if k != "chat")
FORMATS = ("json", "discord")


class WebhookEndpoint(models.Model):
    """A URL an organizer registered for a show, with the events it wants."""

    show_stream = models.CharField(max_length=200, db_index=True)
    url = models.URLField(max_length=500)
    kinds = models.JSONField(default=list)
    format = models.CharField(max_length=10, default="json")  # json | discord
    secret = models.CharField(max_length=64)
    created_by = models.CharField(max_length=150)
    # the account that registered it: "live" holds only while it is the show's organizer
    owner_id = models.PositiveBigIntegerField(null=True, blank=True)
    # events at once rather than at the show's spectator delay (the organizer's own
    # endpoint only, by choice): see the README, "Webhooks"
    live = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    active = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    disabled_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.show_stream} -> {self.url}"

    @staticmethod
    def new_secret() -> str:
        return secrets.token_hex(32)


class WebhookDelivery(models.Model):
    """One event for one endpoint: the outbox. Written in the transaction that
    appends the event, so a crash after the commit loses nothing; sent once it
    is due (its recorded time + the show's delay) by whoever claims it first
    (the task queued after the commit, the sweeper); sent with no transaction
    open, at most once per claim, never again once delivered."""

    PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
    # not sent, and never will be: what it carried was withdrawn before it was due
    # (a chat message hidden by a moderator)
    WITHDRAWN = "withdrawn"

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    kind = models.CharField(max_length=20)
    stream = models.CharField(max_length=200)
    version = models.PositiveIntegerField()
    body = models.TextField()
    status = models.CharField(max_length=10, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # not before: the event's recorded time (the database's clock) + the show's delay
    due_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    # being sent until then (a try claims it; a crash's claim runs out)
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        unique_together = [("endpoint", "stream", "version", "kind")]
        indexes = [models.Index(fields=["status", "due_at"], name="hooks_delivery_due_idx")]
