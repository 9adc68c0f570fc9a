from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"
    label = "hooks"
    verbose_name = "Webhooks of show hosts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from eventlog.store import on_append, register_projector

        from .dispatch import outbox_projector, queue_after_commit

        register_projector(outbox_projector)  # in the append's transaction
        on_append(queue_after_commit)
