"""Give the web and worker processes' database role what they need and no
more: every read model read and written, the event log only read and
appended to. The owner runs it after every migrate (new tables need it too).
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.db.migrations.recorder import MigrationRecorder

from eventlog.models import StoredEvent


class Command(BaseCommand):
    help = (
        "PostgreSQL: grant ROLE SELECT/INSERT/UPDATE/DELETE on every table but "
        "only SELECT and INSERT on the event log (and SELECT on django_migrations). "
        "Run as the tables' owner after migrating."
    )

    def add_arguments(self, parser):
        parser.add_argument("role", help="the role the web and worker processes connect as")

    def handle(self, *args, role, **options):
        if connection.vendor != "postgresql":
            raise CommandError("database roles are a PostgreSQL matter; SQLite has none")
        q = connection.ops.quote_name
        events = q(StoredEvent._meta.db_table)
        migrations = q(MigrationRecorder.Migration._meta.db_table)
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(
                "SELECT r.rolsuper, pg_has_role(r.oid, c.relowner, 'MEMBER'), current_schema() "
                "FROM pg_roles r, pg_class c WHERE r.rolname = %s AND c.oid = to_regclass(%s)",
                [role, StoredEvent._meta.db_table],
            )
            found = cur.fetchone()
            if found is None:
                raise CommandError(
                    f"no role {role!r} (create it first: CREATE ROLE {role} LOGIN PASSWORD ...), "
                    "or the event table is not migrated yet"
                )
            superuser, owns, schema = found
            if superuser or owns:
                raise CommandError(
                    f"{role!r} is a superuser or the event table's owner (or a member of it): "
                    "the app must connect as a role that cannot rewrite the log"
                )
            role_q, schema_q = q(role), q(schema)
            for sql in (
                f"GRANT USAGE ON SCHEMA {schema_q} TO {role_q}",
                f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema_q} TO {role_q}",
                f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema_q} TO {role_q}",
                f"REVOKE ALL ON {events}, {migrations} FROM {role_q}",
                f"GRANT SELECT, INSERT ON {events} TO {role_q}",
                f"GRANT SELECT ON {migrations} TO {role_q}",
            ):
                cur.execute(sql)
        if options["verbosity"]:
            self.stdout.write(
                self.style.SUCCESS(f"{role} may read and append events, and no more, on them")
            )
