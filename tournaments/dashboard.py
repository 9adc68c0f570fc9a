"""The moderator's dashboard of a show (one page, polled live), the dispute
form players reach from their table (bracket_tree.py draws the brackets).

Only the show's organizer and moderators open the dashboard (is_staff grants
nothing). Every write goes through show_services.command or services.submit;
a refusal shows the service's own words and changes nothing."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from eventlog.commands import command_args
from eventlog.store import CommandIdReused, read
from games import services as match_services
from games import visibility
from games.core.protocol import RoleRequired, RuleError
from games.core.registry import series_for
from games.engine_words import in_words, item_name, refusal
from games.limits import MAX_PK
from games.models import Match
from games.presenters.table import describe_row, names_for, table_module

from . import shows
from .bracket_services import bracket_authority
from .dispute_filing import filer, move_in_context, takes_disputes_about
from .items import SCOPE_WORDS, SCOPES, game_knows, known_items
from .log_words import log_lines
from .models import ShowRecord
from .ruling_form import dispute_no, fields_for, params_from, rulings_for
from .ruling_words import RULING_WORDS, ruling_params_words
from .show_services import (
    Acting,
    acting_for,
    check_command,
    command,
    live_matches_with,
    load,
    received_from_bout,
)
from .words import FORM_REUSED

STAFF = (shows.ORGANIZER, shows.MODERATOR)
CLOCK_ACTIONS = ("pause", "resume", "add_time")


# ---- access -------------------------------------------------------------------------
def _staff_or_refusal(request, record: ShowRecord) -> Acting | HttpResponse:
    """The acting organizer or moderator, else the login page or a 403 naming the role."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    acting = acting_for(record.stream, request.user)
    if acting.role in STAFF:
        return acting
    message = _(
        "You are %(user)s, a %(role)s of %(show)s: only its "
        "organizer and moderators may open its dashboard."
    ) % {"user": request.user.username, "role": _(acting.role), "show": record.name}
    return render(request, "403.html", {"message": message}, status=403)


# ---- reading ------------------------------------------------------------------------
def _live_matches(record: ShowRecord, now: float) -> list[dict]:
    """Every live match of the show, as its moderators see it (no cards)."""
    out = []
    for m in Match.objects.filter(show_stream=record.stream, status="live").order_by("id"):
        state = match_services.load(m).state
        pending = series_for(m.game).pending(state)
        out.append(
            {
                "match": m,
                "seats": [{"name": s, "score": state.scores.get(s, 0)} for s in state.seats],
                "names": ", ".join(state.seats),
                # an item granted now to one of them applies from this bout
                "next_bout": series_for(m.game).next_bout(state),
                "target": state.target,
                "deciding": [d.seat for d in pending],
                "deadline": min((d.deadline for d in pending if d.deadline), default=None),
                "paused": state.paused_since is not None,
            }
        )
    return out


def _disputes(state: shows.ShowState) -> list[dict]:
    out = []
    for d in sorted(state.disputes.values(), key=lambda d: int(d.id.split("-")[1])):
        match = Match.objects.filter(stream=d.target_stream).first()
        out.append(
            {
                "d": d,
                "no": dispute_no(d.id),
                "about": dispute_words(d),
                "rulings": rulings_for(d) if d.status == shows.CLAIMED else [],
                "status": d.status.replace("_", " "),
                "match": match,
                "seats": list(match.seats) if match else [],
                "proposal": dict(d.proposal) if d.proposal else None,
                "proposal_kind": RULING_WORDS.get((d.proposal or {}).get("ruling"), ""),
                "proposal_words": ruling_params_words((d.proposal or {}).get("params")),
                "ruling": dict(d.ruling) if d.ruling else None,
                "ruling_kind": RULING_WORDS.get((d.ruling or {}).get("ruling"), ""),
                "ruling_words": ruling_params_words((d.ruling or {}).get("params")),
            }
        )
    return out


# other sources of a show's audit rows, from higher layers (the chat's
# moderation: chat.apps fills it), each ``source(record) -> rows``
_audit_sources: list = []


def register_audit_source(source) -> None:
    if source not in _audit_sources:
        _audit_sources.append(source)


# the reports a show's moderators read on its dashboard, from higher layers
# (the chat's reported messages: chat.apps fills it), each
# ``source(record, user) -> rows`` (the rows that user may act on)
_report_sources: list = []


def register_report_source(source) -> None:
    if source not in _report_sources:
        _report_sources.append(source)


