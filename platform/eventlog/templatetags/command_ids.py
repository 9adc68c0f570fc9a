"""``{% command_id_field %}``: a form's hidden command id, made when the form
is rendered, so a double click or a resent form writes once (its second
post is a replay of the first)."""

import uuid

from django import template
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def command_id_field() -> str:
    return format_html('<input type="hidden" name="command_id" value="{}">', uuid.uuid4().hex)
