"""Who a match socket speaks for, settled at its handshake and read again
before every command.

A browser's socket is its session's (the cookie), and only from a page of
this site (its Origin is checked: another site's page would carry the
cookie too). A bot's is an API token's, sent as the handshake's
``Authorization: Token <secret>`` header: a page cannot set that header, so
no Origin is needed, and the session cookie is then not read. A token in the
URL (the query string) is refused: URLs end up in logs and proxies' records."""

from __future__ import annotations

import re
from importlib import import_module

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from rest_framework.exceptions import AuthenticationFailed

from api.authentication import TokenAuthentication

# the parameters a token could be sent as in a URL
TOKEN_IN_URL = re.compile(r"(?:^|&)(?:token|key|secret|access_token|api_key|auth)=", re.I)
TOKEN_IN_URL_WORDS = (
    "never put a token in the URL: send it as the header Authorization: Token <secret>"
)
NOT_A_TOKEN = "send the header as: Authorization: Token <secret>"
# the sockets whose consumer reads a token header itself (live.consumers)
READS_ITS_TOKEN = re.compile(r"^/ws/(?:api/)?matches/\d+/$")


def header(scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value
    return None


def token_user(authorization: bytes):
    """The account of a token header, or why there is none (the API's words)."""
    user, _token, why = token_of(authorization)
    return user, why


def token_of(authorization: bytes):
    """(account, token, why not) of a token header: the token's id and key
    hash are what a socket's commands check again (live.commands)."""
    request = HttpRequest()
    request.META["HTTP_AUTHORIZATION"] = authorization.decode("latin-1")
    try:
        found = TokenAuthentication().authenticate(request)
    except AuthenticationFailed as exc:
        return None, None, str(exc.detail)
    if found is None:  # another scheme (Basic, a cookie's...): not ours
        return None, None, NOT_A_TOKEN
    return found[0], found[1], None


def session_user(scope):
    """The session's account as it stands now (logged out: anonymous)."""
    session = scope.get("session")
    key = session.session_key if session is not None else None
    if not key:
        return AnonymousUser()
    request = HttpRequest()
    # read afresh, not the handshake's copy
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    return auth.get_user(request)


def account_now(scope):
    """The socket's account read again (a command checks it first): (user, why
    not) where a token revoked or a session logged out gives why not."""
    authorization = scope.get("authorization")
    if authorization is not None:
        return token_user(authorization)
    return session_user(scope), None


class SocketAuth:
    """The websocket stack: a token handshake, a browser's (Origin checked,
    then the session), or a refused one (``scope["refused"]``: the socket
    is accepted, told why and closed)."""

    def __init__(self, inner):
        self.inner = inner
        self.browser = AllowedHostsOriginValidator(AuthMiddlewareStack(inner))

    async def __call__(self, scope, receive, send):
        query = scope.get("query_string", b"").decode("latin-1")
        if TOKEN_IN_URL.search(query):
            scope = dict(scope, user=AnonymousUser(), refused=TOKEN_IN_URL_WORDS)
            return await self.inner(scope, receive, send)
        authorization = header(scope, b"authorization")
        if authorization is None:
            return await self.browser(scope, receive, send)
        if READS_ITS_TOKEN.match(scope.get("path", "")):
            # a match socket reads it in its handshake's one trip to a thread (read_token)
            scope = dict(
                scope, user=AnonymousUser(), authorization=authorization, token_unread=True
            )
            return await self.inner(scope, receive, send)
        scope = dict(scope, authorization=authorization)
        read_token(scope, *(await database_sync_to_async(token_of)(authorization)))
        return await self.inner(scope, receive, send)


def read_token(scope: dict, user, token, refused) -> None:
    """A token handshake's account in ``scope`` (or why it is refused)."""
    scope.pop("token_unread", None)
    scope.update(user=user or AnonymousUser(), refused=refused)
    if token is not None:  # what each command reads again with its match (live.commands)
        scope["api_token"] = (token.pk, token.key_hash, token.last_used)
