"""The broadcast's own tables: overlay keys and who watches."""

from django.db import models


class OverlayKey(models.Model):
    """The secret of a show's overlay links: only its hash is kept, so the
    organizer sees a link once, when it is made; a new one replaces it."""

    show_stream = models.CharField(max_length=200, unique=True)
    token_hash = models.CharField(max_length=64, unique=True)
    made_at = models.DateTimeField()
    made_by = models.IntegerField()  # the organizer's account


class Watcher(models.Model):
    """One open spectator socket of a match. A process refreshes ``seen_at``
    of its own sockets; rows not refreshed for a while (a process that died)
    are not counted and are swept."""

    channel_name = models.CharField(max_length=200, unique=True)
    match_id = models.IntegerField(db_index=True)
    show_stream = models.CharField(max_length=200, blank=True, db_index=True)
    seen_at = models.DateTimeField(db_index=True)
