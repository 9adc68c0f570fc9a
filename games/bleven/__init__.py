"""Bleven: a card game of bids and beliefs for 2 players or 4 in two teams."""

# the levels search over RULES, so they join its bots once both are loaded
from .levels import LEVELS
from .rules import RULES

RULES.bots = {**RULES.bots, **LEVELS}
