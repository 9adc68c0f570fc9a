"""Template helpers of the ratings: the rated note on a show or bracket page,
and a rating history drawn as an SVG on the server (no script, no CDN)."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from games.holders import bot_kind, is_bot

from ..results import rated_and_delay
from ..words import COUNTER_NAMES

register = template.Library()

WIDTH, HEIGHT, PAD = 320, 120, 14


@register.simple_tag
def rated_note(stream: str) -> str:
    """'Rated' or 'Not rated': whether the show's or bracket's matches count
    for the players' ratings (as its creation says, in the log)."""
    rated, _delay = rated_and_delay(stream, {})
    return format_html(
        '<p class="rated-note" data-rated="{}">{}</p>',
        "yes" if rated else "no",
        _("Rated: its matches count for the players' ratings.")
        if rated
        else _("Not rated: its matches leave the ratings as they are."),
    )


@register.filter
def counter_name(key: str) -> str:
    return COUNTER_NAMES.get(key, key.replace("_", " "))


@register.filter
def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "–"


@register.simple_tag
def rating_chart(points: list[dict], label: str = "") -> str:
    """A line of the rating (mu - 3 sigma) after each rated match."""
    if not points:
        return ""
    xs = [p["at"].timestamp() for p in points]
    ys = [p["rating"] for p in points]
    lo, hi = min(ys), max(ys)
    if hi - lo < 1:
        lo, hi = lo - 0.5, hi + 0.5
    span_x = xs[-1] - xs[0]

    def x(i: int) -> float:
        if len(xs) == 1:
            return WIDTH / 2
        frac = (xs[i] - xs[0]) / span_x if span_x > 0 else i / (len(xs) - 1)
        return PAD * 2 + frac * (WIDTH - PAD * 3)

    def y(v: float) -> float:
        return HEIGHT - PAD - (v - lo) / (hi - lo) * (HEIGHT - 2 * PAD)

    coords = [(x(i), y(v)) for i, v in enumerate(ys)]
    line = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in coords)
    dots = format_html_join(
        "",
        '<circle cx="{}" cy="{}" r="2.5"><title>{}: {}</title></circle>',
        (
            (f"{cx:.1f}", f"{cy:.1f}", p["at"].strftime("%Y-%m-%d"), f"{p['rating']:.1f}")
            for (cx, cy), p in zip(coords, points, strict=True)
        ),
    )
    return format_html(
        '<svg class="rating-chart" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">'
        '<text x="2" y="{top}" class="axis">{hi}</text>'
        '<text x="2" y="{bottom}" class="axis">{lo}</text>'
        '<line x1="{pad2}" y1="{h_pad}" x2="{w}" y2="{h_pad}" class="base"/>'
        '<polyline points="{line}" class="line"/>{dots}</svg>',
        w=WIDTH,
        h=HEIGHT,
        label=label,
        top=PAD,
        bottom=HEIGHT - PAD,
        hi=f"{hi:.1f}",
        lo=f"{lo:.1f}",
        pad2=PAD * 2,
        h_pad=HEIGHT - PAD,
        line=line,
        dots=dots,
    )


@register.filter
def player_url(name: str) -> str:
    """A player's profile address, from what pages call them."""
    from django.urls import reverse

    if is_bot(name):
        return reverse("ratings:bot", args=[bot_kind(name)])
    return reverse("ratings:profile", args=[name])


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if hasattr(mapping, "get") else None
