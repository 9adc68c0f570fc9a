from django.urls import path

from . import views

app_name = "ratings"
urlpatterns = [
    path("", views.index, name="index"),
    path("leaderboards/<slug:game>/", views.leaderboard, name="leaderboard"),
    path("seasons/", views.season_list, name="seasons"),
    path("head-to-head/", views.head_to_head, name="head_to_head"),
    path("bots/<str:kind>/", views.bot_profile, name="bot"),
    path("<str:ref>/", views.profile, name="profile"),
]
