"""Production as it runs: the deploy checks, the security block, the JSON
logs, the entrypoint and the compose file (the running processes themselves
are proven by `make prod-check`, bench/prod_check.py)."""

import json
import logging
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from runtime.logging import JsonFormatter, log_context

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"


def production_env(tmp_path, **more) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LOG_"))}
    env.update(
        DJANGO_DEBUG="0",
        # a key as a real deployment has one: long and random
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="shows.example.org",
        DJANGO_SSL_REDIRECT="1",
        DATABASE_URL="postgresql://showtable_app:secret@db.example.org:5432/showtable",
        REDIS_URL="redis://redis.example.org:6379/0",
        VAR_DIR=str(tmp_path),
    )
    env.update(more)
    return env


def run_manage(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_with_production_variables_has_no_warnings(tmp_path):
    proc = run_manage(production_env(tmp_path), "check", "--deploy", "--fail-level", "WARNING")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues (0 silenced)." in proc.stdout


def test_check_deploy_warns_when_hsts_is_turned_off(tmp_path):
    # the check above can fail: without HSTS the same command complains
    env = production_env(tmp_path, DJANGO_HSTS_SECONDS="0")
    proc = run_manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert proc.returncode != 0
    assert "security.W004" in proc.stdout + proc.stderr


PROBE = """
import json
import django
django.setup()
from django.test import Client
c = Client(HTTP_HOST="shows.example.org")
home = c.get("/")
health = c.get("/healthz")
secure = c.get("/healthz", headers={"x-forwarded-proto": "https"})
print(json.dumps({
    "home": [home.status_code, home.get("Location")],
    "health": health.status_code,
    "hsts": secure.get("Strict-Transport-Security"),
}))
"""


def test_production_redirects_to_https_but_lets_the_health_probe_through(tmp_path):
    # a probe from inside the host or container speaks plain HTTP to /healthz
    env = production_env(tmp_path, DATABASE_URL="", REDIS_URL="", LOG_LEVEL="ERROR")
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{ROOT / 'platform'}"
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["home"] == [301, "https://shows.example.org/"]
    assert out["health"] == 200
    assert out["hsts"] == "max-age=31536000; includeSubDomains; preload"


def _record(msg="timeout of %s written", *args, **extra):
    record = logging.LogRecord("clocks.enforce", logging.INFO, __file__, 1, msg, args, None)
    for k, v in extra.items():
        setattr(record, k, v)
    return record


def test_json_log_line_carries_time_level_logger_message_and_ids():
    with log_context(stream="match-7", match_id=7):
        line = JsonFormatter().format(_record("timeout of %s written", "match-7"))
    out = json.loads(line)
    assert "\n" not in line
    assert out["level"] == "INFO" and out["logger"] == "clocks.enforce"
    assert out["message"] == "timeout of match-7 written"
    assert out["stream"] == "match-7" and out["match_id"] == 7
    assert out["time"].endswith("+00:00")


def test_json_log_ids_from_extra_win_and_the_context_ends_with_its_block():
    with log_context(stream="show-1", match_id=3):
        line = JsonFormatter().format(_record(stream="match-9"))
    assert json.loads(line)["stream"] == "match-9"
    out = json.loads(JsonFormatter().format(_record()))
    assert "stream" not in out and "match_id" not in out


def test_json_log_keeps_the_traceback_on_the_same_line():
    try:
        raise ValueError("boom")
    except ValueError:
        record = _record()
        record.exc_info = sys.exc_info()
    line = JsonFormatter().format(record)
    assert "\n" not in line
    assert "ValueError: boom" in json.loads(line)["exc"]


@pytest.mark.django_db
def test_healthz_fails_when_redis_does_not_answer(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    resp = client.get("/healthz")
    assert resp.status_code == 503
    body = resp.json()
    assert body["status"] == "degraded"
    assert body["broker"]["ok"] is False and body["database"]["ok"] is True


def test_entrypoint_runs_from_any_directory_with_both_import_roots(tmp_path):
    proc = subprocess.run(
        [
            str(DOCKER / "entrypoint.sh"),
            sys.executable,
            "-c",
            "import os, django; django.setup(); import eventlog.store, games.services;"
            "print(os.getcwd(), os.environ['LOG_FORMAT'])",
        ],
        cwd=tmp_path,
        env=production_env(tmp_path, DATABASE_URL="", REDIS_URL=""),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(ROOT), "json"]


def test_compose_runs_every_role_with_secrets_only_from_the_env_file():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "redis", "migrate", "web", "worker", "beat", "reactors"}
    for role in ("migrate", "web", "worker", "beat", "reactors"):
        assert services[role]["command"] == [role]
        assert services[role]["env_file"] == [".env"]
    assert "grant_app_role" in (DOCKER / "entrypoint.sh").read_text()
    # two database URLs: the owner migrates, everything else is the app role
    migrate_env = services["migrate"]["environment"]
    assert "${POSTGRES_USER" in migrate_env["MIGRATE_DATABASE_URL"]
    for role in ("web", "worker", "beat", "reactors"):
        url = services[role]["environment"]["DATABASE_URL"]
        assert url.startswith("postgresql://${APP_DB_USER"), role
    assert "/healthz" in json.dumps(services["web"]["healthcheck"])
    # no password is written in the repository: each is read from docker/.env
    for name, service in services.items():
        env = service.get("environment") or {}
        for key, value in env.items():
            if "PASSWORD" in key:
                assert re.fullmatch(r"\$\{[A-Z_]+[^}]*\}", value), (name, key)
            for creds in re.findall(r"://([^@/]+)@", value):
                assert re.fullmatch(r"(\$\{[^}]+\}:?)+", creds), (name, key, value)
    example = (DOCKER / "env.example").read_text()
    assert all(
        v.startswith("CHANGE-ME")
        for k, v in (ln.split("=", 1) for ln in example.splitlines() if "=" in ln)
        if "PASSWORD" in k or "SECRET" in k
    )
    assert "docker/.env" in (ROOT / ".gitignore").read_text().split()


def test_image_runs_as_a_user_that_is_not_root():
    dockerfile = (DOCKER / "Dockerfile").read_text().splitlines()
    users = [ln.split()[1] for ln in dockerfile if ln.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert any(ln.startswith("HEALTHCHECK") for ln in dockerfile)


@pytest.mark.django_db
def test_a_request_while_the_database_is_away_gets_a_503_that_says_so(client, monkeypatch):
    from django.db import OperationalError

    from games import api

    def away(self, request):
        raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")

    monkeypatch.setattr(api.MatchList, "get", away)
    client.raise_request_exception = False
    resp = client.get("/api/matches/")
    assert resp.status_code == 503
    assert resp["Retry-After"] == "5"
    assert "database is unavailable" in resp.json()["message"]
    assert "127.0.0.1" not in resp.json()["message"]


def test_a_worker_survives_redis_going_away_with_messages_unacked():
    # kombu's redis channel, closing after Redis went away, restores its unacked
    # messages through a released connection: without config.celery's guard the
    # AttributeError ends the worker instead of letting it reconnect
    from types import SimpleNamespace

    from kombu.transport import redis as kombu_redis

    import config.celery  # noqa: F401  (installs the guard)

    qos = kombu_redis.QoS.__new__(kombu_redis.QoS)
    gone = SimpleNamespace(connection=SimpleNamespace(client=None))
    qos.channel = gone
    qos._delivered = {"tag-1": object()}
    assert qos.restore_unacked() is None
    assert not qos._delivered


def test_a_task_ending_after_redis_went_away_does_not_end_its_worker():
    # a long task (the clocks' watching loop) acks when it ends: through the
    # channel closed when Redis went away, kombu's ack raised AttributeError and
    # the worker died (prod-check: "worker2 exited (code 1)" after a Redis restart)
    from types import SimpleNamespace

    from kombu.transport import redis as kombu_redis

    import config.celery  # noqa: F401  (installs the guard)

    qos = kombu_redis.QoS.__new__(kombu_redis.QoS)
    qos.channel = SimpleNamespace(connection=None)
    qos._delivered = {"tag-1": object()}
    assert qos.ack("tag-1") is None
    assert not qos._delivered


def test_the_image_holds_every_package_the_project_installs():
    # ratings/ and broadcast/ were left out of the image once: its web role could not start
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    found = project["tool"]["setuptools"]["packages"]["find"]
    folders = {
        pattern.rstrip("*")
        for pattern in found["include"]
        if (ROOT / pattern.rstrip("*")).is_dir()  # the top-level ones (the rest are in platform/)
    }
    copied = {
        line.split()[1].rstrip("/")
        for line in (DOCKER / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ")
    }
    assert folders and folders <= copied, sorted(folders - copied)
    assert "platform" in copied


def test_the_entrypoint_leaves_the_reactors_to_their_own_processes(tmp_path):
    proc = subprocess.run(
        [
            str(DOCKER / "entrypoint.sh"),
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings;"
            "print(settings.REACTORS_INLINE)",
        ],
        cwd=tmp_path,
        env=production_env(tmp_path, DATABASE_URL="", REDIS_URL=""),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False"]
    assert (
        'reactors)\n    exec "$PYTHON" manage.py run_reactors'
        in (DOCKER / "entrypoint.sh").read_text()
    )


def run_pooled(tmp_path, code: str, pool_size: str) -> list[str]:
    """``code`` run by Python under the production settings on the tests'
    database with a pool of ``pool_size`` (DB_POOL_SIZE): the words it printed."""
    env = production_env(
        tmp_path,
        DATABASE_URL=os.environ["DATABASE_URL"],
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DB_POOL_SIZE=pool_size,
        DB_CONN_MAX_AGE="0",
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT / "platform",
        env={
            **env,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PYTHONPATH": f"{ROOT / 'platform'}:{ROOT}",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split()


POOLED = (
    "import django; django.setup()\n"
    "from django.conf import settings\n"
    "from django.db import connection\n"
    "pids = []\n"
    "for _ in range(10):  # ten requests, each closing its connection at the end\n"
    "    with connection.cursor() as cursor:\n"
    "        cursor.execute('SELECT pg_backend_pid()')\n"
    "        pids.append(cursor.fetchone()[0])\n"
    "    connection.close()\n"
    "db = settings.DATABASES['default']\n"
    "print(db['CONN_MAX_AGE'], db.get('OPTIONS', {}).get('pool', {}).get('max_size'), len(set(pids)))\n"
)


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("size", "pool", "connections"), [("3", "3", {1, 2, 3}), ("0", "None", {10})]
)
def test_the_web_roles_pool_hands_a_closed_connection_to_the_next_request(
    tmp_path, size, pool, connections
):
    """DB_POOL_SIZE (the web role's default is 8): a request's closed
    connection goes back to the pool and the next request gets it, instead
    of opening one of its own (without the pool: ten connections; the pool
    grows while the first request waits for its first connection, up to its
    size of three on a loaded machine)."""
    max_age, max_size, opened = run_pooled(tmp_path, POOLED, size)[-3:]
    assert (max_age, max_size) == ("0", pool) and int(opened) in connections
    assert 'export DB_POOL_SIZE="${DB_POOL_SIZE:-8}"' in (DOCKER / "entrypoint.sh").read_text()


def test_gunicorn_logging_config_names_formatters_that_exist():
    """docker/gunicorn-logging.json names its formatter by dotted path: a module
    moved without it stops every web process at start-up (gunicorn exits)."""
    import logging.config

    config = json.loads((ROOT / "docker" / "gunicorn-logging.json").read_text())
    config["loggers"] = {"gunicorn-logging-probe": config["loggers"]["gunicorn.error"]}
    logging.config.dictConfig(config)
    handler = logging.getLogger("gunicorn-logging-probe").handlers[0]
    assert isinstance(handler.formatter, JsonFormatter)
    logging.getLogger("gunicorn-logging-probe").handlers.clear()
