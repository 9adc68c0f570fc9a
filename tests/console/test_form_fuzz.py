"""Every HTML form of the site fuzzed the way schemathesis fuzzes the API.

FORMS lists, by its route in the URLconf, each view a form posts to (or a GET
form reads), the user it is meant for and a valid body; PAGES lists every
other route with what it is. A route in neither fails the inventory test, so
a new form cannot go unfuzzed. Each form gets hypothesis-made bodies: its
valid one with fields swapped for hostile values (huge numbers, 1e308,
Unicode digits, NUL, lone surrogates and bytes that are no UTF-8, line
breaks, very long strings, odd time zones, dates in the years 9999 and
10000, empty and missing fields) and odd fields added. Never a 500; a
refusal (a 4xx, the form again with an error, or an error message after a
redirect) writes nothing: no event, no row of any table changed. Sized to
run in a few seconds a form."""

import hashlib
import random
import time
from dataclasses import dataclass, field
from urllib.parse import quote_from_bytes

import pytest
from django.apps import apps
from django.contrib import messages
from django.contrib.auth.models import Permission, User
from django.contrib.auth.tokens import default_token_generator
from django.contrib.sessions.models import Session
from django.db import connection
from django.forms import BaseForm
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.models import ApiToken
from eventlog.models import StoredEvent
from games import services as match_services
from games.models import Match
from tests.helpers.brackets import checking_in
from tournaments import invitations, shows
from tournaments import show_services as ss
from tournaments.models import ShowRecord, ShowTemplate

from .test_schedule_console import FUTURE, show_fields

