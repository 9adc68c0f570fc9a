"""Hostile input is refused before it reaches the rules: a clear 4xx with a
code and a message, and nothing written."""

import pytest

from eventlog.models import StoredEvent
from games import services
from games.core.registry import series_for
from games.models import Match

DEEP = "[" * 1000 + "]" * 1000  # 2 KB, a RecursionError for json.loads


def written():
    return StoredEvent.objects.count(), Match.objects.count()


def json_posts(match):
    """Every JSON POST endpoint, with a body it would accept."""
    return [
        ("/api/matches/", {"game": "love-me-not", "seats": ["ana", "ben"]}),
        (f"/api/matches/{match.pk}/commands", {"command": {"type": "choose"}}),
        (f"/api/matches/{match.pk}/moderate", {"type": "pause", "reason": "x"}),
    ]


def allowed(url, ana, organizer):
    return ana if url.endswith("/commands") else organizer


@pytest.mark.django_db
@pytest.mark.parametrize("where", ["body", "inside a field"])
def test_deep_nesting_is_refused_on_every_json_post(as_user, post, match, ana, organizer, where):
    before = written()
    for url, body in json_posts(match):
        client = as_user(allowed(url, ana, organizer))
        if where == "body":
            raw = DEEP
        else:
            key = next(iter(body))
            raw = '{"' + key + '": ' + DEEP + "}"
        assert len(raw) <= 2100
        resp = post(client, url, raw)
        assert resp.status_code == 400, (url, resp.content)
        assert resp.json()["code"] == "too_deep"
        assert "nested more than 32" in resp.json()["message"]
    assert written() == before


@pytest.mark.django_db
def test_nesting_within_the_bound_is_parsed(as_user, post, match, ana):
    # 30 levels inside a command: parsed, then refused by the command's shape
    raw = '{"command": {"type": "choose", "keep": %s}}' % ("[" * 30 + "]" * 30)
    resp = post(as_user(ana), f"/api/matches/{match.pk}/commands", raw)
    assert resp.status_code == 400 and resp.json()["code"] == "invalid"


@pytest.mark.django_db
def test_brackets_inside_strings_do_not_count(as_user, post, match, ana):
    raw = '{"command": {"type": "%s"}}' % ("[" * 500)
    resp = post(as_user(ana), f"/api/matches/{match.pk}/commands", raw)
    # parsed: the string is just too long for a command
    assert resp.status_code == 400 and resp.json()["code"] == "invalid"
    assert "type" in resp.json()["message"]


@pytest.mark.django_db
def test_a_body_too_large_is_refused(as_user, post, match, ana, organizer, settings):
    before = written()
    for url, _ in json_posts(match):
        big = '{"pad": "%s"}' % ("x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10))
        resp = post(as_user(allowed(url, ana, organizer)), url, big)
        assert resp.status_code == 413, (url, resp.status_code)
        assert resp.json()["code"] == "too_large"
    assert written() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw, code",
    [
        ("{not json", "parse_error"),
        ('{"command": {"type": "choose", "keep": NaN}}', "parse_error"),
        ('{"command": {"type": "choose", "keep": %s}}' % ("9" * 5000), "parse_error"),
        (b'{"command": "\xff"}', "parse_error"),
        ('["a list"]', "invalid"),
        ('{"command": "play"}', "invalid"),
        ('{"command": {"card": "1"}}', "invalid"),
        ('{"command": {"type": "choose", "keep": "%s"}}' % ("x" * 300), "invalid"),
        ('{"command": {"type": "choose", "keep": 1e300}}', "invalid"),
        ('{"command": {"type": "choose", "keep": {"a": 1}}}', "invalid"),
        ('{"command": {"type": "choose", "keep": [' + ",".join(["1"] * 100) + "]}}", "invalid"),
    ],
)
def test_malformed_commands_are_refused(as_user, post, match, ana, raw, code):
    before = written()
    resp = post(as_user(ana), f"/api/matches/{match.pk}/commands", raw)
    assert resp.status_code == 400, resp.content
    body = resp.json()
    assert body["code"] == code and body["message"]
    assert written() == before


