"""The read models, read-only in the admin until the show pages come."""

from django.contrib import admin

from .models import BracketRecord, DisputeRecord, ItemRecord, ShowRecord


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ShowRecord)
class ShowAdmin(ReadOnly):
    list_display = ("name", "organizer", "status", "champion", "round_no", "version")


@admin.register(BracketRecord)
class BracketAdmin(ReadOnly):
    list_display = ("name", "game", "format", "status", "champion")


@admin.register(ItemRecord)
class ItemAdmin(ReadOnly):
    list_display = ("item_id", "item", "holder", "scope", "given_by", "status", "used_in", "show")
    list_filter = ("status", "item")


@admin.register(DisputeRecord)
class DisputeAdmin(ReadOnly):
    list_display = (
        "dispute_id",
        "show",
        "target_stream",
        "target_version",
        "filed_by",
        "status",
        "claimed_by",
    )