FIELDS = [
    "name", "players", "bots", "bot_kind", "rounds", "game_pool", "game_pick",
    "death_match_first_to", "final_game", "final_first_to", "candidates_per_round",
    "candidate_rule", "step_deadline_s", "spectator_delay_s", "spectator_policy", "rated",
    "order", "game", "format", "entrants", "first_to", "swiss_rounds", "seats", "options",
    "title", "username", "password", "password1", "password2", "action", "match", "version",
    "text", "dispute_id", "ruling", "winner", "seat", "seconds", "entrant", "item", "scope",
    "reason", "control", "card", "target", "ranking", "confirm", "confirmed", "step", "new",
    "out", "in", "holder", "to", "item_id", "switch", "candidate", "registration", "cap",
    "check_in_s", "show", "starts_at", "time_zone", "weekday", "start_time", "announce_days",
    "moderators", "command_id", "type", "candidates", "language", "next", "email",
    "old_password", "new_password1", "new_password2", "starts", "ends", "season", "a", "b",
    "v", "at_version", "table_version", "kind", "actor", "endpoint", "keys", "check_in_open",
    "choice", "message", "user", "length", "from", "before", "after", "unblock",
]  # fmt: skip
# one of each kind, swept through every field of every form
HOSTILE = [
    str(2**70), "1e308", "-1", "٣", "٢٠٢٧-٠١-١٥T20:30", "9999-12-31T23:59", "10000-01-01T00:00",
    "24:00", "localtime", "Factory", "Etc/GMT+12", "\x00", "a\nb", "x\u2028y", "",
]  # fmt: skip
SWEPT = [v.encode() for v in HOSTILE] + [b"\xed\xa0\x80", b"\xff\xfe", b"x" * 10_000, b"9" * 5_000]
# more of each kind, and values the forms know, for hypothesis to combine
MORE = [
    "2" * 22, str(2**63), "-1e308", "inf", "nan", "0", "١٢", "٢٠:٣٠", "0001-01-01T00:00",
    "9999-12-31", "23:59:60", f"{FUTURE}T20:30", f"{FUTURE}T20:30\x00", "2027-03-28T02:30",
    "posixrules", "Etc/GMT-14", "right/UTC", "../../etc/passwd", "a\x00b", "\r\n", "\u202e",
    "d-1", "void_to", "adjust_clock", "add_time", "rule_dispute", "claim_dispute", "grant_item",
    "ana", "ben", "olga", "mia", "love-me-not", "single", "swiss", "bot:random", "on", "yes",
    "fr", "en",
]  # fmt: skip
raw_values = (
    st.sampled_from(SWEPT + [v.encode() for v in MORE])
    | st.binary(max_size=12)
    | st.text(max_size=20).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
FUZZ = settings(
    max_examples=12,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@dataclass
class Form:
    """A form as its user sends it: where, as whom, and a valid body to start from."""

    path: str  # formatted with the world's ids: {show}, {scheduled}, {final}, ...
    role: str  # organizer, moderator, player, other, anonymous
    body: dict = field(default_factory=dict)
    method: str = "post"
    prime: str = ""  # a page fetched first (a reset link puts its token in the session)


RULE = {"ruling": "void_to", "version": "1", "reason": "fuzz"}
FORMS = {
    # accounts
    "accounts/login/": [Form("/accounts/login/", "anonymous", {"username": "olga", "password": "x"})],
    "accounts/logout/": [Form("/accounts/logout/", "player")],
    "accounts/password_reset/": [
        Form("/accounts/password_reset/", "anonymous", {"email": "pat@example.com"})
    ],
    "accounts/password_change/": [
        Form(
            "/accounts/password_change/",
            "player",
            {"old_password": "pw-pat-123", "new_password1": "x", "new_password2": "x"},
        )
    ],
    "accounts/reset/<uidb64>/<token>/": [
        Form(
            "/accounts/reset/{uid}/set-password/",
            "anonymous",
            {"new_password1": "a-long-one-42", "new_password2": "a-long-one-42"},
            prime="/accounts/reset/{uid}/{reset_token}/",
        )
    ],
    "i18n/setlang/": [Form("/i18n/setlang/", "anonymous", {"language": "fr", "next": "/"})],
    "console/join/<str:token>/": [
        Form(
            "/console/join/{join_token}/",
            "anonymous",
            {"username": "newcomer", "password1": "a-long-one-42", "password2": "a-long-one-42"},
        )
    ],
    "account/reminders/": [
        Form(
            "/account/reminders/",
            "player",
            {"time_zone": "Europe/Paris", "your_turn": "email"},
            prime="/account/reminders/",  # the page makes the player's settings row
        )
    ],
    "account/reminders/seen": [Form("/account/reminders/seen", "player")],
    "account/reminders/push": [
        Form("/account/reminders/push", "player", {"endpoint": "https://127.0.0.1/push"})
    ],
    "account/reminders/push/off": [Form("/account/reminders/push/off", "player")],
    "account/reminders/calendar/new": [Form("/account/reminders/calendar/new", "player")],
    "account/tokens/": [Form("/account/tokens/", "player", {"name": "laptop"})],
    "account/tokens/<int:pk>/revoke": [Form("/account/tokens/{token}/revoke", "player")],
    # the console
    "console/shows/new/": [Form("/console/shows/new/", "organizer", show_fields(bots=1, players="{pat}"))],
    "console/shows/scheduled/new/": [
        Form(
            "/console/shows/scheduled/new/",
            "organizer",
            show_fields(players="{pat}", starts_at=f"{FUTURE}T20:30", time_zone="Europe/Paris"),
        )
    ],
    "console/shows/<int:pk>/template": [
        Form("/console/shows/{show}/template", "organizer", {"name": "Again"})
    ],
    "console/templates/": [
        Form("/console/templates/", "organizer", show_fields(moderators="mia", rounds="R1"))
    ],
    "console/templates/<int:pk>/show": [
        Form(
            "/console/templates/{template}/show",
            "organizer",
            {"starts_at": f"{FUTURE}T20:30", "time_zone": "Europe/Paris"},
        )
    ],
    "console/templates/<int:pk>/recurrence": [
        Form(
            "/console/templates/{template}/recurrence",
            "organizer",
            {"weekday": "4", "start_time": "20:30", "time_zone": "UTC", "announce_days": "2"},
        )
    ],
    "console/shows/<int:pk>/autopilot": [Form("/console/shows/{show}/autopilot", "organizer")],
    "console/shows/<int:pk>/<slug:kind>": [
        Form(f"/console/shows/{{show}}/{kind}", "organizer", body)
        for kind, body in [
            ("ranking", {"place_1": "ana", "place_2": "ben"}),
            ("pick_game", {"game": "love-me-not"}),
            ("add_round", {"title": "Extra"}),
            ("reorder", {"order": "1\n2"}),
            ("appoint", {"username": "olaf"}),
            ("remove", {"username": "mia"}),
            ("substitute", {"out": "ben", "new": "olaf"}),
            ("extend", {"step": "final", "seconds": "60"}),
        ]
    ],
    # a bracket's check-in before its draw: its entrant's person, its organizer
    "shows/brackets/<int:pk>/check-in/": [Form("/shows/brackets/{bracket}/check-in/", "player")],
    "shows/brackets/<int:pk>/draw/": [Form("/shows/brackets/{bracket}/draw/", "organizer")],
    "console/brackets/new/": [
        Form(
            "/console/brackets/new/",
            "organizer",
            {"name": "B", "game": "love-me-not", "format": "single", "entrants": "a\nb"},
        )
    ],
    "console/matches/new/": [
        Form(
            "/console/matches/new/",
            "organizer",
            {"game": "love-me-not", "seats": "a\nb", "spectator_delay_s": "0"},
        )
    ],
    "console/invite/": [Form("/console/invite/", "organizer", {"username": "newbie"})],
    # the show page, the table, the dashboard, disputes and rulings
    "shows/<int:pk>/decide/": [Form("/shows/{show}/decide/", "player", {"type": "ranking"})],
    **{
        f"shows/<int:pk>/{kind}/": [Form(f"/shows/{{scheduled}}/{kind}/", role)]
        for kind, role in [
            ("register", "other"),
            ("withdraw", "player"),
            ("check_in", "player"),
            ("ready", "player"),
        ]
    },
    "games/matches/<int:pk>/command": [
        Form("/games/matches/{final}/command", "player", {"control": "play", "card": "1"}),
        Form("/games/matches/{lone}/command", "player", {"control": "play", "card": "1"}),
        # the resign button's confirmed step (a two-player match: it ends it)
        Form("/games/matches/{lone}/command", "player", {"control": "resign", "confirm": "yes"}),
    ],
    "shows/<int:pk>/dashboard/act": [
        Form("/shows/{show}/dashboard/act", "moderator", body)
        for body in [
            {"action": "grant_item", "entrant": "ana", "item": "plus_one", "reason": "fuzz"},
            {"action": "add_time", "match": "{final}", "seconds": "30", "reason": "fuzz"},
            {"action": "rule_dispute", "dispute_id": "d-1", **RULE},
            {"action": "claim_dispute", "dispute_id": "d-1"},
        ]
    ],
    "shows/<int:pk>/disputes/<int:no>/rule": [
        Form("/shows/{show}/disputes/1/rule", "moderator", RULE),
        Form("/shows/{show}/disputes/1/rule", "moderator", RULE, method="get"),
    ],
    "shows/<int:pk>/disputes/file": [
        Form(
            "/shows/{show}/disputes/file?match={final}",
            "player",
            {"match": "{final}", "version": "1", "text": "a card went missing"},
        )
    ],
    "shows/disputes/file/<int:match_pk>": [
        Form("/shows/disputes/file/{final}", "player", {"version": "1", "text": "missing"})
    ],
    "shows/<int:pk>/dashboard/": [
        Form("/shows/{show}/dashboard/", "moderator", {"kind": "", "actor": ""}, method="get")
    ],
    "shows/<int:pk>/overlays/": [
        Form("/shows/{show}/overlays/", "organizer"),
        Form(
            "/shows/{show}/overlays/",
            "organizer",
            {"kind": "hands", "position": "top-right", "panel": "light", "accent": "red", "size": "l", "seats": "1,2"},
            method="get",
        ),
    ],
    "shows/<int:pk>/overlays/preview/<slug:kind>/": [
        Form(
            "/shows/{show}/overlays/preview/featured/",
            "organizer",
            {"position": "bottom", "panel": "gold", "accent": "blue", "size": "s", "seats": "2"},
            method="get",
        )
    ],
    # ratings and replays: forms that read
    "players/seasons/": [
        Form("/players/seasons/", "organizer", {"name": "S1", "starts": "2027-01-01", "ends": "2027-02-01"})
    ],
    "players/head-to-head/": [
        Form("/players/head-to-head/", "anonymous", {"a": "ana", "b": "ben"}, method="get")
    ],
    # the player search's suggestions (a JSON answer, rate-limited)
    "players/search": [Form("/players/search", "anonymous", {"q": "pl"}, method="get")],
    "players/leaderboards/<slug:game>/": [
        Form("/players/leaderboards/love-me-not/", "anonymous", {"season": "1"}, method="get")
    ],
    "games/matches/<int:pk>/replay/": [
        Form("/games/matches/{lone}/replay/", "player", {"v": "1", "spoilers": "off"}, method="get")
    ],
    "games/matches/<int:pk>/": [
        Form("/games/matches/{lone}/", "player", {"at_version": "1", "v": "1"}, method="get")
    ],
    # a moderator opens a live show match with every card (the show's audit records it)
    "games/practice/": [
        Form("/games/practice/", "player", {"choice": "love-letter level:2", "rated": "on"})
    ],
    "games/matches/<int:pk>/open": [Form("/games/matches/{final}/open", "moderator", {})],
    "games/matches/<int:pk>/no-show": [
        Form("/games/matches/{final}/no-show", "moderator", {"seat": "ana", "reason": "late"})
    ],
    # the chat (chat/): a room's messages, a message, a report, a moderator's acts, a block
    "chat/rooms/<str:name>/messages": [
        Form("/chat/rooms/m{lone}-players/messages", "player", {"after": "0", "before": "9", "from": "1"}, method="get")
    ],
    "chat/rooms/<str:name>/post": [
        Form("/chat/rooms/m{lone}-players/post", "player", {"text": "hello", "next": "/"}),
        Form("/chat/rooms/s{show}-staff/post", "moderator", {"text": "hello", "next": "/"}),
    ],
    "chat/rooms/<str:name>/hide": [
        Form("/chat/rooms/s{show}-show/hide", "moderator", {"message": "1", "reason": "fuzz"})
    ],
    "chat/rooms/<str:name>/report": [
        Form("/chat/rooms/s{show}-show/report", "player", {"message": "1", "reason": "fuzz", "next": "/"})
    ],
    "chat/rooms/<str:name>/timeout": [
        Form("/chat/rooms/s{show}-show/timeout", "moderator", {"user": "{pat}", "length": "5m"})
    ],
    "chat/rooms/<str:name>/slow": [
        Form("/chat/rooms/s{show}-show/slow", "organizer", {"seconds": "5"})
    ],
    "chat/rooms/<str:name>/close": [Form("/chat/rooms/s{show}-show/close", "moderator", {})],
    "chat/rooms/<str:name>/open": [Form("/chat/rooms/s{show}-show/open", "moderator", {})],
    "chat/shows/<int:pk>/words": [
        Form("/chat/shows/{show}/words", "organizer", {"words": "bad\nworse", "next": "/"})
    ],
    "chat/block": [Form("/chat/block", "player", {"user": "{pat}", "unblock": "1"})],
}  # fmt: skip

# every other route, and what it is (no form writes or reads through it)
PAGES = {
    "": "the home page",
    "home/": "a player's own home (matches, shows, ratings)",
    "healthz": "the health probe",
    "favicon.ico": "a redirect to the icon",
    "accounts/password_change/done/": "a page saying so",
    "accounts/password_reset/done/": "a page saying so",
    "accounts/reset/done/": "a page saying so",
    "shows/<int:pk>/board/": "the show board",
    "shows/<int:pk>/tv/": "the TV page",
    "tv/": "TV's top-rated channel",
    "tv/games/<slug:game>/": "TV's channel of a game",
    "overlay/<str:token>/<slug:kind>/": "a stream overlay",
    "games/matches/<int:pk>/viewers/": "the viewer count",
    "console/": "the console's lists",
    "console/templates/<int:pk>/": "a template's page (its forms post elsewhere)",
    "console/shows/<int:pk>/": "a show's console (its forms post to its steps)",
    "games/": "the games",
    "games/your-turn/": "the your-turn badge",
    "games/rules/<slug:slug>/": "a game's rules",
    "shows/": "the list of shows",
    "shows/<int:pk>/": "a show's page (its forms post to decide and to its actions)",
    "shows/brackets/<int:pk>/": "a bracket",
    "shows/<int:pk>/calendar.ics": "a show's calendar",
    "shows/dashboards/": "the moderator's list of dashboards",
    "shows/<int:pk>/dashboard/live": "the dashboard's live part",
    "players/": "ratings (its head-to-head form reads /players/head-to-head/)",
    "players/bots/<str:kind>/": "a bot's profile",
    "players/<str:ref>/": "a player's profile",
    "account/reminders/badge": "the reminders' badge",
    "account/reminders/calendar/<str:token>.ics": "a player's calendar",
    "sw.js": "the service worker",
    "api/schema/": "the API's schema",
    "api/docs/": "the API's docs page",
    "^docs/(?P<path>.*)$": "the manual's built pages (files, GET only)",
}
FUZZED_ELSEWHERE = ("admin/", "api/")  # Django's admin; the API (schemathesis, test_schemathesis)


def _routes() -> list[str]:
    def walk(patterns, prefix):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern)

    return list(dict.fromkeys(walk(get_resolver().url_patterns, "")))


def test_every_route_is_a_fuzzed_form_or_a_listed_page():
    routes = [r for r in _routes() if r in PAGES or not r.startswith(FUZZED_ELSEWHERE)]
    unlisted = [r for r in routes if r not in FORMS and r not in PAGES]
    assert not unlisted, "list each in FORMS (a form: fuzzed) or PAGES (what it is):\n" + "\n".join(
        unlisted
    )
    gone = (set(FORMS) | set(PAGES)) - set(routes)
    assert not gone, f"no such route any more: {sorted(gone)}"


@pytest.fixture(autouse=True)
def language_restored():
    """A fuzzed post may switch to French (the language switcher, a cookie):
    the tests after this one get the language they had."""
    with translation.override(translation.get_language()):
        yield


@pytest.fixture
def world(db, settings):
    settings.RATELIMIT_ENABLE = False
    olga = User.objects.create_user("olga", "olga@example.com", "pw-olga-123")
    olga.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_match", "add_showrecord"])
    )
    mia = User.objects.create_user("mia", "mia@example.com")
    pat = User.objects.create_user("pat", "pat@example.com", "pw-pat-123")
    other = User.objects.create_user("olaf")
    stream = ss.create_show(
        name="Fuzzed",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=["ana", "ben"],
        holders={"ana": pat.pk, "ben": "bot:random"},
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
        rng=random.Random(1),
    )
    organizer = ss.Acting("olga", shows.ORGANIZER, olga.pk)
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, organizer)
    final = Match.objects.get(show_stream=stream)
    ss.command(
        stream,
        {"type": "file_dispute", "target_stream": final.stream, "target_version": 1, "text": "?"},
        ss.Acting("mia", shows.MODERATOR, mia.pk),
    )
    scheduled = ss.create_show(
        name="Later",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=[],
        options={"registration": "open", "check_in_s": 600},
        starts_at=time.time() + 3600,
    )
    ss.register(scheduled, pat)
    lone = match_services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": pat.pk}, rng=random.Random(2)
    )
    late = checking_in(pat, olga.pk)
    token, _secret = ApiToken.issue(pat, "phone")
    ids = {
        "bracket": late.pk,
        "show": ShowRecord.objects.get(stream=stream).pk,
        "scheduled": ShowRecord.objects.get(stream=scheduled).pk,
        "final": final.pk,
        "lone": lone.pk,
        "pat": pat.pk,
        "template": ShowTemplate.objects.create(organizer=olga, name="Cup", options={}).pk,
        "token": token.pk,
        "join_token": invitations.account_token("newcomer", olga.pk),
        "uid": urlsafe_base64_encode(force_bytes(pat.pk)),
        "reset_token": default_token_generator.make_token(pat),
    }
    roles = {"organizer": olga, "moderator": mia, "player": pat, "other": other}
    return {"roles": roles, "ids": ids}


