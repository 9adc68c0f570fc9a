from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    label = "api"
    verbose_name = "API: tokens and plumbing"

    def ready(self):
        from . import schema  # noqa: F401  (registers the token scheme with the schema)
        from . import signals  # noqa: F401  (drops cached tokens when they change)
