"""A long-running process freezes what it started with (runtime.startup): the
web role's ASGI application once built, so a full collection of the garbage
collector walks only what the process made since."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_web_roles_application_freezes_what_it_started_with():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "platform")]),
    }
    env.pop("DATABASE_URL", None)  # SQLite: nothing is opened to build the application
    env.pop("REDIS_URL", None)
    code = (
        "import gc; assert gc.get_freeze_count() == 0; "
        "import config.asgi; print(gc.get_freeze_count(), len(gc.get_objects()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    frozen, tracked = map(int, out.stdout.split()[-2:])
    # Django, the project and its routes: far more than what is still tracked
    assert frozen > 50_000 and tracked < frozen / 10
