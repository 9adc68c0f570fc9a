from django.contrib import admin

from .models import StoredEvent


@admin.register(StoredEvent)
class StoredEventAdmin(admin.ModelAdmin):
    """The log is read-only here as everywhere: no add, change or delete."""

    list_display = ("id", "stream", "version", "type", "actor", "recorded_at")
    list_filter = ("type",)
    search_fields = ("stream", "type", "command_id")
    ordering = ("-id",)
    readonly_fields = [f.name for f in StoredEvent._meta.fields]

    @admin.display(description="actor")
    def actor(self, obj):
        return obj.metadata.get("actor")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
