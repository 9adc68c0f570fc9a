#!/bin/sh
# One image, three roles: web (migrate, collect static, serve), worker, beat.
set -e
export PYTHONPATH="/app:/app/platform${PYTHONPATH:+:$PYTHONPATH}"
case "$1" in
  web)
    python manage.py migrate --noinput
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
