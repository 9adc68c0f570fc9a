from django.urls import path

from .consumers import ApiMatchConsumer, MatchConsumer

websocket_urlpatterns: list = [
    path("ws/matches/<int:pk>/", MatchConsumer.as_asgi()),
    # the same socket in JSON, for bots and scripts (docs/api/index.md)
    path("ws/api/matches/<int:pk>/", ApiMatchConsumer.as_asgi()),
]
