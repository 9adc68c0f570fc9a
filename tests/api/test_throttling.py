"""Command submission is rate-limited per account (all its tokens and
sessions together) and per address: 429 with Retry-After, counted in
Django's cache."""

import uuid

import pytest
from django.conf import settings
from django.test import override_settings

TIGHT = {
    **settings.REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"commands_burst": "100/s", "commands_sustained": "3/min"},
}
NOT_A_MOVE = {"command": {"type": "nonsense"}}  # refused by the rules, yet counted


def send_until_throttled(post, client, url, limit=10):
    codes = []
    for _ in range(limit):
        resp = post(client, url, NOT_A_MOVE)
        codes.append(resp.status_code)
        if resp.status_code == 429:
            return codes, resp
    return codes, None


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=TIGHT)
def test_a_user_over_the_rate_gets_429_with_retry_after(as_user, post, match, ana):
    client = as_user(ana)
    codes, resp = send_until_throttled(post, client, f"/api/matches/{match.pk}/commands")
    assert codes == [422, 422, 422, 429]
    # a minute, and the bucket its oldest request counts in (1/BUCKETS of it)
    assert 1 <= int(resp["Retry-After"]) <= 61
    body = resp.json()
    assert body["code"] == "throttled" and body["retry_after"] == int(resp["Retry-After"])
    # reading is not limited
    assert client.get(f"/api/matches/{match.pk}/").status_code == 200


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=TIGHT)
def test_every_token_and_session_of_one_account_share_one_limit(
    as_user, token_client, post, match, ana, other
):
    url = f"/api/matches/{match.pk}/commands"
    tokens = [token_client(ana, f"t{i}") for i in range(9)]
    codes = [post(tokens[i % 9], url, NOT_A_MOVE).status_code for i in range(9)]
    assert codes[:3] == [422, 422, 422] and set(codes[3:]) == {429}  # main: 9 x 422
    assert post(as_user(ana), url, NOT_A_MOVE).status_code == 429  # the session too
    # another account has its own count
    assert post(as_user(other), url, NOT_A_MOVE).status_code == 403  # refused, not throttled


@pytest.mark.django_db
@override_settings(
    REST_FRAMEWORK={
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"commands_per_address": "4/min"},
    }
)
def test_many_accounts_from_one_address_share_the_address_limit(as_user, post, match):
    from django.contrib.auth.models import User

    url = f"/api/matches/{match.pk}/commands"
    users = [User.objects.create_user(f"sock{i}") for i in range(6)]
    codes = [post(as_user(u), url, NOT_A_MOVE).status_code for u in users]
    assert 429 not in codes[:4] and codes[4:] == [429, 429]


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=TIGHT)
def test_moderation_is_limited_too(as_user, post, match, organizer):
    url = f"/api/matches/{match.pk}/moderate"
    client = as_user(organizer)
    codes = [post(client, url, {"type": "resume", "reason": "x"}).status_code for _ in range(4)]
    assert codes[-1] == 429 and 429 not in codes[:3]


@pytest.mark.django_db
def test_the_default_rates_let_a_player_play(as_user, post, match, ana):
    url = f"/api/matches/{match.pk}/commands"
    client = as_user(ana)
    assert [post(client, url, NOT_A_MOVE).status_code for _ in range(5)] == [422] * 5


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=TIGHT)
def test_while_the_cache_is_away_commands_go_on_unthrottled(as_user, post, match, ana, monkeypatch):
    from django.core.cache.backends.redis import RedisCache
    from rest_framework.throttling import SimpleRateThrottle

    # Redis restarting: nothing listens on its port (port 1 of loopback refuses)
    away = RedisCache("redis://127.0.0.1:1/0", {})
    monkeypatch.setattr(SimpleRateThrottle, "cache", away)
    url = f"/api/matches/{match.pk}/commands"
    assert [post(as_user(ana), url, NOT_A_MOVE).status_code for _ in range(4)] == [422] * 4