@pytest.mark.django_db
@pytest.mark.parametrize("command_id", ["x" * 300, "x" * 65, "has space", "é", ""])
def test_a_bad_command_id_is_refused(as_user, post, match, ana, command_id):
    legal = series_for("love-me-not").rules.legal_commands(services.load(match).state.bout, "ana")
    before = written()
    resp = post(
        as_user(ana),
        f"/api/matches/{match.pk}/commands",
        {"command": legal[0], "command_id": command_id},
    )
    assert resp.status_code == 400
    body = resp.json()
    assert body["code"] == "invalid" and "command_id" in body["fields"]
    assert body["message"].startswith("command_id: ")
    assert written() == before
    ok = post(
        as_user(ana),
        f"/api/matches/{match.pk}/commands",
        {"command": legal[0], "command_id": "ana:move-1.a_b"},
    )
    assert ok.status_code == 201


@pytest.mark.django_db
def test_a_rule_refusal_carries_the_rules_words(as_user, post, match, ana):
    before = written()
    resp = post(
        as_user(ana),
        f"/api/matches/{match.pk}/commands",
        {"command": {"type": "choose", "keep": "2H", "discard": "2H"}},
    )
    assert resp.status_code == 422
    body = resp.json()
    assert body["code"] == "rule"
    try:
        services.submit(match, "ana", {"type": "choose", "keep": "2H", "discard": "2H"})
    except services.RuleError as exc:
        assert body["message"] == str(exc)
    else:
        pytest.fail("the rules accepted the command")
    assert written() == before


@pytest.mark.django_db
def test_a_concurrent_write_is_409_with_the_current_version(as_user, post, match, ana, monkeypatch):
    from eventlog.store import ConcurrencyError, stream_version

    def lose_the_race(match_, *args, **kwargs):
        raise ConcurrencyError(match_.stream, 1)

    monkeypatch.setattr(services, "submit", lose_the_race)
    resp = post(as_user(ana), f"/api/matches/{match.pk}/commands", {"command": {"type": "x"}})
    assert resp.status_code == 409
    body = resp.json()
    assert body["code"] == "conflict" and "try again" in body["message"]
    assert body["current_version"] == stream_version(match.stream) > 1


@pytest.mark.django_db
@pytest.mark.parametrize("suffix", ["/", "/history", "/legal"])
def test_unknown_and_huge_ids_are_404(client, suffix):
    for pk in ["999999", "9" * 40]:
        resp = client.get(f"/api/matches/{pk}{suffix}")
        assert resp.status_code == 404
        assert resp.json()["code"] == "not_found" and resp.json()["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("after", ["abc", "-1", "9" * 40, "1.5"])
def test_history_after_must_be_a_version(client, match, after):
    resp = client.get(f"/api/matches/{match.pk}/history?after={after}")
    assert resp.status_code == 400
    assert resp.json()["code"] == "invalid" and resp.json()["message"].startswith("after: ")


@pytest.mark.django_db
def test_a_wrong_method_is_405_with_a_code(client, match):
    resp = client.delete(f"/api/matches/{match.pk}/")
    assert resp.status_code == 405 and resp.json()["code"] == "method_not_allowed"


def test_parse_bounded_json_for_forms():
    from api.parsers import BoundedJSONError, parse_bounded_json

    assert parse_bounded_json('{"type": "play", "card": "1"}') == {"type": "play", "card": "1"}
    for text, code in [
        (DEEP, "too_deep"),
        ("[" * 33 + "]" * 33, "too_deep"),
        ("x" * 10, "parse_error"),
        ('"' + "y" * 50 + '"', "too_large"),
        (b'"\xff"', "parse_error"),
    ]:
        with pytest.raises(BoundedJSONError) as err:
            parse_bounded_json(text, max_bytes=40 if code == "too_large" else 3000)
        assert err.value.code == code and str(err.value)
    assert parse_bounded_json("[" * 32 + "]" * 32, max_bytes=100) is not None


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/nothing", "/api/matches/null,null/", "/api/matches/1"])
def test_an_unknown_api_address_is_a_json_404(client, path):
    for resp in [client.get(path), client.post(path, "{}", content_type="application/json")]:
        assert resp.status_code == 404
        assert resp.json()["code"] == "not_found" and "/api/docs/" in resp.json()["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("seconds", [1.0131541347227182e308, 1e12, 86401, 0, -5])
def test_added_time_is_bounded(as_user, post, match, organizer, seconds):
    before = written()
    resp = post(
        as_user(organizer),
        f"/api/matches/{match.pk}/moderate",
        {"type": "add_time", "reason": "x", "seconds": seconds},
    )
    assert resp.status_code == 400, resp.content
    assert resp.json()["code"] == "invalid" and "seconds" in resp.json()["fields"]
    assert written() == before