def _reports(record: ShowRecord, user) -> list[dict]:
    return [row for source in _report_sources for row in source(record, user)]


def _other_audit(record: ShowRecord) -> list[dict]:
    return [row for source in _audit_sources for row in source(record)]


def _match_audit(record: ShowRecord) -> list[dict]:
    """Moderators' actions written on the show's matches (pauses, added time, rulings)."""
    out = []
    for match in Match.objects.filter(show_stream=record.stream):
        stream = match.stream
        module, names = table_module(match.game), names_for(match.seats, None)
        for r in read(stream):
            if r.metadata.get("role") != shows.MODERATOR:
                continue
            what = describe_row(module, {"type": r.type, "data": r.data}, None, names)
            out.append(
                {
                    "version": r.version,
                    "kind": r.type,
                    "actor": r.metadata.get("actor"),
                    "role": shows.MODERATOR,
                    "reason": in_words(r.data.get("reason", "")),
                    "at": r.data.get("at") or r.metadata.get("at"),
                    "text": _("%(what)s (%(match)s, move %(n)s)")
                    % {"what": what, "match": match, "n": r.version},
                    "void": False,
                }
            )
    return out


def audit_rows(record: ShowRecord, state, kind: str = "", actor: str = "") -> list[dict]:
    """Every organizer and moderator action of the show (its own log and its
    matches'), newest first, filtered by kind and actor when given."""
    rows = log_lines(shows.audit_log(state), record.stream) + _match_audit(record)
    rows += _other_audit(record)
    rows = [
        r for r in rows if (not kind or r["kind"] == kind) and (not actor or r["actor"] == actor)
    ]
    rows.sort(key=lambda r: r["at"] or 0, reverse=True)
    for r in rows:
        r["when"] = match_services.to_datetime(r["at"])
    return rows


def _context(request, record: ShowRecord, acting: Acting, **extra) -> dict:
    state, _version, _holders = load(record.stream)
    now = visibility.clock()
    kind, actor = request.GET.get("kind", ""), request.GET.get("actor", "")
    all_audit = shows.audit_log(state) + _match_audit(record) + _other_audit(record)
    return {
        "show": record,
        "state": state,
        "acting": acting,
        "now": now,
        "live": _live_matches(record, now),
        "entrants": [
            {
                "name": e,
                "status": state.status[e],
                "items": [
                    {"it": it, "scope_words": SCOPE_WORDS.get(it.scope, it.scope)}
                    for it in shows.inventory(state, e)
                ],
            }
            for e in state.entrants
        ],
        "active": shows.active(state),
        "moderators": [state.organizer, *state.moderators],
        "item_slugs": sorted(known_items()),
        "scopes": [(s, SCOPE_WORDS[s]) for s in SCOPES],
        "disputes": _disputes(state),
        "rulings": list(RULING_WORDS.items()),
        "audit": audit_rows(record, state, kind, actor),
        "reports": _reports(record, request.user),
        "audit_kinds": sorted({r["kind"] for r in all_audit}),
        "audit_actors": sorted({r["actor"] for r in all_audit if r["actor"]}),
        "kind": kind,
        "actor": actor,
        "champion": state.champion,
        **extra,
    }


