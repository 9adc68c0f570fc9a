from django.apps import AppConfig


class EventlogConfig(AppConfig):
    name = "eventlog"
    verbose_name = "Event log"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import checks  # noqa: F401  (registers the trigger check)
