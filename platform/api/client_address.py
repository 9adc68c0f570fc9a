"""The address a request came from, for the limits per address (the API's
and the forms' throttles, password-reset mails, the login lockout).

The connection's own address, unless it is one of settings.TRUSTED_PROXIES
(addresses or networks of the reverse proxies in front of the site): then
X-Forwarded-For is read from its right end, each trusted proxy's entry
skipped, and the first other address is the client's. A client writes any
X-Forwarded-For it likes, so it is never read from anyone else (DRF's own
``get_ident`` reads it from anybody: a new header each time was a new address)."""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@lru_cache(maxsize=8)
def _networks(
    trusted: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(t, strict=False) for t in trusted)


def _address(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.strip().split("%", 1)[0])
    except ValueError:
        return None


def _trusted(ip: Address | None) -> bool:
    networks = _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ())))
    return ip is not None and any(ip in net for net in networks)


def client_address(request) -> str:
    """The client's address as text ('' when the server gave none)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    if not _trusted(_address(remote)):
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    for entry in reversed(forwarded.split(",")):
        ip = _address(entry)
        if ip is None:  # unreadable where a trusted proxy writes: count the proxy
            return remote
        if not _trusted(ip):
            return str(ip)
    return remote
