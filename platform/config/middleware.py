"""When the database is away (restarting, failing over), a request gets a
503 that says so and when to retry, never a bare 500; the processes reconnect
by themselves on the next request."""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.http import JsonResponse

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5


class DatabaseUnavailableMiddleware:
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
            {"error": f"the database is unavailable for a moment; retry in {RETRY_AFTER_S} s"},
            status=503,
        )
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
