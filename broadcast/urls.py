from django.urls import path

from . import views

app_name = "broadcast"
urlpatterns = [
    path("shows/<int:pk>/board/", views.board, name="board"),
    path("shows/<int:pk>/tv/", views.tv, name="tv"),
    path("tv/", views.tv_site, name="tv_site"),
    path("tv/games/<slug:game>/", views.tv_game, name="tv_game"),
    path("shows/<int:pk>/overlays/", views.overlay_links, name="overlay_links"),
    path(
        "shows/<int:pk>/overlays/preview/<slug:kind>/",
        views.overlay_preview,
        name="overlay_preview",
    ),
    path("overlay/<str:token>/<slug:kind>/", views.overlay, name="overlay"),
    path("games/matches/<int:pk>/replay/", views.replay, name="replay"),
    path("games/matches/<int:pk>/viewers/", views.match_viewers, name="match_viewers"),
]
