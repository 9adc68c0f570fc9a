from django.contrib import admin, messages

from eventlog.admin import SuperuserOnly

from . import parked
from .models import ParkedAppend, ReactorPartition


@admin.register(ReactorPartition)
class ReactorPartitionAdmin(SuperuserOnly):
    """Where each reactor is in the log, and whether it is retrying a failure."""

    list_display = ["reactor", "partition", "after_id", "owner", "failures", "retry_at"]
    list_filter = ["reactor"]
    readonly_fields = [f.name for f in ReactorPartition._meta.fields]


@admin.register(ParkedAppend)
class ParkedAppendAdmin(SuperuserOnly):
    """Appends a reactor kept failing on: the error says why (it may name what
    the events hold: superusers only, like the log)."""

    list_display = ["reactor", "stream", "first_version", "last_version", "attempts", "handled"]
    list_filter = ["handled", "reactor"]
    readonly_fields = [f.name for f in ParkedAppend._meta.fields]
    actions = ["try_again"]

    @admin.action(description="Try the selected parked appends again")
    def try_again(self, request, queryset):
        results = [parked.retry(p) for p in queryset.filter(handled=False)]
        self.message_user(
            request,
            f"{sum(results)} handled, {len(results) - sum(results)} failed again.",
            messages.SUCCESS if all(results) else messages.WARNING,
        )
