from django.urls import path

from . import views

app_name = "console"
urlpatterns = [
    path("", views.index, name="index"),
    path("shows/new/", views.show_new, name="show_new"),
    path("shows/<int:pk>/", views.show_console, name="show"),
    path("shows/<int:pk>/autopilot", views.show_autopilot, name="autopilot"),
    path("shows/<int:pk>/<slug:kind>", views.show_step, name="step"),
    path("brackets/new/", views.bracket_new, name="bracket_new"),
    path("matches/new/", views.match_new, name="match_new"),
    path("invite/", views.invite, name="invite"),
    path("join/<str:token>/", views.signup, name="signup"),
]
