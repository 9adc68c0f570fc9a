"""The flush after each transactional test (tests/conftest.py,
``_flush_past_the_truncate_guard``): it truncates only the tables a test wrote
to, and leaves every table as empty as Django's own flush of them all does."""

import random

import pytest
from django.contrib.auth.models import User
from django.db import connection

from games import services


def _tables_with_rows() -> set[str]:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    found = set()
    with connection.cursor() as cur:
        for t in tables:
            cur.execute(f"SELECT EXISTS (SELECT 1 FROM {connection.ops.quote_name(t)})")
            if cur.fetchone()[0]:
                found.add(t)
    return found


@pytest.mark.django_db(transaction=True)
def test_the_flush_empties_what_a_test_wrote_as_a_flush_of_every_table_does(
    _flush_past_the_truncate_guard,
):
    flush = _flush_past_the_truncate_guard
    flush.now()
    after_a_flush = _tables_with_rows()  # what post_migrate writes back (content types...)
    ana = User.objects.create_user("ana")
    services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": ana.pk, "ben": "bot:random"},
        rng=random.Random(1),
    )
    written = _tables_with_rows() - after_a_flush
    assert {"auth_user", "eventlog_storedevent", "games_match"} <= written, written
    flush.now()
    assert _tables_with_rows() == after_a_flush
