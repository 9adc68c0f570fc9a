"""Static files are served compressed: collectstatic writes a gzip copy of
each text file, and WhiteNoise sends it to a browser that accepts gzip."""

import gzip

from django.core.management import call_command
from django.test import RequestFactory
from whitenoise.middleware import WhiteNoiseMiddleware


def test_collectstatic_compresses_and_whitenoise_serves_gzip(tmp_path, settings):
    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", "--noinput", verbosity=0)
    htmx = tmp_path / "django_htmx" / "htmx-2.min.js"
    packed = htmx.with_name(htmx.name + ".gz")
    assert packed.exists() and packed.stat().st_size < htmx.stat().st_size / 2
    assert gzip.decompress(packed.read_bytes()) == htmx.read_bytes()
    assert (tmp_path / "js" / "table_craft.js.gz").exists()

    middleware = WhiteNoiseMiddleware(lambda request: None)
    request = RequestFactory().get(
        f"{settings.STATIC_URL}django_htmx/htmx-2.min.js", HTTP_ACCEPT_ENCODING="gzip, br"
    )
    response = middleware(request)
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert int(response["Content-Length"]) == packed.stat().st_size
