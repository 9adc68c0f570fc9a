from django.urls import path

from . import views

app_name = "games"
urlpatterns = [
    path("", views.index, name="index"),
    path("practice/", views.practice, name="practice"),
    path("your-turn/", views.your_turn_badge, name="your_turn"),
    path("rules/<slug:slug>/", views.rules, name="rules"),
    path("matches/<int:pk>/", views.match_page, name="match"),
    path("matches/<int:pk>/command", views.match_command, name="command"),
    path("matches/<int:pk>/open", views.match_open, name="open"),
    path("matches/<int:pk>/no-show", views.match_no_show, name="no_show"),
]
