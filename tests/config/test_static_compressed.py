"""Static files as production serves them: collectstatic writes each file
under a name carrying its content's hash, with a gzip and a brotli copy of
each text file; pages link the hashed names, which WhiteNoise serves cached
for a year (immutable) and compressed as the browser accepts. Every file a
template links exists, so the manifest never misses one (a 500 in production)."""

import gzip
import re
from pathlib import Path

import brotli
import pytest
from django.conf import settings as django_settings
from django.contrib.staticfiles import finders
from django.core.files.storage import storages
from django.core.management import call_command
from django.template import Context, Template
from django.test import RequestFactory
from whitenoise.middleware import WhiteNoiseMiddleware

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = "whitenoise.storage.CompressedManifestStaticFilesStorage"


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """One collectstatic with production's storage for the module."""
    from django.test.utils import override_settings

    root = tmp_path_factory.mktemp("static")
    storages_ = {**django_settings.STORAGES, "staticfiles": {"BACKEND": PRODUCTION}}
    with override_settings(STATIC_ROOT=root, STORAGES=storages_):
        storages._storages.pop("staticfiles", None)
        # the project's own files and htmx (the libraries' bundles only cost time here)
        ignore = ["admin", "rest_framework", "drf_spectacular_sidecar"]
        call_command("collectstatic", "--noinput", verbosity=0, ignore_patterns=ignore)
        storages._storages.pop("staticfiles", None)
        yield root
    storages._storages.pop("staticfiles", None)


def _serve(path: str, encodings: str):
    middleware = WhiteNoiseMiddleware(lambda request: None)
    return middleware(RequestFactory().get(path, HTTP_ACCEPT_ENCODING=encodings))


def test_pages_link_hashed_names_served_for_a_year_in_brotli_or_gzip(collected):
    link = Template("{% load static %}{% static 'js/table_craft.js' %}").render(Context())
    assert re.fullmatch(r"/static/js/table_craft\.[0-9a-f]{12}\.js", link), link
    hashed = collected / link.removeprefix("/static/")
    assert hashed.read_bytes() == (ROOT / "static/js/table_craft.js").read_bytes()
    assert (
        brotli.decompress(hashed.with_name(hashed.name + ".br").read_bytes()) == hashed.read_bytes()
    )
    assert (
        gzip.decompress(hashed.with_name(hashed.name + ".gz").read_bytes()) == hashed.read_bytes()
    )

    answer = _serve(link, "gzip, br")
    assert answer.status_code == 200 and answer["Content-Encoding"] == "br"
    assert "max-age=315360000" in answer["Cache-Control"] and "immutable" in answer["Cache-Control"]
    assert _serve(link, "gzip")["Content-Encoding"] == "gzip"
    # the plain name still answers (a page cached from before a deploy), briefly cached
    plain = _serve("/static/js/table_craft.js", "br")
    assert plain.status_code == 200 and "immutable" not in plain["Cache-Control"]


def test_every_static_file_a_template_links_exists():
    linked = set()
    for template in (ROOT / "templates").rglob("*.html"):
        linked |= set(re.findall(r"""{%\s*static\s+['"]([^'"]+)['"]""", template.read_text()))
    assert "css/site.css" in linked
    missing = sorted(name for name in linked if not finders.find(name))
    assert not missing, f"templates link static files that do not exist: {missing}"
