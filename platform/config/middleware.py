"""Answers the site gives when something is not as asked: a page method a URL
does not take, and a database that is away for a moment."""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpResponseNotAllowed, JsonResponse
from django.template.loader import render_to_string

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5


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
            return HttpResponseNotAllowed(
                allowed, render_to_string("405.html", {"allowed": allowed}, request=request)
            )
        return response


class DatabaseUnavailableMiddleware:
    """When the database is away (restarting, failing over), a request gets a
    503 that says so and when to retry, never a bare 500; the processes
    reconnect by themselves on the next request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        log.warning(
            "database unavailable during %s %s: %s", request.method, request.path, exception
        )
        response = JsonResponse(
            {
                "code": "unavailable",
                "message": f"the database is unavailable for a moment; retry in {RETRY_AFTER_S} s",
            },
            status=503,
        )
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
