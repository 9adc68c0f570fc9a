"""The tokens page: a user creates and revokes their own API tokens."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from .models import ApiToken

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
    if request.method == "POST" and form.is_valid():
        if ApiToken.objects.filter(user=request.user, revoked=None).count() >= MAX_TOKENS:
            form.add_error(None, _("you have %(n)s tokens; revoke one first") % {"n": MAX_TOKENS})
        else:
            token, secret = ApiToken.issue(request.user, form.cleaned_data["name"])
            form = TokenForm()
    status = 400 if request.method == "POST" and secret is None else 200
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
        token.revoke()
        messages.success(request, _("Token %(name)s is revoked.") % {"name": token.name})
        return redirect("api-tokens")
    return render(request, "api/token_revoke.html", {"token": token})
