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
    folded = models.BinaryField(null=True, editable=False)  # a snapshot of the fold (kept_folds.py)

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
    seat_holder_ids = models.JSONField(default=list)  # accounts holding an entrant: never staff
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
    folded = models.BinaryField(null=True, editable=False)  # a snapshot of the fold (kept_folds.py)

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


class ShowTemplate(models.Model):
    """A show's options, game pool, rounds and moderators, saved to create shows
    from (the console, the API), and optionally a weekly recurrence: a show is
    created ``announce_days`` before each start, by django-celery-beat's
    database scheduler (``periodic_task``)."""

    organizer = models.ForeignKey(
        "auth.User", on_delete=models.CASCADE, related_name="show_templates"
    )
    name = models.CharField(max_length=200)
    options = models.JSONField(default=dict)
    rounds = models.JSONField(default=list)  # round titles (empty: one per elimination)
    moderator_ids = models.JSONField(default=list)  # accounts appointed to each show
    weekday = models.PositiveSmallIntegerField(
        null=True, blank=True
    )  # 0 Monday; None: no recurrence
    start_time = models.TimeField(null=True, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    announce_days = models.PositiveSmallIntegerField(default=2)
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask", null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self):
        return self.name


class TemplateShow(models.Model):
    """A show a template's recurrence created (at most one per start time)."""

    template = models.ForeignKey(ShowTemplate, on_delete=models.CASCADE, related_name="shows")
    starts_at = models.DateTimeField()
    stream = models.CharField(max_length=200)

    class Meta:
        unique_together = [("template", "starts_at")]
