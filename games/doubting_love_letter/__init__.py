"""Doubting Love Letter (Jiffa's Disapproval): Love Letter where every play
comes with a claim that may be a bluff. RULES.md section 1."""

# the levels search over RULES, so they join its bots once both are loaded
from .levels import LEVELS
from .rules import RULES

RULES.bots = {**RULES.bots, **LEVELS}
