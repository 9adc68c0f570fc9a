import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from config.http import HTTPHandler  # noqa: E402

django_asgi_app = HTTPHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from live.auth import SocketAuth  # noqa: E402
from live.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # a socket from a page of another site is refused (its Origin is checked);
        # a bot's speaks for its API token (live.auth)
        "websocket": SocketAuth(URLRouter(websocket_urlpatterns)),
    }
)

from runtime.startup import freeze_startup  # noqa: E402

freeze_startup()  # once the application is built: a worker's start, out of the collector's way
