from django.apps import AppConfig


class EventlogConfig(AppConfig):
    name = "eventlog"
    verbose_name = "Event log"
    default_auto_field = "django.db.models.BigAutoField"
