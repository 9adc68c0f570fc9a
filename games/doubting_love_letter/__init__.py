"""Doubting Love Letter (Jiffa's Disapproval): Love Letter where every play
comes with a claim that may be a bluff. RULES.md section 1."""
