"""The presenters of the tables: the games' pure rules put in words, cards and controls.

``base`` holds the shapes a table is made of (cards, piles, controls), one
module per game (and ``love_letter_family`` for the cards both Love Letters
share) draws that game's view and tells its events, and ``table`` puts them
together for one viewer of one match (``table_for``). Unlike the engines
(``games/core``, ``games/<game>/``), these speak the reader's language
through Django's translation.
"""