def encoded(pairs) -> bytes:
    """An x-www-form-urlencoded body (or query), bytes as a browser (or an attacker) sends them."""
    return "&".join(f"{quote_from_bytes(k)}={quote_from_bytes(v)}" for k, v in pairs).encode()


@st.composite
def bodies(draw, base: dict, ids: dict):
    """The valid body with a few fields hostile or missing, and odd ones added."""
    keys = list(base)
    changed = draw(st.lists(st.sampled_from(keys), max_size=3, unique=True)) if keys else []
    pairs = []
    for key, value in base.items():
        values = value if isinstance(value, list) else [value]
        if key in changed:
            values = draw(
                st.sampled_from([[], [b""], [draw(raw_values)]])
            )  # missing, empty, hostile
        pairs += [
            (key.encode(), v if isinstance(v, bytes) else str(v).format(**ids).encode())
            for v in values
        ]
    extra = st.tuples(st.sampled_from(FIELDS).map(str.encode), raw_values)
    return pairs + draw(st.lists(extra, max_size=2))


def rows() -> str:
    """A digest of every row of every table but the sessions' (raw SQL: it runs twice a post)."""
    digest = hashlib.sha256()
    with connection.cursor() as cursor:
        for model in apps.get_models():
            if model is Session or model._meta.proxy or not model._meta.managed:
                continue
            table = connection.ops.quote_name(model._meta.db_table)
            cursor.execute(f"SELECT * FROM {table} ORDER BY 1")  # noqa: S608 (a model's table)
            digest.update(repr(cursor.fetchall()).encode())
    return digest.hexdigest()


