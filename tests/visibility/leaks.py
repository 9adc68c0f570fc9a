"""What no delayed payload may hold: a deal's order, deck or salt before the
bout's reveal, or a card still in the deck at the cut. Shared by the
visibility tests (API views, pages, webhook bodies, exports)."""

import json

from eventlog.store import read

# the keys under which a game's moderator view keeps what is not dealt yet
UNDEALT_KEYS = ("deck", "pile", "order", "salt")
# where an order and a salt are public: a deal revealed at a bout's end
REVEALED_KEYS = ("revealed_deal", "revealed_deals")


def salts(value) -> set[str]:
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "salt" and isinstance(v, str) and v:
                out.add(v)
            else:
                out |= salts(v)
    elif isinstance(value, list | tuple):
        for v in value:
            out |= salts(v)
    return out


def hidden_salts(stream: str, cut: float) -> set[str]:
    """The salts of the stream's deals not revealed at ``cut``."""
    every, revealed = set(), set()
    for r in read(stream):
        found = salts(dict(r.data))
        every |= found
        if r.type == "deal_revealed" and r.recorded_at.timestamp() <= cut:
            revealed |= found
    return every - revealed


def undealt_fields(payload, path="") -> list[str]:
    """Paths of the payload holding a deck, a pile, an order or a salt
    (outside a revealed deal)."""
    out = []
    if isinstance(payload, dict):
        if payload.get("type") == "deal_revealed":  # an event of the history: the reveal
            return out
        for k, v in payload.items():
            if k in REVEALED_KEYS:
                continue
            # cards (a list) or a salt (a string); a count is no card
            if k in UNDEALT_KEYS and isinstance(v, list | str) and v:
                out.append(f"{path}.{k}")
            else:
                out += undealt_fields(v, f"{path}.{k}")
    elif isinstance(payload, list):
        for i, v in enumerate(payload):
            out += undealt_fields(v, f"{path}[{i}]")
    return out


def assert_no_undealt(payload, stream: str, cut: float, *, text: str | None = None) -> None:
    """``payload`` (JSON-able) and ``text`` (its HTML, if any) hold nothing of
    ``stream`` that was not dealt at ``cut``."""
    found = undealt_fields(payload)
    assert found == [], f"a deck, pile, order or salt reached a spectator: {found}"
    seen = json.dumps(payload) + (text or "")
    for salt in hidden_salts(stream, cut):
        assert salt not in seen, "a deal's salt before its reveal"
