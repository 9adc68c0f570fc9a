"""The chat's read models, kept by readmodels.py from the rooms' streams and
rebuilt from them: the log is the record, these rows are its fold."""

from django.db import models


class ChatMessage(models.Model):
    """One message; its primary key is its event's global id (the same after
    a rebuild), ``hidden`` once a moderator hid it (with the reason)."""

    id = models.BigIntegerField(primary_key=True)
    stream = models.CharField(max_length=200)
    author_id = models.IntegerField()
    author = models.CharField(max_length=150)
    text = models.TextField()
    at = models.DateTimeField()
    hidden = models.BooleanField(default=False)
    hidden_reason = models.CharField(max_length=200, blank=True)
    # written by a moderator of its room (its links are shown as links)
    staff = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["stream", "id"], name="chat_msg_stream_idx")]


class ChatRoomState(models.Model):
    """A room's moderation: its slow mode, whether a moderator closed it, and
    (the show room's row) the show's word list, kept casefolded."""

    stream = models.CharField(max_length=200, primary_key=True)
    slow_s = models.PositiveIntegerField(default=0)
    closed = models.BooleanField(default=False)
    words = models.JSONField(default=list, blank=True)


class ChatTimeout(models.Model):
    """A person timed out of a room until ``until`` (None: for the show);
    with ``show_id``, out of every room of that show (set in this room)."""

    stream = models.CharField(max_length=200)
    user_id = models.IntegerField()
    until = models.DateTimeField(null=True, blank=True)
    show_id = models.IntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stream", "user_id"], name="chat_timeout_uniq")
        ]


class ChatBlock(models.Model):
    """``blocker`` hides ``blocked``'s messages in every room (their stream
    ``chat-blocks-<blocker>``)."""

    stream = models.CharField(max_length=200)
    blocker_id = models.IntegerField()
    blocked_id = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker_id", "blocked_id"], name="chat_block_uniq")
        ]


class ChatReport(models.Model):
    """Someone reported a message to the moderators (once per person and
    message), with an optional reason; its primary key is its event's id."""

    id = models.BigIntegerField(primary_key=True)
    stream = models.CharField(max_length=200)
    message_id = models.BigIntegerField()
    reporter_id = models.IntegerField()
    reporter = models.CharField(max_length=150)
    reason = models.CharField(max_length=200, blank=True)
    at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["message_id", "reporter_id"], name="chat_report_uniq")
        ]
