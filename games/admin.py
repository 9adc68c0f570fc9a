from django.contrib import admin

from eventlog.admin import SuperuserOnly

from .models import Match


@admin.register(Match)
class MatchAdmin(SuperuserOnly):
    """A read model: shown (to superusers: live scores are behind the
    spectators' delay), never edited here (rebuild it from the log)."""

    list_display = ("id", "title", "game", "status", "scores", "next_deadline", "version")
    list_filter = ("game", "status", "kind")
