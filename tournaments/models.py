"""Read models of the tournament side, rebuilt from the log."""
from django.db import models


class BracketRecord(models.Model):
    """A bracket and its stream ``bracket-<id>`` (kept by readmodels.py)."""

    stream = models.CharField(max_length=200, unique=True)
    name = models.CharField(max_length=200)
    game = models.CharField(max_length=50)
    format = models.CharField(max_length=20)
    entrants = models.JSONField(default=list)
    standings = models.JSONField(default=list)
    champion = models.CharField(max_length=100, blank=True)
    status = models.CharField(max_length=20, default="running")  # running | finished
    version = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-id"]

    def __str__(self):
        return f"{self.name} ({self.format})"


class BracketSeriesRecord(models.Model):
    bracket = models.ForeignKey(BracketRecord, on_delete=models.CASCADE, related_name="series")
    series_id = models.CharField(max_length=20)
    round = models.CharField(max_length=10)
    position = models.PositiveIntegerField()
    a = models.CharField(max_length=100)
    b = models.CharField(max_length=100, blank=True)
    winner = models.CharField(max_length=100, blank=True)
    match_stream = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["bracket", "position"]
        unique_together = [("bracket", "series_id")]
