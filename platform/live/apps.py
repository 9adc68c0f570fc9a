from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from reactors.follow import register

        from .publisher import announce_after_append

        # follows the log (reactors): announced by the reactors, not by the request
        register(
            "live",
            announce_after_append,
            prefixes=("match-", "chat-m"),
            with_matches=True,
            writes=False,
        )
