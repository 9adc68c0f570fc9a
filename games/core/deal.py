"""Fair deals: every shuffled deal commits to its order and reveals it later.

At the deal a game publishes ``commitment`` = sha256 of ``salt:c1,c2,...``
(the whole shuffled order, cards as they are written in events, joined by
commas). When the bout or round ends it appends a ``deal_revealed`` event
with ``order``, ``salt`` and ``commitment``, so anyone can check with
``verify_deal`` that the deck dealt was the deck committed to. Until then
order and salt are seen by moderators only.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from .protocol import Event

REVEAL = "deal_revealed"


def commitment_of(order: Sequence, salt: str) -> str:
    """sha256 hex of ``salt:c1,c2,...`` (the shuffled order, top first)."""
    text = f"{salt}:{','.join(str(c) for c in order)}"
    return hashlib.sha256(text.encode()).hexdigest()


def verify_deal(commitment: str, order: Sequence, salt: str) -> bool:
    """True when ``order`` and ``salt`` are what ``commitment`` promised."""
    if not isinstance(commitment, str) or not isinstance(salt, str):
        return False
    return hmac.compare_digest(commitment_of(order, salt), commitment)


def new_salt(rng) -> str:
    """128 random bits as 32 hex digits (from the command handler's RNG)."""
    return f"{rng.getrandbits(128):032x}"


def reveal_event(order: Sequence, salt: str, commitment: str) -> Event:
    """The public reveal that ends a deal."""
    return Event(REVEAL, {"order": list(order), "salt": salt, "commitment": commitment})
