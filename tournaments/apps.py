from django.apps import AppConfig


class ShowFactsProvider:
    """What games.visibility asks of a show, answered by the tournament side
    (so that a match knows nothing of its show)."""

    def show_facts(self, show_stream):
        from . import selectors

        fn = getattr(selectors, "show_facts", None)
        return fn(show_stream) if fn is not None else _interim_show_facts(show_stream)

    def result_settled(self, show_stream, match_stream):
        from . import selectors

        fn = getattr(selectors, "result_settled", None)
        if fn is not None:
            return fn(show_stream, match_stream)
        return _interim_result_settled(show_stream, match_stream)

    def record_omniscient_view(self, show_stream, user, match_stream, *, now=None):
        from . import show_services

        fn = getattr(show_services, "record_omniscient_view", None)
        if fn is not None:
            fn(show_stream, user, match_stream, now=now)


# Until tournaments.selectors.show_facts / result_settled exist (the show
# facts by user id), the same answers from the show's fold.
def _interim_show_facts(show_stream):
    from django.contrib.auth import get_user_model

    from games.core.protocol import RuleError
    from games.visibility import ShowFacts

    from .show_services import load

    if not show_stream.startswith("show-"):
        return None  # a bracket's stream, say
    try:
        state, _, _ = load(show_stream)
    except RuleError:
        return None
    users = get_user_model().objects

    def ids(names):
        return frozenset(users.filter(username__in=names).values_list("pk", flat=True))

    return ShowFacts(
        organizer_ids=ids([state.organizer]),
        moderator_ids=ids(list(state.moderators)),
        spectator_delay_s=float(state.options.get("spectator_delay_s", 300)),
        spectator_policy=state.options.get("spectator_policy", "public"),
    )


def _interim_result_settled(show_stream, match_stream):
    from . import shows
    from .show_services import load

    state, _, _ = load(show_stream)
    return not any(
        d.target_stream == match_stream and d.status != shows.RULED for d in state.disputes.values()
    )


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games.visibility import register_show_provider

        from . import bracket_services, readmodels, show_services  # noqa: F401  (listeners, projectors)

        register_show_provider(ShowFactsProvider())
