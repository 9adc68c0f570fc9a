"""The words the pages show for stored values (statuses, roles, kinds), marked
for translation: a template shows one with ``{% translate value %}``; the
stored values themselves stay as they are."""

from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_noop as _

STATUS_WORDS = (
    _("live"),
    _("finished"),
    _("running"),
    _("active"),
    _("eliminated"),
    _("champion"),
    _("substituted"),
    _("planned"),
    _("started"),
    _("open"),
    _("claimed"),
    _("awaiting approval"),
    _("ruled"),
    _("held"),
    _("used"),
    _("revoked"),
    _("void"),
    _("scheduled"),
    _("cancelled"),
    _("waiting"),
    _("applied"),
    _("withdrawn"),
    _("declined"),
    _("dropped"),
)
ROLE_WORDS = (_("organizer"), _("moderator"), _("player"), _("spectator"), _("system"))
KIND_WORDS = (
    _("main"),
    _("death_match"),
    _("death"),
    _("bracket"),
    _("final"),
    _("give_token"),
    _("choose_candidate"),
    _("nominate"),
    _("ban_game"),
    _("enter_ranking"),
    _("pick_game"),
    _("add_round"),
    _("ready"),
)
FORMAT_WORDS = (_("single"), _("double"), _("round_robin"), _("swiss"))
# items.SCOPE_WORDS (pure data, no Django there): the same words, marked here
SCOPE_WORDS = (
    _("any match of the show"),
    _("death matches only"),
    _("the final only"),
)
# the dashboard's confirmations ("pause done"): its clock actions and show commands
ACTION_WORDS = (
    _("pause"),
    _("resume"),
    _("add time"),
    _("grant item"),
    _("transfer item"),
    _("revoke item"),
    _("claim dispute"),
    _("transfer dispute"),
    _("approve ruling"),
    _("reject ruling"),
)


# a form's hidden command id met another command already written under it
FORM_REUSED = gettext_lazy(
    "this form was already sent for another command; reload the page and try again"
)