def my_dashboards(request):
    """The shows whose dashboard the user may open (organizer or moderator)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    uid = request.user.pk
    mine = [
        r
        for r in ShowRecord.objects.all()[:200]
        if r.organizer_id == uid or uid in (r.moderator_ids or [])
    ]
    return render(request, "dashboard/mine.html", {"shows": mine})


def dashboard(request, pk):
    record = get_object_or_404(ShowRecord, pk=pk)
    acting = _staff_or_refusal(request, record)
    if isinstance(acting, HttpResponse):
        return acting
    return render(request, "dashboard/dashboard.html", _context(request, record, acting))


def dashboard_live(request, pk):
    """The cheap part the page polls: live matches, disputes, champion."""
    record = get_object_or_404(ShowRecord, pk=pk)
    acting = _staff_or_refusal(request, record)
    if isinstance(acting, HttpResponse):
        return acting
    context = _context(request, record, acting, out_of_band=True)  # the grant form's note too
    return render(request, "dashboard/_live.html", context)


# ---- writing ------------------------------------------------------------------------
def _refusal(request, write: Callable[[], Any]) -> HttpResponse | str | None:
    """Run a form's write (or its check): None when the show's rules take it;
    else the 403 page when the caller's role may not, or the refusal in words
    for the form again."""
    try:
        write()
    except RoleRequired as exc:
        return render(request, "403.html", {"message": refusal(exc)}, status=403)
    except RuleError as exc:
        return refusal(exc)
    except CommandIdReused:
        return str(FORM_REUSED)
    return None


def _text(post, key: str) -> str:
    return (post.get(key) or "").strip()


def _number(post, key: str) -> float | None:
    """A finite number within the bounds every path shares (else None: refused)."""
    raw = post.get(key, "")
    if not raw.isascii():
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    if not math.isfinite(value) or abs(value) > MAX_PK:
        return None
    return int(value) if value.is_integer() else value


def _int(post, key: str) -> int | None:
    """A whole number in ASCII digits that fits a database integer (else None)."""
    raw = post.get(key, "").strip()
    if not raw.isascii():
        return None
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if abs(value) <= MAX_PK else None


def _ruling_params(post) -> dict:
    """The parameters of the chosen ruling, from the ruling form."""
    ruling = post.get("ruling")
    if ruling == "void_to":
        return {"version": _int(post, "version")}
    if ruling in ("award_bout", "overturn_series"):
        return {"winner": _text(post, "winner")}
    if ruling == "disqualify":
        return {"entrant": _text(post, "entrant")}
    if ruling == "adjust_clock":
        return {"seat": _text(post, "seat"), "seconds": _number(post, "seconds")}
    return {}


def _show_command(post, acting: Acting) -> dict:
    action = post.get("action")
    reason = _text(post, "reason")
    if action == "grant_item":
        return {
            "type": "grant_item",
            "entrant": _text(post, "entrant"),
            "item": _text(post, "item"),
            "scope": _text(post, "scope") or "any",
            "given_by": _text(post, "given_by") or acting.actor,
            "reason": reason,
        }
    if action == "transfer_item":
        return {
            "type": "transfer_item",
            "item_id": _text(post, "item_id"),
            "from": _text(post, "from"),
            "to": _text(post, "to"),
            "reason": reason,
        }
    if action == "revoke_item":
        return {"type": "revoke_item", "item_id": _text(post, "item_id"), "reason": reason}
    if action in ("claim_dispute", "approve_ruling", "reject_ruling"):
        return {"type": action, "dispute_id": _text(post, "dispute_id"), "reason": reason}
    if action == "transfer_dispute":
        return {
            "type": "transfer_dispute",
            "dispute_id": _text(post, "dispute_id"),
            "to": _text(post, "to"),
        }
    if action == "rule_dispute":
        return {
            "type": "rule_dispute",
            "dispute_id": _text(post, "dispute_id"),
            "ruling": post.get("ruling"),
            "params": _ruling_params(post),
            "reason": reason,
        }
    unknown = _("unknown action %(action)r") % {"action": action}
    raise RuleError(unknown)


def _clock(request, record: ShowRecord, post, acting: Acting) -> str:
    match = Match.objects.filter(pk=_int(post, "match"), show_stream=record.stream).first()
    if match is None:
        raise RuleError(_("that is not a match of this show"))
    action = post.get("action")
    reason = _text(post, "reason")
    if not reason:
        raise RuleError(_("give a reason: the players and the audit log see it"))
    cmd: dict[str, Any] = {"type": action, "reason": reason}
    if action == "add_time":
        cmd["seconds"] = _number(post, "seconds")
        if _text(post, "seat"):  # else every clock of the match
            cmd["seat"] = _text(post, "seat")
    match_services.submit(
        match,
        None,
        cmd,
        actor=acting.actor,
        role="moderator",
        **command_args(request),
    )
    return _("%(match)s: %(action)s done") % {"match": match, "action": _(action.replace("_", " "))}


@require_POST
def dashboard_action(request, pk):
    """One write from the dashboard; a ruling is confirmed before it is submitted."""
    record = get_object_or_404(ShowRecord, pk=pk)
    acting = _staff_or_refusal(request, record)
    if isinstance(acting, HttpResponse):
        return acting
    post = request.POST
    try:
        if post.get("action") in CLOCK_ACTIONS:
            done = _clock(request, record, post, acting)
        else:
            cmd = _show_command(post, acting)
            if cmd["type"] == "rule_dispute" and post.get("confirmed") != "yes":
                check_command(record.stream, cmd, acting)  # refused before confirming
                return _confirm(request, record, cmd, post)
            command(
                record.stream,
                cmd,
                acting,
                **command_args(request),
            )
            done = _done_words(cmd, load(record.stream)[0], record)
    except RoleRequired as exc:
        return render(request, "403.html", {"message": refusal(exc)}, status=403)
    except (RuleError, CommandIdReused) as exc:
        error = FORM_REUSED if isinstance(exc, CommandIdReused) else refusal(exc)
        ctx = _context(request, record, acting, error=error)
        return render(request, "dashboard/dashboard.html", ctx, status=400)
    messages.success(request, done)
    return redirect(reverse("dashboard:show", args=[record.pk]) + "#top")


def _confirm(request, record: ShowRecord, cmd: Mapping[str, Any], post) -> HttpResponse:
    """The confirm page of a ruling the show's rules would take now."""
    state = load(record.stream)[0]
    d = state.disputes[cmd["dispute_id"]]
    return render(
        request,
        "dashboard/confirm.html",
        {
            "show": record,
            "cmd": cmd,
            "about": dispute_words(d),
            "words": RULING_WORDS.get(cmd["ruling"], cmd["ruling"]),
            "params_words": ruling_params_words(cmd.get("params")),
            "fields": [
                (k, v)
                for k, v in post.items()
                if k not in ("csrfmiddlewaretoken", "action", "confirmed")
            ],
        },
    )


