from django.urls import path

from . import schedule_views, views

# each show's calendar feed (<pk>/calendar.ics, tournaments:calendar) is the
# reminders' view: config mounts it in this namespace
app_name = "tournaments"
urlpatterns = [
    path("", views.show_list, name="index"),
    path("<int:pk>/", views.show_page, name="show"),
    path("<int:pk>/decide/", views.show_decide, name="decide"),
    path("brackets/<int:pk>/", views.bracket_page, name="bracket"),
    path(
        "brackets/<int:pk>/check-in/",
        views.bracket_act,
        {"kind": "check_in"},
        name="bracket_check_in",
    ),
    path("brackets/<int:pk>/draw/", views.bracket_act, {"kind": "draw"}, name="bracket_draw"),
    *(
        path(f"<int:pk>/{kind}/", schedule_views.show_act, {"kind": kind}, name=f"act_{kind}")
        for kind in schedule_views.ACTIONS
    ),
]
