from django.urls import path

from . import schedule_views, views

app_name = "tournaments"
urlpatterns = [
    path("", views.show_list, name="index"),
    path("<int:pk>/", views.show_page, name="show"),
    path("<int:pk>/decide/", views.show_decide, name="decide"),
    path("brackets/<int:pk>/", views.bracket_page, name="bracket"),
    path("<int:pk>/calendar.ics", schedule_views.show_calendar, name="calendar"),
    *(
        path(f"<int:pk>/{kind}/", schedule_views.show_act, {"kind": kind}, name=f"act_{kind}")
        for kind in schedule_views.ACTIONS
    ),
]
