"""A database check (``manage.py check --database default``, run after every
migrate): the append-only triggers are in place. On SQLite a later migration
that makes Django rebuild the event table drops them without a word."""

from dataclasses import dataclass

from django.core.checks import Error, Tags, register
from django.db import connections
from django.db.migrations.recorder import MigrationRecorder

from .models import StoredEvent


@dataclass(frozen=True)
class _Triggers:
    """What one database vendor keeps of the append-only triggers: the names
    each migration installs, and the statement that lists those in place."""

    expected: dict[str, list[str]]
    installed_sql: str


_TRIGGERS = {
    "sqlite": _Triggers(
        expected={
            "0002_append_only_triggers": ["eventlog_no_update", "eventlog_no_delete"],
            "0005_logdb_gapless_versions": ["eventlog_append_checked"],
        },
        installed_sql="SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s",
    ),
    "postgresql": _Triggers(
        expected={
            "0002_append_only_triggers": ["eventlog_no_update_delete"],
            "0003_command_id_per_stream_no_truncate": ["eventlog_no_truncate"],
            "0005_logdb_gapless_versions": ["eventlog_append_checked"],
        },
        # a disabled trigger guards nothing: it counts as missing
        installed_sql=(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass(%s) "
            "AND NOT tgisinternal AND tgenabled <> 'D'"
        ),
    ),
}


def _triggers_of(connection) -> _Triggers | None:
    """The triggers of ``connection``'s vendor (None: a vendor the log has none for)."""
    return _TRIGGERS.get(connection.vendor)


def installed_triggers(connection) -> set[str]:
    with connection.cursor() as cur:
        cur.execute(_triggers_of(connection).installed_sql, [StoredEvent._meta.db_table])
        return {name for (name,) in cur.fetchall()}


@register(Tags.database)
def append_only_triggers(app_configs=None, databases=None, **kwargs):
    errors = []
    for alias in databases or []:
        connection = connections[alias]
        triggers = _triggers_of(connection)
        if triggers is None:
            continue
        applied = MigrationRecorder(connection).applied_migrations()
        expected = triggers.expected.items()
        wanted = [t for m, names in expected if ("eventlog", m) in applied for t in names]
        if not wanted:
            continue  # not migrated yet: nothing to guard
        missing = [t for t in wanted if t not in installed_triggers(connection)]
        if missing:
            errors.append(
                Error(
                    f"the event table ({alias}) has lost its append-only trigger(s): "
                    + ", ".join(missing),
                    hint="a migration rebuilt or altered the table; add a migration that "
                    "reinstalls the triggers (see eventlog/migrations/0002, 0003 and 0005)",
                    id="eventlog.E001",
                )
            )
    return errors


# the reactors' positions are (writing transaction, id): the log's newest
# transaction against the next one this server will hand out (no xid taken)
_TX_AHEAD_SQL = (
    "SELECT max(tx)::text, pg_snapshot_xmax(pg_current_snapshot())::text FROM {table} "
    "WHERE tx >= pg_snapshot_xmax(pg_current_snapshot())"
)


def _postgresql_after(databases, migration: str):
    """(alias, connection) of each PostgreSQL database among ``databases``
    where the log's ``migration`` ran."""
    for alias in databases or []:
        connection = connections[alias]
        if connection.vendor != "postgresql":
            continue
        if ("eventlog", migration) in MigrationRecorder(connection).applied_migrations():
            yield alias, connection


@register(Tags.database)
def log_transactions_behind_the_server(app_configs=None, databases=None, **kwargs):
    """PostgreSQL: every event was written by a transaction older than the
    server's next one. A log restored into another server whose transaction
    counter is behind the log's fails it: each new event would sort before
    the events the reactors have passed (they read in (tx, id) order), and
    webhooks, live updates, reminders and ratings would skip it without a word."""
    errors = []
    for alias, connection in _postgresql_after(databases, "0007_reactors_event_tx"):
        with connection.cursor() as cur:
            cur.execute(_TX_AHEAD_SQL.format(table=StoredEvent._meta.db_table))
            newest, server_next = cur.fetchone()
        if newest is not None:
            errors.append(
                Error(
                    f"the event log ({alias}) was written by transactions up to {newest}, "
                    f"ahead of this server's next transaction ({server_next}): the reactors "
                    "would skip every new event",
                    hint="a log restored into another PostgreSQL server: advance that "
                    "server's transaction counter past the log's before the site starts "
                    "(pg_resetwal -x on the stopped server; docs/operations/backup.md, "
                    '"Restore into another server")',
                    id="eventlog.E002",
                )
            )
    return errors


@register(Tags.database)
def append_not_whole_function(app_configs=None, databases=None, **kwargs):
    """The function an append alone calls to undo itself (migration 0010):
    without it, every move's statement fails."""
    errors = []
    for alias, connection in _postgresql_after(databases, "0010_append_not_whole"):
        with connection.cursor() as cur:
            cur.execute("SELECT to_regprocedure('eventlog_append_not_whole()') IS NOT NULL")
            (found,) = cur.fetchone()
        if not found:
            errors.append(
                Error(
                    f"the event log's function eventlog_append_not_whole() is missing ({alias}):"
                    " every move would fail",
                    hint="migrate eventlog back to 0009 and forward again to reinstall it",
                    id="eventlog.E003",
                )
            )
    return errors
