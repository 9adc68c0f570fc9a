"""Love Letter (``love-letter``): the classic game for 2 to 4 players."""

# the levels search over RULES, so they join its bots once both are loaded
from .levels import LEVELS
from .rules import RULES

RULES.bots = {**RULES.bots, **LEVELS}
