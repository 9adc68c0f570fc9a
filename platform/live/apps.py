from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from eventlog.store import on_append

        from .publisher import announce_after_append

        on_append(announce_after_append)
