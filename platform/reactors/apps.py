from django.apps import AppConfig


class ReactorsConfig(AppConfig):
    name = "reactors"
    label = "reactors"
    verbose_name = "Reactors that follow the event log"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.conf import settings

        from eventlog.store import on_append

        from .follow import run_inline

        if settings.REACTORS_INLINE:  # embedded mode: the request's process runs them too
            on_append(run_inline)
