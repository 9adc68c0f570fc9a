"""``{{ title|made_title }}``: a title the system made ("Round 3") in the
reader's language; a title a person typed stays as typed."""

from django import template

from games.titles import round_title

register = template.Library()


@register.filter
def made_title(title) -> str:
    return round_title(title)


@register.filter
def round_words(round_id) -> str:
    """``{{ round.id|round_words }}``: "r3" is "round 3" (a show's round by
    its number, as the log says it), never its id."""
    from django.utils.translation import pgettext

    from tournaments.log_words import round_number

    return pgettext("a show's round", "round %(n)s") % {"n": round_number(round_id)}


@register.filter
def stored(value) -> str:
    """``{{ match.kind|stored }}``: a kind, a step or a format in words."""
    from tournaments.words import stored_words

    return stored_words(value)


@register.filter
def audit_kind(kind) -> str:
    """``{{ row.kind|audit_kind }}``: an event kind of the audit log in words."""
    from tournaments.words import audit_kind_words

    return audit_kind_words(kind)


@register.filter
def game_name(slug) -> str:
    """``{{ match.game|game_name }}``: a game's name, never its slug."""
    from games.core.protocol import RuleError
    from games.core.registry import rules_for

    try:
        return rules_for(str(slug)).name
    except RuleError:
        return str(slug).replace("-", " ")


@register.filter
def item_words(slug) -> str:
    """``{{ item|item_words }}``: an item's name, never its id."""
    from games.engine_words import item_name

    return item_name(str(slug))
