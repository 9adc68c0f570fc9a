"""The web processes' HTTP handler: Django's ASGI handler with the whole
middleware chain and view run in one hop to the process's sync thread.

Django's own handler loads the middleware in async mode: the chain is async up
to the first sync-only middleware (WhiteNoise's and two of ours), then sync,
then async again around the view, with a thread started per request to keep
those hops on one thread. Every middleware and view here is sync, so the
chain is loaded in sync mode and called once in the thread where the request
signals' receivers already run (asgiref's thread-sensitive executor)."""

from asgiref.sync import sync_to_async
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler


class HTTPHandler(ASGIHandler):
    def __init__(self):
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        await self.handle(scope, receive, send)

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)
