from django.contrib import admin

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are listed and revoked here; a secret exists only in its owner's hands."""

    list_display = ["name", "user", "prefix", "created", "last_used", "revoked"]
    list_filter = ["revoked"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["user", "name", "prefix", "key_hash", "created", "last_used"]
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False  # a token is created by its owner, who alone sees the secret

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        for token in queryset:
            token.revoke()
