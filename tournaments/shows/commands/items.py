"""Items: grant, transfer, revoke, and their use in a match."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import RuleError

from ...items import MATCH_KINDS, SCOPE_WORDS, SCOPES, games_knowing, known_items
from ..builder import _Builder, _need_moderator, _need_system, _not_over, _player, _reason, _text
from ..state import (
    ACTIVE,
    MODERATOR,
    ORGANIZER,
    Item,
    ShowState,
    _scope_allows,
    inventory,
    match_kind,
)


def _held(s: ShowState, item_id: Any) -> Item:
    it = s.items.get(item_id) if isinstance(item_id, str) else None
    if it is None:
        raise RuleError("no item {item_id!r} in this show", item_id=item_id)
    if it.status != "held":
        raise RuleError(
            "item {item_id} ({item}) is {status} and held by nobody",
            item_id=item_id,
            item=it.item,
            status=it.status,
        )
    return it


def _grant_item(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "grant_item")
    s = b.state
    _not_over(s)
    who = c.get("entrant")
    if s.status.get(who) != ACTIVE:
        raise RuleError("{who} is not an active entrant", who=who)
    slug = c.get("item")
    if slug not in known_items():
        raise RuleError(
            "no item called {slug!r}; items: {known_items}",
            slug=slug,
            known_items=", ".join(sorted(known_items())),
        )
    scope = c.get("scope", "any")
    if scope not in SCOPES:
        raise RuleError("scope must be one of {scopes}", scopes=", ".join(SCOPES))
    given_by = _text(c, "given_by", "given_by (who gives the item, e.g. a host's name)")
    item_id = f"it-{s.item_seq + 1}"
    b.emit(
        "item_granted",
        {
            "item_id": item_id,
            "entrant": who,
            "item": slug,
            "scope": scope,
            "given_by": given_by,
            "games": list(games_knowing(slug)),
        },
        visible_to=(who,),
        public={"item_id": item_id, "entrant": who, "given_by": given_by},
    )


def _transfer_item(b: _Builder, c: Mapping[str, Any]) -> None:
    s = b.state
    _not_over(s)
    src, dst = c.get("from"), c.get("to")
    if b.role in (ORGANIZER, MODERATOR):
        _need_moderator(b, "transfer_item")
    else:
        who = _player(b, "transfer_item")
        if src != who:
            raise RuleError("you may only act for yourself")
        mine = s.items.get(c.get("item_id")) if isinstance(c.get("item_id"), str) else None
        if mine is None or mine.holder != who or mine.status != "held":
            raise RuleError(
                "you hold no item {item_id!r}", item_id=c.get("item_id")
            )  # says nothing of others' items
    it = _held(s, c.get("item_id"))
    if it.holder != src:
        raise RuleError(
            "{src} does not hold item {id} ({item}); {holder} does",
            src=src,
            id=it.id,
            item=it.item,
            holder=it.holder,
        )
    if s.status.get(dst) != ACTIVE:
        raise RuleError("{dst} is not an active entrant", dst=dst)
    if dst == src:
        raise RuleError("an item cannot be transferred to its own holder")
    b.emit(
        "item_transferred",
        {"item_id": it.id, "item": it.item, "scope": it.scope, "from": src, "to": dst},
        visible_to=(src, dst),
        public={"item_id": it.id, "from": src, "to": dst},
    )


def _revoke_item(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "revoke_item")
    it = _held(b.state, c.get("item_id"))
    reason = _reason(c, "revoking an item")
    b.emit(
        "item_revoked",
        {"item_id": it.id, "item": it.item, "entrant": it.holder},
        reason=reason,
        visible_to=(it.holder,),
        public={"item_id": it.id, "entrant": it.holder},
    )


def _item_used(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "item_used")
    s = b.state
    who = c.get("entrant")
    stream = _text(c, "match_stream", "match_stream")
    known, _where = match_kind(s, stream)
    if known in ("death_match", "final"):
        kind = known
        if c.get("kind") not in (None, kind):
            raise RuleError(
                "{stream} is a {kind}, not a {named}",
                stream=stream,
                kind=kind.replace("_", " "),
                named=c.get("kind"),
            )
    elif known == "show":
        raise RuleError("items are used in matches, not in the show's own stream")
    else:
        kind = c.get("kind")
        if kind not in MATCH_KINDS:
            raise RuleError(
                "kind must be one of {match_kinds} for a match the show does not know",
                match_kinds=", ".join(MATCH_KINDS),
            )
    if c.get("item_id") is not None:
        it = _held(s, c["item_id"])
        if it.holder != who:
            raise RuleError(
                "{who} does not hold item {id} ({item})", who=who, id=it.id, item=it.item
            )
    else:
        slug = c.get("item")
        held = [x for x in inventory(s, who) if x.item == slug]
        if not held:
            raise RuleError("{who} holds no {slug}", who=who, slug=slug)
        usable = [x for x in held if _scope_allows(x.scope, kind)]
        it = (usable or held)[0]
    if not _scope_allows(it.scope, kind):
        raise RuleError(
            "item {id} ({item}) is for {scope_words}; it cannot be used in a {kind} match",
            id=it.id,
            item=it.item,
            scope_words=SCOPE_WORDS[it.scope],
            kind=kind.replace("_", " "),
        )
    b.emit(
        "item_used",
        {"item_id": it.id, "item": it.item, "entrant": who, "match_stream": stream, "kind": kind},
        visible_to=(who,),
        public={"item_id": it.id, "entrant": who, "match_stream": stream, "kind": kind},
    )


HANDLERS = {
    "grant_item": _grant_item,
    "transfer_item": _transfer_item,
    "revoke_item": _revoke_item,
    "item_used": _item_used,
}