def dispute_words(d) -> str:
    """ "dispute 1 about Side Cup · R1: ben v ana (move 12)": no stream, no id."""
    match = Match.objects.filter(stream=d.target_stream).first()
    if match is None:
        return _("dispute %(n)s about the show's own log (move %(v)s)") % {
            "n": dispute_no(d.id),
            "v": d.target_version,
        }
    return _("dispute %(n)s about %(match)s (move %(v)s)") % {
        "n": dispute_no(d.id),
        "match": match,
        "v": d.target_version,
    }


@require_http_methods(["GET", "POST"])
def rule_form(request, pk, no):
    """/shows/<pk>/disputes/<no>/rule?ruling=...: the ruling form of one
    dispute, with only the fields that ruling needs (chosen again by a GET);
    a POST is checked by the show's rules and, if they would take it, goes
    on to the confirm page; else the form again with the refusal in words."""
    record = get_object_or_404(ShowRecord, pk=pk)
    acting = _staff_or_refusal(request, record)
    if isinstance(acting, HttpResponse):
        return acting
    state = load(record.stream)[0]
    d = state.disputes.get(f"d-{no}")
    if d is None:
        raise Http404(_("this show has no dispute %(n)s") % {"n": no})
    data = request.POST if request.method == "POST" else request.GET
    rulings = rulings_for(d)
    ruling = data.get("ruling")
    if ruling not in dict(rulings):
        ruling = rulings[0][0]
    fields = fields_for(ruling, state, d)
    error = None
    if request.method == "POST":
        cmd = {
            "type": "rule_dispute",
            "dispute_id": d.id,
            "ruling": ruling,
            "reason": _text(data, "reason"),
        }

        def check() -> None:
            cmd["params"] = params_from(data, ruling, fields)
            check_command(record.stream, cmd, acting)

        error = _refusal(request, check)
        if isinstance(error, HttpResponse):
            return error
        if error is None:
            post = {
                **{k: v for k, v in data.items() if k in ("command_id", "reason")},
                "action": "rule_dispute",
                "dispute_id": d.id,
                "ruling": ruling,
                **{k: str(v) for k, v in cmd["params"].items()},
            }
            return _confirm(request, record, cmd, post)
    context = {
        "show": record,
        "d": d,
        "about": dispute_words(d),
        "match": Match.objects.filter(stream=d.target_stream).first(),
        "no": no,
        "rulings": rulings,
        "ruling": ruling,
        "ruling_words": RULING_WORDS[ruling],
        "fields": [(f, data.get(f.name, "")) for f in fields],
        "reason": data.get("reason", ""),
        "error": error,
    }
    template = "dashboard/_rule_fields.html" if request.htmx else "dashboard/rule.html"
    return render(request, template, context, status=400 if error else 200)


