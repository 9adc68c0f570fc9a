"""``Authorization: Token <secret>`` (or ``Bearer <secret>``) for bots and scripts."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import ApiToken, hash_secret

KEYWORDS = ("token", "bearer")
# last_used is a hint for its owner, not an audit log: written at most this often
TOUCH_EVERY = timedelta(seconds=60)


class BadToken(exceptions.AuthenticationFailed):
    default_code = "bad_token"


class TokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower().decode("latin-1") not in KEYWORDS:
            return None  # not ours: the session may still authenticate
        if len(header) != 2:
            raise BadToken("send the header as: Authorization: Token <secret>")
        try:
            secret = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise BadToken("this token is not valid") from None
        token = ApiToken.objects.select_related("user").filter(key_hash=hash_secret(secret)).first()
        if token is None:
            raise BadToken("this token is not valid")
        if token.revoked is not None:
            raise BadToken("this token was revoked; create a new one on your tokens page")
        if not token.user.is_active:
            raise BadToken("the account of this token is disabled")
        now = timezone.now()
        if token.last_used is None or now - token.last_used > TOUCH_EVERY:
            ApiToken.objects.filter(pk=token.pk).update(last_used=now)
        return token.user, token

    def authenticate_header(self, request):
        return "Token"
