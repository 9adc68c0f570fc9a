"""Personal API tokens: only a hash of the secret is stored."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

PREFIX_LEN = 8


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    # the secret's first characters, so its owner can tell tokens apart
    prefix = models.CharField(max_length=PREFIX_LEN)
    key_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked is None

    @classmethod
    def issue(cls, user, name: str) -> tuple[ApiToken, str]:
        """A new token and its secret; the secret is never stored or shown again."""
        secret = secrets.token_urlsafe(32)
        while secret.startswith("-"):  # a command line would read it as an option
            secret = secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name, prefix=secret[:PREFIX_LEN], key_hash=hash_secret(secret)
        )
        return token, secret

    def revoke(self) -> None:
        if self.revoked is None:
            self.revoked = timezone.now()
            self.save(update_fields=["revoked"])
