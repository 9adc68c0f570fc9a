"""Where a webhook may point (SSRF): http or https, no credentials in the
URL, and a host that resolves only to public addresses (no loopback,
private, link-local, multicast, reserved or unspecified one), checked when
a hook is registered and again at each delivery, which connects to the
address it checked. Settings' HOOKS_ALLOW_PRIVATE_ADDRESSES (default off)
lifts the address rule, e.g. for a receiver on loopback in the tests."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings


class RefusedAddress(ValueError):
    """A webhook URL that may not be used; the message says why."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str  # with the query
    ip: str  # the address checked, to connect to


def allow_private() -> bool:
    return bool(getattr(settings, "HOOKS_ALLOW_PRIVATE_ADDRESSES", False))


def _parse(url: str) -> tuple[str, str, int, str]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise RefusedAddress("a webhook URL starts with http:// or https://")
    if parts.username is not None or parts.password is not None:
        raise RefusedAddress("a webhook URL may not carry a user name or password")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise RefusedAddress("the webhook URL's port is not a number from 0 to 65535") from None
    if not parts.hostname:
        raise RefusedAddress("a webhook URL names a host")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, parts.hostname, port, path


def why_internal(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """The kind of internal address ``ip`` is, or None for a public one."""
    if isinstance(ip, ipaddress.IPv6Address):
        # an IPv4 address inside an IPv6 one (mapped, 6to4, Teredo, NAT64) is judged as itself
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is None and ip in ipaddress.IPv6Network("64:ff9b::/96"):
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None:
            kind = why_internal(inner)
            if kind:
                return kind
    for kind in ("loopback", "unspecified", "link_local", "multicast", "private", "reserved"):
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    return None if ip.is_global else "not public"


def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise RefusedAddress(f"the webhook's host {host} does not resolve") from None
    return list(dict.fromkeys(info[4][0] for info in infos))


def target(url: str) -> Target:
    """Where to connect for ``url``: RefusedAddress unless every address the
    host resolves to is public (or private ones are allowed)."""
    scheme, host, port, path = _parse(url)
    ips = _resolve(host, port)
    if not allow_private():
        for ip in ips:
            kind = why_internal(ipaddress.ip_address(ip.split("%", 1)[0]))
            if kind:
                raise RefusedAddress(
                    f"the webhook's host {host} is {ip}, an internal address ({kind}): "
                    "a webhook must reach a public address"
                )
    return Target(scheme, host, port, path, ips[0])


def check_registration(url: str) -> None:
    """At registration: the URL's shape always, its addresses unless allowed."""
    _parse(url)
    if not allow_private():
        target(url)
