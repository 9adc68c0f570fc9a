"""Love Letter (``love-letter``): the classic game for 2 to 4 players."""
