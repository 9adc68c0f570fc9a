"""What the header asks on every page: whether its visitor staffs a show."""

from django.utils.functional import SimpleLazyObject


def show_staff(request):
    """``staffs_a_show``: the visitor organizes or moderates some show (the
    Moderate link), asked once per request and only if a template does."""
    from .selectors import staffs_a_show

    user = getattr(request, "user", None)
    return {"staffs_a_show": SimpleLazyObject(lambda: staffs_a_show(user))}
