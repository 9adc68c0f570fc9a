"""The tokens page: a user creates and revokes their own API tokens (a page
of the site; the tokens themselves are api.models)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from api.models import ApiToken
from eventlog.commands import BadCommandId, command_args, once
from eventlog.store import CommandIdReused
from games.core.protocol import RuleError
from games.engine_words import refusal
from tournaments.words import FORM_REUSED

MAX_TOKENS = 20  # active tokens per user


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy("what it is for, e.g. my bot"),
    )


@never_cache  # the page that shows a secret is never kept by a cache
@login_required
@require_http_methods(["GET", "POST"])
def tokens(request):
    form = TokenForm(request.POST or None)
    secret = None
    replayed = False
    if request.method == "POST" and form.is_valid():
        name = form.cleaned_data["name"]
        issued = []

        def issue() -> dict:
            if ApiToken.objects.filter(user=request.user, revoked=None).count() >= MAX_TOKENS:
                too_many = _("you have %(n)s tokens; revoke one first") % {"n": MAX_TOKENS}
                raise RuleError(too_many)
            token, new_secret = ApiToken.issue(request.user, name)
            issued.append(new_secret)
            return {"id": token.pk}

        try:
            once("api-token", {"name": name}, issue, **command_args(request))
        except (RuleError, BadCommandId) as exc:
            form.add_error(None, refusal(exc))
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        else:
            # a resent form: the token exists, and its secret was shown the first time only
            secret, replayed = (issued[0], False) if issued else (None, True)
            form = TokenForm()
    status = 400 if request.method == "POST" and secret is None and not replayed else 200
    if replayed:
        messages.info(
            request,
            _("This form was already sent: the token exists; its secret was shown then only."),
        )
    return render(
        request,
        "api/tokens.html",
        {"form": form, "secret": secret, "tokens": ApiToken.objects.filter(user=request.user)},
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def revoke(request, pk: int):
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    if request.method == "POST":
        try:
            once("api-token-revoke", {"token": token.pk}, _revoked(token), **command_args(request))
        except (CommandIdReused, RuleError, BadCommandId) as exc:  # reused, or not an id at all
            error = FORM_REUSED if isinstance(exc, CommandIdReused) else refusal(exc)
            context = {"token": token, "error": error}
            return render(request, "api/token_revoke.html", context, status=400)
        messages.success(request, _("Token %(name)s is revoked.") % {"name": token.name})
        return redirect("api-tokens")
    return render(request, "api/token_revoke.html", {"token": token})


def _revoked(token: ApiToken):
    def revoke() -> dict:
        token.revoke()
        return {}

    return revoke
