from django.apps import AppConfig


class ReactorsConfig(AppConfig):
    name = "reactors"
    label = "reactors"
    verbose_name = "Reactors that follow the event log"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from eventlog.store import on_append

        from .embedded import run_inline

        on_append(run_inline)  # only under REACTORS_INLINE (embedded mode)
