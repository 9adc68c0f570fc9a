from django.urls import path

from . import api

urlpatterns = [
    path("players/<str:ref>/", api.PlayerView.as_view(), name="api-player"),
    path("leaderboards/<slug:game>/", api.LeaderboardView.as_view(), name="api-leaderboard"),
    path(
        "leaderboards/<slug:game>/export",
        api.LeaderboardExport.as_view(),
        name="api-leaderboard-export",
    ),
    path("head-to-head", api.HeadToHeadView.as_view(), name="api-head-to-head"),
    path("seasons/", api.SeasonList.as_view(), name="api-seasons"),
]