def _forms_in(context) -> list[BaseForm]:
    if context is None:
        return []
    return [v for c in context for v in c.flatten().values() if isinstance(v, BaseForm)]


def refused(response) -> bool:
    """A 4xx, the form again with its errors, or an error told after a redirect."""
    if 400 <= response.status_code < 500:
        return True
    told = messages.get_messages(response.wsgi_request)
    if any(m.level >= messages.ERROR for m in told):
        return True
    return response.status_code == 200 and any(
        f.is_bound and f.errors for f in _forms_in(response.context)
    )


CASES = [(route, n) for route, forms in FORMS.items() for n in range(len(forms))]


def send(client, form: Form, path: str, pairs) -> None:
    """One post (or query) of the form: never a 500, and a refusal writes nothing."""
    before, events = rows(), StoredEvent.objects.count()
    if form.method == "get":
        sep = "&" if "?" in path else "?"
        response = client.get(f"{path}{sep}{encoded(pairs).decode()}")
    else:
        response = client.post(
            path, encoded(pairs), content_type="application/x-www-form-urlencoded"
        )
    assert response.status_code < 500, (path, pairs, response.status_code)
    if refused(response):
        assert StoredEvent.objects.count() == events, (path, pairs)
        assert rows() == before, (path, pairs, "a refusal changed a row")


