from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import bracket_services, readmodels, show_services  # noqa: F401  (listeners, projectors)
