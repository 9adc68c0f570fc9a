"""The show engine (shared/TOURNAMENTS.md, "Shows", "Disputes and corrections").

Pure Python, no Django: one show is one stream, decided like a game.

    create_show(ctx, name, organizer, entrants, options) -> [Event]   (initial)
    decide(state, command, ctx) -> [Event]     raises RuleError("clear words")
    evolve(state, event) -> ShowState          pure, deterministic, total
    view(state, viewer_role, username=None, now=None, viewer_id=None) -> dict
    pending(state) -> [Decision]               who must act, by when

A command is a mapping ``{"type": ..., "actor": USERNAME, "role": ROLE, ...}``
with ROLE one of organizer, moderator, player, spectator, system (the
services layer fills in actor and role; ``system`` records what a match
reported). Every event's data carries ``actor``, ``role``, ``reason`` and
``at`` (ctx.now). A rejected command returns nothing.

The k-th event of the show's stream is version k: ``evolve`` counts them, so
rulings can name show events by version and void them (the voided events
stay in ``state.log``; no fold uses them).

Commands, with their fields (``round`` is optional wherever it appears and
defaults to the round in progress):

organizer  add_round {title}; reorder_rounds {order, reason};
           appoint_moderator {username, user_id?}; remove_moderator {username, reason};
           substitute {out, in, reason, holder?} (holder: who plays ``in``,
           an account id or bot:<kind>);
           extend_deadline {round, step, seconds, reason, entrant?};
           enter_ranking {round?, ranking}; pick_game {round?, candidate?, game};
           release_autopilot {reason?}; resume_autopilot {reason?} (whether an
           autopilot, e.g. the demo's, may make the organizer's steps)
           invite {entrant}; revoke_invitation {invitation_id}
player     give_token {round?, to}; choose_candidate {round?, candidates | candidate};
           nominate {round?, dmo}; ban_game {round?, game};
           transfer_item {from, to, item_id} (own items); file_dispute (seated)
moderator  view_omnisciently {match_stream} (recorded for the audit log);
           grant_item {entrant, item, scope, given_by, reason};
           transfer_item {from, to, item_id, reason}; revoke_item {item_id, reason};
           file_dispute {target_stream, target_version, text};
           claim_dispute {dispute_id}; transfer_dispute {dispute_id, to};
           rule_dispute {dispute_id, ruling, params, reason,
                         changes_series_winner?, reopens_series?};
           approve_ruling {dispute_id, reason?}; reject_ruling {dispute_id, reason}
system     death_match_linked {round?, candidate, match_stream};
           death_match_result {round?, candidate, winner, loser, match_stream?};
           final_linked {match_stream}; final_result {winner, loser?, match_stream?};
           item_used {entrant, item_id | item, match_stream, kind?}; timeout {};
           accept_invitation {invitation_id, user_id, username} (the link checked)

The organizer counts as a moderator of the show. Rights belong to accounts:
``show_created`` records the organizer's user id and ``moderator_appointed``
each moderator's; the services map a user to a role by id, never by name
(events recorded before ids were have none: no account holds those roles).
"""

# The engine lives in the modules below; this package re-exports its public names.
from .commands.schedule import check_in_opens_at, due, next_due
from .creation import check_start, create_show
from .decide import COMMANDS, decide
from .evolve import EVENT_TYPES, as_of, evolve, fold, replay, upto
from .options import (
    DEATH_MATCH_FIRST_TO_DLL,
    DEFAULT_OPTIONS,
    FINAL_FIRST_TO_DLL,
    death_match_first_to,
    match_clock,
    match_length,
    match_length_option,
    one_line,
    resolve_options,
)
from .state import (
    ACTIVE,
    APPLIED,
    AWAITING,
    CANCELLED,
    CHAMPION,
    CLAIMED,
    DECIDING_EVENTS,
    DECLINED,
    DROPPED,
    ELIMINATED,
    ENTRANT_STEPS,
    FINISHED,
    MATCH_ONLY_RULINGS,
    MODERATOR,
    OPEN,
    ORGANIZER,
    PLANNED,
    PLAYER,
    READY,
    ROLES,
    RULED,
    RULINGS,
    RUNNING,
    SCHEDULED,
    SPECTATOR,
    STARTED,
    STEP_EVENTS,
    SUBSTITUTED,
    SYSTEM,
    TIMED_STEPS,
    WAITING,
    WITHDRAWN,
    Dispute,
    Duel,
    Final,
    Invitation,
    Item,
    Round,
    ShowState,
    active,
    ban_options,
    candidate_split,
    champion,
    current_round,
    dmo_options,
    eliminated,
    gift_options,
    immune,
    inventory,
    is_moderator,
    item_reaches,
    items_for_match,
    match_kind,
    next_deadline,
    next_round,
    not_ready,
    overdue,
    pending,
    round_by_id,
    round_decisions,
    seat_holder_ids,
    staff_ids,
)
from .state import _duel_of as _duel_of  # used by tests
from .views import audit_log, events_for, public_log, view

__all__ = [
    "audit_log",
    "APPLIED",
    "CANCELLED",
    "DECLINED",
    "DROPPED",
    "READY",
    "RUNNING",
    "SCHEDULED",
    "TIMED_STEPS",
    "WAITING",
    "WITHDRAWN",
    "check_in_opens_at",
    "due",
    "next_due",
    "not_ready",
    "ORGANIZER",
    "MODERATOR",
    "PLAYER",
    "SPECTATOR",
    "SYSTEM",
    "ROLES",
    "ACTIVE",
    "ELIMINATED",
    "CHAMPION",
    "SUBSTITUTED",
    "PLANNED",
    "STARTED",
    "FINISHED",
    "OPEN",
    "CLAIMED",
    "AWAITING",
    "RULED",
    "RULINGS",
    "MATCH_ONLY_RULINGS",
    "ENTRANT_STEPS",
    "STEP_EVENTS",
    "DECIDING_EVENTS",
    "Duel",
    "Round",
    "Item",
    "Invitation",
    "Dispute",
    "Final",
    "ShowState",
    "active",
    "eliminated",
    "champion",
    "is_moderator",
    "item_reaches",
    "seat_holder_ids",
    "staff_ids",
    "current_round",
    "next_round",
    "round_by_id",
    "immune",
    "inventory",
    "items_for_match",
    "match_kind",
    "round_decisions",
    "candidate_split",
    "pending",
    "overdue",
    "next_deadline",
    "gift_options",
    "dmo_options",
    "ban_options",
    "DEATH_MATCH_FIRST_TO_DLL",
    "FINAL_FIRST_TO_DLL",
    "DEFAULT_OPTIONS",
    "one_line",
    "resolve_options",
    "death_match_first_to",
    "match_clock",
    "match_length",
    "match_length_option",
    "check_start",
    "create_show",
    "COMMANDS",
    "decide",
    "evolve",
    "fold",
    "replay",
    "EVENT_TYPES",
    "as_of",
    "upto",
    "view",
    "public_log",
    "events_for",
]