@pytest.mark.redis
@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=TIGHT)
def test_counts_are_shared_through_redis(as_user, post, match, ana, monkeypatch):
    from django.core.cache.backends.redis import RedisCache
    from rest_framework.throttling import SimpleRateThrottle

    # the production backend, under a prefix of this run's own
    redis = RedisCache(settings.REDIS_URL, {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"})
    monkeypatch.setattr(SimpleRateThrottle, "cache", redis)
    url = f"/api/matches/{match.pk}/commands"
    codes, resp = send_until_throttled(post, as_user(ana), url)
    assert codes == [422, 422, 422, 429] and resp["Retry-After"]
    # another process (a second client, same cache) sees the same count
    assert post(as_user(ana), url, NOT_A_MOVE).status_code == 429


class CountingCache:
    """A cache that counts its calls by name (what a round trip would be on Redis)."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def __getattr__(self, name):
        attr = getattr(self.inner, name)
        if callable(attr):

            def counted(*args, **kwargs):
                self.calls.append(name)
                return attr(*args, **kwargs)

            return counted
        return attr


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=TIGHT)
def test_a_command_counts_its_three_limits_in_two_cache_calls(
    as_user, post, match, ana, monkeypatch
):
    from django.core.cache.backends.locmem import LocMemCache
    from rest_framework.throttling import SimpleRateThrottle

    cache = CountingCache(LocMemCache("two-calls", {}))
    monkeypatch.setattr(SimpleRateThrottle, "cache", cache)
    assert post(as_user(ana), f"/api/matches/{match.pk}/commands", NOT_A_MOVE).status_code == 422
    assert cache.calls == ["get_many", "set_many"]


RATES = {
    "commands_burst": (3, 1.0),
    "commands_sustained": (8, 60.0),
    "commands_per_address": (11, 60.0),
}


def _windows(kind: str):
    """The cache the limits count in: this process's memory, or Redis as in
    production (its one-script path), under a prefix of this test's own."""
    from django.core.cache.backends.locmem import LocMemCache

    from config.cache import RedisCache

    if kind == "redis":
        if not settings.REDIS_URL:
            pytest.skip("needs Redis: set REDIS_URL")
        options = {"serializer": "config.cache.JSONSerializer"}  # as production's
        return RedisCache(
            settings.REDIS_URL, {"KEY_PREFIX": f"test-{uuid.uuid4().hex}", "OPTIONS": options}
        )
    return LocMemCache(f"windows-{uuid.uuid4().hex}", {})


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_the_limits_hold_in_every_window_and_refuse_only_when_full(monkeypatch, settings, kind):
    """Random request times against tight limits. No window of a limit's
    duration ever holds more requests it counted than its rate; a refusal
    always has a limit that counted its rate in the window (give or take one
    bucket, 1/BUCKETS of the duration) before it; the wait says when it has
    room again. A request refused by one limit is counted by the others."""
    import random
    from types import SimpleNamespace

    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import BUCKETS, CommandThrottles

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "commands_burst": "3/s",
            "commands_sustained": "8/min",
            "commands_per_address": "11/min",
        },
    }
    clock = [1000.0]
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: clock[0])
    monkeypatch.setattr(SimpleRateThrottle, "cache", _windows(kind))
    rng = random.Random(4)
    users = [SimpleNamespace(is_authenticated=True, pk=pk) for pk in (1, 2)]
    counted = {scope: {} for scope in RATES}  # scope -> ident -> times it counted
    refusals = 0
    for _ in range(600):
        clock[0] += rng.choice([0.01, 0.05, 0.1, 0.3, 2.0, 9.0])
        now, user = clock[0], rng.choice(users)
        request = SimpleNamespace(user=user, META={"REMOTE_ADDR": "10.0.0.9"}, headers={})
        idents = {
            "commands_burst": user.pk,
            "commands_sustained": user.pk,
            "commands_per_address": "addr",
        }
        limits = CommandThrottles()
        allowed = limits.allow_request(request, None)
        refused_by = {t.scope for t in limits.refused}
        assert allowed == (not refused_by)
        for scope, (rate, duration) in RATES.items():
            times = counted[scope].setdefault(idents[scope], [])
            recent = [t for t in times if t > now - duration]
            if scope in refused_by:
                slack = duration / BUCKETS
                assert rate <= len([t for t in times if t > now - duration - slack])
                continue
            times.append(now)
            assert len(recent) + 1 <= rate  # never more than the rate in a window
        if not allowed:
            refusals += 1
            wait = limits.wait()
            assert 0 < wait <= max(RATES[s][1] for s in refused_by) + 1
    assert 60 < refusals < 540  # both answers were tried, many times


def test_a_window_stays_small_however_many_requests_it_counts(monkeypatch, settings):
    """A raised limit (a bot farm's address) keeps at most BUCKETS + 1 counts
    per window, not one entry per request."""
    from types import SimpleNamespace

    from django.core.cache.backends.locmem import LocMemCache
    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import BUCKETS, AddressThrottle, CommandThrottles

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"commands_per_address": "100000/min"},
    }
    clock = [1000.0]
    cache = LocMemCache("big", {})
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: clock[0])
    monkeypatch.setattr(SimpleRateThrottle, "cache", cache)
    request = SimpleNamespace(
        user=SimpleNamespace(is_authenticated=False), META={"REMOTE_ADDR": "10.0.0.7"}, headers={}
    )
    for _ in range(5000):
        clock[0] += 0.03
        assert CommandThrottles().allow_request(request, None)
    stored = cache.get(f"w:{AddressThrottle().get_cache_key(request, None)}")
    assert stored is not None and len(stored) <= BUCKETS + 1
    # the last minute's, 0.03 s apart, and the oldest bucket's that overlaps it
    assert 2000 <= sum(n for _, n in stored) <= 2000 + 34


