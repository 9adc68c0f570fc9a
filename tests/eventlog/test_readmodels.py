"""The read models' helpers written both ways (eventlog/readmodels.py): a
child row's stable id in Python and in SQL, and one snapshot for a comparison."""

import pytest
from django.db import connection, transaction

from eventlog.readmodels import one_snapshot, stable_id, stable_id_sql


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize(
    "key", [("waiting", 1, 2), ("waiting", 2**62, 7), ("seat", 42, "Zed"), ("x", "é ü", "")]
)
def test_the_stable_id_in_sql_is_the_one_in_python(key):
    # numbers go in as the statements have them (bigint columns), words as text
    parts = [f"%s::{'bigint' if isinstance(k, int) else 'text'}" for k in key]
    with connection.cursor() as cur:
        cur.execute(f"SELECT {stable_id_sql(*parts)}", list(key))
        (found,) = cur.fetchone()
    assert found == stable_id(*key)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_both_halves_leave_one_snapshot_for_the_transaction():
    for name in ("postgresql", "portable"):
        with transaction.atomic():
            getattr(one_snapshot, name)()
            with connection.cursor() as cur:
                cur.execute("SHOW transaction_isolation")
                (level,) = cur.fetchone()
        assert level == ("repeatable read" if name == "postgresql" else "read committed")
