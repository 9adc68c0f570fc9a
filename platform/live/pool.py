"""Work of a socket done on a thread of the pool, off the event loop."""

from channels.db import DatabaseSyncToAsync
from django import db


def off_loop(fn):
    """``fn`` on a thread of the pool, not the one thread every other socket's
    (and the ASGI server's HTTP views') database work shares. Its connection
    is given back after each call (to the web role's pool: DB_POOL_SIZE), so
    idle threads of the pool hold none."""

    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        finally:
            db.connections.close_all()

    return DatabaseSyncToAsync(run, thread_sensitive=False)
