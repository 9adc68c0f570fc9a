"""What pages call the statistics (translated)."""

from django.utils.translation import gettext_lazy as _

COUNTER_NAMES = {
    "bluffs": _("bluffs made"),
    "bluffs_caught": _("bluffs caught"),
    "challenges": _("challenges"),
    "challenges_right": _("challenges that caught a bluff"),
    "lives_lost": _("lives lost"),
    "guard_guesses": _("Guard guesses"),
    "guard_guesses_right": _("Guard guesses right"),
    "bids": _("bids"),
    "auctions_won": _("auctions won"),
    "bids_made": _("declared amounts reached"),
    "declared": _("total declared as Guesser"),
    "chips": _("total chips as Guesser"),
    "duels_declared": _("duels as declarer"),
    "bids_hit": _("bids made good"),
    "bids_missed": _("bids missed"),
}