@pytest.mark.parametrize(
    "stored",
    [[1000.0, 999.5, 999.0], [[1000, -50]], [[1, 2, 3]], "x", {"a": 1}, [["1000", 1]]],
    ids=["drf-history", "negative", "triple", "string", "object", "string-bucket"],
)
def test_a_window_in_another_shape_counts_as_empty_and_is_written_anew(
    monkeypatch, settings, stored
):
    """What a key held before this format (DRF's list of times) or a damaged
    value never refuses nor breaks a command: the window starts again."""
    from types import SimpleNamespace

    from django.core.cache.backends.locmem import LocMemCache
    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import AddressThrottle, CommandThrottles

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"commands_per_address": "2/min"},
    }
    cache = LocMemCache("shapes", {})
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: 1000.0)
    monkeypatch.setattr(SimpleRateThrottle, "cache", cache)
    request = SimpleNamespace(
        user=SimpleNamespace(is_authenticated=False), META={"REMOTE_ADDR": "10.0.0.8"}, headers={}
    )
    key = f"w:{AddressThrottle().get_cache_key(request, None)}"
    cache.set(key, stored)
    assert CommandThrottles().allow_request(request, None)
    assert cache.get(key) == [[1000, 1]]  # one count in the bucket of second 1000


@pytest.mark.parametrize(
    "kind, limits",
    [
        ("memory", "commands"),
        ("redis", "commands"),
        ("memory", "password_reset"),
        ("redis", "password_reset"),
    ],
)
def test_requests_sent_at_once_pass_no_more_than_the_limit(monkeypatch, settings, kind, limits):
    """Twenty-four requests of one account (commands) or address (password
    resets) at the same moment, from threads: each reads and counts its
    windows as one step, so exactly the limit pass (read, then written
    apart, several would read the same count and pass)."""
    import threading
    from types import SimpleNamespace

    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import CommandThrottles, PasswordResetLimits

    scope, counted = {
        "commands": ("commands_sustained", CommandThrottles),
        "password_reset": ("password_reset", PasswordResetLimits),
    }[limits]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {scope: "5/min"},
    }
    monkeypatch.setattr(SimpleRateThrottle, "cache", _windows(kind))
    user = SimpleNamespace(is_authenticated=True, pk=7)
    start, answers = threading.Barrier(24), []

    def send():
        request = SimpleNamespace(user=user, META={"REMOTE_ADDR": "10.0.0.5"}, headers={})
        start.wait()
        answers.append(counted().allow_request(request, None))

    threads = [threading.Thread(target=send) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers.count(True) == 5 and len(answers) == 24


def _account_request(pk=3, address="10.0.0.4"):
    from types import SimpleNamespace

    return SimpleNamespace(
        user=SimpleNamespace(is_authenticated=True, pk=pk),
        META={"REMOTE_ADDR": address},
        headers={},
    )


def _sent_to_redis(monkeypatch) -> list[str]:
    """The commands each Redis connection sends from now on, by name."""
    from redis.connection import AbstractConnection

    sent, real = [], AbstractConnection.send_packed_command

    def counted(self, command, *args, **kwargs):
        packed = b"".join(command) if isinstance(command, list) else command
        sent.append(packed.split(b"\r\n")[2].decode().upper())
        return real(self, command, *args, **kwargs)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    return sent


@pytest.mark.redis
def test_on_redis_a_commands_limits_are_one_round_trip(monkeypatch, settings):
    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import CommandThrottles

    monkeypatch.setattr(SimpleRateThrottle, "cache", _windows("redis"))
    request = _account_request()
    CommandThrottles().allow_request(request, None)  # the script loaded once
    sent = _sent_to_redis(monkeypatch)
    for _ in range(3):
        assert CommandThrottles().allow_request(request, None)
    assert sent == ["EVALSHA"] * 3
    # Redis restarted (its scripts gone): loaded again, and the count goes on
    cache = SimpleRateThrottle.cache
    cache._cache.get_client(write=True).script_flush()
    assert CommandThrottles().allow_request(request, None)
    stored = cache.get("w:" + CommandThrottles.limits[1]().get_cache_key(request, None))
    assert sum(n for _, n in stored) == 5


@pytest.mark.redis
def test_a_count_runs_on_redis_while_its_caller_works_and_its_connection_goes_back_clean(
    monkeypatch, settings
):
    """A command's count is sent, the caller reads its match meanwhile, then
    asks for the answer. A count nobody asked for (the command refused
    first) is still counted, and its answer is read off the connection
    before the pool hands it on: the next count reads its own answer."""
    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import CommandThrottles

    monkeypatch.setattr(SimpleRateThrottle, "cache", _windows("redis"))
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], commands_burst="3/min")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    request = _account_request(pk=7)
    pool = SimpleRateThrottle.cache._cache.get_client(write=True).connection_pool
    sent = _sent_to_redis(monkeypatch)

    first = CommandThrottles().begin(request)
    assert sent == ["EVALSHA"]  # under way before anyone asks
    assert first.allowed()
    first.close()
    left = CommandThrottles().begin(request)
    left.close()  # never asked: its answer dropped, its count stands
    assert len(pool._available_connections) >= 1
    third = CommandThrottles()
    count = third.begin(request)
    try:
        assert count.allowed()  # the third of three, not the second's answer
    finally:
        count.close()
    fourth = CommandThrottles()
    assert not fourth.allow_request(request, None)
    assert [t.scope for t in fourth.refused] == ["commands_burst"]
    assert 0 < fourth.wait() <= 61


