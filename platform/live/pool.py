"""Work of a socket done on a thread of the pool, off the event loop."""

from channels.db import DatabaseSyncToAsync, database_sync_to_async
from django import db
from django.conf import settings


def off_loop(fn):
    """``fn`` on a thread of the pool, not the one thread every other socket's
    (and the ASGI server's HTTP views') database work shares. Its connection
    is given back after each call (to the web role's pool: DB_POOL_SIZE), so
    idle threads of the pool hold none. With LIVE_SOCKET_THREADS off (the
    tests), on that one thread as Channels does by default: a socket test's
    work then never waits on a connection of another thread, which hung a
    handshake test for good once in a few runs."""
    if not getattr(settings, "LIVE_SOCKET_THREADS", True):
        return database_sync_to_async(fn)

    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        finally:
            db.connections.close_all()

    return DatabaseSyncToAsync(run, thread_sensitive=False)
