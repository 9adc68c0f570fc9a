"""``{{ r|reminder_text }}``: a reminder in the reader's language (words.text),
its match said from its parts, never the English stored with it."""

from django import template

from ..words import text

register = template.Library()


@register.filter
def reminder_text(reminder) -> str:
    return text(reminder.kind, reminder.params or {})
