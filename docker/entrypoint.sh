#!/bin/sh
# One image, four roles, started the same way in compose and by `make prod-check`
# (which runs this script directly on the host: every path is relative to the repo).
#   migrate  one-shot: migrations as the database owner (MIGRATE_DATABASE_URL),
#            then grant the app role, then collect static files
#   web      gunicorn supervising WEB_WORKERS uvicorn (ASGI) worker processes
#   worker   a Celery worker, prefork pool of CELERY_CONCURRENCY processes
#   beat     the one Celery beat (deadline sweep, bot moves); run exactly one
#   reactors `manage.py run_reactors`: follows the event log (webhook deliveries...);
#            run one or more, they share the log's partitions and take over a dead one's
# Anything else is run as a command with the same environment (e.g. `python manage.py shell`).
set -e
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export PYTHONPATH="$ROOT:$ROOT/platform${PYTHONPATH:+:$PYTHONPATH}"
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-config.settings}"
export LOG_FORMAT="${LOG_FORMAT:-json}"
PYTHON="${PYTHON:-python}"
# the reactors follow the log in their own processes (the `reactors` role), not in the
# request that appended (reactors.follow)
export REACTORS_INLINE="${REACTORS_INLINE:-0}"

case "$1" in
  migrate)
    DATABASE_URL="${MIGRATE_DATABASE_URL:-$DATABASE_URL}" "$PYTHON" manage.py migrate --noinput
    # ---- grant the app role (least privilege: INSERT/SELECT on events) -----------
    if [ -n "$APP_DB_USER" ]; then
      DATABASE_URL="${MIGRATE_DATABASE_URL:-$DATABASE_URL}" \
        "$PYTHON" manage.py grant_app_role "$APP_DB_USER"
    fi
    # refuse to go on if the event table lost an append-only trigger
    DATABASE_URL="${MIGRATE_DATABASE_URL:-$DATABASE_URL}" "$PYTHON" manage.py check --database default
    # -------------------------------------------------------------------------------
    # the image has them already (Dockerfile); on a host this fills VAR_DIR/static
    "$PYTHON" manage.py collectstatic --noinput --verbosity 0
    # web push: the site's VAPID keys, made once (VAPID_PRIVATE_KEY_FILE, default VAR_DIR)
    "$PYTHON" manage.py make_vapid_keys --verbosity 0
    ;;
  web)
    # a pool of connections per process (DB_POOL_SIZE in settings; 0: one
    # connection per request, DB_CONN_MAX_AGE=0 under ASGI)
    export DB_POOL_SIZE="${DB_POOL_SIZE:-8}"
    export DB_CONN_MAX_AGE="${DB_CONN_MAX_AGE:-0}"
    # gunicorn's own process logs JSON too (its workers log through Django's LOGGING)
    if [ "$LOG_FORMAT" = "json" ]; then
      set -- --log-config-json "$ROOT/docker/gunicorn-logging.json"
    else
      set --
    fi
    exec "$PYTHON" -m gunicorn config.asgi:application \
      --worker-class uvicorn_worker.UvicornWorker \
      --workers "${WEB_WORKERS:-2}" \
      --bind "${WEB_BIND:-0.0.0.0:8000}" \
      --graceful-timeout 20 --timeout 60 --keep-alive 5 \
      --forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-${TRUSTED_PROXIES:-127.0.0.1}}" \
      --no-control-socket --access-logfile - --error-logfile - "$@"
    ;;
  worker)
    exec "$PYTHON" -m celery -A config --quiet worker --pool prefork \
      --concurrency "${CELERY_CONCURRENCY:-2}" \
      --hostname "${CELERY_HOSTNAME:-worker@%h}" \
      --loglevel INFO --without-mingle --without-gossip
    ;;
  beat)
    # django-celery-beat's database scheduler: the sweeps, and recurring shows from templates
    exec "$PYTHON" -m celery -A config --quiet beat --loglevel INFO \
      --scheduler django_celery_beat.schedulers:DatabaseScheduler
    ;;
  reactors)
    exec "$PYTHON" manage.py run_reactors
    ;;
  *)
    exec "$@"
    ;;
esac
