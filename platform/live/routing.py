from django.urls import path

from .consumers import MatchConsumer

websocket_urlpatterns: list = [
    path("ws/matches/<int:pk>/", MatchConsumer.as_asgi()),
]
