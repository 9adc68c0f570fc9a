"""The log in Django's admin: superusers only. ``is_staff`` grants nothing
(shared/DESIGN.md), nor does a view permission: the rows hold live hands,
decks, salts and secret picks. Each opening of an event of a stream still
live writes an audit line (logger ``eventlog.audit``)."""

import logging

from django.apps import apps
from django.contrib import admin

from .models import StoredEvent

audit = logging.getLogger("eventlog.audit")


class SuperuserOnly(admin.ModelAdmin):
    """Shown to active superusers only, whatever permissions a staff account holds."""

    @staticmethod
    def _superuser(request) -> bool:
        user = request.user
        return bool(user.is_active and user.is_superuser)

    def has_module_permission(self, request):
        return self._superuser(request)

    def has_view_permission(self, request, obj=None):
        return self._superuser(request)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# the read model that says whether a stream is still being played, by prefix
_LIVE = {
    "match-": ("games", "Match", {"status": "live"}),
    "show-": ("tournaments", "ShowRecord", {"status__in": ("running", "scheduled")}),
    "bracket-": ("tournaments", "BracketRecord", {"status": "running"}),
}


def stream_is_live(stream: str) -> bool:
    for prefix, (app, model, live) in _LIVE.items():
        if stream.startswith(prefix):
            try:
                records = apps.get_model(app, model).objects
            except LookupError:
                return True
            return records.filter(stream=stream, **live).exists()
    return True  # a stream of a kind unknown here: counted as live


@admin.register(StoredEvent)
class StoredEventAdmin(SuperuserOnly):
    """The log is read-only here as everywhere: no add, change or delete."""

    list_display = ("id", "stream", "version", "type", "actor", "recorded_at")
    list_filter = ("type",)
    search_fields = ("stream", "type", "command_id")
    ordering = ("-id",)
    readonly_fields = [f.name for f in StoredEvent._meta.fields]

    @admin.display(description="actor")
    def actor(self, obj):
        return obj.metadata.get("actor")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if self._superuser(request):
            row = StoredEvent.objects.filter(pk=object_id).only("stream", "version").first()
            if row is not None and stream_is_live(row.stream):
                audit.info(
                    "user %s opened event %s@%s of a live stream in the admin",
                    request.user.pk,
                    row.stream,
                    row.version,
                )
        return super().change_view(request, object_id, form_url, extra_context)
