"""The one settings module. Everything comes from the environment; with
nothing set it runs embedded: SQLite in var/, the in-memory channel layer,
Celery eager in-process. The defaults are production-safe: DEBUG off unless
DJANGO_DEBUG=1, and DJANGO_SECRET_KEY required unless DEBUG is on (`make run`
and the tests' settings_test.py set what they need explicitly)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from runtime.logging import logging_config

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)
(VAR_DIR / "static").mkdir(exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in ("1", "true", "yes", "on")


DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
_KEY_FILE = VAR_DIR / "secret_key"  # this machine's own random key, made by `make install`
if not SECRET_KEY and _KEY_FILE.is_file():
    SECRET_KEY = _KEY_FILE.read_text().strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set unless DJANGO_DEBUG=1 "
            "(`make install` makes this machine one in var/secret_key)"
        )
    SECRET_KEY = "dev-only-insecure-key-never-used-in-production"

ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "" if not DEBUG else "*").split(",")
    if h.strip()
] or ["localhost", "127.0.0.1"]
# the reverse proxies (addresses or networks) whose X-Forwarded-For is believed for
# the limits per address and the login lockout (api.client_address); none by default
TRUSTED_PROXIES = [p.strip() for p in os.environ.get("TRUSTED_PROXIES", "").split(",") if p.strip()]
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"TRUSTED_PROXIES: {_proxy!r} is not an address or a network"
        ) from None
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "channels",
    "eventlog",
    "clocks",
    "live",
    "games",
    "tournaments",
    "ratings",
    "broadcast",
    "chat",
    "api",
    "hooks",
    "reminders",
    "reactors",
    "django_celery_beat",
    "config",  # its management commands (compile_catalogs, runserver_embedded)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # after the session (it reads the chosen language), before CommonMiddleware
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.middleware.NotAllowedPage",
]

# Content-Security-Policy (django-csp): scripts, styles, fonts and sockets from this
# site only, nothing inline; no page may be framed (X-Frame-Options says the same),
# save the overlays a streaming tool shows (broadcast.views.overlay)
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.your_turn",
                "tournaments.context_processors.show_staff",
                "reminders.context_processors.reminders",
            ],
        },
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL", "")
# DB_POOL_SIZE > 0: a pool of at most that many PostgreSQL connections per
# process (psycopg_pool, Django's "pool" option). The web role uses one
# (docker/entrypoint.sh): under ASGI Django's persistent connections are per
# thread and would pile up in the server's thread pool, so without a pool
# every request would open a connection of its own.
DB_POOL_SIZE = int(os.environ.get("DB_POOL_SIZE") or 0)
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL,
            conn_max_age=0 if DB_POOL_SIZE else int(os.environ.get("DB_CONN_MAX_AGE", "60")),
            # pooled: the pool checks a connection idle a while (config.pooled_postgresql)
            conn_health_checks=not DB_POOL_SIZE,
        )
    }
    if DB_POOL_SIZE:
        DATABASES["default"]["ENGINE"] = "config.pooled_postgresql"
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": DB_POOL_SIZE,
            "timeout": 10,  # seconds a request waits for a free connection, then an error
            "max_idle": 60,
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(VAR_DIR / "db.sqlite3")),
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")


def channel_layer_prefix(redis_url: str) -> str:
    """The channel layer's names carry the Redis database of REDIS_URL:
    pub/sub channels are the whole server's, not a database's, so two sites
    on one Redis server (or two test runs) keep apart as their keys do."""
    database = urlsplit(redis_url).path.strip("/")
    return f"asgi-{database if database.isdigit() else 0}-"


if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's pub/sub layer: a process subscribes once to each group its
            # sockets joined and hands a message to them in memory, as lila-ws does (the
            # list-based layer queued a process's messages behind one blocking pop each and
            # dropped them past a capacity under load: docs/benchmarks/learned.md)
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # a command (a publish, a subscribe) to a Redis that stopped answering fails
            # after this, and the socket's rejoin (LIVE_REJOIN_S) catches up
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 15}],
                "prefix": channel_layer_prefix(REDIS_URL),
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
    # embedded mode: the clock worker runs as a thread inside the server (clocks.embedded)
    CELERY_TASK_ALWAYS_EAGER = False
# webhooks may reach loopback and private addresses only when this is on (tests, a LAN)
HOOKS_ALLOW_PRIVATE_ADDRESSES = env_bool("HOOKS_ALLOW_PRIVATE_ADDRESSES", False)
# reactors (reactors.follow) follow the log in their own processes (`manage.py
# run_reactors`, docker/entrypoint.sh sets this off); embedded mode also runs them in
# the appending process right after the commit
REACTORS_INLINE = env_bool("REACTORS_INLINE", True)
REACTOR_PARTITIONS = int(os.environ.get("REACTOR_PARTITIONS") or 8)
REACTOR_LEASE_S = float(os.environ.get("REACTOR_LEASE_S") or 10)
# a reactor failing on an append tries it again after 1, 2, 4... s (at the next
# catch-up), then parks it after this many tries in a row (reactors.ParkedAppend)
REACTOR_RETRIES = int(os.environ.get("REACTOR_RETRIES") or 5)
REACTOR_BACKOFF_S = float(os.environ.get("REACTOR_BACKOFF_S") or 1)
# once an append wakes the reactors, the appends of this many seconds more are
# gathered into the same pass (one read and one pass for many moves under load;
# a move's own pushes do not wait for it: its process announces the version)
REACTOR_GATHER_S = float(os.environ.get("REACTOR_GATHER_S") or 0.05)
# recurring shows (templates) are periodic tasks in the database: django-celery-beat's
# scheduler runs them (beat in production; the embedded thread under `make run`)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# deadlines this close are armed when they are set; later ones by the sweep (every
# 2 s) once they come this close (clocks.arming): keep it well above 2 s
CLOCKS_ARM_AHEAD_S = float(os.environ.get("CLOCKS_ARM_AHEAD_S") or 10)
# a bot's pause before each move (games.services.bot_pause): this share of the
# time its decision allows, jittered, between the two bounds; and at least the
# window while a person may act (an item's declaration, a bid), so a bot never
# closes such a window faster than a person could use it
BOT_PAUSE_SHARE = float(os.environ.get("BOT_PAUSE_SHARE") or 0.05)
BOT_PAUSE_MIN_S = float(os.environ.get("BOT_PAUSE_MIN_S") or 1)
BOT_PAUSE_MAX_S = float(os.environ.get("BOT_PAUSE_MAX_S") or 6)
BOT_PERSON_WINDOW_S = float(os.environ.get("BOT_PERSON_WINDOW_S") or 15)
# a bot whose move would close an item's window a person holds (Insurance
# before the bout's first play) waits this long for them, within its own
# decision's time (games.services.bot_pause)
BOT_ITEM_WINDOW_S = float(os.environ.get("BOT_ITEM_WINDOW_S") or 50)
# a match between people outside a show opens with a ready-check this long
# (option ready_check_s; games/ready_check.py)
MATCH_READY_CHECK_S = float(os.environ.get("MATCH_READY_CHECK_S") or 600)
CELERY_BEAT_SCHEDULE = {
    "sweep-overdue-deadlines": {"task": "clocks.sweep", "schedule": 2.0},
    "move-bots": {"task": "clocks.move_bots", "schedule": 1.0},
    # the webhook outbox: deliveries a crash left unqueued
    "sweep-webhook-deliveries": {"task": "hooks.sweep", "schedule": 5.0},
    # reminders by e-mail or push whose try is due and that no task carries
    "sweep-reminders": {"task": "reminders.sweep", "schedule": 30.0},
}
# live sockets join their group again this often (seconds), catching up on what a
# Redis restart (which empties the channel layer's groups) kept from them
LIVE_REJOIN_S = float(os.environ.get("LIVE_REJOIN_S") or 5)

# the chat (chat/): a message's length limit, a new account's wait before it may
# write (it may read), and each account's burst of messages within a window
CHAT_MAX_CHARS = int(os.environ.get("CHAT_MAX_CHARS") or 500)
CHAT_NEW_ACCOUNT_WAIT_S = float(os.environ.get("CHAT_NEW_ACCOUNT_WAIT_S") or 600)
CHAT_BURST = int(os.environ.get("CHAT_BURST") or 5)
CHAT_BURST_WINDOW_S = float(os.environ.get("CHAT_BURST_WINDOW_S") or 10)
# and each room's: at most CHAT_ROOM_RATE messages of everyone but its
# moderators within CHAT_ROOM_RATE_WINDOW_S seconds
CHAT_ROOM_RATE = int(os.environ.get("CHAT_ROOM_RATE") or 30)
CHAT_ROOM_RATE_WINDOW_S = float(os.environ.get("CHAT_ROOM_RATE_WINDOW_S") or 10)
# tests give each worker its own queue, so parallel runs never share tasks
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("fr", _("French"))]
# the project's catalog; each app's own (games/locale/) is found by Django too
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
# the manual as `make docs` builds it (mkdocs.yml: site_dir), served at /docs/
DOCS_SITE_DIR = Path(os.environ.get("DOCS_SITE_DIR", BASE_DIR / "var" / "site"))
STATICFILES_DIRS = [BASE_DIR / "static"]
# collectstatic writes a gzip copy of every text file beside it; WhiteNoise
# serves it to browsers that accept gzip (htmx: 51 KB -> about 16 KB)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # collectstatic writes each file under a name with its content's hash too (and a
    # .gz and .br copy); pages link the hashed names, which WhiteNoise serves cached
    # for a year (immutable), the plain names for WHITENOISE_MAX_AGE (60 s)
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# source maps are fetched by a developer's tools only: not worth compressing (they
# were half of collectstatic's time)
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (
    *__import__("whitenoise.compress", fromlist=["Compressor"]).Compressor.SKIP_COMPRESS_EXTENSIONS,
    "map",
)
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# e-mail (password reset): printed to the console when DEBUG (`make run`),
# else sent by SMTP as the environment says; tests use Django's locmem outbox
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend"
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT") or 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
# a password reset sends its mail inside the request, and a web process answers
# its requests one at a time (config.http): a mail server that hangs must not hold it
EMAIL_TIMEOUT = float(os.environ.get("EMAIL_TIMEOUT") or 10)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Showtable <noreply@localhost>")

# web push: this site's VAPID key pair (made at install, like the secret key) and
# the contact the push services are given; SITE_URL makes the links in e-mail and push
VAPID_PRIVATE_KEY_FILE = os.environ.get("VAPID_PRIVATE_KEY_FILE") or str(
    VAR_DIR / "vapid_private.pem"
)
VAPID_CLAIM_SUB = os.environ.get("VAPID_CLAIM_SUB") or "mailto:noreply@localhost"
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")

# the largest request body read (API JSON and forms alike); bodies are small
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE") or 256 * 1024)

# "default" holds the API's rate-limit counters, "states" the matches' folded
# states (games/states.py): shared through Redis when there is one
if REDIS_URL:
    CACHES = {
        alias: {
            # Django's, its connection pools shared by the requests (config.cache)
            "BACKEND": "config.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
            # JSON, never pickle: a stolen Redis credential must not run code here
            "OPTIONS": {"serializer": "config.cache.JSONSerializer"},
        }
        for alias, prefix in (("default", "showtable"), ("states", "showtable-states"))
    }
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "states": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "states",
            "OPTIONS": {"MAX_ENTRIES": 2000},
        },
    }

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # a token first, so a request with neither is answered 401 with WWW-Authenticate
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "api.exceptions.handle",
    # command submission (moves and moderation), per token or per user
    "DEFAULT_THROTTLE_RATES": {
        "commands_burst": os.environ.get("API_COMMAND_BURST_RATE", "10/s"),
        "commands_sustained": os.environ.get("API_COMMAND_SUSTAINED_RATE", "300/min"),
        "commands_per_address": os.environ.get("API_COMMAND_ADDRESS_RATE", "1200/min"),
        "password_reset": os.environ.get("PASSWORD_RESET_RATE", "5/hour"),
        "player_search": os.environ.get("PLAYER_SEARCH_RATE", "120/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Game show platform API",
    "DESCRIPTION": (
        "Browsers use their session; bots and scripts send a personal token "
        "(`Authorization: Token <secret>`, created on /account/tokens/). Every "
        "refusal is JSON with a stable `code` and a `message`."
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # assets served by the project itself, never a CDN
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # no link inside each operation's toggle button (axe: nested-interactive)
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    "COMPONENT_SPLIT_REQUEST": True,
}

if not DEBUG:
    # behind a TLS-terminating proxy that sets X-Forwarded-Proto;
    # served over plain http on one's own machine (`make run`): DJANGO_HTTPS=0
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_HTTPS", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # on in the image (docker/Dockerfile); `check --deploy` warns where it is off
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", False)
    # health probes come from inside the host or container, over plain HTTP
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", 31_536_000))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", True)
    X_FRAME_OPTIONS = "DENY"

# LOG_FORMAT=json: one JSON object a line (production); plain text by default
LOGGING = logging_config(
    os.environ.get("LOG_FORMAT", "plain" if DEBUG else "json"),
    os.environ.get("LOG_LEVEL", "INFO"),
)
# Celery workers log through LOGGING too, not a root logger of their own
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# ---- login lockout (django-axes): failed logins counted per username and per
# address; past the limit the login is refused, the right password included,
# until the cool-off ends (README, "Security")
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "10"))
AXES_COOLOFF_TIME = float(os.environ.get("LOGIN_COOLOFF_HOURS", "0.25"))  # hours
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "config.views.locked_out"
AXES_CLIENT_IP_CALLABLE = "api.client_address.client_address"  # as the rate limits see it
