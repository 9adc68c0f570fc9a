from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_replace
from django.conf import settings
from django.contrib.auth.views import PasswordResetView
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_safe
from django.views.static import serve

from reactors import parked


def home(request):
    """Shows, matches and notifications, each as this visitor may see it
    (games.visibility decides: spectators see everything behind the delay)."""
    from games import services, visibility
    from games.core.registry import available
    from games.models import Match, Notification
    from games.presenters.notes import note_words
    from tournaments.models import ShowRecord
    from tournaments.views import show_lines

    now = visibility.clock()
    user = request.user
    context = {
        "games": available(),
        "shows": show_lines(ShowRecord.objects.all()[:10], user, now),
        "matches": services.summaries_for(
            Match.objects.filter(show_stream="").order_by("-id")[:10], user, now=now
        ),
    }
    if user.is_authenticated:
        notes = list(Notification.objects.filter(user=user).select_related("match")[:10])
        seen = {s.pk: s for s in services.summaries_for({n.match for n in notes}, user, now=now)}
        # only what still waits: a note about a match that has ended is history
        # (the player's home lists those with their replays)
        context["notifications"] = [
            {"text": note_words(n), "match": seen[n.match_id]}
            for n in notes
            if n.match_id in seen and seen[n.match_id].status == "live"
        ]
    return render(request, "home.html", context)


def _said(exception) -> str:
    """The words an error was raised with, when it was raised with words."""
    args = getattr(exception, "args", ())
    return args[0] if args and isinstance(args[0], str) else ""


def not_found(request, exception=None):
    return render(request, "404.html", {"message": _said(exception)}, status=404)


def forbidden(request, exception=None):
    return render(request, "403.html", {"message": _said(exception)}, status=403)


def _check_database() -> tuple[bool, str]:
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
        return True, connection.vendor
    except Exception as exc:  # reported, not raised: this is a health probe
        return False, type(exc).__name__


def _check_broker() -> tuple[bool, str]:
    url = settings.CELERY_BROKER_URL
    if url.startswith("memory://"):
        return True, "memory (embedded)"
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2).ping()
        return True, "redis"
    except Exception as exc:
        return False, type(exc).__name__


def _reactors() -> dict[str, int] | None:
    """The reactors' parked appends and retrying checkpoints (None: unknown)."""
    try:
        return parked.counts()
    except Exception:  # reported as unknown, not raised: this is a health probe
        return None


def healthz(request):
    db_ok, db = _check_database()
    broker_ok, broker = _check_broker()
    ok = db_ok and broker_ok
    return JsonResponse(
        {
            "status": "ok" if ok else "degraded",
            "database": {"ok": db_ok, "backend": db},
            "broker": {"ok": broker_ok, "backend": broker},
            # a parked append waits for a person (admin, `manage.py retry_parked`)
            "reactors": _reactors() if db_ok else None,
        },
        status=200 if ok else 503,
    )


def locked_out(request, response=None, credentials=None):
    """django-axes: too many failed logins from this account or address."""
    from django.utils.translation import gettext as _

    minutes = max(1, round(float(settings.AXES_COOLOFF_TIME) * 60))
    message = _(
        "Too many failed logins for this account or from this address: logging in "
        "is locked for %(minutes)s minutes, the right password included. Try again "
        "later, or reset your password."
    ) % {"minutes": minutes}
    return render(request, "403.html", {"message": message}, status=429)


class LimitedPasswordResetView(PasswordResetView):
    """Django's password reset, with the mails asked from one address limited."""

    def post(self, request, *args, **kwargs):
        from django.utils.translation import gettext as _

        from api.throttling import PasswordResetLimits, wait_before_next

        wait = wait_before_next(request, [PasswordResetLimits])
        if wait is not None:
            message = _(
                "Too many password resets asked from this address: try again in %(minutes)s minutes."
            ) % {"minutes": max(1, round(wait / 60))}
            return render(request, "403.html", {"message": message}, status=429)
        return super().post(request, *args, **kwargs)


@require_safe
def favicon(request):
    """Browsers ask for /favicon.ico; the icon lives under its hashed static name,
    looked up per request (the manifest exists only once collectstatic ran)."""
    return redirect(static("favicon.svg"), permanent=True)


@require_safe
@csp_replace({"script-src": [SELF, UNSAFE_INLINE], "style-src": [SELF, UNSAFE_INLINE]})
def manual(request, path=""):
    """The manual as `make docs` built it, so a machine without the internet has
    it too; until it is built, a page that says how. Its theme writes a few
    inline scripts and styles of its own (pages we build, no input of anyone's),
    so its policy allows them, here only."""
    root = settings.DOCS_SITE_DIR
    if not (root / "index.html").is_file():
        return render(request, "docs_missing.html", status=404)
    if path == "" or path.endswith("/"):
        path += "index.html"
    return serve(request, path, document_root=root)
