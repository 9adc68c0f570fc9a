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
    folded = models.BinaryField(null=True, editable=False)  # pickled fold (readmodels.py)
    fold_token = models.CharField(max_length=32, blank=True, editable=False)

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


class ShowRecord(models.Model):
    """A show and its stream ``show-<id>`` (kept by readmodels.py)."""

    stream = models.CharField(max_length=200, unique=True)
    name = models.CharField(max_length=200)
    organizer = models.CharField(max_length=150)
    organizer_id = models.IntegerField(null=True, blank=True)  # the account with the rights
    moderators = models.JSONField(default=list)
    moderator_ids = models.JSONField(default=list)  # the moderators' accounts
    spectator_delay_s = models.FloatField(default=0)
    spectator_policy = models.CharField(max_length=20, default="public")
    # scheduled (waiting for its start) | running | finished | cancelled
    status = models.CharField(max_length=20, default="running")
    champion = models.CharField(max_length=150, blank=True)
    starts_at = models.DateTimeField(null=True, blank=True)  # a scheduled show's start
    # when the clock must next look at a scheduled show (check-in, start)
    next_due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    round_no = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)
    folded = models.BinaryField(null=True, editable=False)  # pickled fold (readmodels.py)
    fold_token = models.CharField(max_length=32, blank=True, editable=False)

    class Meta:
        ordering = ["-id"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        from django.urls import reverse

        return reverse("tournaments:show", args=[self.pk])


class ShowEntrantRecord(models.Model):
    show = models.ForeignKey(ShowRecord, on_delete=models.CASCADE, related_name="entrants")
    name = models.CharField(max_length=150)
    status = models.CharField(max_length=20)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["show", "position"]
        unique_together = [("show", "name")]


class ItemRecord(models.Model):
    """A player's inventory row: always a fold of the show's stream."""

    show = models.ForeignKey(ShowRecord, on_delete=models.CASCADE, related_name="items")
    item_id = models.CharField(max_length=20)
    item = models.CharField(max_length=30)
    holder = models.CharField(max_length=150)
    scope = models.CharField(max_length=20)
    given_by = models.CharField(max_length=150)
    status = models.CharField(max_length=20)  # held | used | revoked
    used_in = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["show", "item_id"]
        unique_together = [("show", "item_id")]


class DisputeRecord(models.Model):
    show = models.ForeignKey(ShowRecord, on_delete=models.CASCADE, related_name="disputes")
    dispute_id = models.CharField(max_length=20)
    target_stream = models.CharField(max_length=200)
    target_version = models.PositiveIntegerField()
    filed_by = models.CharField(max_length=150)
    status = models.CharField(max_length=30)
    claimed_by = models.CharField(max_length=150, blank=True)
    ruling = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["show", "dispute_id"]
        unique_together = [("show", "dispute_id")]