def _granted_words(cmd: Mapping[str, Any], record: ShowRecord) -> str:
    """When a granted item applies: in the match its holder is playing, from
    that match's next bout (the bout in progress keeps its items), when its
    scope covers the match and the match's game knows it; else from the
    holder's next match."""
    who, slug = cmd["entrant"], cmd["item"]
    words = {"item": item_name(slug), "who": who}
    state = load(record.stream)[0]
    for match in live_matches_with(record.stream, who):
        words["match"] = match
        if shows.item_reaches(state, match.stream, cmd["scope"], slug, match.game):
            n = received_from_bout(match, who, slug)
            if n is not None:
                return _(
                    "%(item)s granted to %(who)s. It reaches %(match)s, being played now, "
                    "and applies from its bout %(n)s (the bout in progress keeps its items)."
                ) % {**words, "n": n}
        elif not game_knows(match.game, slug):
            return (
                _(
                    "%(item)s granted to %(who)s. It applies from %(who)s's next match: "
                    "%(match)s, being played now, is a game without it."
                )
                % words
            )
        else:
            return _(
                "%(item)s granted to %(who)s. It applies from %(who)s's next match: "
                "it is for %(scope)s, and %(match)s, being played now, is not."
            ) % {**words, "scope": _(SCOPE_WORDS[cmd["scope"]])}
    return _("%(item)s granted to %(who)s. It applies from %(who)s's next match.") % words


def _done_words(cmd: Mapping[str, Any], state, record: ShowRecord | None = None) -> str:
    if cmd["type"] == "grant_item" and record is not None:
        return _granted_words(cmd, record)
    if cmd["type"] == "rule_dispute":
        d = state.disputes[cmd["dispute_id"]]
        if d.status == shows.AWAITING:
            return _("ruling on %(about)s proposed: waiting for a second moderator") % {
                "about": dispute_words(d)
            }
        return _("ruling on %(about)s applied") % {"about": dispute_words(d)}
    return _("%(action)s done") % {"action": _(cmd["type"].replace("_", " "))}


# ---- filing a dispute (reached from a player's table) ------------------------------
@require_http_methods(["GET", "POST"])
def file_dispute(request, pk):
    """/shows/<pk>/disputes/file?match=<match pk>&version=<v>: a seated player
    or a moderator files a dispute against one event of a match."""
    record = get_object_or_404(ShowRecord, pk=pk)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    data = request.POST if request.method == "POST" else request.GET
    match = Match.objects.filter(pk=_int(data, "match")).first()
    if match is None:
        raise Http404(_("no such match: name the match you dispute (?match=...)"))
    acting = filer(record, request.user, match)
    if acting is None and not takes_disputes_about(record, match):
        message = _(
            "%(match)s is not a match of %(show)s or of a bracket it hosts: "
            "%(show)s takes no dispute about it."
        ) % {"match": match, "show": record.name}
        return render(request, "403.html", {"message": message}, status=403)
    if acting is None:
        acting = acting_for(record.stream, request.user)
        message = _(
            "You are %(user)s, a %(role)s of %(show)s not seated in "
            "that match: only its players and the show's moderators may file a dispute."
        ) % {"user": request.user.username, "role": _(acting.role), "show": record.name}
        return render(request, "403.html", {"message": message}, status=403)
    version = _int(data, "version")
    error = None
    if request.method == "POST":
        cmd = {
            "type": "file_dispute",
            "target_stream": match.stream,
            "target_version": version,
            "text": _text(data, "text"),
        }
        rows: list = []
        ids = command_args(request)
        error = _refusal(request, lambda: rows.extend(command(record.stream, cmd, acting, **ids)))
        if isinstance(error, HttpResponse):
            return error
        if error is None:
            # this command's dispute (a retry's: the first one's), not the newest of anyone's
            did = next(r.data["dispute_id"] for r in rows if r.type == "dispute_filed")
            filed = load(record.stream)[0].disputes[did]
            return render(
                request,
                "dashboard/dispute_filed.html",
                {"show": record, "d": filed, "about": dispute_words(filed), "match": match},
            )
    return render(
        request,
        "dashboard/file_dispute.html",
        {
            "show": record,
            "match": match,
            "version": version,
            "seen": move_in_context(match, version, request.user),
            "text": data.get("text", ""),
            "error": error,
        },
        status=400 if error else 200,
    )


def file_dispute_for_match(request, match_pk):
    """The table's "file a dispute" link: on to the form of the match's show."""
    match = get_object_or_404(Match, pk=match_pk)
    host = (
        bracket_authority(match.show_stream)[0]
        if match.show_stream.startswith("bracket-")
        else match.show_stream
    )
    record = ShowRecord.objects.filter(stream=host).first() if host else None
    if record is None:
        raise Http404("this match is not played in a show: disputes are filed in shows")
    url = reverse("dashboard:file_dispute", args=[record.pk])
    return redirect(f"{url}?match={match.pk}&version={_int(request.GET, 'version') or ''}")
