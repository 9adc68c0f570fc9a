"""A seat's or moderator's view, and a seat's legal commands, come from the
kept state the match row vouches for: after a move, the state that move
wrote, with no read of the log; the same view as folding the log's rows."""

import json
import random

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services, states
from games.core.registry import series_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _seated(token_client):
    ana, ben = User.objects.create_user("ana_k"), User.objects.create_user("ben_k")
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        holders={"ana": ana.pk, "ben": ben.pk},
        rng=random.Random(8),
    )
    return match, {"ana": token_client(ana), "ben": token_client(ben)}


def _folded_view(match, seat):
    """The view as the log's rows give it (no kept state vouched for)."""
    row = type(match).objects.get(pk=match.pk)
    row.updated_at = None  # vouches for nothing
    return services.view_for(row, services.Viewer.of_seat(seat))


def _log_reads(queries) -> list[str]:
    return [
        q["sql"] for q in queries if "eventlog_storedevent" in q["sql"] and "SELECT" in q["sql"]
    ]


def test_a_moves_answer_and_the_next_legal_read_no_event(token_client, settings):
    settings.REACTORS_INLINE = False
    match, clients = _seated(token_client)
    series = series_for(match.game)
    rng = random.Random(2)
    for n in range(12):
        state = services.load(match).state
        if state.finished:
            break
        seat = series.pending(state)[0].seat
        with CaptureQueriesContext(connection) as legal_queries:
            legal = clients[seat].get(f"/api/matches/{match.pk}/legal").json()
        with CaptureQueriesContext(connection) as command_queries:
            answer = clients[seat].post(
                f"/api/matches/{match.pk}/commands",
                json.dumps({"command": rng.choice(legal["commands"]), "command_id": f"k-{n}"}),
                content_type="application/json",
            )
        assert answer.status_code == 201, answer.content
        if n:  # after the first move, this process keeps the state it wrote
            assert _log_reads(legal_queries.captured_queries) == []
        # the match and the caller's seat in one query, the seat in it
        for queries in (legal_queries, command_queries):
            sql = [q["sql"] for q in queries.captured_queries]
            assert not [q for q in sql if q.startswith('SELECT "games_seatholder"')], sql
            read = [q for q in sql if 'FROM "games_match"' in q and 'FROM "games_seatholder"' in q]
            assert len(read) == 1, sql
        # after the append's statement (its commit: no listener acts on the move)
        sql = [q["sql"] for q in command_queries.captured_queries]
        appended = next(i for i, q in enumerate(sql) if "EXECUTE eventlog_append" in q)
        after_commit = command_queries.captured_queries[appended + 1 :]
        if n:  # the first move's announcement read the creation record (its delay), once
            assert _log_reads(after_commit) == []
        assert answer.json()["view"] == _folded_view(match, seat)


def test_a_view_without_a_vouched_state_folds_the_log(token_client):
    """Another process (nothing kept here or in the shared tier) reads the log,
    and its view is the same."""
    match, clients = _seated(token_client)
    live = clients["ana"].get(f"/api/matches/{match.pk}/").json()
    states.forget_local()
    caches[states.CACHE_ALIAS].delete(states._key(match.stream))
    with CaptureQueriesContext(connection) as queries:
        again = clients["ana"].get(f"/api/matches/{match.pk}/").json()
    assert _log_reads(queries.captured_queries)
    assert again == live == _folded_view(match, "ana")


def test_a_finished_match_is_the_seats_replay_from_the_kept_state(token_client):
    match, clients = _seated(token_client)
    from games.core.playout import bot_command

    series = series_for(match.game)
    rng = random.Random(5)
    while not (state := services.load(match).state).finished:
        seat = series.pending(state)[0].seat
        services.submit(match, seat, bot_command(series, state, seat, "random", rng), actor=seat)
    view = clients["ben"].get(f"/api/matches/{match.pk}/").json()
    assert view["replay"] is True and view["viewer"] == {"kind": "seat", "seat": "ben"}
    assert view == _folded_view(match, "ben")


def test_the_seat_read_with_the_match_is_only_its_readers(token_client):
    """A match read with one user's seat tells nothing about another's."""
    from games import visibility

    match, _clients = _seated(token_client)
    ana, ben = (h.user for h in match.holders.order_by("seat"))
    outsider = User.objects.create_user("olaf_k")
    seen = services.match_seen_by(match.pk, ana)
    assert seen.seat_read_for == (ana.pk, "ana")
    assert services.viewer_for(seen, ana) == services.Viewer.of_seat("ana")
    assert services.viewer_for(seen, ben) == services.Viewer.of_seat("ben")
    assert services.viewer_for(seen, outsider).kind == visibility.SPECTATOR_VIEW.kind
    assert services.match_seen_by(match.pk, outsider).seat_read_for == (outsider.pk, None)
    assert services.match_seen_by(10**9, ana) is None
