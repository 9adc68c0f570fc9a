from django.db import models


class StoredEvent(models.Model):
    """One row of the append-only log. The database refuses UPDATE and DELETE
    (triggers of migration 0002) and, on PostgreSQL, TRUNCATE (0003);
    ``checks.py`` reports a missing trigger."""

    id = models.BigAutoField(primary_key=True)  # the global position
    stream = models.CharField(max_length=200)
    version = models.PositiveIntegerField()
    type = models.CharField(max_length=100)
    data = models.JSONField(default=dict)
    metadata = models.JSONField(default=dict)
    command_id = models.CharField(max_length=100, null=True, blank=True)
    command_seq = models.PositiveSmallIntegerField(default=0)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["stream", "version"], name="event_stream_version_uniq"),
            # a command id belongs to its stream
            models.UniqueConstraint(
                fields=["stream", "command_id", "command_seq"],
                name="event_stream_command_uniq",
                condition=models.Q(command_id__isnull=False),
            ),
        ]
        indexes = [models.Index(fields=["type"], name="event_type_idx")]
        verbose_name = "event"

    def __str__(self):
        return f"{self.stream}@{self.version} {self.type}"

    @property
    def visibility(self) -> dict:
        return self.metadata.get("visibility") or {"to": None, "public": None}


class CommandRecord(models.Model):
    """A client's command id spent on a write that is not an event (a
    template, a season, a webhook endpoint...): what it did, so a retry is
    answered the same and nothing is written twice (``eventlog.commands``)."""

    scope = models.CharField(max_length=200)  # the write and its target, e.g. "season"
    command_id = models.CharField(max_length=100)
    fingerprint = models.CharField(max_length=64)  # who sent it and what it said
    result = models.JSONField(default=dict)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "command_id"], name="command_scope_id_uniq")
        ]

    def __str__(self):
        return f"{self.scope} {self.command_id}"
