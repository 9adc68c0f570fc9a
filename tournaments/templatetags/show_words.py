"""``{{ title|made_title }}``: a title the system made ("Round 3") in the
reader's language; a title a person typed stays as typed."""

import re

from django import template
from django.utils.translation import gettext as _

register = template.Library()

_ROUND = re.compile(r"^Round (\d+)$")


@register.filter
def made_title(title) -> str:
    m = _ROUND.match(str(title))
    return _("Round %(n)s") % {"n": m.group(1)} if m else str(title)
