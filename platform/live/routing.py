from django.urls import path

from .consumers import ApiMatchConsumer, MatchConsumer
from .dashboard import DashboardConsumer
from .show_chat import ShowConsumer

websocket_urlpatterns: list = [
    path("ws/matches/<int:pk>/", MatchConsumer.as_asgi()),
    # the same socket in JSON, for bots and scripts (docs/api/index.md)
    path("ws/api/matches/<int:pk>/", ApiMatchConsumer.as_asgi()),
    # a show's page: its chat rooms (live.show_chat)
    path("ws/shows/<int:pk>/", ShowConsumer.as_asgi()),
    # a show's dashboard: told at once of a new dispute (live.dashboard)
    path("ws/shows/<int:pk>/dashboard/", DashboardConsumer.as_asgi()),
]
