#!/bin/sh
# One image, four roles: migrate (as the database owner), web (collect
# static, serve), worker, beat (these three as the app role).
set -e
export PYTHONPATH="/app:/app/platform${PYTHONPATH:+:$PYTHONPATH}"
case "$1" in
  migrate)
    # as the owner: migrate, give the app role its rights (new tables too),
    # and refuse to go on if the event table lost an append-only trigger
    python manage.py migrate --noinput
    python manage.py grant_app_role "${2:?name the app role: migrate ROLE}"
    python manage.py check --database default
    ;;
  web)
    python manage.py collectstatic --noinput
    exec daphne -b 0.0.0.0 -p 8000 config.asgi:application
    ;;
  worker)
    exec celery -A config worker --loglevel=INFO --concurrency="${CELERY_CONCURRENCY:-2}"
    ;;
  beat)
    exec celery -A config beat --loglevel=INFO --schedule /app/var/celerybeat-schedule
    ;;
  *)
    exec "$@"
    ;;
esac
