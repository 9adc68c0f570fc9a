#!/bin/sh
# Runs once, when the database volume is first initialised: the role the web
# and worker processes connect as. It owns nothing; `manage.py grant_app_role`
# (the migrate service, as the owner) gives it its rights after each migrate.
set -e
psql -v ON_ERROR_STOP=1 -v pw="${APP_DB_PASSWORD:-showtable_app}" \
  --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE ROLE showtable_app LOGIN PASSWORD :'pw';
SQL
