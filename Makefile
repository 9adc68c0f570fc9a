# The two commands: `make run` and `make test` (README). Only Python 3.11 needed.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test lint format bench install migrate demo static clean prod-check docs docs-serve

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is needed (set PYTHON=/path/to/python3.11)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml constraints.txt
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

# the translations (.po) compiled to .mo, with or without GNU gettext's msgfmt; the
# site's VAPID keys for web push made once in var/ (like the secret key); the
# manual's own Mermaid, pinned (mkdocs_hooks.py), when npm is there
install: $(STAMP) var/secret_key
	$(PY) manage.py compile_catalogs
	DJANGO_SECRET_KEY="$$(cat var/secret_key)" $(PY) manage.py make_vapid_keys -v0
	@$(PY) mkdocs_hooks.py fetch

# `make run` serves without DEBUG (no debug pages), over plain http, with a
# secret key of this machine's own, made once in var/
LOCAL_ENV = DJANGO_DEBUG=0 DJANGO_HTTPS=0 LOG_FORMAT=plain SITE_URL=http://$(HOST):$(PORT) \
	EMAIL_BACKEND=django.core.mail.backends.console.EmailBackend \
	DJANGO_SECRET_KEY="$$(cat var/secret_key)"

var/secret_key:
	@mkdir -p var && umask 077 && $(PYTHON) -c "import secrets; print(secrets.token_urlsafe(50))" > $@

migrate: install var/secret_key
	@echo "migrating the database"
	@$(LOCAL_ENV) $(PY) manage.py migrate --noinput -v 0

demo: migrate
	@$(LOCAL_ENV) $(PY) manage.py seed_demo

# the static files first (hashed names, compressed): the demo's logins come last
run: static demo
	@echo "Serving on http://$(HOST):$(PORT)/ (Ctrl-C stops); the manual at http://$(HOST):$(PORT)/docs/"
	@$(LOCAL_ENV) $(PY) manage.py runserver_embedded $(HOST):$(PORT)

static: install var/secret_key
	@echo "collecting the static files and building the manual"
	@$(LOCAL_ENV) $(PY) manage.py collectstatic --noinput -v0
	@$(VENV)/bin/mkdocs build --quiet || echo "the manual did not build (make docs says why); serving without it"

test: install
	$(PY) -m pytest -p xdist -n 2 --dist loadfile -q --durations=30

# the style, then the layers (.importlinter: docs/architecture, "The layers")
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	PYTHONPATH=.:platform $(VENV)/bin/lint-imports --no-cache

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install var/secret_key
	$(LOCAL_ENV) $(PY) bench/run.py

# the manual (docs/, mkdocs.yml) built strictly into var/site: a broken link, an
# anchor that is gone or a page left out of the navigation fails; served at /docs/
docs: install
	$(VENV)/bin/mkdocs build --strict

docs-serve: install
	$(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8001

clean:
	rm -rf $(VENV) var/*.sqlite3 .pytest_cache

# the production processes (docker/entrypoint.sh) under a bot show and faults, on this
# machine's PostgreSQL (PROD_CHECK_PG) and a private Redis: see bench/prod_check.py
prod-check: install
	$(PY) bench/prod_check.py
