from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games.services import on_move_committed
        from reactors.follow import register

        from .dashboard import announce_after_append
        from .publisher import announce_committed

        # follows the log (reactors): announced by the reactors, not by the request;
        # a show's rows for its dashboards' sockets (a dispute filed: live.dashboard),
        # its rooms' for the show's sockets (live.show_chat)
        register(
            "live",
            announce_after_append,
            prefixes=("match-", "show-", "chat-m", "chat-s"),
            with_matches=True,
            writes=False,
        )
        # and at once by the process that committed a move (production's web role)
        on_move_committed(announce_committed)
