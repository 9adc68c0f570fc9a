#!/bin/sh
# Runs once, when the database volume is first initialised: the role the web
# and worker processes connect as (APP_DB_USER). It owns nothing; `manage.py
# grant_app_role` (the migrate service, as the owner) gives it its rights after
# each migrate.
set -e
psql -v ON_ERROR_STOP=1 -v role="${APP_DB_USER:?set APP_DB_USER}" -v pw="${APP_DB_PASSWORD:?set APP_DB_PASSWORD}" \
  --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'pw';
SQL
