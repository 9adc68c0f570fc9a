from django.apps import AppConfig


class ClocksConfig(AppConfig):
    name = "clocks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from eventlog.store import on_append

        from .arming import arm_after_append

        on_append(arm_after_append)
