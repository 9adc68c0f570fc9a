"""What every page shows a logged-in player: their site reminders not yet dismissed."""

from django.utils.functional import SimpleLazyObject

MAX_SHOWN = 5


def _unseen(user) -> list:
    from .models import SITE, Reminder

    return list(Reminder.objects.filter(user=user, channel=SITE, seen=False)[:MAX_SHOWN])


def reminders(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"site_reminders": []}
    if not hasattr(request, "_site_reminders"):
        request._site_reminders = SimpleLazyObject(lambda: _unseen(user))
    return {"site_reminders": request._site_reminders}
