"""What the sweep (test_accessibility.py) checks besides axe and the internal
names: the Content-Security-Policy (django-csp, config/settings.py). Every
page it visits, in English and in French, is sent with the policy (scripts
from this site only, nothing inline) and breaks none of it: the browser
reports no violation (``securitypolicyviolation`` events and its console),
htmx starts on every page and the API's docs (Swagger UI) start too.
test_csp.py keeps what the walk cannot show: the overlays framed by a
streaming tool while no other page may be, the dashboard's poll, the stake
slider."""

from playwright.sync_api import expect

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.effectiveDirective + " " + e.blockedURI + " " + e.sourceFile + ":" + e.lineNumber);
});
"""


class PolicyWatch:
    """The violations a context's pages report (set before its first visit):
    ``violations(page)`` after a page is loaded; ``next_page()`` before the
    next visit forgets what was heard since (axe's run, say)."""

    def __init__(self, context):
        self.console: list[str] = []
        context.add_init_script(WATCH)
        context.on("console", self._heard)

    def _heard(self, message):
        if "Content Security Policy" in message.text:
            self.console.append(message.text)

    def next_page(self):
        self.console = []

    def violations(self, page) -> list[str]:
        seen = page.evaluate("window.__csp || []") + self.console
        self.next_page()
        return seen


def policy_problems(response, page, path: str) -> list[str]:
    """The page's policy as sent, and what must still work under it: htmx on
    every page, Swagger UI on the API's docs."""
    problems = []
    policy = response.headers.get("content-security-policy", "")
    if "script-src 'self'" not in policy or "unsafe-inline" in policy:
        problems.append(f"policy {policy!r}")
    if path == "/api/docs/":
        expect(page.locator(".swagger-ui .info .title")).to_be_visible(timeout=20_000)
    elif page.evaluate("typeof window.htmx") != "object":
        problems.append("htmx did not start")
    return problems
