"""The test suite's settings: the production defaults of settings.py, with
only what the tests need turned on explicitly (a key of their own)."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-key-not-secret-" + "t" * 40)

from .settings import *  # noqa: E402,F403
