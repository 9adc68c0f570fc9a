"""The HTML forms fuzzed the way schemathesis fuzzes the API: every form of
the console, the dashboard, the dispute form, the table's move form, sign-up
and login gets hypothesis-made bodies (huge numbers, 1e308, Unicode digits,
negatives, bytes that are no UTF-8) from a logged-in user of each role.
Never a 500; a refusal writes nothing. Sized to run in well under a minute."""

import random
from urllib.parse import quote_from_bytes

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventlog.models import StoredEvent
from games import services as match_services
from games.models import Match
from tournaments import invitations
from tournaments import show_services as ss
from tournaments.models import ShowRecord

FIELDS = [
    "name", "players", "bots", "bot_kind", "rounds", "game_pool", "game_pick",
    "death_match_first_to", "final_game", "final_first_to", "candidates_per_round",
    "candidate_rule", "step_deadline_s", "spectator_delay_s", "spectator_policy", "rated",
    "order", "game", "format", "entrants", "first_to", "swiss_rounds", "seats", "options",
    "title", "username", "password", "password1", "password2", "action", "match", "version",
    "text", "dispute_id", "ruling", "winner", "seat", "seconds", "entrant", "item", "scope",
    "reason", "control", "card", "target", "ranking", "confirm", "step", "new", "out", "in",
    "holder", "to", "item_id", "switch", "candidate", "registration", "cap", "check_in_s", "show",
]  # fmt: skip
NASTY = [
    "2" * 22, str(2**70), "1e308", "-1e308", "inf", "nan", "-1", "0", "٣", "١٢", "99999999999999999999",
    "d-1", "void_to", "adjust_clock", "rule_dispute", "claim_dispute", "add_time", "ana", "ben",
    "love-me-not", "single", "swiss", "bot:random", "on", "",
]  # fmt: skip
raw_values = (
    st.sampled_from([v.encode() for v in NASTY])
    | st.binary(max_size=12)
    | st.text(max_size=20).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
bodies = st.lists(st.tuples(st.sampled_from(FIELDS), raw_values), max_size=8)
FUZZ = settings(
    max_examples=8,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def encoded(pairs) -> str:
    """An x-www-form-urlencoded body, bytes as a browser (or an attacker) sends them."""
    return "&".join(f"{k}={quote_from_bytes(v)}" for k, v in pairs)


@pytest.fixture
def world(db, settings):
    settings.RATELIMIT_ENABLE = False
    olga = User.objects.create_user("olga", password="pw-olga-123")
    olga.user_permissions.add(*Permission.objects.filter(codename__in=["add_match"]))
    olga = User.objects.get(pk=olga.pk)
    mia = User.objects.create_user("mia")
    pat = User.objects.create_user("pat")
    other = User.objects.create_user("olaf")
    stream = ss.create_show(
        name="Fuzzed",
        organizer="olga",
        entrants=["ana", "ben"],
        holders={"ana": pat.pk, "ben": "bot:random"},
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
        rng=random.Random(1),
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia"}, ss.Acting("olga", "organizer")
    )
    record = ShowRecord.objects.get(stream=stream)
    final = Match.objects.get(show_stream=stream)
    lone = match_services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": pat.pk}, rng=random.Random(2)
    )
    token = invitations.account_token("newcomer", olga.pk)
    return {
        "roles": {"organizer": olga, "moderator": mia, "player": pat, "other": other},
        "record": record,
        "final": final,
        "lone": lone,
        "token": token,
    }


def urls(world):
    pk, final = world["record"].pk, world["final"]
    out = [
        "/console/shows/new/",
        "/console/shows/scheduled/new/",
        "/console/brackets/new/",
        "/console/matches/new/",
        "/console/invite/",
        f"/console/shows/{pk}/autopilot",
        f"/shows/{pk}/dashboard/act",
        f"/shows/{pk}/disputes/file?match={final.pk}",
        f"/games/matches/{final.pk}/command",
        f"/games/matches/{world['lone'].pk}/command",
        "/accounts/login/",
        "/accounts/password_reset/",
    ]
    out += [
        f"/console/shows/{pk}/{k}"
        for k in ("ranking", "pick_game", "add_round", "reorder", "appoint", "remove")
    ]
    out += [f"/console/shows/{pk}/{k}" for k in ("substitute", "extend")]
    out.append(f"/console/join/{world['token']}/")
    return out


@pytest.mark.django_db(transaction=False)
@pytest.mark.parametrize("role", ["organizer", "moderator", "player", "other"])
def test_no_form_post_is_a_server_error_and_a_refusal_writes_nothing(world, role):
    client = Client(raise_request_exception=False)
    client.force_login(world["roles"][role])
    targets = urls(world)

    @FUZZ
    @given(url=st.sampled_from(targets), pairs=bodies)
    def check(url, pairs):
        before = StoredEvent.objects.count()
        resp = client.post(url, encoded(pairs), content_type="application/x-www-form-urlencoded")
        assert resp.status_code < 500, (url, pairs, resp.status_code)
        if resp.status_code >= 400:
            assert StoredEvent.objects.count() == before, (url, pairs)

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
        "bot_kind": "random",
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
    record, final = world["record"], world["final"]
    before = StoredEvent.objects.count()
    for version in ("99999999999999999999", "1e308", "٣", "-1", str(2**62)):
        resp = client.post(
            f"/shows/{record.pk}/disputes/file?match={final.pk}",
            {"match": final.pk, "version": version, "text": "too big"},
        )
        assert resp.status_code == 400, (version, resp.status_code)
    assert StoredEvent.objects.count() == before
