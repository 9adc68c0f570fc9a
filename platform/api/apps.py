from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    label = "api"
    verbose_name = "API: tokens and plumbing"

    def ready(self):
        # the token scheme in the schema; cached tokens dropped when they change
        from . import schema, signals  # noqa: F401
