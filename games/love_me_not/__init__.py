"""Love Me Not (``love-me-not``): two players, five simultaneous turns."""

# the levels search over RULES, so they join its bots once both are loaded
from .levels import LEVELS
from .rules import RULES

RULES.bots = {**RULES.bots, **LEVELS}
