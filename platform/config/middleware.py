from django.http import HttpResponseNotAllowed
from django.template.loader import render_to_string


class NotAllowedPage:
    """A page method a URL does not take (GET on a form's target) answers 405
    with a page in the site's look instead of Django's empty body; the API's
    own JSON answers are left as they are."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if isinstance(response, HttpResponseNotAllowed) and not request.path.startswith("/api/"):
            allowed = [m.strip() for m in response.get("Allow", "").split(",") if m.strip()]
            page = HttpResponseNotAllowed(
                allowed,
                render_to_string("405.html", {"allowed": allowed}, request=request),
            )
            return page
        return response
