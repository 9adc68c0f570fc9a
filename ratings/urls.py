from django.urls import path

from . import home, views

app_name = "ratings"
urlpatterns = [
    path("", views.index, name="index"),
    path("leaderboards/<slug:game>/", views.leaderboard, name="leaderboard"),
    path("seasons/", views.season_list, name="seasons"),
    path("head-to-head/", views.head_to_head, name="head_to_head"),
    # no slash: a username never ends a path without one (the profile below)
    path("search", home.player_search, name="search"),
    path("bots/<str:kind>/", views.bot_profile, name="bot"),
    path("<str:ref>/", views.profile, name="profile"),
]
