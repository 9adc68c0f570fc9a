"""``{% when ts %}``: a moment (Unix time) as a <time> element in the viewer's
time zone: the zone in their reminder settings, else the browser's (the
element is rewritten by static/js/localtime.js; UTC until then)."""

import datetime as dt
import zoneinfo

from django import template
from django.utils import formats
from django.utils.html import format_html

from ..models import ReminderSettings

register = template.Library()


def _zone(context):
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    if not hasattr(request, "_reminder_zone"):
        name = (
            ReminderSettings.objects.filter(user=user).values_list("time_zone", flat=True).first()
        )
        try:
            request._reminder_zone = zoneinfo.ZoneInfo(name) if name else None
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            request._reminder_zone = None
    return request._reminder_zone


@register.simple_tag(takes_context=True)
def when(context, ts):
    if ts is None:
        return ""
    moment = dt.datetime.fromtimestamp(float(ts), tz=dt.UTC)
    zone = _zone(context)
    shown = moment.astimezone(zone or dt.UTC)
    text = f"{formats.date_format(shown, 'DATETIME_FORMAT')} ({shown.tzname()})"
    if zone is not None:  # the viewer chose a zone: the page says it, no script needed
        return format_html('<time datetime="{}">{}</time>', moment.isoformat(), text)
    return format_html('<time datetime="{}" data-local>{}</time>', moment.isoformat(), text)
