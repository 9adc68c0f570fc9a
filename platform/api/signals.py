"""Dropping cached tokens (``authentication``) when what they say changes:
a token revoked or deleted, its account saved (deactivated, made staff) or
deleted; and revoking an account's tokens when its password changes, as its
sessions end then (Django's session hash is the password's). Each entry is replaced by a "dropped" mark now and again at commit;
entries are only added where no key is, so a request that read the old row
meanwhile cannot put it back."""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from .authentication import CACHE_S, DROPPED, cache_key
from .models import ApiToken

log = logging.getLogger(__name__)


def _drop(key_hashes) -> None:
    keys = [cache_key(h) for h in key_hashes]
    if not keys:
        return

    def drop():
        try:
            cache.set_many(dict.fromkeys(keys, DROPPED), CACHE_S)
        except Exception:  # the cache is away: its entries expire on their own
            log.warning("cached tokens not dropped", exc_info=True)

    drop()
    transaction.on_commit(drop)


@receiver(post_save, sender=ApiToken)
@receiver(post_delete, sender=ApiToken)
def token_changed(sender, instance, created=False, **kwargs):
    if created:
        return  # nothing can be cached under a new token's hash
    _drop([instance.key_hash])


@receiver(post_save, sender=get_user_model())
@receiver(post_delete, sender=get_user_model())
def account_changed(sender, instance, update_fields=None, **kwargs):
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return  # a login changes nothing a token says
    _drop(ApiToken.objects.filter(user_id=instance.pk).values_list("key_hash", flat=True))


@receiver(pre_save, sender=get_user_model())
def note_password_change(sender, instance, update_fields=None, raw=False, **kwargs):
    if raw or instance.pk is None:
        return
    if update_fields is not None and "password" not in update_fields:
        return
    before = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    instance._password_changed = before is not None and before != instance.password


@receiver(post_save, sender=get_user_model())
def revoke_tokens_on_password_change(sender, instance, **kwargs):
    """Whatever set it (the change or reset form, the admin, manage.py
    changepassword): a token made with the old password stops working too."""
    if getattr(instance, "_password_changed", False):
        instance._password_changed = False
        for token in ApiToken.objects.filter(user_id=instance.pk, revoked__isnull=True):
            token.revoke()  # one by one: each drops its cached entry
