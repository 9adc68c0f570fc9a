from django.contrib import admin

from .models import Match


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    """A read model: shown, never edited here (rebuild it from the log)."""

    list_display = ("id", "title", "game", "status", "scores", "next_deadline", "version")
    list_filter = ("game", "status", "kind")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
