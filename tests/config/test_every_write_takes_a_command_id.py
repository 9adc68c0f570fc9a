"""Every write takes a command id (issue #21): each route of the URL
resolver that accepts POST, PUT, PATCH or DELETE (an API view's method, an
HTML view that reads a posted form) reaches the request's command id, and an
API write documents it (a body field, or a query parameter for DELETE). Only
the writes of ALLOWED, each with its reason, may do without.

Whether a view reaches the id is read from its code: the names its bytecode
uses, following the functions and methods of its own module it calls, and
the helpers elsewhere it hands the request to."""

from __future__ import annotations

import re
import types

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.views import APIView

WRITES = ("post", "put", "patch", "delete")

# Django's admin: the superusers' own tool, Django's forms (not the product's writes)
ALLOWED_UNDER = ("admin/",)

# (route, method or "*") -> why a command id makes no sense there
ALLOWED = {
    ("favicon.ico", "*"): "a redirect to the icon: it writes nothing",
    # sessions and the language: repeating them is harmless and writes no record
    # (Django's form views take PUT as POST, hence "*")
    ("accounts/login/", "*"): "logging in opens a session (rate-limited by django-axes)",
    ("accounts/logout/", "*"): "logging out ends the session",
    ("i18n/setlang/", "*"): "the language switcher sets a cookie",
    # Django's password views: each link or form is one use by nature
    ("accounts/password_reset/", "*"): "a reset mail (rate-limited); sending two is harmless",
    ("accounts/password_change/", "*"): "setting a password twice sets it once",
    ("accounts/reset/<uidb64>/<token>/", "*"): "the reset link is a one-use token",
    # a sign-up link is its own key: one use, and the account does not exist yet
    ("console/join/<str:token>/", "post"): "the invitation token is spent once",
    # a signed link is computed from the name: nothing is stored, nothing to repeat
    ("console/invite/", "post"): "the invitation link is signed, not stored",
    # reminders: each sets a state (not an addition), so a repeat writes nothing new
    ("account/reminders/", "post"): "the reminder choices are set, not added",
    ("account/reminders/seen", "post"): "marks every reminder seen",
    ("account/reminders/push", "post"): "this browser's subscription, kept by its endpoint",
    ("account/reminders/push/off", "post"): "removes every browser",
    # a ruling is checked here and written from its confirm page, which carries the id on
    ("shows/<int:pk>/disputes/<int:no>/rule", "post"): "a check: the confirm page writes",
    # the API's catch-all answers 404 to every method: it writes nothing
    ("api/", "*"): "NoSuchEndpoint: a JSON 404",
}


def _routes():
    """(route, callback) for every pattern of the resolver."""

    def walk(patterns, prefix):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern), p.callback

    return list(walk(get_resolver().url_patterns, ""))


def _unwrapped(fn):
    """The view under its decorators, and the HTTP methods they allow (None: any)."""
    allowed = None
    while True:
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if (
                isinstance(value, (list, tuple, set))
                and value
                and all(isinstance(m, str) and m.isupper() for m in value)
            ):
                allowed = {m.lower() for m in value}
        inner = getattr(fn, "__wrapped__", None)
        if inner is None:
            return fn, allowed
        fn = inner


def _reached(fn, owner: type | None = None) -> tuple[set[str], set]:
    """The names and constants the code of ``fn`` uses, and of the functions
    (and ``owner``'s methods) of its module that it reaches."""
    names, consts, seen, todo = set(), set(), set(), [fn]
    while todo:
        f = todo.pop()
        f = getattr(f, "__func__", f)
        if f in seen or not isinstance(f, types.FunctionType):
            continue
        seen.add(f)
        codes = [f.__code__]
        while codes:
            code = codes.pop()
            names |= set(code.co_names)
            for c in code.co_consts:
                if isinstance(c, types.CodeType):
                    codes.append(c)
                elif isinstance(c, str):
                    consts.add(c)
        for n in set(code.co_names) | set(f.__code__.co_names):
            g = f.__globals__.get(n)
            if isinstance(g, types.FunctionType) and (
                g.__module__ == fn.__module__ or _takes_the_request(g)
            ):
                todo.append(g)
            if owner is not None and isinstance(getattr(owner, n, None), types.FunctionType):
                todo.append(getattr(owner, n))
    return names, consts


def _takes_the_request(fn) -> bool:
    """A view's helper in another module: its first parameter is the request."""
    code = fn.__code__
    return code.co_argcount > 0 and code.co_varnames[0] == "request"


def _takes_command_id(fn, owner=None) -> bool:
    names, consts = _reached(fn, owner)
    return "command_args" in names or "command_id" in consts


def _reads_a_form(fn) -> bool:
    names, consts = _reached(fn)
    return "POST" in names or "POST" in consts


def _writes():
    """(route, method, view function, its class or None) of every write."""
    out = []
    for route, callback in _routes():
        cls = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        if cls is not None:
            for m in WRITES:
                if hasattr(cls, m) and m in cls.http_method_names:
                    out.append((route, m, getattr(cls, m), cls))
            continue
        fn, allowed = _unwrapped(callback)
        if allowed is not None:
            out += [(route, m, fn, None) for m in WRITES if m in allowed]
        elif _reads_a_form(fn):
            out.append((route, "post", fn, None))
    return out


def _allowed(route: str, method: str) -> bool:
    return route.startswith(ALLOWED_UNDER) or {(route, method), (route, "*")} & ALLOWED.keys()


def test_the_walk_finds_the_writes_it_must():
    """The enumeration itself: known writes of each kind are found (so an
    empty or broken walk cannot pass the test below)."""
    found = {(route, m) for route, m, _, _ in _writes()}
    for write in [
        ("api/matches/<int:pk>/commands", "post"),  # an API view
        ("api/shows/<int:pk>/webhooks/<int:hook_id>", "delete"),
        ("shows/<int:pk>/dashboard/act", "post"),  # @require_POST
        ("console/shows/new/", "post"),  # a view that reads its form
        ("account/tokens/", "post"),
    ]:
        assert write in found, write


def test_every_write_takes_a_command_id():
    missing = [
        f"{method.upper()} /{route}"
        for route, method, fn, cls in _writes()
        if not _allowed(route, method) and not _takes_command_id(fn, cls)
    ]
    assert missing == [], "these writes take no command id:\n" + "\n".join(missing)


@pytest.fixture(scope="module")
def schema():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _documents_command_id(schema, operation) -> bool:
    if any(p.get("name") == "command_id" for p in operation.get("parameters", [])):
        return True
    for content in operation.get("requestBody", {}).get("content", {}).values():
        ref = content["schema"].get("$ref", "")
        body = schema["components"]["schemas"].get(ref.rsplit("/", 1)[-1], content["schema"])
        if "command_id" in body.get("properties", {}):
            return True
    return False


def test_every_api_write_documents_its_command_id(schema):
    missing = []
    for route, method, _fn, cls in _writes():
        if cls is None or not issubclass(cls, APIView) or _allowed(route, method):
            continue
        # the schema's names: <int:pk> is {id}, <str:invitation_id> {invitation_id}
        path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route).replace("{pk}", "{id}")
        operation = schema["paths"][path][method]
        if not _documents_command_id(schema, operation):
            missing.append(f"{method.upper()} {path}")
    assert missing == [], "the API documents no command_id for:\n" + "\n".join(missing)
