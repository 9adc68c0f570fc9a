"""Safe defaults: production settings unless asked otherwise, error pages in
the site's look (never a debug page), a favicon, 405 pages."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import RequestFactory

ROOT = Path(__file__).resolve().parents[2]
SITE = b'class="brand"'  # the site's header


def settings_with(
    env_changes, tmp_path, code="from django.conf import settings; print(settings.DEBUG)"
):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DJANGO_DEBUG", "DJANGO_SECRET_KEY", "DJANGO_SETTINGS_MODULE")
    }
    env.update(VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings", **env_changes)
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={**env, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'platform'}"},
        capture_output=True,
        text=True,
    )


def test_debug_is_off_and_a_key_required_unless_asked(tmp_path):
    bare = settings_with({}, tmp_path)
    assert bare.returncode != 0 and "DJANGO_SECRET_KEY must be set" in bare.stderr
    keyed = settings_with({"DJANGO_SECRET_KEY": "k" * 50}, tmp_path)
    assert keyed.returncode == 0 and keyed.stdout.strip() == "False", keyed.stderr
    debug = settings_with({"DJANGO_DEBUG": "1"}, tmp_path)
    assert debug.returncode == 0 and debug.stdout.strip() == "True", debug.stderr


@pytest.mark.django_db
def test_not_found_is_a_page_in_the_sites_look_without_the_url_list(client):
    resp = client.get("/no/such/page/")
    assert resp.status_code == 404 and SITE in resp.content
    assert b"URLconf" not in resp.content and b"Resolver404" not in resp.content
    resp = client.get("/games/matches/999999/")
    assert resp.status_code == 404 and SITE in resp.content


@pytest.mark.django_db
def test_get_on_a_post_only_url_is_a_405_page(client):
    resp = client.get("/games/matches/1/command")
    assert resp.status_code == 405 and resp["Allow"] == "POST"
    assert SITE in resp.content and b"only takes a form" in resp.content
    # the API keeps answering in JSON
    api = client.get("/api/matches/1/commands")
    assert api.status_code == 405 and api["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_forbidden_and_server_error_pages_in_the_sites_look():
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied
    from django.views.defaults import server_error

    from config.views import forbidden

    request = RequestFactory().get("/somewhere")
    request.user = AnonymousUser()
    resp = forbidden(request, PermissionDenied("only the show's organizer may do that"))
    assert resp.status_code == 403 and SITE in resp.content
    assert b"only the show&#x27;s organizer may do that" in resp.content
    resp = server_error(request)
    assert resp.status_code == 500 and SITE in resp.content and b"Traceback" not in resp.content


@pytest.mark.django_db
def test_a_favicon(client):
    page = client.get("/").content
    assert b'rel="icon"' in page
    resp = client.get("/favicon.ico")
    assert resp.status_code == 301 and resp["Location"].endswith("favicon.svg")
    assert (ROOT / "static" / "favicon.svg").read_text().startswith("<svg")
