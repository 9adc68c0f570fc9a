"""A French user sees French on every kind of site page: known French words
and <html lang="fr">, and no English left in the chrome."""

import re

import pytest
from django.core import mail
from django.template.loader import render_to_string
from django.utils import translation

from api.models import ApiToken


def french_page(resp, *words, status=200):
    html = resp.content.decode()
    assert resp.status_code == status, html[:500]
    assert '<html lang="fr">' in html
    for word in words:
        assert word in html, word
    # the header is French too
    assert "Log in<" not in html and "Log out " not in html and ">Shows<" not in html
    return html


def test_home_show_list_and_show_page(french, show, people):
    french_page(
        french.get("/"),
        "Organisez en ligne",
        ">Émissions</a>",
        ">Jeux</a>",
        "Connexion",
        # the words countdown.js writes into every live clock
        'data-time-up="temps écoulé" data-time-left="encore {time}"',
    )
    french_page(french.get("/shows/"), "<h1>Émissions</h1>", "Tableaux", "Soirée test")
    french.force_login(people["pat"])
    html = french_page(
        french.get(show.get_absolute_url()),
        "organisateur\u00a0: olga",
        "<h2>Participants</h2>",
        "Journal public",
        "vous\u00a0: joueur",
        "ana · en lice",
        "Déconnexion (pat)",
    )
    assert "Entrants" not in html and "Public log" not in html


def test_bracket_page(french, bracket):
    html = french_page(
        french.get(f"/shows/brackets/{bracket.pk}/"),
        "élimination directe",
        "<h3>demi-finales</h3>",
        "<h3>finale</h3>",
        "à déterminer",
    )
    assert "semi-finals" not in html


def test_console_pages_forms_and_messages(french, show, people):
    french.force_login(people["olga"])
    french_page(
        french.get("/console/"), "Console de l’organisateur", "Nouvelle émission", "Vos émissions"
    )
    html = french_page(
        french.get(f"/console/shows/{show.pk}/"),
        "Vous dirigez cette émission.",
        "<h2>Étapes</h2>",
        "Nommer un modérateur",
        "Nom d’utilisateur",
        "Je comprends que c’est irréversible",
    )
    assert "Appoint a moderator" not in html
    french_page(
        french.get("/console/shows/new/"),
        "Jeux proposés",
        "l’organisateur choisit",
        "vide\u00a0: valeur par défaut du jeu",
    )
    # a form's own refusal in French, beside its field
    refused = french.post("/console/invite/", {"username": "pat"})
    french_page(refused, "un compte nommé pat existe déjà", status=400)
    # a step done: the message says so in French
    done = french.post(f"/console/shows/{show.pk}/appoint", {"appoint-username": "mia"})
    assert done.status_code == 302
    french_page(french.get(done["Location"]), "Fait\u00a0: nommer un modérateur.")


def test_dashboard_and_its_refusals(french, show, people):
    french.force_login(people["olga"])
    html = french_page(
        french.get(f"/shows/{show.pk}/dashboard/"),
        "Soirée test\u00a0: tableau de bord",
        "Vous êtes olga, organisateur de cette émission",
        "Matchs en direct",
        "Litiges",
        "Accorder un objet",
        "Journal d’audit",
        "tout match de l’émission",
        "heure (UTC)",
    )
    assert "Grant an item" not in html
    # a refusal written by the view itself is French
    refused = french.post(
        f"/shows/{show.pk}/dashboard/act", {"action": "pause", "match": "999999", "reason": "x"}
    )
    french_page(refused, "Refusé\u00a0: ce n’est pas un match de cette émission", status=400)
    # a player may not open it: the 403 names the role in French
    french.force_login(people["pat"])
    french_page(
        french.get(f"/shows/{show.pk}/dashboard/"),
        "Non autorisé",
        "Vous êtes pat, joueur de Soirée test",
        status=403,
    )


def test_login_and_the_password_reset_email(french, people):
    french_page(
        french.get("/accounts/login/"), "<h1>Connexion</h1>", "Nom d’utilisateur", "Mot de passe"
    )
    sent = french.post("/accounts/password_reset/", {"email": "pat@example.com"})
    assert sent.status_code == 302
    french_page(french.get(sent["Location"]), "Consultez vos e-mails")
    (email,) = mail.outbox
    assert email.subject == "Votre mot de passe Showtable"
    assert "Choisissez un nouveau mot de passe ici\u00a0:" in email.body and "pat" in email.body


def test_token_pages_with_dates_in_the_french_format(french, people):
    french.force_login(people["pat"])
    made = french.post("/account/tokens/", {"name": "mon bot"})
    html = french_page(made, "Jetons d’API", "Votre nouveau jeton.", "Commence par", "jamais")
    token = ApiToken.objects.get()
    local = token.created.strftime("%d/%m/%Y %H:%M")  # TIME_ZONE is UTC
    assert local in html  # day first, as French writes it
    revoked = french.post(f"/account/tokens/{token.pk}/revoke")
    assert revoked.status_code == 302
    french_page(french.get(revoked["Location"]), "Le jeton mon bot est révoqué.", "révoqué le")


def test_error_pages(french, show, people):
    french_page(french.get("/shows/999999/"), "Page introuvable", status=404)
    french.force_login(people["pat"])
    french_page(french.get("/console/"), "Non autorisé", "Seul un organisateur", status=403)
    french_page(
        french.get(f"/shows/{show.pk}/decide/"),
        "Cette adresse ne reçoit qu’un formulaire",
        "répond à POST",
        status=405,
    )
    with translation.override("fr"):
        page = render_to_string("500.html")
    assert '<html lang="fr">' in page and "Une erreur est survenue de notre côté" in page


@pytest.mark.parametrize("path", ["/", "/shows/", "/accounts/login/"])
def test_english_stays_english(client, db, path):
    html = client.get(path).content.decode()
    assert '<html lang="en">' in html and not re.search(r"Émissions|Connexion", html)
