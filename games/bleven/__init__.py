"""Bleven: a card game of bids and beliefs for 2 players or 4 in two teams."""
