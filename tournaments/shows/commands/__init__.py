"""The show's command handlers, one module per kind of command; each module's
HANDLERS maps a command type to its handler (decide.py merges them)."""
