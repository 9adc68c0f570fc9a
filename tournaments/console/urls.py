from django.urls import path

from . import schedule_views, views

app_name = "console"
urlpatterns = [
    path("", views.index, name="index"),
    path("shows/new/", views.show_new, name="show_new"),
    path("shows/scheduled/new/", schedule_views.scheduled_show_new, name="scheduled_new"),
    path("shows/<int:pk>/template", schedule_views.save_template, name="save_template"),
    path("templates/", schedule_views.template_list, name="templates"),
    path("templates/<int:pk>/", schedule_views.template_page, name="template"),
    path("templates/<int:pk>/show", schedule_views.template_show, name="template_show"),
    path(
        "templates/<int:pk>/recurrence",
        schedule_views.template_recurrence,
        name="template_recurrence",
    ),
    path("shows/<int:pk>/", views.show_console, name="show"),
    path("shows/<int:pk>/autopilot", views.show_autopilot, name="autopilot"),
    path("shows/<int:pk>/<slug:kind>", views.show_step, name="step"),
    path("brackets/new/", views.bracket_new, name="bracket_new"),
    path("matches/new/", views.match_new, name="match_new"),
    path("invite/", views.invite, name="invite"),
    path("join/<str:token>/", views.signup, name="signup"),
]
