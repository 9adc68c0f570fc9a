from django.apps import AppConfig


class ShowFactsProvider:
    """What games.visibility asks of a show, answered by the tournament side
    (so that a match knows nothing of its show)."""

    def show_facts(self, show_stream):
        from .selectors import show_facts

        return show_facts(show_stream)

    def result_settled(self, show_stream, match_stream):
        from .selectors import result_settled

        return result_settled(show_stream, match_stream)

    def opened_omnisciently(self, show_stream, user_id, match_stream):
        from .show_services import opened_omnisciently

        return opened_omnisciently(show_stream, user_id, match_stream)

    def record_omniscient_view(self, show_stream, user, match_stream, *, now=None, command_id=None):
        from .show_services import record_omniscient_view

        return record_omniscient_view(
            show_stream, user, match_stream, now=now, command_id=command_id
        )


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from clocks.enforce import also_sweep
        from games.disputes import register_dispute_provider
        from games.visibility import register_show_provider

        from . import bot_steps, bracket_services, readmodels, show_services  # noqa: F401  (listeners, projectors)
        from .dispute_filing import DisputePlaces
        from .show_clock import sweep_shows

        register_show_provider(ShowFactsProvider())
        also_sweep(sweep_shows)
        register_dispute_provider(DisputePlaces())
