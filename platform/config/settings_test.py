"""The test suite's settings: the production defaults of settings.py, with
only what the tests need turned on explicitly (a key of their own)."""

import os

from django.conf import global_settings

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-key-not-secret-" + "t" * 40)

from .settings import *  # noqa: E402,F403

# the webhook tests' receivers listen on 127.0.0.1 (tests/api/test_hook_addresses.py turns it off)
HOOKS_ALLOW_PRIVATE_ADDRESSES = True

# tests log in with client.login() (no request): the lockout is tested on its own
# (tests/config/test_login_lockout.py turns it on)
AXES_ENABLED = False

# accounts made by the tests hash their passwords fast (production keeps
# Django's PBKDF2: about 0.4 s a password here, paid by every user a test makes)
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    *global_settings.PASSWORD_HASHERS,
]

# the tests run no collectstatic, so pages link the plain names (served by the
# finders); tests/config/test_static_compressed.py runs production's hashed storage
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# the tests' accounts are made a moment before they chat: no new account's wait
# (tests/chat/test_limits.py sets it back and plays it)
CHAT_NEW_ACCOUNT_WAIT_S = 0

# a socket's database work on the one sync thread, as Channels does by default
# (production spreads it over a pool: live/pool.py says why the tests do not)
LIVE_SOCKET_THREADS = False

# each xdist worker its own channel-layer names (pub/sub channels are the Redis
# server's): match and show ids repeat across the workers' databases, and a
# socket of one worker's test must not hear another's groups
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER and "CONFIG" in CHANNEL_LAYERS["default"]:  # noqa: F405
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] += f"{_WORKER}-"  # noqa: F405
