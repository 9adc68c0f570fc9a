"""The project's URLs, plus two reference endpoints for the HTTP command
benchmark: a bare DRF view doing one INSERT (no authentication), and the same
with the API's token authentication. The table they write, ``bench_insert``,
is created by the benchmark in its own database."""

from django.db import connection
from django.urls import include, path
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from api.authentication import TokenAuthentication
from config.urls import handler403, handler404  # noqa: F401  (the site's error pages)


class BareInsert(APIView):
    """POST {"n": ...}: one INSERT, its id back. The floor of a write over DRF."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    def post(self, request):
        with connection.cursor() as cur:
            cur.execute(
                "INSERT INTO bench_insert (body) VALUES (%s) RETURNING id",
                [str(request.data.get("n", ""))[:100]],
            )
            (pk,) = cur.fetchone()
        return Response({"id": pk}, status=201)


class TokenInsert(BareInsert):
    """The same, behind the API's token authentication (one more SELECT)."""

    authentication_classes = [TokenAuthentication]
    permission_classes = [IsAuthenticated]


urlpatterns = [
    path("bench/insert", BareInsert.as_view()),
    path("bench/insert-token", TokenInsert.as_view()),
    path("", include("config.urls")),
]
