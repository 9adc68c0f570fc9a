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
        raise RuleError(f"no item {item_id!r} in this show")
    if it.status != "held":
        raise RuleError(f"item {item_id} ({it.item}) is {it.status} and held by nobody")
    return it


def _grant_item(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "grant_item")
    s = b.state
    _not_over(s)
    who = c.get("entrant")
    if s.status.get(who) != ACTIVE:
        raise RuleError(f"{who} is not an active entrant")
    slug = c.get("item")
    if slug not in known_items():
        raise RuleError(f"no item called {slug!r}; items: {', '.join(sorted(known_items()))}")
    scope = c.get("scope", "any")
    if scope not in SCOPES:
        raise RuleError(f"scope must be one of {', '.join(SCOPES)}")
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
                f"you hold no item {c.get('item_id')!r}"
            )  # says nothing of others' items
    it = _held(s, c.get("item_id"))
    if it.holder != src:
        raise RuleError(f"{src} does not hold item {it.id} ({it.item}); {it.holder} does")
    if s.status.get(dst) != ACTIVE:
        raise RuleError(f"{dst} is not an active entrant")
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
            raise RuleError(f"{stream} is a {kind.replace('_', ' ')}, not a {c.get('kind')}")
    elif known == "show":
        raise RuleError("items are used in matches, not in the show's own stream")
    else:
        kind = c.get("kind")
        if kind not in MATCH_KINDS:
            raise RuleError(
                f"kind must be one of {', '.join(MATCH_KINDS)} for a match the show does not know"
            )
    if c.get("item_id") is not None:
        it = _held(s, c["item_id"])
        if it.holder != who:
            raise RuleError(f"{who} does not hold item {it.id} ({it.item})")
    else:
        slug = c.get("item")
        held = [x for x in inventory(s, who) if x.item == slug]
        if not held:
            raise RuleError(f"{who} holds no {slug}")
        usable = [x for x in held if _scope_allows(x.scope, kind)]
        it = (usable or held)[0]
    if not _scope_allows(it.scope, kind):
        raise RuleError(
            f"item {it.id} ({it.item}) is for {SCOPE_WORDS[it.scope]}; it cannot be used in a "
            f"{kind.replace('_', ' ')} match"
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