@pytest.mark.redis
def test_a_count_whose_connection_redis_dropped_is_counted_again_on_a_fresh_one(
    monkeypatch, settings, caplog
):
    """Redis dropping the connection between a count's send and its answer
    (it restarted): that connection is closed, never handed to the next
    count, and the count is made again on a fresh one, as a plain call's
    retry would; no warning, the limit still counts."""
    from redis.connection import AbstractConnection
    from redis.exceptions import ConnectionError as RedisConnectionError
    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import CommandThrottles

    monkeypatch.setattr(SimpleRateThrottle, "cache", _windows("redis"))
    request = _account_request(pk=8)
    CommandThrottles().allow_request(request, None)
    real = AbstractConnection.read_response
    broke = []

    def lost(self, *args, **kwargs):
        if not broke:
            broke.append(self._sock)
            raise RedisConnectionError("Connection closed by server.")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(AbstractConnection, "read_response", lost)
    sent = _sent_to_redis(monkeypatch)
    with caplog.at_level("WARNING", logger="api.throttling"):
        assert CommandThrottles().allow_request(request, None)
    assert "the cache is away" not in caplog.text
    assert broke and broke[0].fileno() == -1  # closed: its answer can reach nobody
    assert sent.count("EVALSHA") == 2  # made again, on a connection opened anew
    stored = SimpleRateThrottle.cache.get(
        "w:" + CommandThrottles.limits[1]().get_cache_key(request, None)
    )
    # the lost answer's count stands too (Redis made it before the connection went)
    assert sum(n for _, n in stored) == 3


@pytest.mark.redis
def test_with_redis_away_a_count_lets_the_command_through_and_says_so(
    monkeypatch, settings, caplog
):
    """Redis unreachable for the count and its retry: the command goes on
    unthrottled (the limits guard the service; the log never depends on them)."""
    from redis.connection import AbstractConnection
    from redis.exceptions import ConnectionError as RedisConnectionError
    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import CommandThrottles

    monkeypatch.setattr(SimpleRateThrottle, "cache", _windows("redis"))
    request = _account_request(pk=9)
    CommandThrottles().allow_request(request, None)

    def away(self, *args, **kwargs):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(AbstractConnection, "read_response", away)
    monkeypatch.setattr(AbstractConnection, "connect", away)
    with caplog.at_level("WARNING", logger="api.throttling"):
        limits = CommandThrottles()
        count = limits.begin(request)
        try:
            assert count.allowed()
        finally:
            count.close()
    assert "the cache is away" in caplog.text
    assert limits.refused == [] and limits.wait() is None


@pytest.mark.redis
def test_a_count_on_a_connection_redis_closed_while_it_sat_in_the_pool_still_counts(
    monkeypatch, settings, caplog
):
    """The state after a Redis restart: the pool's idle connection is gone
    on the server's side. The next count finds out, closes it, and counts on
    a fresh connection."""
    from rest_framework.throttling import SimpleRateThrottle

    from api.throttling import CommandThrottles

    monkeypatch.setattr(SimpleRateThrottle, "cache", _windows("redis"))
    request = _account_request(pk=10)
    assert CommandThrottles().allow_request(request, None)
    client = SimpleRateThrottle.cache._cache.get_client(write=True)
    pool = client.connection_pool
    idle = pool.get_connection()
    idle.send_command("CLIENT", "ID")
    their_id = idle.read_response()
    pool.release(idle)
    import redis

    with redis.Redis.from_url(settings.REDIS_URL) as admin:
        assert admin.client_kill_filter(_id=their_id) == 1
    with caplog.at_level("WARNING", logger="api.throttling"):
        assert CommandThrottles().allow_request(request, None)
    assert "the cache is away" not in caplog.text
    stored = SimpleRateThrottle.cache.get(
        "w:" + CommandThrottles.limits[1]().get_cache_key(request, None)
    )
    assert sum(n for _, n in stored) == 2
