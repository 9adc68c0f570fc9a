"""The operators' backup and restore (docs/operations/backup.md), run as
written: dump the database, restore it into a new one (dropped first if it
is there), give the app role its rights and check the database, compare the
restored log with the source's row for row, rebuild the read models from
it, and check they equal the source's; and
`check_read_models`, the command that says whether read models equal the log."""

import io
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection

from eventlog.readmodels import fingerprint
from games.models import Match
from tests.ratings.helpers import play_out, rated_match
from tournaments import show_services as ss

ROOT = Path(__file__).resolve().parents[2]


def _a_little_of_everything():
    rng = random.Random(11)
    ana = User.objects.create_user("ana_backup", password="pw-123456")
    ben = User.objects.create_user("ben_backup", password="pw-123456")
    match = rated_match(
        "love-me-not", {"ana": ana.pk, "ben": ben.pk}, now=time.time() - 3600, rng=rng
    )
    play_out(match, rng, now=time.time() - 3600)
    ss.create_show(
        name="Backup night",
        organizer="olga",
        entrants=["ana", "ben", "cal", "dee"],
        holders={n: "bot:heuristic" for n in ("ana", "ben", "cal", "dee")},
        rng=rng,
    )


@pytest.mark.django_db(transaction=True)
def test_check_read_models_says_equal_then_names_a_table_that_drifted():
    _a_little_of_everything()
    out = io.StringIO()
    call_command("check_read_models", stdout=out)
    assert "read models equal a rebuild from the log" in out.getvalue()

    Match.objects.filter(status="finished").update(status="live")  # a read model gone wrong
    with pytest.raises(CommandError, match="games_match"):
        call_command("check_read_models", stdout=io.StringIO())
    # the check changed nothing: the row is still wrong until a rebuild
    assert Match.objects.filter(status="finished").count() == 0
    call_command("rebuild_read_models", stdout=io.StringIO())
    call_command("check_read_models", stdout=io.StringIO())
    assert Match.objects.filter(status="finished").count() == 1


def _manage(database_url: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DATABASE_URL=database_url, DJANGO_SECRET_KEY="backup-test-" + "k" * 40, LOG_LEVEL="WARNING"
    )
    run = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


def _log(database_url: str) -> tuple[int, str]:
    """The event log of a database: its rows and a digest of every column
    (the database's own `recorded_at` and `tx` included), in id order."""
    with psycopg.connect(database_url) as db:
        return db.execute(
            "SELECT count(*), md5(coalesce(string_agg(e::text, '|' ORDER BY id), '')) "
            "FROM eventlog_storedevent e"
        ).fetchone()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_dump_restored_and_rebuilt_holds_the_same_read_models(tmp_path):
    _a_little_of_everything()
    call_command("check_read_models", stdout=io.StringIO())
    source = connection.settings_dict
    source_url = f"postgresql://{source['USER']}@{source['HOST']}:{source['PORT']}/{source['NAME']}"
    restored_name = f"{source['NAME']}_restored"
    restored_url = source_url.rsplit("/", 1)[0] + "/" + restored_name
    admin_url = source_url.rsplit("/", 1)[0] + "/postgres"
    dump = tmp_path / "showtable.dump"
    app_role = f"{source['NAME']}_restored_app"[:63]

    # the procedure, step by step
    subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", source_url], check=True)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{restored_name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{restored_name}"')
    try:
        subprocess.run(
            [
                "pg_restore",
                "--no-owner",
                "--disable-triggers",
                "--exit-on-error",
                f"--dbname={restored_url}",
                str(dump),
            ],
            check=True,
        )
        # step 3: the app role's rights again, and the database's checks
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP ROLE IF EXISTS "{app_role}"')
            admin.execute(f'CREATE ROLE "{app_role}" NOLOGIN')
        _manage(restored_url, "grant_app_role", app_role)
        checked = _manage(restored_url, "check", "--database", "default")
        assert "no issues" in checked
        assert _log(restored_url) == _log(source_url)  # every event as it was, to its tx
        assert "rebuilt read models" in _manage(restored_url, "rebuild_read_models")
        checked = json.loads(_manage(restored_url, "check_read_models", "--json"))
        assert checked["equal"] and checked["events"] > 20
        restored = json.loads(_manage(restored_url, "check_read_models", "--fingerprint"))
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{restored_name}" WITH (FORCE)')
            admin.execute(f'DROP ROLE IF EXISTS "{app_role}"')

    live = fingerprint()
    assert restored == live
    assert live["games_match"]["rows"] >= 1 and live["tournaments_showrecord"]["rows"] == 1
