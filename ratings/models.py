"""Read models of ratings, statistics and seasons: every row is a fold of
the log (readmodels.py), rebuilt by ``rebuild_read_models``."""

from django.conf import settings
from django.db import models

from games.holders import is_bot


class PlayedMatch(models.Model):
    """A finished match as the ratings count it (one row per match stream)."""

    stream = models.CharField(max_length=200, unique=True)
    game = models.CharField(max_length=50)
    show_stream = models.CharField(max_length=200, blank=True)
    position = models.BigIntegerField()  # the global id of the event that ended it
    played_at = models.DateTimeField()  # the game clock's time of that event
    public_at = models.DateTimeField()  # when its end is shown to everyone
    rated = models.BooleanField()  # counted in the ratings (rated and every seat held)
    sides = models.JSONField(default=list)  # [{"seats": [...], "players": [...], "rank": n}]

    class Meta:
        ordering = ["position"]
        indexes = [models.Index(fields=["game", "position"], name="ratings_played_game_pos")]


class Participation(models.Model):
    """One player's seat in a PlayedMatch: place, statistics, items used."""

    played = models.ForeignKey(PlayedMatch, on_delete=models.CASCADE, related_name="players")
    player = models.CharField(max_length=60)  # "u:<id>" or "bot:<kind>"
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    seat = models.CharField(max_length=100)
    rank = models.PositiveSmallIntegerField()
    won = models.BooleanField()
    stats = models.JSONField(default=dict)
    items = models.JSONField(default=list)

    class Meta:
        ordering = ["-played__position", "seat"]
        indexes = [models.Index(fields=["player"], name="ratings_part_player")]


class Rating(models.Model):
    """A player's current rating in one game (after their last rated match)."""

    player = models.CharField(max_length=60)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    game = models.CharField(max_length=50)
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField()
    last_at = models.DateTimeField()  # when they last played a rated match
    public_at = models.DateTimeField()  # when that match's end is shown to everyone

    class Meta:
        ordering = ["game", "player"]
        constraints = [
            models.UniqueConstraint(fields=["player", "game"], name="ratings_rating_player_game")
        ]

    @property
    def is_bot(self) -> bool:
        return is_bot(self.player)


class RatingPoint(models.Model):
    """A player's rating after one rated match: the history a chart draws."""

    player = models.CharField(max_length=60)
    game = models.CharField(max_length=50)
    played = models.ForeignKey(PlayedMatch, on_delete=models.CASCADE, related_name="points")
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()

    class Meta:
        ordering = ["played__position"]
        indexes = [models.Index(fields=["player", "game"], name="ratings_point_player_game")]


class Entry(models.Model):
    """A player's entry in a show or bracket (by the account or bot holding it)."""

    player = models.CharField(max_length=60)
    stream = models.CharField(max_length=200)  # show-... or bracket-...
    entrant = models.CharField(max_length=150)
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "stream"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "stream", "entrant"], name="ratings_entry_uniq"
            )
        ]


class Season(models.Model):
    """A date range an organizer named (stream ``seasons``)."""

    season_id = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=100)
    starts = models.DateField()
    ends = models.DateField()  # inclusive
    named_by = models.CharField(max_length=150)

    class Meta:
        ordering = ["-starts", "season_id"]

    def __str__(self):
        return self.name