@pytest.mark.django_db(transaction=False)
@pytest.mark.parametrize("route, n", CASES, ids=[f"{r}#{n}" for r, n in CASES])
def test_no_form_is_a_server_error_and_a_refusal_writes_nothing(world, route, n):
    """The valid body as someone else; each hostile value in every field at
    once (a form cleans every field, so a field that breaks on it is reached);
    then hypothesis: the valid body with a few fields changed, so that the
    service behind it is reached too."""
    form, ids = FORMS[route][n], world["ids"]
    path = form.path.format(**ids)

    def client(role: str = form.role) -> Client:
        c = Client(raise_request_exception=False)
        if role != "anonymous":
            c.force_login(world["roles"][role])
        if form.prime:
            c.get(form.prime.format(**ids))
        return c

    valid = [(k.encode(), str(v).format(**ids).encode()) for k, v in form.body.items()]
    for stranger in {"other", "anonymous"} - {form.role}:  # the valid body, as someone else
        send(client(stranger), form, path, valid)
    everywhere = client()
    for value in SWEPT:
        send(everywhere, form, path, [(k.encode(), value) for k in form.body])

    @FUZZ
    @given(pairs=bodies(form.body, ids))
    def check(pairs):
        send(client(), form, path, pairs)

    check()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url_kind, field, value",
    [
        ("shows", "bots", str(2**70)),
        ("shows", "bots", "300"),
        ("shows", "bots", "-1"),
        ("shows", "bots", "1e308"),
        ("shows", "spectator_delay_s", "1e308"),
        ("shows", "step_deadline_s", str(2**70)),
        ("shows", "final_first_to", "99999999999999999999"),
        ("shows", "candidates_per_round", "٣٠٠"),
        ("brackets", "first_to", str(2**70)),
        ("brackets", "swiss_rounds", str(2**70)),
        ("brackets", "entrants", "\n".join(f"e{i}" for i in range(300))),
        ("matches", "spectator_delay_s", "1e308"),
    ],
)
def test_a_number_that_sizes_work_is_refused_beside_its_field(world, url_kind, field, value):
    """bots=2^70 once held the only page-serving thread for 21 minutes."""
    client = Client()
    client.force_login(world["roles"]["organizer"])
    url = {
        "shows": "/console/shows/new/",
        "brackets": "/console/brackets/new/",
        "matches": "/console/matches/new/",
    }[url_kind]
    body = {
        "name": "Big",
        "bot_kind": "level:0",
        "game_pick": "organizer",
        "final_game": "love-me-not",
        "candidates_per_round": "1",
        "candidate_rule": "last",
        "step_deadline_s": "0",
        "spectator_delay_s": "0",
        "spectator_policy": "public",
        "game": "love-me-not",
        "format": "swiss",
        "entrants": "a\nb\nc",
        "seats": "a\nb",
        field: value,
    }
    before = StoredEvent.objects.count()
    resp = client.post(url, body)
    assert resp.status_code in (200, 400), resp.status_code
    assert StoredEvent.objects.count() == before


@pytest.mark.django_db
def test_a_dispute_form_version_past_any_integer_is_a_400(world):
    client = Client()
    client.force_login(world["roles"]["moderator"])
    show, final = world["ids"]["show"], world["ids"]["final"]
    before = StoredEvent.objects.count()
    for version in ("99999999999999999999", "1e308", "٣", "-1", str(2**62), "9" * 5000):
        resp = client.post(
            f"/shows/{show}/disputes/file?match={final}",
            {"match": final, "version": version, "text": "too big"},
        )
        assert resp.status_code == 400, (version, resp.status_code)
    assert StoredEvent.objects.count() == before
