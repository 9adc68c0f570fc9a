import json
import platform

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from eventlog.models import StoredEvent
from eventlog.store import NewEvent, append


def test_platform_module_is_the_standard_library():
    assert platform.system.__module__ == "platform"
    assert "site-packages" not in (platform.__file__ or "")
    assert platform.__file__.endswith("platform.py")


@pytest.mark.django_db
def test_healthz_reports_database_and_broker(client):
    resp = client.get("/healthz")
    assert resp.status_code == 200
    body = json.loads(resp.content)
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True


@pytest.mark.django_db
def test_home_page_lists_games(client):
    resp = client.get("/")
    assert resp.status_code == 200
    assert b"Showtable" in resp.content


@pytest.mark.django_db
def test_admin_event_log_is_read_only(client):
    admin = User.objects.create_superuser("root", "r@example.org", "pw-123456")
    client.force_login(admin)
    (row,) = append("adm-1", 0, [NewEvent("thing_happened", {"x": 1})])
    changelist = reverse("admin:eventlog_storedevent_changelist")
    assert client.get(changelist).status_code == 200
    assert client.get(reverse("admin:eventlog_storedevent_add")).status_code == 403
    resp = client.post(reverse("admin:eventlog_storedevent_delete", args=[row.pk]), {"post": "yes"})
    assert resp.status_code == 403
    assert StoredEvent.objects.filter(pk=row.pk).exists()


def test_settings_refuse_production_without_a_secret_key(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    # the browser tests switch async safety off for their session: not for this process
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DJANGO_SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE")
    }
    env.update(DJANGO_DEBUG="0", VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings")
    proc = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=root, env=env, capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in proc.stderr
    # this machine's own key, made by `make install` in VAR_DIR, is used when present
    (tmp_path / "secret_key").write_text("k" * 50 + "\n")
    proc = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from django.conf import settings as s; print(s.SECRET_KEY)",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "k" * 50, proc.stderr
    (tmp_path / "secret_key").unlink()
    env["DJANGO_SECRET_KEY"] = "x" * 50
    env["DJANGO_ALLOWED_HOSTS"] = "shows.example.org"
    proc = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
