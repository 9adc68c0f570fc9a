"""Running shows on the platform: one service per write.

A show is the stream ``show-<id>`` decided by shows/. This module adds
what needs the database: who is acting (role and entrant from the user),
opening the death matches and the final as matches, feeding match results
and item uses back into the show, and carrying out rulings on matches and
brackets. Everything commits in one transaction with the append."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from eventlog.store import (
    ConcurrencyError,
    append,
    command_fingerprint,
    read,
    replayed,
    stream_named_by,
)
from games import services as match_services
from games.core.protocol import Ctx, Event, RoleRequired, RuleError
from games.core.registry import series_for
from games.holders import is_bot
from games.models import Match
from games.titles import made_english, made_words

from . import bracket_services, shows
from .readmodels import show_folded

MAX_RETRIES = 5
_after_command: list = []


def after_command(fn) -> None:
    """Call ``fn(stream, events, now)`` after each show command is committed."""
    _after_command.append(fn)


@dataclass(frozen=True)
class Acting:
    """Who is acting in a show: a username (or entrant name) and a role."""

    actor: str
    role: str
    # the account acting (None: the platform); not part of who one acts as
    user_id: int | None = field(default=None, compare=False)


def load(stream: str) -> tuple[shows.ShowState, int, dict]:
    """(state, version, holders) of a show, folded from its read model on."""
    state, version = show_folded(stream)
    if state is None:
        raise RuleError("no such show")
    # accounts (invitations accepted, registrations, substitutes) and bots (at the
    # creation, substitutes, replacements of absentees) holding entrants
    holders = {**state.bots, **state.held}
    for sub in state.substitutions:  # a substitute's account or bot, when it has one
        if sub.get("holder") is not None:
            holders[sub["in"]] = sub["holder"]
    return state, version, holders


def acting_for(stream: str, user, entrant: str | None = None) -> Acting:
    """The role a user has in this show: organizer, moderator, player (as the
    entrant they hold), else spectator. Rights go by account id, never by
    username: a new account that reuses a name inherits nothing, and an
    account holding an entrant is a player, even if appointed a moderator."""
    state, _, holders = load(stream)
    if user is None or not user.is_authenticated:
        return Acting("anonymous", shows.SPECTATOR)
    mine = [e for e, h in holders.items() if h == user.pk]
    if user.pk in shows.seat_holder_ids(state):  # a seat holder never moderates, even appointed
        return _as_player(mine, entrant, user.pk) if mine else _spectator(user)
    if state.organizer_id is not None and user.pk == state.organizer_id:
        return Acting(state.organizer, shows.ORGANIZER, user.pk)
    for name, uid in state.moderator_ids.items():
        if uid is not None and uid == user.pk:
            return Acting(name, shows.MODERATOR, user.pk)
    if mine:
        return _as_player(mine, entrant, user.pk)
    return _spectator(user)


def _spectator(user) -> Acting:
    return Acting(user.username, shows.SPECTATOR, user.pk)


def _as_player(mine: list[str], entrant: str | None, uid: int) -> Acting:
    return Acting(entrant if entrant in mine else mine[0], shows.PLAYER, uid)


def _account_id(username: Any) -> int | None:
    if not isinstance(username, str):
        return None
    return User.objects.filter(username=username).values_list("pk", flat=True).first()


def create_show(
    *,
    name: str,
    organizer: str,
    entrants: list[str],
    options: Mapping[str, Any] | None = None,
    holders: Mapping[str, Any] | None = None,
    rounds: list[str] | None = None,
    now: float | None = None,
    rng: random.Random | None = None,
    organizer_id: int | None = None,
    starts_at: float | None = None,
    command_id: str | None = None,
) -> str:
    """Create a show; ``holders`` maps an entrant to a user id or ``bot:<kind>``.
    The organizer's rights go to ``organizer_id`` (default: the account named
    ``organizer`` now). With ``starts_at`` (Unix time) people register until
    then and the clock's sweep starts it (tournaments.show_clock). A
    ``command_id`` sent again by the same organizer for the same show
    returns the show it made first."""
    holders = dict(holders or {})
    for e in holders:
        if e not in entrants:
            raise RuleError("{e} is not an entrant of this show", e=e)
    if organizer_id is None:
        organizer_id = _account_id(organizer)
    if organizer_id is not None and organizer_id in holders.values():
        raise RuleError("the organizer cannot also hold an entrant of the show")
    stream = f"show-{uuid.uuid4().hex[:16]}"
    if organizer_id is None:
        organizer_id = _account_id(organizer)
    asked = {"name": name, "entrants": entrants, "options": options, "holders": holders}
    asked.update(rounds=rounds, starts_at=starts_at)
    key, fingerprint = _command_key(
        command_id, organizer_id, Acting(organizer, shows.ORGANIZER), asked
    )
    if key:
        stream = stream_named_by("show-", f"{organizer_id}:{organizer}", key)
        if replayed(stream, key, fingerprint):
            return stream
    ctx = Ctx(
        now=time.time() if now is None else now,
        rng=rng or match_services.secure_rng(),
        role="system",
    )
    events = shows.create_show(
        ctx,
        name,
        organizer,
        entrants,
        options,
        rounds=rounds,
        stream=stream,
        organizer_id=organizer_id,
        starts_at=starts_at,
    )
    first = events[0]
    events[0] = Event(
        first.type, {**first.data, "holders": holders}, first.visible_to, first.public
    )
    with transaction.atomic():
        rows = append(
            stream,
            0,
            events,
            actor=organizer,
            role=shows.ORGANIZER,
            command_id=key,
            fingerprint=fingerprint,
        )
        if not rows.replay:
            _reconcile(stream, ctx)
    return stream


def command(
    stream: str,
    cmd: Mapping[str, Any],
    acting: Acting,
    *,
    now: float | None = None,
    rng: random.Random | None = None,
    command_id: str | None = None,
    account: int | None = None,
) -> list:
    """Submit one show command as ``acting``; RuleError when refused (nothing
    written). Rulings are carried out on their match in the same transaction.
    A ``command_id`` sent again by the same sender (``account``, else the
    actor) with the same command returns the first result, marked ``replay``;
    from anyone else or with another command, CommandIdReused."""
    if not isinstance(cmd, Mapping) or not isinstance(cmd.get("type"), str):
        raise RuleError("a command needs a type")
    key, fingerprint = _command_key(command_id, account, acting, cmd)
    for attempt in range(MAX_RETRIES):
        if key and (first := replayed(stream, key, fingerprint)):
            return first  # a retry: the first result, nothing new
        state, version, holders = load(stream)
        ctx = Ctx(
            now=time.time() if now is None else now,
            rng=rng or match_services.secure_rng(),
            role="system",
        )
        full = _full_command(stream, state, holders, cmd, acting)
        try:
            new = shows.decide(state, full, ctx)
        except RuleError:
            # written meanwhile by a retry racing this one: the first result
            if key and (first := replayed(stream, key, fingerprint)):
                return first
            raise
        try:
            with transaction.atomic():
                rows = append(
                    stream,
                    version,
                    new,
                    actor=acting.actor,
                    role=acting.role,
                    command_id=key,
                    fingerprint=fingerprint,
                )
                if rows.replay:
                    return rows
                for e in new:
                    if e.type == "ruling_applied":
                        carry_out(e.data, acting.actor, now=ctx.now)
                _hand_granted_items(stream, new, ctx.now)
                _reconcile(stream, ctx)
        except ConcurrencyError:
            if attempt == MAX_RETRIES - 1:
                raise
            continue
        for fn in _after_command:
            fn(stream, new, ctx.now)
        return rows
    raise AssertionError("unreachable")


def _full_command(
    stream: str, state, holders: Mapping[str, Any], cmd: Mapping[str, Any], acting: Acting
) -> dict:
    """The command as the show's rules take it: the sender's name and role, and
    what the platform vouches for (never the body's own word)."""
    full = {**cmd, "actor": acting.actor, "role": acting.role}
    staff = acting.role in (shows.ORGANIZER, shows.MODERATOR)
    if staff:
        _refuse_seated_staff(state, full, acting.user_id)
    if cmd["type"] == "rule_dispute" and staff:  # the role first: no work for others
        full.update(_ruling_flags(state, full))
    if cmd["type"] == "appoint_moderator":
        full["user_id"] = _account_id(full.get("username"))
    if cmd["type"] == "file_dispute":
        full.update(
            dispute_target(stream, holders, full.get("target_stream"), acting.actor, acting.user_id)
        )
        full["filer_id"] = acting.user_id
        _check_match_version(full.get("target_stream"), full.get("target_version"))
    if cmd["type"] == "substitute":
        full["holder"] = _substitute_holder(state, full)
    return full


def check_command(
    stream: str, cmd: Mapping[str, Any], acting: Acting, *, now: float | None = None
) -> None:
    """Whether ``command`` would take ``cmd`` now: RuleError (or RoleRequired)
    with its words if not; nothing is written (a ruling is refused before its
    confirm page, not after)."""
    if not isinstance(cmd, Mapping) or not isinstance(cmd.get("type"), str):
        raise RuleError("a command needs a type")
    state, _version, holders = load(stream)
    ctx = Ctx(
        now=time.time() if now is None else now, rng=match_services.secure_rng(), role="system"
    )
    shows.decide(state, _full_command(stream, state, holders, cmd, acting), ctx)


def _command_key(
    command_id: str | None, account: int | None, acting: Acting, cmd: Mapping[str, Any]
) -> tuple[str | None, str | None]:
    """A client's command id as stored, and the fingerprint of its command."""
    key = match_services.command_key(command_id)
    if not key:
        return None, None
    sender = f"user:{account}" if account is not None else f"actor:{acting.actor}"
    body = {"cmd": dict(cmd), "as": [acting.actor, acting.role]}
    return key, command_fingerprint(sender, body)


def register(stream: str, user, *, now: float | None = None, command_id: str | None = None) -> list:
    """``user`` registers for a scheduled show (the platform vouches for the
    account: its id and name go into the show's log)."""
    if user is None or not user.is_authenticated:
        raise RoleRequired("log in to register for a show")
    return command(
        stream,
        {"type": "register", "user_id": user.pk, "username": user.username},
        Acting(user.username, shows.SYSTEM),
        now=now,
        command_id=command_id,
        account=user.pk,
    )


def record_omniscient_view(
    show_stream: str,
    user,
    match_stream: str,
    *,
    now: float | None = None,
    command_id: str | None = None,
) -> bool:
    """Record in the show's log (its audit) that ``user`` opens a match of the
    show with every card shown; only its organizer and moderators may. True
    when written now; False when this account's opening of it is recorded
    within the period, or ``command_id`` was used for it before."""
    acting = acting_for(show_stream, user)
    if acting.role not in (shows.ORGANIZER, shows.MODERATOR):
        raise RoleRequired("only the organizer or a moderator of this show may see every card")
    if not Match.objects.filter(stream=match_stream, show_stream=show_stream).exists():
        raise RuleError("{match_stream} is not a match of this show", match_stream=match_stream)
    now = time.time() if now is None else now
    if _opened_lately(show_stream, user.pk, match_stream, now):
        return False  # one opening per moderator and match per period
    rows = command(
        show_stream,
        {"type": "view_omnisciently", "match_stream": match_stream},
        acting,
        now=now,
        command_id=command_id,
        account=user.pk,
    )
    return not getattr(rows, "replay", False)


def opened_omnisciently(show_stream: str, user_id: int, match_stream: str) -> bool:
    """Whether an opening of this match by this account is in the show's log
    (read from its kept fold; an opening holds until the match ends)."""
    state, _ = show_folded(show_stream)
    return state is not None and any(
        _is_opening(e, user_id, match_stream) for e in reversed(state.log)
    )


def _is_opening(e: Event, user_id: int, match_stream: str) -> bool:
    return (
        e.type == "match_viewed_omnisciently"
        and e.data.get("user_id") == user_id
        and e.data.get("match_stream") == match_stream
    )


DISPUTE_STEPS = (
    "file_dispute",
    "claim_dispute",
    "transfer_dispute",
    "rule_dispute",
    "approve_ruling",
    "reject_ruling",
)


def _refuse_seated_staff(state, cmd: Mapping[str, Any], user_id: int | None) -> None:
    """Nobody moderates a match, or a bracket, in which their account holds a
    seat: checked at every dispute step, by account id."""
    if user_id is None or cmd["type"] not in DISPUTE_STEPS:
        return
    if cmd["type"] == "file_dispute":
        target = cmd.get("target_stream")
    else:
        did = cmd.get("dispute_id")
        d = state.disputes.get(did) if isinstance(did, str) else None
        target = d.target_stream if d is not None else None
    match = Match.objects.filter(stream=target).first() if isinstance(target, str) else None
    if match is None:
        return
    seated = match.holders.filter(user_id=user_id).exists()
    if seated or user_id in bracket_services.bracket_authority(match.show_stream)[1]:
        raise RoleRequired("you hold a seat in that match or its bracket: you may not moderate it")


def _check_match_version(target: Any, version: Any) -> None:
    """A disputed match event must exist (a bigger number is no event, and no
    database integer either)."""
    if not isinstance(target, str) or not isinstance(version, int):
        return  # the show's rules say what is wrong with it
    at = Match.objects.filter(stream=target).values_list("version", flat=True).first()
    if at is not None and version > at:
        raise RuleError(
            "that match has no event {version} yet (it is at version {at})", version=version, at=at
        )


OMNISCIENT_OPENING_PERIOD_S = 600


def _opened_lately(show_stream: str, user_id: int, match_stream: str, now: float) -> bool:
    """Whether this account's opening of this match is recorded within the period."""
    state = load(show_stream)[0]
    for e in reversed(state.log):
        at = e.data.get("at")
        if isinstance(at, (int, float)) and at < now - OMNISCIENT_OPENING_PERIOD_S:
            return False  # the log is in time order: nothing older counts
        if _is_opening(e, user_id, match_stream):
            return True
    return False


def _system(stream: str, cmd: Mapping[str, Any], ctx: Ctx) -> None:
    """A command the platform itself makes (a link, a result, an item use)."""
    state, version, _ = load(stream)
    new = shows.decide(state, {**cmd, "actor": "platform", "role": shows.SYSTEM}, ctx)
    append(stream, version, new, actor="platform", role=shows.SYSTEM)


def seat_candidates(state) -> list[str]:
    """The usernames of the active accounts that may hold a seat of the show:
    never its organizer or a moderator, nor an account that holds (or held)
    an entrant already; decided by account id."""
    barred = {state.organizer_id, *state.moderator_ids.values(), *shows.seat_holder_ids(state)}
    return list(
        User.objects.filter(is_active=True)
        .exclude(pk__in=[uid for uid in barred if isinstance(uid, int)])
        .order_by("username")
        .values_list("username", flat=True)
    )


def _substitute_holder(state, cmd: Mapping[str, Any]) -> Any:
    """Who plays a substitute: ``holder`` (a username or bot:<kind>), else the
    account named like the substitute, else nobody."""
    given = cmd.get("holder")
    if is_bot(given):
        return given
    if given in (None, ""):
        return _account_id(cmd.get("in"))
    uid = _account_id(given)
    if uid is None:
        raise RuleError("no account is named {given}: the substitute needs a player", given=given)
    if uid == state.organizer_id or uid in state.moderator_ids.values():
        raise RuleError("{given} runs or moderates this show and cannot play in it", given=given)
    return uid


def dispute_target(
    show_stream: str,
    holders: Mapping[str, Any],
    target_stream: Any,
    entrant: str,
    account: int | None = None,
) -> dict[str, bool]:
    """What the show's rules need to know of a disputed match: ``seated``, the
    account holding ``entrant`` in this show (in a hosted bracket's match: the
    filer's ``account``) holds that seat in that very match (by account, never
    by name alone); ``foreign``, it is neither this show's
    stream nor a match of this show or of a bracket it hosts (another show's, a one-off)."""
    if target_stream == show_stream:
        return {"seated": False, "foreign": False}
    match = (
        Match.objects.filter(stream=target_stream).first()
        if isinstance(target_stream, str)
        else None
    )
    if match is None:
        return {"seated": False, "foreign": True}
    ours = match.show_stream == show_stream or (
        match.show_stream.startswith("bracket-")
        and bracket_services.bracket_authority(match.show_stream)[0] == show_stream
    )
    uid = holders.get(entrant)
    if match.show_stream != show_stream and account is not None:
        uid = account  # a bracket's seat: its players are no entrants of the show
    seated = isinstance(uid, int) and match.holders.filter(seat=entrant, user_id=uid).exists()
    return {"seated": bool(seated), "foreign": not ours}


# ---- matches opened by the show -------------------------------------------------
def _reconcile(stream: str, ctx: Ctx) -> None:
    """Open a match for every opened death match or final that has none."""
    state, _, holders = load(stream)
    for rnd in state.rounds:
        for duel in rnd.duels:
            if duel.awaiting_ready:
                continue  # opens once everyone confirmed they are there
            if duel.opened and duel.match_stream is None and duel.winner is None:
                match = _open_match(
                    state,
                    holders,
                    duel.seats,
                    duel.game,
                    duel.first_to,
                    "death_match",
                    duel.dmo,
                    made_words("death_match", rnd.title, (duel.candidate, duel.dmo)),
                    ctx,
                )
                _system(
                    stream,
                    {
                        "type": "death_match_linked",
                        "round": rnd.id,
                        "candidate": duel.candidate,
                        "match_stream": match.stream,
                    },
                    ctx,
                )
    f = state.final
    if f is not None and f.match_stream is None and f.winner is None and not f.awaiting_ready:
        match = _open_match(
            state,
            holders,
            f.players,
            f.game,
            f.first_to,
            "final",
            None,
            made_words("final", state.name, f.players),
            ctx,
        )
        _system(stream, {"type": "final_linked", "match_stream": match.stream}, ctx)


def _open_match(state, holders, seats, game, first_to, kind, advantage, words, ctx) -> Match:
    """A show's death match or final; its title is stored as its parts
    (``games.titles``), the English sentence kept for the API."""
    rules = series_for(game).rules
    items = {s: [slug for _id, slug in shows.items_for_match(state, s, kind, game)] for s in seats}
    if advantage and "dmo" in rules.items:
        items[advantage] = items.get(advantage, []) + ["dmo"]
    options = {**shows.match_length(game, first_to), **shows.match_clock(state.options, game)}
    return match_services.create_match(
        game,
        list(seats),
        options=options,
        items={s: v for s, v in items.items() if v},
        holders={s: holders[s] for s in seats if s in holders},
        title=made_english(words),
        title_words=words,
        show_stream=state.stream,
        kind=kind,
        actor="platform",
        role="system",
        chooser=advantage if advantage and "dmo" not in rules.items else None,
        rng=ctx.rng,
        now=ctx.now,
    )


def _on_match_events(match: Match, new: list, state, now: float) -> None:
    """A show's match moved: report item uses and results to the show."""
    if not match.show_stream.startswith("show-"):
        return
    ended = any(e.type in ("series_ended", "series_forfeited") for e in new)
    if not ended and not any(e.type == "item_used" for e in new):
        return  # most moves concern only the match: no need to fold the show
    ctx = Ctx(now=now, rng=match_services.secure_rng(), role="system")
    show_state, _, _ = load(match.show_stream)
    kind, where = shows.match_kind(show_state, match.stream)
    for e in new:
        if e.type == "item_used" and e.data.get("item") != "dmo":
            _system(
                match.show_stream,
                {
                    "type": "item_used",
                    "entrant": e.data["seat"],
                    "item": e.data["item"],
                    "match_stream": match.stream,
                },
                ctx,
            )
    if not ended:
        return
    winner = state.winners[0]
    loser = next(s for s in state.seats if s != winner)
    if kind == "death_match":
        _system(
            match.show_stream,
            {
                "type": "death_match_result",
                "round": where[0],
                "candidate": where[1],
                "winner": winner,
                "loser": loser,
                "match_stream": match.stream,
            },
            ctx,
        )
    elif kind == "final":
        _system(
            match.show_stream,
            {
                "type": "final_result",
                "winner": winner,
                "loser": loser,
                "match_stream": match.stream,
            },
            ctx,
        )
    _reconcile(match.show_stream, ctx)


match_services.on_match_events(
    _on_match_events, types=("series_ended", "series_forfeited", "item_used"), of="show-"
)


# ---- items granted during a match -------------------------------------------------
def live_matches_with(stream: str, entrant: str) -> list[Match]:
    """The show's matches being played now in which ``entrant`` holds a seat."""
    live = Match.objects.filter(show_stream=stream, status="live").order_by("id")
    return [m for m in live if entrant in m.seats]


def _hand_granted_items(stream: str, new: list, now: float) -> None:
    """An item granted while its holder plays a match of the show reaches that
    match at once when its scope covers the match and the match's game knows
    it; the bout in progress keeps its items, so it applies from the next bout
    (games/core/series.py). Any other item waits for its holder's next match."""
    granted = [e.data for e in new if e.type == "item_granted"]
    if not granted:
        return
    state = load(stream)[0]
    for d in granted:
        for match in live_matches_with(stream, d["entrant"]):
            if not shows.item_reaches(state, match.stream, d["scope"], d["item"], match.game):
                continue
            cmd = {"type": "receive_item", "seat": d["entrant"], "item": d["item"]}
            try:
                match_services.submit(match, None, cmd, actor="platform", role="system", now=now)
            except RuleError:
                continue  # it ended meanwhile: the item waits for the next match


def received_from_bout(match: Match, seat: str, item: str) -> int | None:
    """The bout from which the last ``item`` that ``seat`` received during
    ``match`` applies (None: none reached it)."""
    for row in reversed(read(match.stream)):
        if row.type == "item_received" and (row.data["seat"], row.data["item"]) == (seat, item):
            return row.data["from_bout"]
    return None


# ---- rulings ---------------------------------------------------------------------
def _simulate(match: Match, cmd: Mapping[str, Any]):
    """The match state after a ruling's command, without writing anything."""
    loaded = match_services.load(match)
    series = series_for(match.game)
    state = loaded.state
    for e in series.decide(
        state, cmd, Ctx(now=time.time(), rng=random.Random(0), role="moderator")
    ):
        state = series.evolve(state, e)
    return loaded.state, state


def _ruling_command(ruling: str, params: Mapping[str, Any], match: Match) -> dict | None:
    if ruling == "award_bout":
        return {"type": "award_bout", "winner": params.get("winner")}
    if ruling == "replay_bout":
        return {"type": "replay_bout"}
    if ruling == "overturn_series":
        return {"type": "overturn", "winner": params.get("winner")}
    if ruling == "adjust_clock":  # the named seat's clock only
        return {"type": "add_time", "seat": params.get("seat"), "seconds": params.get("seconds")}
    if ruling == "disqualify" and params.get("entrant") in match.seats:
        return {"type": "forfeit", "loser": params.get("entrant")}
    return None


def _ruling_flags(state, cmd: Mapping[str, Any]) -> dict:
    """Whether a ruling would change who won a series or reopen one: the
    four-eyes rule depends on it, so it is worked out from the match."""
    did = cmd.get("dispute_id")
    d = state.disputes.get(did) if isinstance(did, str) else None  # a list is unhashable
    match = Match.objects.filter(stream=d.target_stream).first() if d else None
    if match is None:
        return {}
    ruling, params = cmd.get("ruling"), cmd.get("params") or {}
    loaded = match_services.load(match)
    before = loaded.state
    if ruling == "void_to":
        # refused when proposed, not only when approved: the end of a move, not voided before
        after = match_services.state_at_boundary(loaded, params.get("version"))
    else:
        cmd_ = _ruling_command(ruling, params, match)
        if cmd_ is None:
            return {}
        try:
            before, after = _simulate(match, cmd_)
        except RuleError as exc:
            raise RuleError("that ruling cannot be carried out: {exc}", exc=exc) from None
    return {
        "changes_series_winner": bool(before.finished or after.finished)
        and before.winners != after.winners,
        "reopens_series": before.finished and not after.finished,
    }


def carry_out(applied: Mapping[str, Any], moderator: str, now: float | None = None) -> None:
    """Apply a ruling to the match (and its bracket) it corrects."""
    target = applied["target"]["stream"]
    match = Match.objects.filter(stream=target).first()
    if match is None:
        return  # a ruling on the show itself: shows/ applied it
    ruling, params = applied["ruling"], applied.get("params") or {}
    reason = f"dispute {applied['dispute_id']}: {ruling}"
    if ruling == "void_to":
        match_services.void_to(
            match,
            params["version"],
            actor=moderator,
            reason=reason,
            now=now,
            extra={
                "dispute_id": applied["dispute_id"],
                "moderators": applied.get("moderators", []),
            },
        )
        if (
            match.show_stream.startswith("bracket-")
            and not match_services.load(match).state.finished
        ):
            bracket_services.reopen_series(match.show_stream, match)
        return
    cmd = _ruling_command(ruling, params, match)
    if cmd is not None:
        match_services.submit(
            match, None, {**cmd, "reason": reason}, actor=moderator, role="moderator"
        )
