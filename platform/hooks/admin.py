from django.contrib import admin

from eventlog.admin import SuperuserOnly

from .models import WebhookDelivery, WebhookEndpoint


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ["show_stream", "url", "format", "active", "consecutive_failures"]
    exclude = ["secret"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(SuperuserOnly):
    """A pending delivery's body is a result the audience has not seen yet."""

    list_display = ["endpoint", "kind", "stream", "version", "status", "attempts", "status_code"]
    list_filter = ["status", "kind"]
