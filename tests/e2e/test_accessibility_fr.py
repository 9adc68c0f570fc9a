"""axe-core on every kind of page in French (test_accessibility.py has
the pages and the English run)."""

from .test_accessibility import check_every_page


def test_no_serious_or_critical_violation_on_any_page_in_french(contexts, transactional_db, site):
    check_every_page(contexts, site, "fr")
