"""The append-only triggers check (eventlog/checks.py) knows each vendor's
triggers: the migrated test database has every one it expects."""

import pytest
from django.db import connection

from eventlog.checks import _triggers_of, append_only_triggers, installed_triggers


@pytest.mark.django_db
def test_the_migrated_database_has_every_trigger_its_vendor_expects():
    expected = {t for names in _triggers_of(connection).expected.values() for t in names}
    assert expected and expected <= installed_triggers(connection)
    assert append_only_triggers(databases=["default"]) == []
