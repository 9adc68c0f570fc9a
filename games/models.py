"""Read models of matches: rebuilt from the log, never the source of truth."""

from django.conf import settings
from django.db import models

# the statuses of a match that is over (taken out of play, or played to its
# end): nothing is due in it and it waits on no one
OVER = ("void", "finished")
OVER_SQL = "(" + ", ".join(f"'{status}'" for status in OVER) + ")"  # the same, in SQL


class Match(models.Model):
    """A match (a whole series) and its event stream ``match-<id>``.

    The row is created with the stream by ``services.create_match`` and kept
    in step by the projector in readmodels.py."""

    stream = models.CharField(max_length=200, unique=True)
    game = models.CharField(max_length=50)
    title = models.CharField(max_length=200, blank=True)
    # a title the system made, as its parts (games.titles): shown in words
    title_words = models.JSONField(default=dict, blank=True)
    seats = models.JSONField(default=list)
    options = models.JSONField(default=dict)
    scores = models.JSONField(default=dict)
    status = models.CharField(max_length=20, default="live")  # live | finished | void
    winners = models.JSONField(default=list)
    version = models.PositiveIntegerField(default=0)
    next_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    waiting_on = models.JSONField(default=list)  # seats that must decide now
    show_stream = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=20, blank=True)  # main | death | final | bracket | ""
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "matches"

    def __str__(self):
        from .titles import match_title

        return match_title(self)

    @property
    def game_name(self) -> str:
        """The game's name (its slug is for the code and the API)."""
        from games.core.protocol import RuleError
        from games.core.registry import rules_for

        try:
            return rules_for(self.game).name
        except RuleError:
            return self.game


class SeatHolder(models.Model):
    """Who sits in a seat: a user or a bot. Part of the match read model."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="holders")
    seat = models.CharField(max_length=100)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    bot = models.CharField(max_length=30, blank=True)

    class Meta:
        unique_together = [("match", "seat")]


class Notification(models.Model):
    """A player is told a match of theirs has opened (a bracket's next series,
    a death match, the final). Part of the match read model."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="notifications")
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
