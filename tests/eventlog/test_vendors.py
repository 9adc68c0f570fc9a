"""A fork calls the half of its database's vendor (eventlog/vendors.py)."""

import pytest
from django.db import connection

from eventlog.vendors import Fork, on_postgresql


@pytest.mark.django_db
def test_a_fork_calls_the_half_of_the_databases_vendor():
    fork = Fork(postgresql=lambda x: ("postgresql", x), portable=lambda x: ("portable", x))
    expected = "postgresql" if connection.vendor == "postgresql" else "portable"
    assert on_postgresql() == (expected == "postgresql")
    assert fork(1) == (expected, 1)
    assert fork.chosen() is getattr(fork, expected)
