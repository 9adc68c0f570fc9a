from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from api.exceptions import Refusals, register_refusals
        from reactors.follow import on_rows_read, register_match_model

        from . import readmodels  # noqa: F401  (registers the match projector)
        from .core.protocol import RoleRequired, RuleError
        from .engine_words import refusal
        from .models import Match
        from .services import keep_read_rows

        # the layers below the games ask for them, never import them
        register_refusals(Refusals(rule=(RuleError,), role=(RoleRequired,), words=refusal))
        register_match_model(Match)  # the match rows the reactors share (reactors.follow)
        on_rows_read(keep_read_rows)  # what they read, kept for a whole stream's next read
