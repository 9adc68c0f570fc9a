from django.urls import include, path, re_path

from . import api

urlpatterns = [
    path("games/", api.GameList.as_view(), name="api-games"),
    path("matches/", api.MatchList.as_view(), name="api-matches"),
    path("matches/<int:pk>/", api.MatchView.as_view(), name="api-match"),
    path("matches/<int:pk>/history", api.MatchHistory.as_view(), name="api-match-history"),
    path("matches/<int:pk>/legal", api.MatchLegal.as_view(), name="api-match-legal"),
    path("matches/<int:pk>/commands", api.MatchCommand.as_view(), name="api-match-command"),
    path("matches/<int:pk>/moderate", api.MatchModerate.as_view(), name="api-match-moderate"),
    path("matches/<int:pk>/open", api.MatchOpen.as_view(), name="api-match-open"),
    path("", include("tournaments.api_urls")),  # shows, brackets, exports
    re_path(r"", api.NoSuchEndpoint.as_view()),  # last: anything else is a JSON 404
]
