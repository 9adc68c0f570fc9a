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
    _("checking in"),
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


# ---- stored values in words: a page never shows a snake_case value or a slug ----
# (KIND_WORDS and FORMAT_WORDS above keep the msgids the older catalogs know)
STORED_WORDS = {
    # a match's kind in a show or a bracket
    "main": gettext_lazy("main match"),
    "death_match": gettext_lazy("death match"),
    "death": gettext_lazy("death match"),
    "bracket": gettext_lazy("bracket series"),
    "final": gettext_lazy("final"),
    # an entrant's or the organizer's step in a show
    "give_token": gettext_lazy("give the token"),
    "choose_candidate": gettext_lazy("choose the candidates"),
    "nominate": gettext_lazy("nominate the opponent"),
    "ban_game": gettext_lazy("ban a game"),
    "enter_ranking": gettext_lazy("enter the ranking"),
    "pick_game": gettext_lazy("pick the game"),
    "add_round": gettext_lazy("add a round"),
    "ready": gettext_lazy("ready-check"),
    # a bracket's format
    "single": gettext_lazy("single elimination"),
    "double": gettext_lazy("double elimination"),
    "round_robin": gettext_lazy("round robin"),
    "swiss": gettext_lazy("Swiss system"),
    # a player's stage in a show of theirs (the home page)
    "registered": gettext_lazy("registered"),
    "checking in": gettext_lazy("checking in"),
    "awaiting_approval": gettext_lazy("awaiting approval"),
}

# the audit's kinds of event, in words: the stored kind with its underscores as
# spaces is the msgid (audit_kind_words)
AUDIT_KIND_WORDS = (
    _("show created"),
    _("round added"),
    _("rounds reordered"),
    _("moderator appointed"),
    _("moderator removed"),
    _("match viewed omnisciently"),
    _("entrant substituted"),
    _("autopilot released"),
    _("autopilot resumed"),
    _("invitation created"),
    _("invitation accepted"),
    _("invitation revoked"),
    _("deadline extended"),
    _("ranking entered"),
    _("token given"),
    _("candidates named"),
    _("game banned"),
    _("game picked"),
    _("death match opened"),
    _("death match linked"),
    _("death match result"),
    _("entrant eliminated"),
    _("round finished"),
    _("final opened"),
    _("final result"),
    _("champion crowned"),
    _("item granted"),
    _("item transferred"),
    _("item revoked"),
    _("item used"),
    _("dispute filed"),
    _("ruling applied"),
    _("death match corrected"),
    _("death match reopened"),
    _("champion corrected"),
    _("entrant disqualified"),
    _("entrant registered"),
    _("entrant withdrew"),
    _("registration approved"),
    _("registration declined"),
    _("entrant promoted"),
    _("check in opened"),
    _("entrant checked in"),
    _("entrant dropped"),
    _("entrant replaced"),
    _("show started"),
    _("show cancelled"),
    _("player ready"),
    _("ready check passed"),
    _("no show forfeited"),
    _("clock paused"),
    _("clock resumed"),
    _("time added"),
    _("time credit used"),
    _("series forfeited"),
    _("series overturned"),
    _("bout replayed"),
    _("clock reanchored"),
    _("item declared"),
    _("item received"),
    _("match voided"),
    _("match abandoned"),
    _("dispute claimed"),
    _("dispute transferred"),
    _("final cancelled"),
    _("final linked"),
    _("final reopened"),
    _("ruling proposed"),
    _("ruling rejected"),
)
_SPECIAL_KIND = {"dmo_nominated": "death-match opponent nominated"}
AUDIT_KIND_WORDS += (_("death-match opponent nominated"),)


def stored_words(value) -> str:
    """A stored value (a kind, a step, a format) in the reader's language."""
    from django.utils.translation import gettext

    words = STORED_WORDS.get(value)
    return str(words) if words is not None else gettext(str(value)).replace("_", " ")


def audit_kind_words(kind) -> str:
    """An event kind of the audit log in the reader's language."""
    from django.utils.translation import gettext

    kind = str(kind)
    return gettext(_SPECIAL_KIND.get(kind, kind.replace("_", " ")))
