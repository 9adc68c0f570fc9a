from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"
    label = "hooks"
    verbose_name = "Webhooks of show hosts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from eventlog.store import on_append

        from .dispatch import dispatch_after_append

        on_append(dispatch_after_append)
