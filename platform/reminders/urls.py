from django.urls import path

from . import views

app_name = "reminders"
urlpatterns = [
    path("", views.settings_page, name="settings"),
    path("seen", views.seen, name="seen"),
    path("badge", views.badge, name="badge"),
    path("push", views.subscribe, name="subscribe"),
    path("push/off", views.unsubscribe, name="unsubscribe"),
    path("calendar/new", views.new_calendar_link, name="new_calendar"),
    path("calendar/<str:token>.ics", views.calendar, name="calendar"),
]

# each show's public feed, under the show's own address: config mounts it with
# the shows' routes, in their namespace (tournaments:calendar)
show_urlpatterns = [
    path("<int:pk>/calendar.ics", views.show_calendar, name="calendar"),
]
