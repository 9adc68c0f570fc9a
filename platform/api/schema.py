"""How the OpenAPI schema describes the token header (loaded by the app)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A personal token from /account/tokens/, sent as `Token <secret>` "
            "(or `Bearer <secret>`).",
        }
