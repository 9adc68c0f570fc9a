"""Hook URLs may not reach internal addresses (SSRF): refused at
registration (400 with the reason) and again at delivery (nothing sent),
unless HOOKS_ALLOW_PRIVATE_ADDRESSES is on; a redirect is never followed."""

import http.server
import ipaddress
import threading

import pytest

from hooks import addresses
from hooks.delivery import attempt
from hooks.models import WebhookDelivery, WebhookEndpoint


class Receiver:
    """127.0.0.1: records each POST and answers ``status`` (with ``location``)."""

    def __init__(self, status=200, location=None):
        self.got = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                receiver.got.append(self.rfile.read(int(self.headers["Content-Length"])))
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def private_refused(settings):
    settings.HOOKS_ALLOW_PRIVATE_ADDRESSES = False


INTERNAL = [
    ("http://127.0.0.1:8080/hook", "loopback"),
    ("http://localhost:8080/hook", "loopback"),  # a name resolving to 127.0.0.1
    ("http://[::1]:8080/hook", "loopback"),
    ("http://[::ffff:127.0.0.1]/hook", "loopback"),
    ("http://10.1.2.3/hook", "private"),
    ("http://192.168.0.10/hook", "private"),
    ("http://169.254.169.254/latest/meta-data", "link-local"),
    ("http://224.0.0.1/hook", "multicast"),
    ("http://0.0.0.0:8000/hook", "unspecified"),
    ("http://[fe80::1]/hook", "link-local"),
    ("http://100.64.0.1/hook", "not public"),
]


@pytest.mark.parametrize("url, kind", INTERNAL)
def test_registration_refuses_an_internal_address(
    private_refused, olgas_show, as_user, post, url, kind
):
    olga, record = olgas_show
    resp = post(as_user(olga), f"/api/shows/{record.pk}/webhooks", {"url": url})
    assert resp.status_code == 400, resp.content
    body = resp.json()
    assert body["code"] == "invalid" and "url" in body["fields"]
    assert f"an internal address ({kind})" in body["message"]
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize(
    "url, words",
    [
        ("http://user:pw@93.184.215.14/hook", "user name or password"),
        ("ftp://93.184.215.14/hook", "http:// or https://"),
    ],
)
def test_registration_refuses_credentials_and_other_schemes(
    private_refused, olgas_show, as_user, post, url, words
):
    olga, record = olgas_show
    resp = post(as_user(olga), f"/api/shows/{record.pk}/webhooks", {"url": url})
    assert resp.status_code == 400 and words in resp.json()["message"]
    assert not WebhookEndpoint.objects.exists()


def test_a_public_address_is_registered(private_refused, olgas_show, as_user, post):
    olga, record = olgas_show
    url = "https://93.184.215.14/api/webhooks/1/abc"  # an address literal: no DNS needed
    resp = post(as_user(olga), f"/api/shows/{record.pk}/webhooks", {"url": url})
    assert resp.status_code == 201 and WebhookEndpoint.objects.get().url == url


def _delivery(record, url):
    hook = WebhookEndpoint.objects.create(
        show_stream=record.stream, url=url, kinds=["result"], secret="s" * 64
    )
    return WebhookDelivery.objects.create(
        endpoint=hook, kind="result", stream=record.stream, version=1, body="{}"
    )


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]"])
def test_delivery_refuses_an_internal_address_and_sends_nothing(
    private_refused, olgas_show, receiver, host
):
    """A hook registered before the rule (or whose name now resolves inward)."""
    _, record = olgas_show
    row = _delivery(record, f"http://{host}:{receiver.port}/hook")
    assert attempt(row.pk) is None  # no retry: it would be refused again
    row.refresh_from_db()
    assert row.status == "failed" and row.error.startswith("refused:")
    assert "internal address (loopback)" in row.error
    assert receiver.got == []


def test_with_private_addresses_allowed_the_loopback_receiver_gets_it(olgas_show, receiver):
    _, record = olgas_show
    row = _delivery(record, f"http://localhost:{receiver.port}/hook")
    assert attempt(row.pk) is None
    row.refresh_from_db()
    assert (row.status, row.status_code) == ("delivered", 200) and len(receiver.got) == 1


def test_a_redirect_is_not_followed(olgas_show, receiver):
    _, record = olgas_show
    redirecting = Receiver(status=302, location=f"http://127.0.0.1:{receiver.port}/internal")
    try:
        row = _delivery(record, f"http://127.0.0.1:{redirecting.port}/hook")
        assert attempt(row.pk) is not None  # a failed try, retried later
        row.refresh_from_db()
        assert row.status_code == 302 and "not followed" in row.error
        assert len(redirecting.got) == 1 and receiver.got == []
    finally:
        redirecting.close()


def test_the_checker_names_each_kind_and_passes_public_addresses():
    import ipaddress

    assert addresses.why_internal(ipaddress.ip_address("93.184.215.14")) is None
    assert addresses.why_internal(ipaddress.ip_address("2606:4700::1")) is None
    assert addresses.why_internal(ipaddress.ip_address("::")) == "unspecified"
    assert addresses.why_internal(ipaddress.ip_address("240.0.0.1")) in ("reserved", "private")


@pytest.mark.parametrize(
    "wrapped",
    [
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "2002:a00:1::",  # 6to4 of 10.0.0.1
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo whose client is 127.0.0.1
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "::ffff:127.0.0.1",
    ],
)
def test_an_ipv4_address_wrapped_in_ipv6_is_judged_as_itself(private_refused, wrapped):
    assert addresses.why_internal(ipaddress.ip_address(wrapped)) is not None
    with pytest.raises(addresses.RefusedAddress):
        addresses.target(f"http://[{wrapped}]/")
