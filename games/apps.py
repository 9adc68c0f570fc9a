from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from reactors.follow import register_match_model

        from . import readmodels  # noqa: F401  (registers the match projector)
        from .models import Match

        register_match_model(Match)  # the match rows the reactors share (reactors.follow)
