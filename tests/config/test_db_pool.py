"""The web role's pool (DB_POOL_SIZE, config.pooled_postgresql) lends a connection given
back a moment ago without a round trip to check it, checks one that sat idle
a while, and replaces one found broken by that check: the request that gets
it never sees the broken one."""

import pytest

from tests.config.test_deploy import run_pooled

pytestmark = pytest.mark.postgres

SCRIPT = """
import time
import django
django.setup()
from django.db import connection
from psycopg_pool import ConnectionPool
from config.pooled_postgresql import base as db_pool

checks = []
real = ConnectionPool.check_connection
ConnectionPool.check_connection = staticmethod(lambda conn: (checks.append(1), real(conn)))

def request():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    connection.close()  # given back to the pool
    return pid

pids = [request() for _ in range(5)]
back_to_back = len(checks)
time.sleep(db_pool.RECHECK_AFTER_IDLE_S + 0.2)
request()
after_idle = len(checks) - back_to_back
# the connection the next request would get is cut while it sits idle
with connection.cursor() as cursor:
    cursor.execute("SELECT pg_backend_pid()")
    victim = cursor.fetchone()[0]
connection.close()
import os
import psycopg
with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
    admin.execute("SELECT pg_terminate_backend(%s)", [victim])
time.sleep(db_pool.RECHECK_AFTER_IDLE_S + 0.2)
survivor = request()
print(back_to_back, after_idle, len(set(pids)), survivor != victim)
"""


def test_a_connection_given_back_a_moment_ago_is_lent_unchecked_an_idle_one_checked(tmp_path):
    back_to_back, after_idle, connections, replaced = run_pooled(tmp_path, SCRIPT, "1")[-4:]
    # five requests back to back on one connection: one check, of the new
    # connection (Django's health checks would have made one a request);
    # after an idle second: one
    assert (back_to_back, connections) == ("1", "1")
    assert after_idle == "1"
    assert replaced == "True"  # the cut connection failed its check and was replaced


GIVEN_BACK = """
import django
django.setup()
from django.db import connection

def request():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    lent = connection.connection
    connection.close()  # given back to the pool
    return lent

request()
pool = connection.pool
tasks = []
real = pool.run_task
pool.run_task = lambda task: (tasks.append(type(task).__name__), real(task))
back = [request() in pool._pool for _ in range(3)]
print(tasks.count("ReturnConnection"), *back)
"""


def test_a_connection_given_back_is_in_the_pool_at_once_without_its_worker_thread(tmp_path):
    """Giving a connection back hands no task to the pool's worker thread
    (a reset function would: a hand-off per request, the connection out of
    the pool until that thread ran), and it is lendable again at once."""
    handed_on, *back = run_pooled(tmp_path, GIVEN_BACK, "2")[-4:]
    assert handed_on == "0"
    assert back == ["True", "True", "True"]  # in the pool as the request ends
