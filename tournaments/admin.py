"""The read models, read-only in the admin, to superusers only: they hold
live results, secret items and dispute texts (``is_staff`` grants nothing)."""

from django.contrib import admin

from eventlog.admin import SuperuserOnly

from .models import BracketRecord, DisputeRecord, ItemRecord, ShowRecord


class ReadOnly(SuperuserOnly):
    pass


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
