"""Higher or Lower (slug ``higher-lower``): an open auction, then 24 turns of
guessing whether the Dealer's secret card is higher or lower."""

# the levels search over RULES, so they join its bots once both are loaded
from .levels import LEVELS
from .rules import RULES

RULES.bots = {**RULES.bots, **LEVELS}
